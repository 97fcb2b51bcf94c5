"""Who may do what (pancog/game/legality.py): the option card's plays (§2.7, G9), forcing (§5.2, §5.3), who may
call a foul or answer a split (§6, §7.6), what the first seat sees (§2.4), the shoe's extra cards (§1.1).

Expected values from RULES.md, never from the engine's output."""

from __future__ import annotations

from collections import Counter

import pytest

from pancog.game import (
    AcceptSplit,
    AddToMeld,
    DeclineSplit,
    Discard,
    FloorFoul,
    Force,
    FoulCall,
    FoulCause,
    Knock,
    NewMeld,
    Pluck,
    Rules,
    TableState,
    TakeOption,
    apply,
    initial_state,
    legal_actions,
    observe,
    to_act,
)
from pancog.game.cards import ALL_CARDS, Card
from pancog.game.errors import ForceRefused, NoCause, NoHandInProgress, OptionRefused
from pancog.game.notation import replay
from pancog.game.rules import Enforcement, OneLeft
from pancog.game.state import Step
from tests.game.conftest import cards, run, table
from tests.game.test_cases import _flat_seat0

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


def test_a_table_made_without_an_id_is_table_0() -> None:
    """An empty table built without an id is the state's default table 0, the same as a replay from nothing."""
    rules = Rules()
    empty = initial_state(rules)
    assert empty.table_id == 0
    assert empty == TableState(rules=rules, seats=(None,) * rules.max_players)
    assert empty == replay(rules, ())[0]


def test_no_out_card_force_when_its_discarder_cannot_go_out_with_it() -> None:
    """§5.3 case 2 needs the same card to put two players out. Three in action, option lay-offs off (G9):
    seat 2 plucks 7H, which would make him 7H 7H 7H (a rich condition) but not put him out (he holds ten
    cards), and discards it; flat seat 0 cannot take it as his option card (no hand card for a new meld),
    so the discard is not an out-card given away. It lays off on seat 0's run 4H 5H 6H and would put him
    out: no case of §5.3 holds (not declined by him, one player out with it, not head-up), so seat 1 may
    not force it on him."""
    rules = Rules(going_out_units=2, option_card_layoff=False)
    s = _flat_seat0(f"{JUNK} 7H", rules=rules, others=(INERT_B, "2C 6C QC 3D 7H KD 7H JH AS 5S"))
    s, _ = run(s, Pluck(seat=1), Discard(seat=1), Pluck(seat=2), Discard(seat=2))
    assert s.hand is not None and s.hand.option == cards("7H")[0] and s.hand.option_from == 2
    assert to_act(s) == 0
    assert not any(isinstance(a, Force) for a in legal_actions(s, 1))
    with pytest.raises(ForceRefused, match="no card you can force"):
        apply(s, Force(seat=1))


def test_one_forced_back_play_at_a_time() -> None:
    """§5.2: a discard that fits its discarder's own meld may be forced back until two players have drawn
    behind it; the discarder lays it off and discards again, and the turn goes back to the player whose turn
    it was. Seat 0 discards 7H (fits his 4H 5H 6H), seat 1 discards 7S (fits his 4S 5S 6S); seat 2, who
    has not drawn, forces 7H back on seat 0. While seat 0 plays it, no other force is made; once he has
    discarded, seat 2's turn is back and he may still force 7S back on seat 1."""
    s = table(
        ["4H 5H 7H 2C 6C QC 3D 7D KD AS", "4S 5S 7S 3C 7C KC 4D JD AH QS", "4C JC AD 5D 2H 6H QH 3S JS KS"],
        stock=f"6H 6S {JUNK} {JUNK}",
    )
    s, _ = run(
        s,
        *[Knock(seat=i) for i in range(3)],
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("4H 5H")),
        Discard(seat=0, card=cards("7H")[0]),
        Pluck(seat=1),
        NewMeld(seat=1, cards=cards("4S 5S")),
        Discard(seat=1, card=cards("7S")[0]),
    )
    assert {a for a in legal_actions(s, 2) if isinstance(a, Force)} == {
        Force(seat=2, target=0, card=cards("7H")[0]),
        Force(seat=2, target=1, card=cards("7S")[0]),
    }
    s, _ = run(s, Force(seat=2, target=0, card=cards("7H")[0]))
    assert s.hand is not None and s.hand.turn is not None and s.hand.turn.seat == 0
    assert not any(isinstance(a, Force) for a in legal_actions(s, 2))
    with pytest.raises(ForceRefused, match="no card you can force"):
        apply(s, Force(seat=2, target=1))
    s, _ = run(s, AddToMeld(seat=0, meld=s.hand.players[0].melds[0].id), Discard(seat=0, card=cards("2C")[0]))
    assert s.hand is not None and s.hand.turn is not None
    assert (s.hand.turn.seat, s.hand.turn.step) == (2, Step.DRAW)
    s, _ = run(s, Force(seat=2, target=1, card=cards("7S")[0]))
    assert s.hand is not None and s.hand.turn is not None and s.hand.turn.seat == 1


