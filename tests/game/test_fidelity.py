"""Issue 13, rules fidelity: five table situations where the engine departed from RULES.md or its sources.

Each test is named after the situation; each failed before its fix.
"""

from __future__ import annotations

import dataclasses

from pancog.game import (
    AcceptSplit,
    Borrow,
    ChipReason,
    Discard,
    FloorFoul,
    Force,
    Forced,
    GoOnTop,
    HandEnded,
    Knock,
    NewMeld,
    OfferSplit,
    Pluck,
    Rules,
    RuleViolation,
    StartHand,
    StartMode,
    TakeOption,
    apply,
    can,
    legal_actions,
    make_meld,
)
from pancog.game.actions import AddToMeld, DeclineDraw, DeclineSplit
from pancog.game.events import DrawDeclined, MarriedSplitOffered, OptionTaken
from pancog.game.state import EndReason, Step, TableState
from tests.game.conftest import cards, chips, of_type, run, table
from tests.game.test_cases import INERT_A, INERT_B, INERT_C, card, junk_turns

# --- 1. head-up force-back while the discarder is in turn ([S0] "until two players have drawn behind") -------


def test_head_up_force_back_while_the_discarder_is_in_turn() -> None:
    """P0 holds 4H 5H 6H, plucks 7H and discards it unused; P1 draws and discards. P0 is in turn again with one
    draw behind his discard: head-up, P1 still has the right to force 7H back on him."""
    p0 = "4H 5H 2C 6C QC 3D 7D KD JC AS"
    s = table([p0, INERT_B], stock="6H KH 7H KH")
    s, _ = run(s, Knock(seat=0), Knock(seat=1))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("4H 5H")), Discard(seat=0, card=card("2C")))
    s = junk_turns(s, 1)
    s, _ = run(s, Pluck(seat=0), Discard(seat=0))  # 7H fits 4H 5H 6H: discarded unused
    s = junk_turns(s, 1)
    assert s.hand is not None and s.hand.turn is not None and s.hand.turn.seat == 0
    force = Force(seat=1, target=0, card=card("7H"))
    assert force in legal_actions(s, 1)
    s, ev = run(s, force)
    assert of_type(ev, Forced)[0].back
    t = s.hand.turn if s.hand is not None else None
    assert t is not None and t.seat == 0 and t.forced_back and t.step is Step.MUST_USE and t.drawn == card("7H")
    # he lays it off, discards, and his own interrupted turn resumes at the draw
    s, _ = run(s, AddToMeld(seat=0, meld=1), Discard(seat=0, card=card("6C")))
    t = s.hand.turn if s.hand is not None else None
    assert t is not None and t.seat == 0 and t.step is Step.DRAW and not t.forced_back


# --- 2. giving an out card when the out play is a borrow (RULES.md §2.7 option card (b), §5.3) --------------------


def _flat_sets_table() -> TableState:
    """Seat 1 is flat: all ten cards on his board as 5H 5D 5C 5S 5H and 6H 6D 6C 6S 6H. Seat 0 is in turn, his
    next pluck 7H (an upcard deal: no double draw)."""
    rules = Rules(start_mode=StartMode.UPCARD)
    s = table(["7S 7D 2C 6C QC 3D KD AS JC 3S", INERT_A], stock="KH 7H KH", rules=rules)
    s, _ = run(s, Knock(seat=0), Knock(seat=1))
    r = s.rules
    h = s.hand
    assert h is not None
    p1 = h.player(1)
    melds = (make_meld(1, cards("5H 5D 5C 5S 5H"), r), make_meld(2, cards("6H 6D 6C 6S 6H"), r))
    p1 = dataclasses.replace(p1, hand=(), melds=melds, next_meld_id=3)
    players = tuple(p1 if p is not None and p.seat == 1 else p for p in h.players)
    return dataclasses.replace(s, hand=dataclasses.replace(h, players=players))


