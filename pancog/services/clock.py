"""Turn clock, time bank, away policy and idle-table closer: the service that keeps every table moving.

No discord imports; it drives :class:`pancog.services.tables.TableService` through its public API only:

* every committed action (``TableService.subscribe``) starts a new *decision* for the seat the engine waits
  for (``engine.to_act``). Its deadline is ``started + turn_seconds + time bank left``; the warning fires
  ``warning_seconds`` before it. A player who answers after the turn time spends the excess from his bank
  (default 120 s per seat session).
* at the deadline the service applies ``Timeout(seat)`` through ``system_act(expect_seq=...)`` (so a timeout
  can never land on a later decision than the one it timed); the engine plays the minimal legal move.
* ``away_after`` (2) expiries in a row make the player *away* (``SetAway``): his later turns in the hand time
  out at once, he is not dealt in again, and when the hand ends he is stood up (``Stand``: stack back to the
  bank). :meth:`TurnClock.back` (``/pan back``) returns him while he is still seated. If every player still in
  action is away, the floor fouls their hands in turn (``FloorFoul``, RULES §6.5 b) so the hand ends instead of
  timing out forever.
* a table with no hand in progress for ``idle_close_seconds`` (30 min) closes itself (``close_system``: every
  stack goes back to its bank). The idle time counts from the moment the table became handless — when its last
  hand ended, or when it was opened if no hand was ever dealt — and only a new deal stops it: joining, leaving,
  rebuying or being stood up between hands does not keep a table alive.

Durability: decisions start at the last committed action, whose timestamp is its journal's ``created_at``
(``table:T:seq:N``), so after a restart each clock continues with the time it had left. Banks, expiry streaks,
the players the clock set away and the moment the last hand ended (``idle_since`` with its ``idle_hand``) are
kept in the table's meta JSON under ``"clock"`` (written only when they change, after the action's commit; a
crash in between forgets at most one turn's bank spending, in the player's favour). If ``idle_since`` is
missing or belongs to an earlier hand, the restart reads it from the log instead: the journal time of the
action whose events include ``HandEnded`` (or the table's creation, if no hand was dealt).

Time: ``now`` and ``sleep`` are injectable; ``time_scale`` divides every duration (tests run a 60 s turn in
a fraction of a second while timestamps stay wall-clock, so restarts stay consistent).

Rooms: this module schedules (decisions, deadlines, the run loop, resuming after a restart, ``/pan back``);
:mod:`pancog.services.clock_steps` acts when a deadline passes (timeout, away, stand-up, idle close) and writes the
meta; :mod:`pancog.services.clock_values` holds the values. The public names are all importable from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import json
import logging
import math
import time
from collections.abc import Awaitable, Callable

from pancog.game import engine
from pancog.game.actions import SetAway, Timeout
from pancog.game.events import HandEnded, SeatLeft
from pancog.game.state import TableState
from pancog.infra.storage.base import StorageError
from pancog.infra.tasks import Tasks
from pancog.services.clock_steps import ClockSteps
from pancog.services.clock_values import ClockNotice, ClockSettings, NotAway, SeatKeeper, TableClock, TurnInfo
from pancog.services.store import action_key
from pancog.services.tables import (
    Applied,
    NoTableHere,
    TableClosed,
    TableService,
    TableSession,
)

__all__ = ["ClockNotice", "ClockSettings", "NotAway", "SeatKeeper", "TurnClock", "TurnInfo", "unsubscribe"]

log = logging.getLogger("pan.clock")

Now = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


def unsubscribe(tables: TableService, listener: Callable[[Applied], None]) -> None:
    """Stop a ``TableService.subscribe`` listener (kept for callers of this module; the service's own
    :meth:`TableService.unsubscribe` does it)."""
    tables.unsubscribe(listener)


class TurnClock(ClockSteps):
    """One scheduler for every table's turn clock, time banks, away players and idle closing."""

    def __init__(
        self,
        tables: TableService,
        settings: ClockSettings | None = None,
        *,
        now: Now = time.time,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.tables = tables
        self.settings = settings or ClockSettings()
        self._now = now
        self._sleep = sleep
        self._clocks: dict[int, TableClock] = {}
        self._heap: list[tuple[float, int, int]] = []  # (due, generation, table id)
        self._observers: list[Callable[[ClockNotice], None]] = []
        # expiries, follow-ups and meta writes (work in flight), and the scheduler; the database closing under one
        # at shutdown is expected (logged without a traceback)
        self._tasks = Tasks("turn clock", logger=log, quiet=(StorageError,))
        self._dirty: set[int] = set()
        self._wake = asyncio.Event()
        # When the scheduler's sleep ends (-inf: it is not asleep). A deadline set after an action is almost never
        # earlier than the one it sleeps towards (every table's is a turn's length away), so only an earlier one
        # wakes it: a wake on every action was two tasks made, awaited and cancelled (the main process ~4 % less
        # without it, docs/performance.md "The turn clock woken only by an earlier deadline").
        self._armed = -math.inf
        self._runner: asyncio.Task[None] | None = None
        self._next_sweep = 0.0
        self._subscribed = False
        self._keepers: list[SeatKeeper] = []  # keep_seats_of (the composition root's)

    # ------------------------------------------------------------------ wiring

    def keep_seats_of(self, keeper: SeatKeeper) -> None:
        """Leave the seats and the life of ``keeper``'s tables to it (the tournaments): never stand an away player up
        there nor close such a table when idle, and do not count the Timeouts it plays for a player as his expiries
        (else an away set by them could land after he came back with /pan back and make him away once more).
        Called by the composition root."""
        self._keepers.append(keeper)

    def table_closed(self, closed: TableClosed) -> None:
        """A table closed (``TableService.on_close``): its clock, and any meta write it still owed, go."""
        self._clocks.pop(closed.table_id, None)
        self._dirty.discard(closed.table_id)

    def observe(self, callback: Callable[[ClockNotice], None]) -> None:
        """Call ``callback(notice)`` for every warning, timeout, away, stand-up and idle close."""
        self._observers.append(callback)

    async def start(self, *, run: bool = True) -> None:
        """Subscribe to the table service and pick up every open table where its last action left it.

        ``run=False`` starts no background task (tests drive :meth:`run_due` themselves).
        """
        if not self._subscribed:
            self.tables.subscribe(self._on_applied)
            self._subscribed = True
        await self.resume_all()
        if run and self._runner is None:
            self._runner = self._tasks.start(self._run(), name="pan-turn-clock")

    async def stop(self) -> None:
        """Stop the scheduler, let the expiries and meta writes in flight finish, write the meta left, and end every
        task of the clock."""
        if self._subscribed:
            self.tables.unsubscribe(self._on_applied)
            self._subscribed = False
        runner, self._runner = self._runner, None
        await self._tasks.cancel(runner)
        await self.drain()
        await self._flush_meta()
        await self._tasks.close()

    async def drain(self) -> None:
        """Wait for every expiry, follow-up and meta write in flight."""
        await self._tasks.drain()

    async def resume_all(self) -> int:
        """Build a clock for every open table not yet known, from its stored log timestamps and meta."""
        count = 0
        for session in self.tables.sessions:
            if session.table_id not in self._clocks:
                await self._resume(session)
                count += 1
        return count

    async def _resume(self, session: TableSession) -> None:
        store = self.tables.store
        row = await store.get_table(session.table_id)
        last = row.created_at if row is not None else self._now()
        seq = session.state.seq
        if seq > 0:
            async with store.storage.transaction(write=False) as tx:
                record = await tx.find_journal(action_key(session.table_id, seq))
            if record is not None:
                last = record.created_at
        clock = TableClock(session.table_id)
        if row is not None:
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                clock.load_meta(dict(json.loads(row.meta or "{}").get("clock", {})))
        state = session.state
        if state.hand is None and clock.idle_hand != state.hand_no:  # not (or not yet) in the meta: from the log
            opened = row.created_at if row is not None else last
            clock.idle_since = opened if state.hand_no == 0 else await self._hand_ended_at(session.table_id, last)
            clock.idle_hand = state.hand_no
        if session.table_id in self._clocks:  # an action arrived while we read the store
            return
        self._clocks[session.table_id] = clock
        self._new_decision(clock, state, last)

    async def _hand_ended_at(self, table_id: int, default: float) -> float:
        """The commit time of the last action that ended a hand (``default`` if the log has none)."""
        store = self.tables.store
        for seq, _action, events in reversed(await store.read_log(table_id)):
            if any(line.split(" ", 2)[1:2] == ["HandEnded"] for line in events.splitlines()):
                async with store.storage.transaction(write=False) as tx:
                    record = await tx.find_journal(action_key(table_id, seq))
                return record.created_at if record is not None else default
        return default

    async def _opened_at(self, table_id: int) -> None:
        """A clock first met through an action (the table was opened since the last sweep): idle since opening."""
        row = await self.tables.store.get_table(table_id)
        clock = self._clocks.get(table_id)
        if row is None or clock is None or clock.idle_hand != 0 or row.created_at >= clock.idle_since:
            return
        clock.idle_since = row.created_at
        if clock.player_id is None and not clock.in_hand:
            self._schedule(clock)

    # ------------------------------------------------------------------ queries

    def turn_info(self, table_id: int) -> TurnInfo | None:
        """The decision ``table_id`` waits for, with its deadline (None between hands or if unknown)."""
        clock = self._clocks.get(table_id)
        if clock is None or clock.seat is None or clock.player_id is None:
            return None
        deadline, warn_at = self._deadlines(clock)
        away = clock.away
        return TurnInfo(
            table_id=table_id,
            seat=clock.seat,
            player_id=clock.player_id,
            started=clock.started,
            deadline=deadline,
            warn_at=warn_at,
            bank_left=clock.banks.get(clock.player_id, self.settings.time_bank_seconds),
            away=away,
        )

    def bank_left(self, table_id: int, player_id: int) -> float:
        clock = self._clocks.get(table_id)
        if clock is None:
            return self.settings.time_bank_seconds
        return clock.banks.get(player_id, self.settings.time_bank_seconds)

    def streak(self, table_id: int, player_id: int) -> int:
        clock = self._clocks.get(table_id)
        return clock.streaks.get(player_id, 0) if clock is not None else 0

    def idle_deadline(self, table_id: int) -> float | None:
        """When ``table_id`` closes for idleness: ``idle_close_seconds`` after its last hand ended (or it opened).

        None during a hand or if the table is unknown.
        """
        clock = self._clocks.get(table_id)
        if clock is None or clock.in_hand:
            return None
        return clock.idle_since + self.settings.idle_close_seconds / self.settings.time_scale

    def next_due(self) -> float | None:
        self._prune_heap()
        return self._heap[0][0] if self._heap else None

    # ------------------------------------------------------------------ /pan back

    async def back(self, table_id: int, user_id: int) -> Applied:
        """Return an away player to the game (``SetAway(away=False)``) and clear his expiry streak.

        Raises:
            NoTableHere, NotSeated: he is not (or no longer) seated here.
            NotAway: he is seated and not away.
        """
        session = self.tables.get(table_id)
        seat_index = session.seat_of(user_id)
        seat = session.state.seats[seat_index]
        clock = self._clocks.get(table_id)
        if clock is not None:
            clock.auto_away.discard(user_id)
            if clock.streaks.pop(user_id, 0):
                self._mark_dirty(clock)
        if seat is None or not seat.away:
            raise NotAway

        def come_back(s: int) -> SetAway:
            # Checked again inside the table lock: a tournament's between-hands step may have put the seat back in
            # play (away in the tournament only) while this call waited for the lock.
            current = session.state.seats[s]
            if current is None or not current.away:
                raise NotAway
            return SetAway(seat=s, away=False)

        return await self.tables.act(table_id, user_id, come_back)

    # ------------------------------------------------------------------ the listener (inside the table lock)

    def _on_applied(self, applied: Applied) -> None:
        session = applied.session
        now = self._now()
        clock = self._clocks.get(session.table_id)
        if clock is None:
            hands = applied.before.hand_no  # a table the clock has not met yet (opened since the last sweep)
            clock = self._clocks[session.table_id] = TableClock(session.table_id, idle_since=now, idle_hand=hands)
            if hands == 0:
                self._spawn(self._opened_at(session.table_id))  # idle since opening, not since this action
        action = applied.action
        changed = False
        # Settle the decision that just ended: bank spending and the expiry streak.
        if clock.player_id is not None and clock.seq >= 0:
            pid = clock.player_id
            over = (now - clock.started) * self.settings.time_scale - session.rules.turn_timeout_seconds
            if isinstance(action, Timeout) and applied.actor is None and not self._played_for(session.table_id, pid):
                clock.banks[pid] = 0.0
                clock.streaks[pid] = clock.streaks.get(pid, 0) + 1
                changed = True
            elif applied.actor == pid and over > 0:
                clock.banks[pid] = max(0.0, clock.banks.get(pid, self.settings.time_bank_seconds) - over)
                changed = True
        if applied.actor is not None and clock.streaks.get(applied.actor):
            clock.streaks.pop(applied.actor)  # he acted himself: the streak is broken
            changed = True
        if isinstance(action, SetAway) and not action.away and applied.actor is not None:
            clock.auto_away.discard(applied.actor)
            changed = True
        for event in applied.events:
            if isinstance(event, SeatLeft):  # a new seat session gets a new bank
                for book in (clock.banks, clock.streaks):
                    book.pop(event.player_id, None)
                clock.auto_away.discard(event.player_id)
                changed = True
        ended = any(isinstance(e, HandEnded) for e in applied.events)
        if applied.state.hand is None and (ended or applied.before.hand is not None):
            clock.idle_since, clock.idle_hand = now, applied.state.hand_no  # handless from now: the idle time starts
            changed = True
        if changed:
            self._mark_dirty(clock)
        self._new_decision(clock, applied.state, now)
        self._follow_up(session, clock, applied, ended)

    def _follow_up(self, session: TableSession, clock: TableClock, applied: Applied, ended: bool) -> None:
        """Queue the away/stand actions this transition calls for (they run after the lock is released)."""
        state = applied.state
        if isinstance(applied.action, Timeout) and applied.actor is None:
            seat = applied.before.seat(applied.action.seat)
            self._notify(
                ClockNotice(
                    kind="timeout",
                    table_id=session.table_id,
                    seat=applied.action.seat,
                    player_id=seat.player_id if seat is not None else None,
                )
            )
            counts = seat is not None and not self._played_for(session.table_id, seat.player_id)
            if seat is not None and counts and clock.streaks.get(seat.player_id, 0) >= self.settings.away_after:
                current = state.seat(applied.action.seat)
                if current is not None and current.player_id == seat.player_id and not current.away:
                    self._spawn(self._set_away(session.table_id, applied.action.seat, seat.player_id))
        if state.hand is None and (ended or isinstance(applied.action, SetAway)):
            for index, seat in enumerate(state.seats):
                if seat is not None and seat.away and seat.player_id in clock.auto_away:
                    self._spawn(self._stand_away(session.table_id, index, seat.player_id))

    def _new_decision(self, clock: TableClock, state: TableState, started: float) -> None:
        clock.seq = state.seq
        clock.started = started
        clock.in_hand = state.hand is not None
        clock.seat = engine.to_act(state) if clock.in_hand else None
        seat = state.seat(clock.seat) if clock.seat is not None else None
        clock.player_id = seat.player_id if seat is not None else None
        clock.away = bool(seat is not None and seat.away)
        clock.warned = False
        self._schedule(clock)

    # ------------------------------------------------------------------ scheduling

    def _deadlines(self, clock: TableClock) -> tuple[float, float]:
        """(deadline, warn_at) of the current decision, or of the idle close between hands."""
        s = self.settings
        if clock.player_id is None:
            due = clock.idle_since + s.idle_close_seconds / s.time_scale
            return due, due
        if clock.away:
            return clock.started, clock.started
        turn = self._turn_seconds(clock.table_id)
        bank = clock.banks.get(clock.player_id, s.time_bank_seconds)
        deadline = clock.started + (turn + bank) / s.time_scale
        warn_at = max(clock.started, deadline - s.warning_seconds / s.time_scale)
        return deadline, warn_at

    def _turn_seconds(self, table_id: int) -> float:
        try:
            return float(self.tables.get(table_id).rules.turn_timeout_seconds)
        except NoTableHere:
            return 0.0

    def _schedule(self, clock: TableClock) -> None:
        clock.generation += 1
        deadline, warn_at = self._deadlines(clock)
        due = deadline if clock.warned or clock.player_id is None else warn_at
        if clock.in_hand and clock.player_id is None:
            return  # a hand waiting on nobody (cannot happen with the current engine): nothing to time
        heapq.heappush(self._heap, (due, clock.generation, clock.table_id))
        if len(self._heap) > 4 * len(self._clocks) + 64:  # drop superseded entries (lazy deletion)
            self._heap = [(d, g, t) for d, g, t in self._heap if t in self._clocks and self._clocks[t].generation == g]
            heapq.heapify(self._heap)
        if due < self._armed:
            self._wake.set()

    def _prune_heap(self) -> None:
        while self._heap:
            _, generation, table_id = self._heap[0]
            clock = self._clocks.get(table_id)
            if clock is not None and clock.generation == generation:
                return
            heapq.heappop(self._heap)

    async def run_due(self, *, wait: bool = True) -> int:
        """Handle every warning, expiry and idle close due at ``now()``; returns how many were handled.

        With ``wait`` the expiries (and their follow-ups) have been applied when it returns.
        """
        now = self._now()
        handled = 0
        if now >= self._next_sweep:
            self._next_sweep = now + self.settings.sweep_seconds / self.settings.time_scale
            await self.resume_all()
            self._forget_closed()
        while True:
            self._prune_heap()
            if not self._heap or self._heap[0][0] > now:
                break
            _, _, table_id = heapq.heappop(self._heap)
            clock = self._clocks[table_id]
            handled += 1
            self._handle_due(clock, now)
        if wait:
            await self.drain()
        return handled

    def _handle_due(self, clock: TableClock, now: float) -> None:
        deadline, _ = self._deadlines(clock)
        if clock.player_id is None:
            self._spawn(self._close_idle(clock.table_id, clock.seq))
            return
        if not clock.warned and now < deadline:
            clock.warned = True
            self._notify(
                ClockNotice(
                    kind="warning",
                    table_id=clock.table_id,
                    seat=clock.seat,
                    player_id=clock.player_id,
                    seconds_left=(deadline - now) * self.settings.time_scale,
                )
            )
            self._schedule(clock)
            return
        clock.warned = True
        if clock.seat is not None:
            self._spawn(self._expire(clock.table_id, clock.seat, clock.seq))

    def _forget_closed(self) -> None:
        open_ids = {s.table_id for s in self.tables.sessions}
        for table_id in [t for t in self._clocks if t not in open_ids]:
            del self._clocks[table_id]

    async def _run(self) -> None:
        while True:
            try:
                self._wake.clear()
                due = self.next_due()
                now = self._now()
                next_at = self._next_sweep if due is None else min(due, self._next_sweep)
                delay = max(0.0, next_at - now)
                if delay > 0:
                    sleeper = asyncio.ensure_future(self._sleep(delay))
                    waker = asyncio.ensure_future(self._wake.wait())
                    self._armed = next_at
                    try:
                        await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        self._armed = -math.inf
                        sleeper.cancel()
                        waker.cancel()
                await self.run_due(wait=False)
            except asyncio.CancelledError:
                raise
            except Exception:  # the clock must outlive any single failure
                log.exception("turn clock loop failed; continuing")
                await self._sleep(0.05)
