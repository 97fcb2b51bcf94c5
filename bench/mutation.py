"""Mutation score of the test suite: seeded small mutants of the engine and the ledger, each run against its tests.

    .venv/bin/python -m bench.mutation                         # 200 engine + 60 ledger mutants, seed 1
    .venv/bin/python -m bench.mutation --engine 40 --ledger 0  # a quick look
    .venv/bin/python -m bench.mutation --tests-from 4dc0d2c    # the same mutants against an older tests/ tree
    .venv/bin/python -m bench.mutation --rerun bench/results/mutation-before.json   # only the survivors of a run
    .venv/bin/python -m bench.mutation --show pancog/game/melds.py:cmp:1a2b3c4d     # print one mutant's diff

Every mutation site of a file is found by walking its AST in a fixed order: comparisons flipped
(``<`` to ``<=``, ``==`` to ``!=``, ``in`` to ``not in`` ...), ``and``/``or`` swapped, ``not`` dropped,
``+``/``-`` swapped, integer constants moved by one, ``True``/``False`` swapped, ``+=``/``-=`` swapped
and statements (assignments, calls, returns, raises, ``continue``/``break``) replaced by ``pass``.
Type annotations, docstrings and string constants are left alone. A seeded random sample is
drawn per group (``engine`` = ``pancog/game/*.py``, ``ledger`` = ``pancog/services/ledger.py``; with ``--tournaments``,
``--league``, ``--storage`` also those service packages, each against its own test folder); each mutant is
written into a private copy of the repository (the worktree is never touched) and the group's
tests run against it with ``pytest -x`` in one process under a time limit. A failing test or the
time limit kills the mutant; a mutant whose module no longer imports counts as killed too.

A mutant's id is ``file:operator:hash`` where the hash covers the source line's text and the
site's position among the sites of that line, so ids survive edits elsewhere in the file.
``bench/mutation_equivalent.txt`` lists equivalent mutants (no behaviour change; each with the
reason); they are excluded from the score. Not part of CI: a 200-mutant run takes 30-60 minutes on
one core. Results go to ``bench/results/mutation-<label>.json``.
"""

from __future__ import annotations

import argparse
import ast
import copy
import difflib
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENT = ROOT / "bench" / "mutation_equivalent.txt"
RESULTS = ROOT / "bench" / "results"

# Tests per target file, most relevant (and fastest) first: with -x a killed mutant stops early.
GAME_TESTS = [
    "tests/game/test_melds.py",
    "tests/game/test_cases.py",
    "tests/game/test_rules_cases.py",
    "tests/game/test_rules_flow.py",
    "tests/game/test_engine.py",
    "tests/game/test_turn_and_hand_flow.py",
    "tests/game/test_golden.py",
    "tests/game/test_notation.py",
    "tests/game/test_menu_agreement.py",
    "tests/game/test_fast_paths.py",
    "tests/game/test_properties.py",
    "tests/game/test_move_listing.py",
]
# Extra tests for some files, run first; the codec round trips and the move enumerator's own
# tests (13 s together) run only for the files they test.
FIRST = {
    "pancog/game/codec.py": ["tests/game/test_codec.py"],
    "pancog/game/state.py": ["tests/game/test_codec.py"],
    "pancog/game/notation.py": ["tests/game/test_notation.py", "tests/game/test_golden.py"],
    "pancog/game/moves.py": ["tests/game/test_moves.py"],
    "pancog/game/melds.py": ["tests/game/test_melds.py", "tests/game/test_moves.py"],
    "pancog/game/_fast.py": ["tests/game/test_fast_paths.py"],
}
LEDGER_TESTS = [
    "tests/services/ledger/test_operations.py",
    "tests/infra/storage/test_atomicity.py",
    "tests/services/test_store.py",
    "tests/services/ledger/test_rules.py",
    "tests/infra/storage/test_crash_recovery.py",
    "tests/services/tables/test_service.py",
    "tests/services/ledger/test_reads.py",
]
GROUPS = {
    "engine": "pancog/game/*.py",
    "ledger": "pancog/services/ledger.py",
    # the services that landed after the engine (issue 21: "plus the new tournament, league and storage modules")
    "tournaments": "pancog/services/tournaments/*.py",
    "league": "pancog/services/league/*.py",
    "storage": "pancog/infra/storage/*.py",
}
SERVICE_TESTS = {  # a service group's mutants run its own test folders (every file in them)
    "tournaments": ("tests/services/tournaments",),
    "league": ("tests/services/league",),
    "storage": ("tests/infra/storage", "tests/services/ledger"),  # the ledger's tests drive the storage too
}


