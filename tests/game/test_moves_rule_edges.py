"""Rule edges of the move enumerator, the meld values and the menu that the other engine tests leave open.

Every expected value is worked out from RULES.md (the section is named in each test), never copied
from the engine's output.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from pancog.game import (
    AcceptSplit,
    Discard,
    GoOnTop,
    Knock,
    NewMeld,
    NotYourTurn,
    OfferSplit,
    Pluck,
    Rules,
    make_meld,
    meld_value,
    play_value,
    plays,
)
from pancog.game.actions import AddToMeld, DeclineDraw
from pancog.game.melds import invalid_meld, remake
from pancog.game.moves import make_good_options, meld_plays
from tests.game.conftest import cards, run, table
from tests.game.test_cases import INERT_A, INERT_B, INERT_C

# --- §4.2 "A rope with both an Ace and a King": 2 conditions by default; one with the option off -----------------


@pytest.mark.parametrize(
    ("text", "two", "one"),
    [
        ("AH 2H 3H 4H 5H 6H 7H JH QH KH", 2, 1),  # the full rope: both ends, or one condition
        ("AS 2S 3S 4S 5S 6S 7S JS QS KS", 4, 2),  # in spades, each condition doubles
        ("JH QH KH", 1, 1),  # a King end alone is one condition either way
        ("7D JD QD KD", 1, 1),
        ("AC 2C 3C", 1, 1),  # an Ace end alone likewise
        ("4H 5H 6H 7H", 0, 0),  # no end: no condition
    ],
)
def test_rope_ends_with_and_without_the_full_rope_counting_two(text: str, two: int, one: int) -> None:
    """§4.2 / G16: a rope with the Ace and the King is 2 conditions (default) or 1 (option off); a rope with
    only one end is one condition under both settings."""
    for rules, want in ((Rules(full_rope_counts_two=True), two), (Rules(full_rope_counts_two=False), one)):
        assert meld_value(make_meld(1, cards(text), rules), rules) == want, (text, rules.full_rope_counts_two)


# --- §4.4: with a static set character, a piece of another character is a new condition --------------------------


def test_split_pieces_of_another_character_start_at_zero() -> None:
    """§4.2 (static character) + §4.4: ``5S 5S 5S 5H 5D`` is a spades set (C2, 4 units, collected). Adding
    ``5C 5C`` and cutting it into ``5S 5H 5C`` + ``5S 5S 5D 5C`` leaves two unsuited sets (C1, 1 unit each):
    no piece keeps the spades condition, so each C1 is a condition in a brand-new meld and starts at 0 —
    2 new units, nothing inherited from the 4 the spades set collected."""
    r = Rules()
    old = make_meld(1, cards("5S 5S 5S 5H 5D"), r)
    assert meld_value(old, r) == 4
    old = dataclasses.replace(old, paid=4)
    pieces, coll = remake(old, [(1, cards("5S 5H 5C")), (2, cards("5S 5S 5D 5C"))], r)
    assert [meld_value(p, r) for p in pieces] == [1, 1]
    assert (coll.new, coll.enhanced) == (2, 0)


def test_split_piece_keeping_the_character_inherits_it() -> None:
    """§4.4, the other side: the piece that keeps the spades condition inherits what it collected (4 of its 4),
    and the unsuited piece is new (1)."""
    r = Rules()
    old = dataclasses.replace(make_meld(1, cards("5S 5S 5S 5H 5D"), r), paid=4)
    pieces, coll = remake(old, [(1, cards("5S 5S 5S")), (2, cards("5H 5D 5C"))], r)
    assert [meld_value(p, r) for p in pieces] == [4, 1]
    assert (coll.new, coll.enhanced) == (1, 0)


# --- §6.3 make it good on demand: the ways to complete an invalid rope ------------------------------------------


def test_an_invalid_rope_lists_the_hand_cards_that_make_it_good() -> None:
    """§6.3: an invalid spread must be made valid from the hand. ``5H 6H JH`` (a gap at 7) is made a rope by
    ``7H`` alone; ``2C`` and ``KD`` cannot help."""
    spread = invalid_meld(1, cards("5H 6H JH"))
    assert not spread.valid
    assert list(make_good_options(spread, cards("7H 2C KD"))) == [cards("7H")]
    assert list(make_good_options(spread, cards("2C KD 2S"))) == []


# --- "nothing lays off on an invalid spread": not even an add that splits it ------------------------------------


def test_no_meld_play_touches_an_invalid_spread() -> None:
    """§6.3 (enforcement by the players): an invalid spread is not a meld; nothing is added to it, so no add
    — and no add that splits it — names it. ``5H 5H 5D`` with ``5H 5C 5S`` in hand could otherwise be re-cut
    into ``5H 5H 5H`` + ``5D 5C 5S``."""
    r = Rules()
    bad = invalid_meld(1, cards("5H 5H 5D"))
    hand = cards("5H 5C 5S 2C 3D KD")
    listed = meld_plays(0, hand, [bad], None, r)
    assert not [p for p in listed if isinstance(p, AddToMeld) and p.meld == bad.id]
    # the hand's own set is still listed
    assert [Counter(p.cards) for p in listed if isinstance(p, NewMeld)] == [Counter(cards("5H 5C 5S"))]


# --- the menu: what each action collects now --------------------------------------------------------------------

P0_SPADES = "5S 5S 2C 6C QC 3D 7D KD 4H JH"


def test_play_value_is_the_chips_the_play_collects_now() -> None:
    """§4.1 / §4.5: ``5S 5S`` with a plucked ``5S`` makes a suited spades valle set, 4 units at single stakes;
    both other players in the hand pay it: 8 chips. Only the player in turn may ask."""
    s = table([P0_SPADES, INERT_B, INERT_C], stock="5S")
    s, _ = run(s, Knock(seat=0), Knock(seat=1), Knock(seat=2), Pluck(seat=0))
    meld = NewMeld(seat=0, cards=cards("5S 5S"))
    assert play_value(s, meld) == 8
    assert dict(plays(s, 0))[meld] == 8
    with pytest.raises(NotYourTurn):
        play_value(s, NewMeld(seat=1, cards=cards("5S 5S")))


def test_the_draw_and_the_declined_second_pluck_collect_nothing() -> None:
    """§2.7 double draw ([S0] "the right to draw twice"): after an unused first pluck the first player may pluck
    again or decline; neither is a collection (§4.5: only conditions collect), so the menu lists both at 0."""
    s = table([INERT_A, "5H 5D 2C 6C QC 3D KD AS JC 3S"], stock="5C KH")
    s, _ = run(s, Knock(seat=0), Knock(seat=1), Pluck(seat=0), Discard(seat=0))
    menu = dict(plays(s, 0))
    assert menu[Pluck(seat=0)] == 0
    assert menu[DeclineDraw(seat=0)] == 0


def test_accepting_a_split_collects_nothing() -> None:
    """§7 (splitting the tops): "The split ends the hand. No outs or going-out units are paid; conditions already
    paid stand." Accepting collects no condition: the menu lists it at 0."""
    s = table([INERT_A, INERT_B, INERT_C])
    s, _ = run(s, GoOnTop(seat=0), Knock(seat=1), Knock(seat=2), OfferSplit(seat=1))
    assert dict(plays(s, 2))[AcceptSplit(seat=2)] == 0
