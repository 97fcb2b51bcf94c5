"""What a tournament tells its listeners (the adapter: announcements, threads, results) and ``/tourney info``'s
picture. Plain values: emitted after the step that caused them committed."""

from __future__ import annotations

from dataclasses import dataclass

from .deal_events import DealAccepted, DealDeclined, DealDone, DealProposed
from .model import Format, Status
from .ranking import Finish

__all__ = [
    "LevelUp",
    "PlayerMoved",
    "PlayerOut",
    "PlayerSeated",
    "TableOpened",
    "TournamentCancelled",
    "TournamentEvent",
    "TournamentFinished",
    "TournamentInfo",
    "TournamentStarted",
]


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
class PlayerSeated:
    """A player took a seat at a table that was already open: a late entry, a re-entry or a balancing move (the
    players of a table that opens are in its :class:`TableOpened`)."""

    tournament_id: int
    player_id: int
    table_no: int
    seat: int  # 0-based
    moved: bool  # from another table (else a new entry)


@dataclass(frozen=True, slots=True)
class PlayerOut:
    tournament_id: int
    player_id: int
    entry_id: int
    can_reenter: bool
    place: int = 0  # the place it finishes in as things stand (late entries may still push it down); 0: unknown
    prize: int = 0  # that place's prize once the field is final (registration closed), else 0
    bounty: int = 0  # the bounty paid for this knock-out
    bounty_to: int | None = None  # the player it was paid to


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
    hand_for_hand: tuple[int, ...] | None = None  # on the bubble: the tables the others wait for (None: not)
    guarantee: int = 0  # the guaranteed prize pool (0: none)
    overlay: int = 0  # what the house adds to the collected pool to reach the guarantee
    bounty: int = 0  # the bounty on each entry's head at the start (0: none)
    progressive: bool = False
    rebuys: int = 0  # rebuys bought so far
    addons: int = 0  # add-ons bought so far
    rebuy_open: bool = False  # a rebuy may be bought now
    addon_open: bool = False  # the add-on may be bought now
    bounties: tuple[tuple[int, int, int], ...] = ()  # (player id, bounty on his head, bounties won), most won first
    satellite_for: int | None = None  # the tournament whose seats are the prizes
    satellite_seats: int = 0  # seats the pool buys there (the best places win them)


TournamentEvent = (
    TournamentStarted
    | TableOpened
    | PlayerMoved
    | PlayerSeated
    | PlayerOut
    | LevelUp
    | TournamentFinished
    | TournamentCancelled
    | DealProposed
    | DealAccepted
    | DealDeclined
    | DealDone
)
