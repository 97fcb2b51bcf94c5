"""An older commit's bot beside today's, driven by today's harness: a tree to run ``bench.cluster`` from.

    .venv/bin/python -m bench.worktree COMMIT DIR
    (cd DIR && .venv/bin/python -m bench.cluster --backend postgres --processes 1 --tables-per-process 30 \\
        --cpu-quota 0.4 --think 0.5 --warmup 30 --seconds 45)

``DIR`` gets ``COMMIT``'s files (``git archive``: the bot, its engine, renderer and services as they were), then
today's ``bench/`` and ``tests/fakediscord/`` copied over them, and a link to this checkout's ``.venv``. The players,
the fake Discord and the figures they print are then the same for both trees, so a run of each, alternated, compares
the bots alone in the same phase of the machine (docs/performance.md, "The issue's own code beside today's"). The
older bot must still speak to today's harness (its slash commands, its storage schema for the audit); a commit of
the last few days does.
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ("bench", "tests/fakediscord")
"""Copied from this checkout over the commit's files: what drives the bot and measures it."""


def build(commit: str, target: Path, *, root: Path = ROOT) -> Path:
    """``target`` (new or empty) made into the tree described above; returns it."""
    if target.exists() and any(target.iterdir()):
        raise SystemExit(f"{target} is not empty")
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(  # noqa: S603 - git with a commit named by whoever runs the benchmark
        ["git", "-C", str(root), "archive", "--format=tar", commit],  # noqa: S607 - git from PATH, as scripts/test
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target)  # noqa: S202 - this repository's own archive
    for part in HARNESS:
        shutil.copytree(root / part, target / part, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    venv = root / ".venv"
    if venv.exists():
        (target / ".venv").symlink_to(venv)
    return target


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("commit")
    parser.add_argument("target", type=Path)
    args = parser.parse_args(argv)
    print(build(args.commit, args.target))


if __name__ == "__main__":
    main(sys.argv[1:])
