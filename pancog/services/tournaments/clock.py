"""The tournament clock: which level (and ante) is in force, breaks, pauses, late registration, and when a
scheduled tournament is due to start. The level schedule itself is pure (:mod:`.levels`); the clock runs on the
tournament's start time minus its pauses, so a level after a restart follows the wall clock."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pancog.game.i18n import N_

from .core import Core
from .errors import TournamentNotRunning, TournamentStateError
from .events import LevelUp
from .model import EntryStatus, Status, Tournament

__all__ = ["Clock", "Now"]


@dataclass(frozen=True, slots=True)
class Now:
    """The clock of one tournament at a moment: 0-based level, its ante, a break, seconds to the next change."""

    level: int
    ante: int
    on_break: bool
    seconds_left: float


class Clock:
    """Levels, breaks, pauses and scheduled starts of every tournament (one per service)."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self._levels_seen: dict[int, int] = {}  # tournament id -> last level announced (LevelUp once per level)

    def now(self, t: Tournament) -> Now:
        clock = t.config.schedule().at(t.running_ms(self.core.now_ms()) / 1000)
        return Now(clock.level, clock.ante, clock.on_break, clock.seconds_left)

    def registration_open(self, t: Tournament) -> bool:
        if t.status is Status.REGISTERING:
            return True
        if t.status is Status.RUNNING and t.config.late_levels:
            return self.now(t).level < t.config.late_levels
        return False

    def due(self, t: Tournament) -> Literal["start", "cancel"] | None:
        """A scheduled tournament whose start time has come: ``start`` with its minimum field, else ``cancel``."""
        cfg = t.config
        waiting = t.status in (Status.ANNOUNCED, Status.REGISTERING)
        if not waiting or cfg.start_at_ms is None or self.core.now_ms() < cfg.start_at_ms:
            return None
        registered = sum(1 for e in t.entries.values() if e.status is EntryStatus.REGISTERED)
        return "start" if registered >= cfg.min_entries else "cancel"

    def may_deal(self, t: Tournament) -> Now | None:
        """The clock when the tables may deal now (not paused, not on a break); announces a new level once."""
        if t.paused_ms is not None:
            return None
        now = self.now(t)
        if now.on_break:
            return None
        if self._levels_seen.get(t.tournament_id, -1) != now.level:
            self._levels_seen[t.tournament_id] = now.level
            self.core.emit(LevelUp(t.tournament_id, now.level + 1, now.ante))
        return now

    async def pause(self, t: Tournament) -> None:
        """Stop the clock: hands in progress finish, no new hand is dealt (call with the tournament's lock)."""
        if t.status is not Status.RUNNING:
            raise TournamentNotRunning
        if t.paused_ms is not None:
            raise TournamentStateError(N_("The tournament is already paused."))
        draft = self.core.draft(t)
        draft.t.paused_ms = self.core.now_ms()
        await self.core.commit(draft)

    async def resume(self, t: Tournament) -> None:
        """Run the clock again, the pause left out of the levels (call with the tournament's lock)."""
        if t.status is not Status.RUNNING or t.paused_ms is None:
            raise TournamentStateError(N_("The tournament is not paused."))
        draft = self.core.draft(t)
        draft.t.paused_total += self.core.now_ms() - t.paused_ms
        draft.t.paused_ms = None
        await self.core.commit(draft)
