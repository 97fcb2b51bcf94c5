"""The render scheduler (pancog/infra/renderq/): priorities, FIFO, bounded workers, failures, cancellation, shutdown."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest

from pancog.infra.renderq import (
    Priority,
    RenderQueue,
    RenderQueueClosed,
    board_interval,
)


class Gate:
    """A render function that records its calls and blocks until released (from the event loop)."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.finished: list[str] = []
        self.running = 0
        self.most = 0
        self._lock = threading.Lock()
        self._go: dict[str, threading.Event] = {}

    def event(self, name: str) -> threading.Event:
        with self._lock:
            return self._go.setdefault(name, threading.Event())

    def release(self, name: str) -> None:
        self.event(name).set()

    def release_all(self) -> None:
        with self._lock:
            events = list(self._go.values())
        for e in events:
            e.set()
        self.free = True

    free = False

    def __call__(self, name: str) -> str:
        with self._lock:
            self.started.append(name)
            self.running += 1
            self.most = max(self.most, self.running)
        if not self.free:
            self.event(name).wait(5)
        with self._lock:
            self.running -= 1
            self.finished.append(name)
        if name.startswith("boom"):
            raise ValueError(name)
        return name.upper()


async def until(check: Callable[[], bool], timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.002)


@pytest.fixture
async def queue() -> RenderQueue:
    q = RenderQueue(workers=1)
    yield q  # type: ignore[misc]
    q.shutdown()


async def test_priority_order_and_fifo_within_a_priority(queue: RenderQueue) -> None:
    gate = Gate()
    first = queue.submit(gate, lambda: "first", priority=Priority.BOARD)  # takes the only worker
    await until(lambda: gate.started == ["first"])
    jobs = [
        queue.submit(gate, lambda n=n: n, priority=p)  # type: ignore[misc]
        for n, p in [
            ("bg1", Priority.BACKGROUND),
            ("dm1", Priority.DM),
            ("board1", Priority.BOARD),
            ("board2", Priority.BOARD),
            ("urgent1", Priority.URGENT),
            ("dm2", Priority.DM),
            ("urgent2", Priority.URGENT),
        ]
    ]
    assert queue.depth() == 7 and queue.depth(Priority.BOARD) == 2
    gate.release_all()
    assert await first == "FIRST"
    assert [await j for j in jobs] == ["BG1", "DM1", "BOARD1", "BOARD2", "URGENT1", "DM2", "URGENT2"]
    assert gate.started == ["first", "urgent1", "urgent2", "board1", "board2", "dm1", "dm2", "bg1"]
    figures = queue.figures()
    assert figures.done == 8 and figures.backlog == 0 and figures.running == 0
    assert figures.max_wait["background"] >= figures.max_wait["urgent"]
    assert "Renders:" in figures.line()


async def test_input_is_built_when_a_worker_takes_the_job(queue: RenderQueue) -> None:
    """A job that waited renders the latest value (what lets boards coalesce under load)."""
    gate = Gate()
    queue.submit(gate, lambda: "busy", priority=Priority.URGENT)
    state = {"v": "old"}
    job = queue.submit(gate, lambda: state["v"], priority=Priority.BOARD)
    state["v"] = "new"
    gate.release_all()
    assert await job == "NEW"


async def test_workers_are_bounded_and_urgent_waits_for_at_most_one_per_worker() -> None:
    queue = RenderQueue(workers=2)
    gate = Gate()
    boards = [queue.submit(gate, lambda n=n: f"b{n}", priority=Priority.BOARD) for n in range(20)]  # type: ignore[misc]
    await until(lambda: len(gate.started) == 2)
    await asyncio.sleep(0.02)
    assert len(gate.started) == 2 and queue.running == 2 and queue.depth() == 18
    urgent = queue.submit(gate, lambda: "hand", priority=Priority.URGENT)
    gate.release("b0")
    await until(lambda: "hand" in gate.started)
    assert gate.started == ["b0", "b1", "hand"], "the urgent render started as soon as one worker was free"
    gate.release_all()
    assert await urgent == "HAND"
    await asyncio.gather(*(asyncio.ensure_future(b.future) for b in boards))
    assert gate.most == 2
    queue.shutdown()