def test_giving_an_out_card_when_the_out_play_is_a_borrow() -> None:
    """Seat 0 plucks 7H (he could meld it with 7S 7D) and discards it. Seat 1 could go out with 7H only by
    borrowing 5H and 6H from his sets, a play with no card from his hand: that is not a legal use of the option
    card, so the discard gives no out card, and the take is refused."""
    s, _ = run(_flat_sets_table(), Pluck(seat=0))
    assert NewMeld(seat=0, cards=cards("7D 7S")) in legal_actions(s, 0)
    s, _ = run(s, Discard(seat=0))  # accepted: seat 1 cannot go out with it
    assert s.hand is not None and s.hand.option == card("7H") and s.hand.option_from == 0
    take = TakeOption(seat=1)
    assert not can(s, take) and take not in legal_actions(s, 1)
    try:
        apply(s, take)
    except RuleViolation as exc:
        assert exc.code == "option_refused"
    else:
        raise AssertionError("the option card was taken for a borrow with no hand card")


def test_option_card_borrow_without_a_hand_card_is_refused_after_the_take() -> None:
    """Taken for a legal use (a new meld with 7S 7D), the option card still may not go into a borrow that puts no
    card from the hand into the new meld."""
    s = _flat_sets_table()
    h = s.hand
    assert h is not None
    p1 = dataclasses.replace(h.player(1), hand=cards("7D 7S"))
    players = tuple(p1 if p is not None and p.seat == 1 else p for p in h.players)
    s = dataclasses.replace(s, hand=dataclasses.replace(h, players=players))
    s, _ = run(s, Pluck(seat=0), Discard(seat=0), TakeOption(seat=1))
    borrow = Borrow(seat=1, cards=(), taken=((1, card("5H")), (2, card("6H"))))
    assert borrow not in legal_actions(s, 1) and not can(s, borrow)
    assert NewMeld(seat=1, cards=cards("7D 7S")) in legal_actions(s, 1)


# --- 3. married splitters must still be asked ([S0] "When one player refuses ... action continues") ----------------


def _married_pair() -> TableState:
    """Seats 1 and 2 split the tops of a first hand: they are married. A second hand is dealt from seat 0."""
    s = table([INERT_A, INERT_B, INERT_C])
    s, _ = run(s, GoOnTop(seat=0), Knock(seat=1), Knock(seat=2), OfferSplit(seat=1), AcceptSplit(seat=2))
    assert s.married == ((1001, 1002),)
    s, _ = run(s, StartHand(seed=11, first_seat=0))
    return s


def test_married_splitters_left_the_last_two_by_a_floor_foul_are_asked() -> None:
    """A floor foul removes the third player: the married pair are offered the split, not split at once; the
    other declines and play goes on."""
    s, _ = run(_married_pair(), Knock(seat=0), Knock(seat=1), Knock(seat=2))
    s, ev = run(s, FloorFoul(target=0))
    assert not of_type(ev, HandEnded) and s.hand is not None
    offer = of_type(ev, MarriedSplitOffered)
    assert len(offer) == 1 and {offer[0].seat, offer[0].partner} == {1, 2}
    assert s.hand.split_offer == offer[0].seat
    partner = offer[0].partner
    assert AcceptSplit(seat=partner) in legal_actions(s, partner)
    assert DeclineSplit(seat=partner) in legal_actions(s, partner)
    s, _ = run(s, DeclineSplit(seat=partner))
    assert s.hand is not None and s.hand.split_offer is None
    s = junk_turns(s, s.hand.turn.seat if s.hand.turn else 1)
    assert s.hand is not None  # play goes on, and no new offer is made while they stay the last two


def test_married_splitters_accept_the_automatic_offer() -> None:
    s, _ = run(_married_pair(), Knock(seat=0), Knock(seat=1), Knock(seat=2))
    s, ev = run(s, FloorFoul(target=0))
    offer = of_type(ev, MarriedSplitOffered)[0]
    s, ev = run(s, AcceptSplit(seat=offer.partner))
    assert s.hand is None and of_type(ev, HandEnded)[0].reason is EndReason.SPLIT
    assert chips(ev, reason=ChipReason.SPLIT) == 4


