"""Throughput of the bot as a cluster: M ``bot.py`` processes over S shards against the fake Discord, tables flat out.

The players, the fake Discord (sharded: each process gets only its shards' guilds) and this script share one
process; the bots run under the cluster launcher (``pancog.infra.cluster.Launcher``), every board drawn. Tables are
spread over one guild per shard, so every process has the same share. Each table has P greedy players acting by slash
commands as fast as the bot answers (bench/soak.py's players). After ``--warmup`` seconds, and once every table is
open and dealt, the script counts actions and acknowledgement latencies for ``--seconds`` seconds, then stops the
players, lets the bots settle and checks the books (the ledger audit, and every followed table's engine stacks
against the ledger): nothing may be lost.

    .venv/bin/python -m bench.cluster --processes 1 --render-mode thread               # one process, SQLite
    .venv/bin/python -m bench.cluster --processes 1 --render-mode process
    .venv/bin/python -m bench.cluster --processes 1 --backend postgres                 # the same on PostgreSQL
    .venv/bin/python -m bench.cluster --processes 2 --backend postgres                 # two processes, 4 shards
    .venv/bin/python -m bench.cluster --tables 60 --think 3                            # paced: CPU per action A/B

Also printed: the bot's own CPU time per action over the counted window (the bot processes and their render
workers, read from /proc: bench/proc_cpu.py) and the actions per second one core would carry at that cost, robust
to a machine shared with the players, the fake Discord and other jobs. It depends on the pace: flat out, boards
coalesce (fewer renders per action) as the backlog grows, so compare runs of the same shape; ``--think`` paces the
players so both runs of an A/B do the same work. ``--profile DIR`` samples the bots (and this process) with
py-spy meanwhile. Then, over the same window: the throw-away PostgreSQL server's CPU per action, how busy the
machine's cores were (whoever used them), REST calls per action, and images per action by route.

PostgreSQL: ``DATABASE_URL`` if set (a schema of its own is created and dropped), else a throw-away server from
Debian's ``postgresql`` package (tests/support/pgserver.py, durable: ``fsync=on``). Results are one JSON line at the end
(``--json``) besides the summary. The machine's load average is printed: on a shared machine, compare runs made
back to back, alternating the variants.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.postgres import postgres_url
from bench.proc_cpu import TreeCpu, cpu_figures, cpu_line, machine_busy
from bench.soak import Soak, check_books
from pancog.infra.cluster import Launcher
from pancog.infra.storage import storage_for
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from tests.fakediscord.harness import Harness
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.fakediscord.server import FakeDiscord

ROOT = Path(__file__).resolve().parent.parent


def p99(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def start_profilers(pids: list[int], seconds: float, folder: Path) -> list[subprocess.Popen[bytes]]:
    """py-spy (requirements-dev.txt) sampling each process (a bot with its render workers, or this harness), as
    collapsed stacks (``<folder>/bot-<pid>.txt``; summarise with ``bench/profile_top.py``). Non-blocking: the
    process is not paused."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = Path(sys.executable).with_name("py-spy")
    out = []
    for pid in pids:
        argv = [str(exe), "record", "--pid", str(pid), "--subprocesses", "--nonblocking", "--format", "raw"]
        argv += ["--duration", str(int(seconds)), "--output", str(folder / f"bot-{pid}.txt")]
        out.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))  # noqa: S603
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    logging.basicConfig(level=logging.ERROR)
    shards = max(args.shards, args.processes)
    workdir = Path(tempfile.mkdtemp(prefix="pan-cluster-"))
    fake = FakeDiscord(shards=shards)
    h = Harness(fake, members=0, channels=("lobby",), timeout=60.0)
    users = [fake.add_user(f"p{i}") for i in range(args.tables * args.players)]
    seats: list[tuple[FakeChannel, list[FakeUser]]] = []
    per_shard = [list(range(k, args.tables, shards)) for k in range(shards)]
    for shard, indexes in enumerate(per_shard):
        members = [u for i in indexes for u in users[i * args.players : (i + 1) * args.players]]
        guild = fake.add_guild(
            f"shard {shard}", channels=tuple(f"pan-{i}" for i in indexes), members=members, shard=shard
        )
        seats += [(guild.channels[n], users[i * args.players : (i + 1) * args.players]) for n, i in enumerate(indexes)]
    await fake.start()
    cleanup = None
    server_pids: list[int] = []
    if args.backend == "postgres":
        url, cleanup, server_pids = await postgres_url()
    else:
        if args.processes > 1:
            raise SystemExit("several processes need --backend postgres")
        url = str(workdir / "pan.sqlite3")
    env = {
        **os.environ,
        "DISCORD_TOKEN": fake.token,
        "DISCORD_API_BASE": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "PAN_GUILD_READY_TIMEOUT": "0.05",
        "PAN_LOG_LEVEL": "WARNING",
        "PAN_RENDER_MODE": args.render_mode,
        "PAN_CLOCK_SCALE": "10",
        "PAN_IDLE_CLOSE_SECONDS": "100000000",
        "PAN_DEAL_SEED": str(args.seed),
    }
    env.pop("TEST_GUILD_ID", None)
    if args.backend == "postgres":
        env["DATABASE_URL"] = url
    else:
        env.pop("DATABASE_URL", None)
        env["PAN_DB_PATH"] = url
    log = workdir / "bots.log"

    def spawn(argv: list[str], process_env: Mapping[str, str]) -> subprocess.Popen[bytes]:
        with log.open("ab") as sink:
            return subprocess.Popen(argv, env=dict(process_env), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=sink)  # noqa: S603

    launcher = Launcher(shards, args.processes, env=env, spawn=spawn)
    launcher.start()
    deadline = time.monotonic() + 120
    while fake.sessions_by_shard() != dict.fromkeys(range(shards), 1):
        launcher.poll()
        if time.monotonic() > deadline:
            raise SystemExit(f"the bots did not connect: {fake.sessions_by_shard()}; see {log}")
        await asyncio.sleep(0.1)
    storage = storage_for(url)
    await storage.open()
    store = TableStore(storage)
    soak = Soak(h, store, hands=10_000, stuck_after=120.0, think=args.think, rng=random.Random(args.seed))
    soak.running.set()
    load_before = os.getloadavg()
    started = time.monotonic()
    tasks = [
        asyncio.create_task(soak.play_table(channel, players, None, i * args.stagger))
        for i, (channel, players) in enumerate(seats)
    ]
    await asyncio.sleep(args.warmup)
    # The warm-up is a floor: counting starts only once every table is open and dealt (on a slow backend or a
    # loaded machine, 200 tables can still be opening after --warmup s, and opening is not what is measured).
    ready_by = time.monotonic() + 600
    while soak.dealt < len(seats) and time.monotonic() < ready_by and not soak.stuck:
        await asyncio.sleep(0.5)
    warmed_after = time.monotonic() - started
    bot_pids = [spec.process.pid for spec in launcher.specs if spec.process is not None]
    # the bots, and this process too (its players and fake Discord: the harness CPU printed below)
    profilers = start_profilers([*bot_pids, os.getpid()], args.seconds, Path(args.profile)) if args.profile else []
    cpu = TreeCpu.start(bot_pids)
    server_cpu = TreeCpu.start(server_pids)
    machine0 = machine_busy()
    harness0 = time.process_time()
    actions0, lat0, calls0, t0 = soak.actions, len(soak.latency), len(fake.calls), time.perf_counter()
    await asyncio.sleep(args.seconds)
    actions1, lat1, calls1, t1 = soak.actions, len(soak.latency), len(fake.calls), time.perf_counter()
    # what the bot sent Discord meanwhile: every REST call, and those carrying an image (boards, hands, DMs)
    calls = fake.calls[calls0:calls1]
    images = sum(len(c.files or ()) for c in calls)
    image_routes: dict[str, int] = {}
    for c in calls:
        if c.files:
            image_routes[c.route] = image_routes.get(c.route, 0) + len(c.files)
    bot_cpu, main_cpu = cpu.stop()
    harness_cpu = time.process_time() - harness0
    db_cpu, _ = server_cpu.stop()
    machine1 = machine_busy()
    cores = os.cpu_count() or 1
    while any(profiler.poll() is None for profiler in profilers):  # py-spy writes its file when it ends
        await asyncio.sleep(0.2)
    load_during = os.getloadavg()
    soak.running.clear()  # players park before their next move
    for _ in range(600):
        if soak.parked >= sum(1 for t in tasks if not t.done()):
            break
        await asyncio.sleep(0.1)
    await h.idle(timeout=300)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    audit = await ChipLedger(storage).audit()
    books = await check_books(store, soak.followers)
    window = soak.latency[lat0:lat1]
    launcher.stop(grace=10)
    await storage.close()
    await fake.stop()
    if cleanup is not None:
        await cleanup()
    bot_log = log.read_text(errors="replace")
    errors = [line for line in bot_log.splitlines() if " ERROR " in line or "Traceback" in line]
    result = {
        "processes": args.processes,
        "shards": shards,
        "backend": args.backend,
        "render_mode": args.render_mode,
        "tables": args.tables,
        "players": args.players,
        "think_s": args.think,
        "seconds": round(t1 - t0, 1),
        "warmed_after_s": round(warmed_after, 1),
        "tables_dealt": soak.dealt,
        "actions_per_s": round((actions1 - actions0) / (t1 - t0), 1),
        "ack_p50_ms": round(statistics.median(window) * 1000, 1) if window else None,
        "ack_p99_ms": round(p99(window) * 1000, 1),
        "postgres_cpu_ms_per_action": round(1000 * db_cpu / max(1, actions1 - actions0), 2) if server_pids else None,
        # share of every core busy in the window, whoever used it (1.0: the machine had nothing left to give)
        "machine_busy": round((machine1[0] - machine0[0]) / max(1e-9, machine1[1] - machine0[1]), 3),
        "cores": cores,
        "rest_calls_per_action": round(len(calls) / max(1, actions1 - actions0), 2),
        "images_per_s": round(images / (t1 - t0), 1),
        "images_per_action": round(images / max(1, actions1 - actions0), 2),
        "images_per_action_by_route": {
            route: round(n / max(1, actions1 - actions0), 2)
            for route, n in sorted(image_routes.items(), key=lambda kv: -kv[1])
        },
        "hands_done": soak.hands_done,
        "failed_interactions": len(soak.failed),
        "stuck_tables": len(soak.stuck),
        "audit_ok": audit.ok and not books,
        "bot_errors": len(errors),
        "restarts": sum(s.restarts for s in launcher.specs),
        **cpu_figures(bot_cpu, main_cpu, actions1 - actions0, harness_cpu),
        "load_average_before": [round(x, 1) for x in load_before],
        "load_average_during": [round(x, 1) for x in load_during],
    }
    print(
        f"{args.processes} process(es) x {shards} shards, {args.backend}, render {args.render_mode}, "
        f"{args.tables} tables x {args.players}, think {args.think} s: {result['actions_per_s']} actions/s "
        f"over {result['seconds']} s (counting from {result['warmed_after_s']} s, {soak.dealt} tables dealt), "
        f"ack p50 {result['ack_p50_ms']} ms p99 {result['ack_p99_ms']} ms; failed {result['failed_interactions']}, "
        f"stuck {result['stuck_tables']}, audit {'OK' if result['audit_ok'] else 'FAILED'}, "
        f"bot errors {len(errors)}; load average {load_before[0]:.1f} -> {load_during[0]:.1f}",
        flush=True,
    )
    print(cpu_line(result), flush=True)
    print(
        f"PostgreSQL server CPU per action {result['postgres_cpu_ms_per_action']} ms; the machine's {cores} cores were "
        f"{100 * result['machine_busy']:.0f} % busy in the window",
        flush=True,
    )
    print(
        f"sent to Discord: {result['rest_calls_per_action']} REST calls per action; images {result['images_per_s']}/s "
        f"= {result['images_per_action']} per action (fewer per action as boards coalesce under load): "
        + ", ".join(f"{route} {n}" for route, n in result["images_per_action_by_route"].items()),
        flush=True,
    )
    if not result["audit_ok"]:
        print(audit.summary(), books[:5])
    for failure in (soak.failed + soak.stuck)[:5]:
        print("  failed:", failure)
    if errors:
        print("\n".join(errors[:10]))
    if args.json:
        print(json.dumps(result))
    return result


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--shards", type=int, default=4, help="total shards (at least --processes)")
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--render-mode", choices=("thread", "process"), default="process")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--warmup", type=float, default=40.0, help="seconds before counting (tables open, dealt)")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds counted")
    parser.add_argument("--stagger", type=float, default=0.1, help="seconds between two tables opening")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds a player thinks before acting (0: flat out); a paced "
        "load does the same work whatever CPU the machine gives, so CPU per action compares across runs",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--profile", default="", help="a folder: py-spy profiles of each bot process and its workers (counted window)"
    )
    asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    main(sys.argv[1:])
