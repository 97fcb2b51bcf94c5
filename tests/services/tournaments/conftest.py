"""Tournament tests that touch storage run on both backends where it is cheap: ``[sqlite]`` and ``[postgres]``
(a real server, see tests/support/pgplugin.py) — the ledger/escrow, refusal, restart and crash-resume tests. The long
whole-event simulations stay on SQLite (``sqlite_storage``): the service code they add is backend-blind."""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from pancog.infra.storage import PostgresStorage, SqliteStorage, storage_for
from tests.support.pgplugin import with_search_path

AnyStorage = SqliteStorage | PostgresStorage
_schemas = itertools.count(1)


def open_database(database: str) -> AnyStorage:
    """A storage for a SQLite path (no fsync: tests) or a PostgreSQL URL, not opened yet."""
    options: dict[str, Any] = {} if database.startswith("postgres") else {"synchronous": "OFF"}
    return storage_for(database, **options)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def databases(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[Callable[[], Awaitable[str]]]:
    """A factory of fresh, empty databases of the backend under test: SQLite paths or PostgreSQL schemas."""
    made: list[str] = []
    files = itertools.count()
    server = str(request.getfixturevalue("postgres_server_url")) if backend == "postgres" else ""

    async def new() -> str:
        if backend == "sqlite":
            return str(tmp_path / f"t{next(files)}.sqlite3")
        schema = f"pan_tourney_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}_{os.getpid()}_{next(_schemas)}"
        conn = await asyncpg.connect(server)
        try:
            await conn.execute(f"CREATE SCHEMA {schema}")
        finally:
            await conn.close()
        made.append(schema)
        return with_search_path(server, schema)

    yield new
    if made:
        conn = await asyncpg.connect(server)
        try:
            for schema in made:
                await conn.execute(f"DROP SCHEMA {schema} CASCADE")
        finally:
            await conn.close()


@pytest.fixture
async def database(databases: Callable[[], Awaitable[str]]) -> str:
    return await databases()


@pytest.fixture
async def storage(database: str) -> AsyncIterator[AnyStorage]:
    async with open_database(database) as opened:
        yield opened


@pytest.fixture
async def sqlite_storage(tmp_path: Path) -> AsyncIterator[SqliteStorage]:
    async with SqliteStorage(tmp_path / "t.sqlite3", synchronous="OFF") as s:
        yield s
