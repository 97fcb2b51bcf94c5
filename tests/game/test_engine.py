"""One test per rule: hand flow, draws, forcing, fouls, settlement (RULES.md §10 and beyond)."""

from __future__ import annotations

import pytest

from pancog.game import (
    AcceptSplit,
    AddToMeld,
    Borrow,
    ChipReason,
    ChipsMoved,
    Discard,
    FloorFoul,
    Force,
    FoulCall,
    FoulCause,
    GoOnTop,
    HandEnded,
    IllegalMeld,
    Knock,
    MakeGood,
    NewMeld,
    OfferSplit,
    PlayerStatus,
    Pluck,
    Rules,
    RuleViolation,
    Sit,
    Stand,
    StartHand,
    TakeOption,
    Timeout,
    apply,
    call_outs,
    can,
    initial_state,
    legal_actions,
    observe,
    to_act,
)
from pancog.game.events import CashedOut, WentOut
from pancog.game.rules import Enforcement
from pancog.game.state import EndReason, Step
from tests.game.conftest import cards, run, table

P0 = "2C 4D 6S JC QD KH AS 3D 7C 2D"
P1 = "5D 5C 2S 4S 6D JD QC KD AC 3C"
P2 = "2H 4C 6C JS QS KS AD 3S 7S 2S"

# RULES.md's worked cases count the 2 going-out units of its §4.6 REC (the classic and online presets); the
# california preset pays none since issue 13, so these cases name the option.
TWO_UNITS = Rules(going_out_units=2)


def knock_all(s, n=3):
    return run(s, *[Knock(seat=i) for i in range(n)])


def chips_to(events, payee, reason=ChipReason.CONDITION):
    return sum(e.amount for e in events if isinstance(e, ChipsMoved) and e.payee == payee and e.reason is reason)


def test_option_card_take_and_meld() -> None:
    """§10 case 43: an unused pluck is the next player's option card; melding it collects from each player."""
    s, _ = knock_all(table([P0, P1, P2], stock="KC 5H"))
    s, _ = run(s, Pluck(seat=0), Discard(seat=0), Pluck(seat=0), Discard(seat=0))
    assert s.hand.option == cards("5H")[0]
    s, ev = run(s, TakeOption(seat=1), NewMeld(seat=1, cards=cards("5D 5C")))
    assert chips_to(ev, 1) == 2
    with pytest.raises(RuleViolation, match="already drawn"):
        apply(s, Pluck(seat=1))
    s, _ = run(s, Discard(seat=1, card=cards("2S")[0]))
    assert to_act(s) == 2


def test_double_draw_only_first_turn() -> None:
    """§10 case 48: the first player may pluck again after discarding an unused first pluck; nobody else."""
    s, _ = knock_all(table([P0, P1, P2], stock="KC QH 2H"))
    s, _ = run(s, Pluck(seat=0), Discard(seat=0))
    assert to_act(s) == 0 and s.hand.turn.step is Step.DRAW
    s, _ = run(s, Pluck(seat=0), Discard(seat=0))
    assert to_act(s) == 1
    s, _ = run(s, Pluck(seat=1), Discard(seat=1))
    assert to_act(s) == 2


