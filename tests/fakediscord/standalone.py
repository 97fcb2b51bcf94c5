"""Run the fake outside pytest: in a background thread (benchmarks) or as ``python -m tests.fakediscord``."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, Self, TypeVar

from .harness import Harness
from .server import IDENTIFY_WINDOW, FakeDiscord

T = TypeVar("T")


class FakeDiscordThread:
    """A FakeDiscord + Harness world served from its own event loop thread.

    with FakeDiscordThread(members=200, channels=50) as running:
        env = running.env()            # DISCORD_API_BASE, DISCORD_GATEWAY_URL, DISCORD_TOKEN, TEST_GUILD_ID
        running.call(lambda h: h.slash(h.users[0], "pan help"))   # drive it from any thread
    """

    def __init__(
        self,
        *,
        members: int = 4,
        channels: int = 3,
        port: int = 0,
        shards: int = 1,
        global_limit: int | None = None,
        max_concurrency: int = 16,
        identify_window: float = IDENTIFY_WINDOW,
    ) -> None:
        self.members, self.channels, self.port = members, channels, port
        self.shards, self.global_limit = shards, global_limit
        self.max_concurrency, self.identify_window = max_concurrency, identify_window
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="fake-discord", daemon=True)
        self.fake: FakeDiscord
        self.harness: Harness

    def __enter__(self) -> Self:
        self._thread.start()
        self.submit(self._start()).result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.submit(self._stop()).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)

    async def _start(self) -> None:
        self.fake = FakeDiscord(
            shards=self.shards,
            global_limit=self.global_limit,
            max_concurrency=self.max_concurrency,
            identify_window=self.identify_window,
        )
        await self.fake.start(port=self.port)
        names = ("general", *(f"pan-{i}" for i in range(1, self.channels)))
        self.harness = Harness(self.fake, members=self.members, channels=names)

    async def _stop(self) -> None:
        await self.harness.close()
        await self.fake.stop()

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def call(self, fn: Callable[[Harness], Coroutine[Any, Any, T]], timeout: float = 30) -> T:
        """Run ``fn(harness)`` on the fake's loop and wait for its result."""
        return self.submit(fn(self.harness)).result(timeout=timeout)

    def status(self) -> dict[str, Any]:
        """The fake's counters (global limit, identify pacing, sessions), as ``GET /_fake/status`` serves them."""
        return self.submit(self._status()).result(timeout=10)

    async def _status(self) -> dict[str, Any]:
        return self.fake.status()

    def env(self) -> dict[str, str]:
        """Environment for ``python bot.py`` against this fake (every bot process may share it), and
        ``FAKE_STATUS_URL``, where a test in another process reads the fake's counters."""
        return {
            "DISCORD_TOKEN": self.fake.token,
            "DISCORD_API_BASE": self.fake.api_base,
            "DISCORD_GATEWAY_URL": self.fake.gateway_url,
            "TEST_GUILD_ID": str(self.harness.guild.id),
            "PAN_GUILD_READY_TIMEOUT": "0.05",
            "FAKE_STATUS_URL": self.fake.status_url,
        }
