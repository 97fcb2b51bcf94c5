"""The services are wired in one place (docs/architecture.md, "The composition root"), checked over the source:

* no module sets (or mutates) a public attribute of another module's service: a service is changed only through
  its declared methods;
* the declared registration methods (stand-in, seat guards, settlement hook, table-closed listeners, the clock's
  seat keepers) are called by the composition root only (``pancog/adapter/extension.py``);
* every background task goes through ``pancog.infra.tasks.Tasks`` (no bare ``create_task``/``ensure_future``);
* no cog reaches another through the runtime's verb table (``rt.handlers["watch"]``): the verb table is for the
  buttons and selects, whose custom_id carries the verb;
* every command is declared one way: a method of a ``PanCog`` with ``@app_commands.command``, its group (if any)
  one of the groups declared once in ``pancog/adapter/groups.py``.

Each check is tested on a planted violation too, so it cannot pass by seeing nothing."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ROOT / "pancog" / "services"
ROOT_MODULE = "pancog/adapter/extension.py"


def product_files() -> Iterator[Path]:
    yield from sorted((ROOT / "pancog").rglob("*.py"))
    yield ROOT / "bot.py"


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --------------------------------------------------------------------------------------------- service attributes

NOT_SERVICES = {"Exception", "PanError", "StrEnum", "Enum", "IntEnum", "Protocol", "NamedTuple", "TypedDict"}
MUTATORS = {"append", "extend", "insert", "remove", "pop", "clear", "add", "discard", "update", "setdefault"}


def _is_dataclass(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "dataclass":
            return True
    return False


def _bases(node: ast.ClassDef) -> set[str]:
    return {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases}


CONTAINERS = {"list", "dict", "set", "deque", "defaultdict", "OrderedDict", "Counter"}


def _container(value: ast.expr | None, annotation: ast.expr | None = None) -> bool:
    """A mutable container: ``[]``, ``{}``, ``set()``, ``list[...]`` and the like."""
    if isinstance(value, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp | ast.SetComp):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in CONTAINERS:
            return True
    if annotation is not None:
        head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
        return (head.attr if isinstance(head, ast.Attribute) else getattr(head, "id", "")) in CONTAINERS
    return False


def service_attributes(sources: dict[str, str]) -> tuple[dict[str, set[str]], set[str]]:
    """(public attribute name -> the modules whose service classes have it, the names that hold a mutable
    container). A service class is a behaviour class of the services ring: not a dataclass (values), an error, an
    enum or a protocol. Its attributes are the ``self.x`` it assigns and the names it annotates in its body."""
    owners: dict[str, set[str]] = {}
    containers: set[str] = set()
    for module, source in sources.items():
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.ClassDef) or _is_dataclass(node):
                continue
            bases = _bases(node)
            if bases & NOT_SERVICES or any(b.endswith("Error") for b in bases):
                continue
            found: list[tuple[str, ast.expr | None, ast.expr | None]] = []
            for n in ast.walk(node):
                if isinstance(n, ast.Assign | ast.AnnAssign):
                    targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                    annotation = n.annotation if isinstance(n, ast.AnnAssign) else None
                    for t in targets:
                        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                            found.append((t.attr, n.value, annotation))
            for n in node.body:
                if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
                    found.append((n.target.id, n.value, n.annotation))
            for name, value, annotation in found:
                if name.startswith("_"):
                    continue
                owners.setdefault(name, set()).add(module)
                if _container(value, annotation):
                    containers.add(name)
    return owners, containers


def _target(node: ast.expr) -> ast.expr:
    """The object a store goes to: ``x.attr`` of ``x.attr[k][j] = ...``."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return node


def _foreign(node: ast.expr, module: str, owners: dict[str, set[str]]) -> str | None:
    """``x.attr`` (x not self/cls) naming a public attribute of a service of another module only."""
    if not isinstance(node, ast.Attribute):
        return None
    if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
        return None
    found = owners.get(node.attr)
    if not found or module in found:
        return None
    return ast.unparse(node)


