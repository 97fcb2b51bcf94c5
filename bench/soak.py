"""Soak: many tables of greedy players on the fake Discord, with injected faults and a SIGKILL restart in the middle.

The real bot (``python bot.py``, its own process and core) plays against the local fake Discord, which runs in
this process together with the players. Each table has P greedy players acting by slash commands as fast as
the bot answers (a play no command expresses goes through **My hand** and its select); on a fraction of the
tables one player never acts, so the turn clock (sped up) times him out, marks him away and stands him up.
The players follow each table by reading its committed action log from the database and replaying it through
the engine (they never look inside the bot). While they play, random 429s and some 500s are injected on
message posts, board edits and interaction followups, and the gateway is dropped every few seconds. When half
the hands are done the players pause, the bot is killed with SIGKILL and started again.

Reported: hands per minute and actions per second; ack latency; failed interactions (an error reply, no answer,
a timeout) and ERROR lines in the bot's log; stuck tables (a hand with no progress for ``--stuck-after`` s);
the ledger audit and every table's engine stacks against the ledger; start-up time of the restarted bot with
every table to resume (spawn -> gateway IDENTIFY, i.e. after replaying every log and syncing commands);
memory (see "Memory" in docs/perf/soak.md): the bot's RSS (a) after start-up with no table, (b) after start-up
with one idle table (its board rendered: fonts and sprites loaded, the fixed warm-up cost), (c) after the run with
every table idle and (d) after a cold start with every table idle (boards re-rendered), each read once the bot has
been quiet for 2.5 s and again after the bot's periodic malloc_trim (``--trim-seconds``); per idle table =
((c) or (d) - (b)) / (tables - 1); and the Python share per table by tracemalloc (services alone, and a whole
in-process bot). ``--malloc-defaults`` runs the bot with glibc's allocator defaults (no arena cap, no trim)
for comparison; ``--probe`` runs bench/memprobe.py (bot.py plus a memory report on SIGUSR1) and prints reports.

    .venv/bin/python -m bench.soak                                 # 200 tables x 6 players x 2 hands
    .venv/bin/python -m bench.soak --tables 20 --hands 1           # a quick run
    .venv/bin/python -m bench.soak --backend postgres              # on PostgreSQL (DATABASE_URL or a throw-away server)

Also reported: the bot's own CPU time per action (the bot process and its render workers, from /proc,
bench/proc_cpu.py), robust to a shared machine. On PostgreSQL the memory baselines (which need a database of
their own) and the tracemalloc figures are skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import json
import logging
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.postgres import postgres_url
from bench.proc_cpu import TreeCpu, cpu_figures, cpu_line
from pancog.adapter.runtime import runtime_of
from pancog.game import engine
from pancog.game.actions import AddToMeld, Borrow, Discard, GoOnTop, Knock, NewMeld, Pluck, TakeOption
from pancog.game.notation import format_action, parse_action
from pancog.game.state import TableState, initial_state
from pancog.infra.storage import Account, PostgresStorage, SqliteStorage, storage_for
from pancog.services.clock import TurnClock
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import TableConfig, TableService
from tests.fakediscord.harness import Harness, InteractionFailed
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.fakediscord.server import FakeDiscord

ROOT = Path(__file__).resolve().parent.parent

FAULT_ROUTES = ("PATCH /channels/*/messages/*", "POST /channels/*/messages", "POST /webhooks/*")


def greedy_command(state: TableState, seat: int) -> tuple[str, dict[str, Any]] | None:
    """The best legal play a slash command can express (meld plays first, best first)."""
    hand = state.hand
    for action in engine.legal_actions(state, seat):
        match action:
            case Knock():
                return "knock", {}
            case NewMeld() if action.cards:
                return "meld", {"cards": " ".join(str(c) for c in action.cards)}
            case AddToMeld() if action.split is None:
                options: dict[str, Any] = {"meld": action.meld}
                if action.cards:
                    options["cards"] = " ".join(str(c) for c in action.cards)
                return "add", options
            case Borrow() if len(action.taken) == 1:
                meld, card = action.taken[0]
                options = {"meld": meld, "card": str(card)}
                if action.cards:
                    options["cards"] = " ".join(str(c) for c in action.cards)
                return "borrow", options
            case TakeOption():
                return "take", {}
            case Pluck():
                return "draw", {}
            case Discard():
                card = action.card or (hand.turn.drawn if hand is not None and hand.turn is not None else None)
                return ("discard", {"card": str(card)}) if card is not None else None
            case GoOnTop():
                return "sluff", {}
            case _:
                continue
    return None


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Bot:
    """``python bot.py`` against the fake, on a database file; SIGKILL and start again."""

    def __init__(
        self,
        fake: FakeDiscord,
        h: Harness,
        db: Path,
        log: Path,
        env: dict[str, str],
        command: tuple[str, ...] = ("bot.py",),
    ) -> None:
        self.fake = fake
        self.command = command  # ("-m", "bench.memprobe"): bot.py with a memory probe (a diagnostic)
        self.env = {
            **os.environ,
            "DISCORD_TOKEN": fake.token,
            "DISCORD_API_BASE": fake.api_base,
            "DISCORD_GATEWAY_URL": fake.gateway_url,
            "TEST_GUILD_ID": str(h.guild.id),
            "PAN_DB_PATH": str(db),
            "PAN_GUILD_READY_TIMEOUT": "0.05",
            "PAN_LOG_LEVEL": "WARNING",
            **env,
        }
        self.log = log
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> float:
        """Spawn and wait for the gateway IDENTIFY (tables replayed, commands synced); returns the seconds."""
        self.fake.identified.clear()
        started = time.perf_counter()
        with self.log.open("ab") as sink:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, *self.command, cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=sink
            )
        await asyncio.wait_for(self.fake.identified.wait(), 600)
        return time.perf_counter() - started

    def rss_kib(self) -> int:
        return rss_kib(self.process.pid) if self.process is not None else 0

    async def kill(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()
            self.process = None

    async def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 20)
            self.process = None


class Follower:
    """A table's state as the committed log says (read from the database, replayed through the engine)."""

    def __init__(self, store: TableStore, table_id: int, state: TableState) -> None:
        self.store = store
        self.table_id = table_id
        self.state = state

    async def refresh(self) -> TableState:
        for _, action, _ in await self.store.read_log(self.table_id, self.state.seq):
            self.state = engine.apply(self.state, parse_action(action)).state
        return self.state


