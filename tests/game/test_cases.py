"""RULES.md §10 cases, end to end through ``apply`` (one test per case; names carry the case numbers).

Cases 1-31 and 36-38 about single melds, values and decks are also checked at the meld level in
``test_melds.py``; here every case runs on a dealt table with stacked shoes (see ``conftest.table``).

Seats 0, 1, 2 ... play in that rotation; seat 0 is first hand. The INERT hands have ten different
ranks and no two cards of a suit within two ranks, so no single card melds with them.
"""

from __future__ import annotations

import pytest

from pancog.game import (
    AddToMeld,
    Borrow,
    CardPlucked,
    ChipReason,
    ChipsMoved,
    Discard,
    Discarded,
    Force,
    Forced,
    GoOnTop,
    HandEnded,
    IllegalMeld,
    Knock,
    Melded,
    NewMeld,
    PlayerBusted,
    PlayerStatus,
    Pluck,
    PluckVoided,
    Pot,
    Rules,
    RuleViolation,
    TakeOption,
    WentOut,
    apply,
    can,
    legal_actions,
    to_act,
)
from pancog.game.state import EndReason, Step
from tests.game.conftest import cards, chips, of_type, run, table

INERT_A = "2C 6C QC 3D 7D KD 4H JH AS 5S"
INERT_B = "3C 7C KC 4D JD AH 5H 2S 6S QS"
INERT_C = "4C JC AD 5D 2H 6H QH 3S 7S KS"
JUNK = "KH"  # melds with none of the hands below

# RULES.md's worked cases count the 2 going-out units of its §4.6 REC (the classic and online presets); the
# california preset pays none since issue 13, so these cases name the option.
TWO_UNITS = Rules(going_out_units=2)


def card(text: str):
    return cards(text)[0]


def knock(s, n=3):
    return run(s, *[Knock(seat=i) for i in range(n)])[0]


def junk_turns(s, *seats):
    """Each seat plucks and discards its (unusable) pluck."""
    for seat in seats:
        s, _ = run(s, Pluck(seat=seat), Discard(seat=seat))
    return s


# --- melds on a table (cases 1-25 through apply) ---------------------------------------------


@pytest.mark.parametrize(
    ("case", "hand_pair", "pluck", "units"),
    [
        (1, "5D 5C", "5H", 1),
        (2, "5S 5S", "5S", 4),
        (3, "5S 5S 5S", "5S", 6),
        (6, "4S 4S", "4S", 2),
        (7, "4D 4C", "4H", 0),
        (14, "AH AD", "AH", 0),
        (15, "KS KH", "KD", 0),
        (18, "6H 7H", "JH", 0),
        (20, "JS QS", "KS", 2),
        (24, "AH 2H 3H 4H", "5H", 1),
    ],
)
def test_cases_1_to_24_meld_collects_its_value(case: int, hand_pair: str, pluck: str, units: int) -> None:
    """§10 cases 1-3, 6, 7, 14, 15, 18, 20, 24: a meld made with the pluck collects its value from each player."""
    n = len(cards(hand_pair))
    hand = f"{hand_pair} {' '.join(INERT_A.split()[: 10 - n])}"
    s = knock(table([hand, INERT_B, INERT_C], stock=pluck))
    s, ev = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards(hand_pair)))
    assert chips(ev, payee=0, reason=ChipReason.CONDITION) == 2 * units, case
    assert sorted(s.hand.players[0].melds[0].cards) == sorted(cards(f"{hand_pair} {pluck}"))


@pytest.mark.parametrize(
    ("case", "hand_pair", "pluck"),
    [
        (8, "5H 5H", "5D"),
        (9, "5H 5H 5D", "5D"),
        (17, "QH QH", "QS"),
        (21, "QH KH", "AH"),
        (22, "6H 7H", "QH"),
        (23, "5H 6H", "7D"),
    ],
)
def test_cases_8_to_23_invalid_melds_refused(case: int, hand_pair: str, pluck: str) -> None:
    """§10 cases 8, 9, 17, 21, 22, 23: an invalid meld is refused and nothing changes."""
    n = len(cards(hand_pair))
    s = knock(table([f"{hand_pair} {' '.join(INERT_A.split()[: 10 - n])}", INERT_B, INERT_C], stock=pluck))
    s, _ = run(s, Pluck(seat=0))
    with pytest.raises(RuleViolation) as exc:
        apply(s, NewMeld(seat=0, cards=cards(hand_pair)))
    assert exc.value.code == "illegal_meld", case
    assert s.hand.turn.step is Step.DRAWN and s.hand.players[0].melds == ()


