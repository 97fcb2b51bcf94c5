"""Migration V4 (escrow and house accounts, tournament tables) and the tournament repository."""

from __future__ import annotations

import sqlite3

import asyncpg
import pytest

from pancog.infra.storage import storage_for
from pancog.infra.storage.base import Account, transfer
from pancog.infra.storage.postgres import dollar_placeholders
from pancog.services.ledger import ChipLedger, InsufficientChips
from pancog.services.tournaments.model import Entry, EntryStatus, Format, Status, Tournament, TournamentConfig, TTable
from pancog.services.tournaments.repository import TournamentRepository


async def test_v4_keeps_the_books_and_adds_escrow_and_house(database):
    """A v3 database with postings migrates to v4 with every balance intact; escrow/house post and audit; the
    postings stay append-only (SQLite rebuilds the table and its triggers; PostgreSQL swaps the CHECK)."""
    async with storage_for(database, target_version=3) as old:
        ledger = ChipLedger(old)
        await ledger.ensure_player(1, 5)
        await ledger.claim_daily(1, 5)
    async with storage_for(database) as new:
        assert await new.schema_version() >= 4  # the latest (the league V5 and shard leases V6 follow)
        ledger = ChipLedger(new)
        assert await ledger.balance(1, 5) == 1100
        await ledger.transact(transfer(Account.bank(1, 5), Account.escrow(77), 300), key="a", reason="buy-in")
        await ledger.transact(transfer(Account.escrow(77), Account.house(1), 30), key="b", reason="fee")
        with pytest.raises(InsufficientChips):
            await ledger.transact(transfer(Account.escrow(77), Account.bank(1, 5), 999), key="c", reason="too much")
        assert Account.parse("escrow:77") == Account.escrow(77) and Account.parse("house:1") == Account.house(1)
        report = await ledger.audit()
        assert report.ok, report.summary()
        with pytest.raises((sqlite3.DatabaseError, asyncpg.PostgresError), match="append_only"):
            async with new.transaction() as tx:
                await tx.execute("DELETE FROM postings")
        with pytest.raises((sqlite3.DatabaseError, asyncpg.PostgresError), match="kind"):
            async with new.transaction() as tx:
                await tx.execute("INSERT INTO accounts (key, kind, scope_id, balance) VALUES ('x:1', 'x', 1, 0)")
        assert await ledger.balance(1, 5) == 800


async def test_v7_adds_tournament_messages_to_a_v6_database_with_a_tournament(database):
    """A v6 database holding a running tournament migrates to v7: the tournament loads as before (no announcement
    stored yet), then its announcement is stored and read back; a second kind of message is refused (CHECK)."""
    repo = TournamentRepository()
    t = Tournament(
        tournament_id=31,
        guild_id=1,
        channel_id=2,
        host_id=3,
        config=TournamentConfig(),
        status=Status.REGISTERING,
        created_ms=10,
        seed=4,
    )
    async with storage_for(database, target_version=6) as old, old.transaction() as tx:
        await repo.put_tournament(tx, t)
    async with storage_for(database) as new:
        assert await new.schema_version() >= 7
        async with new.transaction(write=False) as tx:
            (loaded,) = await repo.load(tx)
        assert loaded.tournament_id == 31 and loaded.announcement is None
        async with new.transaction() as tx:
            await repo.put_message(tx, 31, "announcement", 2, 9001)
        async with new.transaction(write=False) as tx:
            (loaded,) = await repo.load(tx)
        assert loaded.announcement == (2, 9001)
        with pytest.raises((sqlite3.DatabaseError, asyncpg.PostgresError), match=r"(?i)check"):
            async with new.transaction() as tx:
                await repo.put_message(tx, 31, "results", 2, 9002)


async def test_generic_sql_on_both_backends(storage):
    """execute / execute_batch / fetchall take ``?`` placeholders on both backends; a ``?`` in a string is text."""
    async with storage.transaction() as tx:
        await tx.execute("CREATE TABLE kv (k BIGINT PRIMARY KEY, v TEXT NOT NULL)")
        insert = "INSERT INTO kv (k, v) VALUES (?, ?)"
        assert await tx.execute_batch([(insert, (1, "a")), (insert, (2**40, "b?")), (insert, (3, "c"))]) == [1, 1, 1]
        assert await tx.execute_batch([]) == []
        await tx.execute("UPDATE kv SET v = ? WHERE k = ?", ("z", 3))
    async with storage.transaction(write=False) as tx:
        assert await tx.fetchall("SELECT k, v FROM kv WHERE v <> '?' AND k >= ? ORDER BY k", (2,)) == [
            (3, "z"),
            (2**40, "b?"),
        ]
        assert await tx.fetchall("SELECT COUNT(*) FROM kv") == [(3,)]


