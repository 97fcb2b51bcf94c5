"""A cluster under the launcher: 2 ``bot.py`` processes over 4 shards on one PostgreSQL, a table in a guild on every
shard, one process SIGKILLed mid-hand (with a move in flight on one of its tables). The launcher restarts it, the
new process takes its shards' leases and resumes their tables from the log; every hand finishes and the books
balance (the ledger audit, every table's engine stacks against the ledger, and ``/panadmin audit`` in every guild).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import cast

from pancog.game.state import TableState
from pancog.infra.cluster import Launcher
from pancog.infra.storage import PostgresStorage, storage_for
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import TableService
from tests.e2e.helpers import bot_env, logged_spawn
from tests.e2e.test_kill_restart import greedy_command
from tests.fakediscord.harness import Harness, InteractionFailed
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.fakediscord.server import FakeDiscord, shard_of

ROOT = Path(__file__).resolve().parents[2]
SHARDS, PROCESSES = 4, 2
KILL_AFTER = 12  # moves played (over all tables) before the SIGKILL
MAX_MOVES = 1600  # a safety cap only


class _Snapshot:
    """The storage as one REPEATABLE READ snapshot: every read transaction ``read_tables`` opens is the same one.

    The bots keep committing while the test reads (a settlement, the next hand's deal); read in separate
    transactions, the tables (from the log) and the ledger could come from either side of a commit and disagree
    ("engine 0, ledger 100") although the books never did.
    """

    def __init__(self, storage: PostgresStorage, tx: object) -> None:
        self._storage, self._tx = storage, tx

    def __getattr__(self, name: str) -> object:
        return getattr(self._storage, name)

    @contextlib.asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[object]:
        assert not write, "read_tables only reads"
        yield self._tx


async def read_tables(storage: PostgresStorage) -> tuple[dict[int, TableState], list[str]]:
    """Every open table as a fresh process would rebuild it, by channel; plus audit problems and book differences,
    all read from one snapshot."""
    async with storage.transaction(write=False) as tx:
        snapshot = cast(PostgresStorage, _Snapshot(storage, tx))
        ledger = ChipLedger(snapshot)
        service = TableService(ledger, TableStore(snapshot))
        await service.load()
        problems = list((await ledger.audit()).problems)
        for session in service.sessions:
            problems += await service.check_books(session.table_id)
    return {s.channel_id: s.state for s in service.sessions}, problems


async def wait_gone(fake: FakeDiscord, shards: set[int], timeout: float = 40) -> None:
    """Until the fake has no live gateway session left on ``shards`` (it saw a killed process's sockets close).

    A process's death is not yet the fake's news: until its server reads the closed sockets, the dead sessions still
    count as connected, and ``wait_connected`` would return at once without restarting anything."""
    deadline = time.monotonic() + timeout
    while shards & set(fake.sessions_by_shard()):
        assert time.monotonic() < deadline, f"shards still connected: {fake.sessions_by_shard()}"
        await asyncio.sleep(0.02)


async def wait_connected(fake: FakeDiscord, launcher: Launcher, timeout: float = 40) -> None:
    """Until every shard has one live gateway session (polling the launcher, which restarts what died)."""
    deadline = time.monotonic() + timeout
    while fake.sessions_by_shard() != dict.fromkeys(range(SHARDS), 1):
        launcher.poll()
        assert time.monotonic() < deadline, f"shards connected: {fake.sessions_by_shard()}"
        await asyncio.sleep(0.05)


def cluster_launcher(
    fake: FakeDiscord, postgres_url: str, tmp_path: Path, logs: list[Path], **settings: str
) -> Launcher:
    """The launcher of PROCESSES ``bot.py`` processes over SHARDS shards on ``fake`` and PostgreSQL (global commands:
    every guild of every shard has them); each process's stderr goes to a file appended to ``logs``. ``settings``:
    more environment variables (or other values for these)."""
    env = bot_env(fake, postgres_url, **settings)
    return Launcher(SHARDS, PROCESSES, python=sys.executable, env=env, spawn=logged_spawn(tmp_path, logs))


async def kill_mid_move(fake: FakeDiscord, launcher: Launcher, move: Awaitable[object]) -> None:
    """SIGKILL the second process (shards 1 and 3, strided) while ``move`` (a command sent with ``settle=False``) is in
    flight — committed or not, the player moves again — then wait until the launcher restarted it and every shard is
    connected again."""
    victim = launcher.specs[1]
    pending = asyncio.ensure_future(move)
    await asyncio.sleep(0.02)
    assert victim.process is not None
    victim.process.kill()
    victim.process.wait()
    with contextlib.suppress(InteractionFailed, asyncio.CancelledError):
        await pending
    for interaction in fake.interactions.values():
        if not interaction.settled:
            interaction.abandoned = True
    await wait_gone(fake, {1, 3})
    await wait_connected(fake, launcher)


def print_evidence(fake: FakeDiscord, launcher: Launcher, logs: list[Path]) -> None:
    """On a failure: each bot process's log tail, the fake's sessions and gateway log, the processes' fate."""
    for log in logs:
        print(f"==== {log.name}\n{log.read_text(errors='replace')[-3000:]}")
    print(f"==== sessions by shard: {fake.sessions_by_shard()}; restarts: {[s.restarts for s in launcher.specs]}")
    alive = [(s.index, s.process.pid, s.process.poll()) for s in launcher.specs if s.process is not None]
    print(f"==== processes (index, pid, exit code or None while running): {alive}")
    print(f"==== gateway log (last 12): {fake.gateway_log[-12:]}")


async def test_a_killed_cluster_process_is_restarted_and_every_hand_finishes(tmp_path: Path, postgres_url: str) -> None:
    fake = FakeDiscord(shards=SHARDS)
    harness = Harness(fake, members=2 * SHARDS)  # its own guild stays empty: the tables are in the shard guilds
    tables: list[tuple[FakeChannel, list[FakeUser]]] = []
    for shard in range(SHARDS):
        pair = harness.users[2 * shard : 2 * shard + 2]
        guild = fake.add_guild(f"shard {shard}", channels=("pan",), members=pair, shard=shard)
        tables.append((guild.channels[0], pair))
    await fake.start()
    logs: list[Path] = []
    launcher = cluster_launcher(fake, postgres_url, tmp_path, logs, PAN_DEAL_SEED="17")
    storage = storage_for(postgres_url)
    assert isinstance(storage, PostgresStorage)
    launcher.start()
    try:
        await wait_connected(fake, launcher)
        await storage.open()
        for channel, (host, guest) in tables:
            await harness.slash(host, "pan open", channel=channel)
            await harness.slash(guest, "pan join", channel=channel)
        # The host sits down after /pan open's answer (the board goes first), in a process the harness cannot watch:
        # wait for both seats in the database before /pan start, or it may find one player and deal nothing.
        deadline = time.monotonic() + 40
        while True:
            states, _ = await read_tables(storage)
            seated = {c.id: len([s for s in states[c.id].seats if s is not None]) for c, _ in tables}
            if all(n == 2 for n in seated.values()):
                break
            assert time.monotonic() < deadline, f"players seated per table: {seated}"
            await asyncio.sleep(0.05)
        starts = [(await harness.slash(host, "pan start", channel=channel)).text for channel, (host, _) in tables]
        states, _ = await read_tables(storage)
        assert all(states[c.id].hand is not None for c, _ in tables), starts  # every table dealt before the answer
        victim = launcher.specs[1]  # shards 1 and 3
        assert victim.process is not None
        victim_pid = victim.process.pid
        victim_channels = {c.id for c, _ in tables if shard_of(c.guild_id or 0, SHARDS) in (1, 3)}
        moves = kills = 0
        while True:
            states, problems = await read_tables(storage)
            assert problems == [], problems
            playing = [(c, users) for c, users in tables if states[c.id].hand is not None]
            if not playing:
                break
            for channel, users in playing:
                seat, command, options = greedy_command(states[channel.id])
                seated = states[channel.id].seats[seat]
                assert seated is not None
                user = next(u for u in users if u.id == seated.player_id)
                moves += 1
                assert moves <= MAX_MOVES, "the hands never ended"
                if kills == 0 and moves >= KILL_AFTER and channel.id in victim_channels:
                    # SIGKILL the process while this move is in flight: committed or not, the player moves again
                    await kill_mid_move(
                        fake, launcher, harness.slash(user, command, channel=channel, settle=False, **options)
                    )
                    kills += 1
                    assert victim.restarts == 1, "all shards connected, yet the killed process was not restarted"
                    break  # re-read every table: the killed move may or may not have committed
                reply = await harness.slash(user, command, channel=channel, **options)
                assert reply.ephemeral or "your turn" in reply.text, reply.text  # #14.1: a turn ping is public
        assert kills == 1 and victim.restarts == 1
        assert victim.process is not None and victim.process.pid != victim_pid
        assert launcher.specs[0].restarts == 0, "the other process never stopped"
        states, problems = await read_tables(storage)
        assert problems == []
        ends = {c: (s.hand is None, s.hand_no, s.last_hand is not None) for c, s in states.items()}
        assert all(end == (True, 1, True) for end in ends.values()), ends
        async with storage.transaction() as tx:  # the lease check locks the row: a write transaction
            epochs = {s: await tx.shard_lease_epoch(SHARDS, s) for s in range(SHARDS)}
        assert epochs == {0: 1, 1: 2, 2: 1, 3: 2}, "the restarted process took its shards' leases again"
        for channel, (host, _guest) in tables:
            reply = await harness.slash(host, "panadmin audit", channel=channel)
            assert reply.text.startswith("Ledger audit: OK"), reply.text
        print(f"{SHARDS} hands finished after {moves} moves; one process killed and restarted")
    except BaseException:  # keep the evidence of a failure: each bot process's log tail and the fake's sessions
        print_evidence(fake, launcher, logs)
        raise
    finally:
        launcher.stop(grace=5)
        await storage.close()
        await fake.stop()
    text = "\n".join(log.read_text(errors="replace") for log in logs)
    assert "Traceback" not in text and " ERROR " not in text, text[-4000:]
    assert fake.unhandled == [] and fake.violations == []
