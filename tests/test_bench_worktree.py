"""bench/worktree.py: an older commit's files with today's harness (bench/, tests/fakediscord/) over them and the
checkout's .venv linked, so ``bench.cluster`` run there drives that commit's bot with today's players and fake.

Tested on a repository of its own (the project's clone may be shallow): a commit of "then" files, and a working tree
changed since, as today's checkout is."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench.worktree import build


def _git(repo: Path, *args: str) -> str:
    argv = ["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", *args]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.fixture
def checkout(tmp_path: Path) -> tuple[Path, str]:
    """A repository with one commit, then bot.py, the harness and a .venv changed or added in its working tree."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _write(repo, {"bot.py": "then\n", "bench/cluster.py": "then\n", "tests/fakediscord/app.py": "then\n"})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "then")
    commit = _git(repo, "rev-parse", "HEAD").strip()
    _write(
        repo,
        {
            "bot.py": "now\n",
            "bench/cluster.py": "now\n",
            "bench/players.py": "now\n",
            "tests/fakediscord/app.py": "now\n",
            ".venv/bin/python": "",
        },
    )
    return repo, commit


def test_the_commit_s_bot_with_today_s_harness_and_venv(tmp_path: Path, checkout: tuple[Path, str]) -> None:
    repo, commit = checkout
    tree = build(commit, tmp_path / "old", root=repo)
    assert (tree / "bot.py").read_text() == "then\n"  # the bot as it was
    assert (tree / "bench/cluster.py").read_text() == "now\n"  # today's harness over it
    assert (tree / "bench/players.py").read_text() == "now\n"
    assert (tree / "tests/fakediscord/app.py").read_text() == "now\n"
    assert (tree / ".venv").is_symlink() and (tree / ".venv").resolve() == (repo / ".venv").resolve()


def test_a_tree_is_not_built_over_files(tmp_path: Path, checkout: tuple[Path, str]) -> None:
    repo, commit = checkout
    target = tmp_path / "busy"
    _write(target, {"keep.txt": "mine"})
    with pytest.raises(SystemExit, match="not empty"):
        build(commit, target, root=repo)
    assert [p.name for p in target.iterdir()] == ["keep.txt"]