class Pacer:
    """Open-loop arrivals: every interaction the players send waits for the next slot, ``rate`` slots a second at
    random times — each second's slots drawn uniformly within that second (``bench.cluster --pace``), so the rate
    is exactly ``rate`` over any whole second while the arrivals stay as bursty as random ones. (A plain Poisson
    stream, first used, varies by ±1.2 % over 45 s, and the seeded one offered 156/s in the counted window.)
    Without a pacer a paced run's rate is closed-loop: each table acts every think + answer + follow seconds, so the
    offered rate falls as the bot slows ("--pace 150" offered ~139/s). A slot nobody was ready for within 50 ms is
    lost, not saved for a burst. Slots are taken in the order the players ask (asyncio's lock is fair)."""

    def __init__(self, rate: float, rng: random.Random) -> None:
        self.rate = rate
        self.rng = rng
        self.block = time.monotonic()  # the start of the next second to draw
        self.pending: collections.deque[float] = collections.deque()
        self.lock = asyncio.Lock()
        self.issued = 0  # slots given out

    def _draw(self) -> None:
        count = int(self.rate) + (1 if self.rng.random() < self.rate - int(self.rate) else 0)
        self.pending.extend(sorted(self.block + self.rng.random() for _ in range(count)))
        self.block += 1.0

    async def slot(self) -> None:
        async with self.lock:
            now = time.monotonic()
            while not self.pending or self.pending[0] < now - 0.05:
                if self.pending:
                    self.pending.popleft()  # nobody was ready for it
                else:
                    self._draw()
            at = self.pending.popleft()
            if at > now:
                await asyncio.sleep(at - now)
            self.issued += 1


