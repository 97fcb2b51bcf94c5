"""Every render job the bot's render workers receive, written to a file, for ``bench/board_parts.py`` (as used for
docs/performance.md "Where a board's time goes"):

    RENDER_DUMP=/tmp/renders PYTHONPATH=bench/render_dump \\
        .venv/bin/python -m bench.cluster --backend postgres --processes 1 --tables 90 --pace 150 \\
        --warmup 20 --seconds 20
    .venv/bin/python -m bench.board_parts /tmp/renders.*

Each process that imports ``pancog.infra.renderq.workers`` (the render workers, forked from the forkserver) has its
``read_frame`` wrapped: every frame it reads is appended, length first, to ``$RENDER_DUMP.<pid>``, in the order the
worker received them. The bot's own process reads only its workers' "ready" frames through it; the reader skips
what is not a job. Writing the frames costs the workers CPU: a run with the dump measures nothing but the jobs.

Each job's own CPU time in the worker (``time.process_time`` around the job's function, the dump's writing outside
it) is appended too, one line per job in the order of the dump, ``<function name> <milliseconds>``, to
``$RENDER_DUMP-cpu.<pid>``: ``bench/board_parts.py`` lays it beside the same jobs replayed ("the same jobs in the bot
and replayed"). The worker's loop unpickles each job with the module's ``pickle``; that name is wrapped so the
function it gives back is the timed one.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import pickle
import sys
import time
from types import ModuleType
from typing import Any

_TARGET = "pancog.infra.renderq.workers"


def _wrap(module: ModuleType) -> None:
    read = getattr(module, "read_frame")  # noqa: B009 - a module attribute mypy cannot see through ModuleType

    def read_frame(sock: Any) -> Any:
        data = read(sock)
        if data is not None:
            # the pid now, not at import: the module may be imported before the fork (the forkserver preloads)
            with open(f"{os.environ['RENDER_DUMP']}.{os.getpid()}", "ab") as dump:
                dump.write(len(data).to_bytes(4, "little") + bytes(data))
        return data

    setattr(module, "read_frame", read_frame)  # noqa: B010 - the worker's loop looks it up at each call
    setattr(module, "pickle", _TimedPickle)  # noqa: B010 - the worker's loop unpickles its jobs through this name


def _timed(fn: Any) -> Any:
    name = getattr(fn, "__name__", type(fn).__name__)

    def run(value: Any) -> Any:
        start = time.process_time()
        try:
            return fn(value)
        finally:
            took = time.process_time() - start
            with open(f"{os.environ['RENDER_DUMP']}-cpu.{os.getpid()}", "a") as times:
                times.write(f"{name} {1000 * took:.4f}\n")

    return run


class _TimedPickle:
    """``pickle`` as the worker's loop uses it, but a job's function comes back timed."""

    HIGHEST_PROTOCOL = pickle.HIGHEST_PROTOCOL
    dumps = staticmethod(pickle.dumps)

    @staticmethod
    def loads(data: Any) -> Any:
        value = pickle.loads(data)  # noqa: S301 - the worker's own job, as its loop would read it
        if isinstance(value, tuple) and len(value) == 2 and callable(value[0]):
            return (_timed(value[0]), value[1])
        return value


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name != _TARGET:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        execute = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            execute(module)
            _wrap(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if os.environ.get("RENDER_DUMP"):
    sys.meta_path.insert(0, _Finder())
