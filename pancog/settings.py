"""Per-player preferences: hand DMs (every change / every turn / at the deal / off), turn pings (turn / off),
sort order, four-colour deck,
and the remembered "DMs closed" flag (a refused DM is never retried). No discord imports.

Stored as one JSON text per player through :class:`PlayerSettingsStore` (a small key-value protocol);
the in-memory default keeps them for the life of the process.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from pancog.storage.base import Storage


class DmMode(StrEnum):
    EVERY = "every"  # a DM at the deal and after every change to the hand
    TURN = "turn"  # a DM at the deal and at each of the player's turns ("your turn at #table")
    DEAL = "deal"  # a DM at the deal only (default)
    OFF = "off"  # never: use My hand


class PingMode(StrEnum):
    TURN = "turn"  # mention the player in the channel when it is his turn (default)
    OFF = "off"


class SortOrder(StrEnum):
    SUIT = "suit"
    RANK = "rank"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerPrefs:
    dm_mode: DmMode = DmMode.DEAL
    sort: SortOrder = SortOrder.SUIT
    four_color: bool = False
    ping: PingMode = PingMode.TURN
    dm_closed: bool = False  # a DM was refused (50007): never try again
    notice_pending: bool = False  # tell the player once, privately, to use My hand

    def to_json(self) -> str:
        return json.dumps(
            {
                "dm_mode": self.dm_mode.value,
                "sort": self.sort.value,
                "four_color": self.four_color,
                "ping": self.ping.value,
                "dm_closed": self.dm_closed,
                "notice_pending": self.notice_pending,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> PlayerPrefs:
        data = json.loads(text)
        return cls(
            dm_mode=DmMode(data.get("dm_mode", "deal")),
            sort=SortOrder(data.get("sort", "suit")),
            four_color=bool(data.get("four_color", False)),
            ping=PingMode(data.get("ping", "turn")),
            dm_closed=bool(data.get("dm_closed", False)),
            notice_pending=bool(data.get("notice_pending", False)),
        )


class PlayerSettingsStore(Protocol):
    async def load_player_prefs(self, user_id: int) -> str | None: ...

    async def save_player_prefs(self, user_id: int, prefs: str) -> None: ...


class MemoryPrefsStore:
    def __init__(self) -> None:
        self.data: dict[int, str] = {}

    async def load_player_prefs(self, user_id: int) -> str | None:
        return self.data.get(user_id)

    async def save_player_prefs(self, user_id: int, prefs: str) -> None:
        self.data[user_id] = prefs


class StoragePrefsStore:
    """Player preferences in the bot's database (``player_settings``, migration V3)."""

    def __init__(self, storage: Storage, *, clock: Callable[[], float] = time.time) -> None:
        self._storage = storage
        self._clock = clock

    async def load_player_prefs(self, user_id: int) -> str | None:
        async with self._storage.transaction(write=False) as tx:
            return await tx.get_player_prefs(user_id)

    async def save_player_prefs(self, user_id: int, prefs: str) -> None:
        async with self._storage.transaction() as tx:
            await tx.put_player_prefs(user_id, prefs, self._clock())


class PlayerSettings:
    """Cached player preferences."""

    def __init__(self, store: PlayerSettingsStore | None = None) -> None:
        self._store = store or MemoryPrefsStore()
        self._cache: dict[int, PlayerPrefs] = {}

    async def get(self, user_id: int) -> PlayerPrefs:
        cached = self._cache.get(user_id)
        if cached is not None:
            return cached
        text = await self._store.load_player_prefs(user_id)
        prefs = PlayerPrefs.from_json(text) if text else PlayerPrefs()
        self._cache[user_id] = prefs
        return prefs

    def cached(self, user_id: int) -> PlayerPrefs:
        """The preferences if loaded, else the defaults (for synchronous paths)."""
        return self._cache.get(user_id, PlayerPrefs())

    async def update(self, user_id: int, **changes: object) -> PlayerPrefs:
        prefs = dataclasses.replace(await self.get(user_id), **changes)  # type: ignore[arg-type]
        self._cache[user_id] = prefs
        await self._store.save_player_prefs(user_id, prefs.to_json())
        return prefs

    async def dm_refused(self, user_id: int) -> None:
        await self.update(user_id, dm_closed=True, notice_pending=True)

    async def take_notice(self, user_id: int) -> bool:
        """True once after a refused DM (the caller tells the player to use My hand)."""
        prefs = await self.get(user_id)
        if not prefs.notice_pending:
            return False
        await self.update(user_id, notice_pending=False)
        return True


class GuildChannels:
    """The channels a server allows Pan in (``/panadmin channels``); an empty set means every channel.

    Stored as a JSON list through the same key-value store as the player preferences, under the key
    ``-guild_id`` (player ids are positive; computer players' small negative ids never reach this size), so no
    schema change is needed. Cached per server."""

    def __init__(self, store: PlayerSettingsStore | None = None) -> None:
        self._store = store or MemoryPrefsStore()
        self._cache: dict[int, frozenset[int]] = {}

    async def allowed(self, guild_id: int) -> frozenset[int]:
        cached = self._cache.get(guild_id)
        if cached is not None:
            return cached
        text = await self._store.load_player_prefs(-abs(guild_id)) if guild_id else None
        found = frozenset(int(c) for c in json.loads(text)) if text else frozenset()
        self._cache[guild_id] = found
        return found

    async def permits(self, guild_id: int, *channel_ids: int | None) -> bool:
        """Whether Pan may be used in a channel (or thread) given as itself and its parent."""
        allowed = await self.allowed(guild_id)
        return not allowed or any(c in allowed for c in channel_ids if c is not None)

    async def _save(self, guild_id: int, channels: frozenset[int]) -> frozenset[int]:
        self._cache[guild_id] = channels
        await self._store.save_player_prefs(-abs(guild_id), json.dumps(sorted(channels)))
        return channels

    async def add(self, guild_id: int, channel_id: int) -> frozenset[int]:
        return await self._save(guild_id, await self.allowed(guild_id) | {channel_id})

    async def remove(self, guild_id: int, channel_id: int) -> frozenset[int]:
        return await self._save(guild_id, await self.allowed(guild_id) - {channel_id})

    async def clear(self, guild_id: int) -> frozenset[int]:
        return await self._save(guild_id, frozenset())
