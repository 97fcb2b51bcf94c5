"""Actions: what a player (or the service) asks the engine to do. ``Action`` is their union.

Every action a player makes carries ``seat``. Cards are :class:`Card` values (the hand is a
multiset); while a drawn or option card is waiting to be used, every meld play includes it
implicitly. Melds are addressed by their stable number on the player's board (1, 2, 3 ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .cards import Card


class FoulCause(StrEnum):
    """Why an active player calls another player's hand foul (§6)."""

    INVALID_MELD = "invalid_meld"  # enforcement=players: an invalid spread not made good (§6.1 cause 4)
    ABANDONED = "abandoned"  # the player is away or keeps timing out (§6.5 b)


# --- table level -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Sit:
    """Take a seat, bringing ``buy_in`` chips from the player's bank. ``seat`` picks a free slot."""

    player_id: int
    buy_in: int
    doubles: bool = False
    seat: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Rebuy:
    """Add chips from the bank while not playing a hand."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Stand:
    """Leave the table. Between hands: cash out at once. Mid-hand: keep paying to the end (§6.5), then cash out."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SetAway:
    """Sit out (not dealt in) or come back."""

    seat: int
    away: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SetStakes:
    """Change the ante (chips per unit) between hands; a tournament level applies from the next deal."""

    ante_chips: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StartHand:
    """Deal a hand. ``shoe`` stacks the deck (tests); else ``random.Random(seed).shuffle(rules.shoe())``.

    Deal order (so tests can stack the shoe): ``shoe[0]`` is dealt first. Five cards go to the
    first hand, five to the next dealt-in seat in rotation, ... then a second round of five in
    the same order. Under ``start_mode=upcard`` the next card is the upcard. The rest is the
    stock, top first (``shoe[10 * n]`` or the one after the upcard is the first pluck).
    ``first_seat`` overrides who is first hand (else the previous winner, else chosen by the seed).
    """

    seed: int | None = None
    shoe: tuple[Card, ...] | None = None
    first_seat: int | None = None


# --- declarations ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Knock:
    """Declare in ("knock"): play the hand."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GoOnTop:
    """Retire for this hand ("sluff", "go on top"): forfeit the ante."""

    seat: int


# --- the draw -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Pluck:
    """Draw the top card of the stock, face up."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclineDraw:
    """Decline the double draw's second pluck: the turn ends and the unused first pluck is the
    next player's option card ([S0]: the first player "has the right to draw twice")."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TakeOption:
    """Take the option card (the previous player's unused pluck); it must then be used at once."""

    seat: int


# --- melding (the drawn card is implied while it waits to be used) ------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class NewMeld:
    """Lay a new meld of ``cards`` from the hand (plus the waiting drawn card, if any)."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class AddToMeld:
    """Add ``cards`` from the hand (plus the waiting drawn card) to own meld ``meld``.

    ``split`` cuts the result in two: those cards form a new meld, the rest keeps number ``meld``.
    """

    seat: int
    meld: int
    cards: tuple[Card, ...] = ()
    split: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Borrow:
    """Make a new meld of ``cards`` from the hand (plus the waiting drawn card) and cards ``taken`` from own melds.

    ``taken`` lists ``(meld number, card)`` pairs; every meld borrowed from must stay valid.
    """

    seat: int
    cards: tuple[Card, ...]
    taken: tuple[tuple[int, Card], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MakeGood:
    """Add ``cards`` from the hand to own invalid meld ``meld`` so that it becomes valid (enforcement=players)."""

    seat: int
    meld: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Claim:
    """Collect pays not yet claimed (claim_mode deferred or forfeit)."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Discard:
    """End the turn. ``card=None`` (or the drawn card) discards the unused pluck; else a hand card after a hit."""

    seat: int
    card: Card | None = None


# --- out of turn ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Force:
    """Force a card onto a board (§5): the option card on the player in turn, or a discard back on its discarder.

    ``target`` and ``card`` may be omitted when only one force is possible.
    """

    seat: int
    target: int | None = None
    card: Card | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class FoulCall:
    """An active player calls ``target``'s hand foul for ``cause`` (refused, at no cost, if there is no cause)."""

    seat: int
    target: int
    cause: FoulCause


@dataclass(frozen=True, slots=True, kw_only=True)
class FloorFoul:
    """The floor person (a moderator) declares ``target``'s hand foul (§6.1 cause 8)."""

    target: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OfferSplit:
    """One of the last two players in action offers to split the tops (§7.6)."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptSplit:
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclineSplit:
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeout:
    """The turn timer ran out for ``seat``: the engine plays the minimal legal move for him.

    Declaring: go on top. A forced or must-use card: its first legal play, then discard. Else: pluck
    and discard the pluck (in play-out, use it if usable). Counts towards ``abandon_timeouts``.
    """

    seat: int


Action = (
    Sit
    | Rebuy
    | Stand
    | SetAway
    | SetStakes
    | StartHand
    | Knock
    | GoOnTop
    | Pluck
    | DeclineDraw
    | TakeOption
    | NewMeld
    | AddToMeld
    | Borrow
    | MakeGood
    | Claim
    | Discard
    | Force
    | FoulCall
    | FloorFoul
    | OfferSplit
    | AcceptSplit
    | DeclineSplit
    | Timeout
)

MeldPlay = NewMeld | AddToMeld | Borrow

ACTION_TYPES: tuple[type, ...] = (
    Sit,
    Rebuy,
    Stand,
    SetAway,
    SetStakes,
    StartHand,
    Knock,
    GoOnTop,
    Pluck,
    DeclineDraw,
    TakeOption,
    NewMeld,
    AddToMeld,
    Borrow,
    MakeGood,
    Claim,
    Discard,
    Force,
    FoulCall,
    FloorFoul,
    OfferSplit,
    AcceptSplit,
    DeclineSplit,
    Timeout,
)
