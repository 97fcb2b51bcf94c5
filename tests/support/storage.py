"""The storage tests' database on either backend, and their shared constants and helpers.

A pytest plugin (tests/conftest.py loads it): a test that takes ``storage``, ``ledger``, ``store`` or ``table``
runs against both backends, ``[sqlite]`` and ``[postgres]`` (a real server, see tests/support/pgplugin.py); one
that takes only ``db_path`` is SQLite-only. A folder's own conftest may define fixtures of the same names (the
league and tournament tests do): the nearest definition wins."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from pancog.infra.storage import PostgresStorage, SqliteStorage, storage_for
from pancog.infra.storage.postgres import PostgresTx
from pancog.infra.storage.sqlite import SqliteTx
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore

GUILD = 1
TABLE = 500
BACKENDS = ("sqlite", "postgres")
AnyStorage = SqliteStorage | PostgresStorage


class Clock:
    """A settable clock (seconds since the epoch) for daily claims and timestamps."""

    def __init__(self, now: float = 1_767_268_800.0) -> None:  # 2026-01-01T12:00:00Z
        self.now = now

    def __call__(self) -> float:
        return self.now


def tx_class(storage: AnyStorage) -> type[SqliteTx] | type[PostgresTx]:
    return PostgresTx if isinstance(storage, PostgresStorage) else SqliteTx


async def raw_execute(tx: Any, sql: str) -> None:
    """Run one parameterless statement on a transaction's connection, bypassing the services (tampering)."""
    await tx._conn.execute(sql)


def database_errors() -> tuple[type[BaseException], ...]:
    """What either driver raises when the schema refuses a statement (constraint, trigger)."""
    import sqlite3

    return (sqlite3.DatabaseError, asyncpg.PostgresError)


# ------------------------------------------------------------------ fixtures


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
