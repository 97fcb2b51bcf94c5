"""Storage backends behind one small async interface (:mod:`pancog.infra.storage.base`).

SQLite is the embedded default; a ``postgresql://`` URL (``DATABASE_URL``) selects PostgreSQL. The composition
root calls :func:`open_storage` and never names a backend.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pancog.infra.storage.base import (
    Account,
    AccountKind,
    AuditFacts,
    BankScope,
    GuildSettings,
    IdempotencyConflict,
    JournalRecord,
    LeaseCheck,
    LogConflict,
    Overdraw,
    Posting,
    ScopeKind,
    ShardLeaseLost,
    ShardSet,
    Storage,
    StorageError,
    StorageTx,
    StoredTable,
    TableNotOpen,
    TableRow,
    TopsPot,
    transfer,
)
from pancog.infra.storage.postgres import PostgresStorage
from pancog.infra.storage.sqlite import SqliteStorage

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def storage_for(url_or_path: str | Path, **options: Any) -> SqliteStorage | PostgresStorage:
    """The backend for a ``postgresql://`` / ``postgres://`` URL, else a SQLite file path (not opened yet).

    ``options`` go to the backend's constructor. Raises ``ValueError`` for a URL of another scheme.
    """
    text = str(url_or_path).strip()
    if text.startswith(POSTGRES_SCHEMES):
        return PostgresStorage(text, **options)
    if "://" in text:
        raise ValueError(f"unsupported database URL (use postgresql://... or a SQLite file path): {text[:40]!r}")
    if text.startswith("sqlite:"):
        raise ValueError("give a SQLite database as a plain file path, not a sqlite: URL")
    if not text:
        raise ValueError("no database given")
    return SqliteStorage(text, **options)


async def open_storage(url_or_path: str | Path, **options: Any) -> SqliteStorage | PostgresStorage:
    """:func:`storage_for`, connected and migrated to the latest schema."""
    storage = storage_for(url_or_path, **options)
    await storage.open()
    return storage


__all__ = [
    "Account",
    "AccountKind",
    "AuditFacts",
    "BankScope",
    "GuildSettings",
    "IdempotencyConflict",
    "JournalRecord",
    "LeaseCheck",
    "LogConflict",
    "Overdraw",
    "PostgresStorage",
    "Posting",
    "ScopeKind",
    "ShardLeaseLost",
    "ShardSet",
    "SqliteStorage",
    "Storage",
    "StorageError",
    "StorageTx",
    "StoredTable",
    "TableNotOpen",
    "TableRow",
    "TopsPot",
    "open_storage",
    "storage_for",
    "transfer",
]
