"""The PostgreSQL a benchmark runs on: a fresh schema on ``DATABASE_URL``'s server, or a throw-away server of its
own (tests/support/pgserver.py), shared by the soak and the cluster benchmarks."""

from __future__ import annotations

import os
from typing import Any

import asyncpg

from tests.support.pgserver import TempPostgres


async def postgres_url() -> tuple[str, Any, list[int]]:
    """(url, cleanup, server pids): a fresh schema on DATABASE_URL's server (its CPU is not measured: no pids),
    or a throw-away durable server (the postmaster, whose children are the backends)."""
    base = os.environ.get("DATABASE_URL", "").strip()
    if base:
        schema = f"pan_bench_{os.getpid()}"
        conn = await asyncpg.connect(base)
        await conn.execute(f"CREATE SCHEMA {schema}")
        await conn.close()

        async def drop() -> None:
            c = await asyncpg.connect(base)
            await c.execute(f"DROP SCHEMA {schema} CASCADE")
            await c.close()

        return f"{base}{'&' if '?' in base else '?'}search_path={schema}", drop, []
    server = TempPostgres.in_new_folder(durable=True)
    server.start()

    async def stop() -> None:
        server.stop()

    postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
    return server.url(), stop, [postmaster]
