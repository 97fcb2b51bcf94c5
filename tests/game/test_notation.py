"""Action notation round-trips; transcripts replay to the same events."""

from __future__ import annotations

import random

import pytest

from pancog.game import (
    MakeGood,
    NotationError,
    Rules,
    Sit,
    StartHand,
    apply,
    format_action,
    format_cards,
    initial_state,
    parse_action,
    plays,
)
from pancog.game.cards import EXCERPT_MAX, Card, parse_cards, take_cards
from pancog.game.errors import CardsNotInHand
from pancog.game.notation import dump_transcript, format_event, format_rules, load_transcript, parse_rules, replay
from pancog.game.rules import ForceMode, OneLeft, describe_rules
from tests.game.conftest import cards


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


@pytest.mark.parametrize(
    "text",
    [
        "sit 123 buyin=20",
        "sit 123 buyin=40 doubles seat=2",
        "rebuy 2 20",
        "stand 2",
        "away 2 on",
        "away 2 off",
        "start seed=7",
        "start seed=7 first=0",
        "start first=1 shoe=5S 5H",
        "2 knock",
        "2 top",
        "2 pluck",
        "2 option",
        "2 discard",
        "2 discard 5H",
        "2 claim",
        "2 meld 5D",
        "2 meld 5D 5C",
        "2 add 1",
        "2 add 1 6H",
        "2 add 1 6H 7H split QH JH 7H",
        "2 borrow 5D from 1:5H",
        "2 borrow from 1:5H 3:5S",
        "2 makegood 1 5H",
        "2 makegood 1 5H 5C",
        "3 force",
        "3 force 2",
        "3 force 2 7H",
        "3 force 7H",
        "3 foul 2 abandoned",
        "3 foul 2 invalid_meld",
        "floor foul 2",
        "2 split offer",
        "2 split accept",
        "2 split decline",
        "2 timeout",
    ],
)
def test_every_notation_form_reads_and_writes_back(text: str) -> None:
    """Each form of the module docstring (with the fewest and the most arguments) reads and writes back."""
    assert format_action(parse_action(text)) == text


def test_notation_keeps_each_argument() -> None:
    from pancog.game import Borrow, Force, parse_cards

    assert parse_action("2 makegood 1 5H") == MakeGood(seat=2, meld=1, cards=parse_cards("5H"))
    assert parse_action("3 force 2 7H") == Force(seat=3, target=2, card=parse_cards("7H")[0])
    assert parse_action("2 borrow 5D from 1:5H 3:5S") == Borrow(
        seat=2, cards=parse_cards("5D"), taken=((1, parse_cards("5H")[0]), (3, parse_cards("5S")[0]))
    )
    with pytest.raises(NotationError, match="Name the borrowed cards"):
        parse_action("2 borrow 5D from")
    with pytest.raises(NotationError, match="<meld>:<card>"):
        parse_action("2 borrow 5D from 5H")


@pytest.mark.parametrize(
    ("text", "message"),
    [("2 foul 3", "is not an action"), ("2 dance 1 2", "is not an action"), ("2 foul 3 napping", "Unknown foul cause")],
)
def test_bad_notation_says_why(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_action(text)


def test_pretty_card_has_its_suit_symbol() -> None:
    """Cards are shown with suit symbols: the five of spades is 5♠, the king of hearts K♥."""
    five_s, king_h = cards("5S KH")
    assert five_s.pretty == "5♠"
    assert isinstance(king_h, Card) and king_h.pretty == "K♥"
    assert format_cards(cards("5S KH"), pretty=True) == "5♠ K♥"


@pytest.mark.parametrize("override", ["ante_chips=abc", "one_left=sideways"])
def test_rules_line_with_a_bad_value_is_refused(override: str) -> None:
    """A rules line with a value that is not of the option's type is an error, never silently dropped."""
    with pytest.raises(NotationError):
        parse_rules(f"rules classic {override}")


def test_describe_rules_says_what_one_player_left_does() -> None:
    """§6.4 / G28: play-out tables make the last player play on with every usable card; settle-now tables
    pay him the tops and the outs as his board lies."""
    play_out = " ".join(describe_rules(Rules(one_left=OneLeft.PLAY_OUT)))
    settle = " ".join(describe_rules(Rules(one_left=OneLeft.SETTLE_NOW)))
    assert "plays the hand out" in play_out and "as his board lies" not in play_out
    assert "as his board lies" in settle and "plays the hand out" not in settle
