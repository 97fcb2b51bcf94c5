"""Render worker processes: how they start (forked from a warm forkserver), how they talk (one pickled frame
each way per job over a socket pair of their own) and how they die with the bot (the kernel's parent-death
signal, armed in the forkserver by :mod:`pancog.infra.renderq.guard` and in every worker).

The scheduler (:mod:`pancog.infra.renderq`) decides what each worker draws; everything here runs either in a
worker process or on the one spawner thread that starts them.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import multiprocessing
import os
import pickle
import signal
import socket
import sys
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from pancog.infra.config import render_parent

__all__ = [
    "FRAME_HEADER",
    "GUARD_MODULE",
    "die_with_parent",
    "guard_forkserver",
    "processes_available",
    "read_frame",
    "send_frame",
    "spawner",
    "start_workers",
    "worker_main",
]


def processes_available() -> bool:
    """True where a ``forkserver`` process pool can run (Linux, macOS; not where semaphores are missing)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    try:
        multiprocessing.get_context("forkserver").Lock()
    except (ImportError, OSError, NotImplementedError):  # e.g. no sem_open on this platform
        return False
    return True


PR_SET_PDEATHSIG = 1
GUARD_MODULE = "pancog.infra.renderq.guard"  # imported first by the forkserver: it dies with the bot


def die_with_parent(expected_parent: int | None = None) -> None:
    """Linux: have the kernel SIGKILL this process when its parent dies (no-op elsewhere).

    A worker blocked in a render would not see the end of its socket until the render is done, and the
    forkserver holds no socket of the bot's at all: after a SIGKILL of the bot they (and the resource tracker)
    could live on, holding its stdout/stderr open. The forkserver runs this when it imports
    :data:`GUARD_MODULE` (its parent is the bot, whose pid it finds in ``PAN_RENDER_PARENT_PID``) and every worker runs
    it first thing (its parent is the forkserver), so the whole tree goes with the bot. A parent that died before
    the signal was armed is caught
    by the checks after ``prctl``."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - no prctl: nothing better to do
        return
    parent = os.getppid()
    if parent == 1 or (expected_parent is not None and parent != expected_parent):
        os._exit(1)  # orphaned already: the bot (or the forkserver) is gone


def guard_forkserver() -> None:
    """What :data:`GUARD_MODULE` runs in the forkserver: die with the bot that started it."""
    die_with_parent(render_parent())


FRAME_HEADER = 8  # bytes: a frame's length, little-endian, then the pickled frame
READY_TIMEOUT = 120.0  # seconds a new worker may take to warm up before its start counts as failed


def _recv_exact(sock: socket.socket, size: int) -> bytearray | None:
    """``size`` bytes from a blocking socket, or None at its end."""
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            return None
        got += n
    return buf


def read_frame(sock: socket.socket) -> bytearray | None:
    header = _recv_exact(sock, FRAME_HEADER)
    return None if header is None else _recv_exact(sock, int.from_bytes(header, "little"))


def send_frame(sock: socket.socket, data: bytes) -> None:
    sock.sendall(len(data).to_bytes(FRAME_HEADER, "little"))
    sock.sendall(data)


def worker_main(sock: socket.socket, warm_up: Callable[[], None] | None, nice: int = 0) -> None:
    """A render process: answer each ``(fn, input)`` frame with ``("ok", fn(input))`` or ``("error", exception)``
    until the bot closes its end of the socket (or dies: :func:`die_with_parent`). One job at a time."""
    die_with_parent()
    if nice > 0:
        with contextlib.suppress(OSError):
            os.nice(nice)
    if warm_up is not None:
        warm_up()
    send_frame(sock, pickle.dumps(("ready", os.getpid())))
    while True:
        try:
            data = read_frame(sock)
        except OSError:  # e.g. reset: the bot closed its end with our last answer unread (it is stopping)
            return
        if data is None:
            return
        try:
            fn, value = pickle.loads(data)  # noqa: S301 - from the bot that forked us, over our own socket pair
            reply: tuple[str, Any] = ("ok", fn(value))
        except Exception as exc:
            reply = ("error", exc)
        try:
            out = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # the result (or the exception) does not pickle
            out = pickle.dumps(("error", RuntimeError(f"the render result could not be sent back: {exc!r}")))
        try:
            send_frame(sock, out)
        except OSError:
            return


def start_workers(
    context: Any, warm_up: Callable[[], None] | None, count: int, nice: int = 0
) -> list[tuple[multiprocessing.process.BaseProcess, socket.socket]]:
    """On the spawner thread: fork ``count`` workers from the forkserver and wait until each says it is warm."""
    started: list[tuple[multiprocessing.process.BaseProcess, socket.socket]] = []
    try:
        for _ in range(count):
            ours, theirs = socket.socketpair()
            started.append((context.Process(target=worker_main, args=(theirs, warm_up, nice), daemon=True), ours))
            try:
                started[-1][0].start()
            finally:
                theirs.close()  # the worker has its own copy: its death is the end of our socket
        for _, ours in started:
            ours.settimeout(READY_TIMEOUT)
            if read_frame(ours) is None:
                raise BrokenProcessPool("a render worker process died while starting")
            ours.setblocking(False)
    except BaseException:
        for process, ours in started:
            ours.close()
            with contextlib.suppress(Exception):
                process.kill()
        raise
    return started


_SPAWNER: list[concurrent.futures.ThreadPoolExecutor] = []


def spawner() -> concurrent.futures.ThreadPoolExecutor:
    """The one thread that starts render processes, for the life of the process: the kernel sends the
    forkserver its death signal when the *thread* that started it ends, not only the process."""
    if not _SPAWNER:
        _SPAWNER.append(concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="pan-render-spawn"))
    return _SPAWNER[0]
