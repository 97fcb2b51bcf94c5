"""What every room of the tournament service shares: the tournaments in memory, one lock per tournament, the
listeners, the background steps, and the one way a tournament changes — compute on a :class:`Draft`, commit it
with its postings in one transaction, then swap it into memory (:meth:`Core.commit`), as the table service does.

A failed commit (a refused posting, a database error, a lost shard lease) leaves the tournament in memory exactly as
it was: nothing was changed there, so nothing is reloaded. A commit that reached the database is always swapped in,
even if its caller is cancelled meanwhile.

Every write is fenced by the guild's shard lease (:meth:`pancog.services.store.TableStore.fence_guild`): a tournament
lives on the process that owns its guild's shard, and a stale process writes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any

from pancog.infra.storage.base import Posting, StorageTx
from pancog.infra.tasks import Tasks
from pancog.services.ledger import ChipLedger, post_transaction
from pancog.services.outbox import Outbox
from pancog.services.tables import TableService

from .errors import NoSuchTournament
from .events import TournamentEvent
from .model import Entry, Tournament, TTable
from .repository import TournamentRepository

__all__ = [
    "RESULTS_POST",
    "Also",
    "ChannelFactory",
    "Core",
    "Draft",
    "Effect",
    "FinishHook",
    "FinishNote",
    "Post",
    "Rows",
]

log = logging.getLogger("pan.tournaments")

ChannelFactory = Callable[[Tournament, int], Awaitable[int]]
"""The adapter's table channels: ``factory(t, table_no)`` creates the channel (a thread) of a new table, its id."""

Post = tuple[Sequence[Posting], str, str]
"""Postings of a step, their idempotency key's tail (``tny:<T>:<tail>``) and the journal's reason."""
Effect = tuple[str, str, Mapping[str, Any]]
"""A Discord side effect owed by a step: (outbox key, kind, payload), enqueued in the step's transaction."""

RESULTS_POST = "tourney.results"
"""The outbox kind of a tournament's results post (payload ``tournament_id``): owed in the transaction that pays the
prizes, so a process killed right after that commit still posts them after its restart (the adapter delivers it)."""

Also = Callable[[StorageTx, int], Awaitable[None]]
"""What a caller stores with a new tournament, in the creating transaction: ``also(tx, tournament_id)`` (a league
listing it in a series); raising refuses the creation."""

FinishNote = Callable[[StorageTx], Awaitable[str | None]]
"""A finished tournament's result to record: called inside the transaction that pays the prizes, before their journal
row is written; the text it returns is stored on that row (as a hand's result rides on its settlement's row)."""
FinishHook = Callable[[int, int, Sequence[tuple[int, int]], frozenset[int]], FinishNote | None]
"""``hook(guild_id, tournament_id, places, cashed)``: ``places`` are (player, best finishing place) of every player,
``cashed`` the players paid a prize. Registered by the composition root (a chip league records the result)."""

Rows = Callable[[StorageTx], Awaitable[None]]
"""More rows a step writes in its own transaction (a room's table beside the tournament's: a deal)."""

_ENTRY_FIELDS = tuple(f.name for f in dataclasses.fields(Entry))
_TABLE_FIELDS = tuple(f.name for f in dataclasses.fields(TTable))
_HEAD_FIELDS = tuple(f.name for f in dataclasses.fields(Tournament) if f.name not in ("entries", "tables"))


class Draft:
    """One step's change to a tournament, made on copies: ``t`` reads as the tournament with the change, and the
    tournament in memory is untouched until the step commits.

    Change an entry or a table only through :meth:`entry` / :meth:`table` (copied on first write) or add one with
    :meth:`add_entry` / :meth:`add_table`; change the tournament's own fields on ``t``.
    """

    def __init__(self, live: Tournament) -> None:
        self.live = live
        self.t = dataclasses.replace(live, entries=dict(live.entries), tables=dict(live.tables))
        self.changed_entries: dict[int, Entry] = {}
        self.changed_tables: dict[int, TTable] = {}

    def entry(self, entry_id: int) -> Entry:
        if entry_id not in self.changed_entries:
            self.add_entry(dataclasses.replace(self.t.entries[entry_id]))
        return self.changed_entries[entry_id]

    def add_entry(self, entry: Entry) -> None:
        self.changed_entries[entry.entry_id] = self.t.entries[entry.entry_id] = entry

    def table(self, table_no: int) -> TTable:
        if table_no not in self.changed_tables:
            tt = self.t.tables[table_no]
            self.add_table(dataclasses.replace(tt, hand_stacks=dict(tt.hand_stacks)))
        return self.changed_tables[table_no]

    def add_table(self, tt: TTable) -> None:
        self.changed_tables[tt.table_no] = self.t.tables[tt.table_no] = tt

    def swap(self) -> None:
        """Make memory what was committed: the tournament's fields, then each changed entry and table, in place
        (whoever holds the tournament or one of its entries sees the change)."""
        live = self.live
        for name in _HEAD_FIELDS:
            setattr(live, name, getattr(self.t, name))
        for entry_id, entry in self.changed_entries.items():
            _copy_into(live.entries, entry_id, entry, _ENTRY_FIELDS)
        for table_no, tt in self.changed_tables.items():
            _copy_into(live.tables, table_no, tt, _TABLE_FIELDS)


def _copy_into(into: dict[int, Any], key: int, value: Any, names: tuple[str, ...]) -> None:
    current = into.get(key)
    if current is None:
        into[key] = value
        return
    for name in names:
        setattr(current, name, getattr(value, name))


