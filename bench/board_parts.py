"""Where a board's time goes, on the boards the bot really drew: the render jobs of a benchmark run
(``bench/render_dump``), replayed on one core.

    RENDER_DUMP=/tmp/renders PYTHONPATH=bench/render_dump \\
        .venv/bin/python -m bench.cluster --backend postgres --processes 1 --tables 90 --pace 150 \\
        --warmup 20 --seconds 20
    .venv/bin/python -m bench.board_parts /tmp/renders.* [--boards 1500]

Prints, per board (means, CPU time): drawing (``render_table``), the mapping to the fixed palette
(``assets.quantize``), the filter column, the deflate, and what reading the drawn pixels back costs (``tobytes``);
then, between each board of a table and the next one it drew, the share of bands of 16 and 64 rows whose palette
indexes did not change: the most an encoder that reused the unchanged rows of a table's last board could skip.
The pieces are timed as ``assets.to_png`` does them (``quantize`` then ``png_of_indexes``' filter column and deflate).
Then the whole board two ways: drawn on RGB and mapped, and drawn as palette indexes (``render_table_png`` since 5
December 2026: ``renderer.canvas``), with how many of the files differ (they must not).

With ``--gaps 0,2,10 [--burst N] DUMP`` (one worker's dump) it replays that worker's jobs **as the worker ran them**:
in order, from cold caches, sleeping the given milliseconds between jobs (or before every N-th), each gap in a fresh
interpreter on one core, and prints the second half's jobs beside their cost in the bot: what a job costs after its
process sat idle (docs/performance.md, "A job after an idle wait").

Where the dump has the workers' own CPU time of each job (``$RENDER_DUMP-cpu.<pid>``, written by the same
``sitecustomize``), it then prints **the same jobs in the bot and replayed**: per job function, the mean CPU time
each job took in the worker that drew it (its first ``--warm`` jobs left out, by default the first half: its caches
are still filling) beside the same jobs replayed whole here, one after another on one core, after a first pass that
warms the caches.
"""

from __future__ import annotations

import argparse
import collections
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from isal import isal_zlib
from PIL import Image

from pancog.game.i18n import speaking
from renderer import TableSnapshot, assets, render_table
from renderer.table import render_table_png

BANDS = (16, 64)


def jobs(paths: list[Path]) -> Iterator[tuple[Any, Any]]:
    """The ``(fn, input)`` jobs of the dump files, file by file in the order each worker received them."""
    for path in paths:
        data = path.read_bytes()
        at = 0
        while at < len(data):
            size = int.from_bytes(data[at : at + 4], "little")
            frame = pickle.loads(data[at + 4 : at + 4 + size])  # noqa: S301 - our own benchmark's dump
            at += 4 + size
            if isinstance(frame, tuple) and len(frame) == 2 and callable(frame[0]):
                yield frame


def bot_times(path: Path) -> list[tuple[str, float]]:
    """The ``(function name, CPU ms)`` of each job in the dump file ``path``, as its worker timed them (in order;
    empty without a times file)."""
    stem, dot, pid = path.name.rpartition(".")
    times = path.with_name(f"{stem}-cpu.{pid}")
    if not dot or not times.exists():
        return []
    out = []
    for line in times.read_text().splitlines():
        name, ms = line.rsplit(" ", 1)
        out.append((name, float(ms)))
    return out


def in_bot_and_replayed(paths: list[Path], warm: int | None) -> list[tuple[str, int, float, float]]:
    """Per job function: ``(name, jobs compared, mean ms in the bot, mean ms replayed)`` over every worker's jobs but
    its first ``warm`` (None: the first half, while its caches still fill); empty when no dump has its times."""
    pairs: list[tuple[Any, Any, str, float]] = []
    for path in paths:
        timed = bot_times(path)
        if not timed:
            continue
        found = list(jobs([path]))
        if len(found) != len(timed):
            raise SystemExit(f"{path}: {len(found)} jobs but {len(timed)} times")
        skip = len(found) // 2 if warm is None else warm
        pairs += [(fn, v, name, ms) for (fn, v), (name, ms) in zip(found, timed, strict=True)][skip:]
    if not pairs:
        return []
    clock = time.process_time
    for fn, value, _name, _ms in pairs:  # the warming pass
        fn(value)
    bot: dict[str, list[float]] = collections.defaultdict(list)
    here: dict[str, list[float]] = collections.defaultdict(list)
    for fn, value, name, ms in pairs:
        t0 = clock()
        fn(value)
        here[name].append(1000 * (clock() - t0))
        bot[name].append(ms)
    return [
        (name, len(bot[name]), sum(bot[name]) / len(bot[name]), sum(here[name]) / len(here[name]))
        for name in sorted(bot, key=lambda n: -len(bot[n]))
    ]


