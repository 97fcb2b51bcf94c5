"""Ledger benchmark: hand settlements per second and start-up load of 1,000 open tables, per backend.

Run: .venv/bin/python -m bench.ledger [--backend sqlite|postgres] [--settlements 2000] [--concurrent 16]
                                      [--tables 1000] [--actions 60] [--url postgresql://...]
A settlement = one commit_action: a log append + 10 postings (5 transfers between stacks and tops).
Figures: one table settling alone, then ``--concurrent`` tables settling at once (each its own hands, in order).
SQLite is measured at synchronous=FULL and NORMAL. PostgreSQL uses ``--url`` / ``DATABASE_URL`` or else starts a
throw-away local server with PostgreSQL's durable defaults (fsync on, synchronous_commit on; tests/support/pgserver.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import tempfile
import time
from pathlib import Path

from pancog.infra.storage import Account, PostgresStorage, SqliteStorage, storage_for, transfer
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore

GUILD = 1
AnyStorage = SqliteStorage | PostgresStorage


async def settle_table(store: TableStore, table: int, count: int) -> None:
    players = list(range(1, 7))
    stacks = [Account.stack(table, u) for u in players]
    tops = Account.tops(table, "singles")
    for seq in range(1, count + 1):
        winner = stacks[((seq + 1) // 2) % 6]
        postings = []
        for loser in stacks:
            if loser != winner:
                postings += transfer(loser, winner, 1) if seq % 2 else transfer(winner, loser, 1)
        if len(postings) < 10:
            postings += transfer(winner, tops, 1)
        await store.commit_action(table, seq, f"settle hand {seq}", '[{"e": "HandWon"}]', postings)


async def settlements(storage: AnyStorage, count: int, tables: int, first_table: int) -> float:
    """Settlements/s with ``tables`` tables settling concurrently, ``count`` settlements in all."""
    ledger, store = ChipLedger(storage), TableStore(storage)
    ids = list(range(first_table, first_table + tables))
    for user in range(1, 7):
        await ledger.grant(GUILD, user, 500 * tables, actor="system", reason="bench", key=f"bench:{first_table}:{user}")
    for table in ids:
        await store.open_table(table, guild_id=GUILD, channel_id=table, host_id=1, config="{}")
        for user in range(1, 7):
            await ledger.buy_in(table, user, 500, key=f"sit:{table}:{user}")
    per_table = max(1, count // tables)
    start = time.perf_counter()
    await asyncio.gather(*(settle_table(store, table, per_table) for table in ids))
    elapsed = time.perf_counter() - start
    report = await ledger.audit()
    assert report.ok, report.summary()
    return per_table * tables / elapsed


def table_rows(tables: int, actions: int) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    now = time.time()
    config = json.dumps({"preset": "standard", "ante": 1, "decks": 8, "seats": 6})
    ids = range(10_000, 10_000 + tables)
    rows = [(t, GUILD, t, 1, config, '{"hand": 3}', "open", now, 0) for t in ids]
    logged = [
        (t, s, f"s{s % 6} discard 7s" if s % 3 else f"s{s % 6} lay 5c 6c 7c", '[{"e": "CardDiscarded"}]', now)
        for t in ids
        for s in range(1, actions + 1)
    ]
    return rows, logged


def seed_sqlite(path: Path, tables: int, actions: int) -> None:
    """Write `tables` open tables with `actions` logged actions each, directly (setup only, not measured)."""
    rows, logged = table_rows(tables, actions)
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany(
            "INSERT INTO tables (table_id, guild_id, channel_id, host_id, config, meta, status, created_at, last_seq)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        conn.executemany(
            "INSERT INTO actions (table_id, seq, action, events, created_at) VALUES (?, ?, ?, ?, ?)", logged
        )
    conn.close()


async def seed_postgres(storage: PostgresStorage, tables: int, actions: int) -> None:
    rows, logged = table_rows(tables, actions)
    async with storage.transaction() as tx:
        conn = tx._conn
        columns = [
            "table_id",
            "guild_id",
            "channel_id",
            "host_id",
            "config",
            "meta",
            "status",
            "created_at",
            "last_seq",
        ]
        await conn.copy_records_to_table("tables", records=rows, columns=columns)
        await conn.copy_records_to_table(
            "actions", records=logged, columns=["table_id", "seq", "action", "events", "created_at"]
        )


async def resume(target: str) -> tuple[float, int, int]:
    start = time.perf_counter()
    async with storage_for(target) as storage:
        loaded = await TableStore(storage).load_open_tables()
        elapsed = time.perf_counter() - start
    return elapsed, len(loaded), sum(len(t.actions) for t in loaded)


async def bench_sqlite(args: argparse.Namespace, tmp: Path) -> None:
    for mode in ("FULL", "NORMAL"):
        for tables in (1, args.concurrent):
            async with SqliteStorage(tmp / f"settle-{mode}-{tables}.sqlite3", synchronous=mode) as storage:
                rate = await settlements(storage, args.settlements, tables, first_table=1)
            print(f"sqlite    settlements/s  synchronous={mode:<6} {tables:>3} table(s) at once  {rate:8.0f}")
    path = tmp / "resume.sqlite3"
    async with SqliteStorage(path):
        pass
    seed_sqlite(path, args.tables, args.actions)
    elapsed, count, total = await resume(str(path))
    print(f"sqlite    resume: open + load_open_tables of {count} tables / {total} actions: {elapsed:.3f} s")


async def bench_postgres(args: argparse.Namespace) -> None:
    server = None
    url = args.url or os.environ.get("DATABASE_URL", "")
    if not url:
        from tests.support.pgserver import TempPostgres

        server = TempPostgres.in_new_folder(durable=True)
        server.start()
        url = server.url()
        print(f"postgres  throw-away server in {server.root} (fsync on, synchronous_commit on)")
    schema = f"pan_bench_{os.getpid()}"
    import asyncpg

    admin = await asyncpg.connect(url)
    await admin.execute(f"CREATE SCHEMA {schema}")
    target = f"{url}{'&' if '?' in url else '?'}search_path={schema}"
    try:
        async with PostgresStorage(target, max_size=args.concurrent) as storage:
            for offset, tables in enumerate((1, args.concurrent)):
                rate = await settlements(storage, args.settlements, tables, first_table=1 + 100 * offset)
                pool = f"pool={args.concurrent}"
                print(f"postgres  settlements/s  {pool:<18} {tables:>3} table(s) at once  {rate:8.0f}")
        await admin.execute(f"DROP SCHEMA {schema} CASCADE")
        await admin.execute(f"CREATE SCHEMA {schema}")
        async with PostgresStorage(target) as storage:
            await seed_postgres(storage, args.tables, args.actions)
        elapsed, count, total = await resume(target)
        print(f"postgres  resume: open + load_open_tables of {count} tables / {total} actions: {elapsed:.3f} s")
    finally:
        await admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        await admin.close()
        if server is not None:
            server.stop()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument("--settlements", type=int, default=2000)
    parser.add_argument("--concurrent", type=int, default=16, help="tables settling at once in the second figure")
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--actions", type=int, default=60)
    parser.add_argument("--url", default="", help="PostgreSQL URL (default: DATABASE_URL, else a throw-away server)")
    args = parser.parse_args()
    if args.backend in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as tmp:
            await bench_sqlite(args, Path(tmp))
    if args.backend in ("postgres", "both"):
        await bench_postgres(args)


if __name__ == "__main__":
    asyncio.run(main())