@pytest.mark.parametrize(
    ("case", "first", "added", "gain"),
    [(4, "5S 5S", "5S", 2), (5, "5H 5H", "5H", 1), (12, "5D 5C", "5S", 0), (25, "3H 4H", "AH", 1)],
)
def test_cases_4_5_12_25_enhancements(case: int, first: str, added: str, gain: int) -> None:
    """§10 cases 4, 5, 12, 25: adding to a meld on a later turn collects only the increase."""
    base_pluck = {4: "5S", 5: "5H", 12: "5H", 25: "2H"}[case]
    hand = f"{first} {' '.join(INERT_A.split()[:8])}"
    s = knock(table([hand, INERT_B, INERT_C], stock=f"{base_pluck} {JUNK} {JUNK} {added}"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards(first)), Discard(seat=0, card=card("2C")))
    s = junk_turns(s, 1, 2)
    s, ev = run(s, Pluck(seat=0), AddToMeld(seat=0, meld=1))
    assert chips(ev, payee=0, reason=ChipReason.CONDITION) == 2 * gain, case


def test_case_28_no_8_9_10() -> None:
    """§10 case 28: the shoe holds 40 distinct cards, none an 8, 9 or 10."""
    shoe = Rules().shoe()
    assert len(set(shoe)) == 40 and all(c.rank.letter not in ("8", "9", "10", "T") for c in shoe)


# --- splitting and borrowing ------------------------------------------------------------------


def _rope_board():
    """Seat 0's board is JH 7H 6H 5H (meld 1); his hand holds 4H; next pluck QH."""
    s = knock(table(["JH 7H 6H 4H 2C 6C QC 3D KD AS", INERT_B, INERT_C], stock=f"5H {JUNK} {JUNK} QH"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("JH 7H 6H")), Discard(seat=0, card=card("2C")))
    s = junk_turns(s, 1, 2)
    return run(s, Pluck(seat=0))[0]


def test_case_32_split_by_adding() -> None:
    """§10 case 32: JH 7H 6H 5H + QH (drawn) + 4H (hand) -> QH JH 7H + 6H 5H 4H, 0 units, both ways listed."""
    s = _rope_board()
    assert s.hand.turn.drawn == card("QH")
    upper = AddToMeld(seat=0, meld=1, cards=cards("4H"), split=cards("7H JH QH"))
    lower = AddToMeld(seat=0, meld=1, cards=cards("4H"), split=cards("4H 5H 6H"))
    menu = legal_actions(s, 0)
    assert upper in menu and lower in menu
    s2, ev = run(s, upper)
    assert [m.cards for m in s2.hand.players[0].melds] == [cards("4H 5H 6H"), cards("7H JH QH")]
    assert [m.id for m in s2.hand.players[0].melds] == [1, 2]
    assert chips(ev, reason=ChipReason.CONDITION) == 0
    s3, _ = run(s, lower)
    assert [(m.id, m.cards) for m in s3.hand.players[0].melds] == [(1, cards("7H JH QH")), (2, cards("4H 5H 6H"))]


def test_case_34_split_needs_valid_parts() -> None:
    """§10 case 34: adding only QH and cutting off 6H 5H is refused (a two-card part)."""
    s = _rope_board()
    with pytest.raises(RuleViolation) as exc:
        apply(s, AddToMeld(seat=0, meld=1, cards=(), split=cards("5H 6H")))
    assert exc.value.code == "illegal_meld"
    assert not any(isinstance(a, AddToMeld) and a.split == cards("5H 6H") for a in legal_actions(s, 0))


def _rope_7_to_4(pluck: str):
    """Seat 0's board is 7H 6H 5H 4H (meld 1); his hand holds 6C 5C; his next pluck is ``pluck``."""
    s = knock(table(["7H 6H 5H 6C 5C 2C QC 3D KD AS", INERT_B, INERT_C], stock=f"4H {JUNK} {JUNK} {pluck}"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("7H 6H 5H")), Discard(seat=0, card=card("2C")))
    s = junk_turns(s, 1, 2)
    return run(s, Pluck(seat=0))[0]


@pytest.mark.parametrize(("pluck", "hand_card", "taken"), [("6D", "6C", "6H"), ("5D", "5C", "5H")])
def test_case_36_borrow_a_middle_card_refused(pluck: str, hand_card: str, taken: str) -> None:
    """§10 case 36 (on §3.4's rope 7H 6H 5H 4H): 6H or 5H would make a set, but taking it breaks the rope."""
    s = _rope_7_to_4(pluck)
    play = Borrow(seat=0, cards=cards(hand_card), taken=((1, card(taken)),))
    with pytest.raises(RuleViolation) as exc:
        apply(s, play)
    assert exc.value.code == "illegal_meld" and play not in legal_actions(s, 0)