@dataclass
class Soak:
    h: Harness
    store: TableStore
    hands: int
    stuck_after: float
    running: asyncio.Event = field(default_factory=asyncio.Event)
    parked: int = 0
    actions: int = 0
    hands_done: int = 0
    failed: list[str] = field(default_factory=list)
    panel_misses: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    latency: list[float] = field(default_factory=list)
    acked_at: list[float] = field(default_factory=list)  # each latency's dispatch (time.monotonic), same order
    kinds: list[str] = field(default_factory=list)  # each latency's slash command, same order
    finished_tables: int = 0
    dealt: int = 0  # tables whose first hand is dealt (bench/cluster.py counts only once all are)
    followers: dict[int, Follower] = field(default_factory=dict)
    think: float = 0.0
    rng: random.Random = field(default_factory=random.Random)
    by_channel: collections.Counter[int] = field(default_factory=collections.Counter)  # actions per table channel
    pacer: Pacer | None = None  # open-loop arrivals (bench.cluster --pace): each interaction waits for its slot

    async def act(self, user: FakeUser, channel: FakeChannel, command: str, **options: Any) -> bool:
        if self.think > 0:
            await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)  # the player reads the board
        if self.pacer is not None:
            await self.pacer.slot()
        try:
            reply = await self.h.slash(user, command, channel=channel, settle=False, timeout=60, **options)
        except InteractionFailed as exc:
            self.failed.append(f"{command}: {exc}"[:300])
            return False
        self.actions += 1
        self.by_channel[channel.id] += 1
        self.latency.append(reply.latency or 0.0)
        self.acked_at.append(reply.interaction.dispatched_at)
        self.kinds.append(command)
        if "Something went wrong" in reply.text:
            self.failed.append(f"{command}: {reply.text[:200]}")
        return True

    async def gate(self) -> None:
        if not self.running.is_set():
            self.parked += 1
            await self.running.wait()
            self.parked -= 1

    async def follower(self, channel: FakeChannel) -> Follower:
        for stored in await self.store.load_open_tables():
            if stored.row.channel_id == channel.id:
                config = TableConfig.from_json(stored.row.config)
                follower = Follower(self.store, stored.table_id, initial_state(config.rules(), stored.table_id))
                self.followers[stored.table_id] = follower
                return follower
        raise RuntimeError(f"no table in #{channel.name}")

    async def play_from_panel(self, follower: Follower, user: FakeUser, seat: int) -> bool:
        """A play no slash command expresses (a split lay-off, a two-card borrow, a claim): My hand, then its select.

        Like a player, it picks from what the panel offers: the engine's best legal action that is in one of the
        panel's selects (plays or discards), else the panel's first play, else its first discard.
        """
        legal = [format_action(a) for a in engine.legal_actions(follower.state, seat)]
        row = await self.store.get_table(follower.table_id)
        if not legal or row is None or row.board_message_id is None:
            return False
        board = self.h.fake.messages[row.board_message_id]
        try:
            if self.pacer is not None:
                await self.pacer.slot()
            reply = await self.h.click(user, board, "My hand", settle=False, timeout=60)
            panel = reply.message
            menus = [
                (str(m.get("custom_id", "")), [o["value"] for o in m.get("options") or []])
                for m in (panel.iter_components() if panel is not None else ())
                if str(m.get("custom_id", "")).endswith((":play", ":discard"))
            ]
            menus.sort(key=lambda m: not m[0].endswith(":play"))
            choice = next(((cid, v) for v in legal for cid, values in menus if v in values), None)
            if choice is None:
                choice = next(((cid, values[0]) for cid, values in menus if values and values[0] != "-"), None)
            if panel is None or choice is None:
                shown = "no panel" if panel is None else repr(panel.text[:120])
                self.panel_misses.append(f"legal {legal[:3]}; selects {[(c[-8:], v[:3]) for c, v in menus]}; {shown}")
                return False
            if self.pacer is not None:
                await self.pacer.slot()
            await self.h.select(user, panel, choice[0], [choice[1]], settle=False, timeout=60)
            self.actions += 2
            self.by_channel[board.channel_id] += 2
            return True
        except InteractionFailed as exc:
            self.failed.append(f"panel: {exc}"[:300])
        return False

    async def play_table(
        self, channel: FakeChannel, players: list[FakeUser], sleepy: FakeUser | None, delay: float
    ) -> None:
        await asyncio.sleep(delay)  # tables open over a while, as in a real server, not all in one second
        by_id = {p.id: p for p in players}
        await self.act(players[0], channel, "pan open")
        for p in players[1:]:
            await self.act(p, channel, "pan join")
        try:
            follower = await self.follower(channel)
        except RuntimeError as exc:
            self.stuck.append(str(exc))
            return
        counted = 0
        last_seq, last_change = -1, time.monotonic()
        first_deal = True
        while counted < self.hands:
            await self.gate()
            state = await follower.refresh()
            if first_deal and state.hand is not None:
                first_deal = False
                self.dealt += 1
            if state.seq != last_seq:
                last_seq, last_change = state.seq, time.monotonic()
            elif time.monotonic() - last_change > self.stuck_after:
                self.stuck.append(f"#{channel.name}: no progress at seq {state.seq} for {self.stuck_after}s")
                return
            if state.hand is None:
                if state.hand_no > counted:
                    self.hands_done += state.hand_no - counted
                    counted = state.hand_no
                    if counted >= self.hands:
                        break
                starter = next((by_id[s.player_id] for s in state.seats if s is not None and not s.away), None)
                if starter is None:
                    self.stuck.append(f"#{channel.name}: nobody left to deal")
                    return
                await self.act(starter, channel, "pan start")
                continue
            seat = engine.to_act(state)
            occupant = state.seat(seat) if seat is not None else None
            if seat is None or occupant is None:
                await asyncio.sleep(0.05)
                continue
            user = by_id[occupant.player_id]
            if user is sleepy:  # he never answers: the turn clock must move the table on
                await asyncio.sleep(0.25)
                continue
            found = greedy_command(state, seat)
            if found is None:
                if not await self.play_from_panel(follower, user, seat):
                    # The player found nothing to pick (reported below); the table is not stuck unless it makes
                    # no progress for --stuck-after seconds: the turn clock plays for a player who does not act.
                    self.panel_misses.append(f"#{channel.name}: no pick at seq {state.seq}")
                    await asyncio.sleep(1.0)
                continue
            command, options = found
            await self.act(user, channel, command, **options)
        self.finished_tables += 1


