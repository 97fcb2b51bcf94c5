"""The render scheduler: every PNG the bot draws goes through one bounded, prioritised queue.

Rendering (Pillow, ~10-20 ms an image) holds the GIL for most of its time. In ``process`` mode (the default
where the platform has ``forkserver``: ``PAN_RENDER_MODE=process|thread``) the workers are processes forked
from a server that has already imported the renderer, each warming its sprite caches once, so drawing and PNG
encoding run on other cores and never take the event loop's GIL; a worker that dies is replaced and its job
retried once. In ``thread`` mode (the fallback, and what the unit tests use for callables that cannot be
pickled) a small pool of threads does the same work inside the bot's process. Either way
``PAN_RENDER_THREADS`` (default ``min(2, cpu_count)``) workers take jobs from four FIFO queues, most urgent
first:

``URGENT``      a user is waiting on this image (My hand, the first board of ``/pan open``)
``BOARD``       a table's coalesced board edit, end-of-hand summaries
``DM``          hand DMs
``BACKGROUND``  re-rendering every board after a restart

A job is handed to a worker only when one is free, so an urgent render never has more than ``workers``
renders ahead of it, however deep the board backlog is. A job's input is built by ``make_input`` on the
event loop at the moment a worker takes it (not when it was queued): a board that waited in the queue renders
the table as it is *then*, which is what lets boards coalesce under load.

This is a service: it never imports discord (``tests/test_architecture.py``).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import ctypes
import dataclasses
import enum
import functools
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Generator, Mapping
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic, TypeVar

__all__ = [
    "Priority",
    "RenderFigures",
    "RenderJob",
    "RenderQueue",
    "RenderQueueClosed",
    "default_threads",
    "mode_from_env",
    "threads_from_env",
]

log = logging.getLogger("pan.renderq")

A = TypeVar("A")
T = TypeVar("T")

ENV_THREADS = "PAN_RENDER_THREADS"
ENV_MODE = "PAN_RENDER_MODE"
MODES = ("process", "thread")


class Priority(enum.IntEnum):
    """Lower value = served first."""

    URGENT = 0
    BOARD = 1
    DM = 2
    BACKGROUND = 3


class RenderQueueClosed(RuntimeError):
    """The queue was shut down before this job ran (the bot is stopping)."""


def default_threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def threads_from_env(env: Mapping[str, str] = os.environ) -> int:
    """``PAN_RENDER_THREADS`` (a positive integer), else :func:`default_threads`."""
    text = env.get(ENV_THREADS, "").strip()
    if not text:
        return default_threads()
    try:
        value = int(text)
    except ValueError:
        log.warning("%s=%r is not a number; using %d", ENV_THREADS, text, default_threads())
        return default_threads()
    return max(1, value)


def processes_available() -> bool:
    """True where a ``forkserver`` process pool can run (Linux, macOS; not where semaphores are missing)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    try:
        multiprocessing.get_context("forkserver").Lock()
    except (ImportError, OSError, NotImplementedError):  # e.g. no sem_open on this platform
        return False
    return True


def mode_from_env(env: Mapping[str, str] = os.environ) -> str:
    """``PAN_RENDER_MODE`` (``process`` or ``thread``); default ``process`` where processes are available."""
    text = env.get(ENV_MODE, "").strip().lower()
    if text and text not in MODES:
        log.warning("%s=%r is not one of %s; using the default", ENV_MODE, text, "/".join(MODES))
        text = ""
    if text == "thread":
        return "thread"
    if processes_available():
        return "process"
    if text == "process":
        log.warning("%s=process, but worker processes are unavailable here: rendering in threads", ENV_MODE)
    return "thread"


PR_SET_PDEATHSIG = 1
GUARD_MODULE = "pancog.render_guard"  # imported first by the forkserver: it dies with the bot
SPAWN_ATTEMPTS = 3  # pool starts that fail in a row before rendering falls back to threads for good
ENV_PARENT = "PAN_RENDER_PARENT_PID"  # the bot's pid, for the forkserver's guard