def group_of(path: str) -> str:
    if path == "pancog/services/ledger.py":
        return "ledger"
    for group in SERVICE_TESTS:
        if path.startswith(GROUPS[group].removesuffix("*.py")):
            return group
    return "engine"


SKIP_FILES = {
    "pancog/game/__init__.py",
    "pancog/services/tournaments/__init__.py",
    "pancog/services/league/__init__.py",
    "pancog/infra/storage/__init__.py",
    "pancog/services/league/__main__.py",  # the rebuild command line: argument parsing only
}


SLOW_GAME_TESTS = "tests/game/test_properties.py"


def game_tests() -> list[str]:
    """GAME_TESTS, plus every other ``tests/game/test_*.py`` not named in FIRST (a newer focused test
    file counts without editing this list), before the slow property tests."""
    listed = set(GAME_TESTS) | {t for tests in FIRST.values() for t in tests}
    found = (p.relative_to(ROOT).as_posix() for p in (ROOT / "tests" / "game").glob("test_*.py"))
    extra = sorted(t for t in found if t not in listed)
    return [t for t in GAME_TESTS if t != SLOW_GAME_TESTS] + extra + [SLOW_GAME_TESTS]


def tests_for(path: str) -> list[str]:
    if path == "pancog/services/ledger.py":
        return LEDGER_TESTS
    group = group_of(path)
    if group in SERVICE_TESTS:
        folders = SERVICE_TESTS[group]
        return sorted(p.relative_to(ROOT).as_posix() for f in folders for p in (ROOT / f).glob("test_*.py"))
    first = FIRST.get(path, [])
    return first + [t for t in game_tests() if t not in first]


# --------------------------------------------------------------------------------------------- mutation sites

_CMP_SWAP: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_BIN_SWAP: dict[type, type] = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult}
_STMT_DELETE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Raise, ast.Continue, ast.Break)


@dataclass(frozen=True)
class Site:
    """One mutation: the ``index``-th site of ``path`` in walk order."""

    path: str
    index: int
    op: str  # cmp, bool, not, arith, const, aug, stmt
    line: int
    detail: str
    id: str = ""


def _is_docstring(node: ast.stmt, parent_body: list[ast.stmt]) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and parent_body
        and parent_body[0] is node
    ) is True


class _Walker:
    """Yields (node, op, detail) for each site in a fixed order; ``mutate`` applies the k-th one."""

    def __init__(self) -> None:
        self.sites: list[tuple[ast.AST, str, str, int, object]] = []

    def walk(self, node: ast.AST, in_func: bool = False) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return
        if isinstance(node, ast.AnnAssign):  # the annotation is not code; the value is
            if node.value is not None:
                self.walk(node.value, in_func)
            return
        if isinstance(node, ast.arg):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                self.walk(d, in_func)
            for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                self.walk(default, in_func)
            self._body(node.body, True)
            return
        if isinstance(node, ast.ClassDef):
            self._body(node.body, in_func)
            return
        if isinstance(node, ast.If) and _is_type_checking(node):
            return
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if type(op) in _CMP_SWAP:
                    detail = f"{type(op).__name__} -> {_CMP_SWAP[type(op)].__name__}"
                    self.sites.append((node, "cmp", detail, node.lineno, k))
        elif isinstance(node, ast.BoolOp):
            other = "Or" if isinstance(node.op, ast.And) else "And"
            self.sites.append((node, "bool", f"{type(node.op).__name__} -> {other}", node.lineno, None))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.sites.append((node, "not", "drop not", node.lineno, None))
        elif isinstance(node, ast.BinOp) and type(node.op) in _BIN_SWAP:
            detail = f"{type(node.op).__name__} -> {_BIN_SWAP[type(node.op)].__name__}"
            self.sites.append((node, "arith", detail, node.lineno, None))
        elif isinstance(node, ast.AugAssign) and type(node.op) in (ast.Add, ast.Sub):
            self.sites.append((node, "aug", f"{type(node.op).__name__}= swapped", node.lineno, None))
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            self.sites.append((node, "const", f"{node.value} -> {not node.value}", node.lineno, None))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            self.sites.append((node, "const", f"{node.value} -> {node.value + 1}", node.lineno, None))
        if isinstance(node, ast.JoinedStr):  # f-string text is wording, not behaviour
            return
        in_bodies = {
            id(stmt)
            for name in ("body", "orelse", "finalbody")
            if isinstance(getattr(node, name, None), list)
            for stmt in getattr(node, name)
        }
        for child in ast.iter_child_nodes(node):
            if id(child) not in in_bodies:
                self.walk(child, in_func)
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list):
                self._body(body, in_func)

    def _body(self, body: list[ast.stmt], in_func: bool) -> None:
        for stmt in body:
            if _is_docstring(stmt, body):
                continue
            if in_func and isinstance(stmt, _STMT_DELETE):
                self.sites.append((stmt, "stmt", f"delete {type(stmt).__name__}", stmt.lineno, None))
            self.walk(stmt, in_func)


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"
    )


