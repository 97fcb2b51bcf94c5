"""Pytest fixtures for end-to-end tests against the fake Discord (loaded by tests/conftest.py).

- ``fake_discord``: a started FakeDiscord (no bot); for subprocess tests and the fake's own tests.
- ``discord`` / ``harness``: a Harness with the real PanBot connected, 4 members, 3 channels and a
  thread; fails the test at teardown on any ERROR log, unhandled route or payload-limit violation.
- ``harness_factory``: the same with options (member count, test-only cogs, timeouts).

``PAN_TEST_ANSWER_DELAY=0.08`` makes every in-process bot pause that long after each answer it gives (the
window a quiet-period harness would race); the suite must pass with it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakediscord.harness import DEFAULT_TIMEOUT, Harness, answer_delay, answer_delay_from_env
from tests.fakediscord.server import FakeDiscord

HarnessFactory = Callable[..., Awaitable[Harness]]


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()


@pytest.fixture
async def harness_factory(tmp_path: Path) -> AsyncIterator[HarnessFactory]:
    """``await harness_factory(members=6, setup=add_test_cogs, start_bot=True)`` -> Harness."""
    made: list[tuple[Harness, FakeDiscord]] = []
    root = logging.getLogger()

    async def make(
        *,
        members: int = 4,
        channels: tuple[str, ...] = ("general", "pan-1", "pan-2"),
        setup: Callable[[Any], Awaitable[None]] | None = None,
        start_bot: bool = True,
        timeout: float = DEFAULT_TIMEOUT,
        **bot_options: Any,
    ) -> Harness:
        fake = FakeDiscord()
        await fake.start()
        harness = Harness(fake, members=members, channels=channels, timeout=timeout)
        root.addHandler(harness.errors)
        made.append((harness, fake))
        if start_bot:
            await harness.start_bot(tmp_path / f"pan-{len(made)}.sqlite3", setup=setup, **bot_options)
        return harness

    try:
        with answer_delay(answer_delay_from_env()):
            yield make
    finally:
        for harness, fake in made:
            try:
                await harness.close()
                await fake.stop()
            finally:
                root.removeHandler(harness.errors)
        for harness, _ in made:
            found = harness.problems()
            if found:
                pytest.fail("the fake Discord saw problems:\n  " + "\n  ".join(found), pytrace=False)


@pytest.fixture
async def discord(harness_factory: HarnessFactory) -> Harness:
    """The real PanBot connected to a fresh fake Discord. Named for reading: ``await discord.slash(...)``."""
    return await harness_factory()


@pytest.fixture
async def harness(discord: Harness) -> Harness:
    """Alias of ``discord`` for test modules that also ``import discord``."""
    return discord
