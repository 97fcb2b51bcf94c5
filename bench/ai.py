"""Computer-player benchmark: a duplicate round-robin of the levels at 6 seats, and decision times.

Run: .venv/bin/python -m bench.ai [--deals 100] [--hard-budget 60] [--hard-samples 16] [--out results.json]

Design (variance reduction, so that differences are significant with ~1,000 hands):
- every pair of levels (A, B) meets at *mixed tables of 3 vs 3*: A in seats 0, 2, 4 and B in 1, 3, 5;
- *duplicate deals*: every deal (seed) is played twice, the second time with the seats swapped, so
  both levels hold exactly the same cards; the first hand rotates with the deal number;
- each hand is independent (fresh table: empty tops, 1,000-chip stacks, so nobody busts);
- the unit of measurement is the deal pair: A's chips per seat per hand over its two hands, and the
  difference A - B; 95% confidence intervals are mean +- 1.96 * sd / sqrt(deals).
Decision times are the wall time of every ``choose``/``react`` call, per level.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import time
from pathlib import Path

from pancog.ai import Level, make_player
from pancog.ai.hard import HardPlayer
from pancog.ai.selfplay import play_fresh_hand

SEATS = 6


def _player(level: Level, hard_budget: float, hard_samples: int) -> object:
    if level is Level.HARD:
        return HardPlayer(hard_budget, samples=hard_samples)
    return make_player(level)


def ci(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return m, h


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def run_pair(
    a: Level, b: Level, deals: int, seed0: int, hard_budget: float, hard_samples: int, times: dict[str, list[float]]
) -> dict[str, object]:
    xa: list[float] = []
    xb: list[float] = []
    hands = 0
    for d in range(deals):
        seed = seed0 + d
        first = d % SEATS
        tot_a = tot_b = 0
        for swap in (False, True):
            levels = [(b if i % 2 == 0 else a) if swap else (a if i % 2 == 0 else b) for i in range(SEATS)]
            players = [_player(lv, hard_budget, hard_samples) for lv in levels]
            res = play_fresh_hand(players, seed=seed, first_seat=first, timings=True)  # type: ignore[arg-type]
            hands += 1
            for i, lv in enumerate(levels):
                if lv is a:
                    tot_a += res.deltas[i]
                else:
                    tot_b += res.deltas[i]
                times.setdefault(lv.value, []).extend(res.decision_ms.get(i, []))
        xa.append(tot_a / SEATS)
        xb.append(tot_b / SEATS)
    diff = [p - q for p, q in zip(xa, xb, strict=True)]
    ma, ha = ci(xa)
    mb, hb = ci(xb)
    md, hd = ci(diff)
    return {
        "a": a.value,
        "b": b.value,
        "deals": deals,
        "hands": hands,
        "a_mean": ma,
        "a_ci": ha,
        "b_mean": mb,
        "b_ci": hb,
        "diff": md,
        "diff_ci": hd,
        "significant": abs(md) > hd,
    }


def _pool2(n1: int, m1: float, h1: float, n2: int, m2: float, h2: float) -> tuple[int, float, float]:
    """Pool two samples given (n, mean, 95% half-width); returns the pooled (n, mean, half-width)."""
    s1 = h1 / 1.96 * math.sqrt(n1)
    s2 = h2 / 1.96 * math.sqrt(n2)
    n = n1 + n2
    m = (n1 * m1 + n2 * m2) / n
    var = ((n1 - 1) * s1**2 + (n2 - 1) * s2**2 + n1 * n2 / n * (m1 - m2) ** 2) / (n - 1)
    return n, m, 1.96 * math.sqrt(var / n)


def merge(paths: list[Path]) -> None:
    """Pool the pair results of several runs (different seeds) and print them like a single run."""
    pooled: dict[tuple[str, str], dict[str, object]] = {}
    for path in paths:
        for r in json.loads(path.read_text())["pairs"]:
            key = (str(r["a"]), str(r["b"]))
            if key not in pooled:
                pooled[key] = dict(r)
                continue
            q = pooled[key]
            for stat, half in (("a_mean", "a_ci"), ("b_mean", "b_ci"), ("diff", "diff_ci")):
                _n, m, h = _pool2(
                    int(str(q["deals"])), float(str(q[stat])), float(str(q[half])),
                    int(str(r["deals"])), float(str(r[stat])), float(str(r[half])),
                )  # fmt: skip
                q[stat], q[half] = m, h
            q["deals"] = int(str(q["deals"])) + int(str(r["deals"]))
            q["hands"] = int(str(q["hands"])) + int(str(r["hands"]))
            q["significant"] = abs(float(str(q["diff"]))) > float(str(q["diff_ci"]))
    for q in pooled.values():
        print(
            f"{q['a']:>6} vs {q['b']:<6} deals={q['deals']:4d}  {q['a']}: {q['a_mean']:+7.3f} ±{q['a_ci']:.3f}  "
            f"{q['b']}: {q['b_mean']:+7.3f} ±{q['b_ci']:.3f}  diff {q['diff']:+7.3f} ±{q['diff_ci']:.3f}"
            f"  {'significant' if q['significant'] else 'NOT significant'}"
        )
    print(f"{sum(int(str(q['hands'])) for q in pooled.values())} hands")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100, help="duplicate deals per pair of levels (2 hands each)")
    ap.add_argument("--hard-deals", type=int, default=None, help="deals for pairs involving hard (default --deals)")
    ap.add_argument("--hard-budget", type=float, default=60.0, help="hard's time budget per decision, ms")
    ap.add_argument("--hard-samples", type=int, default=16, help="hard's cap on sampled worlds per decision")
    ap.add_argument(
        "--pair-deals",
        default="",
        help="per-pair deal counts, e.g. 'normal-easy=400,hard-normal=250' (overrides --deals/--hard-deals)",
    )
    ap.add_argument("--levels", default="random,easy,normal,hard")
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--out", type=Path, default=None, help="write the results as JSON")
    ap.add_argument("--merge", type=Path, nargs="+", default=None, help="pool the results of earlier --out files")
    args = ap.parse_args()
    if args.merge:
        merge(args.merge)
        return
    levels = [Level(x) for x in args.levels.split(",")]
    overrides = {k: int(v) for k, v in (item.split("=") for item in args.pair_deals.split(",") if item)}
    times: dict[str, list[float]] = {}
    pairs = []
    t0 = time.perf_counter()
    for k, (a, b) in enumerate(itertools.combinations(reversed(levels), 2)):
        deals = args.hard_deals if (Level.HARD in (a, b) and args.hard_deals) else args.deals
        deals = overrides.get(f"{a.value}-{b.value}", overrides.get(f"{b.value}-{a.value}", deals))
        r = run_pair(a, b, deals, args.seed + 10_000 * k, args.hard_budget, args.hard_samples, times)
        pairs.append(r)
        print(
            f"{r['a']:>6} vs {r['b']:<6} deals={deals:4d}  {r['a']}: {r['a_mean']:+7.3f} ±{r['a_ci']:.3f}  "
            f"{r['b']}: {r['b_mean']:+7.3f} ±{r['b_ci']:.3f}  diff {r['diff']:+7.3f} ±{r['diff_ci']:.3f}"
            f"  {'significant' if r['significant'] else 'NOT significant'}  ({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
    timing = {
        lv: {"decisions": len(xs), "p50_ms": pct(xs, 0.50), "p99_ms": pct(xs, 0.99), "max_ms": max(xs)}
        for lv, xs in times.items()
        if xs
    }
    for lv, t in timing.items():
        print(
            f"{lv:>6}: {t['decisions']} decisions, p50 {t['p50_ms']:.2f} ms, p99 {t['p99_ms']:.2f} ms, "
            f"max {t['max_ms']:.1f} ms"
        )
    total = sum(int(str(p["hands"])) for p in pairs)
    print(f"{total} hands in {time.perf_counter() - t0:.0f} s")
    if args.out is not None:
        args.out.write_text(
            json.dumps(
                {"args": vars(args) | {"out": str(args.out)}, "pairs": pairs, "timing": timing, "hands": total},
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
