"""What the repository holds: a clean clone must set itself up (README's two commands, CI's ``.ci/run``).

A symbolic link committed by mistake (a worktree's ``.venv -> /elsewhere/.venv``, added by ``git add -A``) made every
fresh clone's ``scripts/setup`` fail with "File exists" before installing anything; nothing else would notice it
on a machine whose checkout already has a real ``.venv``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOCAL = (".venv", ".env", "data/pan.sqlite3", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache")


def tracked() -> list[tuple[str, str]]:
    """(mode, path) of every file git tracks here."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.fail("the repository checks need git and a git checkout (CI runs on a clone)")
    out = subprocess.run(
        ["git", "ls-files", "-s", "-z"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout  # "<mode> <object> <stage>\t<path>\0"
    rows = []
    for entry in filter(None, out.split("\0")):
        meta, path = entry.split("\t", 1)
        rows.append((meta.split()[0], path))
    return rows


def test_no_symbolic_links_are_tracked() -> None:
    links = [path for mode, path in tracked() if mode == "120000"]
    assert links == [], f"symbolic links tracked (a clone gets them dangling): {links}"


def test_nothing_local_is_tracked() -> None:
    found = [
        path
        for _mode, path in tracked()
        if any(path == p or path.startswith(p + "/") or f"/{p}/" in path for p in LOCAL)
    ]
    assert found == [], f"machine-local files tracked: {found}"


def _setup_which(env: dict[str, str]) -> str:
    out = subprocess.run(
        [str(ROOT / "scripts" / "setup"), "--which"], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def test_setup_prefers_the_systems_optimised_python() -> None:
    """``scripts/setup`` makes .venv with $PYTHON if set, else the system's /usr/bin/python3 when it is 3.11+ and can
    make a venv (distributions build it with PGO and LTO: docs/performance.md), else ``python3`` on PATH."""
    base = {"PATH": "/usr/bin:/bin"}
    assert _setup_which({**base, "PYTHON": "/opt/elsewhere/python3.12"}) == "/opt/elsewhere/python3.12"
    system = Path("/usr/bin/python3")
    usable = (
        system.exists()
        and subprocess.run(
            [str(system), "-c", "import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))"],
            capture_output=True,
        ).returncode
        == 0
    )
    assert _setup_which(base) == ("/usr/bin/python3" if usable else "python3")


def test_setup_fails_cleanly_with_a_python_that_cannot_make_a_venv(tmp_path: Path) -> None:
    """A $PYTHON that cannot make a venv stops setup (no fallback to another interpreter) and leaves no .venv."""
    shutil.copytree(ROOT / "scripts", tmp_path / "scripts")
    out = subprocess.run(
        [str(tmp_path / "scripts" / "setup")],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHON": str(tmp_path / "no-such-python")},
        capture_output=True,
        text=True,
    )
    assert out.returncode != 0
    assert not (tmp_path / ".venv").exists()
