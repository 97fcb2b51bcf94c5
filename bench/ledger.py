"""Ledger benchmark: hand settlements per second (FULL / NORMAL) and start-up load of 1,000 open tables.

Run: .venv/bin/python bench/ledger.py [--settlements 2000] [--tables 1000] [--actions 60]
A settlement = one commit_action: a log append + 10 postings (5 transfers between stacks and tops).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pancog.ledger import ChipLedger
from pancog.storage import Account, SqliteStorage, transfer
from pancog.store import TableStore

GUILD = 1


async def settlements(path: Path, synchronous: str, count: int) -> float:
    async with SqliteStorage(path, synchronous=synchronous) as storage:  # type: ignore[arg-type]
        ledger, store = ChipLedger(storage), TableStore(storage)
        table = 1
        await store.open_table(table, guild_id=GUILD, channel_id=table, host_id=1, config="{}")
        players = list(range(1, 7))
        for user in players:
            await ledger.buy_in(table, user, 500, key=f"sit:{user}")
        stacks = [Account.stack(table, u) for u in players]
        tops = Account.tops(table, "singles")
        start = time.perf_counter()
        for seq in range(1, count + 1):
            winner = stacks[((seq + 1) // 2) % 6]
            postings = []
            for loser in stacks:
                if loser != winner:
                    postings += transfer(loser, winner, 1) if seq % 2 else transfer(winner, loser, 1)
            if len(postings) < 10:
                postings += transfer(winner, tops, 1)
            await store.commit_action(table, seq, f"settle hand {seq}", '[{"e": "HandWon"}]', postings)
        elapsed = time.perf_counter() - start
        assert (await ledger.audit()).ok
    return count / elapsed


def seed_tables(path: Path, tables: int, actions: int) -> None:
    """Write `tables` open tables with `actions` logged actions each, directly (setup only, not measured)."""
    conn = sqlite3.connect(path)
    now = time.time()
    config = json.dumps({"preset": "standard", "ante": 1, "decks": 8, "seats": 6})
    with conn:
        conn.executemany(
            "INSERT INTO tables (table_id, guild_id, channel_id, host_id, config, meta, status, created_at, last_seq)"
            " VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?)",
            [(t, GUILD, t, 1, config, '{"hand": 3}', now, 0) for t in range(10_000, 10_000 + tables)],
        )
        conn.executemany(
            "INSERT INTO actions (table_id, seq, action, events, created_at) VALUES (?, ?, ?, ?, ?)",
            [
                (t, s, f"s{s % 6} discard 7s" if s % 3 else f"s{s % 6} lay 5c 6c 7c", '[{"e": "CardDiscarded"}]', now)
                for t in range(10_000, 10_000 + tables)
                for s in range(1, actions + 1)
            ],
        )
    conn.close()


async def resume(path: Path) -> tuple[float, int, int]:
    start = time.perf_counter()
    async with SqliteStorage(path) as storage:
        loaded = await TableStore(storage).load_open_tables()
        elapsed = time.perf_counter() - start
    return elapsed, len(loaded), sum(len(t.actions) for t in loaded)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--settlements", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--actions", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("FULL", "NORMAL"):
            rate = await settlements(Path(tmp) / f"settle-{mode}.sqlite3", mode, args.settlements)
            print(f"settlements/s  synchronous={mode:<6}  {rate:8.0f}  ({args.settlements} hands, 10 postings + log)")
        path = Path(tmp) / "resume.sqlite3"
        async with SqliteStorage(path):
            pass
        seed_tables(path, args.tables, args.actions)
        elapsed, count, total = await resume(path)
        print(f"resume: open + load_open_tables of {count} tables / {total} actions: {elapsed:.3f} s")


if __name__ == "__main__":
    asyncio.run(main())
