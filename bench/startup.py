"""Start-up benchmark: TableService.load() of many open tables with hands played, with and without snapshots.

Run: .venv/bin/python -m bench.startup [--tables 200] [--players 6] [--hands 2] [--tail 120] [--repeat 3]

Setup (not measured): on a temporary SQLite file, opens ``--tables`` tables with ``--players`` seated players
each and plays ``--hands`` complete hands per table through the real TableService (every action committed with
its postings; the "easy" computer player moves for every seat), then up to ``--tail`` actions of one more hand
(a random cut, as if the bot stopped mid-hand). The service writes a snapshot at every hand end.

Measured, each run in a fresh Python process (cold, as at a real start): open the storage, then
``TableService.load()``, once on the file as written (snapshot + tail) and once on a copy with every snapshot
deleted (the whole log replayed, as before snapshots). Both loads must give identical table states.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pancog.ai import choices, make_player
from pancog.game.actions import Rebuy
from pancog.game.codec import dump_state, load_state
from pancog.game.engine import observe, to_act
from pancog.game.events import HandEnded
from pancog.infra.storage import SqliteStorage
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import TableConfig, TableService, seeded_deals

GUILD = 1
FIRST_TABLE = 10_000


async def build(path: Path, *, tables: int, players: int, hands: int, tail: int, seed: int) -> dict[str, float]:
    """Open the tables and play the hands (setup); returns facts about what was written."""
    rng = random.Random(seed)
    player = make_player("easy")
    async with SqliteStorage(path, synchronous="OFF") as storage:
        service = TableService(ChipLedger(storage), TableStore(storage), dealer=seeded_deals(seed))
        start = time.perf_counter()
        actions = 0
        for t in range(tables):
            table = FIRST_TABLE + t
            users = [1 + t * players + k for k in range(players)]
            await service.open_table(table, guild_id=GUILD, channel_id=table, host_id=users[0], config=TableConfig())
            for user in users:
                await service.join(table, user)
            cut = rng.randrange(tail + 1)  # actions of one more hand (0: stop between hands)
            finished = extra = 0
            while True:
                state = service.get(table).state
                if state.hand is None:
                    if finished > hands or (finished == hands and cut == 0):
                        break
                    for i, seat in enumerate(state.seats):
                        if seat is not None and seat.stack < 10:
                            await service.system_act(table, Rebuy(seat=i, amount=40))
                    await service.start_hand(table, users[0])
                    actions += 1
                    continue
                if finished >= hands and extra >= cut:
                    break
                seat = to_act(state)
                assert seat is not None
                obs = observe(state, seat)
                applied = await service.system_act(table, player.choose(obs, choices(obs), rng))
                actions += 1
                if any(isinstance(e, HandEnded) for e in applied.events):
                    finished += 1
                elif finished >= hands:
                    extra += 1
        elapsed = time.perf_counter() - start
        assert (await service.ledger.audit()).ok
        states = [s.state for s in service.sessions]
    dumps, loads = [], []
    for state in states:
        t0 = time.perf_counter()
        text = dump_state(state)
        t1 = time.perf_counter()
        load_state(text)
        dumps.append(t1 - t0)
        loads.append(time.perf_counter() - t1)
    with sqlite3.connect(path) as conn:
        sql = "SELECT COUNT(*), COALESCE(SUM(LENGTH(state)), 0) FROM snapshots"
        snapshots, snap_bytes = conn.execute(sql).fetchone()
    return {
        "setup_s": elapsed,
        "actions": actions,
        "mid_hand": sum(1 for s in states if s.hand is not None),
        "snapshots": snapshots,
        "snapshot_kb": snap_bytes / max(snapshots, 1) / 1024,
        "dump_ms": statistics.mean(dumps) * 1000,
        "load_ms": statistics.mean(loads) * 1000,
    }


async def measure(path: Path) -> dict[str, object]:
    """One cold start: open the storage and load every table (run in its own process)."""
    t0 = time.perf_counter()
    async with SqliteStorage(path) as storage:
        store = TableStore(storage)
        service = TableService(ChipLedger(storage), store)
        t1 = time.perf_counter()
        loaded = await service.load()  # reads the open tables, decodes the snapshots, replays the tails
        t2 = time.perf_counter()
        stored = await store.load_open_tables()  # the figures below are not timed
        t3 = time.perf_counter()
        await store.load_open_tables()
        read = time.perf_counter() - t3
        digest = hashlib.sha256()
        for session in sorted(service.sessions, key=lambda s: s.table_id):
            digest.update(dump_state(session.state).encode())
    return {
        "tables": loaded,
        "open_s": t1 - t0,
        "load_s": t2 - t1,
        "read_s": read,  # TableStore.load_open_tables() alone (warm)
        "total_s": t2 - t0,
        "replayed": sum(len(t.actions) for t in stored),
        "with_snapshot": sum(1 for t in stored if t.snapshot is not None),
        "digest": digest.hexdigest(),
    }


def cold(path: Path) -> dict[str, object]:
    out = subprocess.run(  # noqa: S603 - our own script
        [sys.executable, "-m", "bench.startup", "--measure", str(path)],
        cwd=Path(__file__).resolve().parents[1],  # the repository root: bench is a package there
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, object] = json.loads(out)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--tail", type=int, default=120, help="at most this many actions of one more hand")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        print(json.dumps(asyncio.run(measure(args.measure))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        with_snap = Path(tmp) / "with.sqlite3"
        facts = asyncio.run(
            build(with_snap, tables=args.tables, players=args.players, hands=args.hands, tail=args.tail, seed=args.seed)
        )
        without = Path(tmp) / "without.sqlite3"
        shutil.copy(with_snap, without)
        with sqlite3.connect(without) as conn:
            conn.execute("DELETE FROM snapshots")
        print(
            f"setup: {args.tables} tables x {args.players} players, {args.hands} hands + a cut of the next: "
            f"{facts['actions']:.0f} actions in {facts['setup_s']:.1f} s; {facts['mid_hand']:.0f} tables mid-hand"
        )
        print(
            f"snapshots: {facts['snapshots']:.0f} stored (one per table), {facts['snapshot_kb']:.1f} KiB each; "
            f"dump_state {facts['dump_ms']:.2f} ms, load_state {facts['load_ms']:.2f} ms"
        )
        runs: dict[str, list[dict[str, object]]] = {"snapshots": [], "full replay": []}
        for _ in range(args.repeat):
            runs["snapshots"].append(cold(with_snap))
            runs["full replay"].append(cold(without))
        digests = {str(r["digest"]) for rs in runs.values() for r in rs}
        for name, rs in runs.items():
            totals = sorted(float(str(r["total_s"])) for r in rs)
            reads = sorted(float(str(r["read_s"])) for r in rs)
            print(
                f"start-up, {name:<11}: open + TableService.load() {statistics.median(totals):.3f} s median "
                f"({totals[0]:.3f}-{totals[-1]:.3f}), of which reading the rows {statistics.median(reads):.3f} s; "
                f"{rs[0]['tables']} tables, {rs[0]['with_snapshot']} from a snapshot, "
                f"{rs[0]['replayed']} actions replayed"
            )
        print(f"identical table states with and without snapshots: {'yes' if len(digests) == 1 else 'NO'}")
        if len(digests) != 1:
            sys.exit(1)


if __name__ == "__main__":
    main()
