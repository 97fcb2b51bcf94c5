"""Entry point: load .env, read the configuration, build PanBot, load the ``pancog.adapter.extension`` extension,
connect.

The environment is read once, here, into :class:`pancog.infra.config.Config` (every variable, its default and its
meaning: docs/operations.md, "Environment variables"; the ones an admin sets: .env.example). A bad value stops the
bot before it connects, with a message naming the variable.

Arguments (a cluster, see docs/operations.md "Running a cluster" and "Deploying on several hosts"):
  --shards N           connect N shards (discord.py AutoShardedBot); alone: all N in this process.
  --cluster k/M        this process is k of M and runs shards k, k+M, k+2M, … of N (N: --shards, else PAN_SHARDS,
                       else M). On PostgreSQL it claims those shards' leases first (waiting, as a standby, while a
                       live process holds them), heart-beats, and on SIGTERM hands them over cleanly
                       (pancog/infra/coord.py). ``pod/M``: k is the ordinal of the StatefulSet pod (POD_NAME).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import faulthandler
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import aiohttp
import discord
import yarl
from discord.ext import commands

from pancog.adapter.gateway_events import lean_message_updates
from pancog.adapter.invite import invite_url
from pancog.infra import collector, memory, multipart
from pancog.infra.cluster import parse_cluster, shard_range
from pancog.infra.config import Config, ConfigError
from pancog.infra.coord import UNREACHABLE, ClusterMember, MemberTiming, holder_for
from pancog.infra.rest import RestTrace
from pancog.infra.storage import ShardSet, storage_for
from pancog.infra.tasks import Tasks

log = logging.getLogger("pan.bot")

EXTENSION = "pancog.adapter.extension"

SETUP_HELP = """\
DISCORD_TOKEN is not set.

To get one:
  1. Open https://discord.com/developers/applications and create an application.
  2. Under "Bot", press "Reset Token" and copy the token.
  3. cp .env.example .env   and put the token after DISCORD_TOKEN=
  4. Run scripts/run again: once connected, the bot logs its invite link ("invite me to a server: ...",
     with its Application ID and every permission it needs; docs/admin.md explains each).
