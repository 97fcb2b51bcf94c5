"""Renderer benchmark: median and p99 ms per image, the PNG-encode floor, and byte sizes.

Run: .venv/bin/python -m bench.render [--runs N] [--only SUBSTRING] [--cpu] [--encode-levels | --hands]
Pins itself to one CPU core. "cold" is the first render in a fresh process (fonts and card sprites
drawn and cached); every other figure is warm (sprites cached, as in a running bot).

The "live" table case gives every render new notes and a new clock (as a busy table does: each
board edit carries the latest moves), so text that was never drawn before is measured too; the
other cases repeat one snapshot, whose strings are all cached after the first render.

``--hands`` times the hand image as the bot makes it (`render_hand_png`: composed from cached pieces of palette
indexes) against the same hand drawn whole and encoded (``to_png(render_hand(...))``, byte for byte the same file),
over hands as play changes them: a player plucks, the cards that meld with the pluck are lifted, a card is kept or
the pluck thrown, one hand after another, eight decks' cards (every face repeats), both deck colourings.
"""

from __future__ import annotations

import argparse
import io
import itertools
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import replace

import PIL
from PIL import Image

from pancog.game.cards import ALL_CARDS
from pancog.game.i18n import speaking
from renderer import HandSnapshot, TableSnapshot, assets, render_hand, render_hand_png, render_outcome, render_table
from renderer.samples import NAMES, sample_hand, sample_outcome, sample_table, worst_hand, worst_table

_counter = itertools.count(1)


def _live_table(n_seats: int, n_melds: int) -> Callable[[], TableSnapshot]:
    """A table whose notes and clock change on every call (fresh strings, like a table in play)."""
    base = sample_table(n_seats, n_melds)

    def make() -> TableSnapshot:
        n = next(_counter)
        who = NAMES[n % len(NAMES)]
        notes = (
            f"{who} melded 5S 5S 5S (+4), move {n}.",
            f"{NAMES[(n + 3) % len(NAMES)]} drew from the stock and discarded 7H at move {n}.",
            f"{NAMES[(n + 7) % len(NAMES)]} went on top; {n % 9} chips paid.",
        )
        return replace(base, notes=notes, clock_seconds=n % 90)

    return make


_clock = time.perf_counter  # --cpu: time.process_time (this process's CPU time, robust to a busy machine)


