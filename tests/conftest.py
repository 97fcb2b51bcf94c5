"""Root conftest: make the repository root importable and load the fake-Discord fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytest_plugins = ["tests.fakediscord.plugin", "tests.pgplugin"]
