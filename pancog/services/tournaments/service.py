"""TournamentService: runs Sit & Gos and scheduled multi-table events on the TableService (no discord import).

Chips: a buy-in moves ``bank:G:U -> escrow:T`` (the fee ``escrow:T -> house:G`` at the start, or at a late
registration); tournament chips are a ledger scope of their own, the tournament id: ``issued:T -> bank:T:U``
when an entry is seated, and the tournament's tables are opened with ``guild_id = T``, so every buy-in, cash-out
and close of those tables moves tournament chips only. A bust's leftover (less than the ante) goes back to
``issued:T``. Prizes move ``escrow:T -> bank:G:U``. Every movement has a key ``tny:<T>:...``; every step writes its
tournament rows in the same transaction as its postings, and every table step is re-derived from the stored
state (:meth:`TournamentService.load` then :meth:`TournamentService.kick`), so a SIGKILL anywhere resumes exactly.

Events for an adapter (:meth:`subscribe`): :class:`TableOpened`, :class:`PlayerMoved`, :class:`PlayerOut`,
:class:`LevelUp`, :class:`TournamentStarted`, :class:`TournamentFinished`, :class:`TournamentCancelled`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from pancog.game import engine
from pancog.game.actions import SetAway, SetStakes, Sit, Stand, StartHand, Timeout
from pancog.game.errors import PanError
from pancog.game.events import HandEnded
from pancog.infra.storage.base import Account, AccountKind, Posting, StorageTx
from pancog.services.ledger import ChipLedger, post_transaction
from pancog.services.tables import Applied, NoTableHere, NotHost, TableConfig, TableService, TableSession

from .balancer import BalanceTable, plan
from .errors import (
    AlreadyRegistered,
    BadTournamentOption,
    NoSuchTournament,
    NotRegistered,
    RegistrationClosed,
    TournamentFull,
    TournamentNotRunning,
    TournamentStateError,
)
from .model import Entry, EntryStatus, Format, Status, Tournament, TournamentConfig, TTable
from .payouts import prizes, share_ties
from .ranking import Bust, Finish, standings
from .repository import TournamentRepository

__all__ = [
    "LevelUp",
    "PlayerMoved",
    "PlayerOut",
    "TableOpened",
    "TournamentCancelled",
    "TournamentEvent",
    "TournamentFinished",
    "TournamentInfo",
    "TournamentService",
    "TournamentStarted",
]

log = logging.getLogger("pan.tournaments")


# ------------------------------------------------------------------------------------------------ events


@dataclass(frozen=True, slots=True)
class TournamentStarted:
    tournament_id: int


@dataclass(frozen=True, slots=True)
class TableOpened:
    tournament_id: int
    table_no: int
    table_id: int
    player_ids: tuple[int, ...]
    final: bool


@dataclass(frozen=True, slots=True)
class PlayerMoved:
    tournament_id: int
    player_id: int
    from_table: int | None  # table_no
    to_table: int


@dataclass(frozen=True, slots=True)
class PlayerOut:
    tournament_id: int
    player_id: int
    entry_id: int
    can_reenter: bool


@dataclass(frozen=True, slots=True)
class LevelUp:
    tournament_id: int
    level: int  # 1-based
    ante: int


@dataclass(frozen=True, slots=True)
class TournamentFinished:
    tournament_id: int
    results: tuple[Finish, ...]
    prizes: dict[int, int]  # entry id -> chips


@dataclass(frozen=True, slots=True)
class TournamentCancelled:
    tournament_id: int
    refunds: dict[int, int]  # player id -> chips


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentInfo:
    """A read-only picture for ``/tourney info`` and the standings image."""

    tournament_id: int
    title: str
    format: Format
    status: Status
    level: int  # 1-based
    ante: int
    on_break: bool
    paused: bool
    seconds_to_next_level: float
    entries: int
    alive: int
    prize_pool: int
    prizes: tuple[int, ...]  # by place, before ties
    registration_open: bool
    chips: tuple[tuple[int, int, int | None], ...]  # (player id, chips, table no), most chips first
    tables: tuple[tuple[int, tuple[int, ...]], ...]  # (table no, player ids)
    results: tuple[tuple[int, int | None, int], ...]  # (player id, place, prize) once finished
    registered: tuple[int, ...] = ()  # before the start: the registered players, in the order they registered


TournamentEvent = (
    TournamentStarted | TableOpened | PlayerMoved | PlayerOut | LevelUp | TournamentFinished | TournamentCancelled
)
ChannelFactory = Callable[[Tournament, int], Awaitable[int]]


def _derive(*parts: int) -> int:
    """A stable 62-bit id or seed from integers (table ids and deal seeds survive restarts)."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**62 - 1)


