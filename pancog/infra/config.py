"""Every environment variable the product reads, read in one place into one typed, frozen :class:`Config`.

The entry points read it once (``bot.py``, the cluster launcher, ``python -m pancog.services.league``) and pass
the values down: no other module of ``pancog``, ``renderer`` or ``bot.py`` reads ``os.environ``
(``tests/infra/test_config.py``). A value that does not parse, or is out of range, is a :class:`ConfigError`
naming the variable, raised before the bot connects. An unset or empty variable takes its default. The table in
docs/operations.md, "Environment variables", lists them all.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar

from pancog.infra import collector, memory

__all__ = [
    "DEFAULT_DB_PATH",
    "ENV_RENDER_PARENT",
    "Config",
    "ConfigError",
    "EventLoopKind",
    "RenderMode",
    "default_render_threads",
    "environment",
    "export_render_parent",
    "render_parent",
]

T = TypeVar("T")
RenderMode = Literal["process", "thread"]
EventLoopKind = Literal["uvloop", "asyncio"]

DEFAULT_DB_PATH = "data/pan.sqlite3"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# Internal, not for admins: the bot's pid, set by the render queue for its forkserver, whose guard module reads it
# (render_parent) to die with the bot.
ENV_RENDER_PARENT = "PAN_RENDER_PARENT_PID"


class ConfigError(ValueError):
    """An environment variable holds a value the bot cannot use; the message names the variable."""


def default_render_threads() -> int:
    """Render workers when ``PAN_RENDER_THREADS`` is unset: ``min(2, cpu_count)``."""
    return max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """The environment, parsed. Field defaults are the product's defaults; ``Config.from_env({})`` is a bot with
    nothing set but its token."""

    # Discord
    discord_token: str = ""  # DISCORD_TOKEN: required to connect
    test_guild_id: int | None = None  # TEST_GUILD_ID: sync the commands to this guild only
    discord_api_base: str | None = None  # DISCORD_API_BASE: a REST proxy or a Discord-compatible server
    discord_gateway_url: str | None = None  # DISCORD_GATEWAY_URL
    guild_ready_timeout: float | None = None  # PAN_GUILD_READY_TIMEOUT (None: discord.py's 2 s)
    # Discord's global limit shared by every process through PostgreSQL (requests/s; 0: off, e.g. behind a REST
    # proxy that enforces it). Unused on SQLite: one process has nobody to share it with.
    rest_global_rate: float = 40.0  # PAN_REST_GLOBAL_RATE
    # storage
    db_path: str = DEFAULT_DB_PATH  # PAN_DB_PATH
    database_url: str | None = None  # DATABASE_URL: a postgresql:// URL, overrides PAN_DB_PATH
    # a cluster process's membership (pancog/infra/coord.py): heartbeat period, and the silence after which its
    # shard leases are free for a waiting process; the host's name in lease holders
    heartbeat_seconds: float = 2.0  # PAN_HEARTBEAT_SECONDS
    heartbeat_timeout: float = 10.0  # PAN_HEARTBEAT_TIMEOUT
    # SIGTERM: the most a stop (drain ≤ 10 s, the last writes, the leases' hand-over) may take before the process
    # gives up and exits STOP_GAVE_UP; under systemd's and Kubernetes' 30 s, so the log says why, not a SIGKILL
    stop_timeout: float = 20.0  # PAN_STOP_TIMEOUT
    host_name: str | None = None  # PAN_HOST_NAME: this host in lease holders (default: the hostname)
    pod_name: str | None = None  # POD_NAME, else HOSTNAME: bot.py --cluster pod/M takes k from its -<ordinal>
    shards: int | None = None  # PAN_SHARDS: the total shard count when bot.py --cluster is given without --shards
    # logs
    log_level: str = "INFO"  # PAN_LOG_LEVEL
    log_json: bool = False  # PAN_LOG_JSON=1
    # metrics and health (off by default)
    metrics_port: int | None = None  # PAN_METRICS_PORT: serve /metrics and /healthz on this port
    metrics_host: str = "0.0.0.0"  # noqa: S104 - PAN_METRICS_HOST: an orchestrator probes the pod's address
    # the process
    malloc_arenas: int = memory.DEFAULT_ARENAS  # PAN_MALLOC_ARENAS (0: the C library's default)
    malloc_trim_seconds: float = memory.DEFAULT_TRIM_SECONDS  # PAN_MALLOC_TRIM_SECONDS (0: never)
    gil_switch_ms: float = 1.0  # PAN_GIL_SWITCH_MS (0: Python's default)
    # the cyclic garbage collector (pancog/infra/collector.py): its thresholds (None: Python's own), and whether
    # the start-up heap is frozen out of its collections at the first ready
    gc_thresholds: tuple[int, int, int] | None = collector.DEFAULT_THRESHOLDS  # PAN_GC_THRESHOLDS
    gc_freeze: bool = True  # PAN_GC_FREEZE (0: off)
    # the event loop bot.py runs on: uvloop (libuv; asyncpg and aiohttp are built for it), or asyncio's own where
    # uvloop is not installed or to rule it out
    event_loop: EventLoopKind = "uvloop"  # PAN_EVENT_LOOP
    # rendering
    render_mode: RenderMode | None = None  # PAN_RENDER_MODE (None: processes where the platform has them)
    render_threads: int = dataclasses.field(default_factory=default_render_threads)  # PAN_RENDER_THREADS
    render_nice: int = 5  # PAN_RENDER_NICE (0-19)
    # a player's hand strip drawn on the event loop rather than by a worker (0: by the workers; renderq.render)
    render_hands_inline: bool = True  # PAN_RENDER_HANDS_INLINE
    # a table's board image is edited at most once per this many seconds (1-10), widened under load (renderq)
    board_interval: float = 1.0  # PAN_BOARD_INTERVAL
    # play
    deal_seed: int | None = None  # PAN_DEAL_SEED: reproducible deals (tests, benchmarks)
    time_bank_seconds: float = 120.0  # PAN_TIME_BANK_SECONDS
    idle_close_seconds: float = 1800.0  # PAN_IDLE_CLOSE_SECONDS
    clock_scale: float = 1.0  # PAN_CLOCK_SCALE (tests and benchmarks: every clock duration divided by it)
    bot_delay: float = 1.5  # PAN_BOT_DELAY: seconds a computer player "thinks"
    bot_next_hand_delay: float | None = 6.0  # PAN_BOT_NEXT_HAND_DELAY (None, "off": practice waits for Start)
    bot_hard_budget_ms: float = 500.0  # PAN_BOT_HARD_BUDGET_MS (at most 500)
    tourney_tick_seconds: float = 5.0  # PAN_TOURNEY_TICK
    season_check_seconds: float = 60.0  # PAN_SEASON_CHECK_SECONDS
    outbox_poll_seconds: float = 30.0  # PAN_OUTBOX_POLL_SECONDS: the slow tick that delivers what a crash left owed
    # the league web pages (pan-web): off unless a port is given
    web_port: int | None = None  # PAN_WEB_PORT: scripts/run starts pan-web beside the bot on this port
    web_host: str = "127.0.0.1"  # PAN_WEB_HOST: the address pan-web listens on (a reverse proxy in front)
    web_url: str | None = None  # PAN_WEB_URL: the public address of pan-web (default http://localhost:PORT)
    web_database_url: str | None = None  # PAN_WEB_DATABASE_URL: pan-web's read-only PostgreSQL role
    web_cache_seconds: float = 5.0  # PAN_WEB_CACHE_SECONDS: how long pan-web reuses a page it built

    @property
    def web_address(self) -> str | None:
        """The public base address of the league web pages, None when pan-web is off."""
        if self.web_url:
            return self.web_url.rstrip("/")
        return f"http://localhost:{self.web_port}" if self.web_port is not None else None

    @property
    def web_database(self) -> str:
        """What pan-web reads: its own read-only URL if set, else the bot's database (a SQLite file opened
        read-only)."""
        return self.web_database_url or self.database

    @property
    def database(self) -> str:
        """Where the bot's data lives: ``DATABASE_URL`` if set, else the SQLite file ``PAN_DB_PATH``."""
        return self.database_url or self.db_path

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Parse ``env`` (default: this process's environment). Raises :class:`ConfigError` on a bad value."""
        read = _Reader(os.environ if env is None else env)
        base = cls()
        return cls(
            discord_token=read.text("DISCORD_TOKEN", ""),
            test_guild_id=read.optional("TEST_GUILD_ID", int),
            discord_api_base=read.optional("DISCORD_API_BASE", str),
            discord_gateway_url=read.optional("DISCORD_GATEWAY_URL", str),
            guild_ready_timeout=read.optional("PAN_GUILD_READY_TIMEOUT", float, at_least=0.0),
            rest_global_rate=read.number("PAN_REST_GLOBAL_RATE", float, base.rest_global_rate, at_least=0.0),
            db_path=read.text("PAN_DB_PATH", DEFAULT_DB_PATH),
            database_url=read.optional("DATABASE_URL", str),
            heartbeat_seconds=read.number("PAN_HEARTBEAT_SECONDS", float, base.heartbeat_seconds, above=0.0),
            heartbeat_timeout=read.number("PAN_HEARTBEAT_TIMEOUT", float, base.heartbeat_timeout, above=0.0),
            stop_timeout=read.number("PAN_STOP_TIMEOUT", float, base.stop_timeout, above=0.0),
            host_name=read.optional("PAN_HOST_NAME", str),
            pod_name=read.optional("POD_NAME", str) or read.optional("HOSTNAME", str),
            shards=read.optional("PAN_SHARDS", int, at_least=1),
            log_level=read.choice("PAN_LOG_LEVEL", base.log_level, LOG_LEVELS, upper=True),
            log_json=read.choice("PAN_LOG_JSON", "0", ("0", "1")) == "1",
            metrics_port=_port(read, "PAN_METRICS_PORT", lowest=0),  # 0: any free port (tests)
            metrics_host=read.text("PAN_METRICS_HOST", base.metrics_host),
            malloc_arenas=read.number("PAN_MALLOC_ARENAS", int, base.malloc_arenas, at_least=0),
            malloc_trim_seconds=read.number("PAN_MALLOC_TRIM_SECONDS", float, base.malloc_trim_seconds, at_least=0.0),
            gil_switch_ms=read.number("PAN_GIL_SWITCH_MS", float, base.gil_switch_ms, at_least=0.0),
            gc_thresholds=_gc_thresholds(read, "PAN_GC_THRESHOLDS", base.gc_thresholds),
            gc_freeze=read.choice("PAN_GC_FREEZE", "1", ("0", "1")) == "1",
            event_loop=_event_loop(read.choice("PAN_EVENT_LOOP", base.event_loop, ("uvloop", "asyncio"), lower=True)),
            render_mode=_render_mode(read.choice("PAN_RENDER_MODE", "", ("", "process", "thread"), lower=True)),
            # at least one worker; never above the bot's priority, at most the kernel's lowest
            render_threads=max(1, read.number("PAN_RENDER_THREADS", int, default_render_threads())),
            render_nice=min(19, max(0, read.number("PAN_RENDER_NICE", int, base.render_nice))),
            render_hands_inline=read.choice("PAN_RENDER_HANDS_INLINE", "1", ("0", "1")) == "1",
            # below 1 s a busy table would run into Discord's limit of about 5 edits in 5 s per channel
            board_interval=min(10.0, read.number("PAN_BOARD_INTERVAL", float, base.board_interval, at_least=1.0)),
            deal_seed=read.optional("PAN_DEAL_SEED", int),
            time_bank_seconds=read.number("PAN_TIME_BANK_SECONDS", float, base.time_bank_seconds, at_least=0.0),
            idle_close_seconds=read.number("PAN_IDLE_CLOSE_SECONDS", float, base.idle_close_seconds, at_least=0.0),
            clock_scale=read.number("PAN_CLOCK_SCALE", float, base.clock_scale, above=0.0),
            bot_delay=read.number("PAN_BOT_DELAY", float, base.bot_delay, at_least=0.0),
            bot_next_hand_delay=read.number_or_off("PAN_BOT_NEXT_HAND_DELAY", base.bot_next_hand_delay),
            bot_hard_budget_ms=min(500.0, read.number("PAN_BOT_HARD_BUDGET_MS", float, base.bot_hard_budget_ms)),
            tourney_tick_seconds=max(0.05, read.number("PAN_TOURNEY_TICK", float, base.tourney_tick_seconds)),
            season_check_seconds=read.number("PAN_SEASON_CHECK_SECONDS", float, base.season_check_seconds, above=0.0),
            outbox_poll_seconds=read.number("PAN_OUTBOX_POLL_SECONDS", float, base.outbox_poll_seconds, above=0.0),
            web_port=_port(read, "PAN_WEB_PORT"),
            web_host=read.text("PAN_WEB_HOST", base.web_host),
            web_url=_web_url(read, "PAN_WEB_URL"),
            web_database_url=read.optional("PAN_WEB_DATABASE_URL", str),
            web_cache_seconds=read.number("PAN_WEB_CACHE_SECONDS", float, base.web_cache_seconds, at_least=0.0),
        )


def _port(read: _Reader, name: str, *, lowest: int = 1) -> int | None:
    port = read.optional(name, int, at_least=lowest)
    if port is not None and port > 65535:
        raise read.fail(name, f"must be a port number, {lowest} to 65535")
    return port


def _web_url(read: _Reader, name: str) -> str | None:
    url = read.optional(name, str)
    if url is not None and not url.startswith(("http://", "https://")):
        raise read.fail(name, "must start with http:// or https://")
    return url


def _event_loop(text: str) -> EventLoopKind:
    return "asyncio" if text == "asyncio" else "uvloop"


def _render_mode(text: str) -> RenderMode | None:
    return "process" if text == "process" else "thread" if text == "thread" else None


class _Reader:
    """Reads one variable at a time; every failure names its variable and the value it holds."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env

    def raw(self, name: str) -> str:
        return self.env.get(name, "").strip()

    def text(self, name: str, default: str) -> str:
        return self.raw(name) or default

    def fail(self, name: str, why: str) -> ConfigError:
        return ConfigError(f"{name}={self.raw(name)!r}: {why}")

    def optional(self, name: str, kind: Callable[[str], T], *, at_least: float | None = None) -> T | None:
        return self.parse(name, kind, at_least=at_least) if self.raw(name) else None

    def number(
        self,
        name: str,
        kind: Callable[[str], T],
        default: T,
        *,
        at_least: float | None = None,
        above: float | None = None,
    ) -> T:
        return self.parse(name, kind, at_least=at_least, above=above) if self.raw(name) else default

    def parse(
        self, name: str, kind: Callable[[str], T], *, at_least: float | None = None, above: float | None = None
    ) -> T:
        try:
            value = kind(self.raw(name))
        except ValueError:
            what = "a whole number" if kind is int else "a number" if kind is float else "valid"
            raise self.fail(name, f"must be {what}") from None
        if isinstance(value, int | float):
            if value != value:  # NaN compares unequal to itself
                raise self.fail(name, "must be a number")
            if at_least is not None and value < at_least:
                raise self.fail(name, f"must be at least {at_least:g}")
            if above is not None and value <= above:
                raise self.fail(name, f"must be more than {above:g}")
        return value

    def number_or_off(self, name: str, default: float | None) -> float | None:
        if self.raw(name).lower() in ("off", "none"):
            return None
        return self.number(name, float, default, at_least=0.0)

    def choice(
        self, name: str, default: str, choices: tuple[str, ...], *, upper: bool = False, lower: bool = False
    ) -> str:
        text = self.raw(name)
        text = text.upper() if upper else text.lower() if lower else text
        if not text:
            return default
        if text not in choices:
            raise self.fail(name, "must be one of " + ", ".join(c for c in choices if c))
        return text


def _gc_thresholds(read: _Reader, name: str, default: tuple[int, int, int] | None) -> tuple[int, int, int] | None:
    text = read.raw(name)
    if not text:
        return default
    try:
        return collector.parse_thresholds(text)
    except ValueError as exc:
        raise read.fail(name, f"must be {exc}") from None


def environment() -> dict[str, str]:
    """A copy of this process's whole environment, for the processes it starts (the cluster's bots)."""
    return dict(os.environ)


def export_render_parent(pid: int) -> None:
    """Tell the render forkserver (which inherits the environment) whose death it must not outlive."""
    os.environ[ENV_RENDER_PARENT] = str(pid)


def render_parent() -> int | None:
    """In the render forkserver: the pid of the bot that started it (None: not started by a bot)."""
    text = os.environ.get(ENV_RENDER_PARENT, "")
    return int(text) if text.isdigit() else None