def test_option_refused_when_discarded_from_hand() -> None:
    """§10 case 44: a card discarded from the hand is never an option card."""
    s, _ = knock_all(table(["5H 5H 2C 4D 6S JC QD KH AS 3D", P1, P2], stock="5H"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5H 5H")), Discard(seat=0, card=cards("2C")[0]))
    assert s.hand.option is None
    with pytest.raises(RuleViolation, match="no option card for you"):
        apply(s, TakeOption(seat=1))


def test_option_must_meld() -> None:
    """§10 case 46: the option card is refused when it can't be melded at once."""
    s, _ = knock_all(table([P0, P1, P2], stock="KC QH"))
    s, _ = run(s, Pluck(seat=0), Discard(seat=0), Pluck(seat=0), Discard(seat=0))
    with pytest.raises(RuleViolation) as exc:
        apply(s, TakeOption(seat=1))
    assert exc.value.code == "option_refused"


def test_no_meld_without_hit() -> None:
    """§10 cases 41, 47: no melding or borrowing before a hit; a pluck can't go into the hand."""
    s, _ = knock_all(table(["5H 5H 5H 2C 4D 6S JC QD KH AS", P1, P2], stock="KC"))
    with pytest.raises(RuleViolation, match="Draw first"):
        apply(s, NewMeld(seat=0, cards=cards("5H 5H 5H")))
    s, _ = run(s, Pluck(seat=0))
    with pytest.raises(IllegalMeld):  # the plucked KC would have to join the meld
        apply(s, NewMeld(seat=0, cards=cards("5H 5H 5H")))
    with pytest.raises(RuleViolation, match="only discard the card you drew"):
        apply(s, Discard(seat=0, card=cards("2C")[0]))


def test_split_by_adding_direct() -> None:
    """§10 cases 32, 34 on a prepared board."""
    s, _ = knock_all(table(["JH 7H 6H 4H 2C 4D JC QD KS AS", P1, P2], stock="5H KC KC QH"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("JH 7H 6H")), Discard(seat=0, card=cards("2C")[0]))
    s, _ = run(s, Pluck(seat=1), Discard(seat=1), Pluck(seat=2), Discard(seat=2), Pluck(seat=0))
    assert s.hand.turn.drawn == cards("QH")[0]
    bad = AddToMeld(seat=0, meld=1, cards=(), split=cards("5H 6H"))
    assert not can(s, bad)
    assert can(s, AddToMeld(seat=0, meld=1, cards=cards("4H"), split=cards("4H 5H 6H")))
    good = AddToMeld(seat=0, meld=1, cards=cards("4H"), split=cards("7H JH QH"))
    assert good in legal_actions(s, 0)
    s, ev = run(s, good)
    assert [m.cards for m in s.hand.players[0].melds] == [cards("4H 5H 6H"), cards("7H JH QH")]
    assert chips_to(ev, 0) == 0


def test_borrow_needs_valid_rest_and_own_melds() -> None:
    """§10 cases 36, 42: a borrow must leave a valid meld; cards never go on an opponent's meld."""
    s, _ = knock_all(table(["4H 5H 6H 2C 4D JC QD KS AS 3D", "7H 2S 4S 6D JD QC KD AC 3C 5C", P2], stock="7H 7H"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5H 6H")), Discard(seat=0, card=cards("2C")[0]))
    s, _ = run(s, Pluck(seat=1))
    assert not can(s, AddToMeld(seat=1, meld=1, cards=()))  # seat 1 has no meld 1 of its own
    assert not can(s, Borrow(seat=1, cards=cards("7H"), taken=((1, cards("6H")[0]),)))


def test_declaration_change_window() -> None:
    """§10 case 52: a declaration may change until the next player declares."""
    s = table([P0, P1, P2])
    s, _ = run(s, GoOnTop(seat=0), Knock(seat=0))
    s, _ = run(s, Knock(seat=1))
    with pytest.raises(RuleViolation) as exc:
        apply(s, GoOnTop(seat=0))
    assert exc.value.code == "declaration_closed"
    s, _ = run(s, Knock(seat=2), GoOnTop(seat=2))  # last player: until the first pluck
    s, _ = run(s, Knock(seat=2), Pluck(seat=0))
    assert not can(s, GoOnTop(seat=2))


def test_lone_player_takes_tops() -> None:
    """§10 case 54: everyone else goes on top; the one player in takes the tops and nothing else."""
    s = table([P0, P1, P2, P0, P1])
    assert s.singles_tops == 5
    s, ev = run(s, GoOnTop(seat=0), GoOnTop(seat=1), GoOnTop(seat=2), GoOnTop(seat=3), Knock(seat=4))
    assert s.hand is None and s.seats[4].stack == 104 and s.singles_tops == 0
    assert any(isinstance(e, HandEnded) and e.reason is EndReason.LONE for e in ev)


def test_nobody_in_carries_tops() -> None:
    """G7: if nobody plays, the tops carry over."""
    s = table([P0, P1])
    s, _ = run(s, GoOnTop(seat=0), GoOnTop(seat=1))
    assert s.hand is None and s.singles_tops == 2


def test_condition_payment_five_players() -> None:
    """§10 case 63: 5S 5S 5S collects 4 from each of 4 others."""
    hands = ["5S 5S 2C 4D 6S JC QD KH AS 3D", P1, P2, P1, P2]
    s, _ = run(table(hands, stock="5S"), *[Knock(seat=i) for i in range(5)])
    s, ev = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S")))
    assert chips_to(ev, 0) == 16


def test_force_back_until_two_draws() -> None:
    """§10 cases 58, 59: a discard that fits the discarder's board is forced back until two draws behind."""
    p0 = "4H 5H 2C 4D 6S JC QD KH AS 7H"
    s, _ = knock_all(table([p0, P1, P2], stock="6H KC KC KC KC"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("4H 5H")), Discard(seat=0, card=cards("7H")[0]))
    assert Force(seat=2, target=0, card=cards("7H")[0]) in legal_actions(s, 2)
    s, _ev = run(s, Force(seat=2, target=0))
    assert to_act(s) == 0 and s.hand.turn.forced_back
    s, _ = run(s, AddToMeld(seat=0, meld=1), Discard(seat=0, card=cards("2C")[0]))
    assert to_act(s) == 1 and s.hand.players[0].melds[0].cards == cards("4H 5H 6H 7H")
    # the 2C fits nothing; a later discard expires after two draws
    s, _ = run(s, Pluck(seat=1), Discard(seat=1), Pluck(seat=2), Discard(seat=2))
    assert all(fb.owner != 0 for fb in s.hand.force_backs)


def test_going_out_pays_outs_units_and_tops() -> None:
    """§10 case 64/66: going out collects outs + 2 units per opponent, and the tops."""
    p0 = "JS QS KS 4D 4C 4S 2H 3H 4H 7C"
    s, _ = knock_all(table([p0, P1, P2], stock="5H", rules=TWO_UNITS))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("2H 3H 4H")))
    s, _ = run(s, NewMeld(seat=0, cards=cards("JS QS KS")), NewMeld(seat=0, cards=cards("4D 4C 4S")))
    assert call_outs(s, 0) == 2 * (2 + 2)  # outs 2 (JS QS KS) + 2 units, from 2 players
    assert len(s.hand.players[0].hand) == 1


def test_table_stakes_bust() -> None:
    """§10 case 68: a short payer pays what he has, reaches 0 and is busted (dead hand)."""
    hands = ["5S 5S 2C 4D 6S JC QD KH AS 3D", P1, P2]
    s = table(hands, stock="5S", stacks=[100, 100, 3], rules=Rules(min_buyin_chips=1))
    s, _ = knock_all(s)
    s, ev = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S")))
    assert s.seats[2].stack == 0 and s.hand.players[2].status is PlayerStatus.BUSTED
    assert chips_to(ev, 0) == 4 + 2


def test_doubles_tops_carry_for_singles_winner() -> None:
    """§10 case 71 and §4.7: doubles ante twice; a singles lone winner leaves the doubles tops."""
    s = table([P0, P1, P2], doubles=[True, False, True])
    assert s.singles_tops == 3 and s.doubles_tops == 2
    s, _ = run(s, GoOnTop(seat=0), Knock(seat=1), GoOnTop(seat=2))
    assert s.doubles_tops == 2 and s.singles_tops == 0


def test_doubles_pair_rate() -> None:
    """§4.7: payments between two doubles players are doubled; with a singles player, single."""
    hands = ["5S 5S 2C 4D 6S JC QD KH AS 3D", P1, P2]
    s, _ = knock_all(table(hands, stock="5S", doubles=[True, True, False]))
    s, ev = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S")))
    paid = {e.payer: e.amount for e in ev if isinstance(e, ChipsMoved) and e.reason is ChipReason.CONDITION}
    assert paid == {1: 8, 2: 4}


def test_foul_refunds_and_liability() -> None:
    """§6.3: a fouled player refunds his collections and stays liable."""
    hands = ["5S 5S 2C 4D 6S JC QD KH AS 3D", P1, P2]
    s, _ = knock_all(table(hands, stock="5S", stacks=[100, 100, 100]))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S")), Discard(seat=0, card=cards("2C")[0]))
    s, ev = run(s, FloorFoul(target=0))
    assert s.hand.players[0].status is PlayerStatus.FOULED
    assert chips_to(ev, 1, ChipReason.REFUND) == 4 and chips_to(ev, 2, ChipReason.REFUND) == 4
    with pytest.raises(RuleViolation) as exc:
        apply(s, FoulCall(seat=1, target=2, cause=FoulCause.ABANDONED))
    assert exc.value.code == "no_cause"


def test_abandon_foul_after_timeouts() -> None:
    """§6.5: a player who keeps timing out may be called foul for abandoning the hand."""
    s, _ = knock_all(table([P0, P1, P2], stock="KC KC KC KC KC KC KC KC KC"))
    s, _ = run(s, Timeout(seat=0))
    assert to_act(s) == 1
    s, _ = run(s, Timeout(seat=1), Timeout(seat=2), Timeout(seat=0))
    s, _ = run(s, FoulCall(seat=1, target=0, cause=FoulCause.ABANDONED))
    assert s.hand.players[0].status is PlayerStatus.FOULED


def test_split_tops_and_marriage() -> None:
    """§7.6: the last two may split the tops; the odd chip carries; they are married."""
    s, _ = run(table([P0, P1, P2]), GoOnTop(seat=0), Knock(seat=1), Knock(seat=2))
    s, _ev = run(s, OfferSplit(seat=1), AcceptSplit(seat=2))
    assert s.hand is None and s.singles_tops == 1
    assert s.married == ((1001, 1002),)


def test_stand_mid_hand_quits_and_cashes_out_after() -> None:
    """§6.5: leaving mid-hand kills the hand but keeps paying to the end; the cash-out comes when the hand ends."""
    from pancog.game.rules import OneLeft

    hands = ["5S 5S 2C 4D 6S JC QD KH AS 3D", P1, P2, P0]
    s, _ = knock_all(table(hands, stock="5S", rules=Rules(one_left=OneLeft.SETTLE_NOW)), 4)
    s, ev = run(s, Stand(seat=3))
    assert s.hand.players[3].status is PlayerStatus.QUIT and s.seats[3].leaving
    assert not any(isinstance(e, CashedOut) for e in ev) and s.hand.players[3].hand == ()
    s, ev = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S")))
    assert chips_to(ev, 0) == 3 * 4  # the quitter pays too
    s, ev = run(s, FloorFoul(target=1), FloorFoul(target=2))
    assert s.hand is None and s.last_hand.winner == 0  # one left: settled at once (outs 4, no units)
    assert sum(e.amount for e in ev if isinstance(e, ChipsMoved) and e.payer == 3 and e.reason is ChipReason.OUTS) == 4
    cashed = [e for e in ev if isinstance(e, CashedOut)]
    assert [e.seat for e in cashed] == [3] and s.seats[3] is None


def test_make_it_good() -> None:
    """§6.3 enforcement=players: an invalid spread called during the turn must be made good."""
    r = Rules(enforcement=Enforcement.PLAYERS)
    s, _ = knock_all(table(["5H 5H 5C 2C 4D 6S JC QD KH AS", P1, P2], stock="5D", rules=r))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5H 5H")))
    assert not s.hand.players[0].melds[0].valid
    with pytest.raises(RuleViolation, match="own hand foul"):
        apply(s, FoulCall(seat=0, target=0, cause=FoulCause.INVALID_MELD))
    s, _ = run(s, FoulCall(seat=1, target=0, cause=FoulCause.INVALID_MELD))
    assert s.hand.make_good == (0, 1) and to_act(s) == 0
    assert not can(s, Discard(seat=0, card=cards("2C")[0]))
    s, ev = run(s, MakeGood(seat=0, meld=1, cards=cards("5C")))
    assert s.hand.players[0].melds[0].valid and chips_to(ev, 0) == 2  # C1 = 1 from each


def test_invalid_spread_after_discard_is_foul() -> None:
    """§6.3: an invalid spread still on the board after the discard is a foul when called."""
    r = Rules(enforcement=Enforcement.PLAYERS)
    s, _ = knock_all(table(["5H 5H 5C 2C 4D 6S JC QD KH AS", P1, P2], stock="5D", rules=r))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5H 5H")), Discard(seat=0, card=cards("2C")[0]))
    s, _ = run(s, FoulCall(seat=2, target=0, cause=FoulCause.INVALID_MELD))
    assert s.hand.players[0].status is PlayerStatus.FOULED


def test_upcard_start() -> None:
    """G4 classic: the upcard may be taken by the first player only if it melds at once."""
    r = Rules.preset("classic")
    s = initial_state(r)
    for i in range(2):
        s = apply(s, Sit(player_id=i + 1, buy_in=40, seat=i)).state
    from tests.game.conftest import stacked_shoe

    shoe = stacked_shoe(["5D 5C 2S 4S 6D JD QC KD AC 3C", P0], stock="5H KC")
    s, _ev = run(s, StartHand(shoe=shoe, first_seat=0), Knock(seat=0), Knock(seat=1))
    assert s.hand.option == cards("5H")[0]
    s, _ = run(s, TakeOption(seat=0), NewMeld(seat=0, cards=cards("5D 5C")))
    assert s.hand.turn.step is Step.MELDING


def test_observation_hides_other_hands() -> None:
    """observe() holds only the seat's own hand and public information."""
    s, _ = knock_all(table([P0, P1, P2]))
    o = observe(s, 1)
    assert o.hand == s.hand.players[1].hand
    assert all(not hasattr(v, "hand") for v in o.players)
    assert o.stock_count == len(s.hand.stock)


def test_going_out_full_settlement() -> None:
    """§4.6 worked case: going out on a condition pays it, the bust-out bonus, the outs, 2 units and the tops."""
    p0 = "JS QS 2H 3H 4H 5H 6H 4D 4C 4S"
    s, _ = knock_all(table([p0, P1, P2], stock="KS", rules=TWO_UNITS))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("JS QS")), NewMeld(seat=0, cards=cards("2H 3H 4H 5H 6H")))
    s, ev = run(s, NewMeld(seat=0, cards=cards("4D 4C 4S")))
    assert s.hand is None and s.last_hand.winner == 0
    went = [e for e in ev if isinstance(e, WentOut)]
    assert went and went[0].outs_units == 2 and went[0].bust_out_units == 2
    for payer in (1, 2):
        got = {e.reason: e.amount for e in ev if isinstance(e, ChipsMoved) and e.payer == payer and e.payee == 0}
        assert got == {ChipReason.BUST_OUT: 2, ChipReason.OUTS: 2, ChipReason.GOING_OUT: 2}
    assert s.seats[0].stack == 99 + 2 * 2 + 2 * 6 + 3


