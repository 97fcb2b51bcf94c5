"""The IDENTIFY queue across processes: Discord allows one IDENTIFY per rate-limit bucket (``shard_id %
max_concurrency``) per 5 s for the whole bot, not per process. Two ``bot.py`` processes (``--cluster 0/2`` and
``1/2``, two hosts by their ``PAN_HOST_NAME``) start together against a fake whose ``max_concurrency`` is 1: every
shard is in bucket 0. Each process alone would identify its shard at once (nothing to wait for in its own pacer);
through the queue in PostgreSQL the second waits its turn, and the fake records no IDENTIFY out of turn."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from pancog.infra.cluster import Launcher
from tests.e2e.helpers import bot_env, logged_spawn
from tests.fakediscord.server import FakeDiscord


async def test_two_processes_identify_one_bucket_five_seconds_apart(tmp_path: Path, postgres_url: str) -> None:
    fake = FakeDiscord(shards=2, max_concurrency=1)
    fake.add_guild("shard 0", shard=0)
    fake.add_guild("shard 1", shard=1)
    await fake.start()
    logs: list[Path] = []
    spawn = logged_spawn(tmp_path, logs)
    launchers = [
        Launcher(2, 2, python=sys.executable, env=bot_env(fake, postgres_url, PAN_HOST_NAME=host), spawn=spawn)
        for host in ("host-a", "host-b")
    ]
    launchers[0].specs.pop(1)  # host A runs 0/2, host B runs 1/2
    launchers[1].specs.pop(0)
    try:
        for launcher in launchers:
            launcher.start()
        deadline = time.monotonic() + 60
        while fake.sessions_by_shard() != {0: 1, 1: 1}:
            assert time.monotonic() < deadline, fake.sessions_by_shard()
            await asyncio.sleep(0.05)
        status = fake.status()["identify"]
        assert sorted(status["shards"]) == [0, 1], status
        times = [at for at, _, _ in fake.identify_log]
        assert times[1] - times[0] >= 5.0, times
        assert status["violations"] == [], status
    except BaseException:
        for log in logs:
            print(f"==== {log.name}\n{log.read_text(errors='replace')[-3000:]}")
        raise
    finally:
        for launcher in launchers:
            launcher.stop(grace=10)
        await fake.stop()
    text = "\n".join(log.read_text(errors="replace") for log in logs)
    assert "Traceback" not in text and " ERROR " not in text, text[-4000:]
