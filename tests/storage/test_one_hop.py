"""SQLite: a settlement's statements go to aiosqlite's worker thread in as few calls (hops) as possible — the
postings in one call, the append with its snapshot and the chip league's rows in one more — so what rides on the
append costs no extra hop (docs/storage.md "One hop per batch")."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from pancog.ledger import ChipLedger
from pancog.storage import Account, SqliteStorage, StorageTx, transfer
from pancog.storage.base import Statement
from pancog.store import TableStore

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
    seen: list[int] = []

    async def league(tx: StorageTx, journal: int) -> list[Statement]:
        seen.append(journal)
        return [
            ("CREATE TEMP TABLE IF NOT EXISTS hop_probe (journal INTEGER)", ()),
            ("INSERT INTO hop_probe (journal) VALUES (?)", (journal,)),
        ]

    hops = Hops(monkeypatch)
    await store.commit_action(TABLE, 1, "bare", "[]", [*transfer(stacks[0], stacks[1], 5)])
    bare = hops.count
    assert bare == 5  # BEGIN, journal, postings, append, COMMIT
    hops.count = 0
    await store.commit_action(
        TABLE, 2, "league", "[]", [*transfer(stacks[1], stacks[2], 5)], snapshot="state text", in_tx=league
    )
    assert hops.count == bare  # the snapshot and the league's rows rode on the append
    async with sqlite.transaction(write=False) as tx:
        assert await tx.fetchall("SELECT journal FROM hop_probe") == [(seen[0],)]
        assert await tx.fetchall("SELECT seq, state FROM snapshots WHERE table_id = ?", (TABLE,)) == [(2, "state text")]
    hops.count = 0
    again = await store.commit_action(TABLE, 2, "league", "[]", [*transfer(stacks[1], stacks[2], 5)], in_tx=league)
    assert not again.created and len(seen) == 1  # a retry runs nothing of it
    assert (await ledger.audit()).ok


async def test_an_error_in_a_statement_riding_on_the_append_rolls_back_the_whole_action(sqlite: SqliteStorage) -> None:
    ledger, store = ChipLedger(sqlite), TableStore(sqlite)
    await store.open_table(TABLE, guild_id=GUILD, channel_id=TABLE, host_id=1, config="{}")
    await ledger.buy_in(TABLE, 1, 100, key="sit:1")

    async def broken(tx: StorageTx, journal: int) -> list[Statement]:
        return [("INSERT INTO no_such_table VALUES (?)", (journal,))]

    with pytest.raises(Exception, match="no_such_table"):
        await store.commit_action(
            TABLE, 1, "x", "[]", [*transfer(Account.stack(TABLE, 1), Account.tops(TABLE, "singles"), 5)], in_tx=broken
        )
    assert await store.read_log(TABLE) == []
    assert await ledger.balances([Account.stack(TABLE, 1)]) == {Account.stack(TABLE, 1): 100}
    receipt = await store.commit_action(TABLE, 1, "x", "[]")
    assert receipt.created  # the key and the seq were rolled back too