def foreign_writes(source: str, module: str, attributes: tuple[dict[str, set[str]], set[str]]) -> list[str]:
    """Assignments to (``x.attr = ...``, ``x.attr += ...``, ``x.attr[k] = ...``) another module's service
    attribute, and in-place changes of one holding a container (``x.attr.append(...)``), as ``module:line: x.attr``."""
    owners, containers = attributes
    found: list[str] = []

    def held(node: ast.expr) -> ast.expr | None:
        """``x.attr`` of ``x.attr[k]`` when ``attr`` holds a container (else the store is into something else)."""
        inner = _target(node)
        return inner if isinstance(inner, ast.Attribute) and inner.attr in containers else None

    for node in ast.walk(ast.parse(source)):
        stores: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            stores = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            stores = [ast.Subscript(value=node.func.value)]  # x.attr.append(...): a change inside x.attr
        for store in stores:
            target = held(store) if isinstance(store, ast.Subscript) else store
            name = _foreign(target, module, owners) if target is not None else None
            if name is not None:
                found.append(f"{module}:{node.lineno}: {name}")
    return found


def service_sources() -> dict[str, str]:
    return {rel(p): p.read_text(encoding="utf-8") for p in sorted(SERVICES.rglob("*.py"))}


def scanned_for_writes() -> Iterator[Path]:
    """The rings that may hold a service at all: the services themselves, the adapter and bot.py."""
    for path in product_files():
        if rel(path).startswith(("pancog/services/", "pancog/adapter/")) or path.name == "bot.py":
            yield path


def test_no_module_sets_an_attribute_of_another_modules_service() -> None:
    """A service is changed through its declared methods only: no ``clock.keeps_seats = ...`` from outside."""
    attributes = service_attributes(service_sources())
    assert {"tables", "ledger", "settings"} <= set(attributes[0])  # the scan sees the services
    found = [hit for path in scanned_for_writes() for hit in foreign_writes(path.read_text(), rel(path), attributes)]
    assert found == []


def test_the_attribute_check_catches_a_planted_violation() -> None:
    """Setting, mutating or subscripting another module's service attribute is caught; self, locals, and names no
    service has are not."""
    services = {
        "pancog/services/clock.py": "class TurnClock:\n    def __init__(self):\n        self.keeps_seats = None\n"
        "        self.guards = []\n        self._private = 1\n",
        "pancog/services/values.py": "from dataclasses import dataclass\n@dataclass\nclass Row:\n    lines: int\n",
    }
    attributes = service_attributes(services)
    planted = (
        "def wire(clock, board):\n"
        "    clock.keeps_seats = print\n"  # caught
        "    clock.guards.append(print)\n"  # caught
        "    clock.guards[0] = print\n"  # caught
        "    clock.guards += [print]\n"  # caught
        "    clock.keeps_seats.update(x)\n"  # not a container: a method of whatever it holds
        "    table[clock.keeps_seats] = 1\n"  # only read
        "    clock.keeps_seats[0] = 1\n"  # not a container: whatever it holds is not the clock's
        "    clock._private = 2\n"  # not public: not a service attribute
        "    board.lines = []\n"  # a dataclass field: values are not services
        "class Mine:\n    def __init__(self):\n        self.keeps_seats = 1\n"  # its own attribute
    )
    hits = foreign_writes(planted, "pancog/adapter/extension.py", attributes)
    assert [h.split(": ", 1)[1] for h in hits] == ["clock.keeps_seats", "clock.guards", "clock.guards", "clock.guards"]
    assert foreign_writes(planted, "pancog/services/clock.py", attributes) == []  # in its own module


# --------------------------------------------------------------------------------------------- registration

