"""FakeDiscord: a local Discord (REST + gateway, aiohttp, 127.0.0.1) for the real discord.py client.

The payload shapes and the traps it honours are in /work/shared/DISCORD.md §8. The fake records every
REST call (``calls``), every payload that breaks Discord's limits (``violations``) and every route it
does not implement (``unhandled``); the pytest plugin fails a test on any violation or unhandled route.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import contextlib
import fnmatch
import hashlib
import json
import logging
import math
import re
import secrets
import socket
import time
import zlib
from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import WSMsgType, web, web_protocol, web_server

try:
    import zstandard
except ImportError:  # pragma: no cover - zstandard is in requirements.txt; without it discord.py asks for zlib
    zstandard = None

from . import limits
from .models import (
    EPHEMERAL,
    IS_COMPONENTS_V2,
    LOADING,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeRole,
    FakeScheduledEvent,
    FakeUser,
    RecordedFile,
    RestCall,
    iso_now,
    snowflake,
)

log = logging.getLogger("fakediscord")

ALL_PERMISSIONS = str((1 << 50) - 1)
# What a user-installed app may do where its bot is not: Discord lists attach files, embed links, mention
# everyone and use external emojis (and nothing that needs the bot in the channel).
USER_INSTALL_PERMISSIONS = str((1 << 15) | (1 << 14) | (1 << 17) | (1 << 18))
HEARTBEAT_INTERVAL_MS = 41250
ZLIB_SUFFIX = b"\x00\x00\xff\xff"
THREAD_NAME_MAX = 100
VOICE_CHANNEL, STAGE_CHANNEL = 2, 13
EVENT_NAME_MAX = 100  # the name, and an external event's location
EVENT_TEXT_MAX = 1000  # the description
ENTITY_STAGE, ENTITY_VOICE, ENTITY_EXTERNAL = 1, 2, 3
EVENT_SCHEDULED, EVENT_ACTIVE, EVENT_COMPLETED, EVENT_CANCELED = 1, 2, 3, 4
EVENT_TRANSITIONS = {EVENT_SCHEDULED: {EVENT_ACTIVE, EVENT_CANCELED}, EVENT_ACTIVE: {EVENT_COMPLETED}}
EVENT_FIELDS = frozenset(
    {
        "name",
        "description",
        "privacy_level",
        "scheduled_start_time",
        "scheduled_end_time",
        "entity_type",
        "entity_metadata",
        "channel_id",
        "status",
        "image",
    }
)
AUTO_ARCHIVE_MINUTES = frozenset({60, 1440, 4320, 10080})
NONCE_WINDOW = 180.0  # Discord: a repeated nonce (with enforce_nonce) returns the earlier message "for a few minutes"
IDENTIFY_WINDOW = 5.0  # Discord: one IDENTIFY per rate_limit_key (shard_id % max_concurrency) per 5 s
INTENT_GUILD_MEMBERS = 1 << 1  # privileged: GUILD_MEMBER_ADD/UPDATE/REMOVE
INTENT_SCHEDULED_EVENTS = 1 << 16  # GUILD_SCHEDULED_EVENT_*
FOLLOWUPS_USER_INSTALL_MAX = 5  # per interaction, when only the user's install authorized it
CONTEXT_GUILD, CONTEXT_BOT_DM, CONTEXT_PRIVATE = 0, 1, 2
GUILD_INSTALL, USER_INSTALL = 0, 1
# Events Discord sends only to sessions that asked for their intent.
EVENT_INTENTS = {
    "GUILD_MEMBER_UPDATE": INTENT_GUILD_MEMBERS,
    "GUILD_MEMBER_ADD": INTENT_GUILD_MEMBERS,
    "GUILD_MEMBER_REMOVE": INTENT_GUILD_MEMBERS,
    "GUILD_SCHEDULED_EVENT_CREATE": INTENT_SCHEDULED_EVENTS,
    "GUILD_SCHEDULED_EVENT_UPDATE": INTENT_SCHEDULED_EVENTS,
    "GUILD_SCHEDULED_EVENT_DELETE": INTENT_SCHEDULED_EVENTS,
    "GUILD_SCHEDULED_EVENT_USER_ADD": INTENT_SCHEDULED_EVENTS,
    "GUILD_SCHEDULED_EVENT_USER_REMOVE": INTENT_SCHEDULED_EVENTS,
}


class ApiError(Exception):
    """Raised by a route handler: becomes a JSON error response like Discord's."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message, self.errors = status, code, message, errors


@dataclass(slots=True)
class Fault:
    pattern: str  # fnmatch pattern on "METHOD /route/{template}" or "METHOD /concrete/path"
    status: int  # 429, 500, 502, ...
    remaining: int
    retry_after: float = 0.05
    is_global: bool = False


@dataclass(eq=False)
class Hold:
    """One request held by the fake (``fake.hold_next``): before its route runs (``after=False``: Discord never saw
    it) or after (``after=True``: Discord acted, the answer is not sent yet). A test waits for ``arrived``, does what
    it wants meanwhile (SIGKILL the bot), then releases it (``release()``). A request held before its route and released
    with ``drop=True`` is answered 500 without running it (its client died with it)."""

    pattern: str
    after: bool
    remaining: int = 1
    skip: int = 0  # matching calls let through before the held one (hold the 2nd: skip=1)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    dropped: bool = False
    calls: list[RestCall] = field(default_factory=list)

    def release(self, *, drop: bool = False) -> None:
        self.dropped = drop
        self.released.set()


@dataclass(slots=True)
class Request:
    method: str
    path: str
    route: str
    params: dict[str, str]
    query: dict[str, str]
    payload: Any
    files: list[RecordedFile]
    call: RestCall


@dataclass(eq=False)
class _Connection:
    ws: web.WebSocketResponse
    compressor: Any | None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    session: _Session | None = None
    flush_mode: Any = zlib.Z_SYNC_FLUSH
    peer: str = ""  # the client's address (tests of several hosts: which host's network it came from)

    def _flush(self) -> bytes:
        assert self.compressor is not None
        return bytes(self.compressor.flush(self.flush_mode))

    async def send(self, payload: dict[str, Any]) -> None:
        text = json.dumps(payload)
        async with self.lock:
            if self.compressor is not None:
                await self.ws.send_bytes(self.compressor.compress(text.encode()) + self._flush())
            else:
                await self.ws.send_str(text)


def _connection(ws: web.WebSocketResponse, compress: str | None) -> _Connection:
    """A gateway connection compressing as Discord does when asked: one zlib or zstd stream for the connection,
    flushed at the end of every message (discord.py asks for zstd-stream when ``zstandard`` is installed)."""
    if compress == "zlib-stream":
        return _Connection(ws=ws, compressor=zlib.compressobj())
    if compress == "zstd-stream" and zstandard is not None:
        stream = zstandard.ZstdCompressor().compressobj()
        return _Connection(ws=ws, compressor=stream, flush_mode=zstandard.COMPRESSOBJ_FLUSH_BLOCK)
    return _Connection(ws=ws, compressor=None)


@dataclass(eq=False)
class _Session:
    id: str
    seq: int = 0
    buffer: list[dict[str, Any]] = field(default_factory=list)
    conn: _Connection | None = None
    ended: bool = False
    shard: tuple[int, int] = (0, 1)  # (shard_id, num_shards) from IDENTIFY
    intents: int = 0

    def owns(self, guild_id: int | None) -> bool:
        """Discord routes a guild's events to shard ``(guild_id >> 22) % num_shards``; DMs to shard 0."""
        shard_id, count = self.shard
        return (shard_of(guild_id, count) if guild_id is not None else 0) == shard_id


Handler = Callable[[Request], Awaitable[Any]]


class GlobalMeter:
    """Counts the requests bound to the global limit (every process of the token; interaction endpoints exempt)
    over every sliding 1-second window: the most that arrived in any one second, and how many there were.

    Arrival times may come out of order (a request is stamped when the kernel received it, and handled later,
    possibly after requests that arrived after it: `_ArrivalStamps`), so the times are kept sorted and each new one
    is counted in every window that holds it."""

    def __init__(self, window: float = 1.0) -> None:
        self.window = window
        self.requests = 0
        self.max_per_window = 0
        self.max_at = 0.0  # when the busiest window ended (time.monotonic())
        self._times: list[float] = []

    def arrive(self, now: float) -> None:
        times = self._times
        bisect.insort(times, now)
        self.requests += 1
        busiest, at = busiest_containing(times, now, self.window)
        if busiest > self.max_per_window:
            self.max_per_window, self.max_at = busiest, at
        horizon = times[-1] - 4 * self.window  # a late stamp is late by far less than this
        if times[0] < horizon:
            del times[: bisect.bisect_left(times, horizon)]


def busiest_window(times: Iterable[float], window: float = 1.0) -> int:
    """The most of ``times`` in any sliding window, counted as the fake counts (a `GlobalMeter`): for the bench's
    figures of times taken elsewhere (read times, a packet capture's)."""
    meter = GlobalMeter(window)
    for t in sorted(times):
        meter.arrive(t)
    return meter.max_per_window


def busiest_containing(times: list[float], t: float, window: float = 1.0) -> tuple[int, float]:
    """The most of the sorted ``times`` in any window (u - ``window``, u] that holds ``t``, and its end u: the
    busiest window always ends at one of the times, so only those ending at ``t`` or up to ``window`` after it are
    counted."""
    best, best_at = 0, t
    first = bisect.bisect_left(times, t)
    for u in times[first : bisect.bisect_left(times, t + window)]:
        n = bisect.bisect_right(times, u) - bisect.bisect_right(times, u - window)
        if n > best:
            best, best_at = n, u
    return best, best_at


class _ArrivalStamps(web_protocol.RequestHandler):
    """aiohttp's handler of one connection, noting when each request reached the machine (``arrived``: when its
    first bytes were read, less how long before that the kernel had received them, `_received_ago`) and when the
    fake read them (``read_at``), so the fake counts a request when it reached it, as Discord does at its edge, and
    not when a busy fake got round to it. Counted when handled, or even when read, requests that reached it apart
    were counted together: the fake's event loop is also the load generator's in the bench and the test's in the
    e2e tests, and one busy for up to a second in the bench's warm-up read that second's requests at once (busiest
    window 50-57 counted when read, against 44-45 at arrival and 44 by a packet capture, `bench/pcap_global.py`:
    docs/performance.md). ``FakeDiscord._rest`` takes the stamps and `_clear_arrival` clears ``arrived`` when any
    answer is made (the next bytes stamp both anew); a client sends its next request on the connection only after
    the answer."""

    arrived: float | None = None
    read_at: float | None = None

    def data_received(self, data: bytes) -> None:
        if self.arrived is None:
            self.read_at = time.monotonic()
            self.arrived = self.read_at - _received_ago(self.transport)  # the latest segment's: these first bytes
        super().data_received(data)


