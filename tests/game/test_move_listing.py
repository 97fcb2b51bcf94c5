"""The legal-move listing and what each play collects (pancog/game/moves.py, queries.py): a foul call collects
nothing (RULES.md §6), meld plays come most chips first, then most cards (docs/rules.md), borrows and splits are
listed once and only as melds, rope ends and split pieces are valued as §4 says, and no meld play touches an
invalid spread.

Every expected value is worked out from RULES.md (the section is named in each test), never copied from the
engine's output."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from pancog.game import (
    AcceptSplit,
    Action,
    Borrow,
    Card,
    Discard,
    FoulCall,
    FoulCause,
    GoOnTop,
    Knock,
    NewMeld,
    NotYourTurn,
    OfferSplit,
    Pluck,
    Rules,
    RuleViolation,
    TableState,
    Timeout,
    make_meld,
    meld_value,
    play_value,
    plays,
)
from pancog.game.actions import AddToMeld, DeclineDraw
from pancog.game.melding import resolve_play
from pancog.game.melds import Meld, fresh_collection, invalid_meld, remake
from pancog.game.moves import MeldPlayAction, make_good_cards, make_good_options, meld_plays
from pancog.game.rules import Enforcement
from pancog.game.state import PlayerHand
from tests.game.conftest import cards, run, table
from tests.game.test_cases import INERT_A, INERT_B, INERT_C

P0 = "2C 4D 6S JC QD KH AS 3D 7C 2D"
P1 = "5D 5C 2S 4S 6D JD QC KD AC 3C"
P2 = "2H 4C 6C JS QS KS AD 3S 7S 2S"
PLAYERS = Rules(enforcement=Enforcement.PLAYERS)


def _knocked(hands: list[str], stock: str, rules: Rules | None = None) -> TableState:
    return run(table(hands, stock=stock, rules=rules), *[Knock(seat=i) for i in range(len(hands))])[0]


def _value_of(state: TableState, seat: int, action: Action) -> int:
    listed = dict(plays(state, seat))
    assert action in listed, action
    return listed[action]


def _abandoned_after_timeouts(rules: Rules | None) -> TableState:
    """§6.5: seat 0 keeps timing out, so the others may call him foul for abandoning the hand."""
    s = _knocked([P0, P1, P2], "KC KC KC KC KC KC KC KC KC", rules)
    return run(s, Timeout(seat=0), Timeout(seat=1), Timeout(seat=2), Timeout(seat=0))[0]


def test_an_abandoned_hand_foul_call_collects_nothing() -> None:
    s = _abandoned_after_timeouts(None)
    assert _value_of(s, 1, FoulCall(seat=1, target=0, cause=FoulCause.ABANDONED)) == 0


def test_an_abandoned_hand_foul_call_collects_nothing_when_players_enforce() -> None:
    s = _abandoned_after_timeouts(PLAYERS)
    assert _value_of(s, 1, FoulCall(seat=1, target=0, cause=FoulCause.ABANDONED)) == 0


def test_an_invalid_spread_foul_call_collects_nothing() -> None:
    """§6.3 enforcement=players: the call on an invalid spread is listed, and calling collects no chips."""
    s = _knocked(["5H 5H 5C 2C 4D 6S JC QD KH AS", P1, P2], "5D", PLAYERS)
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5H 5H")))
    spreader = s.hand.players[0] if s.hand is not None else None
    assert spreader is not None and not spreader.melds[0].valid
    assert _value_of(s, 1, FoulCall(seat=1, target=0, cause=FoulCause.INVALID_MELD)) == 0


def test_meld_plays_list_the_paying_set_before_a_longer_run_that_pays_nothing() -> None:
    """§4.1: 5H 5C 5S is C1 (1 unit from each of the 2 others); 6D 7D JD QD pays nothing; chips first."""
    s = _knocked(["KC KC 5H 5C 5S 6D 7D JD QD 2S", P1, P2], "KC")
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("KC KC")))
    melds = [(Counter(a.cards), v) for a, v in plays(s, 0) if isinstance(a, NewMeld)]
    assert melds[0] == (Counter(cards("5H 5C 5S")), 2)
    assert (Counter(cards("6D 7D JD QD")), 0) in melds


def _listed(hand: str, melds: list[Meld], drawn: str | None) -> tuple[list[MeldPlayAction], list[MeldPlayAction]]:
    """(meld plays listed, those the engine's own check refuses) for seat 0; docs: apply accepts exactly these."""
    rules = Rules()
    card = cards(drawn)[0] if drawn else None
    pl = PlayerHand(seat=0, hand=cards(hand), melds=tuple(melds), next_meld_id=len(melds) + 1)
    listed = list(meld_plays(0, cards(hand), melds, card, rules))
    refused = []
    for p in listed:
        try:
            resolve_play(rules, pl, card, p)
        except RuleViolation:
            refused.append(p)
    return listed, refused


def _borrow_totals(listed: list[MeldPlayAction], drawn: str | None) -> list[Counter[Card]]:
    extra = cards(drawn) if drawn else ()
    return [Counter((*p.cards, *extra, *(c for _, c in p.taken))) for p in listed if isinstance(p, Borrow)]


def test_a_card_lent_from_a_run_is_listed_as_one_borrow_once() -> None:
    """§3.4: 5C lent by 5C 6C 7C JC (6C 7C JC stays a run) makes 5C 5D 5H: one play, listed once."""
    rules = Rules()
    listed, refused = _listed("5D 5H QC", [make_meld(1, cards("5C 6C 7C JC"), rules)], None)
    assert refused == []
    assert len(listed) == len(set(listed))
    assert _borrow_totals(listed, None).count(Counter(cards("5C 5D 5H"))) == 1


def test_a_borrow_from_a_set_into_a_run_with_the_drawn_card_is_listed() -> None:
    """§3.4: drawn 7C, 6C in hand, 5C lent by a set of four 5s (5D 5H 5S stays a set): the run 5C 6C 7C."""
    rules = Rules()
    listed, refused = _listed("6C 2D KH", [make_meld(1, cards("5C 5D 5H 5S"), rules)], "7C")
    assert refused == []
    assert Counter(cards("5C 6C 7C")) in _borrow_totals(listed, "7C")


def test_no_borrow_listed_that_is_not_a_meld() -> None:
    """Drawn 5C, hand 5C, 6C lent by 6C 7C JC QC: 5C 5C 6C is neither a set nor a run (§3.1, §3.2), so not listed."""
    rules = Rules()
    listed, refused = _listed("5C 2D KH", [make_meld(1, cards("6C 7C JC QC"), rules)], "5C")
    assert refused == []
    assert Counter(cards("5C 5C 6C")) not in _borrow_totals(listed, "5C")


def test_set_splits_never_leave_the_original_set_as_a_piece() -> None:
    """§3.3: a split cuts the meld into two new melds; 5C 5D 5H plus 5C 5D 5H 5S lists only real splits."""
    rules = Rules()
    listed, refused = _listed("5C 5D 5H 5S", [make_meld(1, cards("5C 5D 5H"), rules)], None)
    assert refused == []
    assert any(getattr(p, "split", None) for p in listed)


def test_make_good_cards_returns_cards_that_make_the_spread_a_set() -> None:
    """§3.2: 5D 5D 5H needs a third suit; 5H keeps two suits, 5C makes three, so 5C is the answer."""
    spread = invalid_meld(1, cards("5D 5D 5H"))
    assert make_good_cards(spread, cards("5H 5C")) == cards("5C")


def test_a_split_set_collects_the_full_value_of_its_new_piece() -> None:
    """§4.1/§4.4: four 5S (6 units, paid) plus four 5S split into five 5S (8, keeps the number and the
    6 collected: gains 2) and three 5S (a new piece: starts at 0, collects 4); 12 shown, 6 more paid."""
    rules = Rules()
    old, first = fresh_collection(make_meld(1, cards("5S 5S 5S 5S"), rules), rules)
    assert (old.paid, first.total) == (6, 6)
    pieces, coll = remake(old, [(1, cards("5S 5S 5S 5S 5S")), (2, cards("5S 5S 5S"))], rules)
    assert [p.paid for p in pieces] == [8, 4]
    assert coll.total == 6


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


P0_SPADES = "5S 5S 2C 6C QC 3D 7D KD 4H JH"


# --- the menu: what each action collects now --------------------------------------------------------------------


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