REGISTRATION = {
    "set_stand_in",
    "add_seat_guard",
    "set_settlement_hook",
    "on_close",
    "keep_seats_of",
    "set_finish_hook",
}
"""The declared registration methods of the services (TableService, TurnClock, TournamentService): the composition
root's alone."""


def registration_calls(source: str, module: str) -> list[str]:
    return [
        f"{module}:{node.lineno}: {ast.unparse(node.func)}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in REGISTRATION
    ]


def test_registration_methods_exist_and_only_the_composition_root_calls_them() -> None:
    from pancog.services.clock import TurnClock
    from pancog.services.tables import TableService
    from pancog.services.tournaments.service import TournamentService

    declared = {
        name for cls in (TableService, TurnClock, TournamentService) for name in REGISTRATION if hasattr(cls, name)
    }
    assert declared == REGISTRATION
    outside = [
        hit
        for path in product_files()
        if rel(path) != ROOT_MODULE
        for hit in registration_calls(path.read_text(), rel(path))
    ]
    assert outside == []
    assert len(registration_calls((ROOT / ROOT_MODULE).read_text(), ROOT_MODULE)) >= len(REGISTRATION)


def test_the_registration_check_catches_a_planted_call() -> None:
    planted = "def start(self):\n    self.tables.add_seat_guard(self.verify_seat)\n    self.tables.subscribe(f)\n"
    assert registration_calls(planted, "pancog/services/watch.py") == [
        "pancog/services/watch.py:2: self.tables.add_seat_guard"
    ]


# --------------------------------------------------------------------------------------------- background tasks

TASK_HELPER = "pancog/infra/tasks.py"
AWAITED_IN_PLACE = {
    # (module, function): a future made and awaited to its end inside the same call, not background work
    ("pancog/infra/storage/sqlite.py", "_to_the_end"): "the transaction's end, shielded from the caller's cancel",
    ("pancog/infra/storage/postgres.py", "_end"): "COMMIT/ROLLBACK run to the end before the pool gets the link",
    ("pancog/services/clock.py", "_run"): "the scheduler's sleep raced against its wake-up, both cancelled after",
    ("pancog/infra/coord.py", "_bounded"): "a heartbeat raced against its bound; on time-out its link is dropped",
}
NOT_YET: dict[tuple[str, str], str] = {
    # (module, function): a bare task still to convert to Tasks, and why it waits
}


