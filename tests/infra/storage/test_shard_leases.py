"""Shard leases (V6): a process takes its shards' leases at start-up and every table write checks its epoch in the
write's transaction, so a stale process whose shard a newer one took cannot write; start-up loads only owned
guilds' tables. Both backends (the ``storage`` fixture)."""

from __future__ import annotations

import asyncio

import pytest

from pancog.infra.storage import Account, ShardLeaseLost, ShardSet, transfer
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from tests.support.storage import AnyStorage, tx_class

SHARDS = 4


def guild_on(shard: int, n: int = 1) -> int:
    """A guild id (snowflake-like) that Discord routes to ``shard`` of ``SHARDS``."""
    return ((1000 + n) * SHARDS + shard) << 22


async def test_the_stale_process_commit_is_refused_and_writes_nothing(storage: AnyStorage) -> None:
    guild = guild_on(1)
    stale, fresh = TableStore(storage), TableStore(storage)
    ledger = ChipLedger(storage)
    assert await stale.take_leases(ShardSet(SHARDS, (0, 1)), "old") == {0: 1, 1: 1}
    await stale.open_table(500, guild_id=guild, channel_id=50, host_id=1, config="{}")
    await ledger.ensure_player(guild, 7)
    await ledger.buy_in(500, 7, 100)
    await stale.commit_action(500, 1, "a1", "[]")  # holds the lease: fine
    # The launcher restarted the process's shards elsewhere: the new one takes the leases (epoch 2).
    assert await fresh.take_leases(ShardSet(SHARDS, (0, 1)), "new") == {0: 2, 1: 2}
    pay = transfer(Account.stack(500, 7), Account.tops(500, "singles"), 5)
    with pytest.raises(ShardLeaseLost) as lost:
        await stale.commit_action(500, 2, "a2 from the stale process", "[]", pay)
    assert (lost.value.shard_id, lost.value.held, lost.value.current) == (1, 1, 2)
    for write in (
        stale.set_board_message(500, 9),
        stale.update_meta(500, '{"x": 1}'),
        stale.merge_meta(500, "k", 1),
        stale.close_table(500),
        stale.open_table(501, guild_id=guild, channel_id=51, host_id=1, config="{}"),
    ):
        with pytest.raises(ShardLeaseLost):
            await write
    (table,) = await fresh.load_open_tables()
    assert (table.last_seq, table.actions, table.row.board_message_id, table.row.meta) == (1, ("a1",), None, "{}")
    assert (await ledger.balances([Account.stack(500, 7)]))[Account.stack(500, 7)] == 100, "nothing was posted"
    receipt = await fresh.commit_action(500, 2, "a2", "[]", pay)  # the owner writes on
    assert receipt.created
    assert (await ledger.audit()).ok


async def test_leases_of_other_shards_do_not_fence_and_unleased_shards_are_refused(storage: AnyStorage) -> None:
    low, high = TableStore(storage), TableStore(storage)
    await low.take_leases(ShardSet(SHARDS, (0, 1)), "low")
    await high.take_leases(ShardSet(SHARDS, (2, 3)), "high")
    await low.open_table(1, guild_id=guild_on(0), channel_id=1, host_id=1, config="{}")
    await high.open_table(2, guild_id=guild_on(3), channel_id=2, host_id=1, config="{}")
    await high.take_leases(ShardSet(SHARDS, (2, 3)), "high again")  # a restart of the other process
    await low.commit_action(1, 1, "a1", "[]")
    with pytest.raises(ShardLeaseLost):
        await low.open_table(3, guild_id=guild_on(2), channel_id=3, host_id=1, config="{}")  # not its shard
    assert [t.table_id for t in await low.load_open_tables()] == [1]


async def test_only_the_owned_guilds_tables_load(storage: AnyStorage) -> None:
    owner = TableStore(storage)
    for shard in range(SHARDS):
        await owner.open_table(10 + shard, guild_id=guild_on(shard), channel_id=shard, host_id=1, config="{}")
        await owner.commit_action(10 + shard, 1, f"a{shard}", "[]")
        await owner.save_snapshot(10 + shard, 1, f"s{shard}")
        await owner.commit_action(10 + shard, 2, f"b{shard}", "[]")
    mine = TableStore(storage)
    await mine.take_leases(ShardSet(SHARDS, (1, 2)), "p1")
    loaded = await mine.load_open_tables()
    assert [(t.table_id, t.snapshot, t.actions) for t in loaded] == [(11, "s1", ("b1",)), (12, "s2", ("b2",))]
    assert len(await TableStore(storage).load_open_tables()) == SHARDS, "an unsharded store loads every table"


async def test_a_lease_taken_during_a_write_waits_for_it_or_fences_it(storage: AnyStorage) -> None:
    """Racing a commit against a newer process's lease take: either the commit lands before the take (and the new
    owner loads it) or it is refused — never a write the new owner does not see."""
    guild = guild_on(2)
    stale = TableStore(storage)
    await stale.take_leases(ShardSet(SHARDS, (2,)), "old")
    await stale.open_table(7, guild_id=guild, channel_id=7, host_id=1, config="{}")
    fresh = TableStore(storage)

    async def commit() -> bool:
        try:
            await stale.commit_action(7, 1, "a1", "[]")
        except ShardLeaseLost:
            return False
        return True

    committed, _ = await asyncio.gather(commit(), fresh.take_leases(ShardSet(SHARDS, (2,)), "new"))
    (table,) = await fresh.load_open_tables()
    assert table.actions == (("a1",) if committed else ())


async def test_a_commit_checks_its_lease_in_its_append_not_in_a_read_of_its_own(
    storage: AnyStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hot path (issue #17): once the table's guild is known, an action's commit checks the lease inside the
    append's own statement (no ``shard_lease_epoch`` round trip); the lease is read only to report a lost one,
    and a retried commit (which writes nothing) is fenced as before."""
    guild = guild_on(3)
    stale, fresh = TableStore(storage), TableStore(storage)
    await stale.take_leases(ShardSet(SHARDS, (3,)), "old")
    await stale.open_table(60, guild_id=guild, channel_id=60, host_id=1, config="{}")
    reads: list[tuple[int, int]] = []
    original = tx_class(storage).shard_lease_epoch

    async def counted(tx: object, shard_count: int, shard_id: int) -> int | None:
        reads.append((shard_count, shard_id))
        return await original(tx, shard_count, shard_id)  # type: ignore[arg-type]

    monkeypatch.setattr(tx_class(storage), "shard_lease_epoch", counted)
    await stale.commit_action(60, 1, "a1", "[]")
    await stale.commit_action(60, 2, "a2", "[]")
    assert reads == [], "the lease rode on the appends"
    await fresh.take_leases(ShardSet(SHARDS, (3,)), "new")
    with pytest.raises(ShardLeaseLost) as lost:
        await stale.commit_action(60, 3, "a3", "[]")
    assert (lost.value.held, lost.value.current) == (1, 2)
    assert reads == [(SHARDS, 3)], "read once, to say which epoch took over"
    with pytest.raises(ShardLeaseLost):
        await stale.commit_action(60, 2, "a2", "[]")  # a retry of a committed action: nothing to write, still fenced
    (table,) = await fresh.load_open_tables()
    assert table.actions == ("a1", "a2")


def test_shard_sets_are_validated() -> None:
    assert ShardSet(4, (1, 2)).owns(guild_on(2)) and not ShardSet(4, (1, 2)).owns(guild_on(3))
    for bad in ((4, ()), (4, (4,)), (0, (0,)), (2, (-1,))):
        with pytest.raises(ValueError, match="subset"):
            ShardSet(*bad)
