"""SetStakes: a between-hands ante change (tournament levels), in the engine and its notation."""

import pytest

from pancog.game import engine
from pancog.game.actions import SetStakes, Sit, StartHand
from pancog.game.errors import RuleViolation
from pancog.game.notation import format_action, parse_action
from pancog.game.rules import Rules
from pancog.game.state import initial_state


def _table():
    state = initial_state(Rules(min_buyin_chips=1), table_id=1)
    for pid in (1, 2, 3):
        state = engine.apply(state, Sit(player_id=pid, buy_in=500)).state
    return state


def test_set_stakes_applies_to_the_next_deal():
    """The new ante is charged from the next hand on."""
    state = engine.apply(_table(), SetStakes(ante_chips=7)).state
    assert state.rules.ante_chips == 7
    after = engine.apply(state, StartHand(seed=5)).state
    assert after.singles_tops == 3 * 7
    assert sorted(s.stack for s in after.seats if s is not None) == [493, 493, 493]


def test_set_stakes_refused_mid_hand_and_below_one():
    """Mid-hand or a zero ante is a RuleViolation and nothing changes."""
    dealt = engine.apply(_table(), StartHand(seed=5)).state
    with pytest.raises(RuleViolation):
        engine.apply(dealt, SetStakes(ante_chips=3))
    with pytest.raises(RuleViolation):
        engine.apply(_table(), SetStakes(ante_chips=0))


def test_set_stakes_notation_round_trip():
    """'stakes N' parses back to the same action."""
    assert format_action(SetStakes(ante_chips=12)) == "stakes 12"
    assert parse_action("stakes 12") == SetStakes(ante_chips=12)
