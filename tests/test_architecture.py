"""Layering is enforced here: the engine is pure, the renderer and services never import discord."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _files(*parts: str) -> list[Path]:
    base = ROOT.joinpath(*parts)
    if base.is_file():
        return [base]
    return sorted(base.rglob("*.py"))


def test_engine_imports_only_stdlib() -> None:
    """pancog/game imports nothing outside the standard library (and itself)."""
    files = _files("pancog", "game")
    assert files, "the engine package is missing"
    allowed = set(sys.stdlib_module_names) | {"pancog", "__future__"}
    for path in files:
        bad = _imports(path) - allowed
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"
        assert "asyncio" not in _imports(path), f"{path} uses asyncio"


def test_renderer_never_imports_discord() -> None:
    """renderer/ may use Pillow and engine types, never discord, aiosqlite or the services."""
    for path in _files("renderer"):
        bad = _imports(path) & {"discord", "aiosqlite"}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_services_never_import_discord() -> None:
    """Only cog.py, views.py, presenters-free adapters and bot.py may import discord."""
    for path in _files("pancog"):
        if "adapter" in path.relative_to(ROOT).parts:
            continue
        if "discord" in _imports(path) and path.name != "__init__.py":
            raise AssertionError(f"{path.relative_to(ROOT)} imports discord; only the adapter layer may")
