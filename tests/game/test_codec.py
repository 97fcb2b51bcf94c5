"""The state codec: exact round trips of every reachable state, snapshot + tail = full replay, strict reading."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pancog.game import (
    Action,
    Rebuy,
    Rules,
    SetAway,
    Sit,
    Stand,
    StartHand,
    TableState,
    Timeout,
    apply,
    initial_state,
    parse_cards,
    plays,
    to_act,
)
from pancog.game.cards import ALL_CARDS, Suit
from pancog.game.codec import FORMAT_VERSION, StateFormatError, dump_state, load_state
from pancog.game.errors import RuleViolation
from pancog.game.melds import Condition, Meld, MeldKind
from pancog.game.notation import format_action, parse_action
from pancog.game.rules import (
    ClaimMode,
    Enforcement,
    ForceMode,
    OneLeft,
    StartMode,
    StockExhausted,
)
from pancog.game.state import (
    DrawSource,
    EndReason,
    ForceBack,
    HandState,
    Phase,
    PlayerHand,
    PlayerStatus,
    Seat,
    Step,
    Turn,
)

# Each variant with the most players its shoe deals; together they reach upcards, forcing, splits,
# reshuffles, solo play, make-good demands, deferred claims, rake and non-standard decks.
VARIANTS: list[tuple[Rules, int]] = [
    (Rules(), 8),
    (Rules.preset("classic"), 8),
    (Rules.preset("online"), 8),
    (Rules(force_mode=ForceMode.MANDATORY, one_left=OneLeft.SETTLE_NOW, stock_exhausted=StockExhausted.VOID_HAND), 8),
    (Rules(start_mode=StartMode.UPCARD, deck_count=2, borrow_split_rope=True, retire_forfeit_chips=2), 6),
    (Rules(deck_count=2, enforcement=Enforcement.PLAYERS, abandon_timeouts=1), 6),
    (Rules(beans=True, rake=1, claim_mode=ClaimMode.DEFERRED, deck_count=3), 6),
    (
        Rules(
            claim_mode=ClaimMode.FORFEIT,
            extra_cards=parse_cards("5S 5S"),
            extra_removals=parse_cards("KD"),
            chip_value="0.25",
        ),
        8,
    ),
]


def random_session(seed: int, rules: Rules, players: int, budget: int) -> Iterator[tuple[Action, TableState]]:
    """Random legal play from an empty table (table id ``seed``): seats coming and going, away flags, rebuys.

    Yields (action, state after it) for every applied action, the opening ``Sit``s included.
    """
    rng = random.Random(seed)
    s = initial_state(rules, table_id=seed)
    next_player = 100

    listed: set[Action] = set()

    def step(state: TableState, action: Action) -> TableState | None:
        """Apply ``action``; an action the legal menu listed must apply (a refusal fails the test)."""
        if action in listed:
            return apply(state, action).state
        try:
            return apply(state, action).state
        except RuleViolation:  # an unlisted system action (a sit at a full table, a stand mid-hand ...)
            return None

    for _ in range(players):
        sit = Sit(player_id=next_player, buy_in=rng.choice([40, 60, 80]), doubles=rng.random() < 0.3)
        next_player += 1
        after = step(s, sit)
        if after is not None:
            s = after
            yield sit, s
    applied = 0
    while applied < budget:
        occupied = [i for i, x in enumerate(s.seats) if x is not None]
        candidates: list[Action] = []
        listed.clear()
        if s.hand is None:
            for i in occupied:
                seat = s.seats[i]
                assert seat is not None
                if seat.stack <= 2 * (rules.ante + rules.rake) + 2:
                    candidates.append(Rebuy(seat=i, amount=rules.min_buyin_chips * 2))
            if not candidates:
                roll = rng.random()
                if roll < 0.1 and len(occupied) > 2:
                    candidates.append(Stand(seat=rng.choice(occupied)))
                elif roll < 0.2 and len(occupied) < players:
                    candidates.append(Sit(player_id=next_player, buy_in=60))
                    next_player += 1
                elif roll < 0.3:
                    i = rng.choice(occupied)
                    seat = s.seats[i]
                    assert seat is not None
                    candidates.append(SetAway(seat=i, away=not seat.away))
                else:
                    candidates.append(StartHand(seed=rng.randrange(10**9)))
        else:
            actor = to_act(s)
            assert actor is not None
            roll = rng.random()
            if roll < 0.03:
                candidates.append(Timeout(seat=actor))
            elif roll < 0.05:
                i = rng.choice(occupied)
                seat = s.seats[i]
                assert seat is not None
                candidates.append(SetAway(seat=i, away=not seat.away))
            elif roll < 0.055:
                candidates.append(Stand(seat=rng.choice(occupied)))
            elif roll < 0.15:
                other = rng.choice(occupied)
                candidates += [a for a, _ in plays(s, other)]
                listed.update(candidates)
            menu = [a for a, _ in plays(s, actor)]
            listed.update(menu)
            candidates.append(menu[0] if rng.random() < 0.5 else rng.choice(menu))
        action = candidates[0] if len(candidates) == 1 or rng.random() < 0.3 else rng.choice(candidates)
        after = step(s, action)
        if after is None:
            continue
        s = after
        applied += 1
        yield action, s


def assert_round_trip(state: TableState) -> None:
    text = dump_state(state)
    back = load_state(text)
    assert back == state
    assert dump_state(back) == text  # canonical: the same state always gives the same text


@pytest.mark.parametrize(("variant", "seed"), [(v, seed) for v in range(len(VARIANTS)) for seed in (1, 2)])
def test_codec_round_trips_every_state_of_random_sessions(variant: int, seed: int) -> None:
    """Every state of 450 random legal actions (several whole hands) round-trips exactly."""
    rules, most = VARIANTS[variant]
    hands = 0
    for action, state in random_session(seed * 1000 + variant, rules, most, 450):
        assert_round_trip(state)
        hands += isinstance(action, StartHand)
    assert hands >= 2


def _seen(states: list[TableState]) -> set[str]:
    """Which rarely-set fields took a non-default value somewhere in ``states``."""
    seen: set[str] = set()
    for s in states:
        for name, hit in (
            ("married", bool(s.married)),
            ("house", s.house > 0),
            ("doubles_tops", s.doubles_tops > 0),
            ("away", any(x is not None and x.away for x in s.seats)),
            ("leaving", any(x is not None and x.leaving for x in s.seats)),
            ("doubles", any(x is not None and x.doubles for x in s.seats)),
        ):
            if hit:
                seen.add(name)
        for h in (s.hand, s.last_hand):
            if h is None:
                continue
            for name, hit in (
                ("option", h.option is not None),
                ("force_backs", bool(h.force_backs)),
                ("suspended", h.suspended is not None),
                ("make_good", h.make_good is not None),
                ("split_offer", h.split_offer is not None),
                ("reshuffled", h.reshuffled),
                ("solo", h.solo),
                ("dead", bool(h.dead)),
                ("received", any(p is not None and p.received for p in h.players)),
                ("unclaimed", any(p is not None and p.unclaimed for p in h.players)),
                ("multiplier", any(p is not None and p.multiplier > 1 for p in h.players)),
                ("invalid_meld", any(p is not None and any(not m.valid for m in p.melds) for p in h.players)),
            ):
                if hit:
                    seen.add(name)
    return seen


def test_codec_sessions_reach_the_rare_fields() -> None:
    """The random sessions above do reach mid-hand states with forcing, option cards, doubles, away flags ..."""
    states = [
        state
        for variant, (rules, most) in enumerate(VARIANTS)
        for seed in (1, 2)
        for _action, state in random_session(seed * 1000 + variant, rules, most, 450)
    ]
    seen = _seen(states)
    expected = {"house", "doubles_tops", "away", "leaving", "doubles", "option", "force_backs", "received"}
    expected |= {"reshuffled", "dead", "unclaimed", "multiplier", "split_offer", "married", "solo", "suspended"}
    assert expected <= seen, expected - seen


def test_codec_snapshot_then_tail_equals_full_replay() -> None:
    """A state loaded from a snapshot, then fed the remaining logged actions, equals the full replay."""
    for variant, (rules, most) in enumerate(VARIANTS):
        seed = 77 + variant
        session = list(random_session(seed, rules, most, 300))
        log = [format_action(action) for action, _ in session]
        full = initial_state(rules, table_id=seed)
        for text in log:
            full = apply(full, parse_action(text)).state
        assert full == session[-1][1]
        rng = random.Random(variant)
        for cut in sorted(rng.sample(range(len(log)), 8)):
            resumed = load_state(dump_state(session[cut][1]))
            for text in log[cut + 1 :]:
                resumed = apply(resumed, parse_action(text)).state
            assert resumed == full


# --------------------------------------------------------------------------------------------- arbitrary states

cards_st = st.lists(st.sampled_from(ALL_CARDS), max_size=12).map(tuple)
card_st = st.sampled_from(ALL_CARDS)
small = st.integers(-3, 10**6)
opt_small = st.none() | small
pairs_st = st.lists(st.tuples(small, small), max_size=3).map(tuple)

meld_st = st.builds(
    Meld,
    id=small,
    kind=st.sampled_from(MeldKind),
    cards=cards_st,
    condition=st.sampled_from(Condition),
    suit=st.none() | st.sampled_from(Suit),
    paid=small,
    paid_high=small,
    valid=st.booleans(),
)
player_st = st.builds(
    PlayerHand,
    seat=small,
    status=st.sampled_from(PlayerStatus),
    multiplier=small,
    hand=cards_st,
    melds=st.lists(meld_st, max_size=3).map(tuple),
    next_meld_id=small,
    received=pairs_st,
    unclaimed=small,
    timeouts=small,
)
turn_st = st.builds(
    Turn,
    seat=small,
    step=st.sampled_from(Step),
    drawn=st.none() | card_st,
    source=st.none() | st.sampled_from(DrawSource),
    extra_pluck=st.booleans(),
    forced_back=st.booleans(),
    new_units=small,
    enhanced_units=small,
)
force_back_st = st.builds(
    ForceBack,
    card=card_st,
    owner=small,
    position=small,
    draws=small,
    drawers=st.lists(small, max_size=3).map(tuple),
    pluck=st.booleans(),
)
hand_st = st.builds(
    HandState,
    hand_no=small,
    seed=st.none() | st.integers(0, 2**62),
    first=small,
    order=st.lists(small, max_size=4).map(tuple),
    players=st.lists(st.none() | player_st, max_size=4).map(tuple),
    phase=st.sampled_from(Phase),
    declare_pos=small,
    draws=small,
    stock=cards_st,
    muck=cards_st,
    dead=cards_st,
    option=st.none() | card_st,
    option_from=opt_small,
    turn=st.none() | turn_st,
    suspended=st.none() | turn_st,
    force_backs=st.lists(force_back_st, max_size=2).map(tuple),
    make_good=st.none() | st.tuples(small, small),
    split_offer=opt_small,
    reshuffled=st.booleans(),
    solo=st.booleans(),
    winner=opt_small,
    end_reason=st.none() | st.sampled_from(EndReason),
    last_declarer=opt_small,
)
seat_st = st.builds(
    Seat, player_id=small, stack=small, doubles=st.booleans(), away=st.booleans(), leaving=st.booleans()
)
rules_st = st.sampled_from([r for r, _ in VARIANTS])
state_st = st.builds(
    TableState,
    rules=rules_st,
    table_id=st.integers(0, 2**63 - 1),
    seats=st.lists(st.none() | seat_st, max_size=4).map(tuple),
    singles_tops=small,
    doubles_tops=small,
    house=small,
    married=pairs_st,
    previous_winner=opt_small,
    previous_first=opt_small,
    hand_no=small,
    hand=st.none() | hand_st,
    last_hand=st.none() | hand_st,
    seq=small,
)


@settings(max_examples=150, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(state=state_st)
def test_codec_round_trips_arbitrary_field_values(state: TableState) -> None:
    """Every field of every state class is written and read back (values need not be reachable)."""
    assert_round_trip(state)


def test_codec_covers_every_field() -> None:
    """The strict reader names every dataclass field; a dump holds exactly those keys."""
    data = json.loads(dump_state(initial_state()))
    assert data["v"] == FORMAT_VERSION
    assert set(data["state"]) == {f.name for f in dataclasses.fields(TableState)}
    assert set(data["state"]["rules"]) == {f.name for f in dataclasses.fields(Rules)}


# --------------------------------------------------------------------------------------------- malformed input


def _mid_hand() -> str:
    """A state in the middle of a hand, with a turn in progress."""
    mid = [s for _a, s in random_session(5, Rules(), 4, 40) if s.hand is not None and s.hand.turn is not None]
    return dump_state(mid[-1])


def _mutate(text: str, path: list[str | int], value: object, *, delete: bool = False) -> str:
    data = json.loads(text)
    node = data
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return json.dumps(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: "", "not JSON"),
        (lambda t: "{not json", "not JSON"),
        (lambda t: "[]", "'v' and 'state'"),
        (lambda t: _mutate(t, ["v"], 99), "version 99"),
        (lambda t: _mutate(t, ["v"], True), "version True"),
        (lambda t: _mutate(t, ["v"], "1"), "version '1'"),
        (lambda t: _mutate(t, ["extra"], 1), "'v' and 'state'"),
        (lambda t: _mutate(t, ["state", "seq"], "12"), "state.seq: expected an integer"),
        (lambda t: _mutate(t, ["state", "seq"], True), "state.seq: expected an integer"),
        (lambda t: _mutate(t, ["state", "seq"], 1.5), "state.seq: expected an integer"),
        (lambda t: _mutate(t, ["state", "seq"], None, delete=True), "missing fields ['seq']"),
        (lambda t: _mutate(t, ["state", "colour"], "red"), "unknown fields ['colour']"),
        (lambda t: _mutate(t, ["state", "seats"], {}), "state.seats: expected an array"),
        (lambda t: _mutate(t, ["state", "seats", 0, "away"], 0), "state.seats[0].away: expected true or false"),
        (lambda t: _mutate(t, ["state", "hand", "stock"], "5S8H"), "state.hand.stock: expected two-letter"),
        (lambda t: _mutate(t, ["state", "hand", "stock"], "5S7"), "state.hand.stock: expected two-letter"),
        (lambda t: _mutate(t, ["state", "hand", "phase"], "napping"), "state.hand.phase: expected a Phase"),
        (lambda t: _mutate(t, ["state", "hand", "make_good"], [1, 2, 3]), "make_good: expected a pair"),
        (lambda t: _mutate(t, ["state", "hand", "option"], "5S5S"), "state.hand.option: expected one card"),
        (lambda t: _mutate(t, ["state", "rules", "max_players"], 99), "invalid rules"),
        (lambda t: _mutate(t, ["state", "rules", "force_mode"], "always"), "expected a ForceMode"),
        (lambda t: _mutate(t, ["state", "rules", "beans"], None, delete=True), "missing fields ['beans']"),
    ],
)
def test_codec_refuses_malformed_text(change: object, message: str) -> None:
    text = _mid_hand()
    assert load_state(text).hand is not None
    assert callable(change)
    with pytest.raises(StateFormatError, match=message.replace("[", r"\[").replace("(", r"\(")):
        load_state(change(text))


def test_codec_refuses_non_text() -> None:
    with pytest.raises(StateFormatError):
        load_state(None)  # type: ignore[arg-type]
    with pytest.raises(StateFormatError):
        load_state(json.dumps({"v": FORMAT_VERSION, "state": []}))
