"""The practice coach on stacked hands: why the top plays rank where they do, and what a player missed."""

from __future__ import annotations

from pancog.ai import rank_plays
from pancog.ai.coach import BetterMeld, MissedForce, OutCardGiven, play_facts, review_hand
from pancog.game import (
    Action,
    AddToMeld,
    Discard,
    Force,
    GoOnTop,
    Knock,
    NewMeld,
    Pluck,
    TakeOption,
)
from pancog.game.cards import parse_card
from pancog.game.engine import observe
from pancog.game.state import TableState
from tests.game.conftest import cards, run, table

# Two players (A first): A plucks 4C, which makes AC 2C 3C 4C (a rope from the Ace: a condition); A is flat after
# laying AC 2C 3C 4C, 4D 5D 6D and JH QH KH (another rope) and throwing 7C.
A = "AC 2C 3C 4D 5D 6D JH QH KH 7C"
B = "JS KS 4H 6H JD 3D 5H 7D 2H QC"
# Three players: C's thrown 5C is the option card for A and fits A's rope, so B may force it on A.
TA = "AC 2C 3C KD 2D 3H 6H 7S JD 5S"
TB = "5D 5H 4S 6C JC KC QH 2S 7D 4H"
TC = "JS QS 3S 6D 7H 4D 2H AD AH QC"

DECLARE = [Knock(seat=0), Knock(seat=1)]


def played(start: TableState, actions: list[Action]) -> TableState:
    return run(start, *actions)[0]


def test_the_top_plays_come_with_what_separates_them() -> None:
    """A has plucked 4C: the rope AC 2C 3C 4C ranks first (4 cards down, 1 chip now), the bare 2C 3C 4C second
    (3 cards, nothing now), throwing the pluck third; each with the chance of a hit once the turn ends."""
    s = played(table([A, B], "4C 6S 5C"), [*DECLARE, Pluck(seat=0)])
    obs = observe(s, 0)
    facts = play_facts(obs, [a for a, _ in rank_plays(obs)])
    assert [f.rank for f in facts] == [1, 2, 3]
    best, second, third = facts
    assert best.action == NewMeld(seat=0, cards=cards("AC 2C 3C")) and (best.cards_down, best.chips) == (4, 1)
    assert second.action == NewMeld(seat=0, cards=cards("2C 3C")) and (second.cards_down, second.chips) == (3, 0)
    assert isinstance(third.action, Discard) and third.cards_down == 0 and not third.dead_card
    assert all(f.hits_after is not None and 0 < f.hits_after < 1 for f in facts)
    assert not any(f.goes_out for f in facts)


def test_going_out_and_declarations_are_explained() -> None:
    """The play that empties the hand says so; at the declaration the chance that the first card is a hit."""
    start = table([A, B], "4C 6S 5C")
    obs = observe(start, 0)
    facts = play_facts(obs, [a for a, _ in rank_plays(obs)])
    assert {type(f.action) for f in facts} == {Knock, GoOnTop}
    assert all(f.knock_hits is not None and 0 < f.knock_hits < 1 for f in facts)
    s = played(start, [*DECLARE, *_a_goes_flat(), Pluck(seat=1), Discard(seat=1), Pluck(seat=0)])
    obs = observe(s, 0)
    (out, *_rest) = play_facts(obs, [a for a, _ in rank_plays(obs)])
    assert out.goes_out and out.action == AddToMeld(seat=0, meld=1) and out.cards_down == 1
    assert play_facts(observe(s, 1), [a for a, _ in rank_plays(observe(s, 1))]) == ()  # not his turn


def _a_goes_flat() -> list[Action]:
    return [
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("AC 2C 3C")),
        NewMeld(seat=0, cards=cards("4D 5D 6D")),
        NewMeld(seat=0, cards=cards("JH QH KH")),
        Discard(seat=0, card=parse_card("7C")),
    ]


def test_a_better_meld_is_named() -> None:
    """A melds 2C 3C with the 4C (nothing now) where AC 2C 3C 4C collected a chip, then throws 7C keeping the
    rope JH QH KH in his hand: two better melds, both named with what they would have collected."""
    start = table([A, B], "4C 6S 5C")
    actions: list[Action] = [
        *DECLARE,
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("2C 3C")),
        Discard(seat=0, card=parse_card("7C")),
    ]
    misses = review_hand(start, actions, 0)
    assert all(isinstance(m, BetterMeld) for m in misses) and len(misses) == 2
    first, second = misses
    assert isinstance(first, BetterMeld) and isinstance(second, BetterMeld)
    assert first.played == NewMeld(seat=0, cards=cards("2C 3C")) and first.played_chips == 0
    assert first.better == NewMeld(seat=0, cards=cards("AC 2C 3C")) and first.better_chips == 1
    assert second.played == Discard(seat=0, card=parse_card("7C"))
    assert second.better == NewMeld(seat=0, cards=cards("JH QH KH")) and second.hand_turn == 1
    # the good line misses nothing
    assert review_hand(start, [*DECLARE, *_a_goes_flat()], 0) == ()


def test_an_out_card_given_is_named() -> None:
    """B plucks 5C (no use to him) and throws it: A, flat, takes it as his option card and goes out with it."""
    start = table([A, B], "4C 5C 6S")
    actions = [
        *DECLARE,
        *_a_goes_flat(),
        Pluck(seat=1),
        Discard(seat=1),
        TakeOption(seat=0),
        AddToMeld(seat=0, meld=1),
    ]
    assert review_hand(start, actions, 1) == (OutCardGiven(card=parse_card("5C"), taker=0),)
    assert review_hand(start, actions, 0) == ()  # the winner gave nothing


def force_chance() -> tuple[TableState, list[Action]]:
    """Three players, stacked: A melds AC 2C 3C; C's thrown 5C then sits as A's option card, fits that rope and pays
    A nothing (he holds 8 cards): B, next, may force it on A."""
    start = table([TA, TB, TC], "4C KS QD 3D 5C")
    return start, [
        Knock(seat=0),
        Knock(seat=1),
        Knock(seat=2),
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("AC 2C 3C")),
        Discard(seat=0, card=parse_card("KD")),
        Pluck(seat=1),
        Discard(seat=1),
        TakeOption(seat=2),
        NewMeld(seat=2, cards=cards("JS QS")),
        Discard(seat=2, card=parse_card("QC")),
        Pluck(seat=0),
        Discard(seat=0),
        Pluck(seat=1),
        Discard(seat=1),
        Pluck(seat=2),
        Discard(seat=2),
    ]


def test_a_force_not_taken_is_named_and_a_force_taken_is_not() -> None:
    """C throws 5C: it fits A's rope and pays A nothing while he holds 8 cards, so B should force it on A. B lets
    A pluck instead: a missed force. Forcing it, B misses nothing."""
    start, common = force_chance()
    passed = review_hand(start, [*common, Pluck(seat=0)], 1)
    assert passed == (MissedForce(card=parse_card("5C"), target=0),)
    forced = [*common, Force(seat=1, target=0, card=parse_card("5C")), AddToMeld(seat=0, meld=1)]
    assert review_hand(start, forced, 1) == ()
    assert review_hand(start, [*common, Pluck(seat=0)], 2) == ()  # the discarder may not force his own card