def test_case_36_end_card_of_the_case_32_board() -> None:
    """On JH 7H 6H 5H the 5H is an end card: borrowing it leaves JH 7H 6H, a valid rope, so it is allowed
    (decision: RULES.md case 36 says "(or 5H)" after §3.4's 7H 6H 5H 4H example, where 5H is a middle card)."""
    s = knock(table(["JH 7H 6H 5C 2C 6C QC 3D KD AS", INERT_B, INERT_C], stock=f"5H {JUNK} {JUNK} 5D"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("JH 7H 6H")), Discard(seat=0, card=card("2C")))
    s = junk_turns(s, 1, 2)
    s, _ = run(s, Pluck(seat=0))
    play = Borrow(seat=0, cards=cards("5C"), taken=((1, card("5H")),))
    assert play in legal_actions(s, 0)
    s, ev = run(s, play)
    assert [m.cards for m in s.hand.players[0].melds] == [cards("6H 7H JH"), cards("5C 5D 5H")]
    assert chips(ev, payee=0, reason=ChipReason.CONDITION) == 2  # the new C1 set: 1 from each


def test_case_37_borrow_both_ends_refused() -> None:
    """§10 case 37: taking 7H and 4H from 7H 6H 5H 4H would leave two cards: refused."""
    s = _rope_7_to_4("6D")
    with pytest.raises(RuleViolation) as exc:
        apply(s, Borrow(seat=0, cards=cards("6C"), taken=((1, card("7H")), (1, card("4H")))))
    assert exc.value.code == "illegal_meld"
    assert not any(isinstance(a, Borrow) and len(a.taken) == 2 for a in legal_actions(s, 0))


