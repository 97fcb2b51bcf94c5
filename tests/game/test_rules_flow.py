"""One test per rule beyond the §10 cases: declarations, draws, forcing modes, the §7.2 worked example,
stock exhaustion, splitting the tops, fouls, timeouts, and what the legal-actions menu lists."""

from __future__ import annotations

import pytest

from pancog.game import (
    AcceptSplit,
    AddToMeld,
    Borrow,
    CardPlucked,
    ChipReason,
    ChipsMoved,
    Declared,
    DeclineSplit,
    Discard,
    Discarded,
    FloorFoul,
    Force,
    GoOnTop,
    HandEnded,
    HandFouled,
    Knock,
    Melded,
    NewMeld,
    OfferSplit,
    OptionTaken,
    PlayerStatus,
    Pluck,
    Pot,
    Rebuy,
    Rules,
    RuleViolation,
    Sit,
    StartHand,
    StockReshuffled,
    TakeOption,
    TimedOut,
    Timeout,
    WentOut,
    apply,
    can,
    declaration_window,
    initial_state,
    legal_actions,
    to_act,
)
from pancog.game._work import Work as _Work
from pancog.game.actions import Stand
from pancog.game.events import MeldPlayKind
from pancog.game.rules import ForceMode, FoulRefunds, OddChip, StockExhausted
from pancog.game.settlement import payout_with as _payout_with
from pancog.game.state import EndReason, Step
from tests.game.conftest import cards, chips, of_type, run, stacked_shoe, table
from tests.game.test_cases import INERT_A, INERT_B, INERT_C, JUNK, _flat_seat0, card, junk_turns, knock

# RULES.md's worked cases count the 2 going-out units of its §4.6 REC (the classic and online presets); the
# california preset pays none since issue 13, so these cases name the option.
TWO_UNITS = Rules(going_out_units=2)


# --- declarations ------------------------------------------------------------------------------


def test_last_declarer_may_change_until_the_first_pluck() -> None:
    """§2.5 G8: the last player may change his declaration until the first card is drawn."""
    s = table([INERT_A, INERT_B, INERT_C], stock=JUNK)
    s, _ = run(s, Knock(seat=0), Knock(seat=1), Knock(seat=2))
    assert s.hand.phase.value == "playing"
    s, ev = run(s, GoOnTop(seat=2))
    assert [(e.seat, e.playing, e.changed) for e in of_type(ev, Declared)] == [(2, False, True)]
    s, _ = run(s, Knock(seat=2), Pluck(seat=0))
    with pytest.raises(RuleViolation) as exc:
        apply(s, GoOnTop(seat=2))
    assert exc.value.code == "declaration_closed"
    assert not can(s, GoOnTop(seat=1))  # not the last declarer


def test_declaration_window_says_who_closes_it() -> None:
    """§2.5: what a declarer may still change, and whose declaration closes it (the panel says "until bob
    declares"); the last to declare keeps it until the first card is drawn; each window is listed as a legal
    action exactly while it is open."""
    s = table([INERT_A, INERT_B, INERT_C], stock=JUNK)
    assert declaration_window(s, 0) is None  # not declared yet
    s, _ = run(s, Knock(seat=0))
    window = declaration_window(s, 0)
    assert window is not None and window.playing and window.until == 1
    assert GoOnTop(seat=0) in legal_actions(s, 0) and Knock(seat=0) not in legal_actions(s, 0)
    s, _ = run(s, GoOnTop(seat=0))
    window = declaration_window(s, 0)
    assert window is not None and not window.playing and window.until == 1
    s, _ = run(s, Knock(seat=0), Knock(seat=1))
    assert declaration_window(s, 0) is None and GoOnTop(seat=0) not in legal_actions(s, 0)
    window = declaration_window(s, 1)
    assert window is not None and window.until == 2
    s, _ = run(s, GoOnTop(seat=2))
    window = declaration_window(s, 2)
    assert window is not None and not window.playing and window.until is None  # the last: until the first pluck
    assert Knock(seat=2) in legal_actions(s, 2)
    s, _ = run(s, Pluck(seat=0))
    assert declaration_window(s, 2) is None and Knock(seat=2) not in legal_actions(s, 2)


