"""Layering is enforced here (STYLE 2.1), by folder: a module's ring is the folder it sits in, and each ring may
import only what lies inside it or below it.

=====================  ==============================================================================
ring (folder)          may import
=====================  ==============================================================================
``pancog/game``        the standard library (no asyncio, threads, processes or I/O) and ``pancog.game``
``pancog/ai``          the same, and ``pancog.ai``
``renderer/``          the standard library, Pillow, fontTools, isal (its PNG deflate), ``pancog.game`` and
                       ``renderer``
``pancog/infra``       the standard library, third-party libraries (not discord) and ``pancog.infra``
``pancog/services``    anything but discord and ``pancog.adapter``
``pancog/web``         what services may, plus ``pancog.services`` and the adapter's discord-free words and
                       snapshots (``pancog.adapter.presenters``, ``pancog.adapter.safety``): never discord
``pancog/adapter``     anything (the only Discord ring, with ``bot.py``)
=====================  ==============================================================================

No module sits outside a ring (a new flat ``pancog/x.py`` fails), and no modules import each other in a loop.
Every import counts: relative ones, ``from package import module``, and imports inside functions or
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
# The pure rings compute; they never wait, spawn or touch a socket or a database.
IMPURE = {"asyncio", "threading", "multiprocessing", "concurrent", "socket", "sqlite3", "subprocess"}


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


# ring -> (the folders that make it, the project packages its modules may import)
RINGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "game": (("pancog.game",), ("pancog.game",)),
    "ai": (("pancog.ai",), ("pancog.game", "pancog.ai")),
    "renderer": (("renderer",), ("pancog.game", "renderer")),
    "infra": (("pancog.infra",), ("pancog.infra",)),
    "services": (("pancog.services",), ("pancog.game", "pancog.ai", "renderer", "pancog.infra", "pancog.services")),
    # pan-web: a process beside the bot, reading the services; it shares the bot's words and image snapshots
    # (presenters, which import no discord: test_the_web_ring_reaches_no_discord) so its pages show what Discord does
    "web": (
        ("pancog.web",),
        (
            "pancog.game",
            "pancog.ai",
            "renderer",
            "pancog.infra",
            "pancog.services",
            "pancog.adapter.presenters",
            "pancog.adapter.safety",
            "pancog.web",
        ),
    ),
    "adapter": (("pancog.adapter", "pancog", "bot"), ("pancog", "renderer")),
}


def ring_of(name: str) -> str | None:
    """The ring of module ``name``: its folder's, or None for a module that sits outside every ring."""
    if name in ("pancog", "bot"):  # the extension entry point hands on to the adapter; bot.py is the adapter's
        return "adapter"
    for ring, (folders, _) in RINGS.items():
        if ring != "adapter" and under(name, *folders):
            return ring
    return "adapter" if under(name, "pancog.adapter") else None


def refused(name: str, imported: str) -> str | None:
    """Why module ``name`` may not import ``imported`` (None when it may)."""
    ring = ring_of(name)
    if ring is None:
        return "the module sits outside every ring"
    top = imported.split(".")[0]
    if top in ("pancog", "renderer", "bot"):
        allowed = RINGS[ring][1]
        return None if under(imported, *allowed) else f"the {ring} ring may import only {', '.join(allowed)}"
    if ring == "adapter":
        return None
    if top == "discord":
        return "only the adapter ring imports discord"
    if ring in ("game", "ai"):
        if top not in STDLIB:
            return f"the {ring} ring imports only the standard library"
        return f"the {ring} ring is pure (no {top})" if top in IMPURE else None
    if ring == "renderer" and top not in STDLIB and top not in ("PIL", "fontTools", "isal"):
        return "the renderer imports only the standard library, Pillow, fontTools and isal"
    return None


def violations(name: str) -> list[str]:
    return sorted(f"{name} imports {m}: {why}" for m in imports(name) if (why := refused(name, m)))


