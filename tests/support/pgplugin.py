"""pytest plugin: one throw-away PostgreSQL server per test run, one fresh schema per test (``postgres_url``).

The controller (the xdist master, or the only process) picks the server's folder and stops the server at the
end; the first worker that needs it starts it (see tests/support/pgserver.py). If it cannot be started, every test that
needs it FAILS with the reason: PostgreSQL tests are never skipped. ``PAN_TEST_DATABASE_URL`` points the tests at
an existing server instead (each test still gets its own schema there, dropped afterwards).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from tests.support.pgserver import PostgresUnavailable, TempPostgres

ENV_URL = "PAN_TEST_DATABASE_URL"
ENV_ROOT = "PAN_TEST_PG_ROOT"
_SERVER = pytest.StashKey[TempPostgres]()
_schemas = itertools.count(1)


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or os.environ.get(ENV_URL) or os.environ.get(ENV_ROOT):
        return
    server = TempPostgres.in_new_folder()  # started lazily by the first test that needs it
    os.environ[ENV_ROOT] = str(server.root)  # inherited by the xdist workers
    config.stash[_SERVER] = server


def pytest_unconfigure(config: pytest.Config) -> None:
    server = config.stash.get(_SERVER, None)
    if server is not None:
        server.stop()
        os.environ.pop(ENV_ROOT, None)


def with_search_path(url: str, schema: str) -> str:
    """``url`` with its connections' ``search_path`` set to ``schema`` (asyncpg passes it as a server setting)."""
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    """The URL of the test server (started on first use)."""
    if os.environ.get(ENV_URL):
        return os.environ[ENV_URL]
    root = os.environ.get(ENV_ROOT)
    server = TempPostgres(Path(root)) if root else TempPostgres.in_new_folder()
    try:
        server.start()
    except PostgresUnavailable as exc:
        pytest.fail(f"the PostgreSQL tests need a PostgreSQL server and none could be started:\n{exc}", pytrace=False)
    return server.url()


@pytest.fixture
async def postgres_url(postgres_server_url: str) -> AsyncIterator[str]:
    """A URL whose connections use a new, empty schema of their own."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    schema = f"pan_test_{worker}_{os.getpid()}_{next(_schemas)}"
    conn = await asyncpg.connect(postgres_server_url)
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
    finally:
        await conn.close()
    yield with_search_path(postgres_server_url, schema)
    conn = await asyncpg.connect(postgres_server_url)
    try:
        await conn.execute(f"DROP SCHEMA {schema} CASCADE")
    finally:
        await conn.close()
