"""RULES.md §10 meld, deck, split and borrow cases."""

from __future__ import annotations

import pytest

from pancog.game import IllegalMeld, Rules, build_shoe, classify, make_meld, meld_value
from pancog.game.melds import borrow_pieces, extend, remake
from tests.game.conftest import cards


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("5H 5D 5C", 1),
        ("5S 5S 5S", 4),
        ("5S 5S 5S 5S", 6),
        ("4H 4H 4H", 1),
        ("4S 4S 4S", 2),
        ("4S 4S 4S 4S", 4),
        ("4H 4H 4H 4H", 2),
        ("4H 4D 4C", 0),
        ("AH AH AD", 0),
        ("KS KH KD", 0),
        ("KH KH KS", 0),
        ("6H 7H JH", 0),
        ("JS QS KS", 2),
        ("AS 2S 3S", 2),
        ("AH 2H 3H", 1),
        ("AH 2H 3H 4H 5H", 1),
        ("AS AS AS", 2),
        ("KH KH KH", 1),
    ],
)
def test_meld_value_cases(text: str, value: int) -> None:
    """§10 cases 1-3, 6, 7, 14, 15, 18, 20, 24: valid melds and their values."""
    assert meld_value(make_meld(1, cards(text), Rules()), Rules()) == value


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("5H 5H 5D", "is not a set"),
        ("5H 5H 5D 5D", "is not a set"),
        ("QH QH QS", "is not a set"),
        ("QH KH AH", "is not a run"),
        ("KH AH 2H", "is not a run"),
        ("6H 7H QH", "is not a run"),
        ("5H 6H 7D", "a run must be all one suit"),
        ("5H 5H 6H", "is not a run"),
        ("5H 5H", "at least three cards"),
    ],
)
def test_invalid_melds(text: str, reason: str) -> None:
    """§10 cases 8, 9, 17, 21, 22, 23: invalid melds are refused with the reason that applies."""
    with pytest.raises(IllegalMeld, match=reason):
        classify(cards(text))


def test_spades_double_off() -> None:
    """§10 case 72: without spades double, 5S x3 = 2 and JS QS KS = 1."""
    r = Rules(spades_double=False)
    assert meld_value(make_meld(1, cards("5S 5S 5S"), r), r) == 2
    assert meld_value(make_meld(1, cards("JS QS KS"), r), r) == 1


def test_enhancements() -> None:
    """§10 cases 4, 5, 12, 25: adding cards collects the increase only."""
    r = Rules()
    m = make_meld(1, cards("5S 5S 5S"), r)
    m = m.__class__(**{**{f: getattr(m, f) for f in m.__dataclass_fields__}, "paid": 4})
    grown, coll = extend(m, cards("5S"), r)
    assert coll.total == 2 and meld_value(grown, r) == 6
    h = make_meld(1, cards("5H 5H 5H"), r)
    h, c1 = extend(h.__class__(**{**{f: getattr(h, f) for f in h.__dataclass_fields__}, "paid": 2}), cards("5H"), r)
    h, c2 = extend(h, cards("5H"), r)
    assert (c1.total, c2.total, meld_value(h, r)) == (1, 1, 4)
    c = make_meld(1, cards("5H 5D 5C"), r)
    c = c.__class__(**{**{f: getattr(c, f) for f in c.__dataclass_fields__}, "paid": 1})
    _, c3 = extend(c, cards("5S"), r)
    assert c3.total == 0
    run = make_meld(1, cards("2H 3H 4H"), r)
    _, c4 = extend(run, cards("AH"), r)
    assert c4.total == 1 and c4.new == 1


def test_static_set_character() -> None:
    """G17: an unsuited valle set stays C1 when suited cards are added later (static)."""
    r = Rules()
    m = make_meld(1, cards("5H 5D 5C"), r)
    grown, _ = extend(m, cards("5H 5H"), r)
    assert meld_value(grown, r) == 1
    dyn = Rules(set_character=Rules.preset("california").set_character.__class__("dynamic"))
    grown2, _ = extend(make_meld(1, cards("5H 5D 5C"), dyn), cards("5H 5H"), dyn)
    assert meld_value(grown2, dyn) == 2
    assert meld_value(make_meld(1, cards("5S 5S 5S 5H 5D"), r), r) == 4


def test_deck_sizes() -> None:
    """§10 cases 28-31: 320 / 310 / 307 / 305 card shoes."""
    assert len(build_shoe(8)) == 320
    shoe310 = build_shoe(8, 1)
    assert len(shoe310) == 310 and shoe310.count(cards("5S")[0]) == 7 and shoe310.count(cards("5H")[0]) == 8
    assert len(build_shoe(8, 1, cards("3S 5S 7S"))) == 307
    assert len(build_shoe(8, 1, cards("3S 5S 7S 2S QS"))) == 305
    assert len(Rules(remove_spade_sets=1).shoe()) == 310


def test_split_accounting() -> None:
    """§4.4: a split piece keeping the King inherits what the C4 collected (no double pay)."""
    r = Rules()
    rope = make_meld(1, cards("4S 5S 6S 7S JS QS KS"), r)
    rope = rope.__class__(**{**{f: getattr(rope, f) for f in rope.__dataclass_fields__}, "paid_high": 2})
    pieces, coll = remake(rope, [(1, cards("4S 5S 6S")), (2, cards("7S JS QS KS"))], r)
    assert coll.total == 0 and pieces[1].paid_high == 2