async def test_a_failing_job_raises_to_its_awaiter_only(queue: RenderQueue) -> None:
    gate = Gate()
    gate.free = True
    bad = queue.submit(gate, lambda: "boom", priority=Priority.BOARD)
    good = queue.submit(gate, lambda: "fine", priority=Priority.BOARD)
    with pytest.raises(ValueError, match="boom"):
        await bad
    assert await good == "FINE"

    def broken_input() -> str:
        raise KeyError("no state")

    with pytest.raises(KeyError):
        await queue.run(gate, broken_input, priority=Priority.URGENT)
    assert await queue.render(gate, "after", priority=Priority.URGENT) == "AFTER"
    assert queue.figures().failed == 2 and queue.idle()


async def test_cancelled_awaiters_do_not_wedge_the_queue(queue: RenderQueue) -> None:
    gate = Gate()
    running = asyncio.create_task(queue.run(gate, lambda: "running", priority=Priority.BOARD))
    await until(lambda: gate.started == ["running"])
    waiting = asyncio.create_task(queue.run(gate, lambda: "waiting", priority=Priority.BOARD))
    await asyncio.sleep(0)
    running.cancel()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    with pytest.raises(asyncio.CancelledError):
        await waiting
    last = queue.submit(gate, lambda: "last", priority=Priority.DM)
    gate.release_all()
    assert await last == "LAST"
    assert gate.started == ["running", "last"], "the cancelled queued job never ran"
    assert queue.figures().dropped == 1
    await until(queue.idle)


async def test_promote_moves_a_queued_job_ahead(queue: RenderQueue) -> None:
    gate = Gate()
    queue.submit(gate, lambda: "busy", priority=Priority.URGENT)
    bg = queue.submit(gate, lambda: "bg", priority=Priority.BACKGROUND)
    board = queue.submit(gate, lambda: "board", priority=Priority.BOARD)
    queue.promote(bg, Priority.BOARD)  # to the back of the BOARD queue
    queue.promote(bg, Priority.DM)  # never demoted
    assert bg.priority is Priority.BOARD
    queue.promote(bg, Priority.URGENT)
    gate.release_all()
    await board
    await bg
    assert gate.started == ["busy", "bg", "board"]


async def test_shutdown_fails_queued_jobs_and_refuses_new_ones() -> None:
    queue = RenderQueue(workers=1)
    gate = Gate()
    running = queue.submit(gate, lambda: "running")
    await until(lambda: gate.started == ["running"])
    queued = queue.submit(gate, lambda: "queued", priority=Priority.DM)
    queue.shutdown()
    with pytest.raises(RenderQueueClosed):
        await queued
    with pytest.raises(RenderQueueClosed):
        queue.submit(gate, lambda: "late")
    gate.release_all()
    assert await running == "RUNNING", "a render already running still finishes"
    assert gate.started == ["running"]
    queue.shutdown()  # idempotent


def test_board_interval_widens_with_the_backlog_per_worker() -> None:
    assert [board_interval(1.0, n, 2) for n in (0, 4, 5, 12, 20, 500)] == [1.0, 1.0, 1.125, 2.0, 3.0, 3.0]
    assert board_interval(1.0, 10, 1) == pytest.approx(3.0), "one worker: the same backlog is twice as deep"
    assert board_interval(0.02, 99, 2) == pytest.approx(0.06), "a multiple of the base (tests use short ones)"
    assert board_interval(1.0, 3, 0) == pytest.approx(1.25), "no workers counts as one"


async def test_a_deep_queue_widens_the_board_interval_until_it_drains() -> None:
    queue = RenderQueue(workers=2)
    gate = Gate()
    assert queue.board_interval(1.0) == 1.0
    jobs = [queue.submit(gate, lambda n=n: f"b{n}", priority=Priority.BOARD) for n in range(22)]  # type: ignore[misc]
    await until(lambda: len(gate.started) == 2)
    assert queue.depth() == 20 and queue.board_interval(1.0) == pytest.approx(3.0)
    gate.release_all()
    await asyncio.gather(*(asyncio.ensure_future(j.future) for j in jobs))
    assert queue.board_interval(1.0) == 1.0
    queue.shutdown()
