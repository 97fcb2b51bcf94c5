"""A table action that moves no chips is written in one statement on PostgreSQL (``commit_bare_action``): the same
rows as the transaction path, nothing at all when it must not write (a used key, a lease taken by another
process, a closed table, a gap in the log), and the table store falls back to the transaction, which tells those
cases apart. SQLite declines the shortcut."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from pancog.infra.storage import LeaseCheck, LogConflict, PostgresStorage, ShardSet, SqliteStorage, TableNotOpen
from pancog.services.ledger import TableClosed
from pancog.services.store import TableStore
from tests.support.storage import AnyStorage

GUILD = 4 << 22  # shard 0 of 4


@pytest.fixture
async def postgres_storage(postgres_url: str) -> AsyncIterator[PostgresStorage]:
    async with PostgresStorage(postgres_url) as opened:
        yield opened


async def counts(storage: AnyStorage) -> tuple[int, int]:
    async with storage.transaction(write=False) as tx:
        ((journals,),) = await tx.fetchall("SELECT COUNT(*) FROM journals")
        ((actions,),) = await tx.fetchall("SELECT COUNT(*) FROM actions")
    return int(journals), int(actions)


async def test_postgres_writes_the_action_and_its_journal_in_one_statement(postgres_storage: PostgresStorage) -> None:
    store = TableStore(postgres_storage)
    await store.open_table(1, guild_id=GUILD, channel_id=10, host_id=7, config="{}")
    before = await counts(postgres_storage)
    common = {"reason": "Draw", "actor": "7", "table_id": 1, "action": "draw", "events": "", "created_at": 5.0}
    journal = await postgres_storage.commit_bare_action(key="table:1:seq:1", seq=1, lease=None, **common)
    assert journal is not None
    assert await counts(postgres_storage) == (before[0] + 1, before[1] + 1)
    assert await store.read_log(1) == [(1, "draw", "")]
    # a used key: nothing written, None (the transaction path then returns the first receipt)
    assert await postgres_storage.commit_bare_action(key="table:1:seq:1", seq=2, lease=None, **common) is None
    assert await counts(postgres_storage) == (before[0] + 1, before[1] + 1)
    with pytest.raises(LogConflict):  # seq 3 before seq 2: refused whole
        await postgres_storage.commit_bare_action(key="table:1:seq:3", seq=3, lease=None, **common)
    assert await counts(postgres_storage) == (before[0] + 1, before[1] + 1)


async def test_postgres_bare_action_checks_the_lease_on_both_rows(postgres_storage: PostgresStorage) -> None:
    stale, fresh = TableStore(postgres_storage), TableStore(postgres_storage)
    await stale.take_leases(ShardSet(4, (0,)), "old")
    await stale.open_table(1, guild_id=GUILD, channel_id=10, host_id=7, config="{}")
    await fresh.take_leases(ShardSet(4, (0,)), "new")  # epoch 2: the old process may no longer write
    before = await counts(postgres_storage)
    journal = await postgres_storage.commit_bare_action(
        key="table:1:seq:1",
        reason="Draw",
        actor="7",
        table_id=1,
        seq=1,
        action="draw",
        events="",
        created_at=5.0,
        lease=LeaseCheck(4, 0, 1),
    )
    assert journal is None
    assert await counts(postgres_storage) == before  # no journal without its action


async def test_the_store_falls_back_and_raises_as_before(storage: AnyStorage) -> None:
    store = TableStore(storage)
    await store.open_table(1, guild_id=GUILD, channel_id=10, host_id=7, config="{}")
    first = await store.commit_action(1, 1, "draw", "", [], actor=7, reason="Draw")
    again = await store.commit_action(1, 1, "draw", "", [], actor=7, reason="Draw")  # a retried delivery
    assert first.created and not again.created and again.journal_id == first.journal_id
    assert await store.read_log(1) == [(1, "draw", "")]
    await store.close_table(1)
    with pytest.raises(TableClosed):
        await store.commit_action(1, 2, "discard", "", [], actor=7, reason="Discard")
    if isinstance(storage, SqliteStorage):
        assert (
            await storage.commit_bare_action(
                key="k",
                reason="r",
                actor="7",
                table_id=1,
                seq=2,
                action="a",
                events="",
                created_at=1.0,
                lease=None,
            )
            is None
        )
    else:
        with pytest.raises(TableNotOpen):
            await storage.commit_bare_action(
                key="k", reason="r", actor="7", table_id=1, seq=2, action="a", events="", created_at=1.0, lease=None
            )