async def inject_faults(h: Harness, rng: random.Random, stop: asyncio.Event, drop_every: float) -> dict[str, int]:
    counts = {"429": 0, "500": 0, "drops": 0}
    last_drop = time.monotonic()
    while not stop.is_set():
        await asyncio.sleep(0.25)
        if time.monotonic() - last_drop > drop_every:
            await h.fake.drop_gateway()
            counts["drops"] += 1
            last_drop = time.monotonic()
        route = rng.choice(FAULT_ROUTES)
        if any(f.pattern == route and f.remaining > 0 for f in h.fake.faults):
            continue  # one pending fault per route: a single request never meets more than 4 in a row
        if rng.random() < 0.1:
            h.fake.fail_next(route, status=500, count=1)
            counts["500"] += 1
        else:
            h.fake.fail_next(route, status=429, count=rng.randint(1, 3), retry_after=rng.uniform(0.02, 0.2))
            counts["429"] += 1
    return counts


async def quiet(h: Harness, seconds: float = 2.5) -> None:
    """No REST call for ``seconds`` (longer than the bot's one-second board coalescing)."""
    await h.idle(quiet=seconds, timeout=600)


async def check_books(store: TableStore, followers: dict[int, Follower]) -> list[str]:
    problems: list[str] = []
    for table_id, follower in followers.items():
        state = await follower.refresh()
        expected: dict[Account, int] = {}
        for seat in state.seats:
            if seat is not None:
                expected[Account.stack(table_id, seat.player_id)] = seat.stack
        expected[Account.tops(table_id, "singles")] = state.singles_tops
        expected[Account.tops(table_id, "doubles")] = state.doubles_tops
        async with store.storage.transaction(write=False) as tx:
            held = await tx.table_balances(table_id)
        for account in set(expected) | set(held):
            if expected.get(account, 0) != held.get(account, 0):
                problems.append(f"{account.key}: engine {expected.get(account, 0)}, ledger {held.get(account, 0)}")
    return problems


