"""FakeDiscord: a local Discord (REST + gateway, aiohttp, 127.0.0.1) for the real discord.py client.

The payload shapes and the traps it honours are in /work/shared/DISCORD.md §8. The fake records every
REST call (``calls``), every payload that breaks Discord's limits (``violations``) and every route it
does not implement (``unhandled``); the pytest plugin fails a test on any violation or unhandled route.
"""

from __future__ import annotations

import asyncio
import fnmatch
import hashlib
import json
import logging
import re
import secrets
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from . import limits
from .models import (
    EPHEMERAL,
    LOADING,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    RecordedFile,
    RestCall,
    iso_now,
    snowflake,
)

log = logging.getLogger("fakediscord")

ALL_PERMISSIONS = str((1 << 50) - 1)
HEARTBEAT_INTERVAL_MS = 41250
ZLIB_SUFFIX = b"\x00\x00\xff\xff"


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

    async def send(self, payload: dict[str, Any]) -> None:
        text = json.dumps(payload)
        async with self.lock:
            if self.compressor is not None:
                data = self.compressor.compress(text.encode()) + self.compressor.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text)


@dataclass(eq=False)
class _Session:
    id: str
    seq: int = 0
    buffer: list[dict[str, Any]] = field(default_factory=list)
    conn: _Connection | None = None
    ended: bool = False
    shard: tuple[int, int] = (0, 1)  # (shard_id, num_shards) from IDENTIFY

    def owns(self, guild_id: int | None) -> bool:
        """Discord routes a guild's events to shard ``(guild_id >> 22) % num_shards``; DMs to shard 0."""
        shard_id, count = self.shard
        return (shard_of(guild_id, count) if guild_id is not None else 0) == shard_id


