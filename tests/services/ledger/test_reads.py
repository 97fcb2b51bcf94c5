"""The ledger's reads: the leaderboard's default length, the audit's table-log check, and the audit and the other
reads beside another process's writer (docs/storage.md, docs/commands.md)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pancog.infra.storage import SqliteStorage
from pancog.services.ledger import Account, ChipLedger
from pancog.services.store import TableStore
from tests.support.storage import GUILD, AnyStorage, Clock, raw_execute


async def test_the_leaderboard_shows_the_top_ten_by_default(ledger: ChipLedger) -> None:
    """docs/commands.md: ``/pan leaderboard`` shows the top ten. Twelve players: the two poorest are left out."""
    for user in range(1, 13):
        await ledger.grant(GUILD, user, user * 10, actor="system", reason="seed")
    assert await ledger.leaderboard(GUILD) == [(user, user * 10) for user in range(12, 2, -1)]


async def test_the_audit_names_a_table_whose_log_disagrees_with_its_last_seq(
    ledger: ChipLedger, storage: AnyStorage, store: TableStore
) -> None:
    """docs/storage.md: the audit checks that every table's log is contiguous (``last_seq`` = the number of
    logged actions). A table opened with no action logged, whose ``last_seq`` is then set to 3 behind the
    services' back, is named."""
    await store.open_table(9, guild_id=GUILD, channel_id=9, host_id=7, config="{}")
    assert (await ledger.audit()).ok
    async with storage.transaction() as tx:
        await raw_execute(tx, "UPDATE tables SET last_seq = 3 WHERE table_id = 9")
    report = await ledger.audit()
    assert not report.ok
    assert report.problems == ("table 9: last_seq 3 but 0 logged actions",)


async def test_the_audit_reads_beside_another_processs_writer(db_path: Path, clock: Clock) -> None:
    """docs/storage.md: the audit is a read-only transaction reading one snapshot. On SQLite (WAL) a reader
    neither waits for nor holds up a writer: an audit run while a second process holds the write lock
    completes at once (a write transaction would wait out the busy timeout and fail: "database is locked")."""
    async with SqliteStorage(db_path, busy_timeout_ms=300) as auditing:
        ledger = ChipLedger(auditing, clock=clock)
        await ledger.grant(GUILD, 7, 50, actor="system", reason="seed")
        async with SqliteStorage(db_path) as writer, writer.transaction() as tx:
            await raw_execute(tx, "UPDATE accounts SET balance = balance WHERE key = 'nobody'")  # holds the lock
            report = await asyncio.wait_for(ledger.audit(), timeout=10)
        assert report.ok and report.chips_in_play == 50


async def test_the_balances_leaderboard_and_settings_read_beside_another_processs_writer(
    db_path: Path, clock: Clock
) -> None:
    """docs/storage.md: ``balances()``, ``leaderboard()`` and ``settings()`` are read-only transactions, like the
    audit. While a second process holds SQLite's write lock each completes at once with the committed rows; a
    write transaction (BEGIN IMMEDIATE) would wait out the 300 ms busy timeout and fail: "database is locked"."""
    async with SqliteStorage(db_path, busy_timeout_ms=300) as reading:
        ledger = ChipLedger(reading, clock=clock)
        await ledger.update_settings(GUILD, starting_chips=40, daily_amount=15)
        await ledger.grant(GUILD, 7, 50, actor="system", reason="seed")
        await ledger.grant(GUILD, 8, 20, actor="system", reason="seed")
        bank = Account.bank(GUILD, 7)
        async with SqliteStorage(db_path) as writer, writer.transaction() as tx:
            await raw_execute(tx, "UPDATE accounts SET balance = balance WHERE key = 'nobody'")  # holds the lock
            balances = await asyncio.wait_for(ledger.balances([bank]), timeout=10)
            leaders = await asyncio.wait_for(ledger.leaderboard(GUILD), timeout=10)
            settings = await asyncio.wait_for(ledger.settings(GUILD), timeout=10)
        assert balances == {bank: 50}
        assert leaders == [(7, 50), (8, 20)]
        assert (settings.starting_chips, settings.daily_amount) == (40, 15)