def _eight_on_board_beside_an_invalid_spread(rules: Rules, stock: str):
    """enforcement = players: seat 0 melds 2H 3H 4H 5H 6H and the invalid spread AS 2S 4S (nobody calls it)
    and keeps AH AH: eight on the board, two in hand."""
    s = table(
        ["2H 3H 4H 5H AS 2S 4S AH AH QC", INERT_B, "4C JC 7D 5D 2H 6H QH 3S 7S KS"],
        stock=f"6H {stock}",
        rules=rules,
    )
    s, _ = run(
        s,
        *[Knock(seat=i) for i in range(3)],
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("2H 3H 4H 5H")),
        NewMeld(seat=0, cards=cards("AS 2S 4S")),
        Discard(seat=0, card=cards("QC")[0]),
    )
    assert s.hand is not None and s.hand.players[0].hand == cards("AH AH")
    return s


def test_no_option_card_that_could_only_put_him_out_beside_an_invalid_spread() -> None:
    """§2.7: the option card is taken only if it can be melded at once; nobody goes out with a spread that is
    not valid (docs/rules.md, going out). Seat 2's unused pluck AD would make AH AH AD, which empties seat 0's
    hand beside his invalid AS 2S 4S, and lays off nowhere: he may not take it (and plucks instead)."""
    rules = Rules(enforcement=Enforcement.PLAYERS, going_out_units=2)
    s = _eight_on_board_beside_an_invalid_spread(rules, f"{JUNK} AD {JUNK}")
    s, _ = run(s, Pluck(seat=1), Discard(seat=1), Pluck(seat=2), Discard(seat=2))
    assert s.hand is not None and s.hand.option == cards("AD")[0] and to_act(s) == 0
    assert not any(isinstance(a, TakeOption) for a in legal_actions(s, 0))
    with pytest.raises(OptionRefused, match="only if you can meld it at once"):
        apply(s, TakeOption(seat=0))
    s, _ = run(s, Pluck(seat=0))
    assert s.hand is not None and s.hand.turn is not None and s.hand.turn.step is Step.DRAWN


def test_playing_alone_a_card_that_could_only_put_him_out_beside_an_invalid_spread_is_discarded() -> None:
    """§6.4: the last player in action plays out alone, using every card that can be used; a card whose only
    meld would put him out beside a spread that is not valid cannot be used, so he discards it. The floor
    fouls seats 1 and 2; seat 0 (AH AH in hand, AS 2S 4S invalid) plucks AD."""
    rules = Rules(enforcement=Enforcement.PLAYERS, going_out_units=2, one_left=OneLeft.PLAY_OUT)
    s = _eight_on_board_beside_an_invalid_spread(rules, f"AD {JUNK}")
    s, _ = run(s, FloorFoul(target=1), FloorFoul(target=2), Pluck(seat=0))
    assert s.hand is not None and s.hand.solo and s.hand.turn is not None and s.hand.turn.drawn == cards("AD")[0]
    assert legal_actions(s, 0) == (Discard(seat=0),)
    s, _ = run(s, Discard(seat=0))
    assert s.hand is not None and s.hand.players[0].hand == cards("AH AH")
