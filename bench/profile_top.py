"""Summarise py-spy's collapsed stacks (``py-spy record --format raw``, e.g. ``python -m bench.cluster --profile``).

    .venv/bin/python -m bench.profile_top PROFILE.txt [--top 25] [--process SUBSTRING]

Prints, per process (the first frame when py-spy sampled with ``--subprocesses``), its share of the samples, then
the functions with the most samples *on the stack* (inclusive) and *at the top* (self), as % of that process.
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


def short(frame: str) -> str:
    """``func (path/to/file.py:123)`` -> ``func (file.py)`` (lines differ per call site)."""
    return re.sub(r" \((?:.*/)?([^/:]+):\d+\)$", r" (\1)", frame)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--process", default="")
    args = parser.parse_args(argv)
    data = parse(args.profile)
    grand = sum(n for stacks in data.values() for _, n in stacks)
    for process, stacks in sorted(data.items(), key=lambda kv: -sum(n for _, n in kv[1])):
        if args.process not in process:
            continue
        total = sum(n for _, n in stacks)
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


if __name__ == "__main__":
    main(sys.argv[1:])