def die_with_parent(expected_parent: int | None = None) -> None:
    """Linux: have the kernel SIGKILL this process when its parent dies (no-op elsewhere).

    A process pool's workers hold both ends of their own call queue, so they never see the bot go away: after
    a SIGKILL of the bot they (and the forkserver, and the resource tracker waiting on them) would live on,
    holding its stdout/stderr open. The forkserver runs this when it imports :data:`GUARD_MODULE` (its parent is
    the bot, whose pid it finds in :data:`ENV_PARENT`) and every worker runs it first thing (its parent is the
    forkserver), so the whole tree goes with the bot. A parent that died before the signal was armed is caught
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
    text = os.environ.get(ENV_PARENT, "")
    die_with_parent(int(text) if text.isdigit() else None)


def _worker_init(warm_up: Callable[[], None] | None) -> None:
    die_with_parent()
    if warm_up is not None:
        warm_up()


def _noop(_: object) -> None:
    """A job that only makes sure a worker exists (see :meth:`RenderQueue.start_workers`)."""


_SPAWNER: list[concurrent.futures.ThreadPoolExecutor] = []


def _spawner() -> concurrent.futures.ThreadPoolExecutor:
    """The one thread that starts render processes, for the life of the process: the kernel sends the
    forkserver its death signal when the *thread* that started it ends, not only the process."""
    if not _SPAWNER:
        _SPAWNER.append(concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="pan-render-spawn"))
    return _SPAWNER[0]


def _prespawn(executor: concurrent.futures.Executor, workers: int) -> None:
    """On the spawner thread: one no-op per worker, so the pool forks every worker now, and wait for them."""
    for future in [executor.submit(_noop, None) for _ in range(workers)]:
        future.result()


class RenderJob(Generic[T]):
    """One queued render. Await it (``await job``) for the PNG; cancelling the awaiter drops a queued job."""

    __slots__ = ("_fn", "_make_input", "enqueued_at", "future", "priority", "retried", "started_at")

    def __init__(
        self,
        fn: Callable[[Any], T],
        make_input: Callable[[], Any],
        priority: Priority,
        future: asyncio.Future[T],
    ) -> None:
        self._fn = fn
        self._make_input = make_input
        self.priority = priority
        self.future = future
        self.enqueued_at = time.monotonic()
        self.started_at: float | None = None
        self.retried = False

    @property
    def queued(self) -> bool:
        return self.started_at is None and not self.future.done()

    def __await__(self) -> Generator[Any, None, T]:
        return self.future.__await__()


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class RenderFigures:
    """A cheap snapshot for ``/pan status`` and the benchmark (waits in seconds, queued → started)."""

    workers: int
    mode: str
    running: int
    queued: dict[str, int]
    done: int
    failed: int
    dropped: int
    mean_wait: dict[str, float]
    max_wait: dict[str, float]

    @property
    def backlog(self) -> int:
        return sum(self.queued.values())

    def line(self) -> str:
        """One line of plain text."""
        queued = " · ".join(f"{k} {v}" for k, v in self.queued.items())
        waits = ", ".join(
            f"{k} {self.mean_wait[k]:.2f}/{self.max_wait[k]:.2f}" for k in self.queued if self.max_wait[k]
        )
        kind = "threads" if self.mode == "thread" else "processes"
        return (
            f"Renders: {self.running}/{self.workers} workers busy ({kind}) · queued {queued} · {self.done} done"
            + (f", {self.failed} failed" if self.failed else "")
            + (f" · wait mean/max s: {waits}" if waits else "")
        )


class RenderQueue:
    """A bounded pool of render workers fed from per-priority FIFO queues (see the module docstring).

    ``mode="thread"`` (the default here, for any callable) or ``"process"`` (module-level functions and
    picklable inputs only, as the renderer's are); :meth:`from_env` is what the bot uses. In process mode
    ``preload`` names the modules the forkserver imports once (the renderer) and ``warm_up`` (a module-level
    function) runs once in each worker (the sprite caches are per process). The queue itself imports no
    renderer: the composition root says what to preload."""

    def __init__(
        self,
        workers: int | None = None,
        *,
        mode: str = "thread",
        preload: tuple[str, ...] = (),
        warm_up: Callable[[], None] | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        self.workers = max(1, workers if workers is not None else default_threads())
        self.mode = mode
        self._preload, self._warm_up = list(preload), warm_up
        self.restarts = 0  # process pools replaced after a worker died
        self._executor = self._new_executor()
        # Process mode: forking the workers waits for the forkserver to import and warm the renderer (seconds on a
        # busy machine), so it happens on a thread of its own, never on the event loop; until the pool is up
        # (``_ready``) jobs render on threads, so a restart never makes a player wait for processes to start.
        self._ready = mode == "thread"
        self._spawning: asyncio.Task[None] | None = None
        self._spawn_failures = 0
        self._fallback: concurrent.futures.ThreadPoolExecutor | None = None
        # jobs whose worker process died under them: they get one more try, in a process only (never on the
        # fallback thread: whatever killed a worker must not run inside the bot)
        self._retry: collections.deque[RenderJob[Any]] = collections.deque()
        self._queues: dict[Priority, collections.deque[RenderJob[Any]]] = {p: collections.deque() for p in Priority}
        self._running = 0
        self._closed = False
        self._done = 0
        self._failed = 0
        self._dropped = 0
        self._waited = dict.fromkeys(Priority, 0)
        self._wait_total = dict.fromkeys(Priority, 0.0)
        self._wait_max = dict.fromkeys(Priority, 0.0)

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] = os.environ,
        *,
        preload: tuple[str, ...] = (),
        warm_up: Callable[[], None] | None = None,
    ) -> RenderQueue:
        """The bot's queue: ``PAN_RENDER_THREADS`` workers in ``PAN_RENDER_MODE`` (processes by default)."""
        return cls(threads_from_env(env), mode=mode_from_env(env), preload=preload, warm_up=warm_up)

    def _new_executor(self) -> concurrent.futures.Executor:
        if self.mode == "thread":
            return concurrent.futures.ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="pan-render")
        context = multiprocessing.get_context("forkserver")
        os.environ[ENV_PARENT] = str(os.getpid())  # the forkserver inherits it: see guard_forkserver
        context.set_forkserver_preload([GUARD_MODULE, *self._preload])
        return concurrent.futures.ProcessPoolExecutor(
            max_workers=self.workers, mp_context=context, initializer=functools.partial(_worker_init, self._warm_up)
        )

    async def start_workers(self) -> None:
        """Start every worker now (process mode forks them, off the event loop) so no player's first image waits
        for a process to start. Threads start at once anyway. Without this call the pool starts at the first job."""
        self._ensure_spawning()
        task = self._spawning
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(task)

    def _ensure_spawning(self) -> None:
        if self._ready or self._closed or self._spawning is not None:
            return
        self._spawning = asyncio.get_running_loop().create_task(self._spawn(), name="render-spawn")

    async def _spawn(self) -> None:
        executor = self._executor
        try:
            await asyncio.get_running_loop().run_in_executor(_spawner(), _prespawn, executor, self.workers)
        except Exception as exc:
            self._spawning = None
            if self._closed:
                return
            executor.shutdown(wait=False, cancel_futures=True)
            self._spawn_failures += 1
            if self._spawn_failures < SPAWN_ATTEMPTS:  # e.g. a worker died while the pool was starting
                log.warning("render worker processes did not start (%r); trying again", exc)
                self._executor = self._new_executor()
                self._ensure_spawning()
                return
            log.error("render worker processes could not start (%r): rendering in threads from now on", exc)
            self.mode = "thread"
            self._executor = self._new_executor()
        self._spawning = None
        if self._executor is executor or self.mode == "thread":
            self._spawn_failures = 0
            self._ready = True
        self._pump()

    # ------------------------------------------------------------------ submitting

    def submit(
        self, fn: Callable[[A], T], make_input: Callable[[], A], *, priority: Priority = Priority.URGENT
    ) -> RenderJob[T]:
        """Queue ``fn(make_input())``; ``make_input`` runs on the event loop when a worker takes the job."""
        if self._closed:
            raise RenderQueueClosed("the render queue is shut down")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        job: RenderJob[T] = RenderJob(fn, make_input, priority, future)
        self._queues[priority].append(job)
        self._pump()
        return job

    async def run(
        self, fn: Callable[[A], T], make_input: Callable[[], A], *, priority: Priority = Priority.URGENT
    ) -> T:
        """Submit and wait. Cancelling the caller drops the job if it has not started yet."""
        return await self.submit(fn, make_input, priority=priority)

    async def render(self, fn: Callable[[A], T], value: A, *, priority: Priority = Priority.URGENT) -> T:
        """``fn(value)`` on a render worker (the input is already built)."""
        return await self.submit(fn, lambda: value, priority=priority)

    def promote(self, job: RenderJob[Any], priority: Priority) -> None:
        """Move a still-queued job up to ``priority`` (to the back of that queue). No-op otherwise."""
        if priority >= job.priority or not job.queued:
            return
        with contextlib.suppress(ValueError):
            self._queues[job.priority].remove(job)
            job.priority = priority
            self._queues[priority].append(job)
            self._pump()

    # ------------------------------------------------------------------ figures

    def depth(self, priority: Priority | None = None) -> int:
        if priority is not None:
            return sum(1 for j in self._queues[priority] if j.queued)
        return sum(self.depth(p) for p in Priority)

    @property
    def running(self) -> int:
        return self._running

    def idle(self) -> bool:
        return self._running == 0 and self.depth() == 0

    def figures(self) -> RenderFigures:
        names = {p: p.name.lower() for p in Priority}
        return RenderFigures(
            workers=self.workers,
            mode=self.mode,
            running=self._running,
            queued={names[p]: self.depth(p) for p in Priority},
            done=self._done,
            failed=self._failed,
            dropped=self._dropped,
            mean_wait={names[p]: self._wait_total[p] / self._waited[p] if self._waited[p] else 0.0 for p in Priority},
            max_wait={names[p]: self._wait_max[p] for p in Priority},
        )

    # ------------------------------------------------------------------ lifecycle

    def shutdown(self) -> None:
        """Refuse new jobs, fail every queued one with :class:`RenderQueueClosed`; running renders finish."""
        if self._closed:
            return
        self._closed = True
        for queue in (*self._queues.values(), self._retry):
            while queue:
                job = queue.popleft()
                if not job.future.done():
                    job.future.set_exception(RenderQueueClosed("the render queue is shut down"))
                    job.future.exception()  # retrieved: no "never retrieved" warning if nobody awaits it
        self._executor.shutdown(wait=False, cancel_futures=True)
        if self._spawning is not None:
            self._spawning.cancel()
        if self._fallback is not None:
            self._fallback.shutdown(wait=False, cancel_futures=True)

    @property
    def ready(self) -> bool:
        """The workers are up (always, in thread mode)."""
        return self._ready

    @property
    def closed(self) -> bool:
        return self._closed

    # ------------------------------------------------------------------ internals

    def _next(self) -> RenderJob[Any] | None:
        while self._ready and self._retry:
            job = self._retry.popleft()
            if not job.future.done():
                return job
            self._dropped += 1
        for priority in Priority:
            queue = self._queues[priority]
            while queue:
                job = queue.popleft()
                if job.future.done():  # its awaiter was cancelled while it waited
                    self._dropped += 1
                    continue
                return job
        return None

    def _pump(self) -> None:
        if not self._ready:
            self._ensure_spawning()
        while not self._closed and self._running < self.workers:
            job = self._next()
            if job is None:
                return
            self._start(job)

    def _start(self, job: RenderJob[Any]) -> None:
        now = time.monotonic()
        job.started_at = now
        wait = now - job.enqueued_at
        self._waited[job.priority] += 1
        self._wait_total[job.priority] += wait
        self._wait_max[job.priority] = max(self._wait_max[job.priority], wait)
        try:
            value = job._make_input()
        except Exception as exc:  # building the input failed: that job's awaiter gets the error
            self._failed += 1
            job.future.set_exception(exc)
            return
        loop = job.future.get_loop()
        self._running += 1
        executor: concurrent.futures.Executor = self._executor
        if not self._ready:  # the processes are still starting: this one renders on a thread
            if self._fallback is None:
                self._fallback = concurrent.futures.ThreadPoolExecutor(self.workers, thread_name_prefix="pan-render")
            executor = self._fallback
        try:
            done = executor.submit(job._fn, value)
        except BrokenProcessPool:  # a worker died since the last job finished: a new pool, the job waits for it
            self._running -= 1
            job.started_at = None
            (self._retry if job.retried else self._queues[Priority.URGENT]).appendleft(job)
            self._replace_executor()
            self._ensure_spawning()
            return

        def finished(result: concurrent.futures.Future[Any]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting any more
                loop.call_soon_threadsafe(self._finish, job, result)

        done.add_done_callback(finished)

    def _replace_executor(self) -> None:
        if self.mode != "process" or not getattr(self._executor, "_broken", False):
            return
        log.warning("a render worker process died; starting a new pool")
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._executor = self._new_executor()
        self._ready = False
        self.restarts += 1

    def _finish(self, job: RenderJob[Any], result: concurrent.futures.Future[Any]) -> None:
        self._running -= 1
        if result.cancelled():
            if not job.future.done():
                job.future.set_exception(RenderQueueClosed("the render queue is shut down"))
        else:
            exc = result.exception()
            if isinstance(exc, BrokenProcessPool) and not self._closed:
                # A render process died (killed, out of memory): new pool, and this job gets one more try.
                self._replace_executor()
                if not job.retried and not job.future.done():
                    job.retried = True
                    job.started_at = None
                    self._retry.append(job)
                    self._pump()
                    return
            if exc is None:
                self._done += 1
                if not job.future.done():
                    job.future.set_result(result.result())
            else:
                self._failed += 1
                if not job.future.done():
                    job.future.set_exception(exc)
        self._pump()
