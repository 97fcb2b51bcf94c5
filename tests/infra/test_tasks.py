"""pancog/infra/tasks.py: the one helper every background task of the bot goes through."""

from __future__ import annotations

import asyncio
import errno
import logging

import pytest

from pancog.infra import tasks as tasks_module
from pancog.infra.tasks import Tasks


async def rounds_reach(rounds: list[int], count: int) -> None:
    """Let a loop of 1 ms run until it has done ``count`` rounds (at most ~200 turns of the event loop: the test's
    assertion then says whether it got there)."""
    for _ in range(200):
        if len(rounds) >= count:
            return
        await asyncio.sleep(0.001)


async def test_spawned_work_is_pending_until_done_and_drained() -> None:
    """Work in flight counts until it ends; drain waits for it, including work spawned while draining."""
    tasks = Tasks("test")
    gate = asyncio.Event()
    done: list[str] = []

    async def second() -> None:
        done.append("second")

    async def first() -> None:
        await gate.wait()
        tasks.spawn(second(), name="second")
        done.append("first")

    tasks.spawn(first(), name="first")
    assert tasks.pending == 1 and tasks.busy()
    gate.set()
    await tasks.drain()
    assert done == ["first", "second"]
    assert tasks.pending == 0 and not tasks.busy() and tasks.held() == []


async def test_long_lived_tasks_and_loops_are_not_work_in_flight() -> None:
    """start() and every() run for their owner's life: pending stays 0, close() ends them."""
    tasks = Tasks("test")
    ticks: list[int] = []

    async def tick() -> None:
        ticks.append(1)

    waiting = tasks.start(asyncio.Event().wait(), name="waiter")
    loop = tasks.every(0.001, tick, name="ticker")
    await rounds_reach(ticks, 3)
    assert len(ticks) >= 3
    assert tasks.pending == 0 and not tasks.busy()
    await tasks.close()
    assert waiting.cancelled() and loop.cancelled()
    assert tasks.held() == []


async def test_a_failure_is_logged_once_and_a_quiet_one_without_traceback(caplog: pytest.LogCaptureFixture) -> None:
    """A failed task is logged as an error with its traceback; a quiet exception type as a warning."""
    tasks = Tasks("owner", quiet=(LookupError,))

    async def boom() -> None:
        raise RuntimeError("boom")

    async def gone() -> None:
        raise KeyError("storage closed")

    with caplog.at_level(logging.WARNING, logger="pan.tasks"):
        tasks.spawn(boom(), name="boom")
        tasks.spawn(gone(), name="gone")
        await tasks.drain()
        await asyncio.sleep(0)  # done callbacks run on the next turn of the loop
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(errors) == 1 and "boom" in errors[0].getMessage() and errors[0].exc_info is not None
    assert len(warnings) == 1 and "storage closed" in warnings[0].getMessage() and warnings[0].exc_info is None


async def test_a_loop_outlives_a_failed_round(caplog: pytest.LogCaptureFixture) -> None:
    """every(): a round that raises is logged and the next round runs."""
    tasks = Tasks("owner")
    rounds: list[int] = []

    async def flaky() -> None:
        rounds.append(1)
        if len(rounds) == 1:
            raise RuntimeError("first round fails")

    with caplog.at_level(logging.ERROR, logger="pan.tasks"):
        tasks.every(0.001, flaky, name="flaky")
        await rounds_reach(rounds, 3)
    await tasks.close()
    assert len(rounds) >= 3
    assert [r for r in caplog.records if "flaky failed" in r.getMessage()]


