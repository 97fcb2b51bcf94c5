"""Hints: legal plays ordered by the normal evaluation, each explained in one plain sentence."""

from __future__ import annotations

from pancog.ai import choices, explain, hint, rank_plays
from pancog.ai.hints import UNRANKED
from pancog.ai.players import rank_actions
from pancog.game.actions import Discard, Force, NewMeld
from pancog.game.cards import parse_cards
from pancog.game.engine import observe, to_act
from pancog.game.state import TableState


def test_rank_plays_is_ordered_and_complete(midhand_states: list[TableState]) -> None:
    """Every legal action appears once; ranked in-turn actions come first, best first."""
    for state in midhand_states:
        for seat in range(6):
            obs = observe(state, seat)
            ranked = rank_plays(obs)
            assert sorted(map(repr, (a for a, _ in ranked))) == sorted(map(repr, (a for a, _ in obs.legal)))
            scored = [v for a, v in ranked if not isinstance(a, Force) and v != UNRANKED]
            assert scored == sorted(scored, reverse=True)


def test_hint_is_the_normal_choice_and_is_legal(midhand_states: list[TableState]) -> None:
    for state in midhand_states:
        seat = to_act(state)
        assert seat is not None
        obs = observe(state, seat)
        got = hint(obs)
        assert got is not None
        action, text = got
        assert action in choices(obs)
        assert action == rank_actions(obs, choices(obs))[0][0]
        assert text == explain(obs, action)


def test_every_explanation_is_one_plain_sentence(midhand_states: list[TableState]) -> None:
    for state in midhand_states:
        for seat in range(6):
            obs = observe(state, seat)
            for action, _ in obs.legal:
                text = explain(obs, action)
                assert text and text[0].isupper() and text.endswith(".")
                assert "\n" not in text and "**" not in text and "<@" not in text
                assert text.count(". ") == 0, text  # one sentence


def test_explanations_name_the_cards(midhand_states: list[TableState]) -> None:
    """A discard or meld hint names the cards it is about."""
    seen_kinds: set[str] = set()
    for state in midhand_states:
        seat = to_act(state)
        assert seat is not None
        obs = observe(state, seat)
        for action in choices(obs):
            text = explain(obs, action)
            if isinstance(action, Discard) and action.card is not None:
                assert str(action.card) in text
                seen_kinds.add("discard")
            if isinstance(action, NewMeld):
                assert all(str(c) in text for c in action.cards)
                seen_kinds.add("meld")
    assert "discard" in seen_kinds
    assert parse_cards("5S")  # notation used in the sentences is the engine's