def test_case_38_three_card_meld_lends_nothing() -> None:
    """§10 case 38: a three-card meld cannot lend a card."""
    s = knock(table(["5H 5D 2C 6C QC 3D 7D KD 4H JH", INERT_B, INERT_C], stock=f"5C {JUNK} {JUNK} 5S"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5H 5D")), Discard(seat=0, card=card("2C")))
    s = junk_turns(s, 1, 2)
    s, _ = run(s, Pluck(seat=0))
    assert not can(s, Borrow(seat=0, cards=(), taken=((1, card("5H")), (1, card("5D")))))
    assert not any(isinstance(a, Borrow) for a in legal_actions(s, 0))


def test_case_41_no_melding_without_hit() -> None:
    """§10 case 41: with an unused pluck waiting, hand melds (and borrows) are refused; after its discard too."""
    s = knock(table(["5H 5H 5H 2C 6C QC 3D KD AS JH", INERT_B, INERT_C], stock=JUNK))
    with pytest.raises(RuleViolation) as exc:
        apply(s, NewMeld(seat=0, cards=cards("5H 5H 5H")))
    assert exc.value.code == "no_hit"
    s, _ = run(s, Pluck(seat=0))
    with pytest.raises(IllegalMeld):
        apply(s, NewMeld(seat=0, cards=cards("5H 5H 5H")))  # the pluck KH would have to join it
    assert legal_actions(s, 0) == (Discard(seat=0),)


def test_case_42_never_onto_an_opponents_meld() -> None:
    """§10 case 42: 7H cannot go onto another player's 4H 5H 6H."""
    s = knock(table(["4H 5H 2C 6C QC 3D 7D KD AS JC", "7H 7D 3C 7C KC 4D JD AH 2S 6S", INERT_C], stock="6H 7S"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("4H 5H")), Discard(seat=0, card=card("2C")))
    s, _ = run(s, Pluck(seat=1))  # 7S: usable (7H 7D 7S), but never on seat 0's run
    with pytest.raises(IllegalMeld, match="only add to your own melds"):
        apply(s, AddToMeld(seat=1, meld=1, cards=cards("7H")))
    assert all(not isinstance(a, AddToMeld) for a in legal_actions(s, 1))


# --- the draw, the option card, the turn --------------------------------------------------------


def test_case_43_option_card_melded() -> None:
    """§10 case 43: the previous player's unused pluck 5H is taken and melded; 1 from each; then a hand discard."""
    s = knock(table([INERT_A, "5D 5C 3C 7C KC 4D JD AH 2S 6S", INERT_C], stock=f"{JUNK} 5H"))
    s = junk_turns(s, 0, 0)  # the double draw: the second unused pluck is the option card
    assert s.hand.option == card("5H") and s.hand.option_from == 0
    assert TakeOption(seat=1) in legal_actions(s, 1)
    s, ev = run(s, TakeOption(seat=1), NewMeld(seat=1, cards=cards("5D 5C")))
    assert chips(ev, payer=0, payee=1) == 1 and chips(ev, payer=2, payee=1) == 1
    assert not can(s, Discard(seat=1)) and not can(s, Pluck(seat=1))
    s, ev = run(s, Discard(seat=1, card=card("3C")))
    assert of_type(ev, Discarded)[0].pluck is False and to_act(s) == 2 and s.hand.option is None


def test_case_44_hand_discard_is_no_option() -> None:
    """§10 case 44: a card discarded from the hand (after a hit) is never an option card."""
    s = knock(table(["5H 5S 5D 2C 6C QC 3D KD AS JH", "5D 5C 3C 7C KC 4D JD AH 2S 6S", INERT_C], stock="5C"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5D")), Discard(seat=0, card=card("5H")))
    assert s.hand.option is None
    with pytest.raises(RuleViolation) as exc:
        apply(s, TakeOption(seat=1))
    assert exc.value.code == "option_refused"


def test_case_46_option_must_meld_at_once() -> None:
    """§10 case 46: an option card that neither melds nor lays off is refused."""
    s = knock(table([INERT_A, INERT_B, INERT_C], stock=f"{JUNK} {JUNK}"))
    s = junk_turns(s, 0, 0)
    assert s.hand.option == card(JUNK)
    with pytest.raises(RuleViolation) as exc:
        apply(s, TakeOption(seat=1))
    assert exc.value.code == "option_refused" and TakeOption(seat=1) not in legal_actions(s, 1)


def test_case_47_pluck_never_enters_the_hand() -> None:
    """§10 case 47: before a hit only the pluck itself can be discarded (it cannot be kept)."""
    s = knock(table([INERT_A, INERT_B, INERT_C], stock=JUNK))
    s, _ = run(s, Pluck(seat=0))
    with pytest.raises(RuleViolation) as exc:
        apply(s, Discard(seat=0, card=card("2C")))
    assert exc.value.code == "no_hit"
    s, _ = run(s, Discard(seat=0, card=card(JUNK)))
    assert card(JUNK) not in s.hand.players[0].hand and len(s.hand.players[0].hand) == 10


def test_case_48_double_draw_first_turn_only() -> None:
    """§10 case 48: the first player plucks again after an unused first pluck; nobody else, never later."""
    s = knock(table([INERT_A, INERT_B, INERT_C], stock=f"KD {JUNK} {JUNK} {JUNK} {JUNK} {JUNK}"))
    s, _ev = run(s, Pluck(seat=0), Discard(seat=0))
    assert to_act(s) == 0 and s.hand.turn.step is Step.DRAW and s.hand.option is None
    s, _ = run(s, Pluck(seat=0), Discard(seat=0))
    assert to_act(s) == 1
    s, _ = run(s, Pluck(seat=1), Discard(seat=1))
    assert to_act(s) == 2
    s, _ = run(s, Pluck(seat=2), Discard(seat=2), Pluck(seat=0), Discard(seat=0))
    assert to_act(s) == 1


def _flat_seat0(
    stock: str, run_cards: str = "4H 5H", hit: str = "6H", rules: Rules = TWO_UNITS, others: tuple = (INERT_B, INERT_C)
):
    """Seat 0 melds 10 cards on his first turn and discards his last: flat (board 10, hand 0)."""
    hand = f"{run_cards} 4D 4C 4S 4D JC QC KC 2D"
    s = knock(table([hand, *others], stock=f"{hit} {stock}", rules=rules), 1 + len(others))
    s, _ev = run(
        s,
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards(run_cards)),
        NewMeld(seat=0, cards=cards("4D 4C 4S 4D")),
        NewMeld(seat=0, cards=cards("JC QC KC")),
        Discard(seat=0, card=card("2D")),
    )
    pl = s.hand.players[0]
    assert pl.hand == () and pl.board_count == 10
    return s


def test_case_50_flat_player_goes_out_without_discard() -> None:
    """§10 case 50: board + hand = 10 after each turn; a flat player whose pluck fits goes out, no discard."""
    s = _flat_seat0(f"{JUNK} {JUNK} 7H")
    for seat in (1, 2):
        pl = s.hand.players[seat]
        assert len(pl.hand) + pl.board_count == 10
    s = junk_turns(s, 1, 2)
    s, ev = run(s, Pluck(seat=0), AddToMeld(seat=0, meld=1))
    assert s.hand is None and s.last_hand.winner == 0
    assert not of_type(ev, Discarded) and of_type(ev, WentOut)[0].seat == 0
    assert sum(len(m.cards) for m in s.last_hand.players[0].melds) == 11


# --- declarations and tops ------------------------------------------------------------------------


def test_case_52_declaration_change_window() -> None:
    """§10 case 52: A changes out -> in before B declares; after B declares the change is refused."""
    s = table([INERT_A, INERT_B, INERT_C])
    s, ev = run(s, GoOnTop(seat=0), Knock(seat=0))
    assert [(e.seat, e.playing, e.changed) for e in ev if hasattr(e, "changed")] == [(0, False, False), (0, True, True)]
    s, _ = run(s, Knock(seat=1))
    with pytest.raises(RuleViolation) as exc:
        apply(s, GoOnTop(seat=0))
    assert exc.value.code == "declaration_closed"
    assert s.hand.players[0].status is PlayerStatus.IN


def test_case_54_lone_player_takes_the_tops() -> None:
    """§10 case 54: five ante; four retire; the fifth takes the 5 chips and the hand ends with no other pay."""
    s = table([INERT_A, INERT_B, INERT_C, INERT_A, INERT_B])
    assert s.singles_tops == 5
    s, ev = run(s, *[GoOnTop(seat=i) for i in range(4)], Knock(seat=4))
    moved = [(e.payer, e.payee, e.amount, e.reason) for e in of_type(ev, ChipsMoved)]
    assert moved == [(Pot.SINGLES, 4, 5, ChipReason.TOPS)]
    assert s.hand is None and s.seats[4].stack == 104 and s.last_hand.end_reason is EndReason.LONE
    assert isinstance(ev[-1], HandEnded) and not any(type(e).__name__ == "PlayStarted" for e in ev)


# --- forcing --------------------------------------------------------------------------------------


def _seat1_run_and_option_7h():
    """Seat 1's board is 4H 5H 6H; seat 0 has just discarded his unused pluck 7H (seat 1's option card)."""
    p1 = "4H 5H 2C 6C QC 3D 7D KD AS JC"
    s = knock(table([INERT_A, p1, INERT_B], stock=f"{JUNK} {JUNK} 6H {JUNK} 7H {JUNK}"))
    s = junk_turns(s, 0, 0)
    s, _ = run(s, Pluck(seat=1), NewMeld(seat=1, cards=cards("4H 5H")), Discard(seat=1, card=card("2C")))
    s = junk_turns(s, 2)
    s, _ = run(s, Pluck(seat=0), Discard(seat=0))
    assert s.hand.option == card("7H") and to_act(s) == 1 and s.hand.turn.step is Step.DRAW
    return s


def test_case_56_force_option_before_the_pluck() -> None:
    """§10 case 56: seat 2 forces 7H on seat 1 before he plucks: he lays it off, discards, and does not pluck."""
    s = _seat1_run_and_option_7h()
    stock_before = len(s.hand.stock)
    assert not can(s, Force(seat=0))  # the discarder lost his right to force it
    assert Force(seat=2, target=1, card=card("7H")) in legal_actions(s, 2)
    s, ev = run(s, Force(seat=2))
    assert [(e.caller, e.target, e.card, e.back) for e in of_type(ev, Forced)] == [(2, 1, card("7H"), False)]
    assert s.hand.turn.step is Step.MUST_USE and s.hand.turn.drawn == card("7H")
    with pytest.raises(RuleViolation, match="already drawn"):
        apply(s, Pluck(seat=1))
    with pytest.raises(RuleViolation, match="must use that card"):
        apply(s, Discard(seat=1, card=card("6C")))
    assert legal_actions(s, 1) == (AddToMeld(seat=1, meld=1),)
    s, ev1 = run(s, AddToMeld(seat=1, meld=1))
    s, ev2 = run(s, Discard(seat=1, card=card("6C")))
    pl = s.hand.players[1]
    assert pl.melds[0].cards == cards("4H 5H 6H 7H") and len(pl.hand) + pl.board_count == 10
    assert not of_type(ev + ev1 + ev2, CardPlucked) and len(s.hand.stock) == stock_before
    assert to_act(s) == 2 and s.hand.option is None  # a hand discard: no option card


def test_case_56_force_after_the_pluck_voids_it() -> None:
    """§5.1 / §10 case 56: a force after the player plucked voids the pluck (a dead card) and he uses the option."""
    s = _seat1_run_and_option_7h()
    s, _ = run(s, Pluck(seat=1))
    plucked = s.hand.turn.drawn
    s, ev = run(s, Force(seat=2, target=1))
    assert [(e.seat, e.card) for e in of_type(ev, PluckVoided)] == [(1, plucked)]
    assert s.hand.muck[-1] == plucked and s.hand.turn.drawn == card("7H")
    s, _ = run(s, AddToMeld(seat=1, meld=1), Discard(seat=1, card=card("6C")))
    assert s.hand.option is None and to_act(s) == 2


def _seat0_run(extra_hand: str = "7D", stock: str = ""):
    """Seat 0's board is 4H 5H 6H after his first turn (he discards 2C)."""
    hand = f"4H 5H 2C 6C QC 3D KD AS JC {extra_hand}"
    s = knock(table([hand, INERT_B, INERT_C], stock=f"6H {stock}"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("4H 5H")), Discard(seat=0, card=card("2C")))
    return s


def test_case_58_force_back_a_pluck_until_two_draws() -> None:
    """§10 case 58: seat 0 discards his usable pluck 7H; any other player may force it back until two draws."""
    s = _seat0_run(stock=f"{JUNK} {JUNK} 7H {JUNK} {JUNK}")
    s = junk_turns(s, 1, 2)
    s, _ = run(s, Pluck(seat=0), Discard(seat=0))
    assert to_act(s) == 1 and s.hand.option == card("7H")
    assert Force(seat=2, target=0, card=card("7H")) in legal_actions(s, 2)
    assert Force(seat=1, target=0, card=card("7H")) in legal_actions(s, 1)
    # the force-back: seat 0 lays it off, discards a hand card, and seat 1's turn resumes
    f, ev = run(s, Force(seat=2, target=0))
    assert of_type(ev, Forced)[0].back and to_act(f) == 0 and f.hand.turn.forced_back
    f, _ = run(f, AddToMeld(seat=0, meld=1), Discard(seat=0, card=card("6C")))
    assert f.hand.players[0].melds[0].cards == cards("4H 5H 6H 7H")
    assert to_act(f) == 1 and f.hand.turn.step is Step.DRAW and f.hand.option is None
    assert len(f.hand.players[0].hand) + f.hand.players[0].board_count == 10
    # one draw behind: the drawer lost the right, the other player keeps it
    s, _ = run(s, Pluck(seat=1))
    assert not can(s, Force(seat=1, target=0)) and can(s, Force(seat=2, target=0))
    # two draws behind: nobody may force it back
    s, _ = run(s, Discard(seat=1), Pluck(seat=2))
    with pytest.raises(RuleViolation) as exc:
        apply(s, Force(seat=2, target=0))
    assert exc.value.code == "force_refused" and not can(s, Force(seat=1, target=0))


def test_case_59_force_back_a_hand_discard() -> None:
    """§10 case 59: 7H discarded from the hand while 4H 5H 6H is on the board is forced back (not an option card)."""
    hand = "4H 5H 7H 2C 6C QC 3D KD AS JC"
    s = knock(table([hand, INERT_B, INERT_C], stock=f"6H {JUNK} {JUNK}"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("4H 5H")), Discard(seat=0, card=card("7H")))
    assert s.hand.option is None and not can(s, TakeOption(seat=1))
    s, ev = run(s, Force(seat=1, target=0, card=card("7H")))
    assert of_type(ev, Forced)[0].back
    s, _ = run(s, AddToMeld(seat=0, meld=1), Discard(seat=0, card=card("2C")))
    assert s.hand.players[0].melds[0].cards == cards("4H 5H 6H 7H") and to_act(s) == 1
    # and it expires after two draws behind
    s2 = knock(table([hand, INERT_B, INERT_C], stock=f"6H {JUNK} {JUNK}"))
    s2, _ = run(s2, Pluck(seat=0), NewMeld(seat=0, cards=cards("4H 5H")), Discard(seat=0, card=card("7H")))
    s2 = junk_turns(s2, 1)
    s2, _ = run(s2, Pluck(seat=2))
    assert not can(s2, Force(seat=1, target=0)) and not can(s2, Force(seat=2, target=0))


@pytest.mark.parametrize(
    ("run_cards", "hit", "out_card", "outs", "bust_out"),
    [("4H 5H", "6H", "7H", 1, 0), ("3H 4H", "2H", "AH", 2, 1)],
)
def test_case_61_pyramiding_forced_back_puts_out(
    run_cards: str, hit: str, out_card: str, outs: int, bust_out: int
) -> None:
    """§10 case 61: a flat player who discards his out-card is forced out at the current pay; no bust-out
    bonus unless the out play itself makes a condition (AH making a C4)."""
    s = _flat_seat0(f"{JUNK} {JUNK} {out_card}", run_cards=run_cards, hit=hit)
    s = junk_turns(s, 1, 2)
    s, _ = run(s, Pluck(seat=0), Discard(seat=0))  # declines the out (pyramiding)
    assert to_act(s) == 1
    assert Force(seat=2, target=0, card=card(out_card)) in legal_actions(s, 2)
    stacks = [x.stack for x in s.seats[:3]]
    tops = s.singles_tops
    s, ev = run(s, Force(seat=2, target=0), AddToMeld(seat=0, meld=1))
    assert s.hand is None and s.last_hand.winner == 0
    went = of_type(ev, WentOut)[0]
    assert (went.outs_units, went.bust_out_units) == (outs, bust_out)
    for payer in (1, 2):
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.BUST_OUT) == bust_out
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.OUTS) == outs
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.GOING_OUT) == 2
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.CONDITION) == bust_out
    assert s.seats[0].stack == stacks[0] + 2 * (2 * bust_out + outs + 2) + tops