def _sites_of(tree: ast.Module) -> list[tuple[ast.AST, str, str, int, object]]:
    w = _Walker()
    w.walk(tree)
    return w.sites


def find_sites(path: str) -> list[Site]:
    source = (ROOT / path).read_text(encoding="utf-8")
    lines = source.splitlines()
    out: list[Site] = []
    per_line: dict[int, int] = {}
    seen: dict[str, int] = {}  # identical lines elsewhere in the file: numbered in order
    for k, (_node, op, detail, line, _extra) in enumerate(_sites_of(ast.parse(source))):
        n = per_line.get(line, 0)
        per_line[line] = n + 1
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        key = f"{text}|{op}|{detail}|{n}"
        seen[key] = seen.get(key, -1) + 1
        digest = hashlib.sha1(f"{key}|{seen[key]}".encode(), usedforsecurity=False).hexdigest()[:8]
        out.append(Site(path, k, op, line, detail, f"{path}:{op}:{digest}"))
    return out


def mutate(source: str, index: int) -> str:
    """``source`` with its ``index``-th site mutated (unparsed; comments are lost, behaviour is not)."""
    tree = ast.parse(source)
    node, op, _detail, _line, extra = _sites_of(tree)[index]
    if op == "cmp":
        assert isinstance(node, ast.Compare) and isinstance(extra, int)
        node.ops[extra] = _CMP_SWAP[type(node.ops[extra])]()
    elif op == "bool":
        assert isinstance(node, ast.BoolOp)
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif op == "arith":
        assert isinstance(node, ast.BinOp)
        node.op = _BIN_SWAP[type(node.op)]()
    elif op == "aug":
        assert isinstance(node, ast.AugAssign)
        node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
    elif op == "const":
        assert isinstance(node, ast.Constant)
        node.value = (not node.value) if type(node.value) is bool else node.value + 1
    elif op == "not":
        _replace(tree, node, copy.deepcopy(node.operand))  # type: ignore[attr-defined]
    elif op == "stmt":
        _replace(tree, node, ast.Pass())
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return
            elif value is old:
                setattr(parent, field, new)
                return
    raise AssertionError("site not found")


# --------------------------------------------------------------------------------------------- running


def load_equivalent() -> dict[str, str]:
    out: dict[str, str] = {}
    if EQUIVALENT.exists():
        for raw in EQUIVALENT.read_text(encoding="utf-8").splitlines():
            line = raw.strip()
            if line and not line.startswith("#"):
                ident, _, reason = line.partition(" ")
                out[ident] = reason.strip()
    return out


def sample(group: str, n: int, seed: int) -> list[Site]:
    files = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(GROUPS[group]))
    sites = [s for f in files if f not in SKIP_FILES for s in find_sites(f)]
    rng = random.Random(f"{group}:{seed}")
    return sorted(rng.sample(sites, min(n, len(sites))), key=lambda s: (s.path, s.index))