def test_borrow_manufacture() -> None:
    """§4.4 example: KS x4 lends a KS; the set falls to 2 without refund."""
    r = Rules()
    kings = make_meld(1, cards("KS KS KS KS"), r)
    kings = kings.__class__(**{**{f: getattr(kings, f) for f in kings.__dataclass_fields__}, "paid": 4})
    left = borrow_pieces(kings, cards("KS"), r)
    assert left is not None
    pieces, coll = remake(kings, [(1, left[0])], r)
    assert coll.total == 0 and pieces[0].paid == 2


@pytest.mark.parametrize(("take", "ok"), [("7H", False), ("JH", True), ("6H", False), ("JH 5H", False)])
def test_borrow_rules(take: str, ok: bool) -> None:
    """§10 cases 36-38: only an end card, leaving a valid meld."""
    r = Rules()
    rope = make_meld(1, cards("JH 7H 6H 5H"), r)
    assert (borrow_pieces(rope, cards(take), r) is not None) is ok
    three = make_meld(2, cards("5H 5D 5C"), r)
    assert borrow_pieces(three, cards("5H"), r) is None


def test_borrow_split_rope_option() -> None:
    """G19: with borrow_split_rope, a middle card may leave two ropes."""
    r = Rules(borrow_split_rope=True)
    rope = make_meld(1, cards("AH 2H 3H 4H 5H 6H 7H"), r)
    assert borrow_pieces(rope, cards("4H"), r) == [cards("AH 2H 3H"), cards("5H 6H 7H")]
    assert borrow_pieces(rope, cards("4H"), Rules()) is None


def test_valle_cards_are_the_threes_fives_and_sevens() -> None:
    """§1.3: the valle cards are every 3, 5 and 7 (any suit); every other rank is non-valle."""
    from pancog.game.cards import ALL_CARDS

    valle = {str(c) for c in ALL_CARDS if c.is_valle is True}
    assert valle == {f"{r}{s}" for r in "357" for s in "CDHS"}
    assert all(c.is_valle is False for c in ALL_CARDS if str(c) not in valle)


def test_a_rope_carries_its_condition_and_suit() -> None:
    """§4.1 C4: a rope starting with an Ace or ending with a King is a condition; any other rope is not.
    The meld records it (and its suit) like a set does."""
    from pancog.game.melds import Condition

    king_end = make_meld(1, cards("JS QS KS"), Rules())
    assert (king_end.condition, king_end.suit) == (Condition.C4, cards("KS")[0].suit)
    plain = make_meld(2, cards("4H 5H 6H"), Rules())
    assert (plain.condition, plain.suit) == (Condition.NONE, cards("4H")[0].suit)


def test_holds_counts_copies() -> None:
    """Several packs repeat cards (§1.1): holding a card twice is a multiset question."""
    from pancog.game.cards import holds

    assert holds(cards("5H 5H 2C"), cards("5H 5H")) and holds(cards("5H 2C"), ())
    assert not holds(cards("5H 2C"), cards("5H 5H")) and not holds((), cards("2C"))


def test_take_cards_names_exactly_the_missing_copies() -> None:
    """The refusal names what is missing, counting copies: holding one 5H, asking for two lacks one."""
    from pancog.game import CardsNotInHand
    from pancog.game.cards import take_cards

    assert take_cards(cards("5H 2C 5H"), cards("5H 5H")) == cards("2C")
    with pytest.raises(CardsNotInHand, match=r"^You don't hold 3D 5H\.$"):
        take_cards(cards("5H 2C"), cards("5H 5H 3D"))


def test_extend_needs_a_card() -> None:
    """§4.3 enhancements are made by adding cards: extending a meld by nothing is refused, not a no-op."""
    with pytest.raises(IllegalMeld, match="at least one card"):
        extend(make_meld(1, cards("5H 5H 5H"), Rules()), (), Rules())


def test_can_borrow_an_end_of_a_rope_only() -> None:
    """§3.4 [S2]: "From 7H 6H 5H 4H, either the 7H or 4H may be borrowed, but not the 6H or 5H"; a set lends a
    card only if three stay."""
    from pancog.game.melds import can_borrow

    rope = make_meld(1, cards("4H 5H 6H 7H"), Rules())
    assert can_borrow(rope, cards("7H")[0], Rules()) == cards("4H 5H 6H")
    assert can_borrow(rope, cards("4H")[0], Rules()) == cards("5H 6H 7H")
    assert can_borrow(rope, cards("6H")[0], Rules()) is None and can_borrow(rope, cards("5H")[0], Rules()) is None
    three = make_meld(2, cards("5H 5D 5C"), Rules())
    assert can_borrow(three, cards("5H")[0], Rules()) is None


def test_new_melds_from_the_hand_alone_are_legal_sets() -> None:
    """§10 cases 8 and 1: 5H 5H 5D is not a set (two suits, neither three times), 5H 5D 5C is."""
    from collections import Counter

    from pancog.game.moves import new_melds

    assert list(new_melds(Counter(cards("5D 5D 5H 2C")), ())) == []
    assert [tuple(sorted(m)) for m in new_melds(Counter(cards("5D 5C 5H 2C")), ())] == [
        tuple(sorted(cards("5D 5C 5H")))
    ]