def test_no_out_card_force_when_its_discarder_is_fouled() -> None:
    """§5.3: an out-card may be forced on a flat player only when he declined it (pyramiding), when the same
    card puts its discarder out for more, or head-up. Four in the hand: seat 3's unused pluck 7H would put
    flat seat 0 out; the floor fouls seat 3; three are still in action and none of the cases holds."""
    from pancog.game import FloorFoul
    from pancog.game.errors import ForceRefused

    s = _flat_seat0(f"{JUNK} {JUNK} 7H {JUNK}", others=(INERT_B, INERT_C, INERT_A))
    s = junk_turns(s, 1, 2, 3)
    s, _ = run(s, FloorFoul(target=3))
    assert s.hand.option == card("7H") and to_act(s) == 0
    for caller in (1, 2):
        assert not any(isinstance(a, Force) for a in legal_actions(s, caller))
        with pytest.raises(ForceRefused, match="no card you can force"):
            apply(s, Force(seat=caller))


def test_a_turn_handed_on_after_a_foul_starts_with_no_conditions() -> None:
    """§4.6 bust-out: only conditions made on the going-out turn itself are paid twice. Seat 2 is fouled by
    the floor before he draws; the turn passes to seat 0 (flat), whose pluck 7H puts him out on a rope with
    neither Ace nor King: no bust-out bonus. Seat 1 pays the outs (JC QC KC: 1) and the 2 going-out units;
    so does the fouled seat 2 (§6.3: he stays liable for the outs)."""
    from pancog.game import FloorFoul

    s = _flat_seat0(f"{JUNK} 7H")
    s = junk_turns(s, 1)
    assert to_act(s) == 2
    s, _ = run(s, FloorFoul(target=2))
    assert to_act(s) == 0
    s, ev = run(s, Pluck(seat=0), AddToMeld(seat=0, meld=1))
    went = of_type(ev, WentOut)[0]
    assert (went.outs_units, went.bust_out_units) == (1, 0)
    for payer in (1, 2):
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.BUST_OUT) == 0
        assert chips(ev, payer=payer, payee=0) == 1 + 2