_TCP_INFO_LAST_DATA_RECV = 52  # struct tcp_info: 8 bytes of states, 9 u32 counters, then last_data_sent, last_ack_sent


def _received_ago(transport: Any) -> float:
    """How long ago the kernel received this connection's latest bytes (``tcpi_last_data_recv`` of ``TCP_INFO``,
    in ms at the kernel's tick, 4 ms here): a request is stamped when it reached the machine, not when a busy event
    loop got round to reading it. 0 where the socket gives no TCP_INFO (not Linux, not TCP)."""
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is None or not hasattr(socket, "TCP_INFO"):
        return 0.0
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    except OSError:
        return 0.0
    if len(info) < _TCP_INFO_LAST_DATA_RECV + 4:
        return 0.0
    return int.from_bytes(info[_TCP_INFO_LAST_DATA_RECV : _TCP_INFO_LAST_DATA_RECV + 4], "little") / 1000


async def _clear_arrival(request: web.Request, _response: web.StreamResponse) -> None:
    """Once a request is answered (any route: an attachment, the status page), the next bytes on its connection are
    the next request's; without this a REST request after another route's on one connection kept that one's stamp."""
    protocol = request.protocol
    if isinstance(protocol, _ArrivalStamps):
        protocol.arrived = None


class _StampingServer(web_server.Server):
    def __call__(self) -> web_protocol.RequestHandler:
        return _ArrivalStamps(self, loop=self._loop, **self._kwargs)


class _StampingRunner(web.AppRunner):
    async def _make_server(self) -> web_server.Server:
        server = await super()._make_server()
        server.__class__ = _StampingServer  # the same object, making `_ArrivalStamps` for its connections
        return server


@dataclass(frozen=True, slots=True)
class Reopened:
    """A message was posted into an archived, unlocked thread, which Discord takes as activity and unarchives."""

    thread_id: int
    message_id: int
    archived_by: str | None  # "bot" (the bot's own PATCH archived it), "moderator", "auto"


def shard_of(guild_id: int, num_shards: int) -> int:
    """The shard a guild lives on: ``(guild_id >> 22) % num_shards`` (Discord's formula)."""
    return (guild_id >> 22) % num_shards


def _guild_id_of(data: dict[str, Any]) -> int | None:
    raw = data.get("guild_id")
    return int(raw) if raw is not None else None


