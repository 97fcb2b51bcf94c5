"""SQLite: a settlement's statements go to aiosqlite's worker thread in as few calls (hops) as possible — the
postings in one call, the append with its snapshot in one more; the chip league's hand result rides on the journal
row itself — so neither costs an extra hop (docs/storage.md "One hop per batch")."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from pancog.infra.storage import Account, SqliteStorage, StorageTx, transfer
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore

GUILD, TABLE = 1, 9


@pytest.fixture
async def sqlite(tmp_path: Path) -> AsyncIterator[SqliteStorage]:
    async with SqliteStorage(tmp_path / "hops.sqlite3", synchronous="OFF") as storage:
        yield storage


class Hops:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        original: Callable[..., Any] = aiosqlite.Connection._execute

        async def counted(conn: aiosqlite.Connection, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return await original(conn, fn, *args, **kwargs)

        monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)


async def test_a_settlement_takes_the_same_hops_with_the_league_rows_and_a_snapshot(
    sqlite: SqliteStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger, store = ChipLedger(sqlite), TableStore(sqlite)
    await store.open_table(TABLE, guild_id=GUILD, channel_id=TABLE, host_id=1, config="{}")
    for user in (1, 2, 3):
        await ledger.buy_in(TABLE, user, 100, key=f"sit:{user}")
    stacks = [Account.stack(TABLE, u) for u in (1, 2, 3)]

    async def league(tx: StorageTx) -> str:
        return "1 0 hand result"

    hops = Hops(monkeypatch)
    await store.commit_action(TABLE, 1, "bare", "[]", [*transfer(stacks[0], stacks[1], 5)])
    bare = hops.count
    assert bare == 5  # BEGIN, journal, postings, append, COMMIT
    hops.count = 0
    first = await store.commit_action(
        TABLE, 2, "league", "[]", [*transfer(stacks[1], stacks[2], 5)], snapshot="state text", result=league
    )
    assert hops.count == bare  # the snapshot rode on the append, the result on the journal row
    async with sqlite.transaction(write=False) as tx:
        assert await tx.fetchall("SELECT id, result FROM journals WHERE result IS NOT NULL") == [
            (first.journal_id, "1 0 hand result")
        ]
        assert await tx.fetchall("SELECT seq, state FROM snapshots WHERE table_id = ?", (TABLE,)) == [(2, "state text")]
    again = await store.commit_action(TABLE, 2, "league", "[]", [*transfer(stacks[1], stacks[2], 5)], result=league)
    assert not again.created and again.journal_id == first.journal_id
    async with sqlite.transaction(write=False) as tx:  # a retry stores nothing again
        assert await tx.fetchall("SELECT COUNT(*) FROM journals WHERE result IS NOT NULL") == [(1,)]
    assert (await ledger.audit()).ok


async def test_an_error_while_recording_the_result_rolls_back_the_whole_action(sqlite: SqliteStorage) -> None:
    ledger, store = ChipLedger(sqlite), TableStore(sqlite)
    await store.open_table(TABLE, guild_id=GUILD, channel_id=TABLE, host_id=1, config="{}")
    await ledger.buy_in(TABLE, 1, 100, key="sit:1")

    async def broken(tx: StorageTx) -> str:
        await tx.fetchall("SELECT * FROM no_such_table")
        return "never"

    with pytest.raises(Exception, match="no_such_table"):
        await store.commit_action(
            TABLE, 1, "x", "[]", [*transfer(Account.stack(TABLE, 1), Account.tops(TABLE, "singles"), 5)], result=broken
        )
    assert await store.read_log(TABLE) == []
    assert await ledger.balances([Account.stack(TABLE, 1)]) == {Account.stack(TABLE, 1): 100}
    receipt = await store.commit_action(TABLE, 1, "x", "[]")
    assert receipt.created  # the key and the seq were rolled back too