def test_bust_out_off_pays_no_bonus() -> None:
    """G21 with ``bust_out = off``: going out with AH (making a C4, 1 unit) collects the condition once,
    the outs (2: the two C4 ropes) and the 2 going-out units, and no bust-out bonus."""
    from pancog.game.rules import BustOut

    rules = Rules(going_out_units=2, bust_out=BustOut.OFF)
    s = _flat_seat0(f"{JUNK} {JUNK} AH", run_cards="3H 4H", hit="2H", rules=rules)
    s = junk_turns(s, 1, 2)
    stacks = [x.stack for x in s.seats[:3]]
    tops = s.singles_tops
    s, ev = run(s, Pluck(seat=0), AddToMeld(seat=0, meld=1))
    went = of_type(ev, WentOut)[0]
    assert (went.outs_units, went.bust_out_units) == (2, 0)
    for payer in (1, 2):
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.BUST_OUT) == 0
        assert chips(ev, payer=payer, payee=0) == 1 + 2 + 2
    assert s.seats[0].stack == stacks[0] + 2 * 5 + tops


# --- payments and settlement --------------------------------------------------------------------


def test_case_63_condition_paid_by_four() -> None:
    """§10 case 63: five in, P1 melds 5S 5S 5S: each of the 4 others pays 4 (+16)."""
    hands = ["5S 5S 2C 6C QC 3D 7D KD 4H JH", INERT_B, INERT_C, INERT_B, INERT_C]
    s = knock(table(hands, stock="5S"), 5)
    s, ev = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S")))
    assert [(e.payer, e.amount) for e in of_type(ev, ChipsMoved)] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert s.seats[0].stack == 99 + 16


