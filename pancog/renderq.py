"""The render scheduler: every PNG the bot draws goes through one bounded, prioritised queue.

Rendering (Pillow, ~10-20 ms an image) holds the GIL, so running many renders at once only makes each one
slower. Instead a small pool of worker threads (``PAN_RENDER_THREADS``, default ``min(2, cpu_count)``) takes
jobs from four FIFO queues, most urgent first:

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
import dataclasses
import enum
import logging
import os
import time
from collections.abc import Callable, Generator, Mapping
from typing import Any, Generic, TypeVar

__all__ = [
    "Priority",
    "RenderFigures",
    "RenderJob",
    "RenderQueue",
    "RenderQueueClosed",
    "default_threads",
    "threads_from_env",
]

log = logging.getLogger("pan.renderq")

A = TypeVar("A")
T = TypeVar("T")

ENV_THREADS = "PAN_RENDER_THREADS"


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


class RenderJob(Generic[T]):
    """One queued render. Await it (``await job``) for the PNG; cancelling the awaiter drops a queued job."""

    __slots__ = ("_fn", "_make_input", "enqueued_at", "future", "priority", "started_at")

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

    @property
    def queued(self) -> bool:
        return self.started_at is None and not self.future.done()

    def __await__(self) -> Generator[Any, None, T]:
        return self.future.__await__()


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class RenderFigures:
    """A cheap snapshot for ``/pan status`` and the benchmark (waits in seconds, queued → started)."""

    workers: int
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
        return (
            f"Renders: {self.running}/{self.workers} workers busy · queued {queued} · {self.done} done"
            + (f", {self.failed} failed" if self.failed else "")
            + (f" · wait mean/max s: {waits}" if waits else "")
        )


class RenderQueue:
    """A bounded pool of render threads fed from per-priority FIFO queues (see the module docstring)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers if workers is not None else default_threads())
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=self.workers, thread_name_prefix="pan-render"
        )
        self._queues: dict[Priority, collections.deque[RenderJob[Any]]] = {p: collections.deque() for p in Priority}
        self._running = 0
        self._closed = False
        self._done = 0
        self._failed = 0
        self._dropped = 0
        self._waited = dict.fromkeys(Priority, 0)
        self._wait_total = dict.fromkeys(Priority, 0.0)
        self._wait_max = dict.fromkeys(Priority, 0.0)

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
        for queue in self._queues.values():
            while queue:
                job = queue.popleft()
                if not job.future.done():
                    job.future.set_exception(RenderQueueClosed("the render queue is shut down"))
                    job.future.exception()  # retrieved: no "never retrieved" warning if nobody awaits it
        self._executor.shutdown(wait=False, cancel_futures=True)

    @property
    def closed(self) -> bool:
        return self._closed

    # ------------------------------------------------------------------ internals

    def _next(self) -> RenderJob[Any] | None:
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
        done = self._executor.submit(job._fn, value)

        def finished(result: concurrent.futures.Future[Any]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting any more
                loop.call_soon_threadsafe(self._finish, job, result)

        done.add_done_callback(finished)

    def _finish(self, job: RenderJob[Any], result: concurrent.futures.Future[Any]) -> None:
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
