"""The render scheduler in process mode: real renders in forked workers, priorities kept, a dead worker
replaced and its job retried once, and the thread fallback."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from pancog.infra.renderq import SPILL_AFTER, Priority, RenderQueue, RenderQueueClosed, resolve_mode
from pancog.infra.renderq.workers import processes_available
from renderer.samples import sample_hand, sample_table
from renderer.table import render_table_png

pytestmark = pytest.mark.skipif(not processes_available(), reason="no forkserver on this platform")

PRELOAD = ("renderer.table", "renderer.hand", "renderer.outcome")


def pid_after(delay: float) -> int:
    """A render stand-in: sleeps, then says which process ran it."""
    time.sleep(delay)
    return os.getpid()


def die_once(marker: str) -> int:
    """Kills its own worker process the first time (marker file absent), succeeds the second time."""
    path = Path(marker)
    if not path.exists():
        path.write_text("died")
        os.kill(os.getpid(), signal.SIGKILL)
    return os.getpid()


def always_die(_: object) -> int:
    os.kill(os.getpid(), signal.SIGKILL)
    return 0


async def test_process_renders_are_the_same_pngs_drawn_elsewhere() -> None:
    queue = RenderQueue(2, mode="process", preload=PRELOAD)
    try:
        assert not queue.ready
        await queue.start_workers()
        assert queue.ready
        snapshot = sample_table(6, 12)
        png = await queue.render(render_table_png, snapshot)
        pid = await queue.render(pid_after, 0.0)
    finally:
        queue.shutdown()
    assert png == render_table_png(snapshot), "a worker process draws exactly what the bot's process would"
    assert pid != os.getpid()
    assert queue.figures().mode == "process"


async def test_priorities_hold_with_process_workers() -> None:
    queue = RenderQueue(1, mode="process")
    try:
        await queue.start_workers()
        finished: list[str] = []
        jobs = []
        for name, priority in [("busy", Priority.BOARD), *[(f"bg{i}", Priority.BACKGROUND) for i in range(4)]]:
            job = queue.submit(pid_after, lambda: 0.05, priority=priority)
            job.future.add_done_callback(lambda _f, n=name: finished.append(n))
            jobs.append(job)
        urgent = queue.submit(pid_after, lambda: 0.0, priority=Priority.URGENT)
        urgent.future.add_done_callback(lambda _f: finished.append("urgent"))
        await asyncio.gather(*jobs, urgent)
    finally:
        queue.shutdown()
    assert finished[:2] == ["busy", "urgent"], "My hand jumps every queued board, as with threads"


async def test_a_dead_worker_is_replaced_and_its_job_retried_once(tmp_path: Path) -> None:
    queue = RenderQueue(1, mode="process")
    try:
        await queue.start_workers()  # (before that, jobs would render on a thread of this very process)
        first = await queue.render(pid_after, 0.0)
        assert first != os.getpid()
        survivor = await queue.render(die_once, str(tmp_path / "marker"))
        assert survivor != first, "the retry ran in a new worker"
        assert queue.restarts == 1
        with pytest.raises(Exception, match="process"):
            await queue.render(always_die, None)  # dies on its retry too: the awaiter gets the error
        assert await queue.render(pid_after, 0.0) > 0, "the queue still serves the next job"
        assert queue.restarts >= 2
    finally:
        queue.shutdown()


async def test_hand_and_table_snapshots_pickle_across() -> None:
    queue = RenderQueue(1, mode="process", preload=PRELOAD)
    try:
        from renderer.hand import render_hand_png

        await queue.start_workers()
        hand = sample_hand(10, four_color=True)
        assert await queue.render(render_hand_png, hand) == render_hand_png(hand)
    finally:
        queue.shutdown()


async def test_the_event_loop_never_waits_for_the_pool_to_start() -> None:
    """Forking workers waits for the forkserver's imports; the loop must keep turning meanwhile."""
    queue = RenderQueue(2, mode="process", preload=PRELOAD)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    task = asyncio.create_task(ticker())
    try:
        job = queue.submit(pid_after, lambda: 0.0)  # the first job starts the pool
        assert not queue.ready, "the pool starts on its own thread, not on the loop"
        assert await job == os.getpid(), "meanwhile the job rendered on a thread of the bot's process"
        await queue.start_workers()
        assert queue.ready
        assert await queue.render(pid_after, 0.0) != os.getpid(), "then jobs go to the worker processes"
        assert ticks > 5, "the event loop kept running while the workers started"
    finally:
        task.cancel()
        queue.shutdown()


