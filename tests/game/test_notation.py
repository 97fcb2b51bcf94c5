"""Action notation round-trips; transcripts replay to the same events."""

from __future__ import annotations

import random

import pytest

from pancog.game import NotationError, Rules, Sit, StartHand, apply, format_action, initial_state, parse_action, plays
from pancog.game.cards import EXCERPT_MAX, parse_cards, take_cards
from pancog.game.errors import CardsNotInHand
from pancog.game.notation import dump_transcript, format_event, format_rules, load_transcript, parse_rules, replay
from pancog.game.rules import ForceMode


def _random_actions(seed: int, n: int = 400):
    rng = random.Random(seed)
    s = initial_state(Rules(deck_count=2))
    acts = [Sit(player_id=10 + i, buy_in=40, seat=i) for i in range(4)] + [StartHand(seed=seed)]
    for a in acts:
        s = apply(s, a).state
    while len(acts) < n and s.hand is not None:
        menu = [a for i in range(4) for a, _ in plays(s, i)]
        a = rng.choice(menu)
        s = apply(s, a).state
        acts.append(a)
    return acts


def test_every_action_round_trips() -> None:
    """format_action / parse_action round-trip for every action seen in random play."""
    for a in _random_actions(3):
        assert parse_action(format_action(a)) == a


def test_transcript_round_trip_and_replay() -> None:
    """load(dump(x)) == x, and replaying a transcript reproduces its events."""
    rules = Rules(force_mode=ForceMode.MANDATORY, deck_count=2)
    acts = [Sit(player_id=1, buy_in=40), Sit(player_id=2, buy_in=40), StartHand(seed=5)]
    _state, events = replay(rules, acts)
    text = dump_transcript(rules, acts, events)
    t = load_transcript(text)
    assert t.rules == rules and list(t.actions) == acts
    assert list(t.events) == [format_event(e) for e in replay(t.rules, t.actions)[1]]
    assert parse_rules(format_rules(rules)) == rules


@pytest.mark.parametrize("text", ["", "2 dance", "x knock", "2 meld 8H 9H", "sit 1", "2 foul 3 cheating"])
def test_bad_notation(text: str) -> None:
    with pytest.raises(NotationError):
        parse_action(text)


@pytest.mark.parametrize("typed", ["Q" * 2000, "♠" * 2000, "\u200b" * 2000, "😀" * 2000, "ZZ " * 700])
def test_refusals_quote_a_short_clearly_cut_excerpt(typed: str) -> None:
    """#18: a refusal quotes at most a short excerpt of what was typed, with a visible cut."""
    with pytest.raises(NotationError) as caught:
        parse_cards(typed)
    message = caught.value.message
    assert len(message) < 120, message
    assert "…" in message or len(typed.split()[0]) <= EXCERPT_MAX


def test_cards_not_held_are_listed_short() -> None:
    with pytest.raises(CardsNotInHand) as caught:
        take_cards((), parse_cards(" ".join(["2C"] * 600)))
    assert len(caught.value.message) < 100 and caught.value.message.startswith("You don't hold 2C 2C")