def test_going_out_units_zero() -> None:
    """§10 case 66: going_out_units = 0 pays only the outs (and the bust-out)."""
    p0 = "JS QS 2H 3H 4H 5H 6H 4D 4C 4S"
    s, _ = knock_all(table([p0, P1, P2], stock="KS", rules=Rules(going_out_units=0)))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("JS QS")), NewMeld(seat=0, cards=cards("2H 3H 4H 5H 6H")))
    s, ev = run(s, NewMeld(seat=0, cards=cards("4D 4C 4S")))
    assert chips_to(ev, 0, ChipReason.GOING_OUT) == 0 and chips_to(ev, 0, ChipReason.OUTS) == 4


def test_discarding_an_unheld_card_says_so_first() -> None:
    """#18 item 3: a card the player does not hold is named as such before any rule on what may be discarded."""
    s, _ = knock_all(table(["5H 5H 5H 2C 4D 6S JC QD KH AS", P1, P2], stock="KC"))
    with pytest.raises(RuleViolation, match="You don't hold QS"):  # before the draw
        apply(s, Discard(seat=0, card=cards("QS")[0]))
    s, _ = run(s, Pluck(seat=0))
    with pytest.raises(RuleViolation, match="You don't hold QS"):  # drawn, no hit yet
        apply(s, Discard(seat=0, card=cards("QS")[0]))
    with pytest.raises(RuleViolation, match="only discard the card you drew"):  # held: the rule applies
        apply(s, Discard(seat=0, card=cards("2C")[0]))
    after, _ = run(s, Discard(seat=0, card=cards("KC")[0]))  # the drawn card itself may go
    assert after.seq == s.seq + 1


