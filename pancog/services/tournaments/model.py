"""Tournament configuration and state (value types shared by the service and the repository)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pancog.game.i18n import N_

from .errors import BadTournamentOption
from .levels import LevelSchedule, default_antes
from .payouts import prizes

__all__ = [
    "DEFAULT_BASE_ANTE",
    "DEFAULT_LEVEL_MINUTES",
    "DEFAULT_SNG_LEVEL_MINUTES",
    "DEFAULT_STACK",
    "TITLE_MAX",
    "Entry",
    "EntryStatus",
    "Format",
    "Status",
    "TTable",
    "Tournament",
    "TournamentConfig",
]

# Chosen by simulating whole tournaments of computer players (bench/tournament_sim.py, docs/tournaments.md): with
# 30 antes a stack, a 7-player Sit & Go with 6-minute levels lasts about an hour and a 40-entry event with 10-minute
# levels about two and a half hours (at 10 s + 1.5 s per decision a hand).
DEFAULT_STACK = 300
DEFAULT_BASE_ANTE = 10
DEFAULT_LEVEL_MINUTES = 10.0  # scheduled events
DEFAULT_SNG_LEVEL_MINUTES = 6.0


class Format(StrEnum):
    SNG = "sng"
    SCHEDULED = "scheduled"


class Status(StrEnum):
    ANNOUNCED = "announced"
    REGISTERING = "registering"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class EntryStatus(StrEnum):
    REGISTERED = "registered"  # before the start
    ALIVE = "alive"
    OUT = "out"
    REFUNDED = "refunded"


TITLE_MAX = 60
"""The longest tournament title (it heads the announcement, every table's thread name and the results)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentConfig:
    format: Format = Format.SNG
    title: str = ""
    buy_in: int = 100  # bank chips per entry
    fee: int = 0  # of the buy-in, to the house
    seats: int = 7
    starting_stack: int = DEFAULT_STACK
    antes: tuple[int, ...] = field(default_factory=lambda: default_antes(DEFAULT_BASE_ANTE))
    level_minutes: float | None = None  # None: 6 for a Sit & Go, 10 for a scheduled event
    break_every: int = 0
    break_minutes: float = 5.0
    start_at_ms: int | None = None  # scheduled events
    min_entries: int = 2
    max_field: int = 0  # 0: a Sit & Go's seats, unlimited for a scheduled event
    late_levels: int = 0  # registration stays open during levels 1..late_levels (0: until the start)
    max_entries: int = 1  # entries per player (re-entries + 1); 0 or 1 = freezeout
    payouts: tuple[int, ...] = ()  # custom payout weights (e.g. 50, 30, 20); empty: the published table
    computers: bool = True  # computer players may register
    preset: str = "california"
    winner_role_id: int | None = None  # a Discord role the winner gets when the tournament finishes (optional)
    checkin_minutes: int = 0  # scheduled: registered players check in during the last N minutes (0: no check-in)
    # Rebuys, add-on, bounties, a guarantee and satellites (the rules: pancog/services/tournaments/purse.py).
    rebuy_levels: int = 0  # rebuys allowed during levels 1..rebuy_levels (0: none)
    rebuy_stack: int = 0  # a rebuy when at or below this many chips (0: the starting stack)
    max_rebuys: int = 0  # rebuys per entry (0: no limit during the period)
    addon: bool = False  # one add-on per entry at the end of the rebuy period
    bounty: int = 0  # of the buy-in, on each entry's head, paid to whoever knocks it out
    progressive: bool = False  # a knock-out pays half the bounty and puts the other half on the eliminator's head
    guarantee: int = 0  # a guaranteed prize pool (the house covers the overlay); moderators only
    satellite_for: int | None = None  # the tournament whose seats are the prizes

    def __post_init__(self) -> None:
        self.schedule()  # validates the antes
        if len(self.title) > TITLE_MAX:  # checked here, not only by the slash option: nothing stored, nothing posted
            raise BadTournamentOption(N_("A tournament's title has at most {n} characters."), n=TITLE_MAX)
        if self.buy_in < 0 or not 0 <= self.fee <= self.buy_in:
            raise BadTournamentOption(N_("The buy-in cannot be negative and the fee is part of it."))
        low = 2 if self.format is Format.SNG else 4
        if not low <= self.seats <= 8:
            raise BadTournamentOption(N_("Tables seat {low} to 8 players in this format."), low=low)
        if self.starting_stack <= self.antes[0]:
            raise BadTournamentOption(N_("The starting stack must be more than the first ante."))
        if self.min_entries < 2 or self.max_entries < 0 or self.late_levels < 0 or self.max_field < 0:
            raise BadTournamentOption(N_("A tournament needs at least two entries; limits cannot be negative."))
        if self.format is Format.SCHEDULED and self.start_at_ms is None:
            raise BadTournamentOption(N_("A scheduled tournament needs a start time."))
        if self.format is Format.SNG and (self.late_levels or self.max_entries > 1):
            raise BadTournamentOption(N_("A Sit & Go is a freezeout that starts when its table is full."))
        if self.payouts:
            prizes(100, 100, self.payouts)  # validates the list
        if self.checkin_minutes < 0 or (self.checkin_minutes and self.format is not Format.SCHEDULED):
            raise BadTournamentOption(
                N_("Check-in is for scheduled tournaments, in the last minutes before the start.")
            )
        _check_purse(self)

    def schedule(self) -> LevelSchedule:
        return LevelSchedule(
            antes=self.antes,
            level_minutes=self.minutes_per_level,
            break_every=self.break_every,
            break_minutes=self.break_minutes,
        )

    @property
    def minutes_per_level(self) -> float:
        if self.level_minutes is not None:
            return self.level_minutes
        return DEFAULT_SNG_LEVEL_MINUTES if self.format is Format.SNG else DEFAULT_LEVEL_MINUTES

    @property
    def field_limit(self) -> int:
        if self.format is Format.SNG:
            return self.seats
        return self.max_field or 10**9

    @property
    def entries_per_player(self) -> int:
        return max(1, self.max_entries)

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "format": self.format.value,
            "title": self.title,
            "buy_in": self.buy_in,
            "fee": self.fee,
            "seats": self.seats,
            "starting_stack": self.starting_stack,
            "antes": list(self.antes),
            "level_minutes": self.level_minutes,
            "break_every": self.break_every,
            "break_minutes": self.break_minutes,
            "start_at_ms": self.start_at_ms,
            "min_entries": self.min_entries,
            "max_field": self.max_field,
            "late_levels": self.late_levels,
            "max_entries": self.max_entries,
            "payouts": list(self.payouts),
            "computers": self.computers,
            "preset": self.preset,
            "winner_role_id": self.winner_role_id,
            "checkin_minutes": self.checkin_minutes,
            "rebuy_levels": self.rebuy_levels,
            "rebuy_stack": self.rebuy_stack,
            "max_rebuys": self.max_rebuys,
            "addon": self.addon,
            "bounty": self.bounty,
            "progressive": self.progressive,
            "guarantee": self.guarantee,
            "satellite_for": self.satellite_for,
        }
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> TournamentConfig:
        d: dict[str, Any] = json.loads(text)
        return cls(
            format=Format(d["format"]),
            title=str(d["title"]),
            buy_in=int(d["buy_in"]),
            fee=int(d["fee"]),
            seats=int(d["seats"]),
            starting_stack=int(d["starting_stack"]),
            antes=tuple(int(a) for a in d["antes"]),
            level_minutes=None if d["level_minutes"] is None else float(d["level_minutes"]),
            break_every=int(d["break_every"]),
            break_minutes=float(d["break_minutes"]),
            start_at_ms=None if d["start_at_ms"] is None else int(d["start_at_ms"]),
            min_entries=int(d["min_entries"]),
            max_field=int(d["max_field"]),
            late_levels=int(d["late_levels"]),
            max_entries=int(d["max_entries"]),
            payouts=tuple(int(p) for p in d["payouts"]),
            computers=bool(d["computers"]),
            preset=str(d["preset"]),
            winner_role_id=None if d.get("winner_role_id") is None else int(d["winner_role_id"]),
            checkin_minutes=int(d.get("checkin_minutes", 0)),
            rebuy_levels=int(d.get("rebuy_levels", 0)),
            rebuy_stack=int(d.get("rebuy_stack", 0)),
            max_rebuys=int(d.get("max_rebuys", 0)),
            addon=bool(d.get("addon", False)),
            bounty=int(d.get("bounty", 0)),
            progressive=bool(d.get("progressive", False)),
            guarantee=int(d.get("guarantee", 0)),
            satellite_for=None if d.get("satellite_for") is None else int(d["satellite_for"]),
        )


