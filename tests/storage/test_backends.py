"""Choosing a backend: one factory for the composition root (a SQLite path, or a PostgreSQL URL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pancog.ledger import ChipLedger
from pancog.storage import PostgresStorage, SqliteStorage, open_storage, storage_for


def test_a_path_is_sqlite_and_a_postgres_url_is_postgres(tmp_path: Path) -> None:
    assert isinstance(storage_for(tmp_path / "pan.sqlite3"), SqliteStorage)
    assert isinstance(storage_for("data/pan.sqlite3"), SqliteStorage)
    for url in ("postgresql://pan:secret@db.internal:5432/pan", "postgres://pan@/pan?host=/run/postgresql"):
        chosen = storage_for(url)
        assert isinstance(chosen, PostgresStorage) and chosen.url == url
    assert storage_for("postgresql://pan@/pan", max_size=4).max_size == 4  # options reach the backend


@pytest.mark.parametrize("bad", ["mysql://pan@db/pan", "sqlite:///data/pan.sqlite3", "  "])
def test_an_unsupported_database_is_refused_clearly(bad: str) -> None:
    with pytest.raises(ValueError, match=r"URL|path|no database"):
        storage_for(bad)


async def test_open_storage_connects_and_migrates(database: str) -> None:
    storage = await open_storage(database)
    try:
        assert await storage.schema_version() >= 3
        assert await ChipLedger(storage).ensure_player(1, 2) == 1000
    finally:
        await storage.close()
