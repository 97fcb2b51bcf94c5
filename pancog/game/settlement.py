"""What a board collects and what going out pays: the settlement arithmetic, stated once.

Everything the engine pays or promises goes through these functions: the settlement of a hand
(``engine._settle``), the chips each meld play is labelled with (``plays``), what a flat player
would collect with a card (the out-card and force rules) and ``call_outs``. They compute amounts;
the engine's transitions move the chips.

Each payer pays a number of *units* at the pair's rate (:meth:`Work.pair_multiplier`), capped by
his stack; fouled players pay everything but the bust-out.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._work import (
    _BUST_OUT_NEW_ONLY,
    _BUST_OUT_NEW_OR_ENHANCED,
    _PLAYER_STATUS_FOULED,
    Work,
)
from .cards import Card
from .errors import RuleViolation
from .melding import resolve_play
from .melds import Meld, outs_units
from .moves import meld_plays
from .rules import Rules


def bust_out_units(rules: Rules, new: int, enhanced: int) -> int:
    """The bust-out bonus for a going-out turn that made ``new`` and enhanced ``enhanced`` condition units."""
    bust_out = rules.bust_out
    if bust_out is _BUST_OUT_NEW_ONLY:
        return new
    if bust_out is _BUST_OUT_NEW_OR_ENHANCED:
        return new + enhanced
    return 0


@dataclass(frozen=True, slots=True)
class OutPay:
    """The units each player in the hand pays the board that goes out (or is settled)."""

    bust_out: int  # not paid by fouled players
    outs: int
    going_out: int

    @property
    def units(self) -> int:
        """What every payer pays besides the bust-out."""
        return self.outs + self.going_out


def out_pay(rules: Rules, melds: tuple[Meld, ...], *, going_out: bool, bust_out: int = 0) -> OutPay:
    """What the board ``melds`` collects from each payer when it goes out (or, not going out, is
    settled as the last player left in action: the outs only)."""
    outs = outs_units(melds, rules)
    if not going_out:
        return OutPay(0, outs, 0)
    return OutPay(bust_out, outs, rules.going_out_units)


def collects(w: Work, seat: int, units: int, bust_out: int = 0) -> int:
    """Chips ``seat``'s board collects now if every payer pays ``units`` (and, unless fouled,
    ``bust_out``) at the pair's rate, each capped by his stack."""
    if units <= 0 and bust_out <= 0:
        return 0
    total = 0
    for i in w.payers(seat):
        owed = units if not bust_out or w.status(i) is _PLAYER_STATUS_FOULED else units + bust_out
        total += min(owed * w.pair_multiplier(i, seat), w.seat(i).stack)
    return total


def payout_with(w: Work, seat: int, card: Card) -> int:
    """Chips a flat ``seat`` would collect by going out with ``card`` now (out-card case 2, §5.3).

    The full settlement, at the best play of the card: the play's condition collection and the
    bust-out bonus (not from fouled players), the outs and the going-out units, from every player
    in the hand, at each pair's rate and capped by each payer's stack.
    """
    pl = w.p(seat)
    r = w.rules
    best = 0
    for play in meld_plays(seat, pl.hand, pl.melds, card, r):
        try:
            _hand, melds, coll, _changed, _kind = resolve_play(r, pl, card, play)
        except RuleViolation:
            continue
        pay = out_pay(r, melds, going_out=True, bust_out=bust_out_units(r, coll.new, coll.enhanced))
        best = max(best, collects(w, seat, coll.total + pay.units, pay.bust_out))
    return best


def call_outs_chips(w: Work, seat: int) -> int:
    """Chips ``seat``'s board would collect by going out now: outs and going-out units (no bust-out)."""
    return collects(w, seat, out_pay(w.rules, w.p(seat).melds, going_out=True).units)