@pytest.mark.parametrize(
    ("name", "imported", "ok"),
    [
        ("pancog.game.engine", "pancog.game.cards", True),
        ("pancog.game.engine", "random", True),
        ("pancog.game.engine", "asyncio", False),
        ("pancog.game.engine", "pancog.ai.hard", False),
        ("pancog.game.engine", "attrs", False),
        ("pancog.ai.hard", "pancog.game.moves", True),
        ("pancog.ai.hard", "pancog.services.tables", False),
        ("pancog.ai.hard", "threading", False),
        ("renderer.table", "PIL.Image", True),
        ("renderer.table", "pancog.game.cards", True),
        ("renderer.table", "pancog.services.tables", False),
        ("renderer.table", "discord", False),
        ("renderer.table", "aiosqlite", False),
        ("renderer.assets", "isal.isal_zlib", True),
        ("renderer.assets", "numpy", False),
        ("pancog.infra.storage.sqlite", "aiosqlite", True),
        ("pancog.infra.storage.sqlite", "pancog.infra.storage.base", True),
        ("pancog.infra.storage.sqlite", "pancog.game.errors", False),
        ("pancog.infra.renderq", "renderer", False),
        ("pancog.infra.logs", "pancog.services.clock", False),
        ("pancog.infra.cluster", "discord", False),
        ("pancog.services.tables", "pancog.infra.storage.base", True),
        ("pancog.services.tables", "pancog.game.engine", True),
        ("pancog.services.bots", "pancog.ai", True),
        ("pancog.services.tables", "discord.ext", False),
        ("pancog.services.tables", "pancog.adapter.board", False),
        ("pancog.adapter.board", "discord", True),
        ("pancog.adapter.board", "pancog.services.tables", True),
        ("bot", "pancog.infra.cluster", True),
        ("pancog.web.app", "pancog.services.league", True),
        ("pancog.web.app", "pancog.adapter.presenters.league", True),
        ("pancog.web.app", "aiohttp.web", True),
        ("pancog.web.app", "pancog.adapter.runtime", False),
        ("pancog.web.app", "pancog.adapter.league_cog", False),
        ("pancog.web.app", "discord", False),
        ("pancog.services.league.service", "pancog.web.reader", False),
        ("pancog.helpers", "json", False),
    ],
)
def test_the_rules_refuse_what_a_ring_may_not_import(name: str, imported: str, ok: bool) -> None:
    """Each rule can fail: an import across a ring's edge is refused, one inside it passes."""
    assert (refused(name, imported) is None) is ok, refused(name, imported)


def test_relative_imports_are_resolved() -> None:
    """The scan reads ``from . import x`` and ``from ..y import z`` as the modules they name (no hole for them)."""
    known = {"pancog.game.engine", "pancog.game.cards", "pancog.services.tables"}
    source = (
        "from . import engine\nfrom .cards import Card\nfrom ..services.tables import TableService\nimport discord\n"
    )
    assert imports_of(source, "pancog.game.view", known=known) == {
        "pancog.game.engine",
        "pancog.game.cards",
        "pancog.services.tables",
        "discord",
    }
    assert imports_of("from . import cards", "pancog.game", is_package=True, known=known) == {"pancog.game.cards"}


def test_the_scan_sees_every_ring() -> None:
    """The rings exist where the rules look for them, and every module of the project sits in one."""
    assert "pancog.game.engine" in MODULES
    assert "pancog.ai.hard" in MODULES
    assert "renderer" in MODULES
    assert {"pancog.infra.storage.base", "pancog.infra.renderq", "pancog.infra.logs"} <= set(MODULES)
    assert {"pancog.services.tables", "pancog.services.ledger", "pancog.services.clock"} <= set(MODULES)
    assert "pancog.adapter.runtime" in MODULES
    outside = sorted(name for name in MODULES if ring_of(name) is None)
    assert not outside, f"modules outside every ring (put each in the folder of its ring): {outside}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if ring_of(n) != "adapter"))
def test_each_module_imports_only_its_ring_and_those_below(name: str) -> None:
    """game < ai < services, renderer (game values), infra (alone) < services; only the adapter imports discord."""
    assert not violations(name)


