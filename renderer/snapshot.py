"""What the renderer draws: small, explicit value types the adapter fills from engine state.

The renderer never reads engine state directly. The cog maps the engine's (private) view of a
table to these snapshots, so the images depend only on the facts written here; the text twins
(`hand_text`, `table_text`, `outcome_text`) carry the same facts.

Conventions:
- Cards are engine `Card` values; names and labels are plain strings (no Discord markup).
- `HandSnapshot.meldable` holds **0-based indexes into `HandSnapshot.cards` as given** (not
  display positions), so the adapter need not know how the renderer sorts. `display_order`
  (in `renderer.hand`) gives the order the cards are shown in, i.e. what the position numbers
  1..n under the cards refer to.
"""

from __future__ import annotations

import copyreg
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Literal, TypeVar

from pancog.game.cards import ALL_CARDS, Card

HandSort = Literal["suit", "rank"]
DrawnLabel = Literal["pluck", "option"]
InPlayHow = Literal["plucked", "taken", "forced"]
Layout = Literal["landscape", "portrait"]
"""How an image is laid out: ``landscape`` (800 px wide, the public board's default) or ``portrait`` (480 px wide,
one column, for phones: the same cards and text at 480 px are 1.67x larger when a phone shows the image ~360 px
wide). See docs/rendering.md, "The phone layout"."""

MAX_SEATS = 15


class SeatStatus(StrEnum):
    """A seat's state as the table image shows it (a pill next to the name)."""

    IN = "in"
    ON_TOP = "on top"
    FOULED = "fouled"
    BUSTED = "busted"
    FLAT = "flat"
    AWAY = "away"
    WAITING = "waiting"


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSnapshot:
    """One player's private hand, as shown to that player only."""

    cards: tuple[Card, ...]
    drawn: Card | None = None
    drawn_label: DrawnLabel = "pluck"
    sort: HandSort = "suit"
    meldable: frozenset[int] = frozenset()  # 0-based indexes into `cards` that can meld with `drawn`
    four_color: bool = False
    layout: Layout = "landscape"  # portrait: rows of medium cards, 480 px wide (the phone panel's lower part)
    lang: str = "en"  # the language of the image's words (pancog.game.i18n): a render worker does not share the task's

    def __post_init__(self) -> None:
        bad = [i for i in self.meldable if not 0 <= i < len(self.cards)]
        if bad:
            raise ValueError(f"meldable indexes {sorted(bad)} are outside the hand of {len(self.cards)} cards")


@dataclass(frozen=True, slots=True, kw_only=True)
class MeldSnapshot:
    """One meld on the table: its cards, and the condition value it carries (0 = none)."""

    index: int  # the meld's number on its owner's board (1-based in the text twin)
    cards: tuple[Card, ...]
    value: int = 0  # condition units collected/showing; 0 = no condition
    label: str = ""  # e.g. "+4"; empty means derive "+value" when value > 0

    @property
    def shown_label(self) -> str:
        """The value tag drawn after the meld ("" when the meld pays nothing)."""
        if self.label:
            return self.label
        return f"+{self.value}" if self.value else ""


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatSnapshot:
    """One seat at the table as everybody may see it."""

    name: str  # as chosen by the player: the image draws it through `renderer.text.image_text`
    chips: int
    computer: bool = False  # a computer player: a robot mark is drawn before the name
    status: SeatStatus = SeatStatus.IN
    doubles: bool = False
    is_turn: bool = False
    melds: tuple[MeldSnapshot, ...] = ()
    hand_count: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class TableSnapshot:
    """The public table: seats, the card in play, the discard pile and stock, tops, whose turn.

    ``in_hand=False`` (between hands) draws no stock, discard pile or card in play at all.
    """

    title: str
    hand_no: int
    seats: tuple[SeatSnapshot, ...]
    to_act: int | None = None  # index into `seats`; None between hands
    clock_seconds: int | None = None  # turn clock left, None when untimed
    in_hand: bool = True  # False between hands: no stock, discards or card in play
    in_play: Card | None = None  # the card just plucked/taken/forced, face up for everyone
    in_play_by: str = ""  # who holds it (a name, drawn through `image_text`)
    in_play_how: InPlayHow = "plucked"
    discard: Card | None = None  # the top of the discard pile (None: the pile is empty)
    discard_count: int = 0  # cards in the discard pile
    discard_is_option: bool = False  # the top discard is the option card for the player to act
    stock_count: int = 0
    singles_tops: int = 0
    doubles_tops: int = 0
    notes: tuple[str, ...] = ()  # recent happenings, plain text, newest last (the last 2 are drawn, 3 in the twin)
    four_color: bool = False
    layout: Layout = "landscape"  # portrait: 480 px wide, one column of seats (phones)
    lang: str = "en"  # the language of the image's words and its text twin

    def __post_init__(self) -> None:
        if len(self.seats) > MAX_SEATS:
            raise ValueError(f"a table has at most {MAX_SEATS} seats, got {len(self.seats)}")
        if self.to_act is not None and not 0 <= self.to_act < len(self.seats):
            raise ValueError(f"to_act {self.to_act} is not a seat index")


