"""Per-player preferences: hand DMs (every change / every turn / at the deal / off), turn pings (turn / off),
sort order, four-colour deck, the layout of the player's images (wide, or phone: portrait),
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
from typing import Literal, Protocol

from pancog.game.i18n import LANGUAGES
from pancog.infra.storage.base import Storage


class DmMode(StrEnum):
    EVERY = "every"  # a DM at the deal and after every change to the hand
    TURN = "turn"  # a DM at the deal and at each of the player's turns ("your turn at #table"), after the grace
    DEAL = "deal"  # a DM at the deal only (default)
    OFF = "off"  # never: use My hand


class PingMode(StrEnum):
    TURN = "turn"  # mention the player in the channel when it is his turn (default)
    OFF = "off"


class SortOrder(StrEnum):
    SUIT = "suit"
    RANK = "rank"


class Layout(StrEnum):
    """How a player's private images are laid out. Discord tells a bot nothing of the client's platform (an
    interaction carries no platform; only the privileged presence intent says whether a member is online on a
    phone at all), so this is the player's own choice (``/pan settings layout``)."""

    WIDE = "wide"  # the landscape board and hand strip (default)
    PHONE = "phone"  # My hand: one portrait image, the table over the hand (renderer.panel); hand DMs in portrait

    @property
    def renderer_layout(self) -> Literal["landscape", "portrait"]:
        return "portrait" if self is Layout.PHONE else "landscape"


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerPrefs:
    dm_mode: DmMode = DmMode.DEAL
    sort: SortOrder = SortOrder.SUIT
    four_color: bool = False
    ping: PingMode = PingMode.TURN
    dm_closed: bool = False  # a DM was refused (50007): never try again
    notice_pending: bool = False  # tell the player once, privately, to use My hand
    layout: Layout = Layout.WIDE
    language: str = ""  # Pan's language for this player ("en", "es", "tl"); "" = his Discord client's, or the server's

    def to_json(self) -> str:
        return json.dumps(
            {
                "dm_mode": self.dm_mode.value,
                "sort": self.sort.value,
                "four_color": self.four_color,
                "ping": self.ping.value,
                "dm_closed": self.dm_closed,
                "notice_pending": self.notice_pending,
                "layout": self.layout.value,
                "language": self.language,
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
            layout=_layout(data.get("layout")),
            language=_language(data.get("language")),
        )


_PLAYER_DEFAULTS = PlayerPrefs()


def _layout(value: object) -> Layout:
    """A stored layout, or the default for anything else (a value written by a later version is not an error)."""
    return Layout(value) if isinstance(value, str) and value in tuple(Layout) else Layout.WIDE


def _language(value: object) -> str:
    """A stored language code, or "" (choose from Discord's locale) for anything Pan does not speak."""
    return value if isinstance(value, str) and value in LANGUAGES else ""


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
        prefs = self._cache.get(user_id)
        return _PLAYER_DEFAULTS if prefs is None else prefs  # frozen: one default object serves every caller

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


class GuildPrefsKV:
    """Per-server settings kept in the player-preferences key-value table, so no schema change is needed: one
    JSON object per server under the key ``-guild_id`` (player ids are positive; computer players' small negative
    ids never reach a server id's size), one section per feature (``channels``, ``display``).

    It is also the durable :class:`GuildDisplayStore` (section ``display``) of :class:`GuildDisplaySettings`."""

    def __init__(self, store: PlayerSettingsStore | None = None) -> None:
        self._store = store or MemoryPrefsStore()

    async def _doc(self, guild_id: int) -> dict[str, object]:
        text = await self._store.load_player_prefs(-abs(guild_id)) if guild_id else None
        found = json.loads(text) if text else {}
        return found if isinstance(found, dict) else {}

    async def load(self, guild_id: int, section: str) -> object | None:
        return (await self._doc(guild_id)).get(section)

    async def save(self, guild_id: int, section: str, value: object) -> None:
        doc = await self._doc(guild_id)
        doc[section] = value
        await self._store.save_player_prefs(-abs(guild_id), json.dumps(doc, sort_keys=True))

    async def load_guild_display(self, guild_id: int) -> str | None:
        found = await self.load(guild_id, "display")
        return json.dumps(found) if found is not None else None

    async def save_guild_display(self, guild_id: int, prefs: str) -> None:
        await self.save(guild_id, "display", json.loads(prefs))


class GuildChannels:
    """The channels a server allows Pan in (``/panadmin channels``); an empty set means every channel. Stored in
    the ``channels`` section of :class:`GuildPrefsKV`; cached per server."""

    def __init__(self, kv: GuildPrefsKV | None = None) -> None:
        self._kv = kv or GuildPrefsKV()
        self._cache: dict[int, frozenset[int]] = {}

    async def allowed(self, guild_id: int) -> frozenset[int]:
        cached = self._cache.get(guild_id)
        if cached is not None:
            return cached
        found = await self._kv.load(guild_id, "channels")
        channels = frozenset(int(c) for c in found) if isinstance(found, list) else frozenset()
        self._cache[guild_id] = channels
        return channels

    async def permits(self, guild_id: int, *channel_ids: int | None) -> bool:
        """Whether Pan may be used in a channel (or thread) given as itself and its parent."""
        allowed = await self.allowed(guild_id)
        return not allowed or any(c in allowed for c in channel_ids if c is not None)

    async def _save(self, guild_id: int, channels: frozenset[int]) -> frozenset[int]:
        self._cache[guild_id] = channels
        await self._kv.save(guild_id, "channels", sorted(channels))
        return channels

    async def add(self, guild_id: int, channel_id: int) -> frozenset[int]:
        return await self._save(guild_id, await self.allowed(guild_id) | {channel_id})

    async def remove(self, guild_id: int, channel_id: int) -> frozenset[int]:
        return await self._save(guild_id, await self.allowed(guild_id) - {channel_id})

    async def clear(self, guild_id: int) -> frozenset[int]:
        return await self._save(guild_id, frozenset())


PING_AFTER_DEFAULT = 5.0
"""Seconds a person may take to act before the turn ping mentions them (``/panadmin config ping_after``): an
attentive player acts before it and is never pinged (no message, no delete); one who looked away is notified."""
PING_AFTER_MAX = 60.0


@dataclass(frozen=True, slots=True, kw_only=True)
class GuildDisplayPrefs:
    """A server's choices for its public channel: the four-colour deck (diamonds blue, clubs green) on the public
    board and the end-of-hand image (each player's own hand keeps `PlayerPrefs.four_color`), the public board's
    layout (wide, or phone: portrait, for servers that play mostly on phones; each player's own images keep
    `PlayerPrefs.layout`), and how long the turn ping waits for the player to act."""

    four_color: bool = False
    ping_after: float = PING_AFTER_DEFAULT  # seconds a person may take before the turn ping goes out (0: at once)
    board_layout: Layout = Layout.WIDE
    language: str = ""  # the server's language for public posts and players without one ("" = Discord's guild locale)

    def to_json(self) -> str:
        return json.dumps(
            {
                "four_color": self.four_color,
                "ping_after": self.ping_after,
                "board_layout": self.board_layout.value,
                "language": self.language,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> GuildDisplayPrefs:
        data = json.loads(text)
        after = data.get("ping_after", PING_AFTER_DEFAULT)
        ping_after = float(after) if isinstance(after, int | float) and 0 <= after <= PING_AFTER_MAX else None
        return cls(
            four_color=bool(data.get("four_color", False)),
            ping_after=PING_AFTER_DEFAULT if ping_after is None else ping_after,
            board_layout=_layout(data.get("board_layout")),
            language=_language(data.get("language")),
        )


_GUILD_DISPLAY_DEFAULTS = GuildDisplayPrefs()


class GuildDisplayStore(Protocol):
    async def load_guild_display(self, guild_id: int) -> str | None: ...

    async def save_guild_display(self, guild_id: int, prefs: str) -> None: ...


class MemoryGuildDisplayStore:
    def __init__(self) -> None:
        self.data: dict[int, str] = {}

    async def load_guild_display(self, guild_id: int) -> str | None:
        return self.data.get(guild_id)

    async def save_guild_display(self, guild_id: int, prefs: str) -> None:
        self.data[guild_id] = prefs


class GuildDisplaySettings:
    """Cached per-server image preferences. `cached` answers synchronously (the board renders off the event
    loop from a captured snapshot), so `get` must have run for the guild once, e.g. when a table opens."""

    def __init__(self, store: GuildDisplayStore | None = None) -> None:
        self._store = store or MemoryGuildDisplayStore()
        self._cache: dict[int, GuildDisplayPrefs] = {}

    async def get(self, guild_id: int) -> GuildDisplayPrefs:
        cached = self._cache.get(guild_id)
        if cached is not None:
            return cached
        text = await self._store.load_guild_display(guild_id)
        prefs = GuildDisplayPrefs.from_json(text) if text else GuildDisplayPrefs()
        self._cache[guild_id] = prefs
        return prefs

    def cached(self, guild_id: int) -> GuildDisplayPrefs:
        prefs = self._cache.get(guild_id)
        return _GUILD_DISPLAY_DEFAULTS if prefs is None else prefs

    async def set_four_color(self, guild_id: int, on: bool) -> GuildDisplayPrefs:
        return await self._save(guild_id, dataclasses.replace(await self.get(guild_id), four_color=on))

    async def set_board_layout(self, guild_id: int, layout: Layout) -> GuildDisplayPrefs:
        return await self._save(guild_id, dataclasses.replace(await self.get(guild_id), board_layout=layout))

    async def set_language(self, guild_id: int, language: str) -> GuildDisplayPrefs:
        return await self._save(guild_id, dataclasses.replace(await self.get(guild_id), language=_language(language)))

    async def set_ping_after(self, guild_id: int, seconds: float) -> GuildDisplayPrefs:
        if not 0 <= seconds <= PING_AFTER_MAX:
            raise ValueError(f"ping_after must be 0..{PING_AFTER_MAX:g} seconds")
        return await self._save(guild_id, dataclasses.replace(await self.get(guild_id), ping_after=float(seconds)))

    async def _save(self, guild_id: int, prefs: GuildDisplayPrefs) -> GuildDisplayPrefs:
        self._cache[guild_id] = prefs
        await self._store.save_guild_display(guild_id, prefs.to_json())
        return prefs
