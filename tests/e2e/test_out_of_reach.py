"""A process started while Discord or its database is out of reach (an outage, its host cut off from the network)
waits it out instead of crashing: it logs one WARNING per try, stays up, and serves once the service answers; SIGTERM
meanwhile stops it at once. Before, discord.py's login raised, and a supervisor restarted the process in a loop, a
traceback each time; a cluster process's claim did the same with its database (docs/operations.md, "A host cut off
from the network"). tests/e2e/test_cluster_hosts.py shows the same with a real network cut, where the machine
allows network namespaces.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot import LOST_GATEWAY_WAIT
from pancog.infra.storage.postgres import CLOSE_WAIT
from tests.e2e.helpers import bot_env
from tests.fakediscord.server import FakeDiscord
from tests.support.pgserver import PostgresUnavailable, TempPostgres
from tests.support.stallproxy import StallingProxy

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def until(
    what: str, check: Callable[[], bool], bot: subprocess.Popen[bytes], log: Path, timeout: float = 60
) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert bot.poll() is None, f"exited {bot.returncode} before: {what}\n{log.read_text(errors='replace')[-3000:]}"
        assert time.monotonic() < deadline, f"never: {what}\n{log.read_text(errors='replace')[-3000:]}"
        await asyncio.sleep(0.05)


async def stop(bot: subprocess.Popen[bytes], log: Path) -> str:
    bot.send_signal(signal.SIGTERM)
    code = await asyncio.to_thread(bot.wait, 30)
    text = log.read_text(errors="replace")
    assert code == 0, f"exit {code}:\n{text[-3000:]}"
    assert "Traceback" not in text and " ERROR " not in text, text[-3000:]
    return text


@pytest.mark.parametrize("when", ["comes back", "never comes back"])
async def test_a_bot_started_while_discord_is_out_of_reach_waits_and_then_serves(
    tmp_path: Path, postgres_url: str, when: str
) -> None:
    fake = FakeDiscord()
    fake.add_guild("club")
    fake.port = free_port()  # nothing listens there yet: the bot's login finds Discord out of reach
    log = tmp_path / "bot.log"
    env = bot_env(fake, postgres_url, PAN_LOG_LEVEL="INFO")
    with log.open("wb") as err:
        bot = subprocess.Popen([sys.executable, "bot.py"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
    try:
        tries = lambda: log.read_text(errors="replace").count("Discord is out of reach at login")  # noqa: E731
        await until("two tries at login, logged", lambda: tries() >= 2, bot, log)
        if when == "comes back":
            await fake.start(port=fake.port)
            ready = lambda: "ready as" in log.read_text(errors="replace")  # noqa: E731
            await until("synced and ready", lambda: bool(fake.global_commands) and ready(), bot, log)
        await stop(bot, log)  # at once, even while it waits between tries
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        await fake.stop()


async def test_a_cluster_process_started_while_its_database_is_out_of_reach_waits_and_then_serves(
    tmp_path: Path,
) -> None:
    pg = TempPostgres.in_new_folder()  # not started yet: its socket is not there
    fake = FakeDiscord(shards=1)
    fake.add_guild("shard 0", shard=0)
    await fake.start()
    log = tmp_path / "bot.log"
    env = bot_env(fake, pg.url(), PAN_LOG_LEVEL="INFO")
    with log.open("wb") as err:
        bot = subprocess.Popen(
            [sys.executable, "bot.py", "--cluster", "0/1"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err
        )
    try:
        tries = lambda: log.read_text(errors="replace").count("the database is out of reach")  # noqa: E731
        await until("two tries to reach the database, logged", lambda: tries() >= 2, bot, log)
        try:
            await asyncio.to_thread(pg.start)
        except PostgresUnavailable as exc:
            pytest.fail(f"this test needs a PostgreSQL server of its own:\n{exc}", pytrace=False)
        await until(
            "serving its shard", lambda: fake.sessions_by_shard() == {0: 1} and bool(fake.global_commands), bot, log
        )
        text = await stop(bot, log)
        assert "shard leases claimed" in text and "shard leases released" in text
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        await fake.stop()
        await asyncio.to_thread(pg.stop)


async def test_a_cluster_process_cut_off_from_its_database_leaves_discord_at_once(tmp_path: Path) -> None:
    """Only the database out of reach (its link stalled, not refused), Discord still answering: the process gives its
    shards up once it has written no heartbeat for PAN_HEARTBEAT_TIMEOUT (before, its heartbeat waited on the stalled
    link for as long as TCP retries, and it went on serving shards a standby would take), closes its gateway
    sessions soon after — their interactions are the successor's now, and answering them here would race it — and
    exits 75 well before PAN_STOP_TIMEOUT."""
    pg = TempPostgres.in_new_folder()
    try:
        await asyncio.to_thread(pg.start)
    except PostgresUnavailable as exc:
        pytest.fail(f"this test needs a PostgreSQL server of its own:\n{exc}", pytrace=False)
    proxy = StallingProxy(pg.url())
    cut_url = await proxy.start()
    fake = FakeDiscord(shards=1)
    fake.add_guild("shard 0", shard=0)
    await fake.start()
    log = tmp_path / "bot.log"
    timeout, stop_timeout = 3.0, 20.0
    env = bot_env(
        fake,
        cut_url,
        PAN_LOG_LEVEL="INFO",
        PAN_HEARTBEAT_SECONDS="0.5",
        PAN_HEARTBEAT_TIMEOUT=str(timeout),
        PAN_STOP_TIMEOUT=str(stop_timeout),
    )
    with log.open("wb") as err:
        bot = subprocess.Popen(
            [sys.executable, "bot.py", "--cluster", "0/1"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err
        )
    try:
        serving = lambda: fake.sessions_by_shard() == {0: 1} and bool(fake.global_commands)  # noqa: E731
        await until("serving its shard", serving, bot, log)
        proxy.stall()
        cut = time.monotonic()
        await until("leaving the cluster", lambda: "leaving the cluster" in log.read_text(errors="replace"), bot, log)
        lost = time.monotonic()
        assert lost - cut < timeout + timeout / 2 + 2, lost - cut
        await until("its gateway session closed", lambda: fake.sessions_by_shard().get(0, 0) == 0, bot, log)
        assert time.monotonic() - lost < 3.0, "the gateway stayed open through the teardown"
        code = await asyncio.to_thread(bot.wait, stop_timeout + 10)
        assert code == 75, log.read_text(errors="replace")[-3000:]
        left = time.monotonic() - lost
        print(f"lost at {lost - cut:.1f}s after the cut; exited {left:.1f}s later")
        # the gateway's close, the storage's close and the release are each bounded (bot.LOST_GATEWAY_WAIT,
        # postgres.CLOSE_WAIT, half the heartbeat timeout + a heartbeat): not PAN_STOP_TIMEOUT's last resort
        assert left < LOST_GATEWAY_WAIT + CLOSE_WAIT + timeout + 3, "the teardown waited on the stalled link"
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        proxy.mend()
        await proxy.close()
        await fake.stop()
        await asyncio.to_thread(pg.stop)
