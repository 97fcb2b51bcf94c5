"""Choosing a backend: one factory for the composition root (a SQLite path, or a PostgreSQL URL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pancog.infra.storage import PostgresStorage, SqliteStorage, open_storage, storage_for
from pancog.services.ledger import ChipLedger


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


def test_question_marks_become_numbered_placeholders_outside_literals() -> None:
    from pancog.infra.storage.postgres import dollar_placeholders

    assert dollar_placeholders("SELECT ?, '?', \"a?\" FROM t WHERE x = ? -- why?\nAND y = ?") == (
        "SELECT $1, '?', \"a?\" FROM t WHERE x = $2 -- why?\nAND y = $3"
    )
    assert dollar_placeholders("SELECT 'it''s ?', ?") == "SELECT 'it''s ?', $1"
    assert dollar_placeholders("SELECT '', ?, \"\"") == "SELECT '', $1, \"\""  # empty literals end at once
    assert dollar_placeholders("SELECT 'a'?") == "SELECT 'a'$1"  # the first character after a literal counts
    assert dollar_placeholders("SELECT ?, 'open ?") == "SELECT $1, 'open ?"  # an unterminated literal runs to the end
    assert dollar_placeholders("SELECT ? -- to the end ?") == "SELECT $1 -- to the end ?"


async def test_generic_statements_run_the_same_on_both_backends(storage: SqliteStorage | PostgresStorage) -> None:
    """``execute`` / ``fetchall`` / ``execute_batch`` (chip leagues): ``?`` placeholders, row counts, rows in order."""
    async with storage.transaction() as tx:
        await tx.execute("DELETE FROM league_cursors")  # a fresh database has the journals cursor (migration V8)
        assert await tx.execute("INSERT INTO league_cursors (name, value) VALUES (?, ?)", ("a", 1)) == 1
        counts = await tx.execute_batch(
            [
                ("INSERT INTO league_cursors (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", ("a", 9)),
                ("INSERT INTO league_cursors (name, value) VALUES (?, ?), (?, ?)", ("b", 2, "c", 3)),
                ("UPDATE league_cursors SET value = value + ? WHERE name <> ?", (10, "c")),
            ]
        )
        assert counts == [0, 2, 2]
        assert await tx.fetchall("SELECT name, value FROM league_cursors ORDER BY name") == [
            ("a", 11),
            ("b", 12),
            ("c", 3),
        ]
    with pytest.raises(RuntimeError):
        async with storage.transaction() as tx:
            await tx.execute("DELETE FROM league_cursors WHERE name = ?", ("a",))
            raise RuntimeError("rolled back")
    async with storage.transaction(write=False) as tx:
        assert len(await tx.fetchall("SELECT name FROM league_cursors")) == 3