@dataclass
class Settled:
    """RSS (KiB) once quiet, and again after the bot's next periodic malloc_trim (None when it does not trim)."""

    quiet: int
    trimmed: int | None

    @property
    def final(self) -> int:
        return self.trimmed if self.trimmed is not None else self.quiet

    def text(self) -> str:
        after = f" / {self.trimmed / 1024:.1f} MiB" if self.trimmed is not None else ""
        return f"{self.quiet / 1024:.1f} MiB{after}"

    def per_table(self, base: Settled, tables: int) -> str:
        quiet = (self.quiet - base.quiet) / tables
        if self.trimmed is None or base.trimmed is None:
            return f"{quiet:.0f} KiB"
        return f"{quiet:.0f} KiB / {(self.trimmed - base.trimmed) / tables:.0f} KiB trimmed"


@dataclass
class Rss:
    h: Harness
    trim_seconds: float
    probe: Path | None
    reports: list[str] = field(default_factory=list)

    async def settled(self, bot: Bot, label: str) -> Settled:
        await quiet(self.h)
        while True:  # the cold start's board refresh is done (no REST call for 2.5 s, twice in a row)
            before = len(self.h.fake.calls)
            await quiet(self.h)
            if len(self.h.fake.calls) == before:
                break
        first = bot.rss_kib()
        await self.report(bot, label)
        trimmed = None
        if self.trim_seconds > 0:
            await asyncio.sleep(self.trim_seconds + 1.0)
            trimmed = bot.rss_kib()
            await self.report(bot, label + ", trimmed")
        return Settled(first, trimmed)

    async def report(self, bot: Bot, label: str) -> None:
        if self.probe is None or bot.process is None:
            return
        seen = self.probe.read_text().count("\n") if self.probe.exists() else 0
        bot.process.send_signal(signal.SIGUSR1)
        for _ in range(100):
            await asyncio.sleep(0.1)
            if self.probe.exists() and self.probe.read_text().count("\n") > seen:
                break
        else:
            return
        data = json.loads(self.probe.read_text().splitlines()[-1])
        m = data.get("mallinfo2", {})
        self.reports.append(
            f"{label}: RSS {data['rss_kib'] / 1024:.1f} MiB, malloc in use {m.get('uordblks', 0) / 2**20:.1f} MiB, "
            f"free in heap {m.get('fordblks', 0) / 2**20:.1f} MiB, mmapped {m.get('hblkhd', 0) / 2**20:.1f} MiB, "
            f"{len(data['threads'])} threads, {data['gc_objects']} objects, discord {data.get('discord')}, "
            f"sprites {data.get('sprites')}"
        )


