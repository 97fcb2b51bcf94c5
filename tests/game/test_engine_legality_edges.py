"""Edges of the engine and the legality rules left open by mutation seed 4: seating (§6.5), sitting out,
withdrawing a split offer (§7.6), a foul called between hands (§6), the rules line and its description
(§9), pretty cards.

Expected values from RULES.md, docs/rules.md and docs/commands.md, never from the engine's output."""

from __future__ import annotations

import pytest

from pancog.game import (
    DeclineSplit,
    FoulCall,
    FoulCause,
    GoOnTop,
    Knock,
    NotationError,
    OfferSplit,
    Rules,
    SetAway,
    Sit,
    apply,
    format_cards,
    initial_state,
)
from pancog.game.cards import Card
from pancog.game.errors import NoHandInProgress, SeatError
from pancog.game.events import AwaySet, SplitDeclined
from pancog.game.notation import parse_rules
from pancog.game.rules import OneLeft, describe_rules
from tests.game.conftest import cards, run, table

P0 = "2C 4D 6S JC QD KH AS 3D 7C 2D"
P1 = "5D 5C 2S 4S 6D JD QC KD AC 3C"
P2 = "2H 4C 6C JS QS KS AD 3S 7S 2S"


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


def test_foul_call_between_hands_is_refused_as_no_hand() -> None:
    """§6: a foul is called on a hand; with none in progress the call is refused and nothing changes."""
    s = initial_state(Rules())
    for i in range(3):
        s = apply(s, Sit(player_id=i + 1, buy_in=40, seat=i)).state
    with pytest.raises(NoHandInProgress):
        apply(s, FoulCall(seat=1, target=0, cause=FoulCause.ABANDONED))


@pytest.mark.parametrize("seat", [0, 99])
def test_sit_in_a_taken_or_missing_seat_is_refused(seat: int) -> None:
    """A seat already held (or one the table does not have) cannot be taken; the seated player stays."""
    s = apply(initial_state(Rules()), Sit(player_id=1, buy_in=40, seat=0)).state
    with pytest.raises(SeatError):
        apply(s, Sit(player_id=2, buy_in=40, seat=seat))
    assert s.seats[0] is not None and s.seats[0].player_id == 1


def test_set_away_is_announced() -> None:
    """Sitting out and coming back are table events everyone is told of."""
    s = apply(initial_state(Rules()), Sit(player_id=1, buy_in=40, seat=0)).state
    t = apply(s, SetAway(seat=0, away=True))
    assert t.state.seats[0] is not None and t.state.seats[0].away
    assert [(e.seat, e.away) for e in t.events if isinstance(e, AwaySet)] == [(0, True)]
    back = apply(t.state, SetAway(seat=0, away=False))
    assert [(e.seat, e.away) for e in back.events if isinstance(e, AwaySet)] == [(0, False)]


def test_offerer_may_withdraw_his_split_offer() -> None:
    """§7.6 (docs/rules.md): the other may accept or decline, the first may withdraw; play goes on."""
    s, _ = run(table([P0, P1, P2]), GoOnTop(seat=0), Knock(seat=1), Knock(seat=2), OfferSplit(seat=1))
    assert s.hand is not None
    s, ev = run(s, DeclineSplit(seat=1))
    assert s.hand is not None and s.hand.split_offer is None
    assert [e.seat for e in ev if isinstance(e, SplitDeclined)] == [1]