async def test_a_service_out_of_reach_is_one_warning_line_not_an_error(caplog: pytest.LogCaptureFixture) -> None:
    """A task or a loop's round that failed to reach another machine (refused, reset, timed out, no route: a network
    cut, the database down) is a WARNING without traceback; any other OSError is still an ERROR with one."""
    tasks = Tasks("owner")
    rounds: list[int] = []

    async def no_route() -> None:
        raise OSError(errno.EHOSTUNREACH, "No route to host")

    async def refused() -> None:
        rounds.append(1)
        raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")

    async def missing_file() -> None:
        raise FileNotFoundError(errno.ENOENT, "No such file", "cards.png")

    with caplog.at_level(logging.WARNING, logger="pan.tasks"):
        tasks.spawn(no_route(), name="ping")
        tasks.spawn(missing_file(), name="render")
        tasks.every(0.001, refused, name="season-check")
        await rounds_reach(rounds, 2)
        await tasks.drain()
        await asyncio.sleep(0)
    await tasks.close()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(errors) == 1 and "render" in errors[0].getMessage() and errors[0].exc_info is not None
    assert any("ping could not reach a service" in w.getMessage() and "No route" in w.getMessage() for w in warnings)
    assert any("season-check could not reach a service" in w.getMessage() for w in warnings)
    assert all(w.exc_info is None for w in warnings)
    assert tasks_module.out_of_reach(TimeoutError()) and not tasks_module.out_of_reach(ValueError())


async def test_nothing_starts_once_the_set_is_closed_for_good() -> None:
    """Work asked of a set closed for good (the runtime's, at teardown: an interaction handler finishing after the
    shutdown) never runs its body: it would meet stopped services and closed storage (seen as "storage is not open"
    errors after lost leases). A set closed without ``final`` is used again (a service stopped and restarted)."""
    again = Tasks("service")
    ran: list[str] = []

    async def body(name: str) -> None:
        ran.append(name)

    await again.close()
    await again.spawn(body("restarted"), name="step")
    assert ran == ["restarted"]
    ran.clear()
    tasks = Tasks("owner")
    await tasks.close(final=True)
    spawned = tasks.spawn(body("spawned"), name="late-ping")
    started = tasks.start(body("started"), name="late-loop")
    timer = tasks.after(0.001, lambda: body("timed"), name="late-timer")
    await asyncio.sleep(0.02)
    assert ran == [] and spawned.cancelled() and started.cancelled()
    assert timer.task is None or timer.task.cancelled()
    assert tasks.held() == [] and tasks.pending == 0


async def test_a_key_holds_one_running_task() -> None:
    """running(key) is the key's task while it runs; a new one may start once it is done; cancel_key ends it."""
    tasks = Tasks("test")
    gate = asyncio.Event()
    first = tasks.spawn(gate.wait(), name="a", key=7)
    assert tasks.running(7) is first and tasks.running(8) is None
    gate.set()
    await tasks.drain()
    assert tasks.running(7) is None
    second = tasks.spawn(asyncio.Event().wait(), name="b", key=7)
    tasks.cancel_key(7)
    with pytest.raises(asyncio.CancelledError):
        await second
    assert tasks.running(7) is None


async def test_close_cancels_and_awaits_everything_and_leaves_nothing_live() -> None:
    """close(): every task held is cancelled and awaited (a task that cleans up first is awaited to its end)."""
    tasks = Tasks("test")
    cleaned: list[str] = []

    async def cleans_up() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            await asyncio.sleep(0)
            cleaned.append("yes")

    work = tasks.spawn(cleans_up(), name="work")
    long = tasks.start(asyncio.Event().wait(), name="long")
    await asyncio.sleep(0)
    assert {work, long} <= set(tasks_module.live())
    await tasks.close()
    assert cleaned == ["yes"] and work.done() and long.done()
    assert work not in tasks_module.live() and long not in tasks_module.live()
    await tasks.cancel(None)  # nothing to cancel: no error


async def test_a_timer_starts_its_work_when_it_fires_and_never_once_cancelled() -> None:
    tasks = Tasks("test")
    ran: list[str] = []

    async def work(tag: str) -> None:
        ran.append(tag)

    fired = tasks.after(0.01, lambda: work("fired"), name="fired")
    cancelled = tasks.after(0.01, lambda: work("cancelled"), name="cancelled")
    assert fired.waiting and fired.task is None and tasks.pending == 0  # a timer is not work in flight
    assert cancelled.cancel() and not cancelled.waiting
    assert not cancelled.cancel()  # once
    await asyncio.sleep(0.05)
    assert not fired.waiting and fired.task is not None
    await fired.task
    assert ran == ["fired"] and cancelled.task is None
    assert not fired.cancel()  # started work is left to run
    waiting = tasks.after(30, lambda: work("never"), name="never")
    await tasks.close()  # a timer still waiting is cancelled with the set
    assert not waiting.waiting and waiting.task is None and ran == ["fired"]
