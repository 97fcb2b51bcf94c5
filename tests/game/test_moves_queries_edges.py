"""Edges of the legal-move listing that the mutation run (seed 4) found untested: a foul call collects
nothing (RULES.md §6), and meld plays come most chips first, then most cards (docs/rules.md)."""

from __future__ import annotations

from collections import Counter

from pancog.game import Action, FoulCall, FoulCause, Knock, NewMeld, Pluck, Rules, TableState, Timeout
from pancog.game.queries import plays
from pancog.game.rules import Enforcement
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
    assert not s.hand.players[0].melds[0].valid
    assert _value_of(s, 1, FoulCall(seat=1, target=0, cause=FoulCause.INVALID_MELD)) == 0


def test_meld_plays_list_the_paying_set_before_a_longer_run_that_pays_nothing() -> None:
    """§4.1: 5H 5C 5S is C1 (1 unit from each of the 2 others); 6D 7D JD QD pays nothing; chips first."""
    s = _knocked(["KC KC 5H 5C 5S 6D 7D JD QD 2S", P1, P2], "KC")
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("KC KC")))
    melds = [(Counter(a.cards), v) for a, v in plays(s, 0) if isinstance(a, NewMeld)]
    assert melds[0] == (Counter(cards("5H 5C 5S")), 2)
    assert (Counter(cards("6D 7D JD QD")), 0) in melds