def test_a_player_who_leaves_before_his_turn_closes_no_window() -> None:
    """§2.5: the window closes when the next player *declares*; one who left the table before his turn to declare
    went on top without declaring, so the window stays open until the next one who does."""
    s = table([INERT_A, INERT_B, INERT_C], stock=JUNK)
    s, _ = run(s, Stand(seat=1), Knock(seat=0))
    window = declaration_window(s, 0)
    assert window is not None and window.until == 2
    s, ev = run(s, GoOnTop(seat=0))
    assert [(e.seat, e.playing, e.changed) for e in of_type(ev, Declared)] == [(0, False, True)]
    s, _ = run(s, Knock(seat=0), Knock(seat=2))
    assert declaration_window(s, 0) is None
    window = declaration_window(s, 2)
    assert window is not None and window.until is None  # seat 2 declared last


def test_leaving_in_turn_to_declare_closes_the_window() -> None:
    """Leaving the table in one's turn to declare is that player's declaration: the previous window closes."""
    s = table([INERT_A, INERT_B, INERT_C], stock=JUNK)
    s, _ = run(s, Knock(seat=0), Stand(seat=1))
    assert declaration_window(s, 0) is None
    with pytest.raises(RuleViolation, match="only until the next player declares"):
        apply(s, GoOnTop(seat=0))


def test_retire_forfeit_is_charged_and_given_back() -> None:
    """G6: retire_forfeit_chips is paid into the tops on going on top and returned if the player changes to in."""
    s = table([INERT_A, INERT_B, INERT_C], rules=Rules(retire_forfeit_chips=2))
    s, ev = run(s, GoOnTop(seat=0))
    assert chips(ev, payer=0, payee=Pot.SINGLES, reason=ChipReason.FORFEIT) == 2 and s.singles_tops == 5
    s, ev = run(s, Knock(seat=0))
    assert chips(ev, payer=Pot.SINGLES, payee=0, reason=ChipReason.FORFEIT_BACK) == 2 and s.singles_tops == 3


def test_nobody_in_refund_option() -> None:
    """G7 option: with nobody_in=refund the antes go back."""
    from pancog.game.rules import NobodyIn

    s = table([INERT_A, INERT_B], rules=Rules(nobody_in=NobodyIn.REFUND))
    s, ev = run(s, GoOnTop(seat=0), GoOnTop(seat=1))
    assert s.singles_tops == 0 and chips(ev, reason=ChipReason.TOPS_REFUND) == 2
    assert of_type(ev, HandEnded)[0].reason is EndReason.NOBODY


# --- the draw ------------------------------------------------------------------------------------