def test_dollar_placeholders():
    assert dollar_placeholders("SELECT ? , '?', \"a?\" FROM t WHERE a = ? AND b IN (?, ?)") == (
        "SELECT $1 , '?', \"a?\" FROM t WHERE a = $2 AND b IN ($3, $4)"
    )
    assert dollar_placeholders("SELECT 'it''s ?' WHERE x = ?") == "SELECT 'it''s ?' WHERE x = $1"


async def test_repository_round_trip(storage):
    """A tournament with entries and tables reads back equal; finished ones are left out of the active load."""
    repo = TournamentRepository()
    cfg = TournamentConfig(
        format=Format.SCHEDULED,
        start_at_ms=5,
        max_entries=2,
        late_levels=1,
        rebuy_levels=2,
        addon=True,
        bounty=30,
        progressive=True,
        guarantee=5000,
    )
    t = Tournament(
        tournament_id=9,
        guild_id=1,
        channel_id=2,
        host_id=3,
        config=cfg,
        status=Status.RUNNING,
        created_ms=10,
        seed=42,
        started_ms=20,
        paused_total=7,
        bust_groups=1,
    )
    e1 = Entry(entry_id=1, player_id=-1001, entry_no=1, status=EntryStatus.OUT, created_ms=11, bust_group=1)
    e1.start_stack = 120
    e1.knocked_by = 2  # V16: what the entries bought and what their bounties did
    e2 = Entry(entry_id=2, player_id=55, entry_no=1, status=EntryStatus.ALIVE, created_ms=12, table_no=1, away=True)
    e2.rebuys, e2.addons, e2.bounty, e2.bounty_won = 2, 1, 45, 15
    tt = TTable(table_no=1, table_id=123456789012345, hand_stacks={2: 300})
    async with storage.transaction() as tx:
        await repo.put_tournament(tx, t)
        await repo.put_entry(tx, 9, e1)
        await repo.put_entry(tx, 9, e2)
        await repo.put_table(tx, 9, tt)
        await repo.put_message(tx, 9, "announcement", 2, 700)
        await repo.put_message(tx, 9, "announcement", 2, 701)  # posted again: the newer one counts
    async with storage.transaction(write=False) as tx:
        (loaded,) = await repo.load(tx)
    assert loaded.config == cfg and loaded.entries == {1: e1, 2: e2} and loaded.tables == {1: tt}
    assert loaded.announcement == (2, 701)
    assert (loaded.started_ms, loaded.paused_total, loaded.bust_groups, loaded.seed) == (20, 7, 1, 42)
    t.status = Status.FINISHED
    async with storage.transaction() as tx:
        await repo.put_tournament(tx, t)
    async with storage.transaction(write=False) as tx:
        assert await repo.load(tx) == []
        assert len(await repo.load(tx, active_only=False)) == 1


async def test_load_gives_each_tournament_its_own_rows_and_one_by_id(storage):
    """Two tournaments with entries, tables and announcements: each loads with its own rows (never the other's),
    and ``load(tournament_id=…)`` reads just one (what a failed write reloads), whatever its status."""
    repo = TournamentRepository()

    def tournament(tid: int, status: Status) -> Tournament:
        return Tournament(
            tournament_id=tid,
            guild_id=1,
            channel_id=2,
            host_id=3,
            config=TournamentConfig(),
            status=status,
            created_ms=10,
            seed=tid,
        )

    async with storage.transaction() as tx:
        for tid, tables in ((41, (1,)), (42, (1, 2))):
            await repo.put_tournament(tx, tournament(tid, Status.RUNNING))
            await repo.put_entry(
                tx, tid, Entry(entry_id=tid, player_id=tid * 10, entry_no=1, status=EntryStatus.ALIVE, created_ms=11)
            )
            for no in tables:
                await repo.put_table(tx, tid, TTable(table_no=no, table_id=tid * 100 + no))
            await repo.put_message(tx, tid, "announcement", 2, tid * 1000)
        await repo.put_tournament(tx, tournament(43, Status.FINISHED))
    async with storage.transaction(write=False) as tx:
        loaded = {t.tournament_id: t for t in await repo.load(tx)}
        (only,) = await repo.load(tx, active_only=False, tournament_id=42)
        (finished,) = await repo.load(tx, active_only=False, tournament_id=43)
        assert await repo.load(tx, tournament_id=43) == []  # active only: a finished one is left out
    assert sorted(loaded) == [41, 42]
    assert [e.player_id for e in loaded[41].entries.values()] == [410]
    assert {no: tt.table_id for no, tt in loaded[41].tables.items()} == {1: 4101}
    assert {no: tt.table_id for no, tt in loaded[42].tables.items()} == {1: 4201, 2: 4202}
    assert (loaded[41].announcement, loaded[42].announcement) == ((2, 41000), (2, 42000))
    assert only == loaded[42] and finished.status is Status.FINISHED and not finished.entries
