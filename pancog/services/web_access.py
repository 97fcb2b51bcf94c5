"""Who may be seen on the web: a guild's league web address, and the hands their players shared. No discord import.

A guild's page is off until a moderator turns it on (``/panadmin web on``). Its address carries a random token
(:func:`secrets.token_urlsafe`, 192 bits): nobody finds it by guessing, and ``off`` (the row deleted) or ``rotate``
(a new token) makes the old address answer 404 at once — the web process looks the token up on every request.

A finished hand is served as a replay only if one of its players shared it (the replay's Share button in Discord
records it here, :meth:`WebAccess.share`); nothing else of a table's log is ever served.

Tables of migration V11 (``web_access``, ``shared_hands``); every statement is here.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from pancog.game.errors import PanError
from pancog.game.i18n import N_
from pancog.infra.storage.base import Storage, StorageTx

__all__ = ["TOKEN_PATTERN", "NotShareable", "SharedHand", "WebAccess", "new_token"]

TOKEN_BYTES = 24
TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_-]{32}$")
"""What a token looks like (``token_urlsafe(24)``): the web answers 404 without a database look-up otherwise."""


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


class NotShareable(PanError):
    code = "not_shareable"

    def __init__(self) -> None:
        super().__init__(N_("Only a finished hand can be shared."))


@dataclass(frozen=True, slots=True, kw_only=True)
class SharedHand:
    table_id: int
    hand_no: int
    guild_id: int
    user_id: int  # who shared it first
    shared_at: int


class WebAccess:
    """Guilds' web addresses and shared hands, on the bot's storage (read-write) or pan-web's (read-only reads)."""

    def __init__(self, storage: Storage, *, clock: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self._clock = clock

    # ------------------------------------------------------------------ the address (the bot)

    async def turn_on(self, guild_id: int, moderator_id: int) -> str:
        """The guild's token, made now if it had none (turning on twice keeps the address)."""
        async with self.storage.transaction() as tx:
            current = await _token_of(tx, guild_id)
            if current is not None:
                return current
            token = new_token()
            await tx.execute(
                "INSERT INTO web_access (guild_id, token, created_by, created_at) VALUES (?, ?, ?, ?)",
                (guild_id, token, moderator_id, int(self._clock())),
            )
            return token

    async def rotate(self, guild_id: int, moderator_id: int) -> str:
        """A new token: the old address stops answering at once (turns the page on if it was off)."""
        token = new_token()
        async with self.storage.transaction() as tx:
            await tx.execute("DELETE FROM web_access WHERE guild_id = ?", (guild_id,))
            await tx.execute(
                "INSERT INTO web_access (guild_id, token, created_by, created_at) VALUES (?, ?, ?, ?)",
                (guild_id, token, moderator_id, int(self._clock())),
            )
        return token

    async def turn_off(self, guild_id: int) -> bool:
        """Forget the guild's token (its address answers 404 from now on); False if it was off already."""
        async with self.storage.transaction() as tx:
            return await tx.execute("DELETE FROM web_access WHERE guild_id = ?", (guild_id,)) == 1

    async def token_of(self, guild_id: int) -> str | None:
        async with self.storage.transaction(write=False) as tx:
            return await _token_of(tx, guild_id)

    # ------------------------------------------------------------------ the address (pan-web)

    async def guild_of(self, token: str) -> int | None:
        """The guild whose page ``token`` opens, None for any other string (no look-up for a malformed one)."""
        if not TOKEN_PATTERN.match(token):
            return None
        async with self.storage.transaction(write=False) as tx:
            rows = await tx.fetchall("SELECT guild_id FROM web_access WHERE token = ?", (token,))
        return int(rows[0][0]) if rows else None

    # ------------------------------------------------------------------ shared hands

    async def share(self, guild_id: int, table_id: int, hand_no: int, user_id: int) -> bool:
        """Record that ``user_id`` shared hand ``hand_no`` of ``table_id`` (the caller checked that the hand is
        finished and that he may share it); False if it was shared before (the first sharer is kept)."""
        async with self.storage.transaction() as tx:
            changed = await tx.execute(
                "INSERT INTO shared_hands (table_id, hand_no, guild_id, user_id, shared_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (table_id, hand_no) DO NOTHING",
                (table_id, hand_no, guild_id, user_id, int(self._clock())),
            )
        return changed == 1

    async def shared_hand(self, guild_id: int, table_id: int, hand_no: int) -> SharedHand | None:
        """The share of one hand of the guild, None if nobody shared it (or it is another guild's)."""
        async with self.storage.transaction(write=False) as tx:
            rows = await tx.fetchall(
                "SELECT table_id, hand_no, guild_id, user_id, shared_at FROM shared_hands "
                "WHERE table_id = ? AND hand_no = ? AND guild_id = ?",
                (table_id, hand_no, guild_id),
            )
        return _shared(rows[0]) if rows else None

    async def shared_hands(self, guild_id: int, *, limit: int = 50) -> list[SharedHand]:
        """The guild's shared hands, newest first."""
        async with self.storage.transaction(write=False) as tx:
            rows = await tx.fetchall(
                "SELECT table_id, hand_no, guild_id, user_id, shared_at FROM shared_hands WHERE guild_id = ? "
                "ORDER BY shared_at DESC, table_id DESC, hand_no DESC LIMIT ?",
                (guild_id, limit),
            )
        return [_shared(r) for r in rows]


async def _token_of(tx: StorageTx, guild_id: int) -> str | None:
    rows = await tx.fetchall("SELECT token FROM web_access WHERE guild_id = ?", (guild_id,))
    return str(rows[0][0]) if rows else None


def _shared(r: tuple[object, ...]) -> SharedHand:
    t, n, g, u, s = (int(v) for v in r)  # type: ignore[call-overload]
    return SharedHand(table_id=t, hand_no=n, guild_id=g, user_id=u, shared_at=s)