def test_double_draw_not_after_a_used_first_pluck() -> None:
    """G5: if the first pluck is used there is no second pluck: the turn ends with a hand discard."""
    s = knock(table(["5H 5D 2C 6C QC 3D KD AS JC 7D", INERT_B, INERT_C], stock=f"5C {JUNK}"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5H 5D")))
    assert s.hand.turn.step is Step.MELDING and Pluck(seat=0) not in legal_actions(s, 0)
    s, _ = run(s, Discard(seat=0, card=card("2C")))
    assert to_act(s) == 1 and s.hand.turn.step is Step.DRAW


def test_upcard_start_classic() -> None:
    """G4 classic: an upcard starts the discards; the first player may take it only if it melds; no double draw."""
    r = Rules.preset("classic")
    s = initial_state(r)
    for i in range(2):
        s = apply(s, Sit(player_id=i + 1, buy_in=40, seat=i)).state
    shoe = stacked_shoe(["5D 5C 2C 6C QC 3D KD AS JC 7D", INERT_B], stock=f"5H {JUNK} {JUNK}")
    s, ev = run(s, StartHand(shoe=shoe, first_seat=0), Knock(seat=0), Knock(seat=1))
    assert s.hand.option == card("5H") and s.hand.option_from is None
    assert TakeOption(seat=0) in legal_actions(s, 0)
    taken, ev = run(s, TakeOption(seat=0), NewMeld(seat=0, cards=cards("5D 5C")))
    assert of_type(ev, OptionTaken)[0].card == card("5H") and taken.hand.turn.step is Step.MELDING
    # not taking it: the first player plucks once; discarding the unused pluck ends his turn
    s, _ = run(s, Pluck(seat=0), Discard(seat=0))
    assert to_act(s) == 1
    # an upcard that does not meld is refused
    shoe2 = stacked_shoe([INERT_A, INERT_B], stock=f"{JUNK} {JUNK}")
    s2 = initial_state(r)
    for i in range(2):
        s2 = apply(s2, Sit(player_id=i + 1, buy_in=40, seat=i)).state
    s2, _ = run(s2, StartHand(shoe=shoe2, first_seat=0), Knock(seat=0), Knock(seat=1))
    assert not can(s2, TakeOption(seat=0)) and TakeOption(seat=0) not in legal_actions(s2, 0)


def test_option_card_layoff_off() -> None:
    """G9 option: with option_card_layoff off the option card must go into a new meld."""
    r = Rules(option_card_layoff=False)
    p1 = "4H 5H 2C 6C QC 3D 7D KD AS JC"
    s = knock(table([INERT_A, p1, INERT_B], stock=f"{JUNK} {JUNK} 6H {JUNK} 7H", rules=r))
    s = junk_turns(s, 0, 0)
    s, _ = run(s, Pluck(seat=1), NewMeld(seat=1, cards=cards("4H 5H")), Discard(seat=1, card=card("2C")))
    s = junk_turns(s, 2, 0)
    assert s.hand.option == card("7H")
    assert not can(s, TakeOption(seat=1))  # 7H would only lay off


def test_mandatory_forcing_blocks_the_pluck() -> None:
    """G10 mandatory (online): an option card that fits your board must be taken; the pluck is refused."""
    r = Rules.preset("online")
    p1 = "4H 5H 2C 6C QC 3D 7D KD AS JC"
    s = knock(table([INERT_A, p1, INERT_B], stock=f"{JUNK} {JUNK} 6H {JUNK} 7H {JUNK}", rules=r))
    s = junk_turns(s, 0, 0)
    s, _ = run(s, Pluck(seat=1), NewMeld(seat=1, cards=cards("4H 5H")), Discard(seat=1, card=card("2C")))
    s = junk_turns(s, 2, 0)
    assert s.hand.option == card("7H") and to_act(s) == 1
    with pytest.raises(RuleViolation) as exc:
        apply(s, Pluck(seat=1))
    assert exc.value.code == "must_use"
    assert legal_actions(s, 1)[0] == TakeOption(seat=1) and Pluck(seat=1) not in legal_actions(s, 1)
    assert not any(isinstance(a, Force) for i in range(3) for a in legal_actions(s, i))  # no on-demand force
    s, _ = run(s, TakeOption(seat=1), AddToMeld(seat=1, meld=1), Discard(seat=1, card=card("6C")))
    assert s.hand.players[1].melds[0].cards == cards("4H 5H 6H 7H") and to_act(s) == 2


def test_mandatory_forcing_never_forces_an_out_card_three_handed() -> None:
    """§5.4 mandatory: "out-card cases follow the same three rules" (§5.3). Seat 0 is flat and seat 2's unused
    pluck 7H would put him out; three in action and seat 2 is not flat, so none of the three cases holds:
    seat 0 may pluck (or take the card and go out by choice)."""
    s = _flat_seat0(f"{JUNK} 7H {JUNK}", rules=Rules(force_mode=ForceMode.MANDATORY, going_out_units=2))
    s = junk_turns(s, 1, 2)
    assert s.hand.option == card("7H") and to_act(s) == 0
    assert Pluck(seat=0) in legal_actions(s, 0) and TakeOption(seat=0) in legal_actions(s, 0)
    plucked, _ = run(s, Pluck(seat=0))
    assert plucked.hand.turn.drawn == card(JUNK)
    out, _ = run(s, TakeOption(seat=0), AddToMeld(seat=0, meld=1))
    assert out.hand is None and out.last_hand.winner == 0


def test_force_mode_off() -> None:
    """G10 off: nobody may force."""
    from pancog.game.rules import ForceMode

    r = Rules(force_mode=ForceMode.OFF)
    p1 = "4H 5H 2C 6C QC 3D 7D KD AS JC"
    s = knock(table([INERT_A, p1, INERT_B], stock=f"{JUNK} {JUNK} 6H {JUNK} 7H {JUNK}", rules=r))
    s = junk_turns(s, 0, 0)
    s, _ = run(s, Pluck(seat=1), NewMeld(seat=1, cards=cards("4H 5H")), Discard(seat=1, card=card("2C")))
    s = junk_turns(s, 2, 0)
    with pytest.raises(RuleViolation) as exc:
        apply(s, Force(seat=2))
    assert exc.value.code == "force_refused" and can(s, Pluck(seat=1))


def test_giving_an_out_card_to_a_flat_player_is_refused() -> None:
    """§5.3: a usable pluck that would put the next, flat player out may not be discarded."""
    p0 = "4H 5H 4D 4C 4S 4D JC QC KC 2D"
    p2 = "7S 7D 2C 6C QC 3D KD AS JH 5S"
    s = knock(table([p0, INERT_B, p2], stock=f"6H {JUNK} 7H"))
    s, _ = run(
        s,
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("4H 5H")),
        NewMeld(seat=0, cards=cards("4D 4C 4S 4D")),
        NewMeld(seat=0, cards=cards("JC QC KC")),
        Discard(seat=0, card=card("2D")),
    )
    s = junk_turns(s, 1)
    s, _ = run(s, Pluck(seat=2))  # 7H fits flat seat 0's 4H 5H 6H, and seat 2 can meld it (7S 7D)
    with pytest.raises(RuleViolation) as exc:
        apply(s, Discard(seat=2))
    assert exc.value.code == "must_use" and Discard(seat=2) not in legal_actions(s, 2)
    assert NewMeld(seat=2, cards=cards("7D 7S")) in legal_actions(s, 2)


# --- the §7.2 worked example, end to end ------------------------------------------------------------


@pytest.mark.parametrize(("last", "outs", "bonus"), [("6C", 5, 0), ("AC", 6, 1)])
def test_worked_example_7_2(last: str, outs: int, bonus: int) -> None:
    """§7.2: A, B, C, D in (E retires); conditions, C's foul and refunds, A goes out; had A's last play made
    a condition, B and D would also pay the bust-out bonus, C (fouled) would not."""
    a = "5S 5S QD QD QD 2C 3C 4C 5C KH"
    b = "KH QH 3C 7C KC 4D JD AH 2S 6S"
    c = "6D 6D 4C JC AD 5D 2H 6H 3S 7S"
    s = table([a, b, c, INERT_A, INERT_B], stock=f"5S JH 6D {JUNK} {last}", rules=TWO_UNITS)
    assert s.singles_tops == 5
    s, _ = run(s, *[Knock(seat=i) for i in range(4)], GoOnTop(seat=4))
    s, ev = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S")))
    assert [(e.payer, e.amount) for e in of_type(ev, ChipsMoved)] == [(1, 4), (2, 4), (3, 4)]  # E pays nothing
    s, ev = run(s, NewMeld(seat=0, cards=cards("QD QD QD")), Discard(seat=0, card=card("KH")))
    assert chips(ev, payee=0) == 3
    s, ev = run(s, Pluck(seat=1), NewMeld(seat=1, cards=cards("KH QH")), Discard(seat=1, card=card("3C")))
    assert {p: chips(ev, payer=p, payee=1) for p in (0, 2, 3, 4)} == {0: 1, 2: 1, 3: 1, 4: 0}
    s, ev = run(s, Pluck(seat=2), NewMeld(seat=2, cards=cards("6D 6D")), Discard(seat=2, card=card("4C")))
    assert {p: chips(ev, payer=p, payee=2) for p in (0, 1, 3)} == {0: 1, 1: 1, 3: 1}
    s, ev = run(s, FloorFoul(target=2))
    assert of_type(ev, HandFouled)[0].seat == 2 and s.hand.players[2].status is PlayerStatus.FOULED
    assert {p: chips(ev, payer=2, payee=p, reason=ChipReason.REFUND) for p in (0, 1, 3)} == {0: 1, 1: 1, 3: 1}
    s = junk_turns(s, 3)
    assert to_act(s) == 0
    before = s.seats[0].stack
    s, ev = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("2C 3C 4C 5C")))
    went = of_type(ev, WentOut)[0]
    assert (went.outs_units, went.bust_out_units) == (outs, bonus)
    for payer in (1, 2, 3):
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.OUTS) == outs
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.GOING_OUT) == 2
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.CONDITION) == bonus  # C stays liable
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.BUST_OUT) == (0 if payer == 2 else bonus)
    assert chips(ev, payer=4) == 0
    assert chips(ev, payee=0, reason=ChipReason.TOPS) == 5
    assert s.seats[0].stack == before + 3 * (outs + 2 + bonus) + 2 * bonus + 5