class TournamentService:
    """Every tournament of the bot; the adapter calls these methods and listens to the events."""

    def __init__(
        self,
        tables: TableService,
        *,
        repository: TournamentRepository | None = None,
        clock: Callable[[], float] = time.time,
        channel_factory: ChannelFactory | None = None,
    ) -> None:
        self.tables = tables
        self.ledger: ChipLedger = tables.ledger
        self.repo = repository or TournamentRepository()
        self._clock = clock
        self.channel_factory = channel_factory  # the adapter may set it after construction (before kick)
        self._tournaments: dict[int, Tournament] = {}
        self._by_table: dict[int, int] = {}  # TableService table id -> tournament id
        self._locks: dict[int, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._listeners: list[Callable[[TournamentEvent], None]] = []
        self._levels_seen: dict[int, int] = {}
        tables.subscribe(self._on_applied)

    # ------------------------------------------------------------------ plumbing

    def subscribe(self, listener: Callable[[TournamentEvent], None]) -> None:
        self._listeners.append(listener)

    def _emit(self, event: TournamentEvent) -> None:
        for listener in self._listeners:
            try:
                listener(event)
            except Exception:
                log.exception("tournament listener failed on %s", event)

    def use_clock(self, clock: Callable[[], float]) -> None:
        """Replace the clock the levels run on (``bench/tournament.py``: a clock that advances with the hands played,
        as the tournament simulation's does). Call before the first tournament is created."""
        self._clock = clock

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def get(self, tournament_id: int) -> Tournament:
        t = self._tournaments.get(tournament_id)
        if t is None:
            raise NoSuchTournament
        return t

    def tournament_of_table(self, table_id: int) -> int | None:
        """The tournament a TableService table belongs to (None for a cash table). The adapter refuses /pan join,
        rebuy and leave there: seats, chips and moves are the tournament's."""
        return self._by_table.get(table_id)

    def owns_table(self, table_id: int) -> bool:
        """True for a tournament's table (the turn clock leaves its seats and its life to this service)."""
        return table_id in self._by_table

    def plays_for(self, table_id: int, player_id: int) -> bool:
        """True when ``player_id`` is away in the tournament at ``table_id``: the service sluffs his turns itself (its
        Timeouts are not his clock expiries)."""
        tid = self._by_table.get(table_id)
        if tid is None:
            return False
        return any(e.away for e in self._tournaments[tid].alive() if e.player_id == player_id)

    @property
    def tournaments(self) -> tuple[Tournament, ...]:
        return tuple(self._tournaments.values())

    def _lock(self, tournament_id: int) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    @contextlib.asynccontextmanager
    async def _tx(self, t: Tournament) -> AsyncIterator[StorageTx]:
        """A write transaction that stores ``t``'s rows. The service changes ``t`` in memory first and stores it
        after; if the transaction fails (a refused posting, a database error, a cancellation), ``t`` is restored
        from the database before the error goes on, so memory never runs ahead of what is stored."""
        try:
            async with self.ledger.storage.transaction() as tx:
                yield tx
        except BaseException:
            try:
                await asyncio.shield(self._restore(t))
            except Exception:  # the database is unreachable: the next restart reloads it (the ledger is exact)
                log.exception("tournament %s: could not reload it after a failed write", t.tournament_id)
            raise

    async def _restore(self, t: Tournament) -> None:
        """Put back in ``t`` (in place: callers hold it) what the database holds for it."""
        async with self.ledger.storage.transaction(write=False) as tx:
            found = await self.repo.load(tx, active_only=False, tournament_id=t.tournament_id)
        if not found:  # never stored (a creation that failed): nothing to go back to
            return
        for f in dataclasses.fields(Tournament):
            setattr(t, f.name, getattr(found[0], f.name))
        for table_id in [k for k, v in self._by_table.items() if v == t.tournament_id]:
            del self._by_table[table_id]
        for tt in t.tables.values():
            self._by_table[tt.table_id] = t.tournament_id

    async def _save(self, t: Tournament, *, entries: tuple[Entry, ...] = (), tables: tuple[TTable, ...] = ()) -> None:
        async with self._tx(t) as tx:
            await self._write(tx, t, entries, tables)

    async def _write(
        self, tx: StorageTx, t: Tournament, entries: tuple[Entry, ...], tables: tuple[TTable, ...]
    ) -> None:
        await self.repo.put_tournament(tx, t)
        for e in entries:
            await self.repo.put_entry(tx, t.tournament_id, e)
        for tt in tables:
            await self.repo.put_table(tx, t.tournament_id, tt)

    async def _post(self, tx: StorageTx, t: Tournament, postings: list[Posting], key: str, reason: str) -> None:
        if postings:
            await post_transaction(
                tx, postings, key=f"tny:{t.tournament_id}:{key}", reason=reason, actor="system", now=self._clock()
            )

    def level(self, t: Tournament) -> tuple[int, int, bool, float]:
        """(0-based level, ante, on break, seconds to the next change) by the tournament's running clock."""
        clock = t.config.schedule().at(t.running_ms(self._now_ms()) / 1000)
        return clock.level, clock.ante, clock.on_break, clock.seconds_left

    def registration_open(self, t: Tournament) -> bool:
        if t.status is Status.REGISTERING:
            return True
        if t.status is Status.RUNNING and t.config.late_levels:
            return self.level(t)[0] < t.config.late_levels
        return False

    # ------------------------------------------------------------------ life cycle

    async def load(self) -> int:
        """Rebuild every tournament that is not over (after ``TableService.load``); then call :meth:`kick`."""
        async with self.ledger.storage.transaction(write=False) as tx:
            found = await self.repo.load(tx)
        for t in found:
            self._tournaments[t.tournament_id] = t
            for tt in t.tables.values():
                self._by_table[tt.table_id] = t.tournament_id
        return len(found)

    async def kick(self) -> None:
        """Resume: re-derive every running tournament's next steps (seats, moves, deals) and start due ones."""
        for t in list(self._tournaments.values()):
            if t.status is Status.RUNNING:
                async with self._lock(t.tournament_id):
                    await self._between_hands(t)
                for tt in t.open_tables():  # an away player's pending turn
                    with contextlib.suppress(NoTableHere):
                        self._play_away(self.tables.get(tt.table_id), t)
        await self.tick()

    async def create(
        self,
        tournament_id: int,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        config: TournamentConfig,
        announce_only: bool = False,
    ) -> Tournament:
        """A new tournament (``tournament_id``: a fresh snowflake; it is also its ledger scope for chips)."""
        if tournament_id in self._tournaments or tournament_id == guild_id:
            raise BadTournamentOption("That tournament id is taken.")
        t = Tournament(
            tournament_id=tournament_id,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            config=config,
            status=Status.ANNOUNCED if announce_only else Status.REGISTERING,
            created_ms=self._now_ms(),
            seed=_derive(tournament_id, 15),
        )
        await self._save(t)
        self._tournaments[tournament_id] = t
        return t

    async def open_registration(self, tournament_id: int, user_id: int, *, moderator: bool = False) -> None:
        t = self.get(tournament_id)
        self._check_host(t, user_id, moderator)
        if t.status is not Status.ANNOUNCED:
            raise TournamentStateError("Registration is already open or over.")
        t.status = Status.REGISTERING
        await self._save(t)

    def _check_host(self, t: Tournament, user_id: int, moderator: bool) -> None:
        if user_id != t.host_id and not moderator:
            raise NotHost

    async def register(self, tournament_id: int, player_id: int) -> Entry:
        """Buy in (or re-enter, or register late).

        Raises:
            RegistrationClosed, AlreadyRegistered, TournamentFull, BadTournamentOption (computer players not allowed),
            pancog.services.ledger.InsufficientChips (the bank is short; nothing changed).
        """
        t = self.get(tournament_id)
        async with self._lock(tournament_id):
            if not self.registration_open(t):
                raise RegistrationClosed("Registration for this tournament is closed.")
            if player_id < 0 and not t.config.computers:
                raise BadTournamentOption("This tournament does not allow computer players.")
            mine = t.entries_of(player_id)
            if any(e.status in (EntryStatus.REGISTERED, EntryStatus.ALIVE) for e in mine):
                raise AlreadyRegistered
            if len([e for e in mine if e.status is not EntryStatus.REFUNDED]) >= t.config.entries_per_player:
                raise RegistrationClosed("You have used all your entries in this tournament.")
            if len([e for e in t.entries.values() if e.status is not EntryStatus.REFUNDED]) >= t.config.field_limit:
                raise TournamentFull
            cfg = t.config
            await self.ledger.ensure_player(t.guild_id, player_id)
            if player_id < 0:  # computer players are funded from the guild's issued account
                bank = await self.ledger.balance(t.guild_id, player_id)
                if bank < cfg.buy_in:
                    await self.ledger.grant(
                        t.guild_id,
                        player_id,
                        cfg.buy_in - bank,
                        actor="system",
                        reason="computer player buy-in",
                        key=f"tny:{tournament_id}:fund:{len(t.entries) + 1}",
                    )
            running = t.status is Status.RUNNING
            entry = Entry(
                entry_id=len(t.entries) + 1,
                player_id=player_id,
                entry_no=len(mine) + 1,
                status=EntryStatus.ALIVE if running else EntryStatus.REGISTERED,
                created_ms=self._now_ms(),
            )
            if running:
                entry.table_no = self._seat_for_newcomer(t)
            async with self._tx(t) as tx:
                legs: list[Posting] = []
                if cfg.buy_in:
                    legs = [
                        Posting(Account.bank(t.guild_id, player_id), -cfg.buy_in),
                        Posting(Account.escrow(tournament_id), cfg.buy_in),
                    ]
                    if running and cfg.fee:
                        legs = [
                            legs[0],
                            Posting(Account.escrow(tournament_id), cfg.buy_in - cfg.fee),
                            Posting(Account.house(t.guild_id), cfg.fee),
                        ]
                        legs = [p for p in legs if p.delta]
                await self._post(tx, t, legs, f"buyin:{entry.entry_id}", "tournament buy-in")
                await self._write(tx, t, (entry,), ())
            t.entries[entry.entry_id] = entry
            if running:
                await self._reconcile(t)
            elif t.config.format is Format.SNG and len(t.entries) - self._refunded(t) >= cfg.seats:
                await self._start_locked(t)
            return entry

    @staticmethod
    def _refunded(t: Tournament) -> int:
        return sum(1 for e in t.entries.values() if e.status is EntryStatus.REFUNDED)

    def _seat_for_newcomer(self, t: Tournament) -> int:
        tables = t.open_tables()
        counts = {tt.table_no: sum(1 for e in t.alive() if e.table_no == tt.table_no) for tt in tables}
        room = [n for n, c in counts.items() if c < t.config.seats]
        if not room:
            return -1  # a new table opens in _reconcile
        return min(room, key=lambda n: (counts[n], n))

    async def unregister(self, tournament_id: int, player_id: int) -> int:
        """Refund a registration before the start; returns the chips refunded. Raises NotRegistered, ..."""
        t = self.get(tournament_id)
        async with self._lock(tournament_id):
            if t.status not in (Status.ANNOUNCED, Status.REGISTERING):
                raise RegistrationClosed("The tournament has started: you can no longer unregister.")
            entry = next((e for e in t.entries_of(player_id) if e.status is EntryStatus.REGISTERED), None)
            if entry is None:
                raise NotRegistered
            await self._refund(t, entry, fee_taken=0)
            return t.config.buy_in

    async def _refund(self, t: Tournament, entry: Entry, *, fee_taken: int) -> None:
        cfg = t.config
        entry.status = EntryStatus.REFUNDED
        async with self._tx(t) as tx:
            legs = [
                Posting(Account.escrow(t.tournament_id), -(cfg.buy_in - fee_taken)),
                Posting(Account.house(t.guild_id), -fee_taken),
                Posting(Account.bank(t.guild_id, entry.player_id), cfg.buy_in),
            ]
            await self._post(tx, t, [p for p in legs if p.delta], f"refund:{entry.entry_id}", "tournament refund")
            await self._write(tx, t, (entry,), ())

    async def start(self, tournament_id: int, user_id: int, *, moderator: bool = False) -> None:
        """Start now (host or moderator) if the minimum field is met."""
        t = self.get(tournament_id)
        self._check_host(t, user_id, moderator)
        async with self._lock(tournament_id):
            if t.status is not Status.REGISTERING:
                raise TournamentStateError("Only a tournament taking registrations can start.")
            if len([e for e in t.entries.values() if e.status is EntryStatus.REGISTERED]) < t.config.min_entries:
                raise TournamentStateError(f"At least {t.config.min_entries} entries are needed to start.")
            await self._start_locked(t)

    async def _start_locked(self, t: Tournament) -> None:
        cfg = t.config
        entries = [e for e in t.entries.values() if e.status is EntryStatus.REGISTERED]
        rng = random.Random(t.seed)
        rng.shuffle(entries)
        n_tables = max(1, -(-len(entries) // cfg.seats))
        tables = [TTable(table_no=i + 1, table_id=_derive(t.tournament_id, i + 1)) for i in range(n_tables)]
        for i, e in enumerate(entries):
            e.status = EntryStatus.ALIVE
            e.table_no = 1 + i % n_tables
        t.status = Status.RUNNING
        t.started_ms = self._now_ms()
        async with self._tx(t) as tx:
            fees = cfg.fee * len(entries)
            if fees:
                await self._post(
                    tx,
                    t,
                    [Posting(Account.escrow(t.tournament_id), -fees), Posting(Account.house(t.guild_id), fees)],
                    "fees",
                    "tournament fees",
                )
            await self._write(tx, t, tuple(entries), tuple(tables))
        for tt in tables:
            t.tables[tt.table_no] = tt
            self._by_table[tt.table_id] = t.tournament_id
        self._emit(TournamentStarted(t.tournament_id))
        # Seating every entry, opening the tables and the first deals run on a task (it takes the lock once this
        # step releases it): the caller (the host's /tourney start, the registration that filled a Sit & Go) is
        # answered now, not after 200 seatings. The state above is stored, so a crash before the task re-derives it
        # at kick(), like every step between hands.
        self._spawn(self._after_hand(t))

    async def pause(self, tournament_id: int, user_id: int, *, moderator: bool = False) -> None:
        """Stop the clock: hands in progress finish, no new hand is dealt."""
        t = self.get(tournament_id)
        self._check_host(t, user_id, moderator)
        async with self._lock(tournament_id):
            if t.status is not Status.RUNNING:
                raise TournamentNotRunning
            if t.paused_ms is not None:
                raise TournamentStateError("The tournament is already paused.")
            t.paused_ms = self._now_ms()
            await self._save(t)

    async def resume(self, tournament_id: int, user_id: int, *, moderator: bool = False) -> None:
        t = self.get(tournament_id)
        self._check_host(t, user_id, moderator)
        async with self._lock(tournament_id):
            if t.status is not Status.RUNNING or t.paused_ms is None:
                raise TournamentStateError("The tournament is not paused.")
            t.paused_total += self._now_ms() - t.paused_ms
            t.paused_ms = None
            await self._save(t)
            await self._between_hands(t)

    async def cancel(self, tournament_id: int, user_id: int, *, moderator: bool = False) -> dict[int, int]:
        """Cancel: every entry is refunded its whole buy-in (fee included); tables close."""
        t = self.get(tournament_id)
        self._check_host(t, user_id, moderator)
        async with self._lock(tournament_id):
            return await self._cancel_locked(t)

    async def _cancel_locked(self, t: Tournament) -> dict[int, int]:
        if t.status in (Status.FINISHED, Status.CANCELLED):
            raise TournamentStateError("The tournament is already over.")
        started = t.status is Status.RUNNING
        refunds: dict[int, int] = {}
        for e in list(t.entries.values()):
            if e.status is EntryStatus.REFUNDED:
                continue
            await self._refund(t, e, fee_taken=t.config.fee if started else 0)
            refunds[e.player_id] = refunds.get(e.player_id, 0) + t.config.buy_in
        await self._close_tables(t)
        t.status = Status.CANCELLED
        t.finished_ms = self._now_ms()
        await self._save(t)
        self._emit(TournamentCancelled(t.tournament_id, refunds))
        return refunds

    async def remember_announcement(self, tournament_id: int, channel_id: int, message_id: int) -> None:
        """Store the announcement message the adapter edits (live entry count, buttons), so it survives a restart."""
        t = self.get(tournament_id)
        async with self._tx(t) as tx:
            await self.repo.put_message(tx, tournament_id, "announcement", channel_id, message_id)
        t.announcement = (channel_id, message_id)

    async def set_away(self, tournament_id: int, player_id: int, away: bool) -> None:
        """An away player is dealt in and goes on top automatically (loses only the ante)."""
        t = self.get(tournament_id)
        live = (EntryStatus.ALIVE, EntryStatus.REGISTERED)
        entry = next((e for e in t.entries_of(player_id) if e.status in live), None)
        if entry is None:
            raise NotRegistered
        entry.away = away
        await self._save(t, entries=(entry,))
        if away:
            for tt in t.open_tables():
                with contextlib.suppress(NoTableHere):
                    self._play_away(self.tables.get(tt.table_id), t)

    async def back(self, table_id: int, player_id: int) -> bool:
        """``/pan back`` at a tournament table: the player's entry is no longer away, so their turns are theirs again
        (no more automatic sluff). False when the table is not a tournament's or the player was not away there."""
        if not self.plays_for(table_id, player_id):
            return False
        await self.set_away(self._by_table[table_id], player_id, False)
        return True

    def _came_back(self, t: Tournament, player_id: int) -> None:
        """The player took their own seat back (``SetAway(away=False)`` at the table): their entry is back too, at
        once (this very transition must not queue a sluff for them); the row is written on a task."""
        back = [e for e in t.alive() if e.player_id == player_id and e.away]
        for e in back:
            e.away = False
        if back:
            self._spawn(self._save(t, entries=tuple(back)))

    async def tick(self) -> None:
        """Periodic work (every few seconds): scheduled starts and cancellations, deals after breaks and pauses."""
        now = self._now_ms()
        for t in list(self._tournaments.values()):
            async with self._lock(t.tournament_id):
                cfg = t.config
                waiting = t.status in (Status.ANNOUNCED, Status.REGISTERING)
                if waiting and cfg.start_at_ms is not None and now >= cfg.start_at_ms:
                    registered = [e for e in t.entries.values() if e.status is EntryStatus.REGISTERED]
                    if len(registered) >= cfg.min_entries:
                        await self._start_locked(t)
                    else:
                        await self._cancel_locked(t)
                elif t.status is Status.RUNNING:
                    await self._between_hands(t)

    # ------------------------------------------------------------------ the table loop

    def _on_applied(self, applied: Applied) -> None:
        tid = self._by_table.get(applied.session.table_id)
        if tid is None:
            return
        t = self._tournaments[tid]
        action = applied.action
        if isinstance(action, SetAway) and not action.away and applied.actor is not None:
            self._came_back(t, applied.actor)
        if any(isinstance(e, HandEnded) for e in applied.events):
            self._spawn(self._after_hand(t))
        else:
            self._play_away(applied.session, t)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        # The coroutine is the task itself (not awaited inside a wrapper): a step cancelled before it ran (stop())
        # is closed with its task, never left "never awaited".
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._step_done)

    def _step_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("tournament step failed", exc_info=exc)

    def _play_away(self, session: TableSession, t: Tournament) -> None:
        seat = engine.to_act(session.state)
        if seat is None:
            return
        s = session.state.seat(seat)
        away = {e.player_id for e in t.alive() if e.away}
        if s is not None and s.player_id in away:
            seq = session.state.seq
            self._spawn(self._timeout(session.table_id, seat, seq))

    async def _timeout(self, table_id: int, seat: int, seq: int) -> None:
        with contextlib.suppress(PanError):
            await self.tables.system_act(table_id, Timeout(seat=seat), expect_seq=seq)

    def busy(self) -> bool:
        """True while a tournament step (between hands, a timeout for an away player) is pending."""
        return bool(self._tasks)

    async def stop(self) -> None:
        """Cancel the pending tournament steps (shutdown, before storage closes). Safe at any point: every step is
        crash-safe, and :meth:`kick` re-derives what was left undone at the next start."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def drain(self) -> None:
        """Wait until no tournament step is pending (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _after_hand(self, t: Tournament) -> None:
        async with self._lock(t.tournament_id):
            if t.status is Status.RUNNING:
                await self._between_hands(t)

    async def _between_hands(self, t: Tournament) -> None:
        """Everything between hands, re-derivable at any time: busts, seats, balance, finish, deals."""
        await self._reconcile(t)
        await self._close_emptied(t)
        await self._eliminate(t)
        if t.status is not Status.RUNNING:
            return
        if len(t.alive()) <= 1 and not self.registration_open(t):
            await self._finish(t)
            return
        result = plan(self._picture(t), t.config.seats)
        if result.final_table:
            await self._final_table(t)
        elif result.moves or result.broken:
            for m in result.moves:
                e = t.entries[m.entry_id]
                e.table_no, e.moves = m.to_table, e.moves + 1
            broken = [t.tables[n] for n in result.broken]
            for tt in broken:
                tt.status = "closed"
            moved = tuple(t.entries[m.entry_id] for m in result.moves)
            await self._save(t, entries=moved, tables=tuple(broken))
            await self._reconcile(t)
            await self._close_emptied(t)
            for m in result.moves:
                self._emit(PlayerMoved(t.tournament_id, t.entries[m.entry_id].player_id, m.from_table, m.to_table))
        if not result.final_table and result.waiting and sum(1 for _ in t.open_tables()) > 1:
            total = len(t.alive())
            if total <= t.config.seats:
                return  # the final table waits for the last hands in progress
        await self._deal_idle(t)

    def _picture(self, t: Tournament) -> list[BalanceTable]:
        out = []
        for tt in t.open_tables():
            players = tuple((e.entry_id, e.moves) for e in t.alive() if e.table_no == tt.table_no)
            try:
                busy = self.tables.get(tt.table_id).in_hand
            except NoTableHere:
                busy = False
            out.append(BalanceTable(table_id=tt.table_no, players=players, busy=busy))
        return out

    async def _session(self, t: Tournament, tt: TTable) -> TableSession:
        try:
            return self.tables.get(tt.table_id)
        except NoTableHere:
            pass
        cfg = t.config
        _, ante, _, _ = self.level(t)
        overrides = {"ante_chips": ante, "min_buyin_chips": 1, "max_players": cfg.seats}
        config = TableConfig(
            preset=cfg.preset,
            overrides=tuple(sorted(overrides.items())),
            title=f"{cfg.title or 'Tournament'} table {tt.table_no}",
        )
        channel = await self.channel_factory(t, tt.table_no) if self.channel_factory else tt.table_id
        session = await self.tables.open_table(
            tt.table_id, guild_id=t.tournament_id, channel_id=channel, host_id=t.host_id, config=config
        )
        players = tuple(e.player_id for e in t.alive() if e.table_no == tt.table_no)
        self._emit(TableOpened(t.tournament_id, tt.table_no, tt.table_id, players, tt.final))
        return session

    def _seated_at(self, t: Tournament, player_id: int) -> TTable | None:
        for tt in t.tables.values():
            with contextlib.suppress(NoTableHere):
                if self.tables.get(tt.table_id).find_seat(player_id) is not None:
                    return tt
        return None

    async def _reconcile(self, t: Tournament) -> None:
        """Make the tables match the entries: stand movers (between hands) and seat them where they belong."""
        await self._clear_out(t)
        for e in t.alive():
            if e.table_no == -1:  # a late entry found no room: open a new table
                no = max(t.tables) + 1
                tt = TTable(table_no=no, table_id=_derive(t.tournament_id, no))
                e.table_no = no
                t.tables[no] = tt
                self._by_table[tt.table_id] = t.tournament_id
                await self._save(t, entries=(e,), tables=(tt,))
            target = t.tables[e.table_no] if e.table_no is not None else None
            if target is None or target.status == "closed":
                continue
            here = self._seated_at(t, e.player_id)
            if here is not None and here.table_no == target.table_no:
                continue
            if here is not None:
                src = self.tables.get(here.table_id)
                if src.in_hand:
                    continue  # moves wait for the hand (the balancer never plans this; a restart might)
                await self.tables.system_act(here.table_id, Stand(seat=src.seat_of(e.player_id)))
            session = await self._session(t, target)
            chips = Account.bank(t.tournament_id, e.player_id)
            async with self._tx(t) as tx:
                if e.moves == 0 and here is None:  # first seat of this entry: issue its chips
                    await self._post(
                        tx,
                        t,
                        [
                            Posting(Account.issued(t.tournament_id), -t.config.starting_stack),
                            Posting(chips, t.config.starting_stack),
                        ],
                        f"chips:{e.entry_id}",
                        "tournament chips",
                    )
                held = (await tx.balances([chips]))[chips]
            free = [
                i
                for i, s in enumerate(session.state.seats)
                if s is None
                and (session.state.hand is None or not session.in_hand or session.state.hand.players[i] is None)
            ]
            rng = random.Random(_derive(t.seed, e.entry_id, e.moves))
            seat = rng.choice(free) if free else None
            if held > 0:
                await self.tables.system_act(target.table_id, Sit(player_id=e.player_id, buy_in=held, seat=seat))

    async def _eliminate(self, t: Tournament) -> None:
        """Entries at idle tables that cannot cover the ante are out (ranked later by their start-of-hand stack)."""
        _, ante, _, _ = self.level(t)
        for tt in t.open_tables():
            try:
                session = self.tables.get(tt.table_id)
            except NoTableHere:
                continue
            if session.in_hand:
                continue
            out: list[tuple[Entry, int]] = []
            for e in t.alive():
                if e.table_no != tt.table_no:
                    continue
                seat = session.find_seat(e.player_id)
                if seat is None:
                    continue
                s = session.state.seats[seat]
                if s is None:
                    continue
                if s.away:  # the engine's away flag would keep them out of the deal: back in, away in the tournament
                    try:
                        await self.tables.system_act(tt.table_id, SetAway(seat=seat, away=False))
                    except PanError:  # they came back themselves (/pan back) while this waited for the table lock
                        pass
                    else:
                        e.away = True
                if s.stack <= ante:
                    out.append((e, seat))
            if not out:
                continue
            t.bust_groups += 1
            seat_of = {e.entry_id: seat for e, seat in out}
            for e, _ in out:
                e.status = EntryStatus.OUT
                e.bust_group = t.bust_groups
                seat_now = session.state.seats[seat_of[e.entry_id]]
                # not dealt the last hand (seated after its deal): the stack now is the stack at its start
                e.start_stack = tt.hand_stacks.get(e.entry_id, seat_now.stack if seat_now is not None else 0)
            await self._save(t, entries=tuple(e for e, _ in out))
            for e, _ in out:
                again = self.registration_open(t) and len(t.entries_of(e.player_id)) < t.config.entries_per_player
                self._emit(PlayerOut(t.tournament_id, e.player_id, e.entry_id, again))
        await self._clear_out(t)

    async def _clear_out(self, t: Tournament) -> None:
        """Entries that are out leave their table (between hands); what is left of their chips (less than an ante)
        goes back to ``issued:T``. Re-derivable: a restart finishes what a crash interrupted."""
        latest: dict[int, Entry] = {}
        for e in t.entries.values():  # a player's latest entry speaks for the chips under their id
            if e.status is not EntryStatus.REFUNDED:
                latest[e.player_id] = e
        for e in latest.values():
            if e.status is not EntryStatus.OUT:
                continue
            here = self._seated_at(t, e.player_id)
            if here is not None:
                session = self.tables.get(here.table_id)
                if session.in_hand:
                    continue
                await self.tables.system_act(here.table_id, Stand(seat=session.seat_of(e.player_id)))
            chips = Account.bank(t.tournament_id, e.player_id)
            async with self._tx(t) as tx:
                held = (await tx.balances([chips]))[chips]
                if held:
                    legs = [Posting(chips, -held), Posting(Account.issued(t.tournament_id), held)]
                    await self._post(tx, t, legs, f"stub:{e.entry_id}", "tournament bust: leftover chips")

    async def _close_emptied(self, t: Tournament) -> None:
        """Close the TableService tables of broken tables once nobody sits there."""
        for tt in t.tables.values():
            if tt.status != "closed":
                continue
            with contextlib.suppress(NoTableHere):
                session = self.tables.get(tt.table_id)
                if not session.player_ids() and not session.in_hand:
                    await self.tables.close_system(tt.table_id)

    async def _final_table(self, t: Tournament) -> None:
        no = max(t.tables) + 1
        final = TTable(table_no=no, table_id=_derive(t.tournament_id, no), final=True)
        old = t.open_tables()
        for tt in old:
            tt.status = "closed"
        alive = t.alive()
        for e in alive:
            e.table_no = no
            e.moves += 1
        t.tables[no] = final
        self._by_table[final.table_id] = t.tournament_id
        await self._save(t, entries=tuple(alive), tables=(final, *old))
        await self._reconcile(t)
        await self._close_emptied(t)

    async def _deal_idle(self, t: Tournament) -> None:
        if t.paused_ms is not None:
            return
        level, ante, on_break, _ = self.level(t)
        if on_break:
            return
        if self._levels_seen.get(t.tournament_id, -1) != level:
            self._levels_seen[t.tournament_id] = level
            self._emit(LevelUp(t.tournament_id, level + 1, ante))
        for tt in t.open_tables():
            try:
                session = self.tables.get(tt.table_id)
            except NoTableHere:
                continue
            if session.in_hand:
                continue
            if session.rules.ante_chips != ante:
                await self.tables.system_act(tt.table_id, SetStakes(ante_chips=ante))
            seated = [s for s in session.state.seats if s is not None and s.stack > ante]
            if len(seated) < 2:
                continue
            by_player = {e.player_id: e.entry_id for e in t.alive() if e.table_no == tt.table_no}
            tt.hand_stacks = {by_player[s.player_id]: s.stack for s in seated if s.player_id in by_player}
            await self._save(t, tables=(tt,))
            seed = _derive(t.seed, tt.table_no, session.state.hand_no + 1)
            try:
                await self.tables.system_act(tt.table_id, StartHand(seed=seed), expect_seq=session.state.seq)
            except PanError as exc:
                log.info("tournament %s table %s: no deal: %s", t.tournament_id, tt.table_no, exc.message)

    async def _close_tables(self, t: Tournament) -> None:
        """Mark every table closed first (a restart then never reopens one), then close them in the TableService."""
        for tt in t.tables.values():
            tt.status = "closed"
        await self._save(t, tables=tuple(t.tables.values()))
        for tt in t.tables.values():
            with contextlib.suppress(NoTableHere):
                await self.tables.close_system(tt.table_id)

    async def _finish(self, t: Tournament) -> None:
        survivors = [(e.entry_id, self._chips_of(t, e.player_id)) for e in t.alive()]
        busts = [
            Bust(e.entry_id, e.bust_group or 0, e.start_stack or 0)
            for e in sorted(t.entries.values(), key=lambda x: (x.bust_group or 0, x.entry_id))
            if e.status is EntryStatus.OUT
        ]
        results = standings(survivors, busts)
        cfg = t.config
        pool = (cfg.buy_in - cfg.fee) * t.paid_entries
        place_prizes = prizes(pool, t.paid_entries, cfg.payouts or None)
        groups: list[int] = []
        i = 0
        while i < len(results):
            groups.append(results[i].tied)
            i += results[i].tied
        amounts = share_ties(place_prizes, groups)
        paid: dict[int, int] = {}
        for f, amount in zip(results, amounts, strict=True):
            e = t.entries[f.entry_id]
            e.place, e.tied, e.prize = f.place, f.tied, amount
            if amount:
                paid[f.entry_id] = amount
        await self._close_tables(t)
        t.status = Status.FINISHED
        t.finished_ms = self._now_ms()
        async with self._tx(t) as tx:
            legs: dict[Account, int] = {}
            for entry_id, amount in paid.items():
                bank = Account.bank(t.guild_id, t.entries[entry_id].player_id)
                legs[bank] = legs.get(bank, 0) + amount
            postings = [Posting(Account.escrow(t.tournament_id), -sum(paid.values()))] if paid else []
            postings += [Posting(a, d) for a, d in sorted(legs.items())]
            await self._post(tx, t, postings, "payouts", "tournament prizes")
            await self._write(tx, t, tuple(t.entries.values()), ())
        self._emit(TournamentFinished(t.tournament_id, tuple(results), paid))

    # ------------------------------------------------------------------ reads and audit

    async def audit(self, tournament_id: int) -> list[str]:
        """The tournament's invariants (empty = all hold); see the module docstring."""
        t = self.get(tournament_id)
        cfg = t.config
        problems: list[str] = []
        escrow = Account.escrow(t.tournament_id)
        players = {e.player_id for e in t.entries.values()}
        accounts = [escrow, Account.issued(t.tournament_id)] + [Account.bank(t.tournament_id, p) for p in players]
        bal = await self.ledger.balances(accounts)
        table_chips = 0
        async with self.ledger.storage.transaction(write=False) as tx:
            for tt in t.tables.values():
                table_chips += sum((await tx.table_balances(tt.table_id)).values())
            payout = await tx.find_journal(f"tny:{t.tournament_id}:payouts")
        held = sum(b for a, b in bal.items() if a.kind is AccountKind.BANK) + table_chips
        if held + bal[Account.issued(t.tournament_id)] != 0:
            problems.append(
                f"tournament chips not conserved: {held} held, {-bal[Account.issued(t.tournament_id)]} issued"
            )
        if t.status in (Status.FINISHED, Status.CANCELLED) and bal[escrow] != 0:
            problems.append(f"escrow holds {bal[escrow]} after the end")
        if t.status is Status.FINISHED:
            pool = (cfg.buy_in - cfg.fee) * t.paid_entries
            paid = sum(e.prize or 0 for e in t.entries.values())
            out = -sum(p.delta for p in payout.postings if p.account == escrow) if payout is not None else 0
            if paid != pool or out != pool:
                problems.append(f"payouts {paid} (ledger {out}) differ from the prize pool {pool}")
        for tt in t.open_tables():
            with contextlib.suppress(NoTableHere):
                problems += await self.tables.check_books(tt.table_id)
        return problems

    def info(self, tournament_id: int) -> TournamentInfo:
        """Everything ``/tourney info`` shows: state, level and clock, field, pool, tables and chip counts."""
        t = self.get(tournament_id)
        level, ante, on_break, left = self.level(t)
        cfg = t.config
        tables = tuple(
            (tt.table_no, tuple(e.player_id for e in t.alive() if e.table_no == tt.table_no)) for tt in t.open_tables()
        )
        return TournamentInfo(
            tournament_id=t.tournament_id,
            title=cfg.title,
            format=cfg.format,
            status=t.status,
            level=level + 1,
            ante=ante,
            on_break=on_break,
            paused=t.paused_ms is not None,
            seconds_to_next_level=left,
            entries=t.paid_entries,
            alive=len(t.alive()),
            prize_pool=(cfg.buy_in - cfg.fee) * t.paid_entries,
            prizes=prizes((cfg.buy_in - cfg.fee) * t.paid_entries, max(1, t.paid_entries), cfg.payouts or None),
            registration_open=self.registration_open(t),
            chips=tuple(self.standings_now(tournament_id)) if t.status is Status.RUNNING else (),
            tables=tables,
            results=tuple(
                (e.player_id, e.place, e.prize or 0)
                for e in sorted(t.entries.values(), key=lambda x: (x.place or 10**9, x.entry_id))
                if e.place is not None
            ),
            registered=tuple(
                e.player_id
                for e in sorted(t.entries.values(), key=lambda x: x.entry_id)
                if e.status is EntryStatus.REGISTERED
            ),
        )

    def standings_now(self, tournament_id: int) -> list[tuple[int, int, int | None]]:
        """(player id, chips, table no) of the entries still in, most chips first (for /tourney info)."""
        t = self.get(tournament_id)
        rows = [(e.player_id, self._chips_of(t, e.player_id), e.table_no) for e in t.alive()]
        return sorted(rows, key=lambda r: -r[1])

    def _chips_of(self, t: Tournament, player_id: int) -> int:
        """The player's stack at the tournament table they sit at (0 if not seated)."""
        tt = self._seated_at(t, player_id)
        if tt is None:
            return 0
        session = self.tables.get(tt.table_id)
        seat = session.state.seats[session.seat_of(player_id)]
        return seat.stack if seat is not None else 0