def two_ways(boards: list[TableSnapshot]) -> tuple[float, float, int]:
    """Each board's whole file drawn on RGB and mapped (``assets.to_png(render_table(...))``, as before 5 December
    2026) and drawn as palette indexes (`render_table_png`, `renderer.canvas.IndexCanvas`), each way over all the
    boards after a warming pass of its own: mean ms per board both ways, and how many boards' files differ (0: the
    index canvas is exact on these boards)."""

    def on_rgb(snapshot: TableSnapshot) -> bytes:
        with speaking(snapshot.lang):
            return assets.to_png(render_table(snapshot))

    means: list[float] = []
    files: list[list[bytes]] = []
    for way in (on_rgb, render_table_png):
        for snapshot in boards:
            way(snapshot)
        t0 = time.process_time()
        files.append([way(snapshot) for snapshot in boards])
        means.append(1000 * (time.process_time() - t0) / len(boards))
    return means[0], means[1], sum(a != b for a, b in zip(*files, strict=True))


def in_order(path: Path, gap_ms: float, burst: int) -> list[tuple[str, int, float, float]]:
    """One worker's jobs (the dump ``path``) replayed as the worker ran them: in order, from cold caches, with no
    warming pass; ``gap_ms`` of sleep before every ``burst``-th job (0: back to back). Per job function, over the
    second half (the first fills the caches as the worker's first half did): ``(name, jobs, mean ms in the bot, mean
    ms replayed)``. Run each gap in a fresh interpreter (``--gaps`` does): the caches of one replay would warm the
    next."""
    found = list(jobs([path]))
    timed = bot_times(path)
    if len(found) != len(timed):
        raise SystemExit(f"{path}: {len(found)} jobs but {len(timed)} times")
    half = len(found) // 2
    clock = time.process_time
    bot: dict[str, list[float]] = collections.defaultdict(list)
    here: dict[str, list[float]] = collections.defaultdict(list)
    for i, ((fn, value), (name, ms)) in enumerate(zip(found, timed, strict=True)):
        if gap_ms > 0 and i % max(1, burst) == 0:
            time.sleep(gap_ms / 1000)
        t0 = clock()
        fn(value)
        took = 1000 * (clock() - t0)
        if i >= half:
            here[name].append(took)
            bot[name].append(ms)
    return [
        (name, len(bot[name]), sum(bot[name]) / len(bot[name]), sum(here[name]) / len(here[name]))
        for name in sorted(bot, key=lambda n: -len(bot[n]))
    ]


