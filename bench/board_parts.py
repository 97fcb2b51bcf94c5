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
"""

from __future__ import annotations

import argparse
import collections
import os
import pickle
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dumps", nargs="+", type=Path)
    parser.add_argument("--boards", type=int, default=1500, help="how many boards with seats to replay")
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


if __name__ == "__main__":
    main()
