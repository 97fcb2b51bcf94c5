"""Renderer benchmark: median and p99 ms per image, the PNG-encode floor, and byte sizes.

Run: .venv/bin/python bench/render.py [--runs N]
Pins itself to one CPU core. "cold" is the first render in a fresh process (fonts and card sprites
drawn and cached); every other figure is warm (sprites cached, as in a running bot).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import PIL
from PIL import Image

from renderer import assets, render_hand, render_outcome, render_table
from renderer.samples import sample_hand, sample_outcome, sample_table, worst_hand, worst_table


def _times(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return sorted(out)


def _p99(xs: list[float]) -> float:
    return xs[min(len(xs) - 1, round(0.99 * (len(xs) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    cases: list[tuple[str, Callable[[], Image.Image]]] = [
        ("hand: 10 cards + pluck (11 shown)", lambda: render_hand(sample_hand(10))),
        ("hand: 11 cards + drawn, all marked", lambda: render_hand(worst_hand())),
        ("table: 8 seats, 30 melds", lambda: render_table(sample_table(8, 30))),
        ("table: 15 seats, 45 melds", lambda: render_table(sample_table(15, 45))),
        ("table: 15-seat worst case (75 long melds)", lambda: render_table(worst_table())),
        ("outcome: 4 melds, 14 payers", lambda: render_outcome(sample_outcome(14))),
    ]
    print(f"Python {platform.python_version()}, Pillow {PIL.__version__}, 1 core, {args.runs} runs each")
    print("| image | px | cold ms | render+encode median / p99 ms | encode alone median / p99 ms | ratio | bytes |")
    print("|---|---|---|---|---|---|---|")
    for name, make in cases:
        start = time.perf_counter()
        assets.to_png(make())
        cold = (time.perf_counter() - start) * 1000
        full = _times(lambda make=make: assets.to_png(make()), args.runs)  # type: ignore[misc]
        im = make()
        enc = _times(lambda im=im: assets.to_png(im), args.runs)  # type: ignore[misc]
        size = len(assets.to_png(im))
        med, enc_med = statistics.median(full), statistics.median(enc)
        print(
            f"| {name} | {im.width}×{im.height} | {cold:.1f} | {med:.2f} / {_p99(full):.2f} | "
            f"{enc_med:.2f} / {_p99(enc):.2f} | {med / enc_med:.2f} | {size:,} |"
        )


if __name__ == "__main__":
    main()
