"""Storage backends behind one small async interface (:mod:`pancog.storage.base`); SQLite is the default."""

from pancog.storage.base import (
    Account,
    AccountKind,
    AuditFacts,
    GuildSettings,
    IdempotencyConflict,
    JournalRecord,
    LogConflict,
    Overdraw,
    Posting,
    Storage,
    StorageError,
    StorageTx,
    StoredTable,
    TableNotOpen,
    TableRow,
    TopsPot,
    transfer,
)
from pancog.storage.sqlite import SqliteStorage

__all__ = [
    "Account",
    "AccountKind",
    "AuditFacts",
    "GuildSettings",
    "IdempotencyConflict",
    "JournalRecord",
    "LogConflict",
    "Overdraw",
    "Posting",
    "SqliteStorage",
    "Storage",
    "StorageError",
    "StorageTx",
    "StoredTable",
    "TableNotOpen",
    "TableRow",
    "TopsPot",
    "transfer",
]
