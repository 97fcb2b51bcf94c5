"""Fixtures for the league tests: a database with the ledger, the table service and the league attached.

``env`` is a SQLite file; ``backend_env`` is parametrised ``[sqlite]`` / ``[postgres]`` (a real server, see
tests/support/pgplugin.py); :func:`fresh_storage` opens a new empty database of either backend (one per
hypothesis example).
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from pancog.infra.storage import PostgresStorage, SqliteStorage, storage_for
from pancog.services.league import LeagueService
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import TableConfig, TableService, seeded_deals
from tests.support.pgplugin import with_search_path
from tests.support.wiring import wire_league

GUILD = 4242


class Clock:
    def __init__(self, now: float = 1_767_268_800.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Env:
    def __init__(self, storage: SqliteStorage | PostgresStorage, seed: int = 1) -> None:
        self.storage = storage
        self.clock = Clock()
        self.ledger = ChipLedger(storage, clock=self.clock)
        self.store = TableStore(storage, clock=self.clock)
        self.tables = TableService(self.ledger, self.store, dealer=seeded_deals(seed), clock=self.clock)
        self.league = LeagueService(storage, self.ledger, clock=self.clock)
        wire_league(self.tables, self.league)
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
async def sqlite_env(tmp_path: Path) -> AsyncIterator[Env]:
    async with SqliteStorage(tmp_path / "league.sqlite3", synchronous="OFF") as storage:
        yield Env(storage)


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    async with SqliteStorage(tmp_path / "league.sqlite3", synchronous="OFF") as storage:
        yield Env(storage)


BACKENDS = ("sqlite", "postgres")
_schemas = itertools.count(1)


@contextlib.asynccontextmanager
async def fresh_database(backend: str, folder: Path, server_url: str | None) -> AsyncIterator[str]:
    """A new, empty database, not opened: a SQLite file path in ``folder``, or the URL of a new PostgreSQL schema
    (dropped afterwards)."""
    if backend == "sqlite":
        yield str(folder / f"league{next(_schemas)}.sqlite3")
        return
    assert server_url is not None
    schema = f"pan_league_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}_{os.getpid()}_{next(_schemas)}"
    conn = await asyncpg.connect(server_url)
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
    finally:
        await conn.close()
    try:
        yield with_search_path(server_url, schema)
    finally:
        conn = await asyncpg.connect(server_url)
        try:
            await conn.execute(f"DROP SCHEMA {schema} CASCADE")
        finally:
            await conn.close()


@contextlib.asynccontextmanager
async def fresh_storage(
    backend: str, folder: Path, server_url: str | None
) -> AsyncIterator[SqliteStorage | PostgresStorage]:
    """A new, empty database of either backend, opened (migrated to the latest version)."""
    async with fresh_database(backend, folder, server_url) as target:
        storage = SqliteStorage(target, synchronous="OFF") if backend == "sqlite" else storage_for(target)
        async with storage:
            yield storage


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def server_url(backend: str, request: pytest.FixtureRequest) -> str | None:
    """The PostgreSQL test server's URL for ``[postgres]`` (started on first use), None for ``[sqlite]``."""
    return str(request.getfixturevalue("postgres_server_url")) if backend == "postgres" else None


@pytest.fixture
async def backend_env(backend: str, tmp_path: Path, server_url: str | None) -> AsyncIterator[Env]:
    async with fresh_storage(backend, tmp_path, server_url) as storage:
        yield Env(storage)
