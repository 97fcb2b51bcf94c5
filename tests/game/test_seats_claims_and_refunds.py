"""Seats, claims and refunds in the engine: seating in a taken or missing seat (§6.5), sitting out, withdrawing a
split offer (§7.6), a foul called between hands (§6), single-unit claims, standing before declaring, make-good plays,
and who refunds or pays what when a claimer or a player fouls.

Expected values from RULES.md, docs/rules.md and docs/commands.md, never from the engine's output."""

from __future__ import annotations

import pytest

from pancog.game import (
    ChipReason,
    Claim,
    DeclineSplit,
    Discard,
    Event,
    FoulCall,
    FoulCause,
    GoOnTop,
    IllegalMeld,
    Knock,
    MakeGood,
    NewMeld,
    OfferSplit,
    PlayerStatus,
    Pluck,
    Rules,
    RuleViolation,
    SetAway,
    Sit,
    Stand,
    TableState,
    TakeOption,
    WentOut,
    apply,
    initial_state,
    to_act,
)
from pancog.game._work import Work
from pancog.game.errors import NoHandInProgress, SeatError
from pancog.game.events import AwaySet, CashedOut, Declared, SplitDeclined
from pancog.game.rules import BustOut, ClaimMode, Enforcement, FoulRefunds, NobodyIn, OneLeft
from pancog.game.settlement import collects
from pancog.game.state import Pot
from tests.game.conftest import cards, chips, run, table
from tests.game.test_cases import INERT_A, INERT_B, INERT_C

P0 = "2C 4D 6S JC QD KH AS 3D 7C 2D"
P1 = "5D 5C 2S 4S 6D JD QC KD AC 3C"
P2 = "2H 4C 6C JS QS KS AD 3S 7S 2S"


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


def test_a_claim_of_a_single_unit_is_allowed() -> None:
    """§4.5 (deferred claims): a suited set of 2s pays 1 unit (§4.3); one unit is something to claim, and
    each other player pays it."""
    hand0 = "2D 2D " + " ".join(INERT_A.split()[:8])
    s, _ = run(
        table([hand0, INERT_B, INERT_C], stock="2D", rules=Rules(claim_mode=ClaimMode.DEFERRED)),
        *[Knock(seat=i) for i in range(3)],
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("2D 2D")),
    )
    assert s.hand is not None and s.hand.player(0).unclaimed == 1
    s, ev = run(s, Claim(seat=0))
    assert chips(ev, payer=1, payee=0, reason=ChipReason.CONDITION) == 1
    assert chips(ev, payer=2, payee=0, reason=ChipReason.CONDITION) == 1
    assert s.hand is not None and s.hand.player(0).unclaimed == 0


def test_standing_before_declaring_goes_on_top_and_says_so() -> None:
    """§2.5/§6.5: a player who leaves before declaring is out of the hand like one who went on top: the
    table is told he is not playing, and he is cashed out at once."""
    s = table([INERT_A, INERT_B, INERT_C])
    s, ev = run(s, Stand(seat=0))
    assert [(e.seat, e.playing) for e in ev if isinstance(e, Declared)] == [(0, False)]
    assert [e.seat for e in ev if isinstance(e, CashedOut)] == [0] and s.seats[0] is None


def test_nobody_in_refund_returns_the_doubles_ante_to_the_doubles_player() -> None:
    """§2.5 (nobody_in = refund): when nobody plays, each ante goes back to who paid it; only the doubles
    player anted into the doubles tops (§4.9), so only he gets a doubles refund."""
    r = Rules(allow_doubles=True, nobody_in=NobodyIn.REFUND)
    s = table([INERT_A, INERT_B, INERT_C], rules=r, doubles=[True, False, False])
    s, ev = run(s, *[GoOnTop(seat=i) for i in range(3)])
    assert s.hand is None
    refund = ChipReason.TOPS_REFUND
    assert chips(ev, payer=Pot.DOUBLES, payee=0, reason=refund) == r.ante
    assert chips(ev, payer=Pot.DOUBLES, payee=1, reason=refund) == 0
    assert chips(ev, payer=Pot.DOUBLES, payee=2, reason=refund) == 0
    assert [chips(ev, payer=Pot.SINGLES, payee=i, reason=refund) for i in range(3)] == [r.ante] * 3
    assert [seat.stack for seat in s.seats if seat is not None] == [100, 100, 100]


def test_make_good_with_cards_that_do_not_complete_the_spread_is_refused_plainly() -> None:
    """§6.3 (enforcement = players): the make-good must turn the called spread into a valid meld; cards
    that do not are refused with that reason, and nothing changes."""
    r = Rules(enforcement=Enforcement.PLAYERS)
    s, _ = run(
        table(["5H 5H 5C 2C 4D 6S JC QD KH AS", P1, P2], stock="5D", rules=r),
        *[Knock(seat=i) for i in range(3)],
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("5H 5H")),
        FoulCall(seat=1, target=0, cause=FoulCause.INVALID_MELD),
    )
    with pytest.raises(IllegalMeld, match="do not make the spread a valid meld"):
        apply(s, MakeGood(seat=0, meld=1, cards=cards("2C")))