def _check_purse(cfg: TournamentConfig) -> None:
    """Refuse rebuy, bounty, guarantee and satellite options that do not fit together (nothing is stored; their
    rules: :mod:`.purse`).

    Raises:
        BadTournamentOption.
    """
    if min(cfg.rebuy_levels, cfg.rebuy_stack, cfg.max_rebuys, cfg.bounty, cfg.guarantee) < 0:
        raise BadTournamentOption(N_("Rebuys, bounties and guarantees cannot be negative."))
    if cfg.bounty > cfg.buy_in - cfg.fee:
        raise BadTournamentOption(N_("A bounty is part of the buy-in: it cannot be more than the buy-in less the fee."))
    if cfg.progressive and not cfg.bounty:
        raise BadTournamentOption(N_("A progressive bounty needs a bounty."))
    if (cfg.addon or cfg.max_rebuys or cfg.rebuy_stack) and not cfg.rebuy_levels:
        raise BadTournamentOption(N_("Rebuy options and the add-on need a rebuy period (rebuy_levels)."))
    if cfg.satellite_for is not None and cfg.bounty:
        raise BadTournamentOption(N_("A satellite pays seats, not bounties."))


@dataclass(slots=True, kw_only=True)
class Entry:
    entry_id: int
    player_id: int
    entry_no: int
    status: EntryStatus
    created_ms: int
    table_no: int | None = None
    moves: int = 0
    bust_group: int | None = None
    start_stack: int | None = None
    end_stack: int | None = None  # what the knock-out hand left it (ranks same-hand busts before start_stack)
    place: int | None = None
    tied: int | None = None
    prize: int | None = None
    away: bool = False
    rebuys: int = 0  # rebuys bought (V16)
    addons: int = 0  # add-ons bought (0 or 1)
    bounty: int = 0  # the bounty on this entry's head, in escrow until someone knocks it out
    bounty_won: int = 0  # bounties paid to this entry (knock-outs, and the winner's own head at the end)
    knocked_by: int | None = None  # the entry that collected this entry's bounty