def test_the_web_ring_reaches_no_discord() -> None:
    """pan-web runs without discord: nothing it imports, directly or through the modules it imports, imports discord
    (the presenters it shares with the adapter included)."""
    reached: set[str] = set()
    todo = [name for name in MODULES if under(name, "pancog.web")]
    assert todo, "no pancog.web modules: the scan is broken"
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        for imported in imports(name):
            assert not under(imported, "discord"), f"pan-web reaches discord through {name}"
            if imported in MODULES:
                todo.append(imported)
            elif imported.rpartition(".")[0] in MODULES:  # ``from module import name``
                todo.append(imported.rpartition(".")[0])
    assert {"pancog.adapter.presenters.league", "pancog.adapter.safety"} <= reached
    assert not any(
        under(n, "pancog.adapter") and not under(n, *RINGS["web"][1][5:7]) for n in reached - {"pancog.adapter"}
    )


def test_only_the_adapter_ring_and_bot_import_discord() -> None:
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


# --------------------------------------------------------------------------------------------- the one way out

EDGE = "pancog.adapter.edge"
# What sends, edits or acknowledges something on Discord: a message, an interaction response, a followup, a DM, an
# autocomplete answer, a modal, a thread. Only the edge module calls these (and checks every payload first).
SENDING_CALLS = {
    "send",
    "send_message",
    "edit",
    "edit_message",
    "edit_original_response",
    "delete_original_response",
    "delete_message",
    "delete",
    "defer",
    "send_modal",
    "autocomplete",
    "create_dm",
    "start_thread_without_message",
    "edit_channel",
    "reply",
    "pong",
}
READS = {"is_done", "type"}  # what may be read of ``interaction.response`` outside the edge


def _own(node: ast.AST) -> bool:
    """``edge.x`` (the edge's own functions) and ``self.x`` (a cog's helpers, e.g. ``PanCog.defer``)."""
    func = node.func if isinstance(node, ast.Call) else node
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("edge", "self")


def direct_sends(source: str) -> list[str]:
    """The Discord send/edit/followup/``response.*`` calls in ``source`` (``line: expression``), decorators aside."""
    tree = ast.parse(source)
    decorators = {id(d) for node in ast.walk(tree) for d in getattr(node, "decorator_list", [])}
    decorated = {id(n) for d in ast.walk(tree) if id(d) in decorators for n in ast.walk(d)}
    found: list[str] = []
    for node in ast.walk(tree):
        if id(node) in decorated or _own(node):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SENDING_CALLS:
            found.append(f"{node.lineno}: {ast.unparse(node.func)}(...)")
        elif isinstance(node, ast.Attribute) and (
            node.attr == "followup"
            or (isinstance(node.value, ast.Attribute) and node.value.attr == "response" and node.attr not in READS)
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_direct_sends_finds_each_kind_of_call() -> None:
    """The scan itself: a channel send, a response, a followup, an edit, a defer and a DM are found; reading
    ``response.is_done()`` and an autocomplete decorator are not."""
    source = (
        "async def f(interaction, channel, message, client):\n"
        "    await channel.send('x')\n"
        "    await interaction.response.send_message('x')\n"
        "    await interaction.followup.send('x')\n"
        "    await message.edit(content='x')\n"
        "    await interaction.response.defer()\n"
        "    dm = await client.create_dm(user)\n"
        "    if interaction.response.is_done(): pass\n"
        "    await edge.respond(interaction, 'x')\n"
        "@meld.autocomplete('cards')\n"
        "async def g(): pass\n"
    )
    found = direct_sends(source)
    lines = sorted({int(f.split(":")[0]) for f in found})
    assert lines == [2, 3, 4, 5, 6, 7], found
    assert not any("is_done" in f or "autocomplete" in f or "edge." in f for f in found)


def test_every_payload_leaves_through_the_edge() -> None:
    """Only ``pancog/adapter/edge.py`` sends, edits, defers or follows up on Discord (and ``bot.py`` nothing): the
    information-flow check there sees every payload."""
    offenders = {
        name: direct_sends(MODULES[name].read_text(encoding="utf-8"))
        for name in sorted(modules_under("pancog.adapter"))
        if name != EDGE
    }
    offenders["bot"] = direct_sends(MODULES["bot"].read_text(encoding="utf-8"))
    offenders = {name: calls for name, calls in offenders.items() if calls}
    assert offenders == {}, offenders
    assert direct_sends(MODULES[EDGE].read_text(encoding="utf-8")), "the edge sends nothing: the scan is broken"