def test_dealt_cards_are_visible_to_their_owner_only() -> None:
    """A hand is private (§2.4: each player looks at his own hand); the public events are for every seat and
    for spectators (None)."""
    from pancog.game import CardsDealt, HandStarted

    s = initial_state(Rules())
    for i in range(3):
        s = apply(s, Sit(player_id=i + 1, buy_in=20)).state
    events = apply(s, StartHand(seed=1)).events
    dealt = [e for e in events if isinstance(e, CardsDealt)]
    assert [e.private_to for e in dealt] == [e.seat for e in dealt] and len(dealt) == 3
    for e in dealt:
        assert [e.visible_to(v) for v in (0, 1, 2, None)] == [v == e.seat for v in (0, 1, 2, None)]
    started = next(e for e in events if isinstance(e, HandStarted))
    assert all(started.visible_to(v) for v in (0, 1, 2, None))


def test_observation_between_hands_has_no_hand_state() -> None:
    """Between hands nobody plays alone (§6.4 solo play is a state of a hand), nothing is to act or on offer."""
    from pancog.game import observe

    s = initial_state(Rules())
    for i in range(2):
        s = apply(s, Sit(player_id=i + 1, buy_in=20)).state
    obs = observe(s, 0)
    assert (obs.solo, obs.phase, obs.to_act, obs.option, obs.make_good, obs.stock_count) == (
        False,
        None,
        None,
        None,
        None,
        0,
    )
