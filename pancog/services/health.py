"""Status registry for operators: open tables, players, hands in progress, the last error per table, counters.

No discord imports. The adapter records what it sees (a failed board edit, a gateway resume, a deleted channel)
with :meth:`HealthRegistry.record_error` / :meth:`HealthRegistry.count`; :meth:`HealthRegistry.report` reads the
live tables from the :class:`~pancog.services.tables.TableService` and the turn clock. ``/pan status`` shows
:meth:`HealthReport.summary`.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from pancog.game import engine
from pancog.game.words import plural
from pancog.services.clock import TurnClock
from pancog.services.tables import TableClosed, TableService

__all__ = ["HealthRegistry", "HealthReport", "TableHealth"]

MAX_ERROR_TEXT = 160


@dataclass(frozen=True, slots=True, kw_only=True)
class TableHealth:
    table_id: int
    guild_id: int
    channel_id: int
    players: int
    hand_no: int
    in_hand: bool
    to_act: int | None  # player id the table waits for
    seconds_left: float | None  # until the turn clock (or the idle close) fires
    away: int  # seated players who are away
    last_error: str | None
    last_error_at: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class HealthReport:
    now: float
    started_at: float
    tables: tuple[TableHealth, ...]
    counters: dict[str, int] = field(default_factory=dict)
    errors: tuple[tuple[float, int | None, str], ...] = ()  # recent (time, table id, text), newest last
    load_seconds: float | None = None

    @property
    def open_tables(self) -> int:
        return len(self.tables)

    @property
    def players(self) -> int:
        return sum(t.players for t in self.tables)

    @property
    def hands_in_progress(self) -> int:
        return sum(1 for t in self.tables if t.in_hand)

    def people(self) -> list[int]:
        """The players :meth:`summary` names (the ones tables wait on)."""
        return [t.to_act for t in self.tables[:15] if t.to_act is not None]

    def summary(self, *, names: Callable[[int], str] = str, channel: Callable[[int], str] | None = None) -> str:
        """Plain text for operators (fits a Discord message: at most ~1900 characters)."""
        up = int(self.now - self.started_at)
        head = (
            f"Up {up // 3600}h{up % 3600 // 60:02d}m · open tables {self.open_tables} · players {self.players}"
            f" · hands in progress {self.hands_in_progress}"
        )
        if self.load_seconds is not None:
            head += f" · resumed at start-up in {self.load_seconds:.2f}s"
        lines = [head]
        if self.counters:
            lines.append("Counters: " + ", ".join(f"{k} {v}" for k, v in sorted(self.counters.items())))
        for t in self.tables[:15]:
            where = channel(t.channel_id) if channel is not None else f"channel {t.channel_id}"
            text = f"• {where} (table {t.table_id}): {t.players} seated"
            if t.away:
                text += f", {t.away} away"
            if t.in_hand:
                text += f", hand {t.hand_no}"
                if t.to_act is not None:
                    text += f", waiting on {names(t.to_act)}"
            else:
                text += ", between hands"
            if t.seconds_left is not None:
                text += f" ({max(0, int(t.seconds_left))}s to {'timeout' if t.in_hand else 'idle close'})"
            if t.last_error:
                text += f"\n   last error: {t.last_error}"
            lines.append(text)
        if len(self.tables) > 15:
            lines.append(f"… and {plural(len(self.tables) - 15, 'more table')}")
        loose = [e for e in self.errors if e[1] is None][-3:]
        for _, _, text in loose:
            lines.append(f"recent error: {text}")
        out = "\n".join(lines)
        return out if len(out) <= 1900 else out[:1899] + "…"


class HealthRegistry:
    """Live status of the bot; cheap to query."""

    def __init__(
        self,
        tables: TableService,
        *,
        clock: TurnClock | None = None,
        now: Callable[[], float] = time.time,
        keep_errors: int = 50,
    ) -> None:
        self.tables = tables
        self.clock = clock
        self._now = now
        self.started_at = now()
        self.load_seconds: float | None = None
        self.counters: Counter[str] = Counter()
        self._last_error: dict[int, tuple[float, str]] = {}
        self._errors: list[tuple[float, int | None, str]] = []
        self._keep = keep_errors

    def count(self, name: str, n: int = 1) -> None:
        self.counters[name] += n

    def record_error(self, table_id: int | None, text: str) -> None:
        """Remember an operational error (shown by /pan status), per table when it concerns one."""
        text = " ".join(text.split())[:MAX_ERROR_TEXT]
        at = self._now()
        if table_id is not None:
            self._last_error[table_id] = (at, text)
        self._errors.append((at, table_id, text))
        del self._errors[: -self._keep]
        self.counters["errors"] += 1

    def last_error(self, table_id: int) -> str | None:
        found = self._last_error.get(table_id)
        return found[1] if found else None

    def forget(self, table_id: int) -> None:
        self._last_error.pop(table_id, None)

    def table_closed(self, closed: TableClosed) -> None:
        """A table closed (``TableService.on_close``): its last error is no longer a table's status."""
        self.forget(closed.table_id)

    def loaded(self, seconds: float) -> None:
        """How long the start-up took to pick up every open table (shown by /panadmin status)."""
        self.load_seconds = seconds

    def report(self, guild_id: int | None = None) -> HealthReport:
        """The status of every open table (of ``guild_id`` only, if given)."""
        now = self._now()
        rows: list[TableHealth] = []
        for session in sorted(self.tables.sessions, key=lambda s: s.table_id):
            if guild_id is not None and session.guild_id != guild_id:
                continue
            state = session.state
            seat = engine.to_act(state) if state.hand is not None else None
            occupant = state.seat(seat) if seat is not None else None
            seconds_left: float | None = None
            if self.clock is not None:
                info = self.clock.turn_info(session.table_id)
                if info is not None:
                    seconds_left = info.deadline - now
                else:
                    idle = self.clock.idle_deadline(session.table_id)
                    seconds_left = idle - now if idle is not None else None
            error = self._last_error.get(session.table_id)
            rows.append(
                TableHealth(
                    table_id=session.table_id,
                    guild_id=session.guild_id,
                    channel_id=session.channel_id,
                    players=len(session.player_ids()),
                    hand_no=state.hand_no,
                    in_hand=state.hand is not None,
                    to_act=occupant.player_id if occupant is not None else None,
                    seconds_left=seconds_left,
                    away=sum(1 for s in state.seats if s is not None and s.away),
                    last_error=error[1] if error else None,
                    last_error_at=error[0] if error else None,
                )
            )
        errors = tuple(
            e for e in self._errors if guild_id is None or e[1] is None or any(r.table_id == e[1] for r in rows)
        )
        return HealthReport(
            now=now,
            started_at=self.started_at,
            tables=tuple(rows),
            counters=dict(self.counters),
            errors=errors[-10:],
            load_seconds=self.load_seconds,
        )
