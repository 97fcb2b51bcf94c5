"""Schema migrations (SQLite here, PostgreSQL in test_migrations_postgres.py): from an empty database, from a V1
database with data, refusal of newer schemas, and the rules of the one migrations folder both dialects share."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from pancog.infra.storage import Account, SqliteStorage, StorageError, transfer
from pancog.infra.storage.migrations import MIGRATIONS_DIR, load_migrations
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from tests.support.storage import GUILD


def tables_in(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def pragma(path: Path, name: str) -> object:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        conn.close()


def test_migration_files_are_numbered_without_gaps_for_both_dialects() -> None:
    sqlite, postgres = load_migrations("sqlite"), load_migrations("postgres")
    versions = [m.version for m in sqlite]
    assert versions == list(range(1, len(versions) + 1)) and len(versions) >= 3
    assert [(m.version, m.name) for m in postgres] == [(m.version, m.name) for m in sqlite]
    assert all(m.path.name.endswith(".sqlite.sql") for m in sqlite[:3])
    assert all(m.path.name.endswith(".postgres.sql") for m in postgres[:3])


def test_a_portable_migration_serves_both_dialects_and_a_lone_dialect_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "V1__base.sqlite.sql").write_text("CREATE TABLE a (x INTEGER);", encoding="utf-8")
    (tmp_path / "V1__base.postgres.sql").write_text("CREATE TABLE a (x BIGINT);", encoding="utf-8")
    (tmp_path / "V2__more.sql").write_text("CREATE TABLE b (y BIGINT);", encoding="utf-8")
    for dialect in ("sqlite", "postgres"):
        first, second = load_migrations(dialect, tmp_path)
        assert first.path.name == f"V1__base.{dialect}.sql" and second.path.name == "V2__more.sql"
    (tmp_path / "V3__half.sqlite.sql").write_text("SELECT 1;", encoding="utf-8")
    for dialect in ("sqlite", "postgres"):  # a migration written for one dialect only fails both backends
        with pytest.raises(StorageError, match="migration 3 has no file for postgres"):
            load_migrations(dialect, tmp_path)
    (tmp_path / "V3__half.sql").write_text("SELECT 1;", encoding="utf-8")
    with pytest.raises(StorageError, match="both a portable file and dialect files"):
        load_migrations("sqlite", tmp_path)
    (tmp_path / "V3__half.sqlite.sql").unlink()
    (tmp_path / "V3__other.postgres.sql").write_text("SELECT 1;", encoding="utf-8")
    with pytest.raises(StorageError, match="different names"):
        load_migrations("postgres", tmp_path)


async def test_empty_database_migrates_to_latest(db_path: Path) -> None:
    async with SqliteStorage(db_path) as storage:
        assert await storage.schema_version() == len(load_migrations("sqlite"))
        rows = list(await storage._connection().execute_fetchall("PRAGMA foreign_keys"))
        assert rows[0][0] == 1
    assert {"accounts", "journals", "postings", "tables", "actions", "guild_settings", "snapshots"} <= tables_in(
        db_path
    )
    assert pragma(db_path, "journal_mode") == "wal"
    async with SqliteStorage(db_path) as storage:  # a second open is a no-op
        assert await storage.schema_version() == len(load_migrations("sqlite"))


async def test_v1_database_with_data_upgrades(db_path: Path) -> None:
    async with SqliteStorage(db_path, target_version=1) as v1:
        assert await v1.schema_version() == 1
        ledger, store = ChipLedger(v1), TableStore(v1)
        async with v1.transaction() as tx:  # V1 had no settings table: grant through the raw ledger path
            from pancog.services.ledger import post_transaction

            await post_transaction(
                tx,
                transfer(Account.issued(GUILD), Account.bank(GUILD, 5), 1000),
                key="start:1:5",
                reason="starting chips",
                actor="system",
                now=1.0,
            )
        await store.open_table(9, guild_id=GUILD, channel_id=9, host_id=5, config='{"v": 1}')
        await store.commit_action(9, 1, "sit 5", "[]", transfer(Account.bank(GUILD, 5), Account.stack(9, 5), 300))
        await store.commit_action(9, 2, "ante 5", "[]", transfer(Account.stack(9, 5), Account.tops(9, "singles"), 2))
        assert (await ledger.audit()).ok
    assert "guild_settings" not in tables_in(db_path)

    async with SqliteStorage(db_path) as latest:
        assert await latest.schema_version() == len(load_migrations("sqlite"))
        ledger, store = ChipLedger(latest), TableStore(latest)
        report = await ledger.audit()
        assert report.ok and report.chips_in_play == 1000
        assert await ledger.balance(GUILD, 5) == 700
        assert await ledger.ensure_player(GUILD, 5) == 700  # the V1 grant is still recognised
        (loaded,) = await store.load_open_tables()
        assert (loaded.actions, loaded.last_seq, loaded.snapshot) == (("sit 5", "ante 5"), 2, None)
        assert (await ledger.settings(GUILD)).starting_chips == 1000
        await store.commit_action(9, 3, "next", "[]")
        await store.save_snapshot(9, 3, "s3")
    with sqlite3.connect(db_path) as conn:  # the V2 data migration created the guild's settings row
        assert conn.execute("SELECT guild_id FROM guild_settings").fetchall() == [(GUILD,)]


async def test_failed_migration_rolls_back(db_path: Path, tmp_path: Path) -> None:
    migrations = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, migrations)
    (migrations / f"V{len(load_migrations('sqlite')) + 1}__broken.sql").write_text(
        "CREATE TABLE half (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n", encoding="utf-8"
    )
    with pytest.raises(sqlite3.OperationalError):
        await SqliteStorage(db_path, migrations=migrations).open()
    assert pragma(db_path, "user_version") == len(load_migrations("sqlite"))
    assert "half" not in tables_in(db_path)


async def test_newer_schema_is_refused(db_path: Path) -> None:
    async with SqliteStorage(db_path):
        pass
    with sqlite3.connect(db_path) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(StorageError, match="newer"):
        await SqliteStorage(db_path).open()


def test_migration_gap_is_refused(tmp_path: Path) -> None:
    (tmp_path / "V1__a.sql").write_text("SELECT 1;", encoding="utf-8")
    (tmp_path / "V3__c.sql").write_text("SELECT 1;", encoding="utf-8")
    with pytest.raises(StorageError, match="gaps"):
        load_migrations("sqlite", tmp_path)