# --- stock exhaustion --------------------------------------------------------------------------------


def test_stock_exhausted_reshuffles_once_then_voids() -> None:
    """G26: an empty stock is refilled once from the muck (its top card stays); after that the hand is void."""
    s = knock(table([INERT_A, INERT_B], stock=f"{JUNK} QD QD", filler_count=0), 2)
    assert len(s.hand.stock) == 3
    s = junk_turns(s, 0, 0, 1)
    assert s.hand.stock == () and len(s.hand.muck) == 3
    top = s.hand.muck[-1]
    s, ev = run(s, Pluck(seat=0))
    assert [e.count for e in of_type(ev, StockReshuffled)] == [2] and s.hand.reshuffled
    assert s.hand.muck == (top,) and len(s.hand.stock) == 1
    s, _ = run(s, Discard(seat=0), Pluck(seat=1), Discard(seat=1))
    assert s.hand.stock == ()
    s, ev = run(s, Pluck(seat=0))
    assert s.hand is None and [e.reason for e in of_type(ev, HandEnded)] == [EndReason.VOID]
    assert s.singles_tops == 2 and s.last_hand.winner is None  # the tops carry over


def test_stock_exhausted_void_hand_option() -> None:
    """G26 option: with void_hand the hand is void as soon as the stock is empty."""
    r = Rules(stock_exhausted=StockExhausted.VOID_HAND)
    s = knock(table([INERT_A, INERT_B], stock=f"{JUNK} QD QD", filler_count=0, rules=r), 2)
    s = junk_turns(s, 0, 0, 1)
    s, ev = run(s, Pluck(seat=0))
    assert not of_type(ev, StockReshuffled) and of_type(ev, HandEnded)[0].reason is EndReason.VOID


