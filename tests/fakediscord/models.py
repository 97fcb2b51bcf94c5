"""The fake's world: users, guilds, channels, messages, interactions and the recorded REST calls."""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

DISCORD_EPOCH_MS = 1420070400000
EPHEMERAL = 1 << 6
LOADING = 1 << 7
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
    type: int  # 0 text, 1 DM, 11 public thread, 12 private thread
    name: str = ""
    guild_id: int | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    recipient_id: int | None = None  # DM channels
    position: int = 0
    archived: bool = False
    locked: bool = False
    denied: bool = False  # sending / editing here fails with 403 / 50013 Missing Permissions

    @property
    def is_thread(self) -> bool:
        return self.type in (10, 11, 12)

    def to_json(self, users: dict[int, FakeUser] | None = None) -> dict[str, Any]:
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
class FakeGuild:
    id: int
    name: str
    owner_id: int
    channels: list[FakeChannel] = field(default_factory=list)
    member_ids: list[int] = field(default_factory=list)

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
    deleted: bool = False
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
    def text(self) -> str:
        """Content, the attachments' alt text, and every embed's title, description and fields: what a reader
        sees (or hears)."""
        parts = [self.content, *(a.description for a in self.attachments)]  # alt text is read too
        for embed in self.embeds:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            for f in embed.get("fields") or []:
                parts += [f.get("name") or "", f.get("value") or ""]
            parts.append((embed.get("footer") or {}).get("text") or "")
        return "\n".join(p for p in parts if p)

    def iter_components(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        stack = list(reversed(self.components))
        while stack:
            component = stack.pop()
            found.append(component)
            stack.extend(reversed(component.get("components") or []))
            if "accessory" in component:
                stack.append(component["accessory"])
        return found

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.iter_components() if c.get("type") == 2]

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
    dispatched_at: float = field(default_factory=time.monotonic)
    callback_type: int | None = None
    callback_at: float | None = None
    original_id: int | None = None  # the response message (or the clicked one after type 6/7)
    followup_ids: list[int] = field(default_factory=list)
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None
    loading: bool = False  # deferred "thinking" (type 5) not yet replaced by a followup or an edit
    abandoned: bool = False  # the driver gave up waiting; idle() no longer waits for it
    changed: asyncio.Event = field(default_factory=asyncio.Event)

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
    status: int = 0
    channel_id: int | None = None
    interaction_id: int | None = None
    ephemeral: bool = False
    payload: dict[str, Any] | None = None
    files: list[RecordedFile] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    injected: str | None = None  # "429", "500", ... when a fault was injected

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