def test_married_pair_alone_in_from_the_start_is_not_split_at_the_first_play() -> None:
    """The married pair are the only two who declared in: no later action left them the last two, so the hand is
    played (either may still offer the split)."""
    s, _ = run(_married_pair(), GoOnTop(seat=0), Knock(seat=1), Knock(seat=2))
    s, ev = run(s, Pluck(seat=1), Discard(seat=1))
    assert not of_type(ev, HandEnded) and not of_type(ev, MarriedSplitOffered)
    assert s.hand is not None and s.hand.split_offer is None
    assert OfferSplit(seat=2) in legal_actions(s, 2)


# --- 4. the double draw is a right, not a duty ([S0] "the right to draw twice") -------------------------------------


def test_first_player_may_decline_his_second_pluck() -> None:
    """The first pluck goes to the muck unused: the first player may pluck again or decline; declining ends his
    turn and leaves the next player that pluck as the option card."""
    s = table([INERT_A, "5H 5D 2C 6C QC 3D KD AS JC 3S"], stock="5C KH")
    s, _ = run(s, Knock(seat=0), Knock(seat=1))
    s, _ = run(s, Pluck(seat=0), Discard(seat=0))  # 5C: unused
    legal = legal_actions(s, 0)
    assert Pluck(seat=0) in legal and DeclineDraw(seat=0) in legal
    s, ev = run(s, DeclineDraw(seat=0))
    assert of_type(ev, DrawDeclined)[0].seat == 0
    h = s.hand
    assert h is not None and h.turn is not None and h.turn.seat == 1 and h.turn.step is Step.DRAW
    assert h.option == card("5C") and h.option_from == 0
    s, ev = run(s, TakeOption(seat=1))
    assert of_type(ev, OptionTaken)[0].card == card("5C")


def test_declining_is_only_for_the_double_draws_second_pluck() -> None:
    s = table([INERT_A, INERT_B], stock="KH KH KH")
    s, _ = run(s, Knock(seat=0), Knock(seat=1))
    assert not can(s, DeclineDraw(seat=0))  # his first pluck is his turn's move
    s, _ = run(s, Pluck(seat=0), Discard(seat=0), Pluck(seat=0))
    assert not can(s, DeclineDraw(seat=0))  # plucked again: use it or discard it
    s, _ = run(s, Discard(seat=0))
    assert not can(s, DeclineDraw(seat=1))  # the next player's draw is not a double draw


def test_second_pluck_may_still_be_taken() -> None:
    s = table([INERT_A, INERT_B], stock="KH KH")
    s, _ = run(s, Knock(seat=0), Knock(seat=1), Pluck(seat=0), Discard(seat=0))
    s, _ = run(s, Pluck(seat=0))
    assert s.hand is not None and s.hand.turn is not None and s.hand.turn.step is Step.DRAWN


# --- 5. the california preset follows the California house rules: no going-out units ([S0], RULES.md §0) -------


def test_california_pays_the_tops_and_the_outs_without_going_out_units() -> None:
    from pancog.game.rules import PRESETS, describe_rules

    assert Rules().going_out_units == 0 and PRESETS["california"].going_out_units == 0
    assert PRESETS["classic"].going_out_units == 2 and PRESETS["online"].going_out_units == 2
    assert Rules.preset_of_edition("california", 1, {}).going_out_units == 2  # tables opened before keep 2
    assert Rules.preset_of_edition("classic", 1, {}) == PRESETS["classic"]
    words = describe_rules(Rules())
    assert any("no going-out units" in line for line in words)
    assert any("plus 2 units" in line for line in describe_rules(PRESETS["classic"]))
    try:
        Rules.preset_of_edition("california", 99, {})
    except RuleViolation:
        pass
    else:
        raise AssertionError("an unknown edition was accepted")
