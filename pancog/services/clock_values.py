"""The turn clock's values: its settings, what it tells observers (:class:`ClockNotice`) and the adapter
(:class:`TurnInfo`), the seat keepers it defers to, ``/pan back``'s error, and one table's clock
(:class:`TableClock`: the current decision, banks, streaks, away players and idle time, with its meta JSON).

Split from :mod:`pancog.services.clock`, which re-exports the public names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pancog.game.errors import PanError
from pancog.game.i18n import N_

NoticeKind = Literal["warning", "timeout", "away", "stood", "back", "abandoned", "idle_closed", "error"]


class NotAway(PanError):
    code = "not_away"

    def __init__(self) -> None:
        super().__init__(N_("You are not away; you are already playing at this table."))


class SeatKeeper(Protocol):
    """A service that owns the seats and the life of some tables (the tournaments): the clock still times their turns
    and marks players away, but never stands an away player up nor closes such a table when idle."""

    def owns_table(self, table_id: int) -> bool:
        """True for a table whose seats and life are this keeper's."""
        ...

    def plays_for(self, table_id: int, player_id: int) -> bool:
        """True while this keeper plays ``player_id``'s turns at ``table_id`` itself (a tournament's away entries,
        sluffed by its own Timeouts): those Timeouts are not the player's expiries."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ClockSettings:
    """Durations are in nominal seconds; real waits are divided by ``time_scale``."""

    time_bank_seconds: float = 120.0
    warning_seconds: float = 15.0
    away_after: int = 2
    idle_close_seconds: float = 1800.0
    sweep_seconds: float = 60.0  # how often tables opened without an action are picked up
    time_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.time_scale <= 0 or self.away_after < 1 or self.time_bank_seconds < 0:
            raise ValueError(f"invalid clock settings: {self}")


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnInfo:
    """The decision a table waits for, for the board: ``deadline`` and ``warn_at`` are epoch seconds."""

    table_id: int
    seat: int
    player_id: int
    started: float
    deadline: float
    warn_at: float
    bank_left: float  # nominal seconds of the player's bank not yet spent (before this decision)
    away: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ClockNotice:
    """Something the clock did or warns about, for the adapter to show (the board, a message)."""

    kind: NoticeKind
    table_id: int
    seat: int | None = None
    player_id: int | None = None
    seconds_left: float = 0.0
    cashouts: tuple[tuple[int, int], ...] = ()  # idle_closed / stood: (user id, chips returned)
    detail: str = ""
    channel_id: int | None = None  # idle_closed: the channel the table was in (it is gone from the service)
    guild_id: int = 0  # idle_closed: the table's guild_id (its players' names are that server's)


@dataclass(slots=True, eq=False)
class TableClock:
    table_id: int
    seq: int = -1  # the seq the current decision started at
    started: float = 0.0
    seat: int | None = None
    player_id: int | None = None
    in_hand: bool = False
    away: bool = False  # the player to act is away: his turn times out at once
    warned: bool = False
    generation: int = 0
    banks: dict[int, float] = field(default_factory=dict)  # player id -> nominal seconds left
    streaks: dict[int, int] = field(default_factory=dict)  # player id -> expiries in a row
    auto_away: set[int] = field(default_factory=set)  # players the clock set away (stood up at hand end)
    idle_since: float = 0.0  # when the table last became handless (its last hand ended, or it opened)
    idle_hand: int = -1  # the hand count at idle_since (-1: unknown; 0: no hand dealt yet, idle since opening)

    def meta(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "banks": {str(k): round(v, 3) for k, v in sorted(self.banks.items())},
            "streaks": {str(k): v for k, v in sorted(self.streaks.items()) if v},
            "away": sorted(self.auto_away),
        }
        if self.idle_hand > 0:  # idle since the end of hand ``idle_hand`` (hand 0: the table's creation time)
            data["idle_since"] = round(self.idle_since, 3)
            data["idle_hand"] = self.idle_hand
        return data

    def load_meta(self, data: dict[str, Any]) -> None:
        self.banks = {int(k): float(v) for k, v in dict(data.get("banks", {})).items()}
        self.streaks = {int(k): int(v) for k, v in dict(data.get("streaks", {})).items()}
        self.auto_away = {int(p) for p in data.get("away", [])}
        if "idle_since" in data and "idle_hand" in data:
            self.idle_since = float(data["idle_since"])
            self.idle_hand = int(data["idle_hand"])
