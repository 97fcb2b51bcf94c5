"""PostgreSQL schema migrations (the same folder as SQLite's, see pancog/infra/storage/migrations.py)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import asyncpg
import pytest

from pancog.infra.storage import Account, PostgresStorage, StorageError, transfer
from pancog.infra.storage.migrations import MIGRATIONS_DIR, load_migrations
from pancog.services.ledger import ChipLedger, post_transaction
from pancog.services.store import TableStore
from tests.support.storage import GUILD

LATEST = len(load_migrations("postgres"))


async def relations(storage: PostgresStorage) -> set[str]:
    rows = await storage.fetch("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
    return {str(r[0]) for r in rows}


async def test_empty_schema_migrates_to_latest_once(postgres_url: str) -> None:
    async with PostgresStorage(postgres_url) as storage:
        assert await storage.schema_version() == LATEST
        assert {
            "accounts",
            "journals",
            "postings",
            "tables",
            "actions",
            "guild_settings",
            "snapshots",
        } <= await relations(storage)
        applied = await storage.fetch("SELECT version, name FROM schema_migrations ORDER BY version")
        assert applied == [(m.version, m.name) for m in load_migrations("postgres")]
    async with PostgresStorage(postgres_url) as again:  # a second open is a no-op
        assert await again.fetch("SELECT COUNT(*) FROM schema_migrations") == [(LATEST,)]


async def test_processes_opening_a_fresh_database_together_migrate_it_once(postgres_url: str) -> None:
    storages = [PostgresStorage(postgres_url) for _ in range(4)]
    await asyncio.gather(*(s.open() for s in storages))
    try:
        assert await storages[0].fetch("SELECT COUNT(*) FROM schema_migrations") == [(LATEST,)]
        assert [await s.schema_version() for s in storages] == [LATEST] * 4
    finally:
        await asyncio.gather(*(s.close() for s in storages))


async def test_v1_database_with_data_upgrades(postgres_url: str) -> None:
    async with PostgresStorage(postgres_url, target_version=1) as v1:
        assert await v1.schema_version() == 1
        ledger, store = ChipLedger(v1), TableStore(v1)
        async with v1.transaction() as tx:  # V1 had no settings table: grant through the raw ledger path
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
        assert (await ledger.audit()).ok
        assert "guild_settings" not in await relations(v1)
    async with PostgresStorage(postgres_url) as latest:
        assert await latest.schema_version() == LATEST
        ledger, store = ChipLedger(latest), TableStore(latest)
        report = await ledger.audit()
        assert report.ok and report.chips_in_play == 1000
        assert await ledger.ensure_player(GUILD, 5) == 700  # the V1 grant is still recognised
        (loaded,) = await store.load_open_tables()
        assert (loaded.actions, loaded.last_seq) == (("sit 5",), 1)
        assert await latest.fetch("SELECT guild_id FROM guild_settings") == [(GUILD,)]  # V2's backfill


async def test_failed_migration_rolls_back(postgres_url: str, tmp_path: Path) -> None:
    migrations = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, migrations)
    (migrations / f"V{LATEST + 1}__broken.sql").write_text(
        "CREATE TABLE half (x BIGINT);\nINSERT INTO no_such_table VALUES (1);\n", encoding="utf-8"
    )
    with pytest.raises(asyncpg.UndefinedTableError):
        await PostgresStorage(postgres_url, migrations=migrations).open()
    async with PostgresStorage(postgres_url) as storage:
        assert await storage.schema_version() == LATEST
        assert "half" not in await relations(storage)


async def test_newer_schema_is_refused(postgres_url: str) -> None:
    async with PostgresStorage(postgres_url) as storage, storage.transaction() as tx:
        await tx._conn.execute("INSERT INTO schema_migrations VALUES (99, 'future', 0)")
    with pytest.raises(StorageError, match="newer"):
        await PostgresStorage(postgres_url).open()