class Core:
    """The registry in memory and the commit path every room uses."""

    def __init__(
        self,
        tables: TableService,
        repository: TournamentRepository,
        clock: Callable[[], float] = time.time,
        *,
        outbox: Outbox | None = None,
    ) -> None:
        self.tables = tables
        self.outbox = outbox
        self.ledger: ChipLedger = tables.ledger
        self.storage = tables.ledger.storage
        self.store = tables.store
        self.repo = repository
        self.clock = clock
        self.tournaments: dict[int, Tournament] = {}
        self.by_table: dict[int, int] = {}  # TableService table id -> tournament id
        self.tasks = Tasks("tournaments", logger=log)  # the steps between hands and an away entry's timeouts
        self._locks: dict[int, asyncio.Lock] = {}
        self._listeners: list[Callable[[TournamentEvent], None]] = []
        self.finish_hook: FinishHook | None = None

    # ------------------------------------------------------------------ registry

    def get(self, tournament_id: int) -> Tournament:
        t = self.tournaments.get(tournament_id)
        if t is None:
            raise NoSuchTournament
        return t

    def add(self, t: Tournament) -> None:
        self.tournaments[t.tournament_id] = t
        for tt in t.tables.values():
            self.by_table[tt.table_id] = t.tournament_id

    def forget(self, t: Tournament) -> None:
        """Drop a tournament this process no longer serves (its guild's shard lease went to a newer process)."""
        self.tournaments.pop(t.tournament_id, None)
        for table_id in [k for k, v in self.by_table.items() if v == t.tournament_id]:
            del self.by_table[table_id]

    def lock(self, tournament_id: int) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    # ------------------------------------------------------------------ events and background steps

    def subscribe(self, listener: Callable[[TournamentEvent], None]) -> None:
        self._listeners.append(listener)

    def emit(self, event: TournamentEvent) -> None:
        for listener in self._listeners:
            try:
                listener(event)
            except Exception:
                log.exception("tournament listener failed on %s", event)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """A background step (work in flight: :meth:`Tasks.drain` waits for it; a failure is logged)."""
        self.tasks.spawn(coro, name="tournament-step")

    def use_clock(self, clock: Callable[[], float]) -> None:
        self.clock = clock

    def use_finish_hook(self, hook: FinishHook) -> None:
        self.finish_hook = hook

    # ------------------------------------------------------------------ the commit path

    def draft(self, t: Tournament) -> Draft:
        return Draft(t)

    @contextlib.asynccontextmanager
    async def transaction(self, t: Tournament) -> AsyncIterator[StorageTx]:
        """A write transaction of ``t``'s guild, fenced by its shard lease (``ShardLeaseLost``: nothing written)."""
        async with self.storage.transaction() as tx:
            await self.store.fence_guild(tx, t.guild_id)
            yield tx

    async def post(self, tx: StorageTx, t: Tournament, post: Post, *, result: str | None = None) -> None:
        """Write a step's postings on one journal (none without postings, unless a ``result`` rides on it)."""
        postings, key, reason = post
        if postings or result is not None:
            await post_transaction(
                tx,
                postings,
                key=f"tny:{t.tournament_id}:{key}",
                reason=reason,
                actor="system",
                now=self.clock(),
                result=result,
            )

    async def commit(
        self,
        draft: Draft,
        posts: Sequence[Post] = (),
        effects: Sequence[Effect] = (),
        rows: Sequence[Rows] = (),
        *,
        note: FinishNote | None = None,
        also: Sequence[Draft] = (),
    ) -> None:
        """Store the draft (the tournament's row, its changed entries and tables) with ``posts`` in one transaction,
        then swap it into memory. Raises what the transaction raised, with memory unchanged. ``rows``: more writes of
        another room (a deal's row) that belong to the same step. ``note``: a result recorded on the first post's
        journal row, in the same transaction (a finished tournament's, for the league). ``also``: drafts of other
        tournaments of the same guild stored in the same transaction (a satellite's seats in its target; the caller
        holds their locks too)."""
        # Shielded: once the transaction runs, it and the swap finish together even if the caller is cancelled (a
        # COMMIT that reached the database is always in memory too).
        await asyncio.shield(self._commit(draft, posts, effects, rows, note, also))

    async def _commit(
        self,
        draft: Draft,
        posts: Sequence[Post],
        effects: Sequence[Effect],
        rows: Sequence[Rows] = (),
        note: FinishNote | None = None,
        also: Sequence[Draft] = (),
    ) -> None:
        t = draft.t
        async with self.transaction(t) as tx:
            for write in rows:
                await write(tx)
            result = await note(tx) if note is not None else None
            for i, post in enumerate(posts):
                await self.post(tx, t, post, result=result if i == 0 else None)
            for key, kind, payload in effects:
                if self.outbox is not None:
                    await self.outbox.enqueue(tx, key=key, guild_id=t.guild_id, kind=kind, payload=payload)
            for d in (draft, *also):
                await self.repo.put_tournament(tx, d.t)
                for entry in d.changed_entries.values():
                    await self.repo.put_entry(tx, d.t.tournament_id, entry)
                for tt in d.changed_tables.values():
                    await self.repo.put_table(tx, d.t.tournament_id, tt)
        for d in (draft, *also):
            d.swap()
            for tt in d.changed_tables.values():
                self.by_table[tt.table_id] = d.t.tournament_id

    async def check_lease(self, t: Tournament) -> None:
        """Raise ``ShardLeaseLost`` unless this process still serves ``t``'s guild (before a side effect outside the
        database, such as creating a thread, that a lost lease would leave behind)."""
        async with self.transaction(t):
            pass
