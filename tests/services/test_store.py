"""Durable tables: open/close, contiguous log, snapshots, board message / meta, load_open_tables."""

from __future__ import annotations

import pytest

from pancog.infra.storage import Account, LogConflict, StorageError, storage_for, transfer
from pancog.services.ledger import BankScope, ChipLedger, InsufficientChips, TableClosed
from pancog.services.store import TableExists, TableStore
from tests.support.storage import GUILD, TABLE, AnyStorage


async def test_open_table_is_idempotent_and_ids_are_never_reused(store: TableStore) -> None:
    row = await store.open_table(7, guild_id=GUILD, channel_id=70, host_id=1, config='{"a": 1}')
    assert (row.status, row.last_seq, row.config, row.meta) == ("open", 0, '{"a": 1}', "{}")
    assert await store.open_table(7, guild_id=GUILD, channel_id=70, host_id=1, config="{}") == row
    with pytest.raises(TableExists):
        await store.open_table(7, guild_id=GUILD, channel_id=71, host_id=1, config="{}")
    await store.close_table(7)
    with pytest.raises(TableExists):
        await store.open_table(7, guild_id=GUILD, channel_id=70, host_id=1, config="{}")


async def test_load_open_tables_returns_ordered_logs(store: TableStore, ledger: ChipLedger, table: int) -> None:
    await store.open_table(600, guild_id=GUILD, channel_id=600, host_id=2, config="{}", meta='{"k": 1}')
    for seq in range(1, 6):
        await store.commit_action(table, seq, f"a{seq}", f"[{seq}]")
    await store.commit_action(600, 1, "b1", "[]")
    await store.set_board_message(table, 123)
    await store.update_meta(table, '{"hand": 2}')
    loaded = {t.table_id: t for t in await store.load_open_tables()}
    assert set(loaded) == {table, 600}
    t = loaded[table]
    assert t.actions == ("a1", "a2", "a3", "a4", "a5") and t.last_seq == 5 and t.first_seq == 1
    assert (t.row.board_message_id, t.row.meta, t.snapshot) == (123, '{"hand": 2}', None)
    assert loaded[600].actions == ("b1",) and loaded[600].row.meta == '{"k": 1}'
    assert await store.read_log(table, after_seq=3) == [(4, "a4", "[4]"), (5, "a5", "[5]")]
    with pytest.raises(LogConflict):
        await store.commit_action(table, 5, "a5 again under another key", "[]", key="other")
    with pytest.raises(TableClosed):
        await store.set_board_message(999, 1)


async def test_snapshot_shortens_replay(store: TableStore, table: int) -> None:
    for seq in range(1, 8):
        await store.commit_action(table, seq, f"a{seq}", "[]")
    await store.save_snapshot(table, 5, "state-after-5")
    (loaded,) = await store.load_open_tables()
    assert (loaded.snapshot, loaded.first_seq, loaded.actions, loaded.last_seq) == ("state-after-5", 6, ("a6", "a7"), 7)
    with pytest.raises(StorageError, match=r"snapshot seq 8 is outside 1\.\.7"):
        await store.save_snapshot(table, 8, "future")


async def test_commit_action_snapshot_is_atomic_and_the_only_one(
    store: TableStore, storage: AnyStorage, table: int
) -> None:
    """A snapshot commits with its action (not on an overdraw, not on a retry) and replaces older ones."""
    stack = Account.stack(table, 11)
    await store.commit_action(table, 1, "a1", "[]", snapshot="s1")
    await store.commit_action(table, 2, "a2", "[]")
    await store.save_snapshot(table, 2, "s2")  # the older snapshot is deleted
    async with store.storage.transaction() as tx:
        assert await tx.drop_snapshots(table, below=1) == 0
    with pytest.raises(InsufficientChips):
        overdraw = transfer(stack, Account.stack(table, 12), 10_000)
        await store.commit_action(table, 3, "a3", "[]", overdraw, snapshot="s3")
    (loaded,) = await store.load_open_tables()
    assert (loaded.snapshot, loaded.first_seq, loaded.actions) == ("s2", 3, ())
    await store.commit_action(table, 3, "a3", "[]", snapshot="s3")
    receipt = await store.commit_action(table, 3, "a3", "[]", snapshot="retried")  # same key: a no-op
    assert not receipt.created
    await store.commit_action(table, 4, "a4", "[]")
    (loaded,) = await store.load_open_tables()
    assert (loaded.snapshot, loaded.first_seq, loaded.actions, loaded.last_seq) == ("s3", 4, ("a4",), 4)
    rows = await storage.fetch(f"SELECT seq FROM snapshots WHERE table_id = {table}")  # noqa: S608
    assert [r[0] for r in rows] == [3]
    await store.close_table(table)
    rows = await storage.fetch(f"SELECT seq FROM snapshots WHERE table_id = {table}")  # noqa: S608
    assert list(rows) == []
    assert len(await store.read_log(table)) == 4  # the log itself is never pruned


