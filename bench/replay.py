"""Replay benchmark: one step's images against a live board, and the shared animation of a long 8-seat hand.

Run: .venv/bin/python -m bench.replay [--runs N] [--cpu] [--min-actions 250]
Pins itself to one CPU core. Plays 8-seat hands from seeded deals (the engine's plays, a seeded mix of the
best-paying and random legal moves) until one lasts at least ``--min-actions`` actions, then measures, warm:

- the live board at each step of that hand (table_snapshot + render + PNG: what the bot posts);
- a replay step: its public board (board_snapshot + render + PNG), and board + the viewer's hand;
- building the replay (log replay + per-step observation), and the shared animation (frames + GIF): time, bytes.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from collections.abc import Callable

import PIL

from pancog.adapter import replay_images
from pancog.adapter.presenters.replay import board_snapshot
from pancog.adapter.presenters.table import table_snapshot
from pancog.game import engine
from pancog.game.actions import Sit, StartHand
from pancog.game.notation import format_action
from pancog.game.rules import Rules
from pancog.game.state import TableState, initial_state
from pancog.services.replay import TableLog, build_replay
from renderer import render_table, to_png

PLAYERS = tuple(range(1001, 1009))
NAMES = {p: f"Player {i + 1}" for i, p in enumerate(PLAYERS)}
_clock = time.perf_counter


def long_hand(min_actions: int, seed: int = 1) -> tuple[list[str], list[TableState]]:
    """Action texts of a table (8 seats, one hand of at least ``min_actions`` actions) and the states of that hand."""
    rules = Rules()
    rng = random.Random(seed)
    for attempt in range(200):
        state = initial_state(rules, table_id=7)
        texts: list[str] = []
        for p in PLAYERS:
            action = Sit(player_id=p, buy_in=400)
            state = engine.apply(state, action).state
            texts.append(format_action(action))
        deal = StartHand(seed=seed * 1000 + attempt)
        state = engine.apply(state, deal).state
        texts.append(format_action(deal))
        states = [state]
        while state.hand is not None:
            seat = engine.to_act(state)
            assert seat is not None
            menu = [a for a, _ in engine.plays(state, seat)]
            action = menu[0] if rng.random() < 0.5 else rng.choice(menu)
            state = engine.apply(state, action).state
            texts.append(format_action(action))
            states.append(state)
        if len(states) >= min_actions:
            return texts, states
    raise SystemExit(f"no hand of {min_actions} actions in 200 deals")


def _times(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = _clock()
        fn()
        out.append((_clock() - start) * 1000)
    return sorted(out)


def _p99(xs: list[float]) -> float:
    return xs[min(len(xs) - 1, round(0.99 * (len(xs) - 1)))]


def options() -> argparse.Namespace:
    """The options of a bench over the long hand (``--runs``, ``--min-actions``, ``--cpu``), read; pinned to one
    core."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3, help="passes over every step of the hand")
    parser.add_argument("--min-actions", type=int, default=250)
    parser.add_argument("--cpu", action="store_true", help="time CPU used (process_time), not wall time")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    return args


def empty_log() -> TableLog:
    """The bench table's log before its first action (extend it with the long hand's texts)."""
    return TableLog(table_id=7, title="Bench", rules=Rules(), state=initial_state(Rules(), table_id=7))


def main() -> None:
    args = options()
    global _clock
    if args.cpu:
        _clock = time.process_time
    texts, states = long_hand(args.min_actions)
    rows = [(i + 1, text, "") for i, text in enumerate(texts)]
    log = empty_log()
    start = _clock()
    log.extend(rows)
    extend_ms = (_clock() - start) * 1000
    start = _clock()
    viewer = build_replay(log, 1, PLAYERS[0])
    build_ms = (_clock() - start) * 1000
    stranger = build_replay(log, 1, 0)
    n = len(viewer.steps)
    render_table(table_snapshot(states[0], NAMES, title="Bench"))  # warm the sprites and fonts

    def live(i: int) -> bytes:
        return to_png(render_table(table_snapshot(states[i], NAMES, title="Bench", notes=(f"move {i}",))))

    def step_board(i: int) -> bytes:
        return to_png(render_table(board_snapshot(viewer, i, NAMES)))

    def step_both(i: int) -> tuple[bytes, bytes | None]:
        return replay_images.render_step(viewer, i, NAMES)

    results: dict[str, list[float]] = {"live": [], "board": [], "both": []}
    for _ in range(args.runs):
        for i in range(n):  # interleaved, so machine noise hits all three alike
            results["live"] += _times(lambda i=i: live(i), 1)  # type: ignore[misc]
            results["board"] += _times(lambda i=i: step_board(i), 1)  # type: ignore[misc]
            results["both"] += _times(lambda i=i: step_both(i), 1)  # type: ignore[misc]
    exports = []
    data = b""
    for _ in range(args.runs):
        start = _clock()
        data = replay_images.share_animation(stranger, NAMES)
        exports.append((_clock() - start) * 1000)
    clock = "CPU time" if args.cpu else "wall time"
    print(f"Python {platform.python_version()}, Pillow {PIL.__version__}, 1 core, {clock}")
    print(f"hand: 8 seats, {n} actions (deal included); log replay {extend_ms:.0f} ms, build_replay {build_ms:.0f} ms")
    print("| figure | median / p99 ms |")
    print("|---|---|")
    for key, label in (
        ("live", "live board (table_snapshot + render + PNG)"),
        ("board", "replay step: public board (+ its line)"),
        ("both", "replay step: board + the viewer's hand"),
    ):
        xs = sorted(results[key])
        print(f"| {label} | {statistics.median(xs):.1f} / {_p99(xs):.1f} |")
    frames = len(replay_images.frame_groups(n, replay_images.MAX_FRAMES)) + 1
    print(
        f"| animation: {frames} frames (incl. outcome), GIF | {statistics.median(exports):.0f} ms "
        f"(best {min(exports):.0f}), {len(data):,} bytes |"
    )


if __name__ == "__main__":
    main()
