"""Edges of the legality rules: the option card's plays (§2.7, G9), who may call a foul or answer a split
(§6, §7.6), what the first seat sees (§2.4), the shoe's extra cards (§1.1). Expected values from RULES.md."""

from __future__ import annotations

from collections import Counter

import pytest

from pancog.game import (
    AcceptSplit,
    AddToMeld,
    DeclineSplit,
    Discard,
    FloorFoul,
    FoulCall,
    FoulCause,
    Knock,
    NewMeld,
    Pluck,
    Rules,
    TakeOption,
    apply,
    initial_state,
    observe,
)
from pancog.game.cards import ALL_CARDS, Card
from pancog.game.errors import NoCause, NoHandInProgress, OptionRefused
from tests.game.conftest import cards, run, table

INERT_A = "2C 6C QC 3D 7D KD 4H JH AS 5S"  # ten cards that meld with nothing dealt here
INERT_B = "3C 7C KC 4D JD AH 5H 2S 6S QS"
JUNK = "KH"


def _option_7h_for_seat2(rules: Rules):
    """Seat 2 has melded 4H 5H 6H and holds 7C 7D; seat 1's unused pluck 7H is his option card: it lays off
    on the run and makes a new meld 7H 7C 7D (valle of three suits)."""
    s = table(
        [INERT_A, INERT_B, "4H 5H 7C 7D JC AD 2H QH 3S 2C"],
        stock=f"{JUNK} {JUNK} {JUNK} 6H {JUNK} 7H",
        rules=rules,
    )
    s, _ = run(
        s,
        *[Knock(seat=i) for i in range(3)],
        Pluck(seat=0),
        Discard(seat=0),
        Pluck(seat=0),  # the first player's double draw
        Discard(seat=0),
        Pluck(seat=1),
        Discard(seat=1),
        Pluck(seat=2),
        NewMeld(seat=2, cards=cards("4H 5H")),
        Discard(seat=2, card=cards("2C")[0]),
        Pluck(seat=0),
        Discard(seat=0),
        Pluck(seat=1),
        Discard(seat=1),
    )
    assert s.hand is not None and s.hand.option == cards("7H")[0] and s.hand.option_from == 1
    s, _ = run(s, TakeOption(seat=2))
    return s


def test_option_card_goes_into_a_new_meld_when_option_lay_offs_are_off() -> None:
    """G9 (option_card_layoff = off): the option card may only go into a new meld with hand cards, never be
    laid off on the taker's meld; the refusal changes nothing and the new meld is still open to him."""
    s = _option_7h_for_seat2(Rules(option_card_layoff=False))
    assert s.hand is not None
    run_id = s.hand.players[2].melds[0].id
    with pytest.raises(OptionRefused, match="must go into a new meld"):
        apply(s, AddToMeld(seat=2, meld=run_id))
    s, _ = run(s, NewMeld(seat=2, cards=cards("7C 7D")))
    assert s.hand is not None
    assert sorted(len(m.cards) for m in s.hand.players[2].melds) == [3, 3]


def test_option_card_may_be_laid_off_when_option_lay_offs_are_on() -> None:
    """G9 (option_card_layoff = on, the default): the same option card may be laid off on the taker's run."""
    s = _option_7h_for_seat2(Rules(option_card_layoff=True))
    assert s.hand is not None
    run_id = s.hand.players[2].melds[0].id
    s, _ = run(s, AddToMeld(seat=2, meld=run_id))
    assert s.hand is not None
    assert [len(m.cards) for m in s.hand.players[2].melds] == [4]


def _dealt() -> tuple:
    hands = [INERT_A, INERT_B, "4C JC AD 5D 2H 6H QH 3S 7S KS"]
    return table(hands, stock=JUNK), hands


def test_first_seat_sees_his_own_hand_and_plays() -> None:
    """§2.4: every player sees his own ten cards; seat 0 (first hand) too, and his legal plays (he declares)."""
    s, hands = _dealt()
    for seat, dealt in enumerate(hands):
        obs = observe(s, seat)
        assert Counter(obs.hand) == Counter(cards(dealt))
    first = observe(s, 0)
    assert any(isinstance(a, Knock) and a.seat == 0 for a, _pays in first.legal)


def test_a_seat_outside_the_table_cannot_call_a_foul() -> None:
    """§6: only a player in action may call a foul; a caller outside the table is told so, not crashed on."""
    s, _ = _dealt()
    s, _ = run(s, *[Knock(seat=i) for i in range(3)])
    n = len(s.seats)
    for cause in FoulCause:
        with pytest.raises(NoCause, match="Only a player in action"):
            apply(s, FoulCall(seat=n, target=0, cause=cause))


def test_the_floor_cannot_foul_a_seat_outside_the_table() -> None:
    """§6.1 cause 8: the floor fouls a player in action; a seat past the table's last is nobody in action."""
    s, _ = _dealt()
    s, _ = run(s, *[Knock(seat=i) for i in range(3)])
    with pytest.raises(NoCause, match="not in action"):
        apply(s, FloorFoul(target=len(s.seats)))


def test_no_split_to_answer_between_hands() -> None:
    """§7.6: a split of the tops is offered and answered during a hand; between hands there is none."""
    s = initial_state(Rules(split_tops=True))
    for seat in (0, 1):
        for action in (AcceptSplit(seat=seat), DeclineSplit(seat=seat)):
            with pytest.raises(NoHandInProgress):
                apply(s, action)


def test_extra_cards_are_added_to_the_shoe() -> None:
    """§1.1 REC: ``extra_cards`` adds one copy of each listed card to the packs (``extra_removals`` takes one)."""
    plain = Counter(Rules(deck_count=8).shoe())
    extra: tuple[Card, ...] = cards("7H KS")
    more = Counter(Rules(deck_count=8, extra_cards=extra).shoe())
    assert sum(more.values()) == sum(plain.values()) + 2
    for c in ALL_CARDS:
        assert more[c] == plain[c] + extra.count(c)
