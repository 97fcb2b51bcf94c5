"""The flow of turns and hands: refusals between and during hands, who is first hand after a hand nobody won,
when a busted payer leaves the hand, what the option card is at each point of a turn, the decline of the second
pluck, going out with an unclaimed pay, and a lone player's timeout.

Expected values come from RULES.md (and docs/rules.md where the engine had to decide): every test
names the section it checks. Seats 0, 1, 2 play in that rotation; see ``test_cases`` for the INERT
hands (no single card melds with them).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pancog.game import (
    AddToMeld,
    CardPlucked,
    ChipReason,
    Claim,
    DeclineDraw,
    Discard,
    FloorFoul,
    Force,
    GoOnTop,
    HandStarted,
    Knock,
    NewMeld,
    PlayerBusted,
    PlayerStatus,
    Pluck,
    Rebuy,
    Rules,
    RuleViolation,
    SetStakes,
    Sit,
    StartHand,
    TableState,
    TakeOption,
    Timeout,
    apply,
    can,
    initial_state,
    observe,
    to_act,
)
from pancog.game.engine import HandInProgress
from pancog.game.rules import ClaimMode
from pancog.game.state import Step
from tests.game.conftest import cards, chips, of_type, run, stacked_shoe, table
from tests.game.test_cases import INERT_A, INERT_B, INERT_C

DEFERRED = Rules(claim_mode=ClaimMode.DEFERRED, min_buyin_chips=1)


def seated(n: int = 3, rules: Rules | None = None) -> TableState:
    s = initial_state(rules or Rules())
    for i in range(n):
        s = apply(s, Sit(player_id=1000 + i, buy_in=100, seat=i)).state
    return s


def knock(s: TableState, n: int = 3) -> TableState:
    """Every seat declares in."""
    return run(s, *[Knock(seat=i) for i in range(n)])[0]


# --- between and during hands ----------------------------------------------------------------


def test_dealing_needs_a_seed_or_a_stacked_shoe() -> None:
    """A StartHand with neither a seed nor a shoe has no deck to deal: refused, not a crash."""
    s = seated()
    with pytest.raises(RuleViolation, match="seed or a stacked shoe"):
        apply(s, StartHand())
    assert not can(s, StartHand())


def test_stakes_change_only_between_hands() -> None:
    """SetStakes' contract (actions.py; docs/rules.md is silent): the ante changes between hands, a
    tournament level applies from the next deal, so a hand pays at the stakes it was dealt at. Mid-hand
    the change is refused and the rules stay as they were."""
    s = table([INERT_A, INERT_B, INERT_C])
    with pytest.raises(HandInProgress):
        apply(s, SetStakes(ante_chips=5))
    assert s.rules.ante_chips == 1


@dataclass(frozen=True, slots=True, kw_only=True)
class _TaggedRebuy(Rebuy):
    """An action subclass, as a caller might tag actions: the engine must treat it as its base."""

    tag: str = "from the lobby"


def test_an_action_subclass_is_applied_like_its_base() -> None:
    """``apply`` dispatches on the action's class: a subclass of Rebuy is a rebuy, not ignored."""
    s = seated()
    after = apply(s, _TaggedRebuy(seat=1, amount=25)).state
    assert after.seats[1] is not None and after.seats[1].stack == 125
    assert after.seats[1].stack == apply(s, Rebuy(seat=1, amount=25)).state.seats[1].stack  # type: ignore[union-attr]


def test_after_a_hand_nobody_won_the_next_first_hand_follows_the_last() -> None:
    """§2.2/§2.6: first hand = the previous winner; with no winner (nobody declared in, §2.5) the engine
    takes the next dealt-in seat after the previous first hand (docs/rules.md, "First hand")."""
    s = table([INERT_A, INERT_B, INERT_C], first=1)
    s, ev = run(s, GoOnTop(seat=1), GoOnTop(seat=2), GoOnTop(seat=0))
    assert s.hand is None and s.last_hand is not None and s.last_hand.first == 1
    shoe = stacked_shoe([INERT_C, INERT_A, INERT_B])
    s, ev = run(s, StartHand(shoe=shoe))
    assert of_type(ev, HandStarted)[0].first == 2
    assert s.hand is not None and sorted(s.hand.player(2).hand) == sorted(cards(INERT_C))  # dealt first


