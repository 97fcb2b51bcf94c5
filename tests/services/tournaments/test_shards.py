"""Tournaments in a cluster (two processes of two shards on one database, both backends): a tournament and its
tables live on the process that owns its guild's shard — routed by the guild, never by the tournament's or a table's
id. A process loads only its guilds' tournaments; a step that fails after creating a table's thread reuses it; a
process that lost its guild's lease creates no thread, drops the tournament with a log line and never raises out of
the clock or start-up; the new owner resumes it."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from pancog.ai import Level
from pancog.infra.storage.base import BankScope, ShardLeaseLost, ShardSet, StorageError
from pancog.services.bots import computer_id
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import TableService
from pancog.services.tournaments.levels import default_antes
from pancog.services.tournaments.model import Format, Status, Tournament, TournamentConfig
from pancog.services.tournaments.repository import TournamentRepository
from pancog.services.tournaments.service import TournamentService
from tests.services.tournaments.conftest import AnyStorage

SHARDS = 2
GUILD_A = (40 << 22) + 1  # shard 0
GUILD_B = (41 << 22) + 1  # shard 1
T_A = (41 << 22) + 77  # a tournament of guild A whose own id maps to shard 1 (the old routing's trap)
T_B = (40 << 22) + 78
CONFIG = TournamentConfig(format=Format.SNG, buy_in=100, seats=2, starting_stack=300, antes=default_antes(10))


class Channels:
    """The adapter's thread factory, counted: thread ids 9000, 9001, … per table."""

    def __init__(self) -> None:
        self.made: list[tuple[int, int]] = []

    async def __call__(self, t: Tournament, table_no: int) -> int:
        self.made.append((t.tournament_id, table_no))
        return 9000 + len(self.made) - 1


class Process:
    """One cluster process's services on the shared database: its shards' leases taken, then its rows loaded."""

    def __init__(self, storage: AnyStorage, shard: int) -> None:
        self.shards = ShardSet(SHARDS, (shard,))
        self.store = TableStore(storage)
        self.ledger = ChipLedger(storage)
        self.tables = TableService(self.ledger, self.store)
        self.channels = Channels()
        self.service = TournamentService(self.tables, channel_factory=self.channels)

    async def start(self) -> int:
        await self.store.take_leases(self.shards, f"process {self.shards.ids}")
        await self.tables.load()
        return await self.service.load()


def bot(n: int) -> int:
    return computer_id(Level.EASY, n)


async def test_routing_by_the_guild_loads_each_tournament_on_exactly_one_process(storage: AnyStorage) -> None:
    assert ShardSet(SHARDS, (0,)).owns(GUILD_A) and not ShardSet(SHARDS, (0,)).owns(T_A)
    a, b = Process(storage, 0), Process(storage, 1)
    assert await a.start() == 0 and await b.start() == 0
    for process, tid, guild in ((a, T_A, GUILD_A), (b, T_B, GUILD_B)):
        await process.service.create(tid, guild_id=guild, channel_id=1, host_id=1, config=CONFIG)
        for n in (1, 2):  # fills the Sit & Go: it starts, seats both and deals on its process
            await process.service.register(tid, bot(n))
        await process.service.drain()
        t = process.service.get(tid)
        assert t.status is Status.RUNNING
        (tt,) = t.tables.values()
        session = process.tables.get(tt.table_id)
        assert session.guild_id == guild and session.bank_scope == BankScope.tournament(tid)  # the guild's table
        assert session.in_hand and session.channel_id == tt.channel_id == 9000
    with pytest.raises(ShardLeaseLost):  # a guild on another process's shard: refused, nothing stored
        await a.service.create(T_B + 1, guild_id=GUILD_B, channel_id=1, host_id=1, config=CONFIG)

    again_a, again_b = Process(storage, 0), Process(storage, 1)  # both restart
    assert await again_a.start() == 1 and await again_b.start() == 1
    assert [t.tournament_id for t in again_a.service.tournaments] == [T_A]
    assert [t.tournament_id for t in again_b.service.tournaments] == [T_B]
    await again_a.service.kick()
    await again_b.service.kick()
    assert again_a.channels.made == again_b.channels.made == []  # the tables were open: no new thread
    assert {s.guild_id for s in again_a.tables.sessions} == {GUILD_A}
    assert {s.guild_id for s in again_b.tables.sessions} == {GUILD_B}


async def test_a_step_that_fails_after_creating_a_thread_reuses_it(storage: AnyStorage) -> None:
    a = Process(storage, 0)
    await a.start()
    await a.service.create(T_A, guild_id=GUILD_A, channel_id=1, host_id=1, config=CONFIG)
    real_open = a.tables.open_table
    failures = [StorageError("the database went away")]

    async def flaky_open(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return await real_open(*args, **kwargs)

    a.tables.open_table = flaky_open  # type: ignore[method-assign]
    for n in (1, 2):
        await a.service.register(T_A, bot(n))
    await a.service.drain()  # the start's step created the thread, then failed to open the table
    t = a.service.get(T_A)
    (tt,) = t.tables.values()
    assert a.channels.made == [(T_A, 1)] and tt.channel_id == 9000
    assert a.service.tournament_of_table(tt.table_id) == T_A
    await a.service.tick()  # the next tick opens the table in the same thread
    assert a.channels.made == [(T_A, 1)]
    session = a.tables.get(tt.table_id)
    assert session.channel_id == 9000 and session.in_hand
    async with storage.transaction(write=False) as tx:
        (stored,) = await TournamentRepository().load(tx, tournament_id=T_A)
    assert stored.tables[1].channel_id == 9000


async def test_a_process_that_lost_its_guild_creates_no_thread_and_never_raises(
    storage: AnyStorage, caplog: pytest.LogCaptureFixture
) -> None:
    """A tournament stored as started whose tables are not open yet (the process died right after the start). Its
    old process, replaced by a newer one it did not notice, ticks: no thread is created, the tournament is dropped
    with a log line and neither tick nor kick raises. The new owner opens the table, in one thread."""
    old = Process(storage, 0)
    await old.start()
    await old.service.create(T_A, guild_id=GUILD_A, channel_id=1, host_id=1, config=CONFIG)
    for n in (1, 2):
        await old.service.register(T_A, bot(n))
    await old.service.stop()  # the seating step never ran (as at a SIGKILL right after the start)
    assert old.service.get(T_A).status is Status.RUNNING and old.tables.sessions == ()

    new = Process(storage, 0)
    assert await new.start() == 1  # takes the shard's lease: the old process is stale now
    caplog.set_level(logging.WARNING, logger="pan.tournaments")
    for _ in range(3):
        await old.service.tick()
        await old.service.kick()
    assert old.channels.made == []  # not one thread from the stale process
    assert old.service.tournaments == () and old.service.tournament_of_table(1) is None
    assert sum("no longer serves its guild" in r.getMessage() for r in caplog.records) == 1

    await new.service.kick()
    assert new.channels.made == [(T_A, 1)]
    (tt,) = new.service.get(T_A).tables.values()
    assert new.tables.get(tt.table_id).channel_id == 9000
    await new.service.tick()
    assert new.channels.made == [(T_A, 1)]
