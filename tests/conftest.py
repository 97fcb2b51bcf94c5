"""Root conftest: make the repository root importable and load the fake-Discord fixtures."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytest_plugins = ["tests.fakediscord.plugin", "tests.support.pgplugin", "tests.support.storage"]

# The in-process e2e bots render in threads: a process pool per test bot would only add start-up work to the
# suite. The process mode (the bot's default) is tested by tests/infra/renderq/test_processes.py and by the e2e tests
# that set PAN_RENDER_MODE=process themselves (the subprocess bot.py tests and test_render_processes_e2e).
os.environ.setdefault("PAN_RENDER_MODE", "thread")