async def test_close_table_cashes_out_and_returns_unclaimed_tops(
    store: TableStore, ledger: ChipLedger, table: int
) -> None:
    singles, doubles = Account.tops(table, "singles"), Account.tops(table, "doubles")
    await store.commit_action(
        table,
        1,
        "antes",
        "[]",
        [*transfer(Account.stack(table, 11), singles, 10), *transfer(Account.stack(table, 12), doubles, 6)],
    )
    share = transfer(singles, Account.stack(table, 13), 4)  # the service shares out part of the tops
    result = await store.close_table(table, share, actor=11)
    assert result.created
    assert result.cashouts == {11: 190, 12: 194, 13: 204}
    assert result.tops_returned == 12
    assert [await ledger.balance(GUILD, u) for u in (11, 12, 13)] == [990, 994, 1004]
    assert await store.load_open_tables() == []
    again = await store.close_table(table)
    assert not again.created and again.cashouts == result.cashouts and again.tops_returned == 12
    with pytest.raises(TableClosed):
        await store.commit_action(table, 2, "late click", "[]")
    with pytest.raises(TableClosed):
        await ledger.buy_in(table, 11, 100)
    report = await ledger.audit()
    assert report.ok and report.chips_in_play == 2988


async def test_close_table_with_overdrawing_share_changes_nothing(
    store: TableStore, ledger: ChipLedger, table: int
) -> None:
    with pytest.raises(InsufficientChips):
        await store.close_table(table, transfer(Account.tops(table, "singles"), Account.stack(table, 11), 1))
    row = await store.get_table(table)
    assert row is not None and row.status == "open"
    assert await ledger.balance(GUILD, 11) == 800


async def test_storage_reopen_keeps_everything(database: str, store: TableStore, table: int) -> None:
    await store.commit_action(table, 1, "a1", "[]", transfer(Account.stack(table, 11), Account.stack(table, 12), 5))
    await store.storage.close()
    async with storage_for(database) as reopened:
        (loaded,) = await TableStore(reopened).load_open_tables()
        assert loaded.actions == ("a1",)
        ledger = ChipLedger(reopened)
        assert (await ledger.balances([Account.stack(table, 12)]))[Account.stack(table, 12)] == 205
        assert (await ledger.audit()).ok


async def test_merge_meta_keeps_the_other_keys(store: TableStore, table: int) -> None:
    """The names and the turn clock share the meta JSON: writing one must not erase the other."""
    import json

    await store.merge_meta(table, "clock", {"banks": {"1": 90.0}})
    await store.merge_meta(table, "names", {"1": "Ann"})
    await store.merge_meta(table, "clock", {"banks": {"1": 60.0}})
    row = await store.get_table(table)
    assert row is not None
    assert json.loads(row.meta) == {"clock": {"banks": {"1": 60.0}}, "names": {"1": "Ann"}}
    await store.update_meta(table, "not json")  # an unreadable meta is replaced, not a crash
    await store.merge_meta(table, "names", {"2": "Bo"})
    row = await store.get_table(table)
    assert row is not None and json.loads(row.meta) == {"names": {"2": "Bo"}}
    await store.close_table(table)
    with pytest.raises(TableClosed):
        await store.merge_meta(table, "names", {})


async def test_a_table_with_a_bank_scope_buys_in_from_and_cashes_out_to_that_scope(
    store: TableStore, ledger: ChipLedger
) -> None:
    """A table opened with a bank scope (a league's bank season) stays its guild's table, but its buy-ins,
    cash-outs and close use the banks of that scope; the guild's own banks are never touched."""
    scope = BankScope.season(7)
    async with ledger.storage.transaction() as tx:  # what a bank season's start writes
        await ledger.set_scope_chips(tx, scope, starting_chips=0, daily_amount=0)
    await ledger.grant(scope, 11, 300, actor="system", reason="season bank")
    await store.open_table(
        TABLE, guild_id=GUILD, channel_id=TABLE, host_id=11, config='{"preset": "standard"}', scope=scope
    )
    row = await store.get_table(TABLE)
    assert row is not None and row.guild_id == GUILD and row.bank_scope == scope and row.scope == scope
    await ledger.buy_in(TABLE, 11, 200, key="sit:11")
    assert await ledger.balance(scope, 11) == 100
    await ledger.cash_out(TABLE, 11, 50)
    assert await ledger.balance(scope, 11) == 150
    await store.commit_action(
        TABLE, 1, "antes", "[]", transfer(Account.stack(TABLE, 11), Account.tops(TABLE, "singles"), 10)
    )
    result = await store.close_table(TABLE)
    assert result.cashouts == {11: 140} and result.tops_returned == 10
    assert await ledger.balance(scope, 11) == 290
    balances = await ledger.balances([Account.issued(scope), Account.bank(GUILD, 11), Account.issued(GUILD)])
    assert balances == {Account.issued(scope): -290, Account.bank(GUILD, 11): 0, Account.issued(GUILD): 0}
    assert (await ledger.audit()).ok
