"""Immutable table state. A :class:`TableState` spans a table *session*: seats, stacks, the tops
pots carried between hands, married splitters, and the hand in progress (:class:`HandState`).

Seats are slots ``0 .. max_players-1`` in counter-clockwise order: the player "to the right" of
seat ``i`` is the next occupied slot after ``i`` (wrapping). ``seq`` increments on every applied
action; every event carries the ``seq`` that produced it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from .cards import Card
from .melds import Meld
from .rules import Rules


class Pot(StrEnum):
    """Engine accounts that are not seats."""

    SINGLES = "singles"  # the singles tops
    DOUBLES = "doubles"  # the doubles tops
    HOUSE = "house"  # rake (only when rules.rake > 0)


Account = int | Pot
"""A chip account inside the engine: a seat index (its stack) or a pot."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Seat:
    """A seated player. ``player_id`` is a Discord user id (negative for computer players)."""

    player_id: int
    stack: int
    doubles: bool = False
    away: bool = False
    leaving: bool = False


class PlayerStatus(StrEnum):
    """A dealt-in player's standing in the hand."""

    UNDECLARED = "undeclared"
    IN = "in"  # declared in and in action
    RETIRED = "retired"  # went on top: pays nothing more
    FOULED = "fouled"  # dead hand; still pays (no bust-out)
    QUIT = "quit"  # left mid-hand: dead hand; still pays everything
    BUSTED = "busted"  # reached 0 chips: dead hand


LIABLE = frozenset({PlayerStatus.IN, PlayerStatus.FOULED, PlayerStatus.QUIT})
"""Statuses of players who pay conditions and outs (if they have chips)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerHand:
    """One dealt-in player's cards and hand-level bookkeeping."""

    seat: int
    status: PlayerStatus = PlayerStatus.UNDECLARED
    multiplier: int = 1  # 2 for a doubles player this hand
    hand: tuple[Card, ...] = ()
    melds: tuple[Meld, ...] = ()
    next_meld_id: int = 1
    received: tuple[tuple[int, int], ...] = ()  # (payer seat, chips) collected this hand, for foul refunds
    unclaimed: int = 0  # units not yet claimed (claim_mode deferred/forfeit)
    timeouts: int = 0

    @property
    def board_count(self) -> int:
        return sum(len(m.cards) for m in self.melds)

    def meld(self, meld_id: int) -> Meld | None:
        for m in self.melds:
            if m.id == meld_id:
                return m
        return None


class Phase(StrEnum):
    DECLARING = "declaring"
    PLAYING = "playing"
    OVER = "over"


class Step(StrEnum):
    """Where the player to act stands in his turn."""

    DRAW = "draw"  # must pluck (or take the option card)
    DRAWN = "drawn"  # a plucked card lies face up: use it, or discard it
    MUST_USE = "must_use"  # an option or forced card must be used now
    MELDING = "melding"  # the hit is made: meld more, then discard (or go out)


class DrawSource(StrEnum):
    STOCK = "stock"
    OPTION = "option"
    FORCED = "forced"  # forced option card or forced-back card


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    """The turn in progress (or a forced play interrupting it)."""

    seat: int
    step: Step = Step.DRAW
    drawn: Card | None = None
    source: DrawSource | None = None
    extra_pluck: bool = False  # the first player's double draw is still available
    forced_back: bool = False  # a forced-back play interrupting another player's turn
    new_units: int = 0  # conditions made this turn (for the bust-out)
    enhanced_units: int = 0  # conditions enhanced this turn
    second_pluck: bool = False  # the double draw's second pluck: the player may take it or decline it


@dataclass(frozen=True, slots=True, kw_only=True)
class ForceBack:
    """A discard that may be forced back on its discarder until two draws have happened after it (§5.2)."""

    card: Card
    owner: int
    position: int  # index in the muck
    draws: int = 0
    drawers: tuple[int, ...] = ()
    pluck: bool = False  # the discard was an unused pluck (else a hand card)


class EndReason(StrEnum):
    OUT = "out"  # a player went out
    LONE = "lone"  # everyone else went on top
    NOBODY = "nobody"  # nobody played
    SPLIT = "split"  # the last two split the tops
    SETTLED = "settled"  # one player left in action, settled at once (one_left=settle_now)
    VOID = "void"  # stock exhausted or nobody left in action


@dataclass(frozen=True, slots=True, kw_only=True)
class HandState:
    """The hand in progress. ``stock[0]`` is the top of the stock; ``muck[-1]`` the top discard."""

    hand_no: int
    seed: int | None
    first: int  # the first hand (first to declare and, if in, to draw)
    order: tuple[int, ...]  # dealt-in seats in rotation from the first hand
    players: tuple[PlayerHand | None, ...]  # by seat slot; None = not dealt in
    phase: Phase = Phase.DECLARING
    declare_pos: int = 0  # index in ``order`` of the next to declare
    draws: int = 0  # cards drawn so far (plucks and option takes)
    stock: tuple[Card, ...] = ()
    muck: tuple[Card, ...] = ()
    dead: tuple[Card, ...] = ()  # fouled/quit/busted hands and other dead cards, never reshuffled
    option: Card | None = None  # the top discard, when it is an option card for the player in turn
    option_from: int | None = None  # who discarded the option card (None for the upcard)
    turn: Turn | None = None
    suspended: Turn | None = None  # the regular turn interrupted by a forced-back play
    force_backs: tuple[ForceBack, ...] = ()
    make_good: tuple[int, int] | None = None  # (seat, meld id) that must be made good now
    split_offer: int | None = None  # seat that offered to split the tops
    reshuffled: bool = False
    solo: bool = False  # one player left plays out (must use every usable card)
    winner: int | None = None
    end_reason: EndReason | None = None
    # The seat whose declaration, made in its turn, is the latest (RULES.md §2.5): it may change it until the next
    # declaration in rotation or, as the last to declare, until the first card is drawn. A player who leaves the
    # table before his turn to declare goes on top without declaring in rotation, so he never closes a window.
    last_declarer: int | None = None

    def player(self, seat: int) -> PlayerHand:
        p = self.players[seat]
        if p is None:
            raise KeyError(seat)
        return p

    def in_action(self) -> tuple[int, ...]:
        """Seats declared in and still in action, in slot order."""
        return tuple(p.seat for p in self.players if p is not None and p.status is _PLAYER_STATUS_IN)


@dataclass(frozen=True, slots=True, kw_only=True)
class TableState:
    """A table session. ``hand`` is the hand in progress (None between hands)."""

    rules: Rules
    table_id: int = 0
    seats: tuple[Seat | None, ...] = ()
    singles_tops: int = 0
    doubles_tops: int = 0
    house: int = 0
    married: tuple[tuple[int, int], ...] = ()  # pairs of player ids who have split the tops
    previous_winner: int | None = None  # seat
    previous_first: int | None = None  # seat
    hand_no: int = 0
    hand: HandState | None = None
    last_hand: HandState | None = None  # the finished hand, for display
    seq: int = 0

    def seat(self, index: int) -> Seat | None:
        return self.seats[index] if 0 <= index < len(self.seats) else None


def initial_state(rules: Rules | None = None, table_id: int = 0) -> TableState:
    """An empty table with ``rules`` (default: the california preset)."""
    rules = rules if rules is not None else Rules()
    return TableState(rules=rules, table_id=table_id, seats=(None,) * rules.max_players)


# Enum members read on hot paths, as module constants: reading a member through its class is slow
# in Python 3.11 (EnumType.__getattr__ makes every class attribute lookup go through a hook).
_PLAYER_STATUS_IN: Final = PlayerStatus.IN
