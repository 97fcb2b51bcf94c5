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
renders ahead of it, however deep the board backlog is. In process mode the first worker is preferred: while it is
busy, another worker takes an urgent render (or a retry) at once, but any other job only once it has waited
``SPILL_AFTER`` (25 ms) — at a steady pace nearly every image is drawn by one worker whose caches are warm, and a
backlog or a long render still brings every worker in. A job's input is built by ``make_input`` on the
event loop at the moment a worker takes it (not when it was queued): a board that waited in the queue renders
the table as it is *then*, which is what lets boards coalesce under load.

Each worker process has a socket pair of its own, read by the event loop itself (``loop.add_reader``): a job
goes out as one pickled frame and its PNG comes back as one. This replaced ``concurrent.futures.ProcessPoolExecutor``,
whose feeder and manager threads woke on every job and competed with the event loop for the
GIL (about a fifth of the bot's process in a 200-table profile), its workers shared one locked result queue, and one
dead worker broke the whole pool. Here a dead worker is seen as the end of its socket; only that worker is
replaced (its job retried once, in a process), the others keep rendering.

INLINE: a function the composition root names in ``inline`` (the hand strip, ``PAN_RENDER_HANDS_INLINE``) is drawn
by :meth:`RenderQueue.render` on the caller's thread, at once, never queued. A hand costs ~0.3 ms to draw, and
in a worker the round trip (its input pickled, two wake-ups, its PNG read back) and the worker's cold start after an
idle wait cost more than the drawing: the bot's CPU per action is 2.5-4 % less with hands drawn here
(docs/performance.md, "Hands drawn on the event loop"). Boards stay in the workers: drawn here they cost more than
there (~1-2.5 ms each, and their larger working set cools the event loop's caches). Only images whose input holds no
user text belong here (a hand is cards and fixed words), so nothing a player types is drawn inside the bot. The
composition root warms such a function's caches on a thread at start (``renderer.hand.warm_up``).

Worker processes run at a lower CPU priority than the bot (``PAN_RENDER_NICE``, +5 by default): on a machine
whose cores are all busy the event loop gets a core first, and the boards wait instead (and coalesce). How the
processes start, talk and die with the bot is :mod:`pancog.infra.renderq.workers`; this module schedules them.

Infrastructure: it knows no game rule and never imports discord (``tests/test_architecture.py``).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import dataclasses
import enum
import logging
import multiprocessing
import os
import pickle
import socket
import time
from collections.abc import Callable, Collection, Generator
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic, TypeVar

from pancog.infra.config import RenderMode, default_render_threads, export_render_parent
from pancog.infra.renderq.memo import DEFAULT_MEMO_BYTES, ImageMemo
from pancog.infra.renderq.workers import (
    FRAME_HEADER,
    GUARD_MODULE,
    processes_available,
    spawner,
    start_workers,
)
from pancog.infra.tasks import Tasks

__all__ = [
    "Priority",
    "RenderFigures",
    "RenderJob",
    "RenderQueue",
    "RenderQueueClosed",
    "board_interval",
    "resolve_mode",
]

log = logging.getLogger("pan.renderq")

A = TypeVar("A")
T = TypeVar("T")

MODES = ("process", "thread")


class Priority(enum.IntEnum):
    """Lower value = served first."""

    URGENT = 0
    BOARD = 1
    DM = 2
    BACKGROUND = 3


class RenderQueueClosed(RuntimeError):
    """The queue was shut down before this job ran (the bot is stopping)."""


def resolve_mode(wanted: RenderMode | None) -> RenderMode:
    """The render mode to run (``PAN_RENDER_MODE``): ``wanted``, or processes where the platform has them (None).
    Processes asked for where they are unavailable fall back to threads, with a warning."""
    if wanted == "thread":
        return "thread"
    if processes_available():
        return "process"
    if wanted == "process":
        log.warning("PAN_RENDER_MODE=process, but worker processes are unavailable here: rendering in threads")
    return "thread"


SPAWN_ATTEMPTS = 3  # pool starts that fail in a row before rendering falls back to threads for good
_READ_CHUNK = 1 << 18  # bytes the event loop reads from a worker's socket at a time


class _Worker:
    """The bot's side of one render process: its socket (read by the event loop) and the job it is drawing."""

    __slots__ = ("buf", "dead", "job", "out", "process", "sock")

    def __init__(self, process: multiprocessing.process.BaseProcess, sock: socket.socket) -> None:
        self.process = process
        self.sock = sock
        self.job: RenderJob[Any] | None = None
        self.buf = bytearray()  # bytes received, not yet a whole frame
        self.out: memoryview | None = None  # bytes of the job's frame not yet sent
        self.dead = False


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
    nice: int = 0  # process mode: how much lower the workers' CPU priority is than the bot's
    inline: int = 0  # of ``done``: drawn on the event loop (hand strips), no worker

    @property
    def backlog(self) -> int:
        return sum(self.queued.values())

    def line(self) -> str:
        """One line of plain text."""
        queued = " · ".join(f"{k} {v}" for k, v in self.queued.items())
        waits = ", ".join(
            f"{k} {self.mean_wait[k]:.2f}/{self.max_wait[k]:.2f}" for k in self.queued if self.max_wait[k]
        )
        kind = "threads" if self.mode == "thread" else f"processes, nice +{self.nice}" if self.nice else "processes"
        return (
            f"Renders: {self.running}/{self.workers} workers busy ({kind}) · queued {queued} · {self.done} done"
            + (f" ({self.inline} on the event loop)" if self.inline else "")
            + (f", {self.failed} failed" if self.failed else "")
            + (f" · wait mean/max s: {waits}" if waits else "")
        )


# Process mode: how long a job that nobody is waiting on (a board, a DM's hand, a background board) waits for the
# first worker while it is busy before another takes it. Drawing in the worker that drew the last image costs less
# (its caches are warm: ~10 % less of the workers' CPU per action at a paced 150 a second, docs/performance.md
# "Boards drawn by the warm worker"); 25 ms is ten boards' drawing, a delay no board watcher sees, and a backlog or a
# long render (a replay's animation) still brings every worker in after it.
SPILL_AFTER = 0.025

BACKLOG_CALM = 2.0  # queued renders per worker at or below which boards keep their base edit interval
BACKLOG_FULL = 10.0  # queued renders per worker at or above which the interval is widest
BACKLOG_WIDEN = 3.0  # the widest interval, as a multiple of the base (1 s -> 3 s)


def board_interval(base: float, backlog: int, workers: int) -> float:
    """The board's edit interval under a render backlog: ``base`` while the queue is calm, widening linearly to
    ``BACKLOG_WIDEN`` x ``base`` as the renders queued per worker go from ``BACKLOG_CALM`` to ``BACKLOG_FULL``.

    A board that waits longer between edits asks for fewer renders, so a CPU-bound process draws fewer, fresher
    boards instead of queueing boards that are stale by the time they are drawn (3 s coalescing took the
    200-table soak from ~80 to ~112 actions/s); clicks (urgent renders) stay ahead of every board.

    >>> [board_interval(1.0, n, 2) for n in (0, 4, 12, 20, 99)]
    [1.0, 1.0, 2.0, 3.0, 3.0]
    """
    per_worker = backlog / max(1, workers)
    share = min(1.0, max(0.0, (per_worker - BACKLOG_CALM) / (BACKLOG_FULL - BACKLOG_CALM)))
    return base * (1.0 + (BACKLOG_WIDEN - 1.0) * share)


class RenderQueue:
    """A bounded pool of render workers fed from per-priority FIFO queues (see the module docstring).

    ``mode="thread"`` (the default here, for any callable) or ``"process"`` (module-level functions and
    picklable inputs only, as the renderer's are; the bot's queue, built by the composition root from its
    configuration). In process mode ``preload`` names the modules the forkserver imports once (the renderer) and
    ``warm_up`` (a module-level function) runs once in each worker (the sprite caches are per process). The queue
    itself imports no renderer: the composition root says what to preload."""

    def __init__(
        self,
        workers: int | None = None,
        *,
        mode: str = "thread",
        preload: tuple[str, ...] = (),
        warm_up: Callable[[], None] | None = None,
        nice: int = 0,
        memo_bytes: int = DEFAULT_MEMO_BYTES,
        inline: Collection[Callable[[Any], Any]] = (),
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        self.workers = max(1, workers if workers is not None else default_render_threads())
        self.mode = mode
        self._preload, self._warm_up = list(preload), warm_up
        self.nice = min(19, max(0, nice))  # process mode: the workers' niceness, added to the bot's
        self.restarts = 0  # worker processes replaced after one died
        self._threads: concurrent.futures.ThreadPoolExecutor | None = None  # thread mode's workers
        # Process mode: forking the workers waits for the forkserver to import and warm the renderer (seconds on a
        # busy machine), so it happens on a thread of its own, never on the event loop; until every worker is up
        # (``ready``) a job with no free worker renders on a thread, so a restart never makes a player wait for
        # processes to start.
        self._procs: list[_Worker] = []
        self._chunk = memoryview(bytearray(_READ_CHUNK))
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks = Tasks("render queue", logger=log)
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
        self.memo = ImageMemo(memo_bytes)  # images by what they show (render_once)
        # Images drawn on the caller's thread (the event loop) by render(), never queued: see INLINE in the module
        # docstring. Only small images whose input holds no user text (the hand strip: cards and fixed words).
        self.inline: frozenset[Callable[[Any], Any]] = frozenset(inline)
        self._inline_done = 0
        self._spill_timer: asyncio.TimerHandle | None = None  # process mode: see _may_spill

    def _context(self) -> Any:
        context = multiprocessing.get_context("forkserver")
        export_render_parent(os.getpid())  # the forkserver inherits it: see guard_forkserver
        context.set_forkserver_preload([GUARD_MODULE, *self._preload])
        return context

    async def start_workers(self) -> None:
        """Start every worker now (process mode forks them, off the event loop) so no player's first image waits
        for a process to start. Threads start at once anyway. Without this call the pool starts at the first job."""
        self._ensure_spawning()
        task = self._spawning
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(task)

    def _ensure_spawning(self) -> None:
        if self.ready or self._closed or self._spawning is not None:
            return
        self._spawning = self._tasks.start(self._spawn(), name="render-spawn")

    async def _spawn(self) -> None:
        missing = self.workers - len(self._procs)
        try:
            started = await asyncio.get_running_loop().run_in_executor(
                spawner(), start_workers, self._context(), self._warm_up, missing, self.nice
            )
        except Exception as exc:
            self._spawning = None
            if self._closed:
                return
            self._spawn_failures += 1
            if self._spawn_failures < SPAWN_ATTEMPTS:  # e.g. a worker died while it was starting
                log.warning("render worker processes did not start (%r); trying again", exc)
                self._ensure_spawning()
                return
            log.error("render worker processes could not start (%r): rendering in threads from now on", exc)
            self._to_threads()
            self._pump()
            return
        self._spawning = None
        if self._closed:
            for _, sock in started:
                sock.close()  # the worker sees the end of its socket and exits
            return
        for process, sock in started:
            self._adopt(process, sock)
        self._spawn_failures = 0
        self._pump()

    def _to_threads(self) -> None:
        self.mode = "thread"
        for worker in list(self._procs):
            if worker.job is None:  # a busy one is let go once it has answered (_answered)
                self._drop(worker)
        while self._retry:  # they were to run in a process only
            job = self._retry.popleft()
            if not job.future.done():
                self._failed += 1
                job.future.set_exception(BrokenProcessPool("a render worker process died on this image"))

    def _adopt(self, process: multiprocessing.process.BaseProcess, sock: socket.socket) -> None:
        worker = _Worker(process, sock)
        self._procs.append(worker)
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(sock.fileno(), self._readable, worker)

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
        """``fn(value)`` on a render worker (the input is already built); an ``inline`` function draws here, at
        once, whatever the queue holds."""
        if fn in self.inline:
            return self._draw_inline(fn, value)
        return await self.submit(fn, lambda: value, priority=priority)

    def _draw_inline(self, fn: Callable[[A], T], value: A) -> T:
        if self._closed:
            raise RenderQueueClosed("the render queue is shut down")
        try:
            image = fn(value)
        except Exception:
            self._failed += 1
            raise
        self._done += 1
        self._inline_done += 1
        return image

    async def render_once(self, fn: Callable[[A], bytes], value: A, *, priority: Priority = Priority.URGENT) -> bytes:
        """:meth:`render` for a pure image function and a hashable input: an input drawn lately is answered from
        :attr:`memo` without a worker (see :mod:`pancog.infra.renderq.memo`)."""
        key = (fn, value)
        found = self.memo.get(key)
        if found is not None:
            return found
        image = await self.render(fn, value, priority=priority)
        self.memo.put(key, image)
        return image

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

    def board_interval(self, base: float) -> float:
        """:func:`board_interval` for this queue's backlog right now."""
        return board_interval(base, self.depth(), self.workers)

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
            nice=self.nice if self.mode == "process" else 0,
            inline=self._inline_done,
        )

    # ------------------------------------------------------------------ lifecycle

    def shutdown(self) -> None:
        """Refuse new jobs, fail every queued one with :class:`RenderQueueClosed`; running renders finish (a worker
        process is let go once it has answered)."""
        if self._closed:
            return
        self._closed = True
        for queue in (*self._queues.values(), self._retry):
            while queue:
                job = queue.popleft()
                if not job.future.done():
                    job.future.set_exception(RenderQueueClosed("the render queue is shut down"))
                    job.future.exception()  # retrieved: no "never retrieved" warning if nobody awaits it
        for worker in list(self._procs):
            if worker.job is None:
                self._drop(worker)
        if self._spill_timer is not None:
            self._spill_timer.cancel()
            self._spill_timer = None
        for pool in (self._threads, self._fallback):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        if self._spawning is not None:
            self._spawning.cancel()

    async def close(self) -> None:
        """:meth:`shutdown`, then wait until the queue's own task (starting the workers) has ended."""
        self.shutdown()
        await self._tasks.close()

    @property
    def ready(self) -> bool:
        """Every worker is up (always, in thread mode)."""
        return self.mode == "thread" or len(self._procs) >= self.workers

    @property
    def closed(self) -> bool:
        return self._closed

    # ------------------------------------------------------------------ internals

    def _idle_process(self) -> _Worker | None:
        return next((w for w in self._procs if w.job is None), None)

    def _may_spill(self) -> bool:
        """May the next job go to a worker other than the first (busy) one? Yes for a retry and an urgent render
        (someone is waiting), and for any job that has waited :data:`SPILL_AFTER` for the first worker; else a
        timer looks again when the oldest would have waited that long."""
        if self._retry:
            return True
        for priority in Priority:
            for job in self._queues[priority]:
                if job.future.done():
                    continue
                if priority is Priority.URGENT:
                    return True
                waited = time.monotonic() - job.enqueued_at
                if waited >= SPILL_AFTER:
                    return True
                self._spill_later(SPILL_AFTER - waited)
                return False
        return True  # nothing queued: _next says so

    def _spill_later(self, delay: float) -> None:
        if self._spill_timer is None:
            self._spill_timer = asyncio.get_running_loop().call_later(delay, self._spill_due)

    def _spill_due(self) -> None:
        self._spill_timer = None
        if not self._closed:
            self._pump()

    def _next(self, process_free: bool) -> RenderJob[Any] | None:
        while process_free and self._retry:
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
        if not self.ready:
            self._ensure_spawning()
        while not self._closed and self._running < self.workers:
            worker = self._idle_process() if self.mode == "process" else None
            if worker is not None and worker is not self._procs[0] and not self._may_spill():
                return  # the first worker is busy and the next job can wait for it a little
            job = self._next(worker is not None)
            if job is None:
                return
            self._start(job, worker)

    def _start(self, job: RenderJob[Any], worker: _Worker | None) -> None:
        now = time.monotonic()
        job.started_at = now
        wait = now - job.enqueued_at
        self._waited[job.priority] += 1
        self._wait_total[job.priority] += wait
        self._wait_max[job.priority] = max(self._wait_max[job.priority], wait)
        try:
            value = job._make_input()
            data = pickle.dumps((job._fn, value), protocol=pickle.HIGHEST_PROTOCOL) if worker is not None else b""
        except Exception as exc:  # building (or pickling) the input failed: that job's awaiter gets the error
            self._failed += 1
            job.future.set_exception(exc)
            return
        self._running += 1
        if worker is not None:
            worker.job = job
            frame = len(data).to_bytes(FRAME_HEADER, "little") + data
            self._send(worker, memoryview(frame))
            return
        # thread mode, or process mode while a worker is starting (never a retried job: see _next)
        if self.mode == "thread":
            if self._threads is None:
                self._threads = concurrent.futures.ThreadPoolExecutor(self.workers, thread_name_prefix="pan-render")
            executor = self._threads
        else:
            if self._fallback is None:
                self._fallback = concurrent.futures.ThreadPoolExecutor(self.workers, thread_name_prefix="pan-render")
            executor = self._fallback
        loop = job.future.get_loop()
        done = executor.submit(job._fn, value)

        def finished(result: concurrent.futures.Future[Any]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting any more
                loop.call_soon_threadsafe(self._finish_thread, job, result)

        done.add_done_callback(finished)

    def _finish_thread(self, job: RenderJob[Any], result: concurrent.futures.Future[Any]) -> None:
        self._running -= 1
        if result.cancelled():
            if not job.future.done():
                job.future.set_exception(RenderQueueClosed("the render queue is shut down"))
        else:
            exc = result.exception()
            if exc is None:
                self._done += 1
                if not job.future.done():
                    job.future.set_result(result.result())
            else:
                self._failed += 1
                if not job.future.done():
                    job.future.set_exception(exc)
        self._pump()

    # -- process workers: one socket each, read and written by the event loop

    def _send(self, worker: _Worker, out: memoryview) -> None:
        try:
            sent = worker.sock.send(out)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:  # the worker is gone: its socket's end (the reader) says so too
            self._died(worker)
            return
        if sent < len(out):
            first = worker.out is None
            worker.out = out[sent:]
            if first:
                asyncio.get_running_loop().add_writer(worker.sock.fileno(), self._writable, worker)
            return
        if worker.out is not None:
            worker.out = None
            asyncio.get_running_loop().remove_writer(worker.sock.fileno())

    def _writable(self, worker: _Worker) -> None:
        if worker.out is not None and not worker.dead:
            self._send(worker, worker.out)

    def _readable(self, worker: _Worker) -> None:
        chunk = self._chunk  # one buffer, reused: every read runs on the event loop's thread
        try:
            n = worker.sock.recv_into(chunk)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            n = 0
        if n == 0:
            self._died(worker)
            return
        buf = worker.buf
        buf += chunk[:n]
        while len(buf) >= FRAME_HEADER:
            size = int.from_bytes(buf[:FRAME_HEADER], "little")
            if len(buf) < FRAME_HEADER + size:
                break
            frame = bytes(buf[FRAME_HEADER : FRAME_HEADER + size])
            del buf[: FRAME_HEADER + size]
            self._answered(worker, frame)

    def _answered(self, worker: _Worker, frame: bytes) -> None:
        job, worker.job = worker.job, None
        try:
            kind, value = pickle.loads(frame)  # noqa: S301 - from our own worker, over a private socket pair
        except Exception as exc:  # e.g. an exception class that cannot be rebuilt here
            kind, value = "error", RuntimeError(f"the render result could not be read: {exc!r}")
        if job is not None:
            self._running -= 1
            if kind == "ok":
                self._done += 1
                if not job.future.done():
                    job.future.set_result(value)
            else:
                self._failed += 1
                if not job.future.done():
                    job.future.set_exception(value if isinstance(value, BaseException) else RuntimeError(value))
        if self._closed or self.mode == "thread":  # stopping, or processes given up for threads
            self._drop(worker)
            if self._closed:
                return
        self._pump()

    def _drop(self, worker: _Worker) -> None:
        """Forget a worker and close our end of its socket (a live worker then exits)."""
        if worker.dead:
            return
        worker.dead = True
        with contextlib.suppress(ValueError):
            self._procs.remove(worker)
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(worker.sock.fileno())
            if worker.out is not None:
                self._loop.remove_writer(worker.sock.fileno())
        worker.sock.close()

    def _died(self, worker: _Worker) -> None:
        """A worker's socket ended: the process died (killed, out of memory). Only it is replaced; its job gets
        one more try, in a process."""
        if worker.dead:
            return
        self._drop(worker)
        job = worker.job
        if job is not None:
            self._running -= 1
        if self._closed:
            if job is not None and not job.future.done():
                job.future.set_exception(RenderQueueClosed("the render queue is shut down"))
            return
        log.warning("a render worker process died; starting another")
        self.restarts += 1
        if job is not None and not job.future.done():
            if job.retried or self.mode == "thread":  # a retry runs in a process only: none are left after a fallback
                self._failed += 1
                job.future.set_exception(BrokenProcessPool("a render worker process died on this image, twice"))
            else:
                job.retried = True
                job.started_at = None
                self._retry.append(job)
        self._ensure_spawning()
        self._pump()
