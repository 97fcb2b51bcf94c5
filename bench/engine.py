"""Engine benchmark: greedy self-play of complete 8-player hands, and legal_actions latency.

Run: .venv/bin/python -m bench.engine [--hands N] [--repeat R]

Hands per second are counted in CPU time of this thread (``time.thread_time``), i.e. per second
of one core, so that other processes on a shared machine do not count against the engine; the
wall-clock rate is printed too. ``--repeat`` runs the self-play R times and reports the best and
the median run (the machine's load varies).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import timeit
from collections import Counter

from pancog.game import (
    Action,
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
from pancog.game.cards import ALL_CARDS
from pancog.game.state import Step


def greedy(state: TableState, seat: int) -> Action:
    """The play melding the most cards, else knock / pluck (or the forced take) / discard."""
    acts = legal_actions(state, seat)
    best: Action | None = None
    best_n = -1
    for a in acts:
        if isinstance(a, NewMeld | AddToMeld | Borrow):
            n = len(a.cards) + (len(a.taken) if isinstance(a, Borrow) else 0)
            if n > best_n:
                best, best_n = a, n
    if best is not None:
        return best
    for kind in (Knock, Pluck, Discard):
        for a in acts:
            if isinstance(a, kind):
                return a
    return next(a for a in acts if not isinstance(a, GoOnTop))


def table() -> TableState:
    s = initial_state(Rules())
    for i in range(8):
        s = apply(s, Sit(player_id=i + 1, buy_in=10_000)).state
    return s


def play_hand(s: TableState, seed: int) -> tuple[TableState, int]:
    s = apply(s, StartHand(seed=seed)).state
    n = 1
    while s.hand is not None:
        seat = to_act(s)
        assert seat is not None
        s = apply(s, greedy(s, seat)).state
        n += 1
    return s, n


def self_play(hands: int) -> tuple[float, float, list[int]]:
    """(CPU seconds, wall seconds, actions per hand) for ``hands`` complete hands."""
    s = table()
    actions: list[int] = []
    t0, c0 = time.perf_counter(), time.thread_time()
    for k in range(hands):
        s, n = play_hand(s, 1000 + k)
        actions.append(n)
    return time.thread_time() - c0, time.perf_counter() - t0, actions


def latency_samples(count: int) -> list[float]:
    """legal_actions CPU timings on a 10-card hand holding a drawn card (a pluck just taken)."""
    out: list[float] = []
    rng = random.Random(1)
    base = table()
    while len(out) < count:
        s = apply(base, StartHand(seed=rng.randrange(10**9))).state
        assert s.hand is not None
        for i in s.hand.order:
            s = apply(s, Knock(seat=i)).state
        seat = to_act(s)
        assert seat is not None
        s = apply(s, Pluck(seat=seat)).state
        assert s.hand is not None and s.hand.turn is not None
        pl = s.hand.players[seat]
        assert s.hand.turn.step is Step.DRAWN and pl is not None and len(pl.hand) == 10
        t0 = time.thread_time()
        legal_actions(s, seat)
        out.append(time.thread_time() - t0)
    return out


def all_step_latency(hands: int) -> list[float]:
    """legal_actions CPU timings for the seat to act at every step of greedy self-play."""
    s = table()
    out: list[float] = []
    for k in range(hands):
        s = apply(s, StartHand(seed=5000 + k)).state
        while s.hand is not None:
            seat = to_act(s)
            assert seat is not None
            t0 = time.thread_time()
            legal_actions(s, seat)
            out.append(time.thread_time() - t0)
            s = apply(s, greedy(s, seat)).state
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))] * 1000


def counter_us() -> float:
    """Microseconds to count 120 cards in a Counter (best of 5): what the edge's check and the AI do with Cards."""
    cards = list(ALL_CARDS) * 3
    return min(timeit.repeat(lambda: Counter(cards), number=2000, repeat=5)) / 2000 * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    runs = [self_play(args.hands) for _ in range(args.repeat)]
    rates = sorted(args.hands / cpu for cpu, _wall, _a in runs)
    cpu, wall, actions = runs[0]
    print(
        f"self-play: {args.hands} complete 8-player hands x {args.repeat} run(s): "
        f"best {rates[-1]:.1f} hands/s, median {statistics.median(rates):.1f} hands/s per CPU-second of one core "
        f"(first run {cpu:.2f} s CPU, {wall:.2f} s wall = {args.hands / wall:.1f} hands/s wall clock)"
    )
    print(f"mean actions per hand: {statistics.mean(actions):.1f}")
    lat = latency_samples(500)
    print(f"legal_actions, 10-card hand holding a drawn card: p50 {pct(lat, 0.5):.3f} ms, p99 {pct(lat, 0.99):.3f} ms")
    every = all_step_latency(20)
    print(
        f"legal_actions, seat to act at every step of self-play ({len(every)} calls): "
        f"p50 {pct(every, 0.5):.3f} ms, p99 {pct(every, 0.99):.3f} ms, max {max(every) * 1000:.3f} ms"
    )
    print(f"a Counter of 120 cards: {counter_us():.2f} us (each Card hashed once per count)")


if __name__ == "__main__":
    main()
