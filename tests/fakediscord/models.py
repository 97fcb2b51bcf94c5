"""The fake's world: users, guilds, channels, messages, interactions and the recorded REST calls."""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from . import components as v2

DISCORD_EPOCH_MS = 1420070400000
EPHEMERAL = 1 << 6
LOADING = 1 << 7
IS_COMPONENTS_V2 = 1 << 15
_counter = itertools.count(1)


def snowflake() -> int:
    """A unique, increasing snowflake (so created_at looks like now)."""
    return ((int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22) | (next(_counter) & 0x3FFFFF)


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(slots=True)
class FakeUser:
    id: int
    name: str
    bot: bool = False
    dms_closed: bool = False  # DMs to this user fail with 403 / 50007
    locale: str = "en-US"  # the Discord client's language: ``locale`` of this user's interactions

    def to_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


@dataclass(slots=True)
class FakeChannel:
    id: int
    type: int  # 0 text, 1 DM, 3 group DM, 11 public thread, 12 private thread
    name: str = ""
    guild_id: int | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    recipient_id: int | None = None  # DM channels with the bot
    position: int = 0
    archived: bool = False
    locked: bool = False
    denied: bool = False  # sending / editing here fails with 403 / 50013 Missing Permissions
    recipient_ids: tuple[int, ...] = ()  # a private channel between users (group DM, or a DM without the bot)
    archived_by: str | None = None  # who archived the thread: "bot", "moderator" or "auto" (inactivity)

    @property
    def is_private(self) -> bool:
        """A group DM or a DM between users: the bot is not in it (interaction context 2)."""
        return bool(self.recipient_ids)

    @property
    def is_thread(self) -> bool:
        return self.type in (10, 11, 12)

    def to_json(self, users: dict[int, FakeUser] | None = None) -> dict[str, Any]:
        if self.is_private:
            people = [users[u].to_json() for u in self.recipient_ids if users and u in users]
            data = {"id": str(self.id), "type": self.type, "recipients": people, "last_message_id": None}
            if self.type == 3:
                data |= {"name": self.name or None, "icon": None, "owner_id": str(self.recipient_ids[0])}
            return data
        if self.type == 1:
            recipients = [users[self.recipient_id].to_json()] if users and self.recipient_id in users else []
            return {"id": str(self.id), "type": 1, "recipients": recipients, "last_message_id": None}
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "name": self.name,
            "guild_id": str(self.guild_id),
            "position": self.position,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": str(self.parent_id) if self.parent_id else None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
        }
        if self.is_thread:
            data |= {
                "owner_id": str(self.owner_id or 0),
                "message_count": 0,
                "member_count": 1,
                "thread_metadata": {
                    "archived": self.archived,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": iso_now(),
                    "locked": self.locked,
                },
            }
        return data


@dataclass(slots=True)
class FakeRole:
    id: int
    name: str
    position: int = 1
    grantable: bool = True  # False: above the bot's highest role, so granting it is 403 / 50013
    managed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": "0",
            "position": self.position,
            "color": 0,
            "hoist": False,
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(slots=True)
class FakeScheduledEvent:
    """A guild scheduled event as Discord stores it (``GuildScheduledEvent`` in discord.py's types)."""

    id: int
    guild_id: int
    creator_id: int
    name: str
    scheduled_start_time: str
    entity_type: int  # 1 stage instance, 2 voice, 3 external
    privacy_level: int = 2  # guild only
    status: int = 1  # 1 scheduled, 2 active, 3 completed, 4 canceled
    description: str | None = None
    scheduled_end_time: str | None = None
    channel_id: int | None = None
    location: str | None = None
    image: str | None = None
    interested: list[int] = field(default_factory=list)  # user ids, in the order they marked interest

    def to_json(self, creator: FakeUser | None = None, *, with_user_count: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "guild_id": str(self.guild_id),
            "channel_id": str(self.channel_id) if self.channel_id else None,
            "creator_id": str(self.creator_id),
            "name": self.name,
            "description": self.description,
            "scheduled_start_time": self.scheduled_start_time,
            "scheduled_end_time": self.scheduled_end_time,
            "privacy_level": self.privacy_level,
            "status": self.status,
            "entity_type": self.entity_type,
            "entity_id": None,
            "entity_metadata": {"location": self.location} if self.location is not None else None,
            "image": self.image,
            "recurrence_rule": None,
        }
        if creator is not None:
            data["creator"] = creator.to_json()
        if with_user_count:
            data["user_count"] = len(self.interested)
        return data


