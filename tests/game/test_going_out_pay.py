"""``engine.going_out_pay``: what a player would be paid by going out now, as the settlement posts it."""

from __future__ import annotations

from pancog.game import AddToMeld, ChipsMoved, Discard, GoOnTop, Knock, NewMeld, Pluck, Pot, apply, parse_cards
from pancog.game.engine import call_outs, going_out_pay
from pancog.game.events import ChipReason
from pancog.game.rules import Rules
from pancog.game.state import TableState
from tests.game.conftest import run, table

A = "AC 2C 3C 4D 5D 6D JH QH KH 7C"
B = "JS KS 4H 6H JD 3D 5H 7D 2H QC"
C = "2S 4S 6S 2H 4H 6H 2D 4D 6D KC"


def flat_a(rules: Rules | None = None, stacks: tuple[int, int] = (100, 100)) -> TableState:
    """A has laid AC 2C 3C 4C, 4D 5D 6D and JH QH KH (flat); B has plucked and discarded: A to draw."""
    s = table([A, B], "4C 6S 5C", rules=rules, stacks=stacks)
    s, _ = run(
        s,
        Knock(seat=0),
        Knock(seat=1),
        Pluck(seat=0),
        NewMeld(seat=0, cards=parse_cards("AC 2C 3C")),
        NewMeld(seat=0, cards=parse_cards("4D 5D 6D")),
        NewMeld(seat=0, cards=parse_cards("JH QH KH")),
        Discard(seat=0, card=parse_cards("7C")[0]),
        Pluck(seat=1),
        Discard(seat=1),
    )
    return s


def by_payer(moves: tuple[ChipsMoved, ...]) -> dict[object, int]:
    out: dict[object, int] = {}
    for m in moves:
        out[m.payer] = out.get(m.payer, 0) + m.amount
    return out


def test_the_hypothetical_is_the_outs_and_going_out_units_from_each_payer_then_the_tops() -> None:
    """Without a play: the board as it lies pays the outs and the going-out units (``call_outs``) from each payer,
    then the tops; nothing changes."""
    cases = ((Rules(), {ChipReason.OUTS}), (Rules(going_out_units=2), {ChipReason.OUTS, ChipReason.GOING_OUT}))
    for rules, reasons in cases:
        s = flat_a(rules)
        moves = going_out_pay(s, 0)
        paid = by_payer(moves)
        assert paid[1] == call_outs(s, 0) > 0
        assert {m.reason for m in moves if m.payer == 1} == reasons
        assert paid[Pot.SINGLES] == s.singles_tops > 0
        assert s == flat_a(rules)  # a scratch copy: the state is untouched
    assert by_payer(going_out_pay(flat_a(Rules(going_out_units=2)), 1)) == {0: 2, Pot.SINGLES: 2}  # no board: units


def test_a_going_out_play_pays_exactly_what_applying_it_pays() -> None:
    """With the play that empties the hand: the very postings of the settlement (conditions, outs, tops)."""
    s, _ = run(flat_a(), Pluck(seat=0))
    play = AddToMeld(seat=0, meld=1)
    applied = tuple(e for e in apply(s, play).events if isinstance(e, ChipsMoved) and e.payee == 0)
    assert going_out_pay(s, 0, play) == applied and applied
    assert going_out_pay(s, 0, Discard(seat=0)) == ()  # not a going-out play


def test_a_short_payer_pays_only_his_stack() -> None:
    """Capped by the payer's stack, as the settlement caps it: B has 1 chip left of the 2 the outs ask."""
    s = flat_a(Rules(min_buyin_chips=1), stacks=(100, 4))
    assert s.seats[1] is not None and s.seats[1].stack == 1
    assert by_payer(going_out_pay(s, 0)) == {1: 1, Pot.SINGLES: 2}


def test_nothing_for_a_player_not_in_action_nor_during_declarations() -> None:
    """During declarations, and for a player who went on top: nothing to collect; the others still pay."""
    s = table([A, B, C], "4C 6S 5C")
    assert going_out_pay(s, 0) == ()  # declaring
    s, _ = run(s, Knock(seat=0), Knock(seat=1), GoOnTop(seat=2), Pluck(seat=0))
    assert going_out_pay(s, 2) == ()
    assert by_payer(going_out_pay(s, 1)) == {Pot.SINGLES: 3}  # no board yet: the tops only (C went on top: not liable)