"""


def apply_endpoint_overrides(api_base: str | None, gateway_url: str | None) -> None:
    """Point discord.py at another REST base / gateway (REST proxy or a local fake Discord)."""
    if api_base:
        discord.http.Route.BASE = api_base.rstrip("/")
    if gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


class PanBot(commands.Bot):
    """The bot: owns the configuration (``config``, read once by :func:`main`); the extension builds the services
    from it."""

    def __init__(self, *, config: Config, **options: object) -> None:
        intents = discord.Intents.default()
        # No message cache: the bot never reads cached messages (deleted boards arrive as raw events, clicks carry
        # their message), and a cache of 1000 board/summary messages with attachments and components is memory
        # that grows with the tables (docs/perf/soak.md, "Memory").
        options.setdefault("max_messages", None)
        # Nothing the bot posts pings anyone unless that message says so (errors.pings: exactly the users it
        # names). Names and typed text are shown, never obeyed; the bot never needs Mention Everyone.
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        # Every REST request passes through this trace when something needs it: the budget of Discord's global limit
        # shared by the processes (attached by the extension on PostgreSQL) and the REST metrics. Without either,
        # aiohttp runs no trace hooks at all. Endpoint overrides are applied by now.
        self.rest = RestTrace(discord.http.Route.BASE)
        shared_budget = config.rest_global_rate > 0 and config.database_url is not None
        if shared_budget or config.metrics_port is not None:
            options.setdefault("http_trace", self.rest.config)
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, **options)  # type: ignore[arg-type]
        lean_message_updates(self)  # board edits echoed by the gateway: not parsed while nothing listens for them
        self.config = config
        self.db_path = config.database  # a SQLite file or a DATABASE_URL
        self.test_guild_id = config.test_guild_id
        self.trimmer = memory.Trimmer(config.malloc_trim_seconds)
        self.member: ClusterMember | None = None  # a cluster process's membership (PostgreSQL only)
        self.exit_code = 0
        self.serving = False  # the extension is loaded and the commands synced: there is something to drain
        # main() sets it from PAN_GC_FREEZE: at the first ready (extension loaded, commands synced, every guild,
        # channel and member received), the start-up heap leaves the garbage collector's walks
        # (pancog/infra/collector.py). Off for a bot built in a test's interpreter, whose heap is the test's.
        self.freeze_heap = False
        self.stop_requested = asyncio.Event()
        self._draining = False
        self._closing: asyncio.Future[None] | None = None
        self.tasks = Tasks("pan-bot", logger=log)  # the client's run and its one shutdown

    async def login(self, token: str) -> None:
        """discord.py's login, with Discord out of reach waited out (Discord down, this host cut off from the
        network): the process stays up, says why at each try, and logs in once it can — a supervisor's crash loop
        would print a traceback a second and say nothing more. A bad token still fails at once."""
        delay = 1.0
        while True:
            try:
                await super().login(token)
                # discord.py's session, made by that login: its multipart requests (every image) built in one piece
                multipart.install(getattr(self.http, "_HTTPClient__session", None))
                return
            except (aiohttp.ClientConnectionError, TimeoutError) as exc:
                log.warning(
                    "Discord is out of reach at login (%s: %s); trying again in %.0f s", type(exc).__name__, exc, delay
                )
                await self.http.close()  # its session closed the connector too: the next login makes both anew
                self.http.connector = discord.utils.MISSING
                delay = await self.wait_to_retry(delay)
                if self.stop_requested.is_set():  # SIGTERM while waiting: nothing to hand over
                    await self.close()
                    return

    async def wait_to_retry(self, delay: float) -> float:
        """Wait ``delay`` s before trying a service out of reach again, or less if a stop is asked meanwhile;
        returns the wait before the next try (doubled, at most ``RETRY_MAX``)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop_requested.wait(), delay)
        return min(2 * delay, RETRY_MAX)

    async def join_cluster(self) -> None:
        """Hook for a cluster process: claim the shard leases before anything loads (see PanShardedBot)."""

    async def setup_hook(self) -> None:
        self.trimmer.start()
        await self.join_cluster()
        if self.stop_requested.is_set():  # SIGTERM while it waited as a standby: it never served
            await self.close()
            return
        # The extension is pancog.adapter.extension, not the package: unloading an extension purges its submodules from
        # sys.modules, and the engine, services and views must keep one identity across a reload or restart.
        await self.load_extension(EXTENSION)
        if self.test_guild_id:
            guild = discord.Object(id=self.test_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()
        self.serving = True
        if self.stop_requested.is_set():  # SIGTERM during the start-up: stop now that it can stop cleanly
            await self.close()

    def request_stop(self) -> asyncio.Task[None] | None:
        """SIGTERM: close (drain, hand the leases over) now if serving; else once the start-up reaches a point where
        it can (a standby stops waiting at once). Returns the closing task, if one was started."""
        self.stop_requested.set()
        if self.serving:
            return self.tasks.spawn(self.close(), name="pan-stop")
        return None

    async def on_ready(self) -> None:
        log.info("ready as %s in %d guild(s)", self.user, len(self.guilds))
        if self.freeze_heap:  # once: at a later ready (a new session) it would also freeze what play made since
            self.freeze_heap = False
            collector.freeze()
        if self.application_id is not None:  # the link an admin needs, with this application's id filled in
            log.info("invite me to a server: %s", invite_url(self.application_id))

    async def drain(self, timeout: float = 10.0) -> None:
        """Stop taking actions and finish those in flight, before the leases go (SIGTERM, see :meth:`close`):
        disconnect the gateway (Discord then sends this process no new interaction), then wait until every
        interaction handler discord.py started has returned (at most ``timeout`` seconds)."""
        if self._draining:
            return
        self._draining = True
        if self.member is not None:
            await self.member.draining()
        started = time.monotonic()
        await self.disconnect_gateway()
        deadline = started + timeout
        while in_flight() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        log.info("drained in %.2f s (%d interaction(s) still running)", time.monotonic() - started, len(in_flight()))

    async def disconnect_gateway(self) -> None:
        if self.ws is not None:
            await self.ws.close(code=1000)

    async def close(self) -> None:
        """Stop once, whoever asks (SIGTERM, lost leases, the ``async with`` exit): every caller waits for the same
        shutdown to finish, so the process never exits half-way through handing its leases over."""
        if self._closing is None:
            self._closing = self.tasks.spawn(self._shutdown(), name="pan-shutdown")
        await asyncio.shield(self._closing)

    async def stopped(self) -> None:
        """Wait for a shutdown under way to finish (discord.py's ``async with`` exit skips ``close`` once the client
        is closed, which happens before the leases are released)."""
        if self._closing is not None:
            await asyncio.shield(self._closing)

    async def _shutdown(self) -> None:
        member = self.member
        if member is not None and not member.lost and self.serving:
            await self.drain()
        elif member is not None and member.lost:
            # Another process serves these shards now: stop hearing Discord for them at once (their interactions are
            # the successor's, and answering them here would race it), before the teardown, which may wait on a
            # database out of reach. Bounded: over a stalled link the goodbye is never answered.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.disconnect_gateway(), LOST_GATEWAY_WAIT)
        await self.trimmer.stop()
        # discord.py dispatches ``ready`` from a task that waits for the last guild (``guild_ready_timeout``); a stop
        # inside that wait left it to fire into the closed client ("Task exception was never retrieved": its loop is
        # gone). Nothing waits for ready once stopping, so the wait is cancelled (discord.py handles the cancel).
        pending_ready = getattr(self._connection, "_ready_task", None)
        if pending_ready is not None:
            pending_ready.cancel()
        await super().close()  # unloads the extension: the services stop and storage closes (the last write)
        if member is not None and not await member.release() and not member.lost:  # a successor takes them now
            self.exit_code = self.exit_code or STOP_GAVE_UP
            log.error(
                "stopping: the database did not answer, so the shard leases were not handed over (a successor takes "
                "them after PAN_HEARTBEAT_TIMEOUT); exiting %d",
                self.exit_code,
            )


IDENTIFY_WINDOW = 5.0  # Discord: one IDENTIFY per rate-limit bucket (shard_id % max_concurrency) per 5 s


class IdentifyPacer:
    """Spaces IDENTIFYs as Discord asks: shards in one bucket (``shard_id % max_concurrency``) 5 s apart, shards in
    different buckets at once. discord.py's default hook sleeps 5 s before every shard but the first, whatever the
    gateway's ``max_concurrency`` (16 for large bots: a 16-shard process would wait 75 s instead of none)."""

    def __init__(
        self,
        max_concurrency: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.max_concurrency = max(1, max_concurrency)
        self._clock, self._sleep = clock, sleep
        self._last: dict[int, float] = {}  # bucket -> when its last IDENTIFY went out
        self._lock = asyncio.Lock()

    async def wait(self, shard_id: int) -> float:
        """Wait until ``shard_id`` may IDENTIFY; returns the seconds waited."""
        bucket = shard_id % self.max_concurrency
        async with self._lock:
            last = self._last.get(bucket)
            delay = 0.0 if last is None else max(0.0, last + IDENTIFY_WINDOW - self._clock())
            if delay:
                await self._sleep(delay)
            self._last[bucket] = self._clock()
        return delay


INTERACTION_TASKS = ("CommandTree-invoker", "discord-ui-view-dispatch", "discord-ui-modal", "discord.py: interaction")
"""Names of the tasks discord.py runs an interaction's handler in (slash commands, components, modals)."""


def in_flight() -> list[asyncio.Task[object]]:
    """The interaction handlers still running in this event loop."""
    return [t for t in asyncio.all_tasks() if not t.done() and t.get_name().startswith(INTERACTION_TASKS)]


class PanShardedBot(PanBot, commands.AutoShardedBot):
    """PanBot over several shards (``shard_ids`` of ``shard_count``), one process of a cluster."""

    def __init__(
        self, *, shard_ids: Sequence[int], shard_count: int, cluster: str | None = None, **options: object
    ) -> None:
        super().__init__(shard_ids=list(shard_ids), shard_count=shard_count, **options)  # type: ignore[arg-type]
        self.pacer: IdentifyPacer | None = None
        self.cluster = cluster  # "k/M" when started with --cluster
        self.max_concurrency: int | None = None

    async def join_cluster(self) -> None:
        """On PostgreSQL, a ``--cluster`` process claims its shards' leases before the extension loads a table or a
        shard connects: it waits while a live process holds any of them (it is the standby), then heart-beats."""
        config = self.config
        if self.cluster is None or not config.database_url or self.shard_ids is None or self.shard_count is None:
            return
        # A database down or out of reach (this host cut off) is waited out, as a standby waits out a live holder:
        # the process stays up, says why, and joins once it can (a crash loop would say nothing more).
        delay = 1.0
        while not self.stop_requested.is_set():
            try:
                await self._join_cluster(config.database_url, self.cluster, self.shard_count, self.shard_ids)
                return
            except UNREACHABLE as exc:
                member, self.member = self.member, None
                if member is not None:
                    await member.close()
                log.warning(
                    "cluster %s: the database is out of reach (%s: %s); trying again in %.0f s",
                    self.cluster,
                    exc.__class__.__name__,
                    exc,
                    delay,
                )
                delay = await self.wait_to_retry(delay)

    async def _join_cluster(self, url: str, cluster: str, shard_count: int, shard_ids: Sequence[int]) -> None:
        config = self.config
        storage = storage_for(url, min_size=1, max_size=1)
        await storage.open()  # migrates: the lease and member tables exist before the claim
        await storage.close()
        member = ClusterMember(
            url,
            ShardSet(shard_count, tuple(shard_ids)),
            cluster,
            holder=holder_for(config.host_name),
            timing=MemberTiming(heartbeat=config.heartbeat_seconds, stale_after=config.heartbeat_timeout),
            on_lost=self._leases_lost,
        )
        self.member = member
        await member.open()
        if await member.claim(stop=self.stop_requested):
            member.start()

    def _leases_lost(self, reason: str) -> None:
        """Another process serves our shards now: stop at once (no drain: our writes are refused anyway) and exit
        75, so the supervisor starts this process again, as a standby."""
        log.warning("leaving the cluster: %s", reason)
        self.exit_code = LEASES_LOST
        # Bounded like a SIGTERM's stop: a process that lost its leases because it was cut off from the network
        # waits on sockets that stalled (the last writes, Discord's goodbye), and must still leave, or it never
        # comes back as a standby. Its writes are refused by the epoch check whatever it does meanwhile.
        arm_stop_bound(self.config.stop_timeout, asyncio.get_running_loop(), code=LEASES_LOST)
        self.tasks.spawn(self.close(), name="pan-leases-lost")

    async def disconnect_gateway(self) -> None:
        await asyncio.gather(*(shard.disconnect() for shard in self.shards.values()), return_exceptions=True)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        if self.member is not None:  # the queue across hosts: Discord counts IDENTIFYs per bot, not per process
            # A reconnect after a freeze (SIGSTOP, a paused VM) asks the database first: if another process took
            # our shards meanwhile, this process is closing and must not identify them again.
            if not initial and (self.member.lost or not await self.member.beat()):
                # discord.py ends a shard's reconnect quietly on CancelledError (whether the shard's worker or the
                # client's connect loop runs it); close() is under way
                raise asyncio.CancelledError
            if self.max_concurrency is None:
                try:
                    self.max_concurrency = (await self.fetch_session_start_limits()).max_concurrency
                except (discord.HTTPException, discord.GatewayNotFound, KeyError, TypeError):
                    self.max_concurrency = 1
            waited = await self.member.identify_turn(shard_id or 0, self.max_concurrency)
            if waited:
                log.info("shard %s waited %.1f s in the identify queue", shard_id, waited)
            return
        if self.pacer is None:
            try:
                limits = await self.fetch_session_start_limits()
                concurrency = limits.max_concurrency
            except (discord.HTTPException, discord.GatewayNotFound, KeyError, TypeError):
                concurrency = 1  # unknown: Discord's floor
            self.pacer = IdentifyPacer(concurrency)
        waited = await self.pacer.wait(shard_id or 0)
        if waited:
            log.info(
                "shard %s waited %.1f s to identify (max_concurrency %d)", shard_id, waited, self.pacer.max_concurrency
            )


STOP_GAVE_UP = 70  # SIGTERM, and the stop did not finish within PAN_STOP_TIMEOUT: exited without a clean hand-over
LEASES_LOST = 75  # another process serves this one's shards now: start again, as a standby (EX_TEMPFAIL)
RETRY_MAX = 30.0  # s: the longest wait between two tries to reach Discord (login) or the database (the claim)
LOST_GATEWAY_WAIT = 2.0  # s: after lost leases, the most the gateway sessions' close may take before the teardown


def arm_stop_bound(seconds: float, loop: asyncio.AbstractEventLoop, *, code: int = STOP_GAVE_UP) -> threading.Timer:
    """After SIGTERM (or lost leases, ``code`` 75): exit ``code`` if the process is still running ``seconds`` later.

    A stop waits on things outside the process (the database for the last writes and the leases' hand-over, Discord
    for the drain); with its PostgreSQL gone those waits have no end, and the process would hang until a SIGKILL.
    A thread, not the event loop: it fires even if the loop is blocked. ``os._exit`` skips the interpreter's
    clean-up (which could wait on the same sockets); render workers die with the process (their parent-death
    signal), and a standby takes the shards once the heartbeats stop."""

    def give_up() -> None:
        if code == LEASES_LOST:  # expected when cut off: the leases are another's already, nothing is handed over
            log.warning(
                "the stop after the leases were lost did not finish within %.0f s (PAN_STOP_TIMEOUT; the database "
                "or Discord out of reach): exiting %d now",
                seconds,
                code,
            )
        else:
            log.error(
                "SIGTERM: the stop did not finish within %.0f s (PAN_STOP_TIMEOUT): giving up, exiting %d without a "
                "clean hand-over (the shard leases free themselves after PAN_HEARTBEAT_TIMEOUT)",
                seconds,
                code,
            )
            with contextlib.suppress(Exception):  # read from another thread: a best-effort picture
                dump_tasks(loop)  # what it was waiting for
        for handler in logging.getLogger().handlers:
            handler.flush()
        sys.stderr.flush()
        os._exit(code)

    timer = threading.Timer(seconds, give_up)
    timer.daemon = True
    timer.name = "pan-stop-bound"
    timer.start()
    return timer


def dump_tasks(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Every asyncio task's stack on stderr (SIGUSR1): what a process that does not stop is waiting for."""
    for task in asyncio.all_tasks(loop):
        print(f"--- task {task.get_name()}", file=sys.stderr)  # noqa: T201
        task.print_stack(limit=12, file=sys.stderr)


def parse_args(
    argv: Sequence[str], shards_default: int | None = None, pod_name: str | None = None
) -> argparse.Namespace:
    """``--shards N [--cluster k/M]`` → namespace with ``shard_count`` and ``shard_ids`` (None: unsharded).
    ``--cluster`` alone: N is ``shards_default`` (PAN_SHARDS), else M (one shard per process)."""
    parser = argparse.ArgumentParser(prog="bot.py", description="The Panguingue bot (environment: see .env.example).")
    parser.add_argument("--shards", type=int, default=None, help="total shard count N")
    parser.add_argument("--cluster", default=None, help="k/M: this process runs the k-th of M shard ranges")
    args = parser.parse_args(list(argv))
    args.shard_count, args.shard_ids = None, None
    shards: int | None = args.shards
    if args.cluster is not None and shards is None:
        shards = shards_default if shards_default is not None else _cluster_or_exit(parser, args.cluster, pod_name)[1]
    if shards is not None:
        if shards < 1:
            parser.error("--shards must be at least 1")
        args.shard_count = shards
        index, count = (0, 1) if args.cluster is None else _cluster_or_exit(parser, args.cluster, pod_name)
        try:
            args.shard_ids = shard_range(index, count, shards)
        except ValueError as exc:
            parser.error(str(exc))
    return args


def _cluster_or_exit(parser: argparse.ArgumentParser, text: str, pod_name: str | None) -> tuple[int, int]:
    try:
        return parse_cluster(text, pod_name)
    except ValueError as exc:
        parser.error(str(exc))


def build_bot(
    config: Config,
    *,
    shard_count: int | None = None,
    shard_ids: Sequence[int] | None = None,
    cluster: str | None = None,
) -> PanBot:
    if "://" not in config.database:  # a SQLite file, not a database URL
        Path(config.database).parent.mkdir(parents=True, exist_ok=True)
    options: dict[str, object] = {}
    if config.guild_ready_timeout is not None:
        options["guild_ready_timeout"] = config.guild_ready_timeout
    if shard_count is not None:
        return PanShardedBot(
            config=config,
            shard_count=shard_count,
            shard_ids=list(shard_ids) if shard_ids is not None else list(range(shard_count)),
            cluster=cluster,
            **options,
        )
    return PanBot(config=config, **options)


def configure_allocator(config: Config) -> bool:
    """glibc malloc: at most PAN_MALLOC_ARENAS arenas and a fixed mmap threshold. Call before any thread starts."""
    if config.malloc_arenas <= 0:
        return False
    return memory.configure_allocator(arenas=config.malloc_arenas)


def configure_switch_interval(ms: float) -> float:
    """Set how long a thread may hold the GIL while another waits (``PAN_GIL_SWITCH_MS``, default 1 ms).

    Images are drawn in worker threads that hold the GIL for their whole render, and CPython only asks them to
    let go every switch interval (5 ms by default). Every database statement (aiosqlite's thread) and every turn
    of the event loop waits for that hand-off, so under load a transaction of ~10 statements took tens of ms and
    actions queued behind the storage lock (the 200-table soak, docs/perf/soak.md). 1 ms keeps answers and
    commits moving while boards render; renders get a little slower, which board coalescing absorbs.
    """
    if ms > 0:
        sys.setswitchinterval(ms / 1000)
    return sys.getswitchinterval()


def event_loop_factory(kind: str) -> tuple[Callable[[], asyncio.AbstractEventLoop], str]:
    """The event loop bot.py runs on (``PAN_EVENT_LOOP``) and its name as logged.

    uvloop by default: its loop, transports and timers are libuv's in C, where asyncio's selector loop runs them in
    Python, and asyncpg and aiohttp (all of the bot's I/O) are built and tested on it; every answer, commit and
    gateway event crosses the loop several times. Without uvloop installed (or with ``asyncio``) the standard loop.
    """
    if kind == "uvloop":
        try:
            import uvloop
        except ImportError:
            log.warning("PAN_EVENT_LOOP=uvloop but uvloop is not installed: running on asyncio's own loop")
        else:
            return uvloop.new_event_loop, "uvloop"
    return asyncio.new_event_loop, "asyncio"


def main(argv: Sequence[str] | None = None) -> int:
    try:
        from dotenv import load_dotenv
    except ImportError:  # pragma: no cover - python-dotenv is in requirements.txt
        pass
    else:
        load_dotenv()
    try:
        config = Config.from_env()
    except ConfigError as exc:
        print(f"Bad setting: {exc} (see docs/operations.md, Environment variables).", file=sys.stderr)  # noqa: T201
        return 2
    args = parse_args(sys.argv[1:] if argv is None else argv, shards_default=config.shards, pod_name=config.pod_name)
    configure_allocator(config)  # before any thread starts: the arena cap applies only to threads started later
    configure_switch_interval(config.gil_switch_ms)
    collector.configure(config.gc_thresholds)  # fewer, shorter collector pauses (pancog/infra/collector.py)
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    faulthandler.enable()  # a crash in native code (a fatal signal) leaves its Python stacks on stderr, not silence
    token = config.discord_token
    if not token:
        print(SETUP_HELP, file=sys.stderr)  # noqa: T201
        return 2
    apply_endpoint_overrides(config.discord_api_base, config.discord_gateway_url)
    cluster = None if args.cluster is None else "{}/{}".format(*parse_cluster(args.cluster, config.pod_name))
    bot = build_bot(config, shard_count=args.shard_count, shard_ids=args.shard_ids, cluster=cluster)
    bot.freeze_heap = config.gc_freeze

    async def runner() -> None:
        loop = asyncio.get_running_loop()
        stopping: list[asyncio.Task[None]] = []
        bound: list[threading.Timer] = []
        async with bot:
            start = bot.tasks.spawn(bot.start(token), name="pan-start")

            def on_sigterm() -> None:  # a rolling restart: drain, hand the leases over, exit 0
                log.info("SIGTERM: stopping (drain, then hand the shard leases over)")
                if not bound:
                    bound.append(arm_stop_bound(config.stop_timeout, loop))
                task = bot.request_stop()
                if task is not None:
                    stopping.append(task)

            loop.add_signal_handler(signal.SIGTERM, on_sigterm)
            loop.add_signal_handler(signal.SIGUSR1, dump_tasks)  # where is a stuck process waiting?
            await start
            for task in stopping:
                await task
        await bot.stopped()
        for timer in bound:
            timer.cancel()

    new_loop, loop_name = event_loop_factory(config.event_loop)
    log.info("event loop: %s", loop_name)
    try:
        with asyncio.Runner(loop_factory=new_loop) as run:
            run.run(runner())
    except discord.LoginFailure:
        print("Discord refused the token (DISCORD_TOKEN). Reset it in the developer portal.", file=sys.stderr)  # noqa: T201
        return 3
    except KeyboardInterrupt:
        pass
    return bot.exit_code


if __name__ == "__main__":
    sys.exit(main())