def bare_tasks(source: str, module: str) -> list[tuple[str, str]]:
    """(module, enclosing function) of every ``create_task``/``ensure_future`` call."""
    found: list[tuple[str, str]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            if isinstance(child, ast.Call):
                func = child.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if called in ("create_task", "ensure_future"):
                    found.append((module, function))
            visit(child, name)

    visit(ast.parse(source), "<module>")
    return found


def test_every_background_task_goes_through_the_tasks_helper() -> None:
    """No bare create_task/ensure_future in the product but the helper's own and the listed in-place awaits."""
    found = {
        hit for path in product_files() if rel(path) != TASK_HELPER for hit in bare_tasks(path.read_text(), rel(path))
    }
    assert found - set(AWAITED_IN_PLACE) - set(NOT_YET) == set()
    assert set(AWAITED_IN_PLACE) <= found  # the exceptions are still needed (else drop them)


def test_the_task_check_catches_a_planted_task() -> None:
    planted = "import asyncio\nclass Cog:\n    def kick(self):\n        self.t = asyncio.create_task(self.run())\n"
    assert bare_tasks(planted, "pancog/adapter/x.py") == [("pancog/adapter/x.py", "kick")]


# --------------------------------------------------------------------------------------------- verbs between cogs


def verb_lookups(source: str, module: str) -> list[str]:
    """Reads of the runtime's verb table by key (``rt.handlers["watch"]``, ``self.rt.handlers.get(...)``)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        table: ast.expr | None = None
        if isinstance(node, ast.Subscript):
            table = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            table = node.func.value
        if isinstance(table, ast.Attribute) and table.attr == "handlers":
            found.append(f"{module}:{node.lineno}: {ast.unparse(node)[:60]}")
    return found


def test_no_cog_calls_another_through_the_verb_table() -> None:
    """Only the runtime's dispatch (a button's or select's verb from its custom_id) reads the verb table."""
    found = [
        hit
        for path in product_files()
        if rel(path) != "pancog/adapter/runtime.py"
        for hit in verb_lookups(path.read_text(), rel(path))
    ]
    assert found == []
    planted = 'rt.handlers["watch"](i, t, ())\nself.rt.handlers.get("x")\nrt.tables.get(1)\n'
    assert sorted(verb_lookups(planted, "m")) == ["m:1: rt.handlers['watch']", "m:2: self.rt.handlers.get('x')"]


# --------------------------------------------------------------------------------------------- commands

GROUPS_MODULE = "pancog/adapter/groups.py"
GROUP_EXTRAS = {"IN_PAN", "IN_ADMIN", "IN_SEASON", "IN_TOURNEY", "IN_TEMPLATE", "IN_SCHEDULE", "IN_ANYWHERE"}


def command_style(source: str, module: str) -> list[str]:
    """Every way of registering a command but the one: a group made outside groups.py, a ``@group.command``
    decorator, a command added to or removed from a group by hand, ``@app_commands.command`` outside a class body,
    or ``extras`` that is not one of the declared groups."""
    tree = ast.parse(source)
    found: list[str] = []
    in_class = {id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for f in c.body}
    for node in ast.walk(tree):
        where = f"{module}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = ast.unparse(node.func)
            if module != GROUPS_MODULE and name in ("app_commands.Group", "discord.app_commands.Group"):
                found.append(f"{where}: a group made outside groups.py")
            if module != GROUPS_MODULE and node.func.attr in ("add_command", "remove_command"):
                found.append(f"{where}: {name}(...) by hand")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                where = f"{module}:{decorator.lineno}"
                call = decorator if isinstance(decorator, ast.Call) else None
                target = call.func if call is not None else decorator
                if not (isinstance(target, ast.Attribute) and target.attr in ("command", "group")):
                    continue
                if ast.unparse(target) != "app_commands.command":
                    found.append(f"{where}: @{ast.unparse(target)}")
                    continue
                if id(node) not in in_class:
                    found.append(f"{where}: a command outside a cog")
                for keyword in call.keywords if call is not None else []:
                    if keyword.arg == "extras" and not (
                        isinstance(keyword.value, ast.Name) and keyword.value.id in GROUP_EXTRAS
                    ):
                        found.append(f"{where}: extras={ast.unparse(keyword.value)}")
    return found


def test_every_command_is_registered_the_one_way() -> None:
    """Cog methods with @app_commands.command, each group declared once (pancog/adapter/groups.py)."""
    found = [hit for path in product_files() for hit in command_style(path.read_text(), rel(path))]
    assert found == []


def test_the_command_check_catches_the_other_styles() -> None:
    planted = (
        "class AdminCog(PanCog):\n"
        "    admin = app_commands.Group(name='panadmin', description='x')\n"  # 2
        "    @admin.command(name='config', description='x')\n"  # 3
        "    async def config(self, interaction): ...\n"
        "    @app_commands.command(name='flags', description='x', extras={'group': 'panadmin'})\n"  # 5
        "    async def flags(self, interaction): ...\n"
        "    @app_commands.command(name='ok', description='x', extras=IN_ADMIN)\n"  # the one way
        "    async def ok(self, interaction): ...\n"
        "@app_commands.command(name='loose', description='x')\n"  # 9
        "async def loose(interaction): ...\n"
        "def load(tree, season):\n"
        "    tree.get_command('panadmin').add_command(season)\n"  # 12
    )
    found = command_style(planted, "pancog/adapter/admin_cog.py")
    assert sorted(int(f.split(":", 2)[1]) for f in found) == [2, 3, 5, 9, 12], found