# --- splitting the tops --------------------------------------------------------------------------------


def test_split_tops_odd_chip_and_marriage() -> None:
    """§7.6: the last two split the singles tops; the odd chip stays; they are married, and married splitters
    are offered the split automatically when a later action leaves them the last two in action."""
    s = table([INERT_A, INERT_B, INERT_C])
    s, _ = run(s, GoOnTop(seat=0), Knock(seat=1), Knock(seat=2))
    assert not can(s, OfferSplit(seat=0))  # not in action
    s, ev = run(s, OfferSplit(seat=1))
    assert not can(s, AcceptSplit(seat=1)) and can(s, DeclineSplit(seat=2))
    s, ev = run(s, AcceptSplit(seat=2))
    assert chips(ev, payee=1, reason=ChipReason.SPLIT) == 1 and chips(ev, payee=2, reason=ChipReason.SPLIT) == 1
    assert s.singles_tops == 1 and s.married == ((1001, 1002),)
    assert of_type(ev, HandEnded)[0].reason is EndReason.SPLIT and of_type(ev, HandEnded)[0].splitters == (1, 2)
    # next hand: seat 0 is fouled; the married pair are left the last two and are offered the split (issue 13)
    s, _ = run(s, StartHand(seed=11, first_seat=0), Knock(seat=0), Knock(seat=1), Knock(seat=2))
    assert s.singles_tops == 4
    s, ev = run(s, FloorFoul(target=0))
    assert s.hand is not None and s.hand.split_offer is not None and not of_type(ev, HandEnded)
    s, ev = run(s, AcceptSplit(seat=3 - s.hand.split_offer))
    assert s.hand is None and of_type(ev, HandEnded)[0].reason is EndReason.SPLIT
    assert chips(ev, reason=ChipReason.SPLIT) == 4 and s.singles_tops == 0


def test_split_odd_chip_to_next_player() -> None:
    """G25 option: the odd chip goes to the splitter whose turn is next."""
    s = table([INERT_A, INERT_B, INERT_C], rules=Rules(split_odd_chip=OddChip.NEXT_PLAYER))
    s, _ = run(s, GoOnTop(seat=0), Knock(seat=1), Knock(seat=2), OfferSplit(seat=2))
    s, ev = run(s, DeclineSplit(seat=1))
    assert s.hand is not None and s.hand.split_offer is None
    s, ev = run(s, OfferSplit(seat=2), AcceptSplit(seat=1))
    assert chips(ev, payee=1, reason=ChipReason.SPLIT) == 2 and chips(ev, payee=2, reason=ChipReason.SPLIT) == 1


