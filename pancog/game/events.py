"""Events: the facts an applied action produced. ``Event`` is their union.

Every event has ``seq`` (the table's ``seq`` after the action that produced it) and
``private_to``: ``None`` for a public event, else the one seat that may see it (the deal).
Chips move **only** through :class:`ChipsMoved` (between engine accounts: a seat's stack or a
pot) and :class:`BoughtIn` / :class:`CashedOut` (between a player's bank and his stack).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .actions import FoulCause
from .cards import Card
from .melds import Meld
from .state import Account, EndReason


class ChipReason(StrEnum):
    ANTE = "ante"
    RAKE = "rake"
    FORFEIT = "forfeit"  # extra chips to go on top (retire_forfeit_chips)
    FORFEIT_BACK = "forfeit_back"  # a retire changed back to in
    CONDITION = "condition"
    BUST_OUT = "bust_out"
    OUTS = "outs"
    GOING_OUT = "going_out"
    TOPS = "tops"
    SPLIT = "split"
    REFUND = "refund"  # a fouled player's refund
    TOPS_REFUND = "tops_refund"  # nobody in / unwon doubles tops refunded


class MeldPlayKind(StrEnum):
    NEW = "new"
    ADD = "add"
    SPLIT = "split"
    BORROW = "borrow"
    MAKE_GOOD = "make_good"


@dataclass(frozen=True, slots=True, kw_only=True)
class EventBase:
    seq: int
    private_to: int | None = None

    def visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` (None = a spectator) may see this event."""
        return self.private_to is None or self.private_to == seat


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatTaken(EventBase):
    seat: int
    player_id: int
    doubles: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatLeft(EventBase):
    seat: int
    player_id: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BoughtIn(EventBase):
    """Chips entered the table from the player's bank."""

    seat: int
    player_id: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CashedOut(EventBase):
    """Chips left the table for the player's bank."""

    seat: int
    player_id: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AwaySet(EventBase):
    seat: int
    away: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ChipsMoved(EventBase):
    """``amount`` chips moved from ``payer`` to ``payee`` (engine accounts)."""

    payer: Account
    payee: Account
    amount: int
    reason: ChipReason


@dataclass(frozen=True, slots=True, kw_only=True)
class HandStarted(EventBase):
    hand_no: int
    first: int
    dealt: tuple[int, ...]  # seats dealt in, in rotation from the first hand
    doubles: tuple[int, ...]  # seats playing doubles this hand
    seed: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDealt(EventBase):
    """A player's ten cards (private to him)."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class UpcardTurned(EventBase):
    card: Card


@dataclass(frozen=True, slots=True, kw_only=True)
class Declared(EventBase):
    seat: int
    playing: bool
    changed: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayStarted(EventBase):
    """Declarations are closed (for all but the last declarer's change window); ``seat`` draws first."""

    seat: int
    playing: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class CardPlucked(EventBase):
    seat: int
    card: Card


@dataclass(frozen=True, slots=True, kw_only=True)
class OptionTaken(EventBase):
    seat: int
    card: Card


@dataclass(frozen=True, slots=True, kw_only=True)
class Melded(EventBase):
    """A meld play: ``melds`` are the seat's changed or new melds after it; ``cards`` came from the hand."""

    seat: int
    kind: MeldPlayKind
    cards: tuple[Card, ...]
    drawn: Card | None
    melds: tuple[Meld, ...]
    units: int  # condition units this play earned


@dataclass(frozen=True, slots=True, kw_only=True)
class Discarded(EventBase):
    seat: int
    card: Card
    pluck: bool  # an unused pluck (it may be the next player's option card)


@dataclass(frozen=True, slots=True, kw_only=True)
class Forced(EventBase):
    caller: int
    target: int
    card: Card
    back: bool  # forced back on its discarder (else the option card on the player in turn)


@dataclass(frozen=True, slots=True, kw_only=True)
class PluckVoided(EventBase):
    """A forced player's pluck went to the muck as a dead card."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True, kw_only=True)
class FoulCalled(EventBase):
    caller: int | None  # None = the floor
    target: int
    cause: FoulCause | None


@dataclass(frozen=True, slots=True, kw_only=True)
class MakeGoodDemanded(EventBase):
    seat: int
    meld: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandFouled(EventBase):
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerQuit(EventBase):
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerBusted(EventBase):
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SplitOffered(EventBase):
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SplitDeclined(EventBase):
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MarriedSplitOffered(EventBase):
    """Married splitters are left the last two in action: the split is offered to them automatically,
    in ``seat``'s name; ``partner`` may accept or decline, ``seat`` may withdraw it (§7.6)."""

    seat: int
    partner: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawDeclined(EventBase):
    """The first player declined his double draw's second pluck; his first pluck is the option card."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StockReshuffled(EventBase):
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TimedOut(EventBase):
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WentOut(EventBase):
    seat: int
    outs_units: int
    bust_out_units: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandEnded(EventBase):
    hand_no: int
    reason: EndReason
    winner: int | None
    splitters: tuple[int, ...] = ()


Event = (
    SeatTaken
    | SeatLeft
    | BoughtIn
    | CashedOut
    | AwaySet
    | ChipsMoved
    | HandStarted
    | CardsDealt
    | UpcardTurned
    | Declared
    | PlayStarted
    | CardPlucked
    | OptionTaken
    | Melded
    | Discarded
    | Forced
    | PluckVoided
    | FoulCalled
    | MakeGoodDemanded
    | HandFouled
    | PlayerQuit
    | PlayerBusted
    | SplitOffered
    | SplitDeclined
    | MarriedSplitOffered
    | DrawDeclined
    | StockReshuffled
    | TimedOut
    | WentOut
    | HandEnded
)
