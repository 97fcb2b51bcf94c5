"""Fixtures for the league tests: a SQLite file with the ledger, the table service and the league attached."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pancog.league import LeagueService
from pancog.ledger import ChipLedger
from pancog.storage import SqliteStorage
from pancog.store import TableStore
from pancog.tables import TableConfig, TableService, seeded_deals

GUILD = 4242


class Clock:
    def __init__(self, now: float = 1_767_268_800.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Env:
    def __init__(self, storage: SqliteStorage, seed: int = 1) -> None:
        self.storage = storage
        self.clock = Clock()
        self.ledger = ChipLedger(storage, clock=self.clock)
        self.store = TableStore(storage, clock=self.clock)
        self.tables = TableService(self.ledger, self.store, dealer=seeded_deals(seed), clock=self.clock)
        self.league = LeagueService(storage, self.ledger, clock=self.clock)
        self.league.attach(self.tables)
        self._next_table = 10_000

    async def open_table(self, users: list[int], *, buy_in: int = 400, guild: int = GUILD) -> int:
        self._next_table += 1
        table = self._next_table
        await self.tables.open_table(
            table, guild_id=guild, channel_id=table, host_id=users[0], config=TableConfig.build()
        )
        for user in users:
            await self.ledger.grant(guild, user, buy_in, actor="system", reason="test")
            await self.tables.join(table, user, buy_in=buy_in)
        return table


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    async with SqliteStorage(tmp_path / "league.sqlite3", synchronous="OFF") as storage:
        yield Env(storage)