@dataclass(slots=True)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    channels: list[FakeChannel] = field(default_factory=list)
    member_ids: list[int] = field(default_factory=list)
    locale: str = "en-US"  # the server's preferred locale: ``guild_locale`` of interactions there
    roles: dict[int, FakeRole] = field(default_factory=dict)  # besides @everyone (whose id is the guild's)
    member_roles: dict[int, set[int]] = field(default_factory=dict)  # user id -> role ids
    scheduled_events: dict[int, FakeScheduledEvent] = field(default_factory=dict)
    events_denied: bool = False  # the bot lacks Manage Events here: creating or editing an event is 403 / 50013

    def text_channel(self, name: str) -> FakeChannel:
        for channel in self.channels:
            if channel.name == name:
                return channel
        raise KeyError(f"guild {self.name!r} has no channel {name!r}")


@dataclass(slots=True)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    content_type: str
    url: str
    description: str = ""  # the alt text (``discord.File(description=...)``): what a screen reader reads

    def to_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
        } | ({"description": self.description} if self.description else {})


@dataclass(slots=True)
class FakeMessage:
    """A message as the fake stores it. Ephemeral messages are visible to ``visible_to`` only."""

    id: int
    channel_id: int
    guild_id: int | None
    author_id: int
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    interaction_id: int | None = None
    visible_to: int | None = None  # the user who can see an ephemeral message
    allowed_mentions: dict[str, Any] | None = None  # as sent; None: omitted (Discord then parses every mention)
    nonce: str | None = None  # as sent on create (Discord echoes it in the create response)
    deleted: bool = False
    # the flags the message had when the channel first saw it (a create, or a deferred answer's first edit);
    # None while nobody but its author (ephemeral) or nothing (still "thinking") has seen it
    posted_flags: int | None = None
    edits: int = 0
    created_at: float = field(default_factory=time.monotonic)
    edited_at: float | None = None
    timestamp: str = field(default_factory=iso_now)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    @property
    def files(self) -> list[tuple[str, bytes]]:
        return [(a.filename, a.data) for a in self.attachments]

    @property
    def pngs(self) -> list[bytes]:
        return [a.data for a in self.attachments if a.data.startswith(b"\x89PNG")]

    @property
    def v2(self) -> bool:
        """The message uses Components V2 (no content or embeds; text displays, galleries, containers)."""
        return bool(self.flags & IS_COMPONENTS_V2)

    @property
    def posted_v2(self) -> bool:
        """The message was Components V2 when it was posted (a later edit may make a classic message V2)."""
        return self.posted_flags is not None and bool(self.posted_flags & IS_COMPONENTS_V2)

    @property
    def text(self) -> str:
        """Content, the attachments' alt text, every embed's title, description and fields, and (Components V2)
        every text display and the alt text of every image shown: what a reader sees (or hears)."""
        parts = [self.content, *(a.description for a in self.attachments)]  # alt text is read too
        for embed in self.embeds:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            for f in embed.get("fields") or []:
                parts += [f.get("name") or "", f.get("value") or ""]
            parts.append((embed.get("footer") or {}).get("text") or "")
        if self.v2:
            shown = self.seen()
            parts += shown.texts + [i.description for i in shown.images]
        return "\n".join(p for p in parts if p)

    def attachment_named(self, filename: str) -> FakeAttachment | None:
        return next((a for a in self.attachments if a.filename == filename), None)

    def seen(self) -> v2.Seen:
        """What a person sees in a Components V2 message, in reading order: ``texts`` (text displays), ``images``
        (gallery items and thumbnails: attachment name, bytes, alt text), ``files``, ``buttons``, ``selects``."""

        def data(name: str) -> bytes | None:
            found = self.attachment_named(name)
            return found.data if found is not None else None

        return v2.seen(self.components, data)

    def iter_components(self) -> list[dict[str, Any]]:
        """Every component, nested ones too, in reading order."""
        return list(v2.walk(self.components))

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.iter_components() if c.get("type") == v2.BUTTON]

    @property
    def selects(self) -> list[dict[str, Any]]:
        return [c for c in self.iter_components() if c.get("type") in v2.SELECT_TYPES]

    def to_json(self, author: FakeUser) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": author.to_json(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": iso_now() if self.edits else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.to_json() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": 0 if self.interaction_id is None else 20,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.interaction_id is not None:
            data["application_id"] = str(author.id)
        if self.nonce is not None:
            data["nonce"] = self.nonce
        return data