async def service_memory(db: Path) -> tuple[int, float, int]:
    """(tables, seconds to replay them, bytes the services hold for them by tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    async with SqliteStorage(db) as storage:
        service = TableService(ChipLedger(storage), TableStore(storage))
        started = time.perf_counter()
        count = await service.load()
        clock = TurnClock(service)
        await clock.start(run=False)
        replay = time.perf_counter() - started
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
        await clock.stop()
    tracemalloc.stop()
    return count, replay, held


async def bot_memory(h: Harness, workdir: Path) -> tuple[int, int, int]:
    """Python memory a running bot holds for idle tables (tracemalloc, in-process bot, boards refreshed, quiet).

    Two in-process bots in the same fake world, on copies of the databases: one table (``baseline.sqlite3``)
    and every table (``soak.sqlite3``). Allocations by the fake Discord (same process) are filtered out by
    traceback. Returns (tables, bytes with one table, bytes with every table).
    """
    held: dict[str, int] = {}  # the last run per database
    tables: dict[str, int] = {}
    for name in ("baseline.sqlite3", "baseline.sqlite3", "soak.sqlite3"):  # the first run only warms caches up
        for suffix in ("", "-wal"):
            if (workdir / f"{name}{suffix}").exists():
                shutil.copy(workdir / f"{name}{suffix}", workdir / f"copy-{name}{suffix}")
        gc.collect()
        tracemalloc.start(25)
        await h.start_bot(workdir / f"copy-{name}")
        await quiet(h)
        while runtime_of(h.bot).busy():
            await asyncio.sleep(0.1)
        await quiet(h)
        gc.collect()
        not_fake = [
            tracemalloc.Filter(False, "*fakediscord*", all_frames=True),
            tracemalloc.Filter(False, tracemalloc.__file__),
        ]
        snapshot = tracemalloc.take_snapshot().filter_traces(not_fake)
        held[name] = sum(stat.size for stat in snapshot.statistics("filename"))
        tables[name] = len(runtime_of(h.bot).tables.sessions)
        await h.stop_bot()
        tracemalloc.stop()
    assert tables["baseline.sqlite3"] == 1, tables
    return tables["soak.sqlite3"], held["baseline.sqlite3"], held["soak.sqlite3"]


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--sleepy", type=float, default=0.1, help="fraction of tables with one idle player")
    parser.add_argument("--clock-scale", type=float, default=10.0, help="PAN_CLOCK_SCALE for the bot")
    parser.add_argument("--drop-every", type=float, default=10.0, help="seconds between gateway drops")
    parser.add_argument("--restart-after", type=float, default=0.5, help="SIGKILL when this share of hands is done")
    parser.add_argument("--stuck-after", type=float, default=180.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--stagger", type=float, default=0.15, help="seconds between two tables opening")
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds a player thinks before acting")
    parser.add_argument("--restart-at", type=float, default=0.0, help="SIGKILL after this many seconds instead")
    parser.add_argument("--keep", action="store_true", help="keep the database and the bot's log")
    parser.add_argument("--skip-memory", action="store_true", help="skip the in-process tracemalloc measurement")
    parser.add_argument("--trim-seconds", type=float, default=10.0, help="PAN_MALLOC_TRIM_SECONDS for the bot")
    parser.add_argument(
        "--malloc-defaults", action="store_true", help="bot with glibc's malloc defaults (no arena cap, no trim)"
    )
    parser.add_argument("--probe", action="store_true", help="bench/memprobe.py instead of bot.py; print its reports")
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args(argv)
    postgres = args.backend == "postgres"
    if postgres:
        args.skip_memory = True
    logging.basicConfig(level=logging.ERROR)
    rng = random.Random(args.seed)
    fake = FakeDiscord()
    await fake.start()
    channels = tuple(f"pan-{i}" for i in range(args.tables))
    h = Harness(fake, members=args.tables * args.players, channels=channels, timeout=60.0)
    workdir = Path(tempfile.mkdtemp(prefix="pan-soak-"))
    db, log = workdir / "soak.sqlite3", workdir / "bot.log"
    env = {"PAN_CLOCK_SCALE": str(args.clock_scale), "PAN_IDLE_CLOSE_SECONDS": "100000000"}
    trim_seconds = 0.0 if args.malloc_defaults else args.trim_seconds
    env["PAN_MALLOC_TRIM_SECONDS"] = str(trim_seconds)
    if args.malloc_defaults:
        env["PAN_MALLOC_ARENAS"] = "0"
    command = ("-m", "bench.memprobe") if args.probe else ("bot.py",)
    if args.probe:
        env["PAN_PROBE_OUT"] = str(workdir / "probe.jsonl")
    rss = Rss(h, trim_seconds, workdir / "probe.jsonl" if args.probe else None)

    cleanup = None
    if postgres:
        url, cleanup, _server_pids = await postgres_url()
        env_db = {"DATABASE_URL": url}
        storage: SqliteStorage | PostgresStorage = storage_for(url)
    else:
        env_db = {}
        storage = SqliteStorage(db)
    rss_zero = rss_one = None
    if not postgres:  # memory baselines: no table, then one idle table (board rendered: fonts and sprites loaded)
        empty = Bot(fake, h, workdir / "baseline.sqlite3", log, env, command)
        await empty.start()
        rss_zero = await rss.settled(empty, "start-up, no table")
        one = h.guild.channels[0]
        await h.slash(h.users[0], "pan open", channel=one)
        for user in h.users[1 : args.players]:
            await h.slash(user, "pan join", channel=one)
        await empty.stop()
        await empty.start()
        rss_one = await rss.settled(empty, "start-up, 1 idle table")
        await empty.stop()

    bot = Bot(fake, h, db, log, {**env, **env_db}, command)
    await bot.start()
    assert bot.process is not None
    cpu, cpu_total, cpu_main, harness0 = TreeCpu.start([bot.process.pid]), 0.0, 0.0, time.process_time()
    await storage.open()
    store = TableStore(storage)
    soak = Soak(h, store, args.hands, args.stuck_after, think=args.think, rng=random.Random(args.seed + 1))
    soak.running.set()
    sleepy_tables = round(args.tables * args.sleepy)
    stop_faults = asyncio.Event()
    faults = asyncio.create_task(inject_faults(h, rng, stop_faults, args.drop_every))
    started = time.perf_counter()
    tables = [
        asyncio.create_task(
            soak.play_table(
                h.guild.channels[i],
                h.users[i * args.players : (i + 1) * args.players],
                h.users[(i + 1) * args.players - 1] if i < sleepy_tables else None,
                i * args.stagger,
            )
        )
        for i in range(args.tables)
    ]
    restart_at = args.tables * args.hands * args.restart_after
    restart_seconds: float | None = None
    next_report = time.perf_counter() + 60
    while not all(t.done() for t in tables):
        await asyncio.sleep(0.5)
        if time.perf_counter() > next_report:
            next_report += 60
            print(
                f"  {time.perf_counter() - started:.0f}s: {soak.hands_done} hands, {soak.actions} actions", flush=True
            )
        due = time.perf_counter() - started >= args.restart_at if args.restart_at else soak.hands_done >= restart_at
        if restart_seconds is None and due:
            soak.running.clear()
            while soak.parked < sum(1 for t in tables if not t.done()):
                await asyncio.sleep(0.05)
            await h.idle(timeout=600)  # no interaction in flight
            used, used_main = cpu.stop()
            cpu_total, cpu_main = cpu_total + used, cpu_main + used_main
            await bot.kill()
            restart_seconds = await bot.start()
            assert bot.process is not None
            cpu = TreeCpu.start([bot.process.pid])  # the restart's replay counts: it is part of the run's cost
            print(f"SIGKILL after {soak.hands_done} hands; back (IDENTIFY) in {restart_seconds:.2f}s", flush=True)
            soak.running.set()
    elapsed = time.perf_counter() - started
    used, used_main = cpu.stop()
    cpu_total, cpu_main = cpu_total + used, cpu_main + used_main
    cpu_result = cpu_figures(cpu_total, cpu_main, soak.actions, time.process_time() - harness0)
    stop_faults.set()
    fault_counts = await faults
    rss_full = await rss.settled(bot, f"after the run, {args.tables} tables") if not postgres else None
    audit = await ChipLedger(storage).audit()
    books = await check_books(store, soak.followers)
    unanswered = sum(1 for i in fake.interactions.values() if i.callback_type is None)
    lat = sorted(soak.latency)
    await bot.stop()
    # a cold start with every table idle, for the start-up figure
    cold = Bot(fake, h, db, log, {**env, **env_db}, command)
    cold_start = await cold.start()
    rss_cold = await rss.settled(cold, f"cold start, {args.tables} idle tables") if not postgres else None
    await cold.stop()
    await storage.close()
    if cleanup is not None:
        await cleanup()
    count, replay, held = await service_memory(db) if not postgres else (args.tables, float("nan"), 0)
    bot_log = log.read_text(errors="replace")
    errors = [line for line in bot_log.splitlines() if " ERROR " in line or "Traceback" in line]
    print(
        f"tables={args.tables} players={args.players} hands/table={args.hands} sleepy tables={sleepy_tables} "
        f"think={args.think}s clock scale={args.clock_scale}"
    )
    print(f"hands={soak.hands_done} actions={soak.actions} elapsed={elapsed:.1f}s")
    print(f"backend={args.backend}")
    print(f"hands/min={soak.hands_done / elapsed * 60:.1f} actions/s={soak.actions / elapsed:.1f}")
    print(f"{cpu_line(cpu_result)} (whole run, restart included)")
    if lat:
        p50, p99 = statistics.median(lat) * 1000, lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
        print(f"ack latency p50={p50:.1f} ms p99={p99:.1f} ms")
    print(f"faults injected: {fault_counts}; fake answered {sum(1 for c in fake.calls if c.injected)} with a fault")
    resumes = sum("resume" in x for x in fake.gateway_log)
    print(f"gateway: {fake.gateway_log.count('drop code=4000')} drops, {resumes} resumes")
    print(f"failed interactions={len(soak.failed)} unanswered={unanswered} stuck tables={len(soak.stuck)}")
    if soak.panel_misses:  # a player who found nothing to pick waited for the turn clock (not a failure by itself)
        print(f"   players who found no pick in My hand: {len(soak.panel_misses)}; first: {soak.panel_misses[:4]}")
    for line in soak.failed[:5] + soak.stuck[:5]:
        print("  ", line)
    print(f"bot log: {len(errors)} ERROR/Traceback lines")
    for line in errors[:5]:
        print("  ", line[:300])
    print(f"finished tables={soak.finished_tables}/{args.tables}")
    print(f"audit: {audit.summary().splitlines()[0]}; engine vs ledger differences: {len(books)}")
    print(f"SIGKILL restart mid-run: IDENTIFY after {restart_seconds or float('nan'):.2f}s")
    alone = f" (service replay alone {replay:.2f}s)" if not postgres else ""
    print(f"cold start with {count} idle tables: IDENTIFY after {cold_start:.2f}s{alone}")
    allocator = "glibc defaults" if args.malloc_defaults else f"2 arenas, malloc_trim every {trim_seconds:g}s"
    per = max(1, count - 1)
    if rss_zero is not None and rss_one is not None and rss_full is not None and rss_cold is not None:
        print(f"memory (bot RSS, quiet 2.5 s / then after a malloc_trim; allocator: {allocator}):")
        print(f"  start-up, no table:            {rss_zero.text()}")
        print(f"  start-up, 1 idle table:        {rss_one.text()}   <- baseline (board rendered: fonts, sprites)")
        print(f"  after the run, {count} tables:   {rss_full.text()}")
        print(f"  cold start, {count} idle tables: {rss_cold.text()}")
        print(
            f"  per idle table vs the baseline: {rss_full.per_table(rss_one, per)} after the run; "
            f"{rss_cold.per_table(rss_one, per)} after a cold start"
        )
        print(f"  services (tracemalloc): {held / max(1, count) / 1024:.1f} KiB per table")
    for line in rss.reports:
        print("  probe:", line)
    if not args.skip_memory:
        open_tables, one, every = await bot_memory(h, workdir)
        print(
            f"memory (tracemalloc, in-process bot, quiet): {one / 2**20:.1f} MiB with 1 table, "
            f"{every / 2**20:.1f} MiB with {open_tables} -> {(every - one) / max(1, open_tables - 1) / 1024:.1f} "
            "KiB per idle table"
        )
    print(f"problems seen by the fake: {h.problems()[:5]}")
    await h.close()
    await fake.stop()
    if args.keep:
        print(f"kept: {workdir} (soak.sqlite3, baseline.sqlite3, bot.log)")
    else:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
