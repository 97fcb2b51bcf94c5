"""Random legal play (hypothesis): conservation of cards and chips, turn structure, termination.

The run is deterministic (``derandomize=True``, no example database): every example plays
exactly ``ACTIONS_PER_SESSION`` actions (players short of chips rebuy between hands, so a
session never stalls), and the test asserts the total across the run is at least 10,000.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pancog.game import (
    Action,
    BoughtIn,
    CashedOut,
    ChipsMoved,
    Phase,
    PlayerStatus,
    Rebuy,
    Rules,
    Sit,
    StartHand,
    Step,
    TableState,
    Timeout,
    apply,
    initial_state,
    plays,
    to_act,
)
from pancog.game.rules import Enforcement, ForceMode, OneLeft, StartMode, StockExhausted

ACTIONS_PER_SESSION = 560
EXAMPLES = 19  # 19 x 560 = 10,640 actions per run
MIN_TOTAL_ACTIONS = 10_000
MAX_ACTIONS_PER_HAND = 3_000  # every hand must end well before this


def _cards_in_play(s: TableState) -> Counter:
    h = s.hand
    assert h is not None
    c = Counter(h.stock) + Counter(h.muck) + Counter(h.dead)
    for pl in h.players:
        if pl is not None:
            c += Counter(pl.hand)
            for m in pl.melds:
                c += Counter(m.cards)
    for t in (h.turn, h.suspended):
        if t is not None and t.drawn is not None:
            c[t.drawn] += 1
    return c


def _chips(s: TableState) -> int:
    return sum(x.stack for x in s.seats if x is not None) + s.singles_tops + s.doubles_tops + s.house


# Each variant with the most players its shoe can deal (10 cards each, +1 upcard, and some stock).
RULE_VARIANTS: list[tuple[Rules, int]] = [
    (Rules(), 8),
    (Rules.preset("classic"), 8),
    (Rules.preset("online"), 8),
    (Rules(force_mode=ForceMode.MANDATORY, one_left=OneLeft.SETTLE_NOW, stock_exhausted=StockExhausted.VOID_HAND), 8),
    # 80 cards: at most 6 players (60 dealt + upcard) so the stock runs out and is reshuffled
    (Rules(start_mode=StartMode.UPCARD, deck_count=2, borrow_split_rope=True, retire_forfeit_chips=2), 6),
    (Rules(deck_count=2, enforcement=Enforcement.PLAYERS, abandon_timeouts=1), 6),
]


def _deal_ready(s: TableState) -> tuple[TableState, int]:
    """Rebuy every seat that could not ante the next hand; returns (state, rebuy actions applied)."""
    r = s.rules
    n = 0
    for i, seat in enumerate(s.seats):
        if seat is not None and seat.stack <= 2 * (r.ante + r.rake) + 1:
            s = apply(s, Rebuy(seat=i, amount=r.min_buyin_chips * 2)).state
            n += 1
    return s, n


def _check_transition(s: TableState, action: Action) -> TableState:
    before = _chips(s)
    t = apply(s, action)
    delta = 0
    for e in t.events:
        if isinstance(e, ChipsMoved):
            assert e.amount > 0 and e.payer != e.payee
        elif isinstance(e, BoughtIn):
            delta += e.amount
        elif isinstance(e, CashedOut):
            delta -= e.amount
    assert _chips(t.state) == before + delta, "chips conserved"
    assert all(x is None or x.stack >= 0 for x in t.state.seats)
    assert t.state.seq == s.seq + 1
    return t.state


def play_session(seed: int, n_players: int, rules: Rules, budget: int) -> tuple[int, int]:
    """Random legal play with invariant checks; returns (actions applied, hands finished)."""
    rng = random.Random(seed)
    s = initial_state(rules)
    for i in range(n_players):
        dbl = rules.allow_doubles and rng.random() < 0.3
        s = apply(s, Sit(player_id=100 + i, buy_in=rng.choice([40, 60, 80]), doubles=dbl)).state
    shoe = Counter(rules.shoe())
    actions = hands = in_hand = 0
    while actions < budget:
        if s.hand is None:
            s, k = _deal_ready(s)
            actions += k
            s = _check_transition(s, StartHand(seed=rng.randrange(10**9)))
            actions += 1
            in_hand = 0
            continue
        seat = to_act(s)
        assert seat is not None, "exactly one seat to act while the hand runs"
        h = s.hand
        assert _cards_in_play(s) == shoe, "cards conserved"
        if h.phase is Phase.PLAYING and h.turn is not None and h.turn.step is Step.DRAW and not h.turn.forced_back:
            for pl in h.players:
                if pl is not None and pl.status is PlayerStatus.IN:
                    assert len(pl.hand) + pl.board_count == 10, "board + hand = 10 between turns"
        menu = [a for a, _ in plays(s, seat)]
        assert menu, "the seat to act has a legal action"
        roll = rng.random()
        if roll < 0.03:
            action: Action = Timeout(seat=seat)
        elif roll < 0.12:
            # out of turn: one other seat's menu (forces, foul calls, split answers)
            others = [i for i, x in enumerate(s.seats) if x is not None and i != seat]
            other_menu = [a for a, _ in plays(s, rng.choice(others))] if others else []
            action = rng.choice(other_menu) if other_menu else rng.choice(menu)
        elif roll < 0.14:
            # every enumerated action applies (spot check of the whole menu)
            for a in menu:
                apply(s, a)
            action = rng.choice(menu)
        else:
            action = menu[0] if rng.random() < 0.5 else rng.choice(menu)
        s = _check_transition(s, action)
        actions += 1
        in_hand += 1
        assert in_hand < MAX_ACTIONS_PER_HAND, "the hand terminates"
        if s.hand is None:
            hands += 1
    return actions, hands


def test_random_play_invariants() -> None:
    """Random legal play keeps every invariant; at least 10,000 actions over the run (deterministic)."""
    totals: list[int] = []

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        seed=st.integers(0, 10**6),
        variant=st.integers(0, len(RULE_VARIANTS) - 1),
        players=st.integers(2, 8),
    )
    def session(seed: int, variant: int, players: int) -> None:
        rules, most = RULE_VARIANTS[variant]
        actions, _hands = play_session(seed, min(players, most), rules, ACTIONS_PER_SESSION)
        assert actions >= ACTIONS_PER_SESSION
        totals.append(actions)

    session()
    assert sum(totals) >= MIN_TOTAL_ACTIONS, sum(totals)


def test_every_hand_terminates() -> None:
    """Random play on a small shoe finishes many hands (stock exhaustion voids at worst)."""
    _actions, hands = play_session(7, 6, Rules(deck_count=2), 1500)
    assert hands >= 3
