"""Summarise py-spy's collapsed stacks (``py-spy record --format raw``, e.g. ``python -m bench.cluster --profile``).

    .venv/bin/python -m bench.profile_top PROFILE.txt [--top 25] [--process SUBSTRING] [--under NAME [--depth 1]]
    .venv/bin/python -m bench.profile_top PROFILE.txt --by-package

Prints, per process (the first frame when py-spy sampled with ``--subprocesses``), its share of the samples, then
the functions with the most samples *on the stack* (inclusive) and *at the top* (self), as % of that process.
``--under NAME`` instead splits the samples under the first frame that starts with NAME (``"_withheld ("``) by the
``--depth`` frames it calls next, as % of the process: where one function's share goes. ``--by-package`` instead
sums the self samples by where their code lives — an installed distribution (``aiohttp``, ``discord``), a standard
library module (``stdlib:asyncio``), a folder of this repository (``pancog/adapter``) or code with no file
(``<string>``: dataclasses' generated methods): which layer a flat profile's time is in.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

_LINE = re.compile(r"^(.*) (\d+)$")


def parse(path: Path) -> dict[str, list[tuple[list[str], int]]]:
    by_process: dict[str, list[tuple[list[str], int]]] = collections.defaultdict(list)
    for line in path.read_text(errors="replace").splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        frames = match.group(1).split(";")
        procs = [i for i, f in enumerate(frames) if f.startswith("process ")]  # parent;child;grandchild;frames
        process = frames[procs[-1]] if procs else "process"
        stack = [f for f in frames[procs[-1] + 1 if procs else 0 :] if not f.startswith("thread ")]
        by_process[process].append((stack, int(match.group(2))))
    return by_process


def package(frame: str) -> str:
    """Where a frame's code lives: ``func (/x/site-packages/aiohttp/client.py:9)`` -> ``aiohttp``,
    ``(/usr/lib/python3.11/asyncio/events.py:1)`` -> ``stdlib:asyncio``, ``(/repo/pancog/game/engine.py:1)`` ->
    ``pancog/game``, ``(/repo/renderer/hand.py:1)`` -> ``renderer``; a frame with no file path, its pseudo-file
    (``<string>``)."""
    match = re.search(r" \((.*):\d+\)$", frame)
    path = match.group(1) if match else frame
    if "/site-packages/" in path or "/dist-packages/" in path:
        rest = re.split(r"/(?:site|dist)-packages/", path, maxsplit=1)[1]
        return rest.split("/")[0].removesuffix(".py").split(".cpython-")[0]
    stdlib = re.search(r"/lib/python3\.\d+/(.*)$", path)
    if stdlib:
        return "stdlib:" + stdlib.group(1).split("/")[0].removesuffix(".py")
    if path.startswith("<") or "/" not in path:
        return path
    here = str(Path(__file__).resolve().parent.parent) + "/"
    if not path.startswith(here):
        return path
    parts = path.removeprefix(here).split("/")
    return "/".join(parts[:-1][:2]) or parts[0]  # its folder (two levels at most), or a top-level file itself


def short(frame: str) -> str:
    """``func (path/to/file.py:123)`` -> ``func (file.py)`` (lines differ per call site)."""
    return re.sub(r" \((?:.*/)?([^/:]+):\d+\)$", r" (\1)", frame)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--process", default="")
    parser.add_argument("--under", default="", help="split the samples under this function by its callees")
    parser.add_argument("--depth", type=int, default=1, help="with --under: how many frames of callees")
    parser.add_argument("--by-package", action="store_true", help="self samples summed by package / folder")
    args = parser.parse_args(argv)
    data = parse(args.profile)
    grand = sum(n for stacks in data.values() for _, n in stacks)
    for process, stacks in sorted(data.items(), key=lambda kv: -sum(n for _, n in kv[1])):
        if args.process not in process:
            continue
        total = sum(n for _, n in stacks)
        if args.under:
            print_under(process, stacks, total, args.under, args.depth, args.top)
            continue
        if args.by_package:
            print_packages(process, stacks, total, args.top)
            continue
        inclusive: collections.Counter[str] = collections.Counter()
        own: collections.Counter[str] = collections.Counter()
        for stack, n in stacks:
            names = [short(f) for f in stack]
            for name in set(names):
                inclusive[name] += n
            if names:
                own[names[-1]] += n
        print(f"\n== {process[:100]}: {total} samples ({100 * total / grand:.0f} % of all)")
        print("  inclusive:")
        for name, n in inclusive.most_common(args.top):
            print(f"    {100 * n / total:5.1f} %  {name[:150]}")
        print("  self:")
        for name, n in own.most_common(args.top):
            print(f"    {100 * n / total:5.1f} %  {name[:150]}")


def print_under(process: str, stacks: list[tuple[list[str], int]], total: int, name: str, depth: int, top: int) -> None:
    """The samples under the first frame starting with ``name``, by the ``depth`` frames it calls next."""
    callees: collections.Counter[str] = collections.Counter()
    for stack, n in stacks:
        names = [short(f) for f in stack]
        at = next((i for i, f in enumerate(names) if f.startswith(name)), None)
        if at is not None:
            callees[";".join(names[at + 1 : at + 1 + depth]) or "<self>"] += n
    print(f"\n== {process[:100]}: {100 * sum(callees.values()) / total:.1f} % under {name}")
    for callee, n in callees.most_common(top):
        print(f"    {100 * n / total:5.2f} %  {callee[:150]}")


def print_packages(process: str, stacks: list[tuple[list[str], int]], total: int, top: int) -> None:
    """The self samples (the frame at the top of each stack) summed by :func:`package`."""
    packages: collections.Counter[str] = collections.Counter()
    for stack, n in stacks:
        if stack:
            packages[package(stack[-1])] += n
    print(f"\n== {process[:100]}: {total} samples, self by package")
    for name, n in packages.most_common(top):
        print(f"    {100 * n / total:5.1f} %  {name[:150]}")


if __name__ == "__main__":
    main(sys.argv[1:])