# --- busting on a claim ----------------------------------------------------------------------


def test_a_claim_that_empties_a_payer_busts_him_at_once() -> None:
    """§4.8: a player whose stack reaches 0 during a hand is busted (dead hand, skipped) — also when the
    chips go out on a deferred claim (§4.5). Seat 1 antes 1 of his 2 chips; 5S 5S + the plucked 5S is
    4 units (§10 case 2): seat 1 pays his last chip and is busted by the claim itself."""
    hand0 = "5S 5S " + " ".join(INERT_A.split()[:8])
    s = knock(table([hand0, INERT_B, INERT_C], stock="5S", rules=DEFERRED, stacks=[100, 2, 100]))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5S 5S")))
    assert s.hand is not None and s.hand.player(0).unclaimed == 4
    s, ev = run(s, Claim(seat=0))
    assert chips(ev, payer=1, payee=0, reason=ChipReason.CONDITION) == 1
    assert chips(ev, payer=2, payee=0, reason=ChipReason.CONDITION) == 4
    assert [e.seat for e in of_type(ev, PlayerBusted)] == [1]
    assert s.hand is not None and s.hand.player(1).status is PlayerStatus.BUSTED


# --- the option card -------------------------------------------------------------------------


def test_option_card_lapses_once_the_player_in_turn_melds_his_pluck() -> None:
    """§2.7: the option card is the previous player's unused pluck, for the player in turn instead of a
    pluck; once he has plucked and used his pluck there is none on the board (and none for him)."""
    hand1 = "5D 5C " + " ".join(INERT_A.split()[:8])
    s = knock(table([INERT_B, hand1, INERT_C], stock="KH KH 5H"))
    s, _ = run(s, Pluck(seat=0), Discard(seat=0), Pluck(seat=0), Discard(seat=0))
    assert s.hand is not None and s.hand.option == cards("KH")[0] and s.hand.option_from == 0
    s, _ = run(s, Pluck(seat=1), NewMeld(seat=1, cards=cards("5D 5C")))
    assert s.hand is not None and s.hand.turn is not None and s.hand.turn.step is Step.MELDING
    assert s.hand.option is None and s.hand.option_from is None
    assert observe(s, 1).option is None and observe(s, 2).option is None


def test_forcing_back_the_option_card_takes_it_off_the_board() -> None:
    """§5.2: seat 0 discards a pluck (JH) that lays off on his 5H 6H 7H; it is seat 1's option card
    (§2.7) until seat 2 forces it back on seat 0. Then it is out of the muck, and no longer an option."""
    hand0 = "5H 6H 2C 6C QC 3D 7D KD AS 5S"
    s = knock(table([hand0, INERT_B, INERT_C], stock="7H KH KH JH"))
    s, _ = run(s, Pluck(seat=0), NewMeld(seat=0, cards=cards("5H 6H")), Discard(seat=0, card=cards("2C")[0]))
    s, _ = run(s, Pluck(seat=1), Discard(seat=1), Pluck(seat=2), Discard(seat=2), Pluck(seat=0), Discard(seat=0))
    jh = cards("JH")[0]
    assert s.hand is not None and s.hand.option == jh and s.hand.muck[-1] == jh
    s, _ = run(s, Force(seat=2, target=0, card=jh))
    assert s.hand is not None and s.hand.turn is not None and s.hand.turn.seat == 0 and s.hand.turn.drawn == jh
    assert jh not in s.hand.muck
    assert s.hand.option is None and observe(s, 1).option is None
    s, _ = run(s, AddToMeld(seat=0, meld=1, cards=()), Discard(seat=0, card=cards("6C")[0]))
    assert to_act(s) == 1 and not can(s, TakeOption(seat=1))


