"""The examples in the docstrings run: every module of ``pancog`` and ``renderer`` with a ``>>>`` example is
doctested, and every example it holds is counted as run (none is skipped by a parse slip)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def examples_in(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.lstrip().startswith(">>> "))


WITH_EXAMPLES = {
    module_name(path): examples_in(path)
    for package in ("pancog", "renderer")
    for path in sorted((ROOT / package).rglob("*.py"))
    if examples_in(path)
}


def test_the_engine_has_examples() -> None:
    """The engine's doctests are among those run (a scan that found none would pass everything below)."""
    engine = {name for name in WITH_EXAMPLES if name.startswith("pancog.game.")}
    assert {"pancog.game.cards", "pancog.game.melds", "pancog.game.rules", "pancog.game.codec"} <= engine


@pytest.mark.parametrize("name", sorted(WITH_EXAMPLES))
def test_docstring_examples_run_and_pass(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (run doctest -v)"
    assert result.attempted == WITH_EXAMPLES[name], f"{name}: {result.attempted} of {WITH_EXAMPLES[name]} ran"