def test_doubles_and_singles_split() -> None:
    """§7.6: in a doubles/singles split only the singles tops are halved; the doubles tops go to the doubles player."""
    s = table([INERT_A, INERT_B, INERT_C], doubles=[True, True, False])
    assert (s.singles_tops, s.doubles_tops) == (3, 2)
    s, _ = run(s, GoOnTop(seat=0), Knock(seat=1), Knock(seat=2), OfferSplit(seat=1))
    s, ev = run(s, AcceptSplit(seat=2))
    assert chips(ev, payer=Pot.DOUBLES, payee=1) == 2 and chips(ev, payer=Pot.DOUBLES, payee=2) == 0
    assert chips(ev, payer=Pot.SINGLES, payee=1) == 1 and chips(ev, payer=Pot.SINGLES, payee=2) == 1


# --- fouls ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "refunds"), [(FoulRefunds.PAYERS, {1: 2, 2: 1}), (FoulRefunds.ACTIVE_ONLY, {1: 3})])
def test_foul_refunds_proportional_on_a_short_stack(mode: FoulRefunds, refunds: dict[int, int]) -> None:
    """G23: a fouled player short of chips refunds in proportion to what each paid him (remainders in rotation);
    ``active_only`` refunds only payers still in action."""
    r = Rules(min_buyin_chips=1, foul_refunds=mode)
    p0 = "5S 5S 2C 6C QC 3D 7D KD 4H JH"
    p1 = "5S 5S JS QS KS 3C 7C KC 4D JD"
    s = knock(table([p0, p1, INERT_C], stock="5S 5S", stacks=[4, 100, 3], rules=r))
    s, ev = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S")), Discard(seat=0, card=card("2C")))
    assert chips(ev, payer=1, payee=0) == 4 and chips(ev, payer=2, payee=0) == 2  # seat 2 short: busted
    assert s.hand.players[2].status is PlayerStatus.BUSTED and s.seats[0].stack == 9
    s, ev = run(s, Pluck(seat=1), NewMeld(seat=1, cards=cards("5S 5S")), NewMeld(seat=1, cards=cards("JS QS KS")))
    assert chips(ev, payer=0, payee=1) == 6 and s.seats[0].stack == 3
    s, ev = run(s, FloorFoul(target=0))
    got = {p: chips(ev, payer=0, payee=p, reason=ChipReason.REFUND) for p in (1, 2)}
    assert {p: v for p, v in got.items() if v} == refunds
    assert s.seats[0].stack == 3 - sum(refunds.values())


def test_fouled_player_keeps_paying_conditions() -> None:
    """§6.3: a fouled player stays liable for conditions made after the foul."""
    p1 = "5S 5S 3C 7C KC 4D JD AH 2S 6S"
    s = knock(table([INERT_A, p1, INERT_C], stock="5S"))
    s, ev = run(s, FloorFoul(target=0))
    assert s.hand.players[0].status is PlayerStatus.FOULED and s.hand.players[0].hand == ()
    assert to_act(s) == 1 and not can(s, FloorFoul(target=0))
    s, ev = run(s, Pluck(seat=1), NewMeld(seat=1, cards=cards("5S 5S")))
    assert chips(ev, payer=0, payee=1) == 4 and chips(ev, payer=2, payee=1) == 4


def test_foul_call_without_cause_is_refused() -> None:
    """§0: a foul call with no cause is refused and costs the caller nothing."""
    from pancog.game import FoulCall, FoulCause

    s = knock(table([INERT_A, INERT_B, INERT_C], stock=JUNK))
    for cause in FoulCause:
        with pytest.raises(RuleViolation) as exc:
            apply(s, FoulCall(seat=1, target=0, cause=cause))
        assert exc.value.code == "no_cause"


def test_floor_foul_on_the_player_in_turn_passes_the_turn() -> None:
    """§6.1 cause 8: the floor fouls the player in turn; his drawn card goes to the muck and play moves on."""
    s = knock(table([INERT_A, INERT_B, INERT_C], stock=JUNK))
    s, _ = run(s, Pluck(seat=0))
    s, _ev = run(s, FloorFoul(target=0))
    assert s.hand.muck[-1] == card(JUNK) and to_act(s) == 1 and s.hand.turn.step is Step.DRAW
    assert s.hand.option is None


# --- timeouts: the minimal move in each situation ---------------------------------------------------------


def _timeout(s, seat):
    t = apply(s, Timeout(seat=seat))
    assert of_type(t.events, TimedOut)[0].seat == seat
    return t.state, list(t.events)


def test_timeout_while_declaring_goes_on_top() -> None:
    s = table([INERT_A, INERT_B, INERT_C])
    s, ev = _timeout(s, 0)
    assert [(e.seat, e.playing) for e in of_type(ev, Declared)] == [(0, False)] and to_act(s) == 1


