"""pan-web reads the bot's database and can write nothing: a SQLite file opened read-only, a PostgreSQL role that may
only SELECT (as docs/operations.md creates it); neither is ever migrated by pan-web."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import asyncpg
import pytest

from pancog.infra.storage import PostgresStorage, SqliteStorage, StorageError
from pancog.web.reader import WebReader
from tests.support.pgplugin import with_search_path
from tests.web.seed import GUILD, Seeded, seed

_roles = itertools.count(1)


async def reads_and_refuses_writes(reader: SqliteStorage | PostgresStorage, seeded: Seeded, refused: type) -> None:
    """pan-web's reads work on ``reader``; a write transaction is refused before it starts, and a write inside a
    read transaction fails with ``refused`` (the database's own refusal)."""
    web = WebReader(reader)
    assert await web.guild_of(seeded.token) == GUILD
    info = await web.season(GUILD, None)
    assert info is not None and len(info.standings) == 3
    with pytest.raises(StorageError):
        async with reader.transaction():
            pass
    async with reader.transaction(write=False) as tx:
        with pytest.raises(refused):
            await tx.execute("DELETE FROM web_access")


async def test_sqlite_read_only_reads_and_refuses_writes(tmp_path: Path) -> None:
    path = tmp_path / "pan.sqlite3"
    async with SqliteStorage(path, synchronous="OFF") as writer:
        seeded = await seed(writer, hands=2, tables=1)
    async with SqliteStorage(path, read_only=True) as reader:
        await reads_and_refuses_writes(reader, seeded, sqlite3.OperationalError)
    async with SqliteStorage(path) as writer:  # nothing was changed
        assert await writer.fetch("SELECT COUNT(*) FROM web_access") == [(2,)]


async def test_sqlite_read_only_never_creates_or_migrates(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="start the bot"):
        await SqliteStorage(tmp_path / "none.sqlite3", read_only=True).open()
    assert not (tmp_path / "none.sqlite3").exists()
    async with SqliteStorage(tmp_path / "old.sqlite3", target_version=8):
        pass
    with pytest.raises(StorageError, match="v8"):
        await SqliteStorage(tmp_path / "old.sqlite3", read_only=True).open()


async def test_postgres_with_a_select_only_role(postgres_server_url: str, tmp_path: Path) -> None:
    """The role of docs/operations.md: pan-web reads the league with it, and every write is refused."""
    n = next(_roles)
    schema, role = f"pan_web_ro_{n}", f"pan_web_{n}"
    admin = await asyncpg.connect(postgres_server_url)
    try:
        await admin.execute(f"CREATE SCHEMA {schema}")
        async with PostgresStorage(with_search_path(postgres_server_url, schema)) as writer:
            seeded = await seed(writer, hands=2, tables=1)
        await admin.execute(f"CREATE ROLE {role} LOGIN")
        await admin.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        await admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")
        url = with_search_path(postgres_server_url.replace("postgres@", f"{role}@", 1), schema)
        async with PostgresStorage(url, read_only=True) as reader:
            await reads_and_refuses_writes(reader, seeded, asyncpg.PostgresError)
        role_conn = await asyncpg.connect(url.replace(f"search_path={schema}", f"options=-csearch_path%3D{schema}"))
        try:  # even outside pan-web's read-only transactions, the role itself cannot write
            with pytest.raises(asyncpg.InsufficientPrivilegeError):
                await role_conn.execute(f"DELETE FROM {schema}.web_access")  # noqa: S608 - a test schema name
        finally:
            await role_conn.close()
    finally:
        await admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")  # its grants go with it
        await admin.execute(f"DROP ROLE IF EXISTS {role}")
        await admin.close()