class FakeDiscord:
    """A fake Discord with one application (the bot), guilds, channels, users and messages.

    Build the world (``add_user``, ``add_guild``, ``add_thread``) before the bot connects; start with
    ``await fake.start()``; point discord.py at ``fake.api_base`` / ``fake.gateway_url``.
    """

    def __init__(
        self,
        *,
        token: str = "fake-token",  # noqa: S107
        bot_name: str = "PanBot",
        shards: int = 1,
        global_limit: int | None = None,
        max_concurrency: int = 16,
        identify_window: float = IDENTIFY_WINDOW,
        install_types: tuple[int, ...] = (GUILD_INSTALL,),
    ) -> None:
        self.token = token
        # Sharding: /gateway/bot reports ``shards``; each IDENTIFY names [shard_id, num_shards] and gets
        # only the guilds (and guild events) of its shard. ``global_limit`` (e.g. 50): counted REST calls
        # per second across every connection of the bot token, past which the fake answers 429 global.
        self.shard_count = shards
        self.global_limit = global_limit
        self.global_429s = 0
        self.global_meter = GlobalMeter()
        self._global_window: list[float] = []
        # IDENTIFY pacing: /gateway/bot advertises ``max_concurrency`` (16 by default, as Discord gives large bots,
        # so test shards identify at once); an IDENTIFY less than ``identify_window`` s after the previous one of its
        # rate_limit_key (shard_id % max_concurrency) is recorded in ``identify_violations`` (Discord's rule).
        self.max_concurrency = max_concurrency
        self.identify_window = identify_window
        # A gateway outage (``await fake.gateway_down()``): live sockets are closed and new ones refused with 503
        # until ``fake.gateway_outage = False``; discord.py keeps retrying meanwhile.
        self.gateway_outage = False
        self.identify_log: list[tuple[float, int, int]] = []  # (time.monotonic(), shard_id, rate_limit_key)
        self.identify_violations: list[str] = []
        # The installation contexts the app is configured for: what a global command without integration_types gets.
        self.install_types = install_types
        self.now: Callable[[], datetime] = lambda: datetime.now(UTC)  # scheduled events: "in the future" vs this
        self.role_grants: collections.Counter[tuple[int, int, int]] = collections.Counter()
        self.reopened: list[Reopened] = []
        # A member's permissions in the channel of their interactions (``member.permissions``): every permission
        # unless a test sets fewer here (e.g. a plain member without Manage Server, who is not a moderator).
        self.member_permissions: dict[int, int] = {}
        self.bot_user = FakeUser(id=snowflake(), name=bot_name, bot=True)
        self.application_id = self.bot_user.id
        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.attachments: dict[int, FakeAttachment] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self._by_token: dict[str, FakeInteraction] = {}
        self.calls: list[RestCall] = []
        # Called with each REST call the fake accepted (2xx), at once, before the bot hears back: a test that checks
        # payloads against the moment they were sent (the leak oracle) reads the world as it is then.
        self.on_accepted: list[Callable[[RestCall], None]] = []
        self.violations: list[str] = []
        self.unhandled: list[str] = []
        self.faults: list[Fault] = []
        self.holds: list[Hold] = []
        # Messages created with a nonce and enforce_nonce: (channel, author, nonce) -> (message id, when). Discord
        # returns the existing message for a repeated nonce within a few minutes instead of creating another.
        self.nonces: dict[tuple[int, int, str], tuple[int, float]] = {}
        self.nonce_window = NONCE_WINDOW
        self.identified_from: list[tuple[int, str]] = []  # (shard, the client's address) of every IDENTIFY
        self.gateway_log: list[str] = []  # "identify <sid>", "resume <sid> replayed=3", "invalid <sid>"
        self.identified = asyncio.Event()
        self._sessions: dict[str, _Session] = {}
        self._connections: set[_Connection] = set()
        self.inflight = 0
        self.last_activity = time.monotonic()  # last REST request or gateway dispatch
        self.retry_expected_until = 0.0  # after an injected 429/5xx, the client is sleeping before its retry
        self.heartbeat_interval = HEARTBEAT_INTERVAL_MS
        self.host = "127.0.0.1"  # start(host=...): the address it listens on, and every URL it hands out names
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._routes: list[tuple[str, str, re.Pattern[str], Handler]] = []
        self._register_routes()

    # ------------------------------------------------------------------ world
    def add_user(self, name: str, *, bot: bool = False) -> FakeUser:
        user = FakeUser(id=snowflake(), name=name, bot=bot)
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str = "Pan Test",
        *,
        channels: tuple[str, ...] = ("general",),
        members: list[FakeUser] | None = None,
        shard: int | None = None,
        bot_member: bool = True,
        locale: str = "en-US",
    ) -> FakeGuild:
        """A guild; ``shard=k`` picks an id that lives on shard k of ``shard_count``. ``bot_member=False``: a guild
        the bot is not in (members may still use the app if they installed it themselves)."""
        members = members or []
        owner = members[0] if members else self.bot_user
        guild_id = snowflake()
        if shard is not None:
            while shard_of(guild_id, self.shard_count) != shard:
                guild_id += 1 << 22
        guild = FakeGuild(id=guild_id, name=name, owner_id=owner.id, locale=locale)
        guild.member_ids = [*([self.bot_user.id] if bot_member else []), *(m.id for m in members)]
        for position, channel_name in enumerate(channels):
            channel = FakeChannel(id=snowflake(), type=0, name=channel_name, guild_id=guild.id, position=position)
            guild.channels.append(channel)
            self.channels[channel.id] = channel
        self.guilds[guild.id] = guild
        return guild

    def add_thread(self, parent: FakeChannel, name: str, *, private: bool = False) -> FakeChannel:
        thread = FakeChannel(
            id=snowflake(),
            type=12 if private else 11,
            name=name,
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
        )
        self.channels[thread.id] = thread
        if parent.guild_id is not None:
            self.guilds[parent.guild_id].channels.append(thread)
        return thread

    def add_role(self, guild: FakeGuild, name: str, *, role_id: int | None = None, grantable: bool = True) -> FakeRole:
        """A role of ``guild`` (before the bot connects, or announce it with ``await fake.role_created(role)``).
        ``grantable=False``: the role sits above the bot's highest role, so granting it is 403 / 50013."""
        role = FakeRole(id=role_id or snowflake(), name=name, position=len(guild.roles) + 1, grantable=grantable)
        guild.roles[role.id] = role
        return role

    async def role_created(self, guild: FakeGuild, role: FakeRole) -> None:
        """GUILD_ROLE_CREATE for a role added after the bot connected."""
        await self.dispatch("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.to_json()})

    def roles_of(self, guild: FakeGuild, user: FakeUser) -> set[int]:
        return set(guild.member_roles.get(user.id, set()))

    def grants(self, guild: FakeGuild, user: FakeUser, role_id: int) -> int:
        """How many times ``role_id`` was actually granted to ``user`` (each time while they did not have it)."""
        return self.role_grants[(guild.id, user.id, role_id)]

    def ensure_dm(self, user: FakeUser) -> FakeChannel:
        """The DM channel between ``user`` and the bot (interaction context 1), created if needed."""
        channel = self.dm_channel(user)
        if channel is None:
            channel = FakeChannel(id=snowflake(), type=1, recipient_id=user.id)
            self.channels[channel.id] = channel
        return channel

    def add_private_channel(self, users: list[FakeUser], *, group: bool = True, name: str = "") -> FakeChannel:
        """A group DM (or, ``group=False``, a DM between two users) the bot is not in: interaction context 2."""
        if not group and len(users) != 2:
            raise ValueError("a DM between users has exactly two")
        channel = FakeChannel(
            id=snowflake(), type=3 if group else 1, name=name, recipient_ids=tuple(u.id for u in users)
        )
        self.channels[channel.id] = channel
        return channel

    def bot_in(self, guild: FakeGuild | None) -> bool:
        return guild is not None and self.bot_user.id in guild.member_ids

    def guild_of(self, channel: FakeChannel) -> FakeGuild | None:
        return self.guilds.get(channel.guild_id) if channel.guild_id is not None else None

    def dm_channel(self, user: FakeUser) -> FakeChannel | None:
        for channel in self.channels.values():
            if channel.type == 1 and channel.recipient_id == user.id and not channel.is_private:
                return channel
        return None

    # ------------------------------------------------------------------ test controls
    def close_dms(self, user: FakeUser, closed: bool = True) -> None:
        """DMs to ``user`` now fail with 403 / 50007 (Cannot send messages to this user)."""
        user.dms_closed = closed

    def deny(self, channel: FakeChannel, denied: bool = True) -> None:
        """Sending or editing messages in ``channel`` now fails with 403 / 50013 Missing Permissions."""
        channel.denied = denied

    def deny_events(self, guild: FakeGuild, denied: bool = True) -> None:
        """The bot lacks Manage Events in ``guild``: creating or editing a scheduled event is 403 / 50013."""
        guild.events_denied = denied

    def fail_next(
        self, pattern: str, *, status: int = 429, count: int = 1, retry_after: float = 0.05, is_global: bool = False
    ) -> Fault:
        """The next ``count`` calls matching ``pattern`` (e.g. ``"POST /channels/*/messages"``) get ``status``."""
        fault = Fault(pattern=pattern, status=status, remaining=count, retry_after=retry_after, is_global=is_global)
        self.faults.append(fault)
        return fault

    def hold_next(self, pattern: str, *, after: bool = False, count: int = 1, skip: int = 0) -> Hold:
        """Hold the next ``count`` calls matching ``pattern`` (fnmatch, as ``fail_next``), after letting ``skip`` of
        them through, until ``hold.release()``: before the route runs, or (``after=True``) after it ran and before
        the answer goes out."""
        hold = Hold(pattern=pattern, after=after, remaining=count, skip=skip)
        self.holds.append(hold)
        return hold

    async def drop_gateway(self, code: int = 4000) -> None:
        """Close every live gateway socket; discord.py resumes and gets the missed events replayed."""
        for conn in list(self._connections):
            if conn.session is not None:
                conn.session.conn = None
            self.gateway_log.append(f"drop code={code}")
            await conn.ws.close(code=code)

    async def gateway_down(self) -> None:
        """Discord's gateway goes down: every socket closes and reconnections are refused until
        ``gateway_outage`` is set back to False."""
        self.gateway_outage = True
        await self.drop_gateway()

    async def end_sessions(self, shards: Collection[int], code: int = 4009) -> None:
        """Close and end every live session of ``shards``, as Discord does to a connection that stopped sending
        heartbeats (a hung process): its events go nowhere until a process identifies those shards again."""
        for session in list(self._sessions.values()):
            if session.ended or session.shard[0] not in shards:
                continue
            session.ended = True
            conn, session.conn = session.conn, None
            self.gateway_log.append(f"ended {session.id} shard={session.shard[0]} code={code}")
            if conn is not None:
                conn.session = None
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.ws.close(code=code), 1.0)

    async def invalidate_sessions(self) -> None:
        """Send op 9 (d=false): the client forgets its session and identifies again."""
        for conn in list(self._connections):
            if conn.session is not None:
                self.gateway_log.append(f"invalid {conn.session.id}")
                conn.session.ended = True
                conn.session.conn = None
                conn.session = None
            await conn.send({"op": 9, "d": False})

    async def delete_channel(self, channel: FakeChannel) -> None:
        """A moderator deletes the channel (CHANNEL_DELETE or THREAD_DELETE)."""
        self.channels.pop(channel.id, None)
        guild = self.guild_of(channel)
        if guild is not None and channel in guild.channels:
            guild.channels.remove(channel)
        if channel.is_thread:
            data = {"id": str(channel.id), "guild_id": str(channel.guild_id), "parent_id": str(channel.parent_id)}
            await self.dispatch("THREAD_DELETE", data | {"type": channel.type})
        else:
            await self.dispatch("CHANNEL_DELETE", channel.to_json(self.users))

    async def archive_thread(self, thread: FakeChannel, *, locked: bool = False, by: str = "moderator") -> None:
        """A moderator (``by="moderator"``) or Discord's inactivity timer (``by="auto"``) archives a thread
        (THREAD_UPDATE)."""
        thread.archived, thread.locked, thread.archived_by = True, locked or thread.locked, by
        await self.dispatch("THREAD_UPDATE", thread.to_json(self.users))

    async def delete_message(self, message: FakeMessage) -> None:
        """A moderator deletes a message (MESSAGE_DELETE)."""
        message.deleted = True
        data = {"id": str(message.id), "channel_id": str(message.channel_id)}
        if message.guild_id is not None:
            data["guild_id"] = str(message.guild_id)
        await self.dispatch("MESSAGE_DELETE", data)

    async def user_message(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """A user posts a plain message (MESSAGE_CREATE)."""
        message = FakeMessage(
            id=snowflake(), channel_id=channel.id, guild_id=channel.guild_id, author_id=user.id, content=content
        )
        self.messages[message.id] = message
        await self.dispatch("MESSAGE_CREATE", self._message_event(message))
        return message

    # ------------------------------------------------------------------ queries
    def channel_messages(self, channel: FakeChannel, *, include_ephemeral: bool = False) -> list[FakeMessage]:
        return [
            m
            for m in self.messages.values()
            if m.channel_id == channel.id and not m.deleted and (include_ephemeral or not m.ephemeral)
        ]

    def find_command(self, guild_id: int | None, name: str) -> dict[str, Any] | None:
        for command in [*self.guild_commands.get(guild_id or 0, []), *self.global_commands]:
            if command["name"] == name and command.get("type", 1) == 1:
                return command
        return None

    def busy(self) -> bool:
        """True while a REST call is in flight or a dispatched interaction is unanswered."""
        if self.inflight or time.monotonic() < self.retry_expected_until:
            return True
        return any(not i.settled and not i.abandoned for i in self.interactions.values())

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def status_url(self) -> str:
        """The fake's own counters as JSON (``status()``); outside /api, so never a call the bot made."""
        return f"{self.base_url}/_fake/status"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway/"

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway/", self._gateway)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/attachments/{attachment_id}/{filename}", self._attachment)
        app.router.add_get("/_fake/status", self._status)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        app.router.add_route("*", "/{tail:.*}", self._unknown)
        app.on_response_prepare.append(_clear_arrival)  # every answer, whatever the route: the next bytes are anew
        self._runner = _StampingRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        self.host = host
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        for conn in list(self._connections):
            await conn.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------------ gateway
    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a DISPATCH (op 0) to every live session that owns the event's guild (DMs: shard 0),
        buffering it for a RESUME."""
        guild_id = _guild_id_of(data)
        if guild_id is not None and event != "INTERACTION_CREATE" and not self.bot_in(self.guilds.get(guild_id)):
            return  # a guild the bot is not in sends it nothing but the interactions of a user-installed app
        intent = EVENT_INTENTS.get(event, 0)
        for session in list(self._sessions.values()):
            if not session.ended and session.owns(guild_id) and (not intent or session.intents & intent):
                await self._send_dispatch(session, event, data)

    def dispatched_seq(self, session_id: str) -> int | None:
        """The sequence number of the last event sent on a live session (None: no such live session). A client
        whose ``ws.sequence`` is lower has events still on the wire or unread."""
        session = self._sessions.get(session_id)
        return session.seq if session is not None and not session.ended else None

    def sessions_by_shard(self) -> dict[int, int]:
        """Live (not ended) sessions per shard id: which shards are connected right now."""
        out: dict[int, int] = {}
        for session in self._sessions.values():
            if not session.ended and session.conn is not None:
                out[session.shard[0]] = out.get(session.shard[0], 0) + 1
        return out

    async def _send_dispatch(self, session: _Session, event: str, data: dict[str, Any]) -> None:
        self.last_activity = time.monotonic()
        session.seq += 1
        payload = {"op": 0, "t": event, "s": session.seq, "d": data}
        session.buffer.append(payload)
        conn = session.conn
        if conn is not None and not conn.ws.closed:
            try:
                await conn.send(payload)
            except (ConnectionError, RuntimeError):
                session.conn = None

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        if self.gateway_outage:  # Discord's gateway is down: the upgrade is refused, clients back off and retry
            return web.Response(status=503, text="gateway unavailable")
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        conn = _connection(ws, request.query.get("compress"))
        conn.peer = request.remote or ""
        self._connections.add(conn)
        try:
            await conn.send({"op": 10, "s": None, "t": None, "d": {"heartbeat_interval": self.heartbeat_interval}})
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                payload = json.loads(msg.data)
                await self._gateway_op(conn, payload.get("op"), payload.get("d"))
        finally:
            self._connections.discard(conn)
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
                if ws.close_code == 1000:  # the client closed for good (bot.close())
                    session.ended = True
        return ws

    async def _gateway_op(self, conn: _Connection, op: int | None, d: Any) -> None:
        if op == 1:
            await conn.send({"op": 11, "s": None, "t": None, "d": None})
        elif op == 2:
            if d.get("token") != self.token:
                await conn.ws.close(code=4004, message=b"Authentication failed.")
                return
            shard_id, count = d.get("shard") or (0, 1)
            if not 0 <= shard_id < count:
                await conn.ws.close(code=4010, message=b"Invalid shard.")
                return
            if count != self.shard_count and count > 1:
                await conn.ws.close(code=4011, message=b"Sharding required.")
                return
            self._pace_identify(shard_id)
            session = _Session(id=secrets.token_hex(8), shard=(shard_id, count), intents=int(d.get("intents") or 0))
            self._sessions[session.id] = session
            conn.session, session.conn = session, conn
            self.gateway_log.append(f"identify {session.id} shard={shard_id}/{count}")
            self.identified_from.append((shard_id, conn.peer))
            await self._send_dispatch(session, "READY", self._ready(session))
            for guild in self.guilds.values():
                if session.owns(guild.id) and self.bot_in(guild):
                    await self._send_dispatch(session, "GUILD_CREATE", self._guild_create(guild))
            self.identified.set()
        elif op == 6:
            session = self._sessions.get(d.get("session_id", ""))
            if session is None or session.ended or d.get("token") != self.token:
                self.gateway_log.append(f"invalid {d.get('session_id')}")
                await conn.send({"op": 9, "s": None, "t": None, "d": False})
                return
            conn.session, session.conn = session, conn
            missed = [p for p in session.buffer if p["s"] > (d.get("seq") or 0)]
            self.gateway_log.append(f"resume {session.id} replayed={len(missed)}")
            for payload in missed:
                await conn.send(payload)
            await self._send_dispatch(session, "RESUMED", {})
        elif op == 8:
            guild_ids = d.get("guild_id")
            for gid in guild_ids if isinstance(guild_ids, list) else [guild_ids]:
                guild = self.guilds.get(int(gid))
                if guild is not None and conn.session is not None:
                    chunk = {
                        "guild_id": str(guild.id),
                        "members": [self._member(self.users[m], guild) for m in guild.member_ids],
                        "chunk_index": 0,
                        "chunk_count": 1,
                        "nonce": d.get("nonce"),
                    }
                    await self._send_dispatch(conn.session, "GUILD_MEMBERS_CHUNK", chunk)

    def _pace_identify(self, shard_id: int) -> None:
        """Record the IDENTIFY; one that comes less than ``identify_window`` s after the previous IDENTIFY of its
        rate_limit_key (``shard_id % max_concurrency``), from any process, is a violation of Discord's pacing."""
        now = time.monotonic()
        key = shard_id % max(1, self.max_concurrency)
        previous = next((at for at, _, k in reversed(self.identify_log) if k == key), None)
        self.identify_log.append((now, shard_id, key))
        if previous is not None and now - previous < self.identify_window:
            self.identify_violations.append(
                f"shard {shard_id} identified {now - previous:.3f}s after the previous IDENTIFY of rate_limit_key "
                f"{key} (max_concurrency {self.max_concurrency}: one per {self.identify_window:g}s)"
            )

    def status(self) -> dict[str, Any]:
        """The counters a test in another process reads (``GET /_fake/status`` on the fake's port)."""
        meter = self.global_meter
        return {
            "global": {
                "limit": self.global_limit,
                "requests": meter.requests,
                "max_per_window": meter.max_per_window,
                "window_seconds": meter.window,
                "responses_429": self.global_429s,
            },
            "identify": {
                "max_concurrency": self.max_concurrency,
                "window_seconds": self.identify_window,
                "count": len(self.identify_log),
                "shards": [shard for _, shard, _ in self.identify_log],
                "violations": list(self.identify_violations),
            },
            "sessions_by_shard": {str(k): v for k, v in self.sessions_by_shard().items()},
            "violations": list(self.violations),
            "unhandled": list(self.unhandled),
            "calls": len(self.calls),
        }

    def _ready(self, session: _Session) -> dict[str, Any]:
        return {
            "v": 10,
            "user": self.bot_user.to_json() | {"verified": True, "mfa_enabled": False, "flags": 0},
            "session_id": session.id,
            "resume_gateway_url": self.gateway_url,
            "guilds": [
                {"id": str(g), "unavailable": True}
                for g, guild in self.guilds.items()
                if session.owns(g) and self.bot_in(guild)
            ],
            "shard": list(session.shard),
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
        }

    def _permissions_of(self, user: FakeUser) -> str:
        found = self.member_permissions.get(user.id)
        return ALL_PERMISSIONS if found is None else str(found)

    def _member(self, user: FakeUser, guild: FakeGuild | None = None) -> dict[str, Any]:
        roles = sorted(guild.member_roles.get(user.id, set())) if guild is not None else []
        return {
            "user": user.to_json(),
            "roles": [str(r) for r in roles],
            "joined_at": iso_now(),
            "flags": 0,
            "deaf": False,
            "mute": False,
            "nick": None,
            "avatar": None,
            "pending": False,
            "premium_since": None,
            "communication_disabled_until": None,
        }

    @staticmethod
    def _everyone(guild: FakeGuild) -> dict[str, Any]:
        return {
            "id": str(guild.id),
            "name": "@everyone",
            "permissions": ALL_PERMISSIONS,
            "position": 0,
            "color": 0,
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }

    def _guild_create(self, guild: FakeGuild) -> dict[str, Any]:
        return {
            "id": str(guild.id),
            "name": guild.name,
            "owner_id": str(guild.owner_id),
            "icon": None,
            "features": [],
            "roles": [self._everyone(guild), *(r.to_json() for r in guild.roles.values())],
            "emojis": [],
            "stickers": [],
            "channels": [c.to_json() for c in guild.channels if not c.is_thread],
            "threads": [c.to_json() for c in guild.channels if c.is_thread],
            "members": [self._member(self.users[m], guild) for m in guild.member_ids],
            "member_count": len(guild.member_ids),
            "large": False,
            "unavailable": False,
            "joined_at": iso_now(),
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [self._event_json(e) for e in guild.scheduled_events.values()],
            "soundboard_sounds": [],
            "preferred_locale": guild.locale,
            "premium_tier": 0,
            "verification_level": 0,
            "explicit_content_filter": 0,
            "default_message_notifications": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "system_channel_flags": 0,
        }

    # ------------------------------------------------------------------ interactions (driven by tests)
    async def create_interaction(
        self,
        *,
        type: int,  # Discord's field name
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        label: str,
        message: FakeMessage | None = None,
        owners: dict[str, str] | None = None,
        origin: FakeInteraction | None = None,
    ) -> FakeInteraction:
        """Dispatch INTERACTION_CREATE and return the record the bot's answers will fill in.

        The context (0 guild, 1 the bot's DM, 2 a private channel) follows from ``channel``. ``owners`` is
        ``authorizing_integration_owners`` ({"0": guild id} for the guild install, {"1": user id} for the user's
        own); by default the interaction that produced ``message`` (or ``origin``: the one that opened a modal)
        passes its owners on, as Discord does for the components of a message, else the app's guild install
        where its bot is, else the user's install. ``locale`` is the user's, ``guild_locale`` the guild's."""
        context = self.context_of(channel)
        if origin is None and message is not None and message.interaction_id is not None:
            origin = self.interactions.get(message.interaction_id)
        if owners is None:
            owners = dict(origin.owners) if origin is not None else self.default_owners(channel, user)
        guild = self.guild_of(channel)
        interaction = FakeInteraction(
            id=snowflake(),
            token=f"tok-{secrets.token_hex(12)}",
            type=type,
            user_id=user.id,
            channel_id=channel.id,
            guild_id=channel.guild_id,
            label=label,
            data=data,
            message_id=message.id if message else None,
            context=context,
            owners=owners,
            locale=user.locale,
        )
        self.interactions[interaction.id] = interaction
        self._by_token[interaction.token] = interaction
        bot_here = self.bot_in(guild) if guild is not None else context == CONTEXT_BOT_DM
        payload: dict[str, Any] = {
            "id": str(interaction.id),
            "application_id": str(self.application_id),
            "type": type,
            "token": interaction.token,
            "version": 1,
            "data": data,
            "channel_id": str(channel.id),
            "channel": channel.to_json(self.users),
            "app_permissions": ALL_PERMISSIONS if bot_here else USER_INSTALL_PERMISSIONS,
            "locale": user.locale,
            "entitlements": [],
            "attachment_size_limit": limits.FILE_SIZE_MAX,
            "authorizing_integration_owners": owners,
            "context": context,
        }
        if guild is not None:
            payload |= {
                "guild_id": str(guild.id),
                "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
                "guild_locale": guild.locale,
                "member": self._member(user, guild) | {"permissions": self._permissions_of(user)},
            }
        else:
            payload["user"] = user.to_json()
        if message is not None:
            payload["message"] = message.to_json(self.users[message.author_id])
        interaction.dispatched_at = time.monotonic()
        await self.dispatch("INTERACTION_CREATE", payload)
        return interaction

    def context_of(self, channel: FakeChannel) -> int:
        """The interaction context of a channel: 0 a guild's, 1 the bot's DM, 2 a private channel without it."""
        if channel.guild_id is not None:
            return CONTEXT_GUILD
        return CONTEXT_PRIVATE if channel.is_private else CONTEXT_BOT_DM

    def default_owners(self, channel: FakeChannel, user: FakeUser) -> dict[str, str]:
        """The installation an interaction comes through when the test names none: the guild install where the bot
        is (Discord's value for it is the guild id, or "0" in the bot's DM), else the user's own install."""
        context = self.context_of(channel)
        if context == CONTEXT_BOT_DM:
            return {str(GUILD_INSTALL): "0"}
        if context == CONTEXT_GUILD and self.bot_in(self.guild_of(channel)):
            return {str(GUILD_INSTALL): str(channel.guild_id)}
        return {str(USER_INSTALL): str(user.id)}

    # ------------------------------------------------------------------ REST plumbing
    def _register_routes(self) -> None:
        table: list[tuple[str, str, Handler]] = [
            ("GET", "/users/@me", self._get_me),
            ("GET", "/oauth2/applications/@me", self._get_application),
            ("GET", "/applications/@me", self._get_application),
            ("GET", "/gateway", self._get_gateway),
            ("GET", "/gateway/bot", self._get_gateway),
            ("GET", "/applications/{app_id}/commands", self._get_commands),
            ("PUT", "/applications/{app_id}/commands", self._put_commands),
            ("GET", "/applications/{app_id}/guilds/{guild_id}/commands", self._get_commands),
            ("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", self._put_commands),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self._callback),
            ("POST", "/webhooks/{app_id}/{token}", self._followup),
            ("GET", "/webhooks/{app_id}/{token}/messages/{message_id}", self._webhook_get),
            ("PATCH", "/webhooks/{app_id}/{token}/messages/{message_id}", self._webhook_edit),
            ("DELETE", "/webhooks/{app_id}/{token}/messages/{message_id}", self._webhook_delete),
            ("GET", "/channels/{channel_id}", self._get_channel),
            ("PATCH", "/channels/{channel_id}", self._edit_channel),
            ("DELETE", "/channels/{channel_id}", self._delete_channel),
            ("GET", "/channels/{channel_id}/messages", self._history),
            ("POST", "/channels/{channel_id}/messages", self._post_message),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self._edit_message),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_message),
            ("POST", "/channels/{channel_id}/typing", self._no_content),
            ("PUT", "/channels/{channel_id}/pins/{message_id}", self._no_content),
            ("DELETE", "/channels/{channel_id}/pins/{message_id}", self._no_content),
            ("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", self._no_content),
            ("POST", "/channels/{channel_id}/threads", self._create_thread),
            ("POST", "/channels/{channel_id}/messages/{message_id}/threads", self._create_thread),
            ("PUT", "/channels/{channel_id}/thread-members/{user_id}", self._thread_member),
            ("DELETE", "/channels/{channel_id}/thread-members/{user_id}", self._thread_member),
            ("POST", "/users/@me/channels", self._create_dm),
            ("GET", "/users/{user_id}", self._get_user),
            ("GET", "/guilds/{guild_id}", self._get_guild),
            ("GET", "/guilds/{guild_id}/channels", self._get_guild_channels),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member),
            ("GET", "/guilds/{guild_id}/roles", self._get_roles),
            ("PUT", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}", self._add_member_role),
            ("DELETE", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}", self._remove_member_role),
            ("GET", "/guilds/{guild_id}/scheduled-events", self._get_events),
            ("POST", "/guilds/{guild_id}/scheduled-events", self._create_event),
            ("GET", "/guilds/{guild_id}/scheduled-events/{event_id}", self._get_event),
            ("PATCH", "/guilds/{guild_id}/scheduled-events/{event_id}", self._edit_event),
            ("DELETE", "/guilds/{guild_id}/scheduled-events/{event_id}", self._delete_event),
            ("GET", "/guilds/{guild_id}/scheduled-events/{event_id}/users", self._event_users),
        ]
        for method, template, handler in table:
            pattern = re.escape(template).replace(r"\{", "{").replace(r"\}", "}")
            regex = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$")
            self._routes.append((method, template, regex, handler))

    def _match(self, method: str, path: str) -> tuple[str, dict[str, str], Handler] | None:
        for route_method, template, regex, handler in self._routes:
            if route_method != method:
                continue
            found = regex.match(path)
            if found:
                return template, found.groupdict(), handler
        return None

    async def _unknown(self, request: web.Request) -> web.Response:
        self.unhandled.append(f"{request.method} {request.path}")
        return _json({"message": "404: Not Found", "code": 0}, status=404)

    async def _status(self, request: web.Request) -> web.Response:
        """The fake's own counters for a test in another process (not part of Discord's API, not recorded)."""
        return _json(self.status())

    async def _attachment(self, request: web.Request) -> web.Response:
        attachment = self.attachments.get(int(request.match_info["attachment_id"]))
        if attachment is None:
            return web.Response(status=404)
        return web.Response(body=attachment.data, headers={"Content-Type": attachment.content_type})

    async def _rest(self, request: web.Request) -> web.Response:
        self.inflight += 1
        self.last_activity = time.monotonic()
        protocol = request.protocol
        arrived = getattr(protocol, "arrived", None)  # cleared when the answer is made: `_clear_arrival`
        read_at = getattr(protocol, "read_at", None)
        read_lag = read_at - arrived if arrived is not None and read_at is not None else 0.0
        try:
            return await self._rest_inner(request, arrived if arrived is not None else time.monotonic(), read_lag)
        finally:
            self.inflight -= 1
            self.last_activity = time.monotonic()

    async def _rest_inner(self, request: web.Request, arrived: float, read_lag: float = 0.0) -> web.Response:
        path = "/" + request.match_info["tail"]
        method = request.method
        matched = self._match(method, path)
        template = matched[0] if matched else path
        is_interaction = template.startswith(("/interactions/", "/webhooks/"))
        call = RestCall(
            method=method,
            path=path,
            route=f"{method} {template}",
            global_limit=not is_interaction,
            at=arrived,
            read_lag=read_lag,
        )
        self.calls.append(call)
        if matched is None:
            self.unhandled.append(f"{method} {path}")
            call.status = 404
            return _json({"message": "404: Not Found (route not implemented by the fake)", "code": 0}, status=404)
        _, params, handler = matched
        if "channel_id" in params and params["channel_id"].isdigit():
            call.channel_id = int(params["channel_id"])
        try:
            payload, files = await _read_body(request)  # always read it: an unread body drops the connection
        except (BadBody, ValueError) as exc:  # ValueError: JSON that does not parse
            call.status = 400
            return _json({"message": "Invalid Form Body", "code": 50035, "detail": str(exc)}, status=400)
        call.payload = payload if isinstance(payload, dict) else None
        call.files = files
        self.retry_expected_until = 0.0
        fault = self._take_fault(method, template, path)
        if fault is not None:
            call.status, call.injected = fault.status, str(fault.status)
            # discord.py sleeps retry_after after a 429, and 1 + 2 * tries seconds after a 5xx
            wait = fault.retry_after if fault.status == 429 else 1.0
            self.retry_expected_until = time.monotonic() + wait + 0.5
            return self._fault_response(fault, template)
        if not is_interaction:
            self.global_meter.arrive(call.at)
        if not is_interaction and self._over_global_limit(call.at):
            call.status, call.injected = 429, "global"
            self.global_429s += 1
            # retry_after is the time until the window has room again, as Discord computes it
            # (rounded up to the next millisecond: rounded down, a retry lands just before the slot frees)
            window = self._global_window
            oldest = window[bisect.bisect_right(window, call.at - 1.0)] if window else call.at
            wait = max(0.01, math.ceil((oldest + 1.0 - call.at) * 1000) / 1000 + 0.001)
            refusal = Fault(pattern="", status=429, remaining=0, retry_after=wait, is_global=True)
            return self._fault_response(refusal, template)
        if not is_interaction and request.headers.get("Authorization") != f"Bot {self.token}":
            call.status = 401
            return _json({"message": "401: Unauthorized", "code": 0}, status=401)
        req = Request(method, path, template, params, dict(request.query), payload, files, call)
        hold = self._take_hold(method, template, path)
        if hold is not None and not hold.after:
            hold.calls.append(call)
            hold.arrived.set()
            await hold.released.wait()
            if hold.dropped:
                call.status, call.injected = 500, "dropped"
                return _json({"message": "500: dropped by the test", "code": 0}, status=500)
        try:
            result = await handler(req)
        except ApiError as exc:
            call.status = exc.status
            body: dict[str, Any] = {"message": exc.message, "code": exc.code}
            if exc.errors:
                body["errors"] = exc.errors
            return _json(body, status=exc.status)
        if hold is not None and hold.after:
            hold.calls.append(call)
            hold.arrived.set()
            await hold.released.wait()
        if result is None:
            call.status = 204
            self._accepted(call)
            return web.Response(status=204, headers=_ratelimit_headers(template))
        call.status = 200
        self._accepted(call)
        return _json(result, headers=_ratelimit_headers(template))

    def _accepted(self, call: RestCall) -> None:
        for hook in list(self.on_accepted):
            hook(call)

    def _over_global_limit(self, now: float) -> bool:
        """Discord's global limit: at most ``global_limit`` counted requests in any one second, across every
        connection of the bot token (interaction endpoints are not counted). Refused requests don't count."""
        if self.global_limit is None:
            return False
        window = self._global_window  # the accepted requests' arrival times, sorted (they may come out of order)
        if window and window[0] < window[-1] - 4.0:
            del window[: bisect.bisect_left(window, window[-1] - 4.0)]
        trial = [*window]
        bisect.insort(trial, now)
        if busiest_containing(trial, now)[0] > self.global_limit:  # some second holding it would hold too many
            return True
        self._global_window = trial
        return False

    def _take_fault(self, method: str, template: str, path: str) -> Fault | None:
        for fault in self.faults:
            if fault.remaining > 0 and (
                fnmatch.fnmatchcase(f"{method} {template}", fault.pattern)
                or fnmatch.fnmatchcase(f"{method} {path}", fault.pattern)
            ):
                fault.remaining -= 1
                return fault
        return None

    def _take_hold(self, method: str, template: str, path: str) -> Hold | None:
        for hold in self.holds:
            if hold.remaining > 0 and (
                fnmatch.fnmatchcase(f"{method} {template}", hold.pattern)
                or fnmatch.fnmatchcase(f"{method} {path}", hold.pattern)
            ):
                if hold.skip > 0:
                    hold.skip -= 1
                    return None
                hold.remaining -= 1
                return hold
        return None

    def _fault_response(self, fault: Fault, template: str) -> web.Response:
        if fault.status != 429:
            return _json({"message": f"{fault.status}: injected server error", "code": 0}, status=fault.status)
        headers = {
            "Via": "1.1 google",
            "Retry-After": str(max(1, int(fault.retry_after))),
            "X-RateLimit-Scope": "global" if fault.is_global else "user",
            "X-RateLimit-Bucket": _bucket(template),
        }
        if fault.is_global:
            headers["X-RateLimit-Global"] = "true"
        body = {"message": "You are being rate limited.", "retry_after": fault.retry_after, "global": fault.is_global}
        return _json(body, status=429, headers=headers)

    def _violation(self, call: RestCall, problems: list[str]) -> None:
        if not problems:
            return
        call.violations += problems
        self.violations += [f"{call.route}: {p}" for p in problems]
        errors = {"_errors": [{"code": "BASE_TYPE_INVALID", "message": p} for p in problems]}
        raise ApiError(400, 50035, "Invalid Form Body", errors)

    # ------------------------------------------------------------------ REST: login, commands
    async def _get_me(self, req: Request) -> Any:
        return self.bot_user.to_json() | {"verified": True, "mfa_enabled": False, "flags": 0, "locale": "en-US"}

    async def _get_application(self, req: Request) -> Any:
        owner = next((u for u in self.users.values() if not u.bot), self.bot_user)
        return {
            "id": str(self.application_id),
            "name": self.bot_user.name,
            "description": "",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": owner.to_json(),
            "verify_key": "0" * 64,
            "flags": 0,
            "interactions_endpoint_url": None,
            "team": None,
            "summary": "",
        }

    async def _get_gateway(self, req: Request) -> Any:
        # max_concurrency (16 by default, as Discord gives large bots): that many rate_limit_keys identify in parallel
        remaining = max(0, 1000 - len(self.identify_log))
        start = {"total": 1000, "remaining": remaining, "reset_after": 0, "max_concurrency": self.max_concurrency}
        return {"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": start}

    def _command_list(self, req: Request) -> list[dict[str, Any]]:
        if "guild_id" in req.params:
            return self.guild_commands.setdefault(int(req.params["guild_id"]), [])
        return self.global_commands

    async def _get_commands(self, req: Request) -> Any:
        return self._command_list(req)

    async def _put_commands(self, req: Request) -> Any:
        self._violation(req.call, limits.check_commands(req.payload if isinstance(req.payload, list) else []))
        existing = {c["name"]: c for c in self._command_list(req)}
        synced = []
        for command in req.payload or []:
            old = existing.get(command["name"])
            full = {
                "type": 1,
                "options": [],
                "default_member_permissions": None,
                "dm_permission": True,
                "nsfw": False,
                **command,
                "id": old["id"] if old else str(snowflake()),
                "application_id": str(self.application_id),
                "version": str(snowflake()),
            }
            full.setdefault("description", "")
            if "guild_id" in req.params:
                full["guild_id"] = req.params["guild_id"]
            synced.append(full)
        if "guild_id" in req.params:
            self.guild_commands[int(req.params["guild_id"])] = synced
        else:
            self.global_commands = synced
        return synced

    # ------------------------------------------------------------------ REST: messages
    def _channel(self, req: Request) -> FakeChannel:
        """The channel of a bot-token route; one the bot cannot see (a guild it is not in, a private channel between
        users) is 403 / 50001 Missing Access: there a user-installed app answers only through the interaction."""
        channel = self.channels.get(int(req.params["channel_id"])) if req.params["channel_id"].isdigit() else None
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        guild = self.guild_of(channel)
        if channel.is_private or (channel.guild_id is not None and not self.bot_in(guild)):
            raise ApiError(403, 50001, "Missing Access")
        return channel

    def _message(self, channel_id: int, message_id: str) -> FakeMessage:
        message = self.messages.get(int(message_id)) if message_id.isdigit() else None
        if message is None or message.deleted or message.channel_id != channel_id:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    def _check_send(self, channel: FakeChannel) -> None:
        if channel.type == 1:
            recipient = self.users.get(channel.recipient_id or 0)
            if recipient is not None and recipient.dms_closed:
                raise ApiError(403, 50007, "Cannot send messages to this user")
        elif channel.denied:
            raise ApiError(403, 50013, "Missing Permissions")

    def store_upload(self, filename: str, data: bytes) -> list[FakeAttachment]:
        """A file a user uploads (a modal's file upload): stored and served like any attachment."""
        return self._store_files([RecordedFile(filename=filename, data=data)])

    def _store_files(self, files: list[RecordedFile], payload: dict[str, Any] | None = None) -> list[FakeAttachment]:
        described = {
            str(a.get("filename")): str(a.get("description") or "") for a in (payload or {}).get("attachments") or []
        }
        stored = []
        for f in files:
            attachment_id = snowflake()
            url = f"{self.base_url}/attachments/{attachment_id}/{f.filename}"
            content_type = "image/png" if f.data.startswith(b"\x89PNG") else "application/octet-stream"
            attachment = FakeAttachment(
                attachment_id, f.filename, f.data, content_type, url, described.get(f.filename, "")
            )
            self.attachments[attachment_id] = attachment
            stored.append(attachment)
        return stored

    def _message_event(self, message: FakeMessage) -> dict[str, Any]:
        author = self.users[message.author_id]
        data = message.to_json(author)
        if message.guild_id is not None:
            member = self._member(author, self.guilds.get(message.guild_id))
            data["member"] = {k: v for k, v in member.items() if k != "user"}
        return data

    async def _new_message(
        self,
        req: Request,
        channel: FakeChannel,
        *,
        flags: int,
        interaction: FakeInteraction | None = None,
        check_empty: bool = True,
    ) -> FakeMessage:
        payload = req.payload if isinstance(req.payload, dict) else {}
        files = [(f.filename, f.data) for f in req.files]
        self._violation(req.call, limits.check_message(payload, files, creating=check_empty, flags=flags & ~LOADING))
        if not flags & (EPHEMERAL | LOADING):
            self._check_postable(channel)
        message = FakeMessage(
            id=snowflake(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author_id=self.bot_user.id,
            content=payload.get("content") or "",
            embeds=payload.get("embeds") or [],
            components=payload.get("components") or [],
            attachments=self._store_files(req.files, payload),
            flags=flags,
            interaction_id=interaction.id if interaction else None,
            visible_to=interaction.user_id if interaction and flags & EPHEMERAL else None,
            allowed_mentions=payload.get("allowed_mentions"),
        )
        self.messages[message.id] = message
        req.call.ephemeral = message.ephemeral
        if not message.ephemeral and not message.loading:
            message.posted_flags = message.flags
            await self._unarchive_on_post(channel, message)
            await self.dispatch("MESSAGE_CREATE", self._message_event(message))
        return message

    async def _unarchive_on_post(self, channel: FakeChannel, message: FakeMessage) -> None:
        """A post in an archived thread that is not locked is activity: Discord unarchives the thread (recorded in
        ``reopened``, so a test can tell that the bot reopened a thread it had archived)."""
        if not (channel.is_thread and channel.archived):
            return
        self.reopened.append(Reopened(channel.id, message.id, channel.archived_by))
        channel.archived, channel.archived_by = False, None
        await self.dispatch("THREAD_UPDATE", channel.to_json(self.users))

    @staticmethod
    def _check_postable(channel: FakeChannel) -> None:
        """An archived thread that is locked stays closed: a post there is refused (only an unlocked one reopens)."""
        if channel.is_thread and channel.archived and channel.locked:
            raise ApiError(400, 50083, "Thread is archived")

    def _check_not_archived(self, message: FakeMessage) -> None:
        """Editing a (visible) message in an archived thread is refused with 400 / 50083."""
        channel = self.channels.get(message.channel_id)
        if channel is not None and channel.is_thread and channel.archived and not message.ephemeral:
            raise ApiError(400, 50083, "Thread is archived")

    async def _apply_edit(self, req: Request, message: FakeMessage) -> FakeMessage:
        """Edit ``message`` (channel edit, interaction update, webhook edit, a followup replacing "thinking").

        Discord validates the message that results: a V2 message edited without ``flags`` keeps the V2 rules, and
        ``flags`` without IS_COMPONENTS_V2 on a V2 message is refused (a message cannot switch back)."""
        payload = req.payload if isinstance(req.payload, dict) else {}
        files = [(f.filename, f.data) for f in req.files]
        was_loading = message.loading
        if not was_loading:
            self._check_not_archived(message)
        flags = message.flags & ~LOADING
        if "flags" in payload and payload["flags"] is not None:
            flags = (message.flags & EPHEMERAL) | (payload["flags"] & ~EPHEMERAL & ~LOADING)
            if message.v2 and not was_loading and not flags & IS_COMPONENTS_V2:
                # Discord refuses it as an invalid form body (the flag cannot be removed once set).
                self._violation(req.call, ["IS_COMPONENTS_V2 cannot be removed from a message that has it"])
        attachments = message.attachments
        if "attachments" in payload and payload["attachments"] is not None:
            keep = {str(a.get("id")) for a in payload["attachments"]}
            attachments = [a for a in message.attachments if str(a.id) in keep]
        problems = limits.check_message(
            payload,
            files,
            creating=False,
            flags=flags,
            content=(payload["content"] or "") if "content" in payload else message.content,
            embeds=(payload["embeds"] or []) if "embeds" in payload else message.embeds,
            components=(payload["components"] or []) if "components" in payload else message.components,
            attachment_names=[a.filename for a in attachments] + [name for name, _ in files],
        )
        self._violation(req.call, problems)
        if "content" in payload:
            message.content = payload["content"] or ""
        if "embeds" in payload:
            message.embeds = payload["embeds"] or []
        if "allowed_mentions" in payload:
            message.allowed_mentions = payload["allowed_mentions"]
        if "components" in payload:
            message.components = payload["components"] or []
        message.flags = flags
        if was_loading and not message.ephemeral:  # the "thinking" message becomes the answer everyone sees
            message.posted_flags = flags
        message.attachments = attachments + self._store_files(req.files, payload)
        message.edits += 1
        message.edited_at = time.monotonic()
        req.call.ephemeral = message.ephemeral
        if not message.ephemeral:
            event = "MESSAGE_CREATE" if was_loading else "MESSAGE_UPDATE"
            channel = self.channels.get(message.channel_id)
            if was_loading and channel is not None:
                await self._unarchive_on_post(channel, message)
            await self.dispatch(event, self._message_event(message))
        return message

    async def _post_message(self, req: Request) -> Any:
        channel = self._channel(req)
        self._check_send(channel)
        payload = req.payload if isinstance(req.payload, dict) else {}
        self._violation(req.call, limits.check_nonce(payload))
        nonce = payload.get("nonce")
        key = (channel.id, self.bot_user.id, str(nonce)) if nonce is not None and payload.get("enforce_nonce") else None
        if key is not None:
            earlier = self.nonces.get(key)
            if earlier is not None and time.monotonic() - earlier[1] < self.nonce_window:
                existing = self.messages.get(earlier[0])
                if existing is not None and not existing.deleted:  # the same message again, nothing created
                    req.call.deduplicated = True
                    return existing.to_json(self.bot_user)
        message = await self._new_message(req, channel, flags=(payload.get("flags") or 0) & ~EPHEMERAL)
        message.nonce = None if nonce is None else str(nonce)
        if key is not None:
            self.nonces[key] = (message.id, time.monotonic())
        return message.to_json(self.bot_user)

    async def _get_message(self, req: Request) -> Any:
        message = self._message(int(req.params["channel_id"]), req.params["message_id"])
        if message.ephemeral:
            raise ApiError(404, 10008, "Unknown Message")
        return message.to_json(self.users[message.author_id])

    async def _history(self, req: Request) -> Any:
        channel = self._channel(req)
        found = list(reversed(self.channel_messages(channel)))[: int(req.query.get("limit", 50))]
        return [m.to_json(self.users[m.author_id]) for m in found]

    async def _edit_message(self, req: Request) -> Any:
        channel = self._channel(req)
        message = self._message(channel.id, req.params["message_id"])
        if message.author_id != self.bot_user.id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self._check_send(channel)
        return (await self._apply_edit(req, message)).to_json(self.bot_user)

    async def _delete_message(self, req: Request) -> Any:
        channel = self._channel(req)
        message = self._message(channel.id, req.params["message_id"])
        await self.delete_message(message)

    async def _no_content(self, req: Request) -> Any:
        return None

    async def _thread_member(self, req: Request) -> Any:
        """Join / add / remove a thread member: refused with 400 / 50083 while the thread is archived."""
        channel = self._channel(req)
        if not channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        if channel.archived:
            raise ApiError(400, 50083, "Thread is archived")
        return None

    # ------------------------------------------------------------------ REST: channels, users, guilds
    async def _get_channel(self, req: Request) -> Any:
        return self._channel(req).to_json(self.users)

    async def _edit_channel(self, req: Request) -> Any:
        channel = self._channel(req)
        payload = req.payload or {}
        channel.name = payload.get("name", channel.name)
        if channel.is_thread:
            archived = bool(payload.get("archived", channel.archived))
            if archived and not channel.archived:
                channel.archived_by = "bot"
            elif not archived:
                channel.archived_by = None
            channel.archived = archived
            channel.locked = bool(payload.get("locked", channel.locked))
        data = channel.to_json(self.users)
        await self.dispatch("THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE", data)
        return data

    async def _delete_channel(self, req: Request) -> Any:
        channel = self._channel(req)
        await self.delete_channel(channel)
        return channel.to_json(self.users)

    async def _create_thread(self, req: Request) -> Any:
        parent = self._channel(req)  # an unknown channel is 404 / 10003
        if parent.is_thread or parent.guild_id is None:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        self._check_send(parent)
        payload = req.payload or {}
        name = payload.get("name")
        problems = []
        if not isinstance(name, str) or not 1 <= len(name) <= THREAD_NAME_MAX:
            problems.append(f"thread name must be 1..{THREAD_NAME_MAX} chars")
        duration = payload.get("auto_archive_duration")
        if duration is not None and duration not in AUTO_ARCHIVE_MINUTES:
            problems.append(f"auto_archive_duration {duration!r} must be one of {sorted(AUTO_ARCHIVE_MINUTES)}")
        self._violation(req.call, problems)
        if "message_id" in req.params:
            started = self._message(parent.id, req.params["message_id"])  # 404 / 10008 when it is not there
            if started.id in self.channels:
                raise ApiError(400, 160004, "A thread has already been created for this message")
        thread = self.add_thread(parent, name, private=payload.get("type") == 12)
        if "message_id" in req.params:  # a thread started from a message shares the message's id
            self.channels.pop(thread.id)
            thread.id = int(req.params["message_id"])
            self.channels[thread.id] = thread
        data = thread.to_json(self.users) | {"newly_created": True}
        await self.dispatch("THREAD_CREATE", data)
        return data

    async def _create_dm(self, req: Request) -> Any:
        recipient = self.users.get(int((req.payload or {}).get("recipient_id", 0)))
        if recipient is None:
            raise ApiError(400, 50033, "Invalid Recipient(s)")
        channel = self.dm_channel(recipient)
        if channel is None:
            channel = FakeChannel(id=snowflake(), type=1, recipient_id=recipient.id)
            self.channels[channel.id] = channel
        return channel.to_json(self.users)

    async def _get_user(self, req: Request) -> Any:
        user = self.users.get(int(req.params["user_id"])) if req.params["user_id"].isdigit() else None
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return user.to_json()

    def _guild(self, req: Request) -> FakeGuild:
        guild = self.guilds.get(int(req.params["guild_id"])) if req.params["guild_id"].isdigit() else None
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        if not self.bot_in(guild):
            raise ApiError(403, 50001, "Missing Access")
        return guild

    async def _get_guild(self, req: Request) -> Any:
        data = self._guild_create(self._guild(req))
        for key in ("channels", "threads", "members", "voice_states", "presences"):
            data.pop(key)
        return data

    async def _get_guild_channels(self, req: Request) -> Any:
        return [c.to_json(self.users) for c in self._guild(req).channels if not c.is_thread]

    def _guild_member(self, req: Request, guild: FakeGuild) -> FakeUser:
        raw = req.params["user_id"]
        user_id = int(raw) if raw.isdigit() else 0
        if user_id not in guild.member_ids:
            raise ApiError(404, 10007, "Unknown Member")
        return self.users[user_id]

    async def _get_member(self, req: Request) -> Any:
        guild = self._guild(req)
        return self._member(self._guild_member(req, guild), guild)

    async def _get_roles(self, req: Request) -> Any:
        guild = self._guild(req)
        return [self._everyone(guild), *(r.to_json() for r in guild.roles.values())]

    def _member_role(self, req: Request) -> tuple[FakeGuild, FakeUser, FakeRole]:
        guild = self._guild(req)
        user = self._guild_member(req, guild)
        raw = req.params["role_id"]
        role = guild.roles.get(int(raw)) if raw.isdigit() else None
        if role is None:
            raise ApiError(404, 10011, "Unknown Role")
        if not role.grantable or role.managed:  # above the bot's highest role, or an integration's own role
            raise ApiError(403, 50013, "Missing Permissions")
        return guild, user, role

    async def _add_member_role(self, req: Request) -> Any:
        """Grant a role. Granting one the member already has changes nothing (204, no event); a real grant is
        counted per (guild, member, role) in ``role_grants`` and dispatched as GUILD_MEMBER_UPDATE."""
        guild, user, role = self._member_role(req)
        held = guild.member_roles.setdefault(user.id, set())
        if role.id not in held:
            held.add(role.id)
            self.role_grants[(guild.id, user.id, role.id)] += 1
            await self.dispatch("GUILD_MEMBER_UPDATE", {"guild_id": str(guild.id), **self._member(user, guild)})

    async def _remove_member_role(self, req: Request) -> Any:
        guild, user, role = self._member_role(req)
        held = guild.member_roles.setdefault(user.id, set())
        if role.id in held:
            held.discard(role.id)
            await self.dispatch("GUILD_MEMBER_UPDATE", {"guild_id": str(guild.id), **self._member(user, guild)})

    # ------------------------------------------------------------------ REST: scheduled events
    def _event_json(self, event: FakeScheduledEvent, *, with_user_count: bool = False) -> dict[str, Any]:
        return event.to_json(self.users.get(event.creator_id), with_user_count=with_user_count)

    def _event(self, req: Request) -> tuple[FakeGuild, FakeScheduledEvent]:
        guild = self._guild(req)
        raw = req.params["event_id"]
        event = guild.scheduled_events.get(int(raw)) if raw.isdigit() else None
        if event is None:
            raise ApiError(404, 10070, "Unknown Guild Scheduled Event")
        return guild, event

    def _check_event(self, guild: FakeGuild, fields: dict[str, Any], *, new_start: bool) -> list[str]:
        """Discord's rules for a scheduled event (create, or the fields after a PATCH): name 1..100, description
        up to 1,000, privacy level 2 (guild only); an external event (entity_type 3) needs
        ``entity_metadata.location`` (1..100) and ``scheduled_end_time`` and no channel; a stage (1) or voice (2)
        event needs a stage / voice channel of the guild; the start lies in the future (``new_start``: when it is
        set or changed) and the end after the start."""
        problems: list[str] = []
        name, description = fields.get("name"), fields.get("description")
        if not isinstance(name, str) or not 1 <= len(name) <= EVENT_NAME_MAX:
            problems.append(f"name must be 1..{EVENT_NAME_MAX} chars")
        if description is not None and (not isinstance(description, str) or len(description) > EVENT_TEXT_MAX):
            problems.append(f"description must be at most {EVENT_TEXT_MAX} chars")
        if fields.get("privacy_level") != 2:
            problems.append(f"privacy_level {fields.get('privacy_level')!r} must be 2 (guild only)")
        start, end = _parse_time(fields.get("scheduled_start_time")), _parse_time(fields.get("scheduled_end_time"))
        if start is None:
            problems.append("scheduled_start_time must be an ISO 8601 timestamp")
        elif new_start and start <= self.now():
            problems.append("scheduled_start_time: cannot schedule an event in the past")
        if fields.get("scheduled_end_time") is not None and end is None:
            problems.append("scheduled_end_time must be an ISO 8601 timestamp")
        if start is not None and end is not None and end <= start:
            problems.append("scheduled_end_time must be after scheduled_start_time")
        kind = fields.get("entity_type")
        location = (fields.get("entity_metadata") or {}).get("location")
        channel_id = fields.get("channel_id")
        if kind == ENTITY_EXTERNAL:
            if not isinstance(location, str) or not 1 <= len(location) <= EVENT_NAME_MAX:
                problems.append("an external event needs entity_metadata.location (1..100 chars)")
            if end is None:
                problems.append("an external event needs scheduled_end_time")
            if channel_id is not None:
                problems.append("an external event has no channel_id")
        elif kind in (ENTITY_STAGE, ENTITY_VOICE):
            channel = self.channels.get(int(channel_id)) if str(channel_id or "").isdigit() else None
            wanted = STAGE_CHANNEL if kind == ENTITY_STAGE else VOICE_CHANNEL
            if channel is None or channel.guild_id != guild.id or channel.type != wanted:
                problems.append(
                    f"entity_type {kind} needs channel_id of a {'stage' if wanted == 13 else 'voice'} "
                    "channel of the guild"
                )
        else:
            problems.append(f"entity_type {kind!r} must be 1 (stage), 2 (voice) or 3 (external)")
        return problems

    async def _create_event(self, req: Request) -> Any:
        guild = self._guild(req)
        if guild.events_denied:
            raise ApiError(403, 50013, "Missing Permissions")
        payload = req.payload if isinstance(req.payload, dict) else {}
        self._violation(req.call, self._check_event(guild, payload, new_start=True))
        metadata = payload.get("entity_metadata") or {}
        event = FakeScheduledEvent(
            id=snowflake(),
            guild_id=guild.id,
            creator_id=self.bot_user.id,
            name=payload["name"],
            description=payload.get("description"),
            scheduled_start_time=payload["scheduled_start_time"],
            scheduled_end_time=payload.get("scheduled_end_time"),
            entity_type=payload["entity_type"],
            privacy_level=payload["privacy_level"],
            channel_id=int(payload["channel_id"]) if payload.get("channel_id") else None,
            location=metadata.get("location"),
            image=payload.get("image"),
        )
        guild.scheduled_events[event.id] = event
        data = self._event_json(event)
        await self.dispatch("GUILD_SCHEDULED_EVENT_CREATE", data)
        return data

    async def _get_events(self, req: Request) -> Any:
        guild = self._guild(req)
        counted = req.query.get("with_user_count") in ("1", "true", "True")
        return [self._event_json(e, with_user_count=counted) for e in guild.scheduled_events.values()]

    async def _get_event(self, req: Request) -> Any:
        _, event = self._event(req)
        return self._event_json(event, with_user_count=req.query.get("with_user_count") in ("1", "true", "True"))

    async def _edit_event(self, req: Request) -> Any:
        """PATCH: the merged fields are checked as on create; the status only moves scheduled -> active or
        canceled, active -> completed; a finished (completed or canceled) event cannot change."""
        guild, event = self._event(req)
        if guild.events_denied:
            raise ApiError(403, 50013, "Missing Permissions")
        payload = req.payload if isinstance(req.payload, dict) else {}
        current = self._event_json(event)
        merged = current | {k: v for k, v in payload.items() if k in EVENT_FIELDS}
        problems = self._check_event(guild, merged, new_start="scheduled_start_time" in payload)
        if event.status in (EVENT_COMPLETED, EVENT_CANCELED):
            problems.append(f"the event is finished (status {event.status}); it cannot be edited")
        elif payload.get("status", event.status) not in {event.status, *EVENT_TRANSITIONS.get(event.status, ())}:
            problems.append(f"status {event.status} cannot become {payload['status']!r}")
        self._violation(req.call, problems)
        event.name, event.description = merged["name"], merged.get("description")
        event.scheduled_start_time = merged["scheduled_start_time"]
        event.scheduled_end_time = merged.get("scheduled_end_time")
        event.entity_type, event.privacy_level = merged["entity_type"], merged["privacy_level"]
        event.channel_id = int(merged["channel_id"]) if merged.get("channel_id") else None
        event.location = (merged.get("entity_metadata") or {}).get("location")
        event.status = merged.get("status", event.status)
        event.image = merged.get("image")
        data = self._event_json(event)
        await self.dispatch("GUILD_SCHEDULED_EVENT_UPDATE", data)
        return data

    async def _delete_event(self, req: Request) -> Any:
        guild, event = self._event(req)
        del guild.scheduled_events[event.id]
        await self.dispatch("GUILD_SCHEDULED_EVENT_DELETE", self._event_json(event))

    async def _event_users(self, req: Request) -> Any:
        """The users interested in an event, newest (highest id) first: the ``limit`` nearest above ``after``, else
        the ``limit`` nearest below ``before`` (or the newest). discord.py 2.7.1's ``ScheduledEvent.users()`` pages
        on that order (its next ``before`` is the last user of a page, its next ``after`` the first)."""
        guild, event = self._event(req)
        limit = max(1, min(100, int(req.query.get("limit", "100"))))
        ids = sorted(event.interested)
        if "after" in req.query:
            chosen = [u for u in ids if u > int(req.query["after"])][:limit][::-1]
        else:
            before = int(req.query["before"]) if "before" in req.query else None
            chosen = [u for u in reversed(ids) if before is None or u < before][:limit]
        with_member = req.query.get("with_member") in ("1", "true", "True")
        out = []
        for user_id in chosen:
            entry: dict[str, Any] = {"guild_scheduled_event_id": str(event.id), "user": self.users[user_id].to_json()}
            if with_member and user_id in guild.member_ids:
                entry["member"] = self._member(self.users[user_id], guild)
            out.append(entry)
        return out

    async def mark_interested(self, guild: FakeGuild, event_id: int, user: FakeUser, interested: bool = True) -> None:
        """``user`` clicks "Interested" on an event (or takes it back): GUILD_SCHEDULED_EVENT_USER_ADD / _REMOVE."""
        event = guild.scheduled_events[event_id]
        if interested == (user.id in event.interested):
            return
        if interested:
            event.interested.append(user.id)
        else:
            event.interested.remove(user.id)
        data = {"guild_scheduled_event_id": str(event.id), "user_id": str(user.id), "guild_id": str(guild.id)}
        await self.dispatch(f"GUILD_SCHEDULED_EVENT_USER_{'ADD' if interested else 'REMOVE'}", data)

    # ------------------------------------------------------------------ REST: interaction responses
    def _interaction_by_token(self, token: str) -> FakeInteraction:
        interaction = self._by_token.get(token)
        if interaction is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        return interaction

    async def _callback(self, req: Request) -> Any:
        interaction = self.interactions.get(int(req.params["interaction_id"]))
        if interaction is None or interaction.token != req.params["token"]:
            raise ApiError(404, 10062, "Unknown interaction")
        req.call.interaction_id = req.call.interaction_id or interaction.id
        req.call.channel_id = interaction.channel_id
        if interaction.callback_type is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        body = req.payload if isinstance(req.payload, dict) else {}
        kind, data = body.get("type"), body.get("data") or {}
        req.call.payload = body
        channel = self.channels.get(interaction.channel_id)
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        message: FakeMessage | None = None
        inner = Request(req.method, req.path, req.route, req.params, req.query, data, req.files, req.call)
        if kind == 4:
            message = await self._new_message(inner, channel, flags=(data.get("flags") or 0), interaction=interaction)
        elif kind == 5:
            flags = LOADING | ((data.get("flags") or 0) & EPHEMERAL)
            message = await self._new_message(inner, channel, flags=flags, interaction=interaction, check_empty=False)
            interaction.loading = True
        elif kind in (6, 7):
            if interaction.message_id is None:
                raise ApiError(400, 40004, "Interaction type does not support this response type")
            message = self.messages[interaction.message_id]
            if kind == 7:
                await self._apply_edit(inner, message)
            req.call.ephemeral = message.ephemeral
        elif kind == 8:
            choices = data.get("choices") or []
            self._violation(req.call, limits.check_choices(choices))
            interaction.choices = choices
        elif kind == 9:
            self._violation(req.call, limits.check_modal(data))
            interaction.modal = data
        elif kind != 1:
            raise ApiError(400, 50035, f"Invalid interaction response type {kind}")
        interaction.callback_type = kind
        interaction.callback_at = req.call.at
        if message is not None:
            interaction.original_id = message.id
        interaction.changed.set()
        if "with_response" not in req.query:
            return None
        result: dict[str, Any] = {
            "interaction": {
                "id": str(interaction.id),
                "type": interaction.type,
                "response_message_id": str(message.id) if message else None,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(message and message.ephemeral),
            },
            "resource": {"type": kind},
        }
        if message is not None and kind in (4, 5, 7):
            result["resource"]["message"] = message.to_json(self.users[message.author_id])
        return result

    async def _followup(self, req: Request) -> Any:
        interaction = self._interaction_by_token(req.params["token"])
        req.call.interaction_id, req.call.channel_id = interaction.id, interaction.channel_id
        if interaction.callback_type is None:
            raise ApiError(400, 10015, "Unknown Webhook (the interaction has not been answered yet)")
        if interaction.user_installed_only and interaction.followups_sent >= FOLLOWUPS_USER_INSTALL_MAX:
            # Discord: an app not installed where it is used (only the user's install authorized the interaction)
            # gets at most 5 followup messages per interaction.
            raise ApiError(400, 40094, "This interaction has hit the maximum number of follow up messages")
        interaction.followups_sent += 1
        payload = req.payload if isinstance(req.payload, dict) else {}
        if interaction.loading and interaction.original_id is not None:
            message = await self._apply_edit(req, self.messages[interaction.original_id])
            interaction.loading = False
        else:
            channel = self.channels[interaction.channel_id]
            flags = payload.get("flags") or 0
            message = await self._new_message(req, channel, flags=flags, interaction=interaction)
            interaction.followup_ids.append(message.id)
        interaction.changed.set()
        if req.query.get("wait") in ("1", "true", "True"):
            return message.to_json(self.bot_user)
        return None

    def _webhook_message(self, req: Request) -> tuple[FakeInteraction, FakeMessage]:
        interaction = self._interaction_by_token(req.params["token"])
        req.call.interaction_id, req.call.channel_id = interaction.id, interaction.channel_id
        message_id = req.params["message_id"]
        if message_id == "@original":
            if interaction.original_id is None:
                raise ApiError(404, 10008, "Unknown Message")
            return interaction, self.messages[interaction.original_id]
        return interaction, self._message(interaction.channel_id, message_id)

    async def _webhook_get(self, req: Request) -> Any:
        _, message = self._webhook_message(req)
        return message.to_json(self.users[message.author_id])

    async def _webhook_edit(self, req: Request) -> Any:
        interaction, message = self._webhook_message(req)
        await self._apply_edit(req, message)
        if interaction.original_id == message.id:
            interaction.loading = False
        interaction.changed.set()
        return message.to_json(self.users[message.author_id])

    async def _webhook_delete(self, req: Request) -> Any:
        interaction, message = self._webhook_message(req)
        req.call.ephemeral = message.ephemeral
        message.deleted = True
        if not message.ephemeral:
            await self.delete_message(message)
        interaction.loading = False
        interaction.changed.set()


def _parse_time(raw: Any) -> datetime | None:
    """An ISO 8601 timestamp as Discord reads it (without a zone: UTC)."""
    if not isinstance(raw, str):
        return None
    try:
        parsed = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _json(data: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """JSON with Content-Type exactly ``application/json`` (discord.py compares the whole header)."""
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    return web.Response(body=json.dumps(data).encode(), status=status, headers=all_headers)


def _bucket(template: str) -> str:
    return hashlib.md5(template.encode(), usedforsecurity=False).hexdigest()[:16]


def _ratelimit_headers(template: str) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": "50",
        "X-RateLimit-Remaining": "49",
        "X-RateLimit-Reset": f"{time.time() + 1:.3f}",
        "X-RateLimit-Reset-After": "1.000",
        "X-RateLimit-Bucket": _bucket(template),
    }


_BOUNDARY = re.compile(r'boundary=(?:"([^"]+)"|([^;\s]+))', re.IGNORECASE)
_DISPOSITION = re.compile(r'^content-disposition:\s*form-data((?:\s*;\s*[a-z*]+="[^"]*")*)\s*$', re.IGNORECASE)
_DISPOSITION_PARAM = re.compile(r'([a-z*]+)="([^"]*)"', re.IGNORECASE)


class BadBody(Exception):
    """A request body Discord could not read (answered 400, "Invalid Form Body")."""


def parse_multipart(body: bytes, content_type: str) -> list[tuple[dict[str, str], bytes]]:
    """The parts of a ``multipart/form-data`` body: (Content-Disposition parameters, data) each.

    Strict and small: what discord.py sends (aiohttp's ``FormData``: a boundary, ``form-data`` parts with quoted
    ``name``/``filename``) parses; anything else raises :class:`BadBody`. It replaced aiohttp's streaming
    ``MultipartReader``, whose per-part header parsing (the ``email`` package) was a third of the harness's CPU in
    ``bench/cluster.py``, so the harness took CPU from the bot it measures.
    """
    found = _BOUNDARY.search(content_type)
    if found is None:
        raise BadBody("multipart without a boundary")
    delimiter = b"--" + (found.group(1) or found.group(2)).encode("latin-1")
    if not body.startswith(delimiter + b"\r\n"):
        raise BadBody("the body does not start with its boundary")
    chunks = body[len(delimiter) + 2 :].split(b"\r\n" + delimiter)
    if len(chunks) < 2 or chunks[-1] not in (b"--\r\n", b"--"):
        raise BadBody("the body does not end with its closing boundary")
    parts: list[tuple[dict[str, str], bytes]] = []
    for index, chunk in enumerate(chunks[:-1]):
        if index:
            if not chunk.startswith(b"\r\n"):
                raise BadBody("a boundary is not followed by a line break")
            chunk = chunk[2:]
        head, sep, data = chunk.partition(b"\r\n\r\n")
        if not sep:
            raise BadBody("a part has no blank line after its headers")
        params: dict[str, str] | None = None
        for line in head.decode("utf-8", "replace").split("\r\n"):
            match = _DISPOSITION.match(line)
            if match is not None:
                params = {k.lower(): v for k, v in _DISPOSITION_PARAM.findall(match.group(1))}
        if params is None or "name" not in params:
            raise BadBody("a part has no form-data name")
        parts.append((params, data))
    return parts


async def _read_body(request: web.Request) -> tuple[Any, list[RecordedFile]]:
    """JSON body, or multipart with ``payload_json`` and ``files[n]`` parts (as discord.py sends)."""
    files: list[RecordedFile] = []
    raw = await request.read()
    content_type = request.headers.get("Content-Type", "")
    if content_type.lower().startswith("multipart/"):
        payload: Any = None
        for params, data in parse_multipart(raw, content_type):
            if params["name"] == "payload_json":
                payload = json.loads(data)
            else:
                files.append(RecordedFile(filename=params.get("filename") or params["name"], data=data))
        return payload, files
    return (json.loads(raw) if raw else None), files