def make_sandbox(tests_from: str | None) -> Path:
    """A private copy of the repository (code from the worktree; tests/ optionally from a git revision)."""
    box = Path(tempfile.mkdtemp(prefix="pan-mutation-"))
    ignore = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.sqlite3*", "results", ".hypothesis", "data")
    for name in ("pancog", "tests", "bench"):
        shutil.copytree(ROOT / name, box / name, ignore=ignore)
    for name in ("pyproject.toml", "conftest.py", "bot.py"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, box / name)
    if tests_from:
        shutil.rmtree(box / "tests")
        archive = subprocess.run(  # noqa: S603
            ["git", "archive", "--format=tar", tests_from, "tests"],  # noqa: S607
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout
        tar_path = box / "tests.tar"
        tar_path.write_bytes(archive)
        with tarfile.open(tar_path) as tar:
            tar.extractall(box, filter="data")
        tar_path.unlink()
    return box


_stamp = [time.time() + 10]


def _write(path: Path, text: str) -> None:
    """Write with a fresh mtime so a stale .pyc of the same size is never reused."""
    path.write_text(text, encoding="utf-8")
    _stamp[0] += 2
    os.utime(path, (_stamp[0], _stamp[0]))


def run_tests(box: Path, tests: list[str], timeout: float) -> tuple[str, float, str]:
    """('killed' | 'survived' | 'timeout', seconds, first failing test)."""
    present = [t for t in tests if (box / t).exists() and t not in SKIP_TEST_FILES]
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *present]
    cmd += [arg for node in DESELECT for arg in ("--deselect", node)]
    # plugins none of these tests use: their imports were half of each run's start-up (hypothesis works
    # without its pytest plugin; the engine tests need neither the fake Discord nor PostgreSQL)
    cmd += ["-p", "no:hypothesispytest", "-p", "no:xdist", "-p", "no:tests.fakediscord.plugin"]
    if all(t.startswith("tests/game/") for t in present):
        cmd += ["-p", "no:tests.support.pgplugin"]
    elif SQLITE_ONLY[0]:
        cmd += ["-k", "not postgres"]
    env = dict(os.environ, PYTHONHASHSEED="0", HYPOTHESIS_NO_PLUGINS="1")
    env.pop("PAN_UPDATE_GOLDEN", None)
    start = time.monotonic()
    proc = subprocess.Popen(  # noqa: S603
        cmd, cwd=box, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "timeout", time.monotonic() - start, ""
    took = time.monotonic() - start
    if proc.returncode == 0:
        return "survived", took, ""
    failed = next((ln.split(" ")[1] for ln in out.splitlines() if ln.startswith(("FAILED ", "ERROR "))), "")
    return "killed", took, failed


def changed_tests(rev: str) -> set[str]:
    """Test files added or changed since ``rev`` (the only ones that can kill what the old suite missed)."""
    out = subprocess.run(  # noqa: S603
        ["git", "diff", "--name-only", rev, "--", "tests"],  # noqa: S607
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    untracked = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", "tests"],  # noqa: S607
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return set(out.split()) | set(untracked.split())


OLD_REV = [""]
BEFORE_ONLY = [False]  # --before-only: the old suite's survivors are not run against the new tests yet
SQLITE_ONLY = [False]  # --sqlite-only: the ledger's tests on one backend
DESELECT: list[str] = []  # test node ids left out of every mutant's run (--deselect)
SKIP_TEST_FILES: set[str] = set()  # --skip-file: test files left out of every mutant's run
OLD_SURVIVORS: set[str] = set()


def sync_tests(box: Path) -> None:
    """Copy the worktree's test files that changed into the sandbox (only ones that parse)."""
    for src in (ROOT / "tests").rglob("*"):
        if src.is_dir() or "__pycache__" in src.parts or ".hypothesis" in src.parts:
            continue
        dst = box / src.relative_to(ROOT)
        if dst.exists() and dst.stat().st_mtime >= src.stat().st_mtime:
            continue
        if src.suffix == ".py":
            try:
                ast.parse(src.read_text(encoding="utf-8"))
            except SyntaxError:
                continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def iter_results(
    sites: list[Site], box: Path, timeout: float, old_box: Path | None = None, changed: set[str] | None = None
) -> Iterator[dict[str, object]]:
    """Run each mutant. With ``old_box`` (the old tests/), first against the old suite ('before'); a
    survivor then runs only the test files changed since (the rest of the suite is the old one)."""
    originals: dict[str, str] = {}
    for site in sites:
        if site.path not in originals:
            originals[site.path] = (box / site.path).read_text(encoding="utf-8")
        mutant = mutate(originals[site.path], site.index)
        boxes = [b for b in (old_box, box) if b is not None]
        for b in boxes:
            _write(b / site.path, mutant)
        try:
            row: dict[str, object] = {**asdict(site)}
            if old_box is not None:  # a long run picks up test files written meanwhile
                sync_tests(box)
                changed = changed_tests(OLD_REV[0])
            tests = tests_for(site.path)
            if old_box is not None:
                if site.id in OLD_SURVIVORS:  # --rerun: the old suite's verdict does not change
                    before, took, failed = "survived", 0.0, ""
                else:
                    before, took, failed = run_tests(old_box, tests, timeout)
                row.update(before=before, before_seconds=round(took, 1), before_failed=failed)
                if before != "survived":
                    row.update(outcome=before, seconds=0.0, failed="(old suite)")
                    yield row
                    continue
                tests = [t for t in tests if t in (changed or set())] if not BEFORE_ONLY[0] else []
            outcome, took, failed = run_tests(box, tests, timeout) if tests else ("survived", 0.0, "")
            row.update(outcome=outcome, seconds=round(took, 1), failed=failed)
            yield row
        finally:
            for b in boxes:
                _write(b / site.path, originals[site.path])


def summarize(results: list[dict[str, object]], equivalent: dict[str, str]) -> str:
    lines = []
    by_file: dict[str, list[dict[str, object]]] = {}
    for r in results:
        by_file.setdefault(str(r["path"]), []).append(r)
    groups: dict[str, list[int]] = {}
    for path, rows in sorted(by_file.items()):
        real = [r for r in rows if r["id"] not in equivalent]
        killed = sum(r["outcome"] != "survived" for r in real)
        before = sum(r.get("before", r["outcome"]) != "survived" for r in real)
        g = groups.setdefault(group_of(path), [0, 0, 0, 0])
        g[0] += killed
        g[1] += len(real)
        g[2] += len(rows) - len(real)
        g[3] += before
        rate = f"{100 * killed / len(real):5.1f} %" if real else "    - "
        was = f"{100 * before / len(real):5.1f} %" if real else "    - "
        lines.append(
            f"  {path:<28} {killed:>3} / {len(real):<3} killed {rate} (old suite {was})"
            f"   {len(rows) - len(real)} equivalent"
        )
    for group, (killed, total, eq, before) in groups.items():
        rate = 100 * killed / total if total else 0.0
        was = 100 * before / total if total else 0.0
        lines.append(
            f"{group}: {killed} / {total} killed = {rate:.1f} % (old suite {before} = {was:.1f} %;"
            f" {eq} equivalent excluded)"
        )
    survivors = [r for r in results if r["outcome"] == "survived" and r["id"] not in equivalent]
    if survivors:
        lines.append(f"survivors ({len(survivors)}):")
        lines += [f"  {r['id']}  line {r['line']}: {r['detail']}" for r in survivors]
    return "\n".join(lines)


def show(ident: str) -> str:
    path = ident.split(":")[0]
    site = next(s for s in find_sites(path) if s.id == ident)
    before = ast.unparse(ast.parse((ROOT / path).read_text(encoding="utf-8"))).splitlines()
    after = mutate((ROOT / path).read_text(encoding="utf-8"), site.index).splitlines()
    diff = difflib.unified_diff(before, after, path, f"{path} ({site.detail}, line {site.line})", n=2, lineterm="")
    return "\n".join(diff)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", type=int, default=200, help="engine mutants to sample")
    ap.add_argument("--ledger", type=int, default=60, help="ledger mutants to sample")
    for group in SERVICE_TESTS:
        ap.add_argument(f"--{group}", type=int, default=0, help=f"{group} mutants to sample (pancog/{group}/)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant")
    ap.add_argument(
        "--tests-from",
        help="also score the tests/ of this git revision ('before'); its survivors then run the changed test files",
    )
    ap.add_argument("--rerun", help="a results file: run only its survivors (killed ones are copied)")
    ap.add_argument("--label", default="latest")
    ap.add_argument(
        "--before-only",
        action="store_true",
        help="with --tests-from: only the old suite; score the new tests later with --rerun on the results",
    )
    ap.add_argument(
        "--sqlite-only",
        action="store_true",
        help="run the ledger's tests on SQLite only (-k 'not postgres'): half the work per ledger mutant",
    )
    ap.add_argument(
        "--resume", action="store_true", help="keep the mutants already in the results file of --label; run the rest"
    )
    ap.add_argument(
        "--skip-file",
        action="append",
        default=[],
        help="a test file to leave out of every mutant's run (repeatable; not collected, so not even imported)",
    )
    ap.add_argument(
        "--deselect",
        action="append",
        default=[],
        help="a test node id to leave out of every mutant's run (repeatable): a shorter run on a loaded machine",
    )
    ap.add_argument("--show", help="print the diff of one mutant id and exit")
    ap.add_argument("--summary", help="print the summary of a results file and exit")
    args = ap.parse_args()
    equivalent = load_equivalent()
    if args.show:
        print(show(args.show))
        return
    if args.summary:
        print(summarize(json.loads(Path(args.summary).read_text())["results"], equivalent))
        return
    kept: list[dict[str, object]] = []
    if args.rerun:
        previous = json.loads(Path(args.rerun).read_text())["results"]
        kept = [r for r in previous if r["outcome"] != "survived"]
        wanted = {r["id"] for r in previous if r["outcome"] == "survived"}
        OLD_SURVIVORS.update(str(r["id"]) for r in previous if r.get("before") == "survived")
        all_sites = {s.id: s for f in {str(r["path"]) for r in previous} for s in find_sites(f)}
        sites = [all_sites[i] for i in sorted(wanted) if i in all_sites]
        missing = wanted - set(all_sites)
        if missing:
            print(f"{len(missing)} survivors no longer exist (the source changed): {sorted(missing)}")
    else:
        sites = sample("engine", args.engine, args.seed) + sample("ledger", args.ledger, args.seed)
        for group in SERVICE_TESTS:
            sites += sample(group, getattr(args, group), args.seed)
        # a random order, so a run stopped early is still a fair sample of both groups
        random.Random(args.seed).shuffle(sites)
    DESELECT.extend(args.deselect)
    SKIP_TEST_FILES.update(args.skip_file)
    SQLITE_ONLY[0] = args.sqlite_only
    BEFORE_ONLY[0] = args.before_only
    RESULTS.mkdir(exist_ok=True)
    out_path = RESULTS / f"mutation-{args.label}.json"
    if args.resume and out_path.exists():
        done = json.loads(out_path.read_text())["results"]
        kept += [r for r in done if r["id"] not in {r2["id"] for r2 in kept}]
        finished = {str(r["id"]) for r in done}
        sites = [s for s in sites if s.id not in finished]
        print(f"resuming: {len(finished)} mutants already run, {len(sites)} to go")
    box = make_sandbox(None)
    old_box = make_sandbox(args.tests_from) if args.tests_from else None
    changed = changed_tests(args.tests_from) if args.tests_from else None
    OLD_REV[0] = args.tests_from or ""
    results = list(kept)
    started = time.monotonic()
    try:
        for k, r in enumerate(iter_results(sites, box, args.timeout, old_box, changed), 1):
            results.append(r)
            mark = {"killed": "x", "timeout": "t", "survived": "S"}[str(r["outcome"])]
            print(f"[{k}/{len(sites)}] {mark} {r['id']} line {r['line']} {r['detail']}", end=" ")
            print(f"({r['seconds']} s) {r['failed']}", flush=True)
            took = round(time.monotonic() - started)
            meta = {
                "seed": args.seed,
                "tests_from": args.tests_from,
                "rerun": args.rerun,
                "deselect": DESELECT,
                "skip_files": sorted(SKIP_TEST_FILES),
                "sqlite_only": SQLITE_ONLY[0],
                "seconds": took,
            }
            out_path.write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    finally:
        for b in (box, old_box):
            if b is not None:
                shutil.rmtree(b, ignore_errors=True)
    print(summarize(results, equivalent))


if __name__ == "__main__":
    main()