def _go_out_on_second_turn(rules: Rules):
    """Seat 0 (4 players) melds 5S 5S 5S (4) and JS QS KS (2) on turn 1, goes out on turn 2 with 2D-6D (0)."""
    hand = "5S 5S JS QS KS 2D 3D 4D 5D 7C"
    s = knock(table([hand, INERT_B, INERT_C, INERT_B], stock=f"5S {JUNK} {JUNK} {JUNK} 6D", rules=rules), 4)
    s, _ = run(
        s,
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("5S 5S")),
        NewMeld(seat=0, cards=cards("JS QS KS")),
        Discard(seat=0, card=card("7C")),
    )
    s = junk_turns(s, 1, 2, 3)
    return run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("2D 3D 4D 5D")))


def test_case_64_going_out_pays_outs_units_and_tops() -> None:
    """§10 case 64: board conditions 6, no condition on the final play, 3 opponents: each pays 6 + 2; + tops."""
    s, ev = _go_out_on_second_turn(TWO_UNITS)
    assert of_type(ev, WentOut)[0].outs_units == 6 and of_type(ev, WentOut)[0].bust_out_units == 0
    for payer in (1, 2, 3):
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.OUTS) == 6
        assert chips(ev, payer=payer, payee=0, reason=ChipReason.GOING_OUT) == 2
        assert chips(ev, payer=payer, payee=0) == 8
    assert chips(ev, payee=0, reason=ChipReason.TOPS) == 4 and s.singles_tops == 0


