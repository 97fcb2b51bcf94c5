"""Random legal play (hypothesis): conservation of cards and chips, turn structure, termination."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pancog.game import (
    BoughtIn,
    CashedOut,
    ChipsMoved,
    Phase,
    PlayerStatus,
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


RULE_VARIANTS = [
    Rules(),
    Rules.preset("classic"),
    Rules.preset("online"),
    Rules(force_mode=ForceMode.MANDATORY, one_left=OneLeft.SETTLE_NOW, stock_exhausted=StockExhausted.VOID_HAND),
    Rules(start_mode=StartMode.UPCARD, deck_count=2, borrow_split_rope=True, retire_forfeit_chips=2),
    Rules(deck_count=2, enforcement=Enforcement.PLAYERS, abandon_timeouts=1),
]


def play_session(seed: int, n_players: int, rules: Rules, max_actions: int) -> tuple[int, int]:
    """Random legal play with invariant checks; returns (actions applied, hands finished)."""
    rng = random.Random(seed)
    s = initial_state(rules)
    for i in range(n_players):
        dbl = rules.allow_doubles and rng.random() < 0.3
        s = apply(s, Sit(player_id=100 + i, buy_in=rng.choice([40, 60, 80]), doubles=dbl)).state
    shoe = Counter(rules.shoe())
    actions = hands = 0
    while actions < max_actions:
        if s.hand is None:
            try:
                t = apply(s, StartHand(seed=rng.randrange(10**9)))
            except Exception:
                break
            s = t.state
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
        others = [a for i, x in enumerate(s.seats) if x is not None and i != seat for a, _ in plays(s, i)]
        assert menu, "the seat to act has a legal action"
        roll = rng.random()
        if roll < 0.03:
            action = Timeout(seat=seat)
        elif others and roll < 0.10:
            action = rng.choice(others)
        else:
            action = menu[0] if rng.random() < 0.5 else rng.choice(menu)
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
        s = t.state
        actions += 1
        if s.hand is None:
            hands += 1
    return actions, hands


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10**6), n=st.integers(2, 8), variant=st.integers(0, len(RULE_VARIANTS) - 1))
def test_random_play_invariants(seed: int, n: int, variant: int) -> None:
    """Random legal play keeps every invariant (>= 10,000 actions over the run)."""
    actions, _hands = play_session(seed, n, RULE_VARIANTS[variant], 900)
    assert actions > 0


def test_every_hand_terminates() -> None:
    """Greedy play from many seeds always finishes hands (stock exhaustion voids at worst)."""
    _actions, hands = play_session(7, 6, Rules(deck_count=2), 4000)
    assert hands >= 3
