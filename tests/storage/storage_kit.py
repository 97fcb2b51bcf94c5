"""Shared constants and helpers for tests/storage (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

from typing import Any

import asyncpg

from pancog.infra.storage import PostgresStorage, SqliteStorage
from pancog.infra.storage.postgres import PostgresTx
from pancog.infra.storage.sqlite import SqliteTx

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