@dataclass(frozen=True, slots=True, kw_only=True)
class PaymentSnapshot:
    """What one player paid the winner when the hand ended."""

    payer: str
    chips: int
    note: str = ""  # e.g. "fouled: no bust-out", "short 3"


@dataclass(frozen=True, slots=True, kw_only=True)
class NetSnapshot:
    """One player's net for the hand: chips won (positive) or lost (negative), antes included."""

    name: str
    chips: int
    computer: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class OutcomeSnapshot:
    """The end of a hand: the winner's board, how the outs were worked out, and every player's net.

    Two different figures, each labelled as what it is: what the winner **collected** (`total`: gross, every chip
    paid to him this hand — conditions, including those made on the going-out turn, outs, going out, bust-out,
    refunds — itemised in `payments`, plus the tops he took) and each player's **net** for the hand (`winner_net`
    and `nets`: collected minus everything paid, antes included). A winner who collected 4 chips and paid 4 is
    "net 0", never "+4". Units are per payer before the doubles multiplier.
    """

    title: str
    hand_no: int
    winner: str
    melds: tuple[MeldSnapshot, ...]
    winner_net: int = 0  # the winner's net for the hand (chips)
    conditions: int = 0  # units: every condition on the board as it lies (the outs)
    bust_out: int = 0  # units: bust-out bonus (0 = none)
    going_out: int = 0  # units: the going-out payment
    singles_tops: int = 0  # chips taken from the singles tops
    doubles_tops: int = 0  # chips taken from the doubles tops
    payments: tuple[PaymentSnapshot, ...] = ()
    nets: tuple[NetSnapshot, ...] = ()
    notes: tuple[str, ...] = field(default=())
    four_color: bool = False
    lang: str = "en"  # the language of the image's words and its text twin

    @property
    def units_per_payer(self) -> int:
        return self.conditions + self.bust_out + self.going_out

    @property
    def total(self) -> int:
        """Chips the winner collected (gross): tops plus every payment."""
        return self.singles_tops + self.doubles_tops + sum(p.chips for p in self.payments)


@dataclass(frozen=True, slots=True, kw_only=True)
class PanelSnapshot:
    """The phone panel: the table in portrait with the viewer's own hand under it, as one image (PRIVATE to the
    viewer). One image, because Discord lays two images of one message side by side, each half as wide."""

    table: TableSnapshot
    hand: HandSnapshot


# --------------------------------------------------------------------------- pickling (render worker processes)
# Every board and hand crosses to a render process pickled (pancog/infra/renderq/); the bot's event loop pays for
# that. A slotted dataclass pickles through Python-level __getstate__/__setstate__ calls, one pair per object
# (~120 cards on a busy board): 0.43 ms to pickle an 8-seat board and 0.28 ms to unpickle it. Cards pickled as
# their index in the pack and snapshots as their fields make it ~0.15 ms / ~0.11 ms, and the bytes 30 % fewer
# (tests/renderer/test_snapshot_pickle.py). Equal values come back; cards come back as the pack's own objects.

_CARD_INDEX: dict[Card, int] = {card: i for i, card in enumerate(ALL_CARDS)}


def card_at(index: int) -> Card:
    """The pack's card at ``index`` (how a pickled card comes back)."""
    return ALL_CARDS[index]


def _reduce_card(card: Card) -> tuple[Callable[[int], Card], tuple[int]] | str:
    index = _CARD_INDEX.get(card)
    if index is None:  # not a card of the pack (never built by the engine): pickled as usual
        return card.__reduce_ex__(2)
    return card_at, (index,)


def rebuild(cls: type[_T], *values: object) -> _T:
    """A snapshot from its init fields' values, in declaration order (how a pickled snapshot comes back)."""
    return cls(**dict(zip(_INIT_FIELDS[cls], values, strict=True)))


def _reduce_snapshot(obj: Any) -> tuple[Callable[..., Any], tuple[object, ...]]:
    cls = type(obj)
    return rebuild, (cls, *[getattr(obj, name) for name in _INIT_FIELDS[cls]])


_T = TypeVar("_T")
_SNAPSHOTS: tuple[type, ...] = (
    HandSnapshot, MeldSnapshot, SeatSnapshot, TableSnapshot, PaymentSnapshot, NetSnapshot, OutcomeSnapshot,
    PanelSnapshot,
)  # fmt: skip
_INIT_FIELDS: dict[type, tuple[str, ...]] = {c: tuple(f.name for f in fields(c) if f.init) for c in _SNAPSHOTS}
copyreg.pickle(Card, _reduce_card)
for _cls in _SNAPSHOTS:
    copyreg.pickle(_cls, _reduce_snapshot)