def test_timeout_first_player_plucks_twice() -> None:
    s = knock(table([INERT_A, INERT_B, INERT_C], stock=f"{JUNK} QD"))
    s, ev = _timeout(s, 0)
    assert [e.card for e in of_type(ev, CardPlucked)] == list(cards(f"{JUNK} QD"))
    assert len(of_type(ev, Discarded)) == 2 and to_act(s) == 1 and s.hand.players[0].timeouts == 1


def test_timeout_draw_plucks_and_discards() -> None:
    s = knock(table([INERT_A, INERT_B, INERT_C], stock=f"{JUNK} {JUNK} QD"))
    s = junk_turns(s, 0, 0)
    s, ev = _timeout(s, 1)
    assert [e.card for e in of_type(ev, CardPlucked)] == [card("QD")]
    assert [(e.card, e.pluck) for e in of_type(ev, Discarded)] == [(card("QD"), True)] and to_act(s) == 2


def test_timeout_after_a_pluck_discards_it() -> None:
    s = knock(table([INERT_A, "5H 5D 2C 6C QC 3D KD AS JC 7D", INERT_C], stock=f"{JUNK} {JUNK} 5C"))
    s = junk_turns(s, 0, 0)
    s, _ = run(s, Pluck(seat=1))  # usable, but the minimal move is to discard it
    s, ev = _timeout(s, 1)
    assert not of_type(ev, Melded) and [e.card for e in of_type(ev, Discarded)] == [card("5C")]
    assert to_act(s) == 2 and s.hand.option == card("5C")


