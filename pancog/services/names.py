"""The display names of the members the bot has seen, per guild, kept across restarts.

Standings, leaderboards, flags, the champion line, tournament seats and results name people who may not have used a
command since the bot started; without a stored name they read "Player 9701". :class:`Names` keeps the last display
name seen per (guild, member) in the table ``member_names`` (migration V9) behind an in-memory cache:

* :meth:`Names.seen` — the adapter reports every member it sees (who used a command or a button, the members an
  option resolved). Synchronous and free on the hot path: an unchanged name costs a dict lookup; a new or changed
  one is written later, in a batch (:meth:`flush`, ``flush_delay`` seconds after the first change), and only if
  the stored name differs.
* :meth:`Names.fetch` — before a list of people is drawn or written: loads the names of ``user_ids`` the cache does
  not know, in one query, and returns them as a plain ``dict`` (picklable: render workers take it).
* :meth:`Names.of` — the cache's view of one guild as a ``Mapping`` for the paths that cannot wait (a board
  redrawn by a table listener); their players were fetched when they sat down or when the table was loaded.

A practice table's guild id is the guild's, negated: both read the guild's names. Computer players (negative ids)
are never stored; they keep their own names (``pancog.services.bots.computer_name``).

No discord import: the adapter turns members into ``(guild, id, display name)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping

from pancog.infra.storage.base import Storage
from pancog.infra.tasks import Tasks

__all__ = ["GuildNames", "Names"]

log = logging.getLogger("pan.names")

_CHUNK = 500  # ids per IN (...) query
_UPSERT = (
    "INSERT INTO member_names (guild_id, user_id, name, seen_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (guild_id, user_id) DO UPDATE SET name = excluded.name, seen_at = excluded.seen_at"
)

Key = tuple[int, int]


def _key(guild_id: int, user_id: int) -> Key:
    return abs(guild_id), user_id


class GuildNames(Mapping[int, str]):
    """One guild's names as the cache holds them now (a live view: a name seen later shows up)."""

    def __init__(self, names: Names, guild_id: int) -> None:
        self._names = names
        self._guild = abs(guild_id)

    def __getitem__(self, user_id: int) -> str:
        found = self._names.get(self._guild, user_id)
        if found is None:
            raise KeyError(user_id)
        return found

    def get(self, user_id: int, default: str | None = None) -> str | None:  # type: ignore[override]
        """Without raising on a miss (boards ask it for every seat, computer players included)."""
        found = self._names.get(self._guild, user_id)
        return default if found is None else found

    def __iter__(self) -> Iterator[int]:
        return iter([u for (g, u), name in list(self._names._cache.items()) if g == self._guild and name])

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Names:
    """Display names per (guild, member): a cache in front of ``member_names``, written in batches.

    ``capacity``: names kept in memory (the oldest known ones are dropped past it; never one not yet written).
    """

    def __init__(
        self,
        storage: Storage,
        *,
        clock: Callable[[], float] = time.time,
        flush_delay: float = 1.0,
        capacity: int = 200_000,
    ) -> None:
        self.storage = storage
        self._clock = clock
        self.flush_delay = flush_delay
        self.capacity = capacity
        self._cache: dict[Key, str | None] = {}  # None: looked up, nothing stored
        self._pending: dict[Key, str] = {}
        self._flusher: asyncio.TimerHandle | None = None
        self._flushing: asyncio.Task[int] | None = None
        self._tasks = Tasks("names", logger=log)
        self.writes = 0  # names written (tests and /panadmin status)

    # ------------------------------------------------------------------ seeing members

    def seen(self, guild_id: int, user_id: int, name: str) -> None:
        """The member ``user_id`` of ``guild_id`` is called ``name`` now. Written later, only if it changed."""
        if user_id <= 0 or not name:  # guild 0 too: the tables of no server (user-installed practice)
            return
        key = _key(guild_id, user_id)
        if self._cache.get(key) == name:
            return
        self._cache[key] = name
        self._pending[key] = name
        self._schedule()

    def _schedule(self) -> None:
        if self._flusher is not None or self._flushing is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous caller): the next flush() writes it
            return
        self._flusher = loop.call_later(self.flush_delay, self._start_flush)

    def _start_flush(self) -> None:
        self._flusher = None
        self._flushing = self._tasks.spawn(self._flush_soon(), name="names-flush")

    async def _flush_soon(self) -> int:
        try:
            return await self.flush()
        except Exception:  # kept pending: the next name seen (or close) tries again
            log.exception("storing %d display name(s) failed", len(self._pending))
            return 0
        finally:
            self._flushing = None
            if self._pending:
                self._schedule()

    async def flush(self) -> int:
        """Write the names seen since the last flush whose stored name differs; returns how many were written."""
        batch, self._pending = self._pending, {}
        if not batch:
            return 0
        try:
            stored = await self._read(batch.keys())
            changed = [(k, name) for k, name in batch.items() if stored.get(k) != name]
            if changed:
                now = self._clock()
                async with self.storage.transaction() as tx:
                    await tx.execute_batch([(_UPSERT, (g, u, name, now)) for (g, u), name in changed])
            self.writes += len(changed)
        except BaseException:
            for key, name in batch.items():  # not written: keep them for the next flush (a newer name wins)
                self._pending.setdefault(key, name)
            raise
        self._trim()
        return len(changed)

    @property
    def cached(self) -> int:
        """Names (and known absences) held in memory."""
        return len(self._cache)

    @property
    def pending(self) -> int:
        """Names seen but not written yet."""
        return len(self._pending)

    async def close(self) -> None:
        """Stop the timer and write what is pending (the bot is shutting down)."""
        if self._flusher is not None:
            self._flusher.cancel()
            self._flusher = None
        if self._flushing is not None:
            with contextlib.suppress(Exception):
                await self._flushing
        await self.flush()

    # ------------------------------------------------------------------ reading

    def get(self, guild_id: int, user_id: int) -> str | None:
        """The name the cache holds (no database read; see :meth:`fetch`)."""
        return self._cache.get(_key(guild_id, user_id))

    def of(self, guild_id: int) -> GuildNames:
        """The cache's view of one guild, for code that cannot await (its people fetched beforehand)."""
        return GuildNames(self, guild_id)

    async def fetch(self, guild_id: int, user_ids: Iterable[int | None]) -> dict[int, str]:
        """The stored names of ``user_ids`` in ``guild_id`` (one query for those the cache does not know yet), as a
        plain dict of those that have one. Call it before drawing or writing a list of people."""
        wanted = {u for u in user_ids if u is not None and u > 0}
        missing = [_key(guild_id, u) for u in wanted if _key(guild_id, u) not in self._cache]
        found = await self._read(missing) if missing else {}
        for key in missing:
            if key not in self._cache:  # a name seen meanwhile is newer than the stored one
                self._cache[key] = found.get(key)
        out: dict[int, str] = {}
        for user in wanted:
            name = self._cache.get(_key(guild_id, user))
            if name:
                out[user] = name
        self._trim()  # after the answer is built: what was just read is in it even if the cache drops it
        return out

    async def _read(self, keys: Iterable[Key]) -> dict[Key, str]:
        by_guild: dict[int, list[int]] = {}
        for guild, user in keys:
            by_guild.setdefault(guild, []).append(user)
        found: dict[Key, str] = {}
        async with self.storage.transaction(write=False) as tx:
            for guild, users in by_guild.items():
                for i in range(0, len(users), _CHUNK):
                    chunk = users[i : i + _CHUNK]
                    marks = ", ".join("?" * len(chunk))
                    rows = await tx.fetchall(
                        f"SELECT user_id, name FROM member_names WHERE guild_id = ? AND user_id IN ({marks})",  # noqa: S608
                        (guild, *chunk),
                    )
                    found.update({(guild, int(u)): str(n) for u, n in rows})
        return found

    def _trim(self) -> None:
        """Drop the oldest cached names past ``capacity`` (dicts keep insertion order), never a pending one."""
        excess = len(self._cache) - self.capacity
        if excess <= 0:
            return
        for key in list(self._cache)[: excess + self.capacity // 10]:
            if key not in self._pending:
                del self._cache[key]