def _times(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = _clock()
        fn()
        out.append((_clock() - start) * 1000)
    return sorted(out)


def _p99(xs: list[float]) -> float:
    return xs[min(len(xs) - 1, round(0.99 * (len(xs) - 1)))]


_LEVELS: tuple[tuple[str, dict[str, object]], ...] = (
    ("level 1", {"compress_level": 1}),
    ("level 2", {"compress_level": 2}),
    ("level 3", {"compress_level": 3}),
    ("level 6", {"compress_level": 6}),
    ("level 9 + optimize", {"compress_level": 9, "optimize": True}),
)
_ISAL_LEVELS = (0, 1, 2, 3)  # isal_zlib's levels; `assets.PNG_LEVEL` is the one `to_png` uses


def encode_levels(runs: int) -> None:
    """The quantize step, then the PNG written by Pillow's encoder (zlib) at several levels and by `to_png`
    (ISA-L) at each of its levels, on the final images (the `to_png` choice). `to_png` includes its quantize."""
    images = {
        "hand, 11 shown": render_hand(sample_hand(10)),
        "table, 2 seats": render_table(sample_table(2, 6)),
        "table, 4 seats": render_table(sample_table(4, 12)),
        "table, 6 seats": render_table(sample_table(6, 20)),
        "table, 8 seats": render_table(sample_table(8, 30)),
        "table, 15 worst": render_table(worst_table()),
        "outcome, 14": render_outcome(sample_outcome(14)),
    }
    pal = assets.palette()
    chosen = assets.PNG_LEVEL
    print(f"Python {platform.python_version()}, Pillow {PIL.__version__}, 1 core, median of {runs} runs")
    print(
        "| image | quantize ms | "
        + " | ".join(f"Pillow {name} ms / bytes" for name, _ in _LEVELS)
        + " | "
        + " | ".join(f"to_png, ISA-L level {lvl} (with quantize) ms / bytes" for lvl in _ISAL_LEVELS)
        + " |"
    )
    print("|---|---|" + "---|" * (len(_LEVELS) + len(_ISAL_LEVELS)))
    try:
        for name, im in images.items():
            quant = statistics.median(_times(lambda im=im: im.quantize(palette=pal, dither=Image.Dither.NONE), runs))  # type: ignore[misc]
            q = im.quantize(palette=pal, dither=Image.Dither.NONE)
            cells = []
            for _, options in _LEVELS:

                def save(q: Image.Image = q, options: dict[str, object] = options) -> bytes:
                    buf = io.BytesIO()
                    q.save(buf, "PNG", **options)
                    return buf.getvalue()

                n = max(3, runs // 10) if options.get("optimize") else runs
                cells.append(f"{statistics.median(_times(save, n)):.2f} / {len(save()):,}")
            for lvl in _ISAL_LEVELS:
                assets.PNG_LEVEL = lvl
                ms = statistics.median(_times(lambda im=im: assets.to_png(im), runs))  # type: ignore[misc]
                cells.append(f"{ms:.2f} / {len(assets.to_png(im)):,}")
            print(f"| {name} | {quant:.2f} | " + " | ".join(cells) + " |")
    finally:
        assets.PNG_LEVEL = chosen


def hands_in_play(count: int, seed: int = 5) -> list[HandSnapshot]:
    """``count`` hands as a player sees them through play: ten cards, then the same ten with a pluck (the cards of
    its rank lifted), then ten again (the pluck kept in place of a card, or thrown)."""
    rng = random.Random(seed)
    out: list[HandSnapshot] = []
    while len(out) < count:
        four = rng.random() < 0.5
        held = [rng.choice(ALL_CARDS) for _ in range(10)]
        for _ in range(12):
            out.append(HandSnapshot(cards=tuple(held), four_color=four))
            pluck = rng.choice(ALL_CARDS)
            marked = frozenset(i for i, c in enumerate(held) if c.rank == pluck.rank)
            out.append(HandSnapshot(cards=tuple(held), drawn=pluck, meldable=marked, four_color=four))
            keep = rng.randrange(len(held) + 1)
            if keep < len(held):
                held[keep] = pluck
    return out[:count]


def hands(runs: int) -> None:
    """The hand image composed (as the bot makes it) against drawn whole, over hands in play (see the docstring)."""
    played = hands_in_play(max(runs, 50))

    def whole(s: HandSnapshot) -> bytes:
        with speaking(s.lang):
            return assets.to_png(render_hand(s))

    print(f"Python {platform.python_version()}, Pillow {PIL.__version__}, 1 core, {len(played)} hands in play")
    print("| hand image | per hand median / p99 ms | hands a second | same bytes |")
    print("|---|---|---|---|")
    assets.warm_up(False)  # every card sprite drawn, as a bot does at its start: only the hands are timed
    assets.warm_up(True)
    for name, fn in (("drawn whole: to_png(render_hand)", whole), ("composed: render_hand_png", render_hand_png)):
        for s in hands_in_play(200, seed=99):  # a running bot: the numbers' pills drawn, some pieces kept (other hands)
            fn(s)
        times = []
        for s in played:
            start = _clock()
            fn(s)
            times.append((_clock() - start) * 1000)
        times.sort()
        same = all(render_hand_png(s) == whole(s) for s in played[:50])
        print(f"| {name} | {statistics.median(times):.3f} / {_p99(times):.3f} | "
              f"{1000 / statistics.mean(times):,.0f} | {'yes' if same else 'NO'} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--only", default="", help="run only the cases whose name contains this")
    parser.add_argument("--encode-levels", action="store_true", help="compare PNG compress levels instead")
    parser.add_argument("--cpu", action="store_true", help="time CPU used (process_time), not wall time")
    parser.add_argument("--hands", action="store_true", help="hand images in play: composed against drawn whole")
    args = parser.parse_args()
    global _clock  # one switch for the whole run
    if args.cpu:
        _clock = time.process_time
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    if args.encode_levels:
        encode_levels(args.runs)
        return
    if args.hands:
        hands(args.runs)
        return
    live8 = _live_table(8, 30)
    cases: list[tuple[str, Callable[[], Image.Image]]] = [
        ("hand: 10 cards + pluck (11 shown)", lambda: render_hand(sample_hand(10))),
        ("hand: 11 cards + drawn, all marked", lambda: render_hand(worst_hand())),
        ("table: 2 seats, 6 melds", lambda: render_table(sample_table(2, 6))),
        ("table: 6 seats, 20 melds", lambda: render_table(sample_table(6, 20))),
        ("table: 8 seats, 30 melds", lambda: render_table(sample_table(8, 30))),
        ("table: 8 seats, 30 melds, live (new notes + clock)", lambda: render_table(live8())),
        ("table: 15 seats, 45 melds", lambda: render_table(sample_table(15, 45))),
        ("table: 15-seat worst case (75 long melds)", lambda: render_table(worst_table())),
        ("outcome: 4 melds, 14 payers", lambda: render_outcome(sample_outcome(14))),
    ]
    clock = "CPU time" if args.cpu else "wall time"
    print(f"Python {platform.python_version()}, Pillow {PIL.__version__}, 1 core, {args.runs} runs each, {clock}")
    print("| image | px | cold ms | render+encode median / p99 ms | encode alone median / p99 ms | ratio | bytes |")
    print("|---|---|---|---|---|---|---|")
    for name, make in cases:
        if args.only not in name:
            continue
        start = _clock()
        assets.to_png(make())
        cold = (_clock() - start) * 1000
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
