"""Guards for the engine's fast paths (docs/perf/engine.md): positional constructors, caches."""

from __future__ import annotations

import dataclasses
import inspect
import random

from pancog.game import Rules, Sit, StartHand, apply, initial_state, legal_actions, to_act
from pancog.game import _work as eng
from pancog.game.actions import Discard, Pluck
from pancog.game.events import CardPlucked, ChipsMoved, Discarded
from pancog.game.melds import make_meld
from pancog.game.moves import _hand_counts, meld_plays
from pancog.game.state import ForceBack, HandState, Seat, Step, TableState, Turn

# The engine calls these constructors positionally, in this field order.
ASSUMED_ORDER = {
    HandState: (
        "hand_no seed first order players phase declare_pos draws stock muck dead option option_from turn suspended "
        "force_backs make_good split_offer reshuffled solo winner end_reason last_declarer"
    ),
    TableState: (
        "rules table_id seats singles_tops doubles_tops house married previous_winner previous_first hand_no hand "
        "last_hand seq"
    ),
    Turn: "seat step drawn source extra_pluck forced_back new_units enhanced_units second_pluck",
    ForceBack: "card owner position draws drawers pluck",
    ChipsMoved: "seq private_to payer payee amount reason",
    CardPlucked: "seq private_to seat card",
    Discarded: "seq private_to seat card pluck",
    Discard: "seat card",
    Pluck: "seat",
    Seat: "player_id stack doubles away leaving",
}


def test_positional_constructors_follow_field_order() -> None:
    for cls, names in ASSUMED_ORDER.items():
        assert tuple(f.name for f in dataclasses.fields(cls)) == tuple(names.split()), cls.__name__


def test_positional_builder_equals_constructor() -> None:
    t = eng._NEW_TURN(3, Step.DRAW, None, None, False, False, 0, 0, False)
    assert t == Turn(seat=3)
    assert list(inspect.signature(eng._NEW_TURN).parameters) == ASSUMED_ORDER[Turn].split()


def _table() -> TableState:
    s = initial_state(Rules())
    for i in range(8):
        s = apply(s, Sit(player_id=i + 1, buy_in=500)).state
    return s


def test_working_copy_freezes_to_an_equal_state() -> None:
    """_Work(state).freeze() rebuilds the very same state at every step of a few hands."""
    s = _table()
    rng = random.Random(7)
    for k in range(3):
        s = apply(s, StartHand(seed=100 + k)).state
        while s.hand is not None:
            w = eng.Work(s, s.seq)
            assert w.freeze() == s
            seat = to_act(s)
            assert seat is not None
            s = apply(s, rng.choice(legal_actions(s, seat))).state


def test_make_meld_cache_keeps_ids_and_rules_apart() -> None:
    from pancog.game.cards import parse_cards

    cards = parse_cards("5S 5S 5S")
    a = make_meld(1, cards, Rules())
    b = make_meld(4, cards, Rules())
    c = make_meld(4, cards, Rules(spades_double=False))
    assert (a.id, b.id) == (1, 4) and a.cards == b.cards
    assert c == make_meld(4, list(cards), Rules(spades_double=False))


def test_hand_cache_is_by_identity_and_value_safe() -> None:
    from pancog.game.cards import parse_cards

    hand = parse_cards("5S 5H 6H 7H QD")
    hc1, _ = _hand_counts(hand)
    hc2, _ = _hand_counts(tuple(hand))  # an equal tuple (maybe another object) gives equal counts
    assert hc1 == hc2
    as_list = list(hand)
    assert meld_plays(0, as_list, (), parse_cards("5D")[0], Rules()) == meld_plays(
        0, hand, (), parse_cards("5D")[0], Rules()
    )


def test_working_copy_holds_every_state_field_by_its_own_name() -> None:
    """The working copy's attributes are the dataclasses' fields (derived, not listed by hand)."""
    slots = set(eng.Work.__slots__)
    table_fields = {f.name for f in dataclasses.fields(TableState)} - {"table_id", "hand"}
    hand_fields = {f.name for f in dataclasses.fields(HandState)} - {"hand_no", "seed", "first", "order"}
    assert table_fields <= slots and hand_fields <= slots


def test_working_copy_generator_refuses_a_field_the_class_lacks() -> None:
    from pancog.game import _fast

    try:
        _fast.working_copy(Turn, fixed=("no_such_field",))
    except TypeError as exc:
        assert "no_such_field" in str(exc)
    else:
        raise AssertionError("an unknown field was accepted")


def test_every_refusal_the_menu_skips_is_the_one_apply_raises() -> None:
    """The menu lists an action exactly when apply accepts it: for each in-turn action kind the
    menu leaves out at a step, apply refuses it (one refusal function answers both)."""
    from pancog.game import RuleViolation
    from pancog.game.actions import Claim, TakeOption

    s = _table()
    rng = random.Random(11)
    checked = 0
    for k in range(2):
        s = apply(s, StartHand(seed=400 + k)).state
        while s.hand is not None:
            seat = to_act(s)
            assert seat is not None
            listed = legal_actions(s, seat)
            for probe in (Pluck(seat=seat), TakeOption(seat=seat), Discard(seat=seat), Claim(seat=seat)):
                accepted = True
                try:
                    apply(s, probe)
                except RuleViolation:
                    accepted = False
                assert accepted == (probe in listed), (probe, listed)
                checked += 1
            s = apply(s, rng.choice(listed)).state
    assert checked > 100
