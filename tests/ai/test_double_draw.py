"""Issue 13 item 4: the double draw's second pluck is a right; the computer players choose whether to take it."""

from __future__ import annotations

import dataclasses
import random

import pytest

from pancog.ai import choices, make_player
from pancog.game import Discard, Knock, Pluck, apply, make_meld, observe
from pancog.game.actions import DeclineDraw
from pancog.game.state import TableState
from tests.game.conftest import cards, run, table
from tests.game.test_cases import INERT_A, INERT_B


def _after_first_pluck(*, next_flat: bool) -> TableState:
    """Seat 0 (first) has discarded his first pluck KH unused; seat 1 is next (flat, on sets of 5s and 6s, or not)."""
    s = table([INERT_A, INERT_B], stock="KH 2C")
    s, _ = run(s, Knock(seat=0), Knock(seat=1))
    if next_flat:
        h = s.hand
        assert h is not None
        melds = (make_meld(1, cards("5H 5D 5C 5S 5H"), s.rules), make_meld(2, cards("6H 6D 6C 6S 6H"), s.rules))
        p1 = dataclasses.replace(h.player(1), hand=(), melds=melds, next_meld_id=3)
        players = tuple(p1 if p is not None and p.seat == 1 else p for p in h.players)
        s = dataclasses.replace(s, hand=dataclasses.replace(h, players=players))
    s, _ = run(s, Pluck(seat=0), Discard(seat=0))
    return s


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_computer_player_declines_the_second_pluck_before_a_flat_player(level: str) -> None:
    """The first pluck (KH) cannot help the flat next player, a stock card might put him out: decline."""
    s = _after_first_pluck(next_flat=True)
    obs = observe(s, 0)
    legal = choices(obs)
    assert DeclineDraw(seat=0) in legal and Pluck(seat=0) in legal
    assert make_player(level).choose(obs, legal, random.Random(1)) == DeclineDraw(seat=0)


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_computer_player_takes_the_second_pluck_otherwise(level: str) -> None:
    s = _after_first_pluck(next_flat=False)
    obs = observe(s, 0)
    action = make_player(level).choose(obs, choices(obs), random.Random(1))
    assert action == Pluck(seat=0)
    assert apply(s, action).state.hand is not None
