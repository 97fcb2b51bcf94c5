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
py-spy meanwhile; ``--bot-python PATH`` runs the bots (and their workers) on another interpreter. Then, over the
same window: the throw-away PostgreSQL server's CPU per action, how busy the machine's cores were (whoever used
them), REST calls per action (and by route), and images per action by route.

Scaling as a bigger machine sees it (``--cpu-quota 0.4``): each bot process, with the render workers it forks, runs
in a cgroup v1 of its own limited to that fraction of a core (bench/cgroup.py; root only; the cgroups are removed at
the end), while the players, the fake Discord and PostgreSQL run outside every quota. Compare 1, 2 and 4 processes at
the same ``--tables`` per process (``--tables-per-process``) and the same pace: every board is drawn in each. The
figures printed per process (actions/s, CPU per action, how often its quota throttled it) say whether a process got
its share.

    B=".venv/bin/python -m bench.cluster --backend postgres --cpu-quota 0.4 --tables-per-process 30 --think 0.5"
    $B --processes 1; $B --processes 2; $B --processes 4       # then again in reverse order
    .venv/bin/python -m bench.cluster --backend postgres --processes 1 --tables 90 --pace 150  # ack p99 at 150/s

``--pace R`` is open-loop: the players send R interactions a second, at random times within each second
(bench/soak.py's ``Pacer``; the rate offered is printed), each table thinking 0.7 x tables / R between its moves so
that a player is ready for every slot (before 3 December 2026 the pace only set the think time, and the rate fell
with the bot's answer time: "--pace 150" offered ~139/s). The load generator's own pauses are printed (its event
loop's lateness, its collector's pauses): it stamps the acks, so its stalls would count as the bot's. In the counted
window it runs no full collection of its heap (``--harness-gc young``; ``default`` for Python's), which once stalled
it for 0.5 s. ``BENCH_ACK_DUMP=FILE`` writes each counted ack's dispatch time (``time.monotonic``), latency and
command, to lay beside the bot's collector pauses (``bench/gc_probe``, read by ``bench/ack_tail.py``).

Discord's global limit (``--global-limit 50``): the fake refuses more than 50 counted requests in any second with
a 429, and the bots take their tokens from the shared bucket in PostgreSQL (``--bucket-rate``, the bots'
``PAN_REST_GLOBAL_RATE``; 0 leaves it off, the default here, so that the scaling runs do the same work at any
process count). The fake's busiest 1-second window and its 429s are printed in every run, counted when each request
reached the machine (the kernel's receive time), with how late the fake, in this busy process, read them, and the
busiest window as counting when read would have had (50-57 where the kernel's times give 44-45; a packet
capture counted by ``bench/pcap_global.py`` gave 44).

PostgreSQL: ``DATABASE_URL`` if set (a schema of its own is created and dropped), else a throw-away server from
Debian's ``postgresql`` package (tests/support/pgserver.py, durable: ``fsync=on``). Results are one JSON line at the end
(``--json``) besides the summary. The machine's load average is printed: on a shared machine, compare runs made
back to back, alternating the variants.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bench import cgroup
from bench.postgres import postgres_url
from bench.proc_cpu import TreeCpu, cpu_figures, cpu_line, machine_busy, shares
from bench.soak import Pacer, Soak, check_books
from pancog.infra.cluster import Launcher, shard_range
from pancog.infra.storage import storage_for
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from tests.fakediscord.harness import Harness
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.fakediscord.server import FakeDiscord, busiest_window, shard_of

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


def harness_gc(mode: str) -> Callable[[], None]:
    """The load generator's cyclic garbage collector in the counted window. ``young`` (the default): no *full*
    collection, young and middle ones as Python's defaults. This process is the fake Discord and every player:
    its heap (every message, call and interaction the fake keeps) grows through a run, and one full collection
    of it stalled this loop for ~0.5 s at 150 actions/s (a run at 19:06 UTC, 3 December 2026), delaying the ack
    stamps of ~75 actions, i.e. the whole measured p99, while the bot was not slower. ``default``: Python's.
    Called before the window opens (the collection it starts with is not counted); returns the undo."""
    old = gc.get_threshold()
    if mode == "young":
        gc.collect()
        gc.freeze()  # the warm-up's survivors leave the young generations: the window's collections walk only its own
        gc.set_threshold(old[0], old[1], 1_000_000_000)

    def restore() -> None:
        gc.set_threshold(*old)
        gc.unfreeze()

    return restore


class LoopLag:
    """How late a 5 ms timer fires in this event loop: the load generator's own delays (its players, its fake
    Discord, its garbage collections), which every ack it stamps also carries."""

    def __init__(self) -> None:
        self.late: list[float] = []
        self.task: asyncio.Task[None] | None = None
        self.gc_started = 0.0
        self.gc_pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.gc_started = time.perf_counter()
        else:
            self.gc_pauses[info["generation"]].append(time.perf_counter() - self.gc_started)

    @classmethod
    def start(cls) -> LoopLag:
        lag = cls()
        lag.task = asyncio.create_task(lag._run())
        return lag

    async def _run(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            self.late.append(max(0.0, time.perf_counter() - before - 0.005))

    def stop(self) -> tuple[float, float, dict[int, tuple[int, float]]]:
        """(p99, max) lateness in ms, and the collector's pauses by generation: (count, longest ms)."""
        if self.task is not None:
            self.task.cancel()
        gc.callbacks.remove(self._gc)
        pauses = {g: (len(p), round(1000 * max(p, default=0.0), 1)) for g, p in self.gc_pauses.items()}
        if not self.late:
            return (0.0, 0.0, pauses)
        return (round(p99(self.late) * 1000, 1), round(max(self.late) * 1000, 1), pauses)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    quotas: list[cgroup.CpuQuota] = []
    if args.cpu_quota > 0:
        why = cgroup.available()
        if why is not None or os.geteuid() != 0:
            raise SystemExit(f"--cpu-quota needs root and cgroup v1: {why or 'not root'}")
        quotas = [cgroup.CpuQuota.create(f"pan-bench-{os.getpid()}-{k}", args.cpu_quota) for k in range(args.processes)]
    try:
        return await _run(args, quotas)
    finally:
        for quota in quotas:
            quota.remove()


async def _run(args: argparse.Namespace, quotas: list[cgroup.CpuQuota]) -> dict[str, Any]:
    logging.basicConfig(level=logging.ERROR)
    shards = max(args.shards, args.processes)
    if args.tables_per_process:
        args.tables = args.tables_per_process * args.processes
    if args.pace > 0:
        # Open-loop: the players send --pace interactions a second, at random times within each second (soak.Pacer).
        # Each table thinks 0.7 x tables / pace, so enough players are ready for every slot while the bot answers in
        # up to ~0.3 x tables / pace (a slower bot shows as a lower rate, printed).
        args.think = round(0.7 * args.tables / args.pace, 3)
    workdir = Path(tempfile.mkdtemp(prefix="pan-cluster-"))
    fake = FakeDiscord(shards=shards, global_limit=args.global_limit or None)
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
        "PAN_REST_GLOBAL_RATE": str(args.bucket_rate),
    }
    if args.render_workers:
        env["PAN_RENDER_THREADS"] = str(args.render_workers)
    env.pop("TEST_GUILD_ID", None)
    if args.backend == "postgres":
        env["DATABASE_URL"] = url
    else:
        env.pop("DATABASE_URL", None)
        env["PAN_DB_PATH"] = url
    log = workdir / "bots.log"

    def spawn(argv: list[str], process_env: Mapping[str, str]) -> subprocess.Popen[bytes]:
        with log.open("ab") as sink:
            process = subprocess.Popen(argv, env=dict(process_env), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=sink)  # noqa: S603
        if quotas:  # at once: the render forkserver, started later, is born in the quota too
            quotas[int(process_env["PAN_CLUSTER_INDEX"])].add(process.pid)
        return process

    launcher = Launcher(shards, args.processes, python=args.bot_python or sys.executable, env=env, spawn=spawn)
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
    if args.pace > 0:
        soak.pacer = Pacer(args.pace, random.Random(args.seed + 7))
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
    restore_gc = harness_gc(args.harness_gc)
    bot_pids = [spec.process.pid for spec in launcher.specs if spec.process is not None]
    # the bots, and this process too (its players and fake Discord: the harness CPU printed below)
    profilers = start_profilers([*bot_pids, os.getpid()], args.seconds, Path(args.profile)) if args.profile else []
    cpu = TreeCpu.start(bot_pids)
    per_cpu = [TreeCpu.start([pid]) for pid in bot_pids]
    quota0 = [(q.usage(), q.throttled()) for q in quotas]
    server_cpu = TreeCpu.start(server_pids)
    machine0 = machine_busy()
    harness0 = time.process_time()
    status0 = fake.status()["global"]
    by_channel0 = dict(soak.by_channel)
    slots0 = soak.pacer.issued if soak.pacer is not None else 0
    actions0, lat0, calls0, t0 = soak.actions, len(soak.latency), len(fake.calls), time.perf_counter()
    lag = LoopLag.start()
    await asyncio.sleep(args.seconds)
    harness_lag = lag.stop()
    restore_gc()
    actions1, lat1, calls1, t1 = soak.actions, len(soak.latency), len(fake.calls), time.perf_counter()
    slots1 = soak.pacer.issued if soak.pacer is not None else 0
    per_figures = [c.stop() for c in per_cpu]
    quota1 = [(q.usage(), q.throttled()) for q in quotas]
    by_channel1 = dict(soak.by_channel)
    # what the bot sent Discord meanwhile: every REST call, and those carrying an image (boards, hands, DMs)
    calls = fake.calls[calls0:calls1]
    images = sum(len(c.files or ()) for c in calls)
    image_routes: dict[str, int] = {}
    for c in calls:
        if c.files:
            image_routes[c.route] = image_routes.get(c.route, 0) + len(c.files)
    # how the render processes (each bot's forkserver and workers) shared their CPU: with the first worker preferred
    # one does nearly all of it at a steady pace (docs/performance.md, "Boards drawn by the warm worker")
    render_split = [t for pid, t in cpu.by_process().items() if pid not in bot_pids]
    bot_cpu, main_cpu = cpu.stop()
    # each process's own figures: the actions of the tables on its shards, its tree's CPU, its quota's throttling
    process_of_channel = {
        channel.id: next(
            k
            for k in range(args.processes)
            if shard_of(channel.guild_id or 0, shards) in shard_range(k, args.processes, shards)
        )
        for channel, _ in seats
    }
    per_process = []
    for k, (total_k, main_k) in enumerate(per_figures):
        done = sum(n - by_channel0.get(c, 0) for c, n in by_channel1.items() if process_of_channel.get(c) == k)
        row: dict[str, Any] = {
            "process": k,
            "actions_per_s": round(done / (t1 - t0), 1),
            "bot_cpu_ms_per_action": round(1000 * total_k / max(1, done), 2),
            "main_cpu_ms_per_action": round(1000 * main_k / max(1, done), 2),
            "cpu_cores_used": round(total_k / (t1 - t0), 3),
        }
        if quotas:
            (use0, thr0), (use1, thr1) = quota0[k], quota1[k]
            row["quota_cores"] = quotas[k].cores
            row["quota_cores_used"] = round((use1 - use0) / (t1 - t0), 3)
            row["quota_throttled_share"] = round((thr1[1] - thr0[1]) / max(1, thr1[0] - thr0[0]), 3)
        per_process.append(row)
    harness_cpu = time.process_time() - harness0
    db_cpu, _ = server_cpu.stop()
    machine1 = machine_busy()
    cores = os.cpu_count() or 1
    while any(profiler.poll() is None for profiler in profilers):  # py-spy writes its file when it ends
        await asyncio.sleep(0.2)
    load_during = os.getloadavg()
    status1 = fake.status()["global"]
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
    if os.environ.get("BENCH_ACK_DUMP"):  # each counted ack's dispatch (time.monotonic), latency and command
        acks = list(zip(soak.acked_at[lat0:lat1], window, soak.kinds[lat0:lat1], strict=True))
        Path(os.environ["BENCH_ACK_DUMP"]).write_text(json.dumps(acks))
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
        "paced_slots_per_s": round((slots1 - slots0) / (t1 - t0), 1) if soak.pacer is not None else None,
        "ack_p50_ms": round(statistics.median(window) * 1000, 1) if window else None,
        "ack_p99_ms": round(p99(window) * 1000, 1),
        "postgres_cpu_ms_per_action": round(1000 * db_cpu / max(1, actions1 - actions0), 2) if server_pids else None,
        # share of every core busy in the window, whoever used it (1.0: the machine had nothing left to give)
        "machine_busy": round((machine1[0] - machine0[0]) / max(1e-9, machine1[1] - machine0[1]), 3),
        "cores": cores,
        "rest_calls_per_action": round(len(calls) / max(1, actions1 - actions0), 2),
        "images_per_s": round(images / (t1 - t0), 1),
        "images_per_action": round(images / max(1, actions1 - actions0), 2),
        "rest_calls_per_action_by_route": {
            route: round(n / max(1, actions1 - actions0), 2)
            for route, n in collections.Counter(c.route for c in calls).most_common()
        },
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
        "per_process": per_process,
        "cpu_quota_cores": args.cpu_quota or None,
        "bucket_rate": args.bucket_rate,
        # the fake's view of Discord's global limit, over the whole run (warm-up and settling included)
        "global_limit": args.global_limit or None,
        "global_busiest_window": status1["max_per_window"],
        "global_429s": status1["responses_429"],
        "global_requests_per_s": round((status1["requests"] - status0["requests"]) / (t1 - t0), 1),
        # how late the fake (this process's loop) read a counted request after the kernel received it: the fake
        # counts the kernel's time, so this lateness no longer bunches requests in its count
        "global_read_lag_max_ms": round(1000 * max((c.read_lag for c in fake.calls if c.global_limit), default=0), 1),
        # the same requests counted at the times the fake read them (as it counted before it took the kernel's)
        "global_busiest_window_by_read": busiest_window(
            [c.at + c.read_lag for c in fake.calls if c.global_limit and c.status != 429]
        ),
        **cpu_figures(bot_cpu, main_cpu, actions1 - actions0, harness_cpu),
        "render_process_shares_pct": shares(render_split),
        # the load generator's own event-loop delays in the window: an ack is stamped by this process's fake
        # Discord, so a late stamp here is a slower ack in the figures without the bot being slower
        "harness_loop_lag_p99_ms": harness_lag[0],
        "harness_loop_lag_max_ms": harness_lag[1],
        "harness_gc": args.harness_gc,
        "harness_gc_pauses": harness_lag[2],
        "load_average_before": [round(x, 1) for x in load_before],
        "load_average_during": [round(x, 1) for x in load_during],
    }
    print(
        f"{args.processes} process(es) x {shards} shards, {args.backend}, render {args.render_mode}, "
        f"{args.tables} tables x {args.players}, think {args.think} s"
        + (f", paced {result['paced_slots_per_s']} interactions/s" if soak.pacer is not None else "")
        + f": {result['actions_per_s']} actions/s "
        f"over {result['seconds']} s (counting from {result['warmed_after_s']} s, {soak.dealt} tables dealt), "
        f"ack p50 {result['ack_p50_ms']} ms p99 {result['ack_p99_ms']} ms; failed {result['failed_interactions']}, "
        f"stuck {result['stuck_tables']}, audit {'OK' if result['audit_ok'] else 'FAILED'}, "
        f"bot errors {len(errors)}; load average {load_before[0]:.1f} -> {load_during[0]:.1f}",
        flush=True,
    )
    print(cpu_line(result), flush=True)
    print(f"render processes' shares of their CPU, largest first: {result['render_process_shares_pct']} %", flush=True)
    print(
        f"the load generator's event loop was late by p99 {result['harness_loop_lag_p99_ms']} ms, at most "
        f"{result['harness_loop_lag_max_ms']} ms (a 5 ms timer, the window); its garbage collector "
        f"{args.harness_gc}: pauses by generation (count, longest ms) {result['harness_gc_pauses']}",
        flush=True,
    )
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
    print(
        "REST calls per action by route: "
        + ", ".join(f"{route} {n}" for route, n in result["rest_calls_per_action_by_route"].items()),
        flush=True,
    )
    for row in per_process:
        quota = (
            f"; quota {row['quota_cores']} core, used {row['quota_cores_used']}, throttled in "
            f"{100 * row['quota_throttled_share']:.0f} % of periods"
            if quotas
            else ""
        )
        print(
            f"  process {row['process']}: {row['actions_per_s']} actions/s, bot CPU per action "
            f"{row['bot_cpu_ms_per_action']} ms (main {row['main_cpu_ms_per_action']}), {row['cpu_cores_used']} cores"
            + quota,
            flush=True,
        )
    print(
        f"global limit {args.global_limit or 'off'} (bucket {args.bucket_rate or 'off'}): counted requests "
        f"{result['global_requests_per_s']}/s in the window, the fake's busiest 1 s window "
        f"{result['global_busiest_window']}, 429s {result['global_429s']} (the fake read them up to "
        f"{result['global_read_lag_max_ms']} ms after they arrived; counted when read, the busiest window would be "
        f"{result['global_busiest_window_by_read']})",
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
    parser.add_argument("--tables-per-process", type=int, default=0, help="tables = this x --processes")
    parser.add_argument(
        "--cpu-quota", type=float, default=0.0, help="cores each bot process (with its render workers) may use (root)"
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        help="interactions/s the players send, open-loop (sets --think = 0.7 x tables / pace)",
    )
    parser.add_argument(
        "--harness-gc",
        choices=("young", "default"),
        default="young",
        help="the load generator's garbage collector in the counted window (young: no full collection)",
    )
    parser.add_argument("--render-workers", type=int, default=0, help="PAN_RENDER_THREADS of each bot (0: its default)")
    parser.add_argument("--global-limit", type=int, default=0, help="the fake's global limit per second (0: none)")
    parser.add_argument("--bucket-rate", type=float, default=0.0, help="the bots' PAN_REST_GLOBAL_RATE (0: off)")
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
        "--bot-python",
        default="",
        help="the interpreter of the bot processes (a venv's python with requirements.txt installed); default: this "
        "one. The players and the fake stay on this one, so two runs compare the bots' interpreters alone",
    )
    parser.add_argument(
        "--profile", default="", help="a folder: py-spy profiles of each bot process and its workers (counted window)"
    )
    parser.add_argument(
        "--compare",
        default="",
        help="process counts to run one after another, e.g. 1,2,4 (same tables per process and quota); with "
        "--rounds 2 the order is then reversed; prints each run and the throughput ratios to the first count",
    )
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    if not args.compare:
        asyncio.run(run(args))
        return
    counts = [int(n) for n in args.compare.split(",")]
    order = [n for r in range(args.rounds) for n in (counts if r % 2 == 0 else counts[::-1])]
    results: list[dict[str, Any]] = []
    for n in order:
        one = argparse.Namespace(**vars(args))
        one.processes = n
        print(f"== {n} process(es), {time.strftime('%H:%M:%S', time.gmtime())} UTC, load {os.getloadavg()[0]:.1f}")
        results.append(asyncio.run(run(one)))
    print(scaling_summary(results))


def scaling_summary(results: list[dict[str, Any]]) -> str:
    """Throughput per process count (mean of its runs) and its ratio to the first count run."""
    by_count: dict[int, list[dict[str, Any]]] = {}
    for r in results:
        by_count.setdefault(int(r["processes"]), []).append(r)
    base = statistics.mean(r["actions_per_s"] for r in by_count[int(results[0]["processes"])])
    lines = ["processes | actions/s (runs) | x first | bot CPU ms/action | ack p50/p99 ms | images/action | audit"]
    for n, runs in by_count.items():
        rate = statistics.mean(r["actions_per_s"] for r in runs)
        cpu = statistics.mean(r["bot_cpu_ms_per_action"] or 0.0 for r in runs)
        lines.append(
            f"{n} | {rate:.1f} ({', '.join(str(r['actions_per_s']) for r in runs)}) | {rate / base:.2f} | {cpu:.2f} | "
            + ", ".join(f"{r['ack_p50_ms']}/{r['ack_p99_ms']}" for r in runs)
            + f" | {statistics.mean(r['images_per_action'] for r in runs):.2f}"
            + f" | {'OK' if all(r['audit_ok'] for r in runs) else 'FAILED'}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main(sys.argv[1:])
