"""Edges of the legal-move listing that the mutation run (seed 4) found untested: a foul call collects
nothing (RULES.md §6), and meld plays come most chips first, then most cards (docs/rules.md)."""

from __future__ import annotations

from collections import Counter

from pancog.game import (
    Action,
    Borrow,
    Card,
    FoulCall,
    FoulCause,
    Knock,
    NewMeld,
    Pluck,
    Rules,
    RuleViolation,
    TableState,
    Timeout,
    make_meld,
)
from pancog.game.melding import resolve_play
from pancog.game.melds import Meld, fresh_collection, invalid_meld, remake
from pancog.game.moves import MeldPlayAction, make_good_cards, meld_plays
from pancog.game.queries import plays
from pancog.game.rules import Enforcement
from pancog.game.state import PlayerHand
from tests.game.conftest import cards, run, table

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
