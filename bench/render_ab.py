"""Renderer A/B in one process: another commit's renderer against this tree's, interleaved, CPU time.

On a machine shared with other jobs, two `bench/render.py` runs made a minute apart can differ by 30 %; drawing
the same snapshots with both renderers in turn, in one process pinned to one core, lets both see the same load.

    .venv/bin/python -m bench.render_ab --base main [--runs 300]

The base commit's ``renderer/`` is exported (``git archive``) into a temporary folder as the package
``renderer_old`` (its absolute imports of ``renderer`` rewritten), sharing this tree's fonts. Printed, CPU ms
(median and mean): the two latest notes of a live board drawn (measured, cut and drawn), a live 8-seat board
(new notes and clock each render) drawn, and drawn + PNG; the PNG-encode floor; and pickling / unpickling an
8-seat snapshot (the bot's side and a render process's side of each board; the reducers are global, so the
pickling figures compare the classes' own pickling against this tree's registered reducers in turn).
"""

from __future__ import annotations

import argparse
import copyreg
import importlib.util
import io
import itertools
import os
import pickle
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def export_base(rev: str) -> Path:
    """``rev``'s renderer as the package ``renderer_old`` in a new temporary folder; returns the package's folder."""
    folder = Path(tempfile.mkdtemp(prefix="pan-render-ab-"))
    argv = ["git", "archive", rev, "renderer"]
    tar = subprocess.run(argv, cwd=ROOT, capture_output=True, check=True).stdout  # noqa: S603
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(folder, filter="data")
    (folder / "renderer").rename(folder / "renderer_old")
    for source in (folder / "renderer_old").glob("*.py"):
        text = source.read_text()
        source.write_text(re.sub(r"\bfrom renderer(\.| import)", r"from renderer_old\1", text))
    (folder / "data").symlink_to(ROOT / "data")  # the fonts
    return folder / "renderer_old"


def load_package(name: str, folder: Path) -> None:
    """Import the package in ``folder`` as ``name`` (its submodules then import as ``name.x``)."""
    spec = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def timed(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return (time.process_time() - start) * 1000


def line(label: str, values: list[float]) -> str:
    return f"{label} {statistics.median(values):.3f} ({statistics.mean(values):.3f})"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="main", help="the commit to compare with (default: main)")
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    load_package("renderer_old", export_base(args.base))
    import renderer_old  # type: ignore[import-not-found]
    import renderer_old.samples as old_samples  # type: ignore[import-not-found]
    from PIL import Image
    from renderer_old import assets as old_assets  # type: ignore[import-not-found]
    from renderer_old import text as old_text  # type: ignore[import-not-found]

    import renderer
    import renderer.samples as new_samples
    from renderer import assets as new_assets
    from renderer import text as new_text

    names = new_samples.NAMES
    counter = itertools.count(10_000)

    def notes(n: int) -> tuple[str, str, str]:
        return (
            f"{names[n % len(names)]} melded 5S 5S 5S (+4), move {n}.",
            f"{names[(n + 3) % len(names)]} drew from the stock and discarded 7H at move {n}.",
            f"{names[(n + 7) % len(names)]} went on top; {n % 9} chips paid.",
        )

    sides = {
        "base": (old_samples.sample_table(8, 30), old_assets, old_text, renderer_old.render_table),
        "this": (new_samples.sample_table(8, 30), new_assets, new_text, renderer.render_table),
    }
    canvas = Image.new("RGB", (800, 120))

    def draw_notes(side: str, n: int) -> None:
        _, assets, text, _ = sides[side]
        for i, note in enumerate(notes(n)[-2:]):
            shown = text.image_text(note, "regular", 27, 772)
            if side == "this":
                assets.paste_line(canvas, (14, 10 + 34 * i), shown, "regular", 27, (255, 255, 255))
            else:
                assets.paste_text(canvas, (14, 10 + 34 * i), shown, "regular", 27, (255, 255, 255), cache=False)

    res: dict[str, dict[str, list[float]]] = {side: {"notes": [], "draw": [], "png": []} for side in sides}
    for base, assets, _, render in sides.values():  # warm both
        for n in range(30):
            assets.to_png(render(replace(base, notes=notes(n))))
    for r in range(args.runs):  # boards first: notes drawn just before would be cached for the board
        n = next(counter)
        for side in ("base", "this") if r % 2 else ("this", "base"):
            base, assets, _, render = sides[side]
            snap = replace(base, notes=notes(n), clock_seconds=n % 90)
            start = time.process_time()
            image = render(snap)
            drawn = time.process_time()
            assets.to_png(image)
            res[side]["draw"].append((drawn - start) * 1000)
            res[side]["png"].append((time.process_time() - start) * 1000)
    for r in range(args.runs):
        n = next(counter)
        for side in ("base", "this") if r % 2 else ("this", "base"):
            res[side]["notes"].append(timed(lambda side=side, n=n: draw_notes(side, n)))  # type: ignore[misc]
    image = renderer.render_table(sides["this"][0])
    floor = [timed(lambda: new_assets.to_png(image)) for _ in range(args.runs)]
    load = os.getloadavg()[0]
    print(f"base {args.base} vs this tree; load {load:.1f}; {args.runs} interleaved runs; CPU ms median (mean)")
    for side in sides:
        print(f"  {side}: " + "; ".join(line(k, v) for k, v in res[side].items()))
    print(f"  PNG-encode floor (8-seat board): {line('', floor)}")
    snap = sides["this"][0]
    reducers = {c: copyreg.dispatch_table.pop(c) for c in list(copyreg.dispatch_table) if "renderer" in c.__module__}
    card = [c for c in list(copyreg.dispatch_table) if c.__module__ == "pancog.game.cards"]
    reducers.update({c: copyreg.dispatch_table.pop(c) for c in card})
    plain = pickle.dumps(snap)
    plain_cost = ([timed(lambda: pickle.dumps(snap)) for _ in range(args.runs)],
                  [timed(lambda: pickle.loads(plain)) for _ in range(args.runs)])  # noqa: S301  # fmt: skip
    copyreg.dispatch_table.update(reducers)
    compact = pickle.dumps(snap)
    compact_cost = ([timed(lambda: pickle.dumps(snap)) for _ in range(args.runs)],
                    [timed(lambda: pickle.loads(compact)) for _ in range(args.runs)])  # noqa: S301  # fmt: skip
    print(f"  pickling an 8-seat snapshot, dataclass default: {line('dumps', plain_cost[0])}, "
          f"{line('loads', plain_cost[1])}, {len(plain):,} bytes")  # fmt: skip
    print(f"  with renderer.snapshot's reducers: {line('dumps', compact_cost[0])}, "
          f"{line('loads', compact_cost[1])}, {len(compact):,} bytes")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
