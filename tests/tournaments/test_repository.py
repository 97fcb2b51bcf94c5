"""Migration V4 (escrow and house accounts, tournament tables) and the tournament repository."""

from __future__ import annotations

import sqlite3

import pytest

from pancog.ledger import ChipLedger, InsufficientChips
from pancog.storage import SqliteStorage
from pancog.storage.base import Account, transfer
from pancog.tournaments.model import Entry, EntryStatus, Format, Status, Tournament, TournamentConfig, TTable
from pancog.tournaments.repository import TournamentRepository


async def test_v4_keeps_the_books_and_adds_escrow_and_house(tmp_path):
    """A v3 database with postings migrates to v4 with every balance intact; escrow/house post and audit."""
    path = tmp_path / "m.sqlite3"
    async with SqliteStorage(path, target_version=3) as old:
        ledger = ChipLedger(old)
        await ledger.ensure_player(1, 5)
        await ledger.claim_daily(1, 5)
    async with SqliteStorage(path) as new:
        assert await new.schema_version() == 4
        ledger = ChipLedger(new)
        assert await ledger.balance(1, 5) == 1100
        await ledger.transact(transfer(Account.bank(1, 5), Account.escrow(77), 300), key="a", reason="buy-in")
        await ledger.transact(transfer(Account.escrow(77), Account.house(1), 30), key="b", reason="fee")
        with pytest.raises(InsufficientChips):
            await ledger.transact(transfer(Account.escrow(77), Account.bank(1, 5), 999), key="c", reason="too much")
        assert Account.parse("escrow:77") == Account.escrow(77) and Account.parse("house:1") == Account.house(1)
        report = await ledger.audit()
        assert report.ok, report.summary()
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append_only"):
        conn.execute("DELETE FROM postings")
    conn.close()


async def test_repository_round_trip(tmp_path):
    """A tournament with entries and tables reads back equal; finished ones are left out of the active load."""
    repo = TournamentRepository()
    cfg = TournamentConfig(format=Format.SCHEDULED, start_at_ms=5, max_entries=2, late_levels=1)
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
    e2 = Entry(entry_id=2, player_id=55, entry_no=1, status=EntryStatus.ALIVE, created_ms=12, table_no=1, away=True)
    tt = TTable(table_no=1, table_id=123456789012345, hand_stacks={2: 300})
    async with SqliteStorage(tmp_path / "r.sqlite3") as storage:
        async with storage.transaction() as tx:
            await repo.put_tournament(tx, t)
            await repo.put_entry(tx, 9, e1)
            await repo.put_entry(tx, 9, e2)
            await repo.put_table(tx, 9, tt)
        async with storage.transaction(write=False) as tx:
            (loaded,) = await repo.load(tx)
        assert loaded.config == cfg and loaded.entries == {1: e1, 2: e2} and loaded.tables == {1: tt}
        assert (loaded.started_ms, loaded.paused_total, loaded.bust_groups, loaded.seed) == (20, 7, 1, 42)
        t.status = Status.FINISHED
        async with storage.transaction() as tx:
            await repo.put_tournament(tx, t)
        async with storage.transaction(write=False) as tx:
            assert await repo.load(tx) == []
            assert len(await repo.load(tx, active_only=False)) == 1
