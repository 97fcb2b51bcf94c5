"""pancog/ai is pure: standard library and pancog.game only (no discord, asyncio or I/O libraries)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

AI = Path(__file__).resolve().parents[2] / "pancog" / "ai"


def test_ai_imports_only_stdlib_and_the_engine() -> None:
    files = sorted(AI.glob("*.py"))
    assert files
    allowed = set(sys.stdlib_module_names) - {"asyncio", "threading", "multiprocessing", "socket", "sqlite3"}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top == "pancog":
                    assert name.startswith(("pancog.game", "pancog.ai")), f"{path.name} imports {name}"
                else:
                    assert top in allowed or top == "__future__", f"{path.name} imports {name}"