def test_the_render_mode_is_processes_unless_threads_are_asked_for() -> None:
    """PAN_RENDER_MODE (parsed by the configuration): unset means processes where the platform has them."""
    assert resolve_mode(None) == "process"
    assert resolve_mode("thread") == "thread"
    assert resolve_mode("process") == "process"
    with pytest.raises(ValueError, match="mode"):
        RenderQueue(1, mode="gpu")


def echo_size(data: bytes) -> tuple[int, bytes]:
    """Sends back as many bytes as it got, reversed: both directions carry more than a socket buffer holds."""
    return os.getpid(), data[::-1]


def raise_value_error(text: str) -> int:
    raise ValueError(text)


async def test_frames_larger_than_a_socket_buffer_cross_both_ways() -> None:
    queue = RenderQueue(1, mode="process")
    try:
        await queue.start_workers()
        data = os.urandom(3 * 1024 * 1024)  # a socket pair buffers a few hundred KiB: the send waits for the reader
        pid, back = await queue.render(echo_size, data)
        again = await queue.render(echo_size, b"small")
    finally:
        queue.shutdown()
    assert pid != os.getpid()
    assert back == data[::-1], "every byte arrived, in order, and came back"
    assert again == (pid, b"llams"), "the same worker goes on with the next job"


async def test_an_exception_in_a_worker_reaches_its_awaiter_and_the_worker_lives() -> None:
    queue = RenderQueue(1, mode="process")
    try:
        await queue.start_workers()
        before = await queue.render(pid_after, 0.0)
        with pytest.raises(ValueError, match="bad snapshot"):
            await queue.render(raise_value_error, "bad snapshot")
        after = await queue.render(pid_after, 0.0)
    finally:
        queue.shutdown()
    assert before == after, "an error is an answer, not a death: no worker was replaced"
    assert queue.restarts == 0
    assert queue.figures().failed == 1


async def test_a_dead_worker_is_replaced_alone(tmp_path: Path) -> None:
    """With two workers, one dying leaves the other drawing (the old process pool broke as a whole)."""
    queue = RenderQueue(2, mode="process")
    try:
        await queue.start_workers()
        # keeps one worker busy across the other's death and its replacement's start (a new process: seconds on a
        # loaded machine; with 0.5 s the busy worker could finish first and take the retried job itself)
        slow = queue.submit(pid_after, lambda: 4.0)
        await asyncio.sleep(0.05)
        survivor = await queue.render(die_once, str(tmp_path / "marker"))
        assert await slow != survivor, "the busy worker finished its render"
        assert not slow.retried, "in the process it started in: its worker was never replaced"
        pids = {await slow, survivor}
        await queue.start_workers()
        assert queue.ready and queue.restarts == 1
        seen = set(await asyncio.gather(*(queue.render(pid_after, 0.2) for _ in range(2))))
    finally:
        queue.shutdown()
    assert await slow in seen, "the worker that did not die is still serving"
    assert len(pids) == 2


async def test_shutdown_lets_a_running_process_render_finish() -> None:
    queue = RenderQueue(1, mode="process")
    await queue.start_workers()
    job = queue.submit(pid_after, lambda: 0.3)
    queued = queue.submit(pid_after, lambda: 0.0)
    await asyncio.sleep(0.05)
    queue.shutdown()
    assert await job != os.getpid(), "the running render finished"
    with pytest.raises(Exception, match="shut down"):
        await queued
    assert queue.ready is False, "and its worker was let go"


def test_a_worker_whose_bot_hangs_up_exits_quietly() -> None:
    """The bot closing its end with an answer unread resets the socket (ECONNRESET in the worker): that is the end
    of the worker's work, not a crash with a traceback on the bot's stderr."""
    import multiprocessing
    import pickle
    import socket

    from pancog.infra.renderq.workers import read_frame, send_frame, worker_main

    ours, theirs = socket.socketpair()
    worker = multiprocessing.get_context("spawn").Process(target=worker_main, args=(theirs, None))
    worker.start()
    theirs.close()
    try:
        assert read_frame(ours) is not None, "the worker says it is ready"
        send_frame(ours, pickle.dumps((echo_size, b"x")))
        time.sleep(0.5)  # the answer is written, left unread; the worker waits for its next job
    finally:
        ours.close()
    worker.join(30)
    assert worker.exitcode == 0


