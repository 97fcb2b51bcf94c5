"""Process memory housekeeping: keep glibc's malloc from holding on to memory the bot has freed.

Renders run in worker threads and allocate large, short-lived Pillow buffers (a table image is a few MiB).
With glibc's defaults every thread gets its own malloc arena (up to 8 per core), the mmap threshold rises
after the first large free so later image buffers come from those arenas, and freed memory stays mapped:
the process's RSS grows with every busy period and never comes back (docs/perf/soak.md, "Memory").

- :func:`configure_allocator` (call first thing in ``main``, before any thread exists): at most
  ``arenas`` malloc arenas (``M_ARENA_MAX``) and a fixed mmap threshold (``M_MMAP_THRESHOLD``), so large
  image buffers are mmapped and unmapped when freed instead of fragmenting the heap.
- :func:`trim` (``malloc_trim(0)``): return free heap pages to the system; :class:`Trimmer` does it
  periodically (cheap: a few ms) from a background task.

Everything is a no-op where glibc is not the C library (musl, macOS, Windows): the functions return False.
This module is a service (no discord import); ``bot.py`` wires it from environment variables.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import time
from pathlib import Path
from typing import Any

from pancog.infra.tasks import Tasks

log = logging.getLogger("pan.memory")

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8

DEFAULT_ARENAS = 2
DEFAULT_MMAP_THRESHOLD = 256 * 1024
DEFAULT_TRIM_SECONDS = 60.0

_glibc: Any = None
_probed = False


def glibc() -> Any:
    """The process's glibc (``ctypes.CDLL``), or None when the C library is not glibc."""
    global _glibc, _probed
    if not _probed:
        _probed = True
        try:
            libc = ctypes.CDLL(None)
            libc.gnu_get_libc_version  # noqa: B018 - only glibc has it (musl and macOS libc do not)
            libc.mallopt  # noqa: B018
            libc.malloc_trim  # noqa: B018
        except (OSError, AttributeError):
            _glibc = None
        else:
            libc.mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
            libc.mallopt.restype = ctypes.c_int
            libc.malloc_trim.argtypes = (ctypes.c_size_t,)
            libc.malloc_trim.restype = ctypes.c_int
            _glibc = libc
    return _glibc


def configure_allocator(arenas: int = DEFAULT_ARENAS, mmap_threshold: int = DEFAULT_MMAP_THRESHOLD) -> bool:
    """Cap the malloc arenas and fix the mmap threshold (0 leaves a setting alone). True if applied.

    Call it before any thread starts: threads that already have an arena keep it.
    """
    libc = glibc()
    if libc is None:
        return False
    ok = True
    if arenas > 0:
        ok = bool(libc.mallopt(M_ARENA_MAX, arenas)) and ok
    if mmap_threshold > 0:
        ok = bool(libc.mallopt(M_MMAP_THRESHOLD, mmap_threshold)) and ok
    return ok


def trim() -> bool:
    """``malloc_trim(0)``: give every arena's free pages back to the system. True if memory was released."""
    libc = glibc()
    if libc is None:
        return False
    return bool(libc.malloc_trim(0))


def rss_kib() -> int | None:
    """This process's resident set size in KiB (Linux), else None."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


class Trimmer:
    """Calls :func:`trim` every ``interval`` seconds in a worker thread (it can take a few ms on a big heap)."""

    def __init__(self, interval: float = DEFAULT_TRIM_SECONDS) -> None:
        self.interval = interval
        self.trims = 0
        self._tasks = Tasks("memory", logger=log)
        self._task: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        return self.interval > 0 and glibc() is not None

    def start(self) -> None:
        if self.enabled and self._task is None:  # housekeeping: a failed trim is logged and the next one runs
            self._task = self._tasks.every(self.interval, self.trim_now, name="pan-malloc-trim")

    async def stop(self) -> None:
        self._task = None
        await self._tasks.close()

    async def trim_now(self) -> None:
        started = time.perf_counter()
        before = rss_kib()
        await asyncio.to_thread(trim)
        self.trims += 1
        after = rss_kib()
        if before is not None and after is not None:
            log.debug("malloc_trim: RSS %d -> %d KiB in %.1f ms", before, after, (time.perf_counter() - started) * 1000)
