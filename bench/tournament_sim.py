"""Tournament simulation: whole Sit & Gos and multi-table events of computer players, to choose the defaults.

Run: .venv/bin/python -m bench.tournament_sim [--sng 16] [--mtt 5] [--stack 300] [--ante 10] [--level-minutes M]

Pure and fast: the engine and the computer players (normal level) play every hand directly (no database, no
Discord), with the tournament's own pure parts (the level schedule, the balancer). Tables play at the same time:
a discrete-event clock gives each hand a duration of ``--hand-overhead`` seconds (dealing, reading the board) plus
``--seconds-per-action`` for every decision in it, and levels change by that clock (a new level applies from the
next deal, as in the service). A player who cannot cover the ante is out. Prints the median (and quartiles) of the
hands played and the length in minutes for 7-player Sit & Gos and for a 40-entry event (7 seats a table).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from dataclasses import dataclass

from pancog.ai import Level, make_player
from pancog.ai.base import Player
from pancog.ai.selfplay import play_hand
from pancog.game.actions import SetStakes, Sit, Stand
from pancog.game.engine import apply
from pancog.game.rules import Rules
from pancog.game.state import TableState, initial_state
from pancog.services.tournaments.balancer import BalanceTable, plan
from pancog.services.tournaments.levels import LevelSchedule, default_antes
from pancog.services.tournaments.model import (
    DEFAULT_BASE_ANTE,
    DEFAULT_LEVEL_MINUTES,
    DEFAULT_SNG_LEVEL_MINUTES,
    DEFAULT_STACK,
)


@dataclass
class Result:
    hands: int
    minutes: float
    last_level: int
    moves: int


def _seat_of(state: TableState, pid: int) -> int | None:
    return next((i for i, s in enumerate(state.seats) if s is not None and s.player_id == pid), None)


def simulate(
    entries: int,
    seats: int,
    stack: int,
    schedule: LevelSchedule,
    player: Player,
    *,
    seed: int,
    per_action: float,
    overhead: float,
) -> Result:
    rng = random.Random(seed)
    rules = Rules(max_players=seats, min_buyin_chips=1, ante_chips=schedule.ante(0))
    ids = list(range(1, entries + 1))
    rng.shuffle(ids)
    n_tables = max(1, math.ceil(entries / seats))
    tables: dict[int, TableState] = {}
    clock: dict[int, float] = {}
    moved: dict[int, int] = dict.fromkeys(ids, 0)
    for k in range(n_tables):
        tables[k] = initial_state(rules, table_id=k)
        clock[k] = 0.0
    for i, pid in enumerate(ids):
        k = i % n_tables
        free = [s for s, x in enumerate(tables[k].seats) if x is None]
        tables[k] = apply(tables[k], Sit(player_id=pid, buy_in=stack, seat=rng.choice(free))).state
    hands = moves = 0
    next_table = n_tables
    while True:
        alive = sum(1 for st in tables.values() for s in st.seats if s is not None)
        if alive <= 1:
            break
        playable = [k for k, st in tables.items() if sum(1 for s in st.seats if s is not None) >= 2]
        # (everyone alone at a table: all idle, the balancer below gathers them)
        k = min(playable or tables, key=lambda x: (clock[x], x))
        now = clock[k]
        ante = schedule.at(now).ante
        if k in playable:
            state = tables[k]
            if state.rules.ante_chips != ante:
                state = apply(state, SetStakes(ante_chips=ante)).state
            res = play_hand(state, [player] * seats, seed=rng.getrandbits(62))
            hands += 1
            state = res.state
            clock[k] = now + overhead + per_action * res.actions
            now = clock[k]
            ante = schedule.at(now).ante
            for i, s in enumerate(state.seats):  # busts: cannot cover the ante of the next deal
                if s is not None and s.stack <= ante:
                    state = apply(state, Stand(seat=i)).state
            tables[k] = state
        # balance: tables whose next hand starts later than now are mid-hand (busy)
        picture = [
            BalanceTable(
                table_id=t,
                players=tuple((s.player_id, moved[s.player_id]) for s in st.seats if s is not None),
                busy=clock[t] > now,
            )
            for t, st in tables.items()
        ]
        result = plan(picture, seats)
        if result.final_table:
            players = [(s.player_id, s.stack) for st in tables.values() for s in st.seats if s is not None]
            rng.shuffle(players)
            final = initial_state(dataclass_rules(rules, ante), table_id=next_table)
            for pid, chips in players:
                final = apply(final, Sit(player_id=pid, buy_in=chips)).state
                moves += 1
            start = max(clock.values())
            tables, clock = {next_table: final}, {next_table: start}
            next_table += 1
            continue
        if result.waiting and not result.moves and sum(len(p.players) for p in picture) <= seats:
            clock[k] = min(c for t, c in clock.items() if t != k)  # wait for the others' hands (final table)
        for m in result.moves:
            src, dst = tables[m.from_table], tables[m.to_table]
            seat = _seat_of(src, m.entry_id)
            assert seat is not None
            chips = src.seats[seat].stack  # type: ignore[union-attr]
            tables[m.from_table] = apply(src, Stand(seat=seat)).state
            free = [i for i, s in enumerate(dst.seats) if s is None]
            tables[m.to_table] = apply(dst, Sit(player_id=m.entry_id, buy_in=chips, seat=rng.choice(free))).state
            moved[m.entry_id] += 1
            moves += 1
            clock[m.to_table] = max(clock[m.to_table], now)
        for t in result.broken:
            del tables[t]
            del clock[t]
    end = max(clock.values())
    return Result(hands, end / 60, schedule.at(end).level + 1, moves)


def dataclass_rules(rules: Rules, ante: int) -> Rules:
    import dataclasses

    return dataclasses.replace(rules, ante_chips=ante)


def summary(name: str, results: list[Result]) -> str:
    def q(values: list[float]) -> str:
        qs = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
        return f"median {qs[1]:.0f} (quartiles {qs[0]:.0f}-{qs[2]:.0f})"

    return (
        f"{name}: {len(results)} runs; hands {q([r.hands for r in results])}; "
        f"minutes {q([r.minutes for r in results])}; last level {q([r.last_level for r in results])}; "
        f"moves {q([r.moves for r in results])}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sng", type=int, default=12, help="7-player Sit & Gos to play")
    ap.add_argument("--mtt", type=int, default=4, help="40-entry events to play")
    ap.add_argument("--stack", type=int, default=DEFAULT_STACK)
    ap.add_argument("--ante", type=int, default=DEFAULT_BASE_ANTE, help="first ante; then x1.5, 2, 3, 4, 6, 8 ...")
    ap.add_argument(
        "--level-minutes",
        type=float,
        default=None,
        help=f"default {DEFAULT_SNG_LEVEL_MINUTES:g} for a Sit & Go, {DEFAULT_LEVEL_MINUTES:g} for a scheduled event",
    )
    ap.add_argument("--seconds-per-action", type=float, default=1.5)
    ap.add_argument("--hand-overhead", type=float, default=10.0)
    ap.add_argument("--level", default="normal", help="computer level of every player")
    ap.add_argument("--seed", type=int, default=15)
    args = ap.parse_args()
    player = make_player(Level(args.level))
    antes = default_antes(args.ante)
    print(
        f"stack {args.stack}, antes {antes[:10]}..., {args.hand_overhead:g} s + {args.seconds_per_action:g} s per "
        f"action a hand, {args.level} players"
    )
    formats = (
        ("7-player Sit & Go", 7, args.sng, DEFAULT_SNG_LEVEL_MINUTES),
        ("40-entry event", 40, args.mtt, DEFAULT_LEVEL_MINUTES),
    )
    for name, entries, runs, minutes in formats:
        if runs <= 0:
            continue
        schedule = LevelSchedule(antes=antes, level_minutes=args.level_minutes or minutes)
        t0 = time.perf_counter()
        results = [
            simulate(
                entries,
                7,
                args.stack,
                schedule,
                player,
                seed=args.seed * 1000 + i,
                per_action=args.seconds_per_action,
                overhead=args.hand_overhead,
            )
            for i in range(runs)
        ]
        print(
            summary(f"{name} ({schedule.level_minutes:g}-minute levels)", results),
            f"[{time.perf_counter() - t0:.0f} s of simulation]",
            flush=True,
        )


if __name__ == "__main__":
    main()