def gaps_main(argv: list[str]) -> None:
    """``--gaps 0,2,10 [--burst N] DUMP``: the worker's jobs of DUMP replayed in order from cold caches, each gap
    in a fresh interpreter on one core; a job's cost after its worker sat idle, beside its cost in the bot."""
    parser = argparse.ArgumentParser()
    parser.add_argument("dump", type=Path)
    parser.add_argument("--gaps", required=True, help="ms of sleep between jobs, comma-separated")
    parser.add_argument("--burst", type=int, default=1, help="sleep only before every N-th job (a burst of N)")
    parser.add_argument("--one-gap", type=float, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one_gap is not None:
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        for name, n, bot_ms, here_ms in in_order(args.dump, args.one_gap, args.burst):
            ratio = bot_ms / here_ms
            print(f"  {name:22} {n:6} jobs: in the bot {bot_ms:6.2f}, replayed in order {here_ms:6.2f} (x{ratio:.2f})")
        return
    for gap in (float(g) for g in args.gaps.split(",")):
        every = f" before every {args.burst}th job" if args.burst > 1 else " between jobs"
        how = f"{gap:g} ms of sleep{every}" if gap else "back to back"
        print(f"in order from cold caches, {how}, ms per job (CPU time):")
        argv_one = [sys.executable, "-m", "bench.board_parts", "--gaps", args.gaps, "--burst", str(args.burst)]
        subprocess.run([*argv_one, "--one-gap", str(gap), str(args.dump)], check=True)  # noqa: S603 - ourselves


def main() -> None:
    if "--gaps" in sys.argv[1:]:
        gaps_main(sys.argv[1:])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dumps", nargs="+", type=Path)
    parser.add_argument("--boards", type=int, default=1500, help="how many boards with seats to replay")
    parser.add_argument(
        "--warm", type=int, default=None, help="jobs of each worker left out of the bot/replay figures (default: half)"
    )
    args = parser.parse_args()
    with_seats = [
        v for fn, v in jobs(args.dumps) if fn is render_table_png and isinstance(v, TableSnapshot) and v.seats
    ]
    boards = with_seats[: args.boards]
    if not boards:
        raise SystemExit("no boards with seats in the dump")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    clock = time.process_time
    for snapshot in boards[:50]:  # warm the sprite caches, as a running worker's are
        with speaking(snapshot.lang):
            assets.to_png(render_table(snapshot))
    spent: dict[str, float] = collections.defaultdict(float)
    last: dict[str, list[bytes]] = {}
    same = dict.fromkeys(BANDS, 0)
    compared = dict.fromkeys(BANDS, 0)
    for snapshot in boards:
        with speaking(snapshot.lang):
            t0 = clock()
            im = render_table(snapshot)
            t1 = clock()
            q = assets.quantize(im)
            t2 = clock()
            width, height = q.size
            rows = Image.new("P", (width + 1, height), 0)
            rows.paste(q, (1, 0))
            raw = rows.tobytes()
            t3 = clock()
            isal_zlib.compress(raw, assets.PNG_LEVEL)
            t4 = clock()
            im.tobytes()
            t5 = clock()
        for name, took in (("drawing", t1 - t0), ("palette", t2 - t1), ("filter column", t3 - t2)):
            spent[name] += took
        spent["deflate"] += t4 - t3
        spent["reading the pixels (tobytes)"] += t5 - t4
        for band in BANDS:
            step = (width + 1) * band
            pieces = [raw[i : i + step] for i in range(0, len(raw), step)]
            key = f"{snapshot.title}/{band}"
            before = last.get(key)
            if before is not None and len(before) == len(pieces):
                same[band] += sum(a == b for a, b in zip(before, pieces, strict=True))
                compared[band] += len(pieces)
            last[key] = pieces
    n = len(boards)
    tables = len({b.title for b in boards})
    print(f"{n} boards of {tables} tables (of {len(with_seats)} with seats in the dump), ms per board (CPU time):")
    for name, total in spent.items():
        print(f"  {name:30} {1000 * total / n:6.2f}")
    for band in BANDS:
        share = same[band] / compared[band] if compared[band] else float("nan")
        print(f"bands of {band} rows unchanged since the table's last board: {100 * share:.0f} %")
    whole, indexes, differ = two_ways(boards)
    print(
        f"the whole board two ways, ms per board (CPU time): drawn on RGB and mapped {whole:.2f}, drawn as palette"
        f" indexes (render_table_png) {indexes:.2f} ({100 * (indexes / whole - 1):+.0f} %); files that differ: {differ}"
    )
    side_by_side = in_bot_and_replayed(args.dumps, args.warm)
    if side_by_side:
        print("the same jobs in the bot and replayed, ms per job (CPU time):")
        for name, n, bot_ms, here_ms in side_by_side:
            ratio = bot_ms / here_ms
            print(f"  {name:22} {n:6} jobs: in the bot {bot_ms:6.2f}, replayed {here_ms:6.2f} (x{ratio:.2f})")


if __name__ == "__main__":
    main()
