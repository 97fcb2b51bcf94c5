"""What the turn clock does when a deadline passes: time a seat out (or foul an abandoned hand), set a player away
after his expiries, stand him up when the hand ends, close a table idle too long; and how it tells its observers and
keeps its meta. A mixin of :class:`pancog.services.clock.TurnClock`, which owns the state declared here (it
schedules; this module acts).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from pancog.game.actions import Action, FloorFoul, SetAway, Stand, Timeout
from pancog.game.errors import PanError
from pancog.game.events import CashedOut
from pancog.game.state import Phase
from pancog.infra import logs
from pancog.infra.storage.base import StorageError
from pancog.infra.tasks import Tasks
from pancog.services.clock_values import ClockNotice, ClockSettings, SeatKeeper, TableClock
from pancog.services.tables import Applied, CloseReason, NoTableHere, NotSeated, TableService

log = logging.getLogger("pan.clock")


class ClockSteps:
    """The clock's actions at a deadline, its notices and its meta writes (state owned by ``TurnClock``)."""

    tables: TableService
    settings: ClockSettings
    _clocks: dict[int, TableClock]
    _dirty: set[int]
    _observers: list[Callable[[ClockNotice], None]]
    _keepers: list[SeatKeeper]
    _tasks: Tasks

    def _keeps_seats(self, table_id: int) -> bool:
        return any(keeper.owns_table(table_id) for keeper in self._keepers)

    def _played_for(self, table_id: int, player_id: int) -> bool:
        return any(keeper.plays_for(table_id, player_id) for keeper in self._keepers)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        self._tasks.spawn(coro, name="pan-turn-clock-step")

    # ------------------------------------------------------------------ what the clock does

    async def _expire(self, table_id: int, seat: int, seq: int) -> None:
        """Time out ``seat`` if the table is still at ``seq`` (a duplicate or late expiry is refused, harmlessly).

        When every player still in action is away, nobody can end the hand by playing: the floor fouls the
        abandoned hand instead (RULES §6.5 b: the player still pays to the end), so the hand ends.
        """
        with logs.context(table=table_id, seat=seat):
            try:
                if self._abandoned(table_id, seat):
                    await self.tables.system_act(table_id, FloorFoul(target=seat), expect_seq=seq)
                    log.info("every player in the hand is away: the abandoned hand is fouled")
                    self._notify(ClockNotice(kind="abandoned", table_id=table_id, seat=seat))
                    return
                await self.tables.system_act(table_id, Timeout(seat=seat), expect_seq=seq)
                log.info("turn clock expired: timeout applied")
            except NoTableHere:
                return
            except PanError as exc:
                if self._still(table_id, seq):
                    await self._unstick(table_id, seat, seq, exc)

    def _abandoned(self, table_id: int, seat: int) -> bool:
        """In play, ``seat`` and every other player still in action are away."""
        state = self.tables.get(table_id).state
        hand = state.hand
        if hand is None or hand.phase is not Phase.PLAYING:
            return False
        playing = hand.in_action()
        return seat in playing and all((s := state.seat(i)) is not None and s.away for i in playing)

    def _still(self, table_id: int, seq: int) -> bool:
        try:
            return self.tables.get(table_id).state.seq == seq
        except NoTableHere:
            return False

    async def _unstick(self, table_id: int, seat: int, seq: int, error: PanError) -> None:
        """The engine refused the timeout at the same seq (an engine gap): stand the player up (he keeps paying,
        RULES §6.5), else have the floor foul his hand, so the table never waits on him."""
        log.warning("timeout refused at seq %s (%s); standing the player up so the table does not stall", seq, error)
        self._notify(ClockNotice(kind="error", table_id=table_id, seat=seat, detail=f"timeout refused: {error}"))
        for action in (Stand(seat=seat), FloorFoul(target=seat)):
            try:
                await self.tables.system_act(table_id, action, expect_seq=seq)
                return
            except NoTableHere:
                return
            except PanError as exc:
                if not self._still(table_id, seq):
                    return
                log.warning("%s refused too: %s", type(action).__name__, exc)
        log.error("table %s is stuck at seq %s: no timeout, stand-up or floor foul applies", table_id, seq)

    async def _set_away(self, table_id: int, seat: int, player_id: int) -> None:
        with logs.context(table=table_id, seat=seat):
            applied = await self._guarded(table_id, seat, player_id, SetAway(seat=seat, away=True))
            if applied is None:
                return
            clock = self._clocks.get(table_id)
            if clock is not None:
                clock.auto_away.add(player_id)
                self._mark_dirty(clock)
                if applied.state.hand is None:  # no hand to finish: stand up now
                    self._spawn(self._stand_away(table_id, seat, player_id))
            log.info("player %s is away after %s expiries", player_id, self.settings.away_after)
            self._notify(ClockNotice(kind="away", table_id=table_id, seat=seat, player_id=player_id))

    async def _stand_away(self, table_id: int, seat: int, player_id: int) -> None:
        if self._keeps_seats(table_id):
            return
        with logs.context(table=table_id, seat=seat):
            applied = await self._guarded(table_id, seat, player_id, Stand(seat=seat), need_away=True)
            if applied is None:
                return
            cashouts = tuple((e.player_id, e.amount) for e in applied.events if isinstance(e, CashedOut))
            log.info("away player %s stood up", player_id)
            self._notify(
                ClockNotice(kind="stood", table_id=table_id, seat=seat, player_id=player_id, cashouts=cashouts)
            )

    async def _guarded(
        self, table_id: int, seat: int, player_id: int, action: Action, *, need_away: bool = False
    ) -> Applied | None:
        """Apply ``action`` if ``seat`` still holds ``player_id`` (and is away, with ``need_away``)."""
        try:
            session = self.tables.get(table_id)
        except NoTableHere:
            return None
        current = session.state.seat(seat)
        if current is None or current.player_id != player_id or (need_away and not current.away):
            return None
        seq = session.state.seq
        try:
            return await self.tables.system_act(table_id, action, expect_seq=seq)
        except (NoTableHere, NotSeated):
            return None
        except PanError as exc:
            if self._still(table_id, seq):
                log.warning("%s refused: %s", type(action).__name__, exc)
                return None
            # the table moved on between our check and the lock: look again
            return await self._guarded(table_id, seat, player_id, action, need_away=need_away)

    async def _close_idle(self, table_id: int, seq: int) -> None:
        try:
            session = self.tables.get(table_id)
        except NoTableHere:
            self._clocks.pop(table_id, None)
            return
        if session.in_hand or session.state.hand is not None or session.state.seq != seq:
            return
        if self._keeps_seats(table_id):
            return
        try:
            with logs.context(guild=session.guild_id, table=table_id):
                cashouts = await self.tables.close_system(table_id, reason=CloseReason.IDLE)
                log.info("idle table closed; returned %s", cashouts)
        except NoTableHere:
            return
        finally:
            self._clocks.pop(table_id, None)
            self._dirty.discard(table_id)
        returned = tuple(sorted(cashouts.items()))
        self._notify(
            ClockNotice(
                kind="idle_closed",
                table_id=table_id,
                cashouts=returned,
                channel_id=session.channel_id,
                guild_id=session.guild_id,
            )
        )

    # ------------------------------------------------------------------ notices and meta

    def _notify(self, notice: ClockNotice) -> None:
        for callback in self._observers:
            try:
                callback(notice)
            except Exception:
                log.exception("clock observer failed on %s", notice.kind)

    def _mark_dirty(self, clock: TableClock) -> None:
        if clock.table_id not in self._dirty:
            self._dirty.add(clock.table_id)
            self._spawn(self._flush_meta())

    async def _flush_meta(self) -> None:
        while self._dirty:
            table_id = self._dirty.pop()
            clock = self._clocks.get(table_id)
            if clock is None:
                continue
            await self._write_meta(table_id, clock.meta())

    async def _write_meta(self, table_id: int, data: dict[str, Any]) -> None:
        try:
            await self.tables.store.merge_meta(table_id, "clock", data)
        except (PanError, StorageError):
            return  # closed meanwhile, or shutting down (the bank spending of one turn is forgotten)