@dataclass(slots=True)
class FakeInteraction:
    """One interaction the fake dispatched, and everything the bot answered to it."""

    id: int
    token: str
    type: int  # 2 command, 3 component, 4 autocomplete, 5 modal submit
    user_id: int
    channel_id: int
    guild_id: int | None
    label: str  # e.g. "/pan open" or "click pan:t:1:draw"
    data: dict[str, Any]
    message_id: int | None = None  # the clicked message (components)
    context: int = 0  # 0 guild, 1 the bot's DM, 2 a private channel (group DM / DM between users)
    owners: dict[str, str] = field(default_factory=dict)  # authorizing_integration_owners: "0" guild, "1" user
    locale: str = "en-US"
    dispatched_at: float = field(default_factory=time.monotonic)
    callback_type: int | None = None
    callback_at: float | None = None
    original_id: int | None = None  # the response message (or the clicked one after type 6/7)
    followup_ids: list[int] = field(default_factory=list)
    followups_sent: int = 0  # every followup accepted, the one replacing a "thinking" defer included
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None
    loading: bool = False  # deferred "thinking" (type 5) not yet replaced by a followup or an edit
    abandoned: bool = False  # the driver gave up waiting; idle() no longer waits for it
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def user_installed_only(self) -> bool:
        """Authorized only by the user's install (the app is not installed where it was used)."""
        return set(self.owners) == {"1"}

    @property
    def settled(self) -> bool:
        """True when the user sees a final answer (a deferred "thinking" needs its followup or edit)."""
        return self.callback_type is not None and not self.loading


@dataclass(slots=True)
class RecordedFile:
    filename: str
    data: bytes


@dataclass(slots=True)
class RestCall:
    """One REST request the bot made, as the fake saw it."""

    method: str
    path: str
    route: str  # the template, e.g. "POST /channels/{channel_id}/messages"
    global_limit: bool  # counts toward the 50/s global limit (interaction endpoints do not)
    at: float  # time.monotonic() when the request arrived
    read_lag: float = 0.0  # how long after it arrived (the kernel's stamp) the fake read its first bytes
    status: int = 0
    channel_id: int | None = None
    interaction_id: int | None = None
    ephemeral: bool = False
    payload: dict[str, Any] | None = None
    files: list[RecordedFile] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    injected: str | None = None  # "429", "500", ... when a fault was injected
    deduplicated: bool = False  # a message create whose nonce returned an earlier message (nothing created)

    @property
    def content(self) -> str | None:
        return (self.payload or {}).get("content")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return (self.payload or {}).get("embeds") or []

    @property
    def components(self) -> list[dict[str, Any]]:
        data = self.payload or {}
        if "type" in data and isinstance(data.get("data"), dict):  # interaction callback
            return data["data"].get("components") or []
        return data.get("components") or []
