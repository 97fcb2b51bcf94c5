"""Every ledger, store, crash and concurrency test here runs against both backends: ``[sqlite]`` and
``[postgres]`` (a real server, see tests/pgplugin.py). Tests that only take ``db_path`` are SQLite-only."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from storage_kit import BACKENDS, GUILD, TABLE, Clock

from pancog.infra.storage import PostgresStorage, SqliteStorage, storage_for
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "pan.sqlite3"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def database(backend: str, db_path: Path, request: pytest.FixtureRequest) -> str:
    """A fresh, empty database of the backend under test: a SQLite path or a PostgreSQL URL (own schema)."""
    if backend == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return str(db_path)


@pytest.fixture
async def storage(database: str) -> AsyncIterator[SqliteStorage | PostgresStorage]:
    async with storage_for(database) as opened:
        yield opened


@pytest.fixture
def ledger(storage: SqliteStorage | PostgresStorage, clock: Callable[[], float]) -> ChipLedger:
    return ChipLedger(storage, clock=clock)


@pytest.fixture
def store(storage: SqliteStorage | PostgresStorage, clock: Callable[[], float]) -> TableStore:
    return TableStore(storage, clock=clock)


@pytest.fixture
async def table(store: TableStore, ledger: ChipLedger) -> int:
    """An open table in GUILD with players 11, 12, 13 seated with 200 chips each."""
    await store.open_table(TABLE, guild_id=GUILD, channel_id=TABLE, host_id=11, config='{"preset": "standard"}')
    for user in (11, 12, 13):
        await ledger.buy_in(TABLE, user, 200, key=f"sit:{user}")
    return TABLE
