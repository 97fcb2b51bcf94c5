"""Engine benchmark: greedy self-play of complete 8-player hands, and legal_actions latency.

Run: .venv/bin/python bench/engine.py [--hands N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pancog.game import (
    AddToMeld,
    Borrow,
    Discard,
    GoOnTop,
    Knock,
    NewMeld,
    Pluck,
    Rules,
    Sit,
    StartHand,
    TableState,
    apply,
    initial_state,
    legal_actions,
    to_act,
)
from pancog.game.state import Phase, Step


def greedy(state: TableState, seat: int):
    """The play melding the most cards, else pluck (or the forced take) and discard."""
    acts = legal_actions(state, seat)
    best, best_n = None, -1
    for a in acts:
        if isinstance(a, NewMeld | AddToMeld | Borrow):
            n = len(a.cards) + (len(a.taken) if isinstance(a, Borrow) else 0)
            if n > best_n:
                best, best_n = a, n
    if best is not None:
        return best
    for kind in (Knock, Pluck, Discard):
        for a in acts:
            if isinstance(a, kind) and not (isinstance(a, Discard) and False):
                return a
    return next(a for a in acts if not isinstance(a, GoOnTop)) if acts else None


def table(seed: int) -> TableState:
    s = initial_state(Rules())
    for i in range(8):
        s = apply(s, Sit(player_id=i + 1, buy_in=10_000)).state
    return s


def play_hand(s: TableState, seed: int) -> tuple[TableState, int]:
    s = apply(s, StartHand(seed=seed)).state
    n = 1
    while s.hand is not None:
        seat = to_act(s)
        a = greedy(s, seat)
        s = apply(s, a).state
        n += 1
    return s, n


def latency_samples(count: int) -> list[float]:
    """legal_actions timings on a 10-card hand holding a drawn card (a pluck just taken)."""
    out: list[float] = []
    rng = random.Random(1)
    while len(out) < count:
        s = table(0)
        s = apply(s, StartHand(seed=rng.randrange(10**9))).state
        for i in s.hand.order:
            s = apply(s, Knock(seat=i)).state
        seat = to_act(s)
        s = apply(s, Pluck(seat=seat)).state
        assert s.hand.turn.step is Step.DRAWN and len(s.hand.players[seat].hand) == 10
        t0 = time.perf_counter()
        legal_actions(s, seat)
        out.append(time.perf_counter() - t0)
        # and once more mid-hand after a hit, if the pluck was usable
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=200)
    args = ap.parse_args()
    s = table(0)
    actions = []
    t0 = time.perf_counter()
    for k in range(args.hands):
        s, n = play_hand(s, 1000 + k)
        actions.append(n)
    dt = time.perf_counter() - t0
    reasons = s.last_hand.end_reason if s.last_hand else None
    lat = sorted(latency_samples(500))
    p50 = lat[len(lat) // 2] * 1000
    p99 = lat[int(len(lat) * 0.99)] * 1000
    print(f"hands: {args.hands} in {dt:.2f} s -> {args.hands / dt:.1f} complete 8-player hands/s (one core)")
    print(f"mean actions per hand: {statistics.mean(actions):.1f}")
    print(f"legal_actions on a 10-card hand with a drawn card: p50 {p50:.3f} ms, p99 {p99:.3f} ms")
    print(f"(last hand ended: {reasons})")
    _ = Phase


if __name__ == "__main__":
    main()