@dataclass(slots=True, kw_only=True)
class TTable:
    table_no: int
    table_id: int
    status: str = "open"  # open | closed
    final: bool = False
    hand_stacks: dict[int, int] = field(default_factory=dict)  # entry id -> stack at the start of the hand
    channel_id: int | None = None  # where it is played (the adapter's thread), stored before the table opens (V10)


@dataclass(slots=True, kw_only=True)
class Tournament:
    tournament_id: int
    guild_id: int
    channel_id: int
    host_id: int
    config: TournamentConfig
    status: Status
    created_ms: int
    seed: int
    started_ms: int | None = None
    paused_ms: int | None = None
    paused_total: int = 0
    finished_ms: int | None = None
    bust_groups: int = 0
    entries: dict[int, Entry] = field(default_factory=dict)
    tables: dict[int, TTable] = field(default_factory=dict)
    announcement: tuple[int, int] | None = None  # (channel id, message id) the adapter keeps editing (V7)

    def alive(self) -> list[Entry]:
        return [e for e in self.entries.values() if e.status is EntryStatus.ALIVE]

    def open_tables(self) -> list[TTable]:
        return [t for t in self.tables.values() if t.status == "open"]

    def entries_of(self, player_id: int) -> list[Entry]:
        return [e for e in self.entries.values() if e.player_id == player_id]

    @property
    def paid_entries(self) -> int:
        return sum(1 for e in self.entries.values() if e.status is not EntryStatus.REFUNDED)

    def running_ms(self, now_ms: int) -> int:
        """Milliseconds the clock has run (pauses excluded)."""
        if self.started_ms is None:
            return 0
        end = self.paused_ms if self.paused_ms is not None else self.finished_ms or now_ms
        return max(0, end - self.started_ms - self.paused_total)
