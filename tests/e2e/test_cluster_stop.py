"""A bounded stop: a ``bot.py --cluster`` process whose PostgreSQL is gone still exits after SIGTERM.

A stop drains, writes the last rows and hands the shard leases over, and each of those waits on the database. With
the server gone (stopped, or frozen as a partitioned or paused host looks), nothing answers those waits, and the
process used to hang until a SIGKILL. It must give up ``PAN_STOP_TIMEOUT`` after the SIGTERM, exit ``STOP_GAVE_UP``
(non-zero: the hand-over did not happen) and say so in its log. A server that refuses at once (stopped) is not
waited for, but the exit is the same: a stop that could not hand the leases over never exits 0.

Each case runs its own PostgreSQL server (the shared test server must not be stopped under other tests).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot import STOP_GAVE_UP
from tests.e2e.helpers import bot_env
from tests.fakediscord.server import FakeDiscord
from tests.support.pgserver import PostgresUnavailable, TempPostgres

ROOT = Path(__file__).resolve().parents[2]
STOP_TIMEOUT = 4.0  # PAN_STOP_TIMEOUT for the test (default 20 s)
SLACK = 6.0  # the interpreter's own exit and a loaded 2-core machine


def postmaster_pids(pg: TempPostgres) -> list[int]:
    """The server's processes: the postmaster (first line of postmaster.pid) and its children."""
    main = int((pg.data / "postmaster.pid").read_text().split()[0])
    children = subprocess.run(["pgrep", "-P", str(main)], capture_output=True, text=True, check=False).stdout.split()
    return [main, *map(int, children)]


@pytest.mark.parametrize("gone", ["stopped", "frozen"])
async def test_a_cluster_process_without_its_database_exits_within_the_bound(tmp_path: Path, gone: str) -> None:
    pg = TempPostgres.in_new_folder()
    try:
        await asyncio.to_thread(pg.start)
    except PostgresUnavailable as exc:
        pytest.fail(f"this test needs a PostgreSQL server of its own:\n{exc}", pytrace=False)
    fake = FakeDiscord(shards=1)
    fake.add_guild("shard 0", shard=0)
    await fake.start()
    log = tmp_path / "bot.log"
    env = bot_env(
        fake,
        pg.url(),
        PAN_STOP_TIMEOUT=str(STOP_TIMEOUT),
        PAN_HEARTBEAT_TIMEOUT="600",  # the heartbeat's own exit (75) must not come first: the SIGTERM is on trial
        PAN_LOG_LEVEL="INFO",
    )
    frozen: list[int] = []
    with log.open("wb") as err:
        bot = subprocess.Popen(
            [sys.executable, "bot.py", "--cluster", "0/1"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err
        )
    try:
        deadline = time.monotonic() + 60
        while fake.sessions_by_shard() != {0: 1} or not fake.global_commands:
            assert bot.poll() is None, log.read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, fake.sessions_by_shard()
            await asyncio.sleep(0.05)
        if gone == "stopped":
            await asyncio.to_thread(pg.stop)
        else:  # every wait on the server hangs: no error, no answer
            frozen = postmaster_pids(pg)
            for pid in frozen:
                os.kill(pid, signal.SIGSTOP)
        await asyncio.sleep(0.5)
        bot.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        code = await asyncio.to_thread(_wait, bot, STOP_TIMEOUT + SLACK)
        took = time.monotonic() - sent
        text = log.read_text(errors="replace")
        assert code is not None, f"still running {STOP_TIMEOUT + SLACK} s after SIGTERM:\n{text[-3000:]}"
        assert code == STOP_GAVE_UP, f"exit {code}:\n{text[-3000:]}"  # never 0: the leases were not handed over
        assert took <= STOP_TIMEOUT + SLACK, took
        if gone == "frozen":  # nothing answers: it waits out the bound, then gives up and says so
            assert took >= STOP_TIMEOUT - 0.5, took
            assert "the stop did not finish within" in text, text[-3000:]
        else:  # every wait fails at once: it stops without waiting out the bound, and says what it could not do
            assert "the shard leases were not handed over" in text, text[-3000:]
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
        await fake.stop()
        await asyncio.to_thread(pg.stop)


def _wait(process: subprocess.Popen[bytes], timeout: float) -> int | None:
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        return None
