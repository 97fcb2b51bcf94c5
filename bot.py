"""Entry point: load .env, read the configuration, build PanBot, load the ``pancog.adapter.extension`` extension,
connect.

The environment is read once, here, into :class:`pancog.infra.config.Config` (every variable, its default and its
meaning: docs/operations.md, "Environment variables"; the ones an admin sets: .env.example). A bad value stops the
bot before it connects, with a message naming the variable.

Arguments (a cluster, see docs/operations.md "Running a cluster"; scripts/cluster starts them):
  --shards N           connect N shards (discord.py AutoShardedBot); alone: all N in this process.
  --cluster k/M        with --shards: this process is k of M and runs the contiguous shard range
                       pancog.infra.cluster.shard_range(k, M, N); it leases those shards' tables in the database.
"""

from __future__ import annotations

import argparse
import asyncio
import faulthandler
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import discord
import yarl
from discord.ext import commands

from pancog.adapter.invite import invite_url
from pancog.infra import memory
from pancog.infra.cluster import parse_cluster, shard_range
from pancog.infra.config import Config, ConfigError

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
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, **options)  # type: ignore[arg-type]
        self.config = config
        self.db_path = config.database  # a SQLite file or a DATABASE_URL
        self.test_guild_id = config.test_guild_id
        self.trimmer = memory.Trimmer(config.malloc_trim_seconds)

    async def setup_hook(self) -> None:
        self.trimmer.start()
        # The extension is pancog.adapter.extension, not the package: unloading an extension purges its submodules from
        # sys.modules, and the engine, services and views must keep one identity across a reload or restart.
        await self.load_extension(EXTENSION)
        if self.test_guild_id:
            guild = discord.Object(id=self.test_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()

    async def on_ready(self) -> None:
        log.info("ready as %s in %d guild(s)", self.user, len(self.guilds))
        if self.application_id is not None:  # the link an admin needs, with this application's id filled in
            log.info("invite me to a server: %s", invite_url(self.application_id))

    async def close(self) -> None:
        await self.trimmer.stop()
        await super().close()


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


class PanShardedBot(PanBot, commands.AutoShardedBot):
    """PanBot over several shards (``shard_ids`` of ``shard_count``), one process of a cluster."""

    def __init__(self, *, shard_ids: Sequence[int], shard_count: int, **options: object) -> None:
        super().__init__(shard_ids=list(shard_ids), shard_count=shard_count, **options)  # type: ignore[arg-type]
        self.pacer: IdentifyPacer | None = None

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
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


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """``--shards N [--cluster k/M]`` → namespace with ``shard_count`` and ``shard_ids`` (None: unsharded)."""
    parser = argparse.ArgumentParser(prog="bot.py", description="The Panguingue bot (environment: see .env.example).")
    parser.add_argument("--shards", type=int, default=None, help="total shard count N")
    parser.add_argument("--cluster", default=None, help="k/M: this process runs the k-th of M shard ranges")
    args = parser.parse_args(list(argv))
    args.shard_count, args.shard_ids = None, None
    if args.cluster is not None and args.shards is None:
        parser.error("--cluster needs --shards")
    if args.shards is not None:
        if args.shards < 1:
            parser.error("--shards must be at least 1")
        args.shard_count = args.shards
        index, count = (0, 1) if args.cluster is None else _cluster_or_exit(parser, args.cluster)
        try:
            args.shard_ids = shard_range(index, count, args.shards)
        except ValueError as exc:
            parser.error(str(exc))
    return args


def _cluster_or_exit(parser: argparse.ArgumentParser, text: str) -> tuple[int, int]:
    try:
        return parse_cluster(text)
    except ValueError as exc:
        parser.error(str(exc))


def build_bot(
    config: Config,
    *,
    shard_count: int | None = None,
    shard_ids: Sequence[int] | None = None,
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


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
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
    configure_allocator(config)  # before any thread starts: the arena cap applies only to threads started later
    configure_switch_interval(config.gil_switch_ms)
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    faulthandler.enable()  # a crash in native code (a fatal signal) leaves its Python stacks on stderr, not silence
    token = config.discord_token
    if not token:
        print(SETUP_HELP, file=sys.stderr)  # noqa: T201
        return 2
    apply_endpoint_overrides(config.discord_api_base, config.discord_gateway_url)
    bot = build_bot(config, shard_count=args.shard_count, shard_ids=args.shard_ids)

    async def runner() -> None:
        async with bot:
            await bot.start(token)

    try:
        asyncio.run(runner())
    except discord.LoginFailure:
        print("Discord refused the token (DISCORD_TOKEN). Reset it in the developer portal.", file=sys.stderr)  # noqa: T201
        return 3
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