def test_declining_the_second_pluck_leaves_the_first_as_the_option_card() -> None:
    """§2.7 double draw: the first player's unused first pluck, when he declines the second, is the last
    card he discarded unused, so it is the next player's option card. Seat 1 takes 5H for 5D 5C: a
    mixed set, 1 unit from each other player (§10 case 1)."""
    hand1 = "5D 5C " + " ".join(INERT_A.split()[:8])
    s = knock(table([INERT_B, hand1, INERT_C], stock="5H KH"))
    s, _ = run(s, Pluck(seat=0), Discard(seat=0), DeclineDraw(seat=0))
    assert to_act(s) == 1
    assert s.hand is not None and s.hand.option == cards("5H")[0]
    s, ev = run(s, TakeOption(seat=1), NewMeld(seat=1, cards=cards("5D 5C")))
    assert chips(ev, payee=1, reason=ChipReason.CONDITION) == 2
    assert s.hand is not None and s.hand.stock[0] == cards("KH")[0]  # nobody touched the stock since


# --- going out with an unclaimed pay ---------------------------------------------------------


def test_going_out_collects_the_unclaimed_pay_and_leaves_none_unclaimed() -> None:
    """§4.5/§4.6 deferred claims: seat 0 claims his first melds, then goes out with AC on 2C 3C 4C 5C —
    a C4 (1 unit, as in rules_cases/bust_out.pan) he has no time to claim. Going out collects it from
    each player, and the finished hand shows no unit left unclaimed."""
    hand0 = "5S 5S QD QD QD 2C 3C 4C 5C 7H"
    s = knock(table([hand0, INERT_B, INERT_C], stock="5S KH KH AC", rules=DEFERRED))
    s, _ = run(
        s,
        Pluck(seat=0),
        NewMeld(seat=0, cards=cards("5S 5S")),
        NewMeld(seat=0, cards=cards("QD QD QD")),
        NewMeld(seat=0, cards=cards("2C 3C 4C 5C")),
        Claim(seat=0),
        Discard(seat=0, card=cards("7H")[0]),
    )
    s, _ = run(s, Pluck(seat=1), Discard(seat=1), Pluck(seat=2), Discard(seat=2), Pluck(seat=0))
    s, ev = run(s, AddToMeld(seat=0, meld=3, cards=()))
    assert s.hand is None and s.last_hand is not None and s.last_hand.winner == 0
    assert chips(ev, payer=1, payee=0, reason=ChipReason.CONDITION) == 1
    assert chips(ev, payer=2, payee=0, reason=ChipReason.CONDITION) == 1
    assert s.last_hand.players[0] is not None and s.last_hand.players[0].unclaimed == 0


# --- timeouts --------------------------------------------------------------------------------


def test_a_lone_players_timeout_plays_one_turn() -> None:
    """docs/rules.md "Timeout": the minimal move for the seat to act — one turn (pluck, discard). A player
    left alone by fouls (§6.4, one_left = play_out) is in turn again after his discard; the timeout
    still stops there."""
    s = knock(table([INERT_A, INERT_B, INERT_C], stock="KH KH"))
    s, _ = run(s, Pluck(seat=0), Discard(seat=0), DeclineDraw(seat=0))
    s, _ = run(s, FloorFoul(target=0), FloorFoul(target=2))
    assert s.hand is not None and s.hand.solo and to_act(s) == 1
    s, ev = run(s, Timeout(seat=1))
    assert len(of_type(ev, CardPlucked)) == 1
    assert to_act(s) == 1 and s.hand is not None and s.hand.turn is not None and s.hand.turn.step is Step.DRAW


def test_knock_is_refused_without_a_hand() -> None:
    """§2.5 declarations belong to a hand: with none in progress a knock is refused, nothing changes."""
    s = seated()
    with pytest.raises(RuleViolation, match="No hand"):
        apply(s, Knock(seat=0))
