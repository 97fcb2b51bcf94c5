"""Layering is enforced here (STYLE 2.1): the engine is pure, the renderer draws card values, the services never
touch Discord or the adapter wing, only the wing and bot.py import discord, and no modules import each other in
a loop. Every import counts: relative ones, ``from package import module``, and imports inside functions or
``if TYPE_CHECKING`` blocks."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("pancog", "renderer")
STDLIB = set(sys.stdlib_module_names) | {"__future__"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    found = {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}
    found["bot"] = ROOT / "bot.py"
    return found


MODULES = project_modules()


def imports_of(source: str, name: str, *, is_package: bool = False, known: set[str] | None = None) -> set[str]:
    """Absolute names of the modules ``source`` (module ``name``) imports, relative imports resolved.

    ``from pkg import mod`` counts as importing ``pkg.mod`` when that is a module of the project."""
    known = set(MODULES) if known is None else known
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = parts[: len(parts) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            subs = {f"{base}.{alias.name}" for alias in node.names} & known
            found.update(subs or {base})
    return found


def imports(name: str) -> set[str]:
    path = MODULES[name]
    return imports_of(path.read_text(encoding="utf-8"), name, is_package=path.name == "__init__.py")


def under(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def modules_under(*packages: str) -> Iterator[str]:
    return (name for name in MODULES if under(name, *packages))


SERVICES = [
    name
    for name in MODULES
    if under(name, "pancog") and not under(name, "pancog.adapter", "pancog.game") and name != "pancog"
]


def test_relative_imports_are_resolved() -> None:
    """The scan reads ``from . import x`` and ``from ..y import z`` as the modules they name (no hole for them)."""
    known = {"pancog.game.engine", "pancog.game.cards", "pancog.tables"}
    source = "from . import engine\nfrom .cards import Card\nfrom ..tables import TableService\nimport discord\n"
    assert imports_of(source, "pancog.game.view", known=known) == {
        "pancog.game.engine",
        "pancog.game.cards",
        "pancog.tables",
        "discord",
    }
    assert imports_of("from . import cards", "pancog.game", is_package=True, known=known) == {"pancog.game.cards"}


def test_the_scan_sees_every_layer() -> None:
    """The rings exist where the rules below look for them."""
    assert "pancog.game.engine" in MODULES
    assert "pancog.adapter.runtime" in MODULES
    assert "renderer" in MODULES
    assert {"pancog.tables", "pancog.ledger", "pancog.store", "pancog.clock", "pancog.bots"} <= set(SERVICES)


@pytest.mark.parametrize("name", sorted(modules_under("pancog.game")))
def test_engine_imports_only_itself_and_the_stdlib(name: str) -> None:
    """pancog/game imports nothing but the standard library (no asyncio) and other pancog.game modules."""
    bad = {m for m in imports(name) if not under(m, "pancog.game") and m.split(".")[0] not in STDLIB}
    assert not bad, f"{name} imports {sorted(bad)}"
    assert not any(under(m, "asyncio") for m in imports(name)), f"{name} uses asyncio"


@pytest.mark.parametrize("name", sorted(modules_under("renderer")))
def test_renderer_imports_only_card_values(name: str) -> None:
    """renderer/ may use Pillow and the card value types, never discord, storage, services or the engine's rules."""
    found = imports(name)
    assert not {m for m in found if under(m, "discord", "aiosqlite")}, f"{name} imports discord or aiosqlite"
    project = {m for m in found if under(m, "pancog")}
    assert project <= {"pancog.game.cards"}, f"{name} imports {sorted(project)}"


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_services_never_import_discord_or_the_adapter(name: str) -> None:
    """The services ring (pancog/*.py, storage, ai, ...) knows nothing of Discord or the adapter wing."""
    bad = {m for m in imports(name) if under(m, "discord", "pancog.adapter")}
    assert not bad, f"{name} imports {sorted(bad)}; only the adapter wing and bot.py may"


def test_only_the_adapter_wing_and_bot_import_discord() -> None:
    """A file's folder tells whether it touches Discord."""
    users = {name for name in MODULES if any(under(m, "discord") for m in imports(name))}
    assert users, "nothing imports discord: the scan is broken"
    assert all(under(name, "pancog.adapter") or name == "bot" for name in users), sorted(users)


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_find_cycles_finds_a_loop() -> None:
    """The cycle finder itself: a loop of three is found, a chain is not."""
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycles() -> None:
    """No modules import each other in a loop, counting every import (but a package's ``__init__`` importing its
    own submodules, which only hands their names on)."""
    graph = {
        name: {m for m in imports(name) if m in MODULES and m != name and not m.startswith(name + ".")}
        for name in MODULES
    }
    assert find_cycles(graph) == []