def current_nice(_: object) -> int:
    return os.nice(0)


async def test_workers_run_at_a_lower_cpu_priority_than_the_bot() -> None:
    queue = RenderQueue(1, mode="process", nice=3)
    try:
        await queue.start_workers()
        worker = await queue.render(current_nice, None)
    finally:
        queue.shutdown()
    assert worker == min(19, os.nice(0) + 3), "busy cores go to the event loop first"
    assert "(processes, nice +3)" in queue.figures().line(), "/pan status says so"


async def test_the_first_worker_draws_what_nobody_waits_on_and_urgent_renders_take_another() -> None:
    """Process mode prefers the first worker (its caches are warm): while it is busy, a board waits for it up to
    SPILL_AFTER before another worker takes it, and an urgent render goes to another worker at once."""
    queue = RenderQueue(2, mode="process")
    try:
        await queue.start_workers()
        one_at_a_time = {await queue.render(pid_after, 0.0, priority=Priority.BOARD) for _ in range(6)}
        assert len(one_at_a_time) == 1, "at a steady pace one worker draws everything"
        busy = queue.submit(pid_after, lambda: 2.0, priority=Priority.BOARD)
        board = queue.submit(pid_after, lambda: 0.0, priority=Priority.BOARD)
        assert not busy.queued and board.queued, "the board waits for the first worker, the second stays idle"
        urgent = queue.submit(pid_after, lambda: 0.0, priority=Priority.URGENT)
        assert not urgent.queued, "someone is waiting on it: the second worker takes it at once"
        urgent_pid, board_pid = await urgent, await board
        assert not busy.future.done(), "the board did not wait for the busy worker to finish"
        assert board.started_at is not None
        assert board.started_at - board.enqueued_at >= SPILL_AFTER, "it waited SPILL_AFTER first"
        assert urgent_pid == board_pid != await busy
    finally:
        queue.shutdown()


def pid_and_thread(value: int) -> tuple[int, int, int]:
    """An inline stand-in: which process and thread drew it."""
    if value < 0:
        raise ValueError("no such image")
    return value, os.getpid(), threading.get_ident()


async def test_an_inline_image_is_drawn_at_once_on_the_event_loop_and_the_rest_by_the_workers() -> None:
    """PAN_RENDER_HANDS_INLINE: the hand strip is drawn by render() itself, on the loop's thread, ahead of any queued
    job and without a worker; every other image still goes to a worker process."""
    from renderer.hand import render_hand_png

    queue = RenderQueue(1, mode="process", preload=PRELOAD, inline=(render_hand_png, pid_and_thread))
    try:
        await queue.start_workers()
        # the only worker, busy for 2 s (far longer than the two draws below take, even on a slow machine)
        busy = queue.submit(pid_after, lambda: 2.0, priority=Priority.BOARD)
        assert queue.running == 1
        hand = sample_hand(10, four_color=True)
        png = await queue.render(render_hand_png, hand, priority=Priority.DM)  # the lowest priority the bot uses
        drawn = await queue.render(pid_and_thread, 7)
        assert not busy.future.done(), "both were drawn while the worker was still busy: nothing waited for it"
        assert png == render_hand_png(hand)
        assert drawn == (7, os.getpid(), threading.get_ident()), "drawn by the caller's thread, in the bot"
        assert await queue.render_once(render_hand_png, hand) == png and queue.memo.hits == 0  # drawn once more
        assert await queue.render_once(render_hand_png, hand) == png and queue.memo.hits == 1  # then remembered
        with pytest.raises(ValueError, match="no such image"):
            await queue.render(pid_and_thread, -1)
        assert await busy != os.getpid()  # the board, meanwhile, in the worker process
        figures = queue.figures()
        assert (figures.done, figures.inline, figures.failed) == (4, 3, 1)
        assert "(3 on the event loop)" in figures.line()
        queue.shutdown()
        with pytest.raises(RenderQueueClosed):
            await queue.render(pid_and_thread, 1)
    finally:
        queue.shutdown()