def test_timeout_after_a_hit_discards_the_first_hand_card() -> None:
    s = knock(table(["5H 5D 2C 6C QC 3D KD AS JC 7D", INERT_B, INERT_C], stock="5C"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5H 5D")))
    first = s.hand.players[0].hand[0]
    s, ev = _timeout(s, 0)
    assert [(e.card, e.pluck) for e in of_type(ev, Discarded)] == [(first, False)] and to_act(s) == 1


def test_timeout_on_a_forced_card_plays_it_then_discards() -> None:
    p1 = "4H 5H 2C 6C QC 3D 7D KD AS JC"
    s = knock(table([INERT_A, p1, INERT_B], stock=f"{JUNK} {JUNK} 6H {JUNK} 7H {JUNK}"))
    s = junk_turns(s, 0, 0)
    s, _ = run(s, Pluck(seat=1), NewMeld(seat=1, cards=cards("4H 5H")), Discard(seat=1, card=card("2C")))
    s = junk_turns(s, 2, 0)
    s, _ = run(s, Force(seat=2, target=1))
    s, ev = _timeout(s, 1)
    assert [m.kind for m in of_type(ev, Melded)] == [MeldPlayKind.ADD] and len(of_type(ev, Discarded)) == 1
    assert s.hand.players[1].melds[0].cards == cards("4H 5H 6H 7H") and to_act(s) == 2


def test_timeout_takes_a_mandatory_option_card() -> None:
    r = Rules.preset("online")
    p1 = "4H 5H 2C 6C QC 3D 7D KD AS JC"
    s = knock(table([INERT_A, p1, INERT_B], stock=f"{JUNK} {JUNK} 6H {JUNK} 7H {JUNK}", rules=r))
    s = junk_turns(s, 0, 0)
    s, _ = run(s, Pluck(seat=1), NewMeld(seat=1, cards=cards("4H 5H")), Discard(seat=1, card=card("2C")))
    s = junk_turns(s, 2, 0)
    s, ev = _timeout(s, 1)
    assert of_type(ev, OptionTaken) and not of_type(ev, CardPlucked) and to_act(s) == 2


def test_timeout_make_good() -> None:
    from pancog.game import FoulCall, FoulCause
    from pancog.game.rules import Enforcement

    r = Rules(enforcement=Enforcement.PLAYERS)
    s = knock(table(["5H 5H 5C 2C 6C QC 3D KD AS JC", INERT_B, INERT_C], stock="5D", rules=r))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5H 5H")))
    s, _ = run(s, FoulCall(seat=1, target=0, cause=FoulCause.INVALID_MELD))
    assert to_act(s) == 0
    s, ev = _timeout(s, 0)
    assert [m.kind for m in of_type(ev, Melded)] == [MeldPlayKind.MAKE_GOOD] and s.hand.players[0].melds[0].valid


def test_abandon_after_timeouts() -> None:
    """§6.5: after ``abandon_timeouts`` timeouts in a hand, the player may be called foul for abandoning it."""
    from pancog.game import FoulCall, FoulCause

    s = knock(table([INERT_A, INERT_B, INERT_C], stock=" ".join([JUNK] * 10)))
    s, _ = _timeout(s, 0)
    assert not can(s, FoulCall(seat=1, target=0, cause=FoulCause.ABANDONED))
    s = junk_turns(s, 1, 2)
    s, _ = _timeout(s, 0)
    assert FoulCall(seat=1, target=0, cause=FoulCause.ABANDONED) in legal_actions(s, 1)
    s, _ev = run(s, FoulCall(seat=1, target=0, cause=FoulCause.ABANDONED))
    assert s.hand.players[0].status is PlayerStatus.FOULED


# --- the legal-actions menu -------------------------------------------------------------------------------


def test_menu_lists_multi_card_borrows() -> None:
    """legal_actions lists borrows of more than two cards, and every listed borrow applies."""
    p0 = "5S 5S 5S 5S 5S 5S 2C 6C QC 3D"
    s = knock(table([p0, INERT_B, INERT_C], stock=f"5S {JUNK} {JUNK} 4S"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S 5S 5S 5S 5S")), Discard(seat=0, card=card("2C")))
    assert len(s.hand.players[0].melds[0].cards) == 7
    s = junk_turns(s, 1, 2)
    s, _ = run(s, Pluck(seat=0))  # 4S: no borrow can use it; then try a set borrow
    assert not any(isinstance(a, Borrow) for a in legal_actions(s, 0))
    s2 = knock(table([p0, INERT_B, INERT_C], stock=f"5S {JUNK} {JUNK} 5S"))
    s2, _ = run(s2, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S 5S 5S 5S 5S")), Discard(seat=0, card=card("2C")))
    s2 = junk_turns(s2, 1, 2)
    s2, _ = run(s2, Pluck(seat=0))
    borrows = [a for a in legal_actions(s2, 0) if isinstance(a, Borrow)]
    sizes = {len(a.taken) for a in borrows}
    assert {2, 3, 4} <= sizes  # 7 spades on the board: up to 4 may be lent (3 must stay)
    for a in borrows:
        apply(s2, a)
    assert not can(s2, Borrow(seat=0, cards=(), taken=tuple((1, card("5S")) for _ in range(5))))


def test_menu_omits_table_level_actions() -> None:
    """Sit, Rebuy, StartHand and Timeout are never in the per-seat menu; Stand/SetAway only on request."""
    s = knock(table([INERT_A, INERT_B, INERT_C], stock=JUNK))
    kinds = {type(a) for i in range(3) for a in legal_actions(s, i)}
    assert not kinds & {Sit, Rebuy, StartHand, Timeout}
    from pancog.game import SetAway, Stand

    assert {type(a) for a in legal_actions(s, 1, table_actions=True)} >= {Stand, SetAway}


def test_out_card_case_2_compares_full_settlement() -> None:
    """§5.3 case 2: the payout compared is the whole settlement (condition, bust-out, outs, units), not the board."""
    s = _flat_board_with("4S 5S", "6S", "7S")
    w = _Work(s, s.seq)
    # 7S lays off on 4S 5S 6S: no condition; outs 1 (JC QC KC) + 2 units, from two players
    assert _payout_with(w, 0, card("7S")) == 2 * (1 + 2)
    s = _flat_board_with("2S 3S", "4S", "AS")
    w = _Work(s, s.seq)
    # AS makes a spade C4 (2) on the out play: condition 2 + bust-out 2 + outs (2 + 1) + 2 units, from two players
    assert _payout_with(w, 0, card("AS")) == 2 * (2 + 2 + 3 + 2)


def _flat_board_with(run_cards: str, hit: str, _out: str):
    hand = f"{run_cards} 4D 4C 4H 4D JC QC KC 2D"
    s = knock(table([hand, INERT_B, INERT_C], stock=hit, rules=TWO_UNITS))
    s, _ = run(
        s,
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards(run_cards)),
        NewMeld(seat=0, cards=cards("4D 4C 4H 4D")),
        NewMeld(seat=0, cards=cards("JC QC KC")),
        Discard(seat=0, card=card("2D")),
    )
    assert s.hand.players[0].hand == ()
    return s
