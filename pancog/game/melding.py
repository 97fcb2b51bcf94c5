"""Validating one meld play: the hand and the melds after it, and what it collects.

:func:`resolve_play` is the one statement of what a ``NewMeld``, ``AddToMeld`` or ``Borrow`` does
to a player's cards; ``apply`` and the legal-action lists both go through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from pancog.game.i18n import N_

from ._work import (
    _ENFORCEMENT_PLAYERS,
    _MELD_PLAY_KIND_ADD,
    _MELD_PLAY_KIND_BORROW,
    _MELD_PLAY_KIND_NEW,
    _MELD_PLAY_KIND_SPLIT,
)
from .actions import AddToMeld, Borrow, NewMeld
from .cards import Card, take_cards
from .errors import IllegalMeld
from .events import MeldPlayKind
from .melds import (
    NOTHING,
    Collection,
    Meld,
    borrow_pieces,
    classify,
    extend,
    fresh_collection,
    invalid_meld,
    make_meld,
    remake,
)
from .rules import Rules
from .state import PlayerHand


def resolve_play(
    rules: Rules, pl: PlayerHand, drawn: Card | None, a: NewMeld | AddToMeld | Borrow
) -> tuple[tuple[Card, ...], tuple[Meld, ...], Collection, tuple[Meld, ...], MeldPlayKind]:
    """Validate a meld play; return (hand after, melds after, collection, changed melds, kind).

    Raises:
        RuleViolation: CardsNotInHand / IllegalMeld with a reason.
    """
    hand = take_cards(pl.hand, a.cards)
    extra = (drawn,) if drawn is not None else ()
    melds = list(pl.melds)
    next_id = pl.next_meld_id
    match a:
        case NewMeld():
            cards = (*a.cards, *extra)
            if rules.enforcement is _ENFORCEMENT_PLAYERS and len(cards) >= 3:
                try:
                    classify(cards)
                except IllegalMeld:
                    bad = invalid_meld(next_id, cards)
                    return hand, (*melds, bad), NOTHING, (bad,), _MELD_PLAY_KIND_NEW
            new, coll = fresh_collection(make_meld(next_id, cards, rules), rules)
            return hand, (*melds, new), coll, (new,), _MELD_PLAY_KIND_NEW
        case AddToMeld():
            idx = next((k for k, m in enumerate(melds) if m.id == a.meld), None)
            if idx is None:
                raise IllegalMeld(N_("You have no meld {meld}. You can only add to your own melds."), meld=a.meld)
            old = melds[idx]
            if not old.valid:
                raise IllegalMeld(N_("Meld {meld} is not valid yet: make it good first."), meld=a.meld)
            added = (*a.cards, *extra)
            if not added:
                raise IllegalMeld(N_("Add at least one card."))
            if a.split is None:
                grown, coll = extend(old, added, rules)
                melds[idx] = grown
                return hand, tuple(melds), coll, (grown,), _MELD_PLAY_KIND_ADD
            # multiset arithmetic with plain dicts (as Counter would: the same piece_a, in the same order)
            old_counts = _counts(old.cards)
            combined = dict(old_counts)
            for c in added:
                combined[c] = combined.get(c, 0) + 1
            piece_b = _counts(a.split)
            if any(n > combined.get(c, 0) for c, n in piece_b.items()):
                raise IllegalMeld(N_("The split part must be made of the meld's cards and the added cards."))
            rest = {c: n - piece_b.get(c, 0) for c, n in combined.items()}
            piece_a = tuple(c for c, n in rest.items() for _ in range(n))  # range(n) is empty for n <= 0
            if not piece_b or not piece_a:
                raise IllegalMeld(N_("A split must leave two melds."))
            if {c: n for c, n in rest.items() if n > 0} == old_counts or piece_b == old_counts:
                raise IllegalMeld(N_("A split must change the meld: that is a new meld, not a split."))
            pieces, coll = remake(old, [(old.id, piece_a), (next_id, tuple(a.split))], rules)
            melds[idx] = pieces[0]
            melds.append(pieces[1])
            return hand, tuple(melds), coll, tuple(pieces), _MELD_PLAY_KIND_SPLIT
        case Borrow():
            if not a.taken:
                raise IllegalMeld(N_("Name the cards you borrow."))
            per: dict[int, list[Card]] = {}
            for mid, card in a.taken:
                per.setdefault(mid, []).append(card)
            coll = NOTHING
            changed: list[Meld] = []
            for mid, lent in per.items():
                idx = next((k for k, m in enumerate(melds) if m.id == mid), None)
                if idx is None:
                    raise IllegalMeld(N_("You have no meld {meld}. You can only borrow from your own melds."), meld=mid)
                src = melds[idx]
                left = borrow_pieces(src, lent, rules)
                if left is None:
                    raise IllegalMeld(N_("Borrowing from meld {meld} must leave a valid meld."), meld=mid)
                ids = [src.id] + [next_id + 1 + k for k in range(len(left) - 1)]
                pieces, c = remake(src, list(zip(ids, left, strict=True)), rules)
                coll = coll + c
                melds[idx] = pieces[0]
                melds.extend(pieces[1:])
                changed.extend(pieces)
                next_id += len(left) - 1
            if not a.cards and not extra:
                raise IllegalMeld(
                    N_("A borrowed card must complete a new meld with a card from your hand or the drawn card.")
                )
            cards = (*a.cards, *extra, *(c for _, c in a.taken))
            new, c2 = fresh_collection(make_meld(pl.next_meld_id, cards, rules), rules)
            return hand, (*melds, new), coll + c2, (*changed, new), _MELD_PLAY_KIND_BORROW
        case _:
            assert_never(a)


def _counts(cards: Sequence[Card]) -> dict[Card, int]:
    """The multiset ``cards`` as a dict in first-seen order (what Counter holds, without its overhead)."""
    out: dict[Card, int] = {}
    for c in cards:
        out[c] = out.get(c, 0) + 1
    return out


def next_meld_id(melds: Sequence[Meld], current: int) -> int:
    return max([current - 1, *(m.id for m in melds)]) + 1