def test_case_66_going_out_units_zero() -> None:
    """§10 case 66: going_out_units = 0 turns case 64 into 6 per opponent."""
    _s, ev = _go_out_on_second_turn(Rules(going_out_units=0))
    for payer in (1, 2, 3):
        assert chips(ev, payer=payer, payee=0) == 6
    assert chips(ev, reason=ChipReason.GOING_OUT) == 0


def test_case_68_table_stakes_bust() -> None:
    """§10 case 68: a player with 2 chips owing 4 pays 2, is busted, skipped, and cannot win."""
    hands = ["5S 5S 2C 6C QC 3D 7D KD 4H JH", INERT_B, INERT_C]
    s = knock(table(hands, stock=f"5S {JUNK} {JUNK}", stacks=[100, 100, 3], rules=Rules(min_buyin_chips=1)))
    assert s.seats[2].stack == 2
    s, ev = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S")))
    assert chips(ev, payer=2, payee=0) == 2 and chips(ev, payer=1, payee=0) == 4
    assert s.seats[2].stack == 0 and s.hand.players[2].status is PlayerStatus.BUSTED
    assert [e.seat for e in of_type(ev, PlayerBusted)] == [2] and s.hand.players[2].hand == ()
    s, _ = run(s, Discard(seat=0, card=card("2C")), Pluck(seat=1), Discard(seat=1))
    assert to_act(s) == 0  # seat 2 is skipped
    assert not can(s, Force(seat=2)) and legal_actions(s, 2) == ()


def test_case_71_doubles_tops_carry_over() -> None:
    """§10 case 71: a singles winner takes only the singles tops; the doubles tops carry over."""
    s = table([INERT_A, INERT_B, INERT_C], doubles=[True, False, True])
    assert (s.singles_tops, s.doubles_tops) == (3, 2)
    s, ev = run(s, GoOnTop(seat=0), Knock(seat=1), GoOnTop(seat=2))
    assert chips(ev, payee=1, reason=ChipReason.TOPS) == 3
    assert (s.singles_tops, s.doubles_tops) == (0, 2)
    assert s.seats[1].stack == 102


def test_case_72_spades_double_off() -> None:
    """§10 case 72: with spades_double off, 5S 5S 5S collects 2 and JS QS KS 1 from each player."""
    r = Rules(spades_double=False)
    s = knock(table(["5S 5S JS QS KS 2C 6C QC 3D 7D", INERT_B, INERT_C], stock="5S", rules=r))
    s, ev1 = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S")))
    s, ev2 = run(s, NewMeld(seat=0, cards=cards("JS QS KS")))
    assert chips(ev1, payer=1, payee=0) == 2 and chips(ev2, payer=1, payee=0) == 1
    assert [m.units for m in of_type(ev1 + ev2, Melded)] == [2, 1]


def test_case_hand_ended_event_for_every_end() -> None:
    """Every ending emits exactly one HandEnded (checked on the lone-player end)."""
    s = table([INERT_A, INERT_B])
    s, ev = run(s, GoOnTop(seat=0), Knock(seat=1))
    assert [e.reason for e in of_type(ev, HandEnded)] == [EndReason.LONE]