def test_make_good_with_the_last_card_goes_out() -> None:
    """§6.3 + §4.6: with enforcement = players, an invalid run 4H 5H 7H spread with 6H left in hand is
    made good with the 6H; every spread is then valid and the hand is empty, so the player goes out."""
    r = Rules(enforcement=Enforcement.PLAYERS)
    s, _ = run(
        table(["AC 2C 3C 4D 5D 6D 4H 5H 7H 6H", P1, P2], stock="7D", rules=r),
        *[Knock(seat=i) for i in range(3)],
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("4D 5D 6D")),  # with the plucked 7D
        NewMeld(seat=0, cards=cards("AC 2C 3C")),
        NewMeld(seat=0, cards=cards("4H 5H 7H")),
    )
    assert s.hand is not None and s.hand.player(0).hand == cards("6H")
    s, _ = run(s, FoulCall(seat=1, target=0, cause=FoulCause.INVALID_MELD))
    s, ev = run(s, MakeGood(seat=0, meld=3, cards=cards("6H")))
    assert [e.seat for e in ev if isinstance(e, WentOut)] == [0]
    assert s.hand is None and s.last_hand is not None and s.last_hand.winner == 0


def test_a_condition_made_good_on_the_going_out_turn_counts_for_the_bust_out() -> None:
    """§4.6.4 + §6.3: the condition collections earned on the going-out turn are taken twice. Seat 0
    spreads two runs without conditions and the invalid AC 2C 4C, which is called; he makes it good with
    his last card 3C: a run from the Ace (1 unit), earned on this turn. Each opponent pays it as a
    condition and again as the bust-out."""
    r = Rules(enforcement=Enforcement.PLAYERS, bust_out=BustOut.NEW_OR_ENHANCED)
    s, _ = run(
        table(["4D 5D 6D 4S 5S 6S AC 2C 4C 3C", P1, P2], stock="7D", rules=r),
        *[Knock(seat=i) for i in range(3)],
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("4D 5D 6D")),  # with the plucked 7D
        NewMeld(seat=0, cards=cards("4S 5S 6S")),
        NewMeld(seat=0, cards=cards("AC 2C 4C")),
        FoulCall(seat=1, target=0, cause=FoulCause.INVALID_MELD),
    )
    s, ev = run(s, MakeGood(seat=0, meld=3, cards=cards("3C")))
    assert [e.seat for e in ev if isinstance(e, WentOut)] == [0]
    for payer in (1, 2):
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.CONDITION) == 1
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.BUST_OUT) == 1


def _claimed_then_fouled() -> tuple[TableState, list[Event], list[Event]]:
    """Seat 0 claims his suited set of 2s (1 unit from each, §4.3), then leaves the invalid 4H 5H JH on the
    board after his discard and is called foul by seat 1 (§6.3). Returns the state and the claim's and the
    foul's events."""
    r = Rules(claim_mode=ClaimMode.DEFERRED, enforcement=Enforcement.PLAYERS, foul_refunds=FoulRefunds.PAYERS)
    s, claim_ev = run(
        table(["2D 2D 4H 5H JH 2C 6C QC 3D 7D", INERT_B, INERT_C], stock="2D", rules=r),
        *[Knock(seat=i) for i in range(3)],
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("2D 2D")),
        Claim(seat=0),
    )
    s, _ = run(s, NewMeld(seat=0, cards=cards("4H 5H JH")), Discard(seat=0, card=cards("2C")[0]))
    s, foul_ev = run(s, FoulCall(seat=1, target=0, cause=FoulCause.INVALID_MELD))
    assert s.hand is not None and s.hand.player(0).status is PlayerStatus.FOULED
    return s, claim_ev, foul_ev


def test_a_fouled_claimer_refunds_those_who_paid_his_claim() -> None:
    """§4.5 + §6.3 (foul_refunds = payers): a fouled player refunds everyone who paid him, here the
    1 chip each paid on his deferred claim."""
    _s, claim_ev, foul_ev = _claimed_then_fouled()
    assert [chips(claim_ev, payer=p, payee=0, reason=ChipReason.CONDITION) for p in (1, 2)] == [1, 1]
    assert [chips(foul_ev, payer=0, payee=p, reason=ChipReason.REFUND) for p in (1, 2)] == [1, 1]


def test_a_fouled_player_pays_no_bust_out_in_the_compared_payout() -> None:
    """§4.6.4 / §6.3: fouled players pay everything except the bust-out bonus. What seat 1 would collect
    (the payout compared for a force out, §5.3) for 1 unit plus a bust-out of 1: the fouled seat 0 pays
    1, seat 2 pays 1 + 1."""
    s, _, _ = _claimed_then_fouled()
    assert s.seats[0] is not None and s.seats[0].stack > 2
    w = Work(s, s.seq)
    assert collects(w, 1, 1, bust_out=1) == 1 + 2
    assert collects(w, 1, 1) == 1 + 1


def test_a_player_left_alone_has_no_stale_option_card() -> None:
    """§2.7 + §6.4 (one_left = play out): the option card is the previous player's unused pluck. Seat 0's
    last pluck QH goes to seat 1 as his option; seat 0 then leaves and seat 1 plays out alone. After seat 1
    plucks and throws away a card of his own there is no previous player, so no option card to take."""
    s, _ = run(
        table([INERT_A, INERT_B], stock="KH QH 2H JH", rules=Rules(one_left=OneLeft.PLAY_OUT)),
        Knock(seat=0),
        Knock(seat=1),
        Pluck(seat=0),
        Discard(seat=0),
        Pluck(seat=0),  # the first player's double draw
        Discard(seat=0),
    )
    assert s.hand is not None and s.hand.option == cards("QH")[0] and s.hand.option_from == 0
    s, _ = run(s, Stand(seat=0))
    assert s.hand is not None and to_act(s) == 1
    s, _ = run(s, Pluck(seat=1), Discard(seat=1))
    assert s.hand is not None and to_act(s) == 1 and s.hand.option is None
    with pytest.raises(RuleViolation):
        apply(s, TakeOption(seat=1))