Handler = Callable[[Request], Awaitable[Any]]


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
    ) -> None:
        self.token = token
        # Sharding: /gateway/bot reports ``shards``; each IDENTIFY names [shard_id, num_shards] and gets
        # only the guilds (and guild events) of its shard. ``global_limit`` (e.g. 50): counted REST calls
        # per second across every connection of the bot token, past which the fake answers 429 global.
        self.shard_count = shards
        self.global_limit = global_limit
        self.global_429s = 0
        self._global_window: list[float] = []
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
        self.violations: list[str] = []
        self.unhandled: list[str] = []
        self.faults: list[Fault] = []
        self.gateway_log: list[str] = []  # "identify <sid>", "resume <sid> replayed=3", "invalid <sid>"
        self.identified = asyncio.Event()
        self._sessions: dict[str, _Session] = {}
        self._connections: set[_Connection] = set()
        self.inflight = 0
        self.last_activity = time.monotonic()  # last REST request or gateway dispatch
        self.retry_expected_until = 0.0  # after an injected 429/5xx, the client is sleeping before its retry
        self.heartbeat_interval = HEARTBEAT_INTERVAL_MS
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
    ) -> FakeGuild:
        """A guild; ``shard=k`` picks an id that lives on shard k of ``shard_count``."""
        members = members or []
        owner = members[0] if members else self.bot_user
        guild_id = snowflake()
        if shard is not None:
            while shard_of(guild_id, self.shard_count) != shard:
                guild_id += 1 << 22
        guild = FakeGuild(id=guild_id, name=name, owner_id=owner.id)
        guild.member_ids = [self.bot_user.id, *(m.id for m in members)]
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

    def guild_of(self, channel: FakeChannel) -> FakeGuild | None:
        return self.guilds.get(channel.guild_id) if channel.guild_id is not None else None

    def dm_channel(self, user: FakeUser) -> FakeChannel | None:
        for channel in self.channels.values():
            if channel.type == 1 and channel.recipient_id == user.id:
                return channel
        return None

    # ------------------------------------------------------------------ test controls
    def close_dms(self, user: FakeUser, closed: bool = True) -> None:
        """DMs to ``user`` now fail with 403 / 50007 (Cannot send messages to this user)."""
        user.dms_closed = closed

    def deny(self, channel: FakeChannel, denied: bool = True) -> None:
        """Sending or editing messages in ``channel`` now fails with 403 / 50013 Missing Permissions."""
        channel.denied = denied

    def fail_next(
        self, pattern: str, *, status: int = 429, count: int = 1, retry_after: float = 0.05, is_global: bool = False
    ) -> Fault:
        """The next ``count`` calls matching ``pattern`` (e.g. ``"POST /channels/*/messages"``) get ``status``."""
        fault = Fault(pattern=pattern, status=status, remaining=count, retry_after=retry_after, is_global=is_global)
        self.faults.append(fault)
        return fault

    async def drop_gateway(self, code: int = 4000) -> None:
        """Close every live gateway socket; discord.py resumes and gets the missed events replayed."""
        for conn in list(self._connections):
            if conn.session is not None:
                conn.session.conn = None
            self.gateway_log.append(f"drop code={code}")
            await conn.ws.close(code=code)

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
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway/"

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway/", self._gateway)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/attachments/{attachment_id}/{filename}", self._attachment)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        app.router.add_route("*", "/{tail:.*}", self._unknown)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
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
        for session in list(self._sessions.values()):
            if not session.ended and session.owns(guild_id):
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
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        compress = request.query.get("compress") == "zlib-stream"
        conn = _Connection(ws=ws, compressor=zlib.compressobj() if compress else None)
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
            session = _Session(id=secrets.token_hex(8), shard=(shard_id, count))
            self._sessions[session.id] = session
            conn.session, session.conn = session, conn
            self.gateway_log.append(f"identify {session.id} shard={shard_id}/{count}")
            await self._send_dispatch(session, "READY", self._ready(session))
            for guild in self.guilds.values():
                if session.owns(guild.id):
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
                        "members": [self._member(self.users[m]) for m in guild.member_ids],
                        "chunk_index": 0,
                        "chunk_count": 1,
                        "nonce": d.get("nonce"),
                    }
                    await self._send_dispatch(conn.session, "GUILD_MEMBERS_CHUNK", chunk)

    def _ready(self, session: _Session) -> dict[str, Any]:
        return {
            "v": 10,
            "user": self.bot_user.to_json() | {"verified": True, "mfa_enabled": False, "flags": 0},
            "session_id": session.id,
            "resume_gateway_url": self.gateway_url,
            "guilds": [{"id": str(g), "unavailable": True} for g in self.guilds if session.owns(g)],
            "shard": list(session.shard),
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
        }

    def _member(self, user: FakeUser) -> dict[str, Any]:
        return {
            "user": user.to_json(),
            "roles": [],
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

    def _guild_create(self, guild: FakeGuild) -> dict[str, Any]:
        everyone = {
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
        return {
            "id": str(guild.id),
            "name": guild.name,
            "owner_id": str(guild.owner_id),
            "icon": None,
            "features": [],
            "roles": [everyone],
            "emojis": [],
            "stickers": [],
            "channels": [c.to_json() for c in guild.channels if not c.is_thread],
            "threads": [c.to_json() for c in guild.channels if c.is_thread],
            "members": [self._member(self.users[m]) for m in guild.member_ids],
            "member_count": len(guild.member_ids),
            "large": False,
            "unavailable": False,
            "joined_at": iso_now(),
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "preferred_locale": "en-US",
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
    ) -> FakeInteraction:
        """Dispatch INTERACTION_CREATE and return the record the bot's answers will fill in."""
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
        )
        self.interactions[interaction.id] = interaction
        self._by_token[interaction.token] = interaction
        payload: dict[str, Any] = {
            "id": str(interaction.id),
            "application_id": str(self.application_id),
            "type": type,
            "token": interaction.token,
            "version": 1,
            "data": data,
            "channel_id": str(channel.id),
            "channel": channel.to_json(self.users),
            "app_permissions": ALL_PERMISSIONS,
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": limits.FILE_SIZE_MAX,
        }
        if channel.guild_id is not None:
            payload |= {
                "guild_id": str(channel.guild_id),
                "guild_locale": "en-US",
                "member": self._member(user) | {"permissions": ALL_PERMISSIONS},
                "authorizing_integration_owners": {"0": str(channel.guild_id)},
                "context": 0,
            }
        else:
            payload |= {"user": user.to_json(), "authorizing_integration_owners": {"1": str(user.id)}, "context": 1}
        if message is not None:
            payload["message"] = message.to_json(self.users[message.author_id])
        interaction.dispatched_at = time.monotonic()
        await self.dispatch("INTERACTION_CREATE", payload)
        return interaction

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
            ("PUT", "/channels/{channel_id}/thread-members/{user_id}", self._no_content),
            ("DELETE", "/channels/{channel_id}/thread-members/{user_id}", self._no_content),
            ("POST", "/users/@me/channels", self._create_dm),
            ("GET", "/users/{user_id}", self._get_user),
            ("GET", "/guilds/{guild_id}", self._get_guild),
            ("GET", "/guilds/{guild_id}/channels", self._get_guild_channels),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member),
            ("PUT", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}", self._no_content),  # recorded in calls
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

    async def _attachment(self, request: web.Request) -> web.Response:
        attachment = self.attachments.get(int(request.match_info["attachment_id"]))
        if attachment is None:
            return web.Response(status=404)
        return web.Response(body=attachment.data, headers={"Content-Type": attachment.content_type})

    async def _rest(self, request: web.Request) -> web.Response:
        self.inflight += 1
        self.last_activity = time.monotonic()
        try:
            return await self._rest_inner(request)
        finally:
            self.inflight -= 1
            self.last_activity = time.monotonic()

    async def _rest_inner(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        method = request.method
        matched = self._match(method, path)
        template = matched[0] if matched else path
        is_interaction = template.startswith(("/interactions/", "/webhooks/"))
        call = RestCall(
            method=method, path=path, route=f"{method} {template}", global_limit=not is_interaction, at=time.monotonic()
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
        if not is_interaction and self._over_global_limit(call.at):
            call.status, call.injected = 429, "global"
            self.global_429s += 1
            # retry_after is the time until the window has room again, as Discord computes it
            wait = max(0.01, self._global_window[0] + 1.0 - call.at)
            refusal = Fault(pattern="", status=429, remaining=0, retry_after=round(wait, 3), is_global=True)
            return self._fault_response(refusal, template)
        if not is_interaction and request.headers.get("Authorization") != f"Bot {self.token}":
            call.status = 401
            return _json({"message": "401: Unauthorized", "code": 0}, status=401)
        req = Request(method, path, template, params, dict(request.query), payload, files, call)
        try:
            result = await handler(req)
        except ApiError as exc:
            call.status = exc.status
            body: dict[str, Any] = {"message": exc.message, "code": exc.code}
            if exc.errors:
                body["errors"] = exc.errors
            return _json(body, status=exc.status)
        if result is None:
            call.status = 204
            return web.Response(status=204, headers=_ratelimit_headers(template))
        call.status = 200
        return _json(result, headers=_ratelimit_headers(template))

    def _over_global_limit(self, now: float) -> bool:
        """Discord's global limit: at most ``global_limit`` counted requests in any one second, across every
        connection of the bot token (interaction endpoints are not counted). Refused requests don't count."""
        if self.global_limit is None:
            return False
        window = self._global_window
        while window and window[0] <= now - 1.0:
            window.pop(0)
        if len(window) >= self.global_limit:
            return True
        window.append(now)
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
        # max_concurrency 16 (as Discord gives large bots): shards identify in parallel instead of 5 s apart
        start = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 16}
        return {"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": start}

    def _command_list(self, req: Request) -> list[dict[str, Any]]:
        if "guild_id" in req.params:
            return self.guild_commands.setdefault(int(req.params["guild_id"]), [])
        return self.global_commands

    async def _get_commands(self, req: Request) -> Any:
        return self._command_list(req)

    async def _put_commands(self, req: Request) -> Any:
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
        channel = self.channels.get(int(req.params["channel_id"]))
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
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
            data["member"] = {k: v for k, v in self._member(author).items() if k != "user"}
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
        self._violation(req.call, limits.check_message(payload, files, creating=check_empty))
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
            await self.dispatch("MESSAGE_CREATE", self._message_event(message))
        return message

    async def _apply_edit(self, req: Request, message: FakeMessage) -> FakeMessage:
        payload = req.payload if isinstance(req.payload, dict) else {}
        files = [(f.filename, f.data) for f in req.files]
        self._violation(req.call, limits.check_message(payload, files, creating=False))
        was_loading = message.loading
        if "content" in payload:
            message.content = payload["content"] or ""
        if "embeds" in payload:
            message.embeds = payload["embeds"] or []
        if "allowed_mentions" in payload:
            message.allowed_mentions = payload["allowed_mentions"]
        if "components" in payload:
            message.components = payload["components"] or []
        if "flags" in payload and payload["flags"] is not None:
            message.flags = (message.flags & EPHEMERAL) | (payload["flags"] & ~EPHEMERAL & ~LOADING)
        if "attachments" in payload and payload["attachments"] is not None:
            keep = {str(a.get("id")) for a in payload["attachments"]}
            message.attachments = [a for a in message.attachments if str(a.id) in keep]
        message.attachments += self._store_files(req.files, payload)
        message.flags &= ~LOADING
        message.edits += 1
        message.edited_at = time.monotonic()
        req.call.ephemeral = message.ephemeral
        if not message.ephemeral:
            event = "MESSAGE_CREATE" if was_loading else "MESSAGE_UPDATE"
            await self.dispatch(event, self._message_event(message))
        return message

    async def _post_message(self, req: Request) -> Any:
        channel = self._channel(req)
        self._check_send(channel)
        payload = req.payload if isinstance(req.payload, dict) else {}
        message = await self._new_message(req, channel, flags=(payload.get("flags") or 0) & ~EPHEMERAL)
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

    # ------------------------------------------------------------------ REST: channels, users, guilds
    async def _get_channel(self, req: Request) -> Any:
        return self._channel(req).to_json(self.users)

    async def _edit_channel(self, req: Request) -> Any:
        channel = self._channel(req)
        payload = req.payload or {}
        channel.name = payload.get("name", channel.name)
        channel.archived = payload.get("archived", channel.archived)
        channel.locked = payload.get("locked", channel.locked)
        data = channel.to_json(self.users)
        await self.dispatch("THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE", data)
        return data

    async def _delete_channel(self, req: Request) -> Any:
        channel = self._channel(req)
        await self.delete_channel(channel)
        return channel.to_json(self.users)

    async def _create_thread(self, req: Request) -> Any:
        parent = self._channel(req)
        self._check_send(parent)
        payload = req.payload or {}
        thread = self.add_thread(parent, payload.get("name", "thread"), private=payload.get("type") == 12)
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
        guild = self.guilds.get(int(req.params["guild_id"]))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    async def _get_guild(self, req: Request) -> Any:
        data = self._guild_create(self._guild(req))
        for key in ("channels", "threads", "members", "voice_states", "presences"):
            data.pop(key)
        return data

    async def _get_guild_channels(self, req: Request) -> Any:
        return [c.to_json(self.users) for c in self._guild(req).channels if not c.is_thread]

    async def _get_member(self, req: Request) -> Any:
        guild = self._guild(req)
        user_id = int(req.params["user_id"])
        if user_id not in guild.member_ids:
            raise ApiError(404, 10007, "Unknown Member")
        return self._member(self.users[user_id])

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
