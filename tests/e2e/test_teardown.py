"""Closing the bot ends every task of ours: each goes through a ``pancog.infra.tasks.Tasks`` set, and closing the
runtime (the extension's teardown) cancels and awaits them all."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import CodeType

from pancog.infra import tasks as tasks_module
from tests.e2e.conftest import Pan

PRODUCT = (str(Path(__file__).resolve().parents[2] / "pancog"), str(Path(__file__).resolve().parents[2] / "bot.py"))


def _code(task: asyncio.Task[object]) -> CodeType | None:
    coro = task.get_coro()
    return getattr(coro, "cr_code", None) or getattr(coro, "gi_code", None)


def ours_left() -> list[str]:
    """Every live asyncio task running a coroutine of the product (pancog/, bot.py), and every task a Tasks set
    still holds: (name, where)."""
    found = {task for task in tasks_module.live() if not task.done()}
    for task in asyncio.all_tasks():
        code = _code(task)
        if code is not None and code.co_filename.startswith(PRODUCT) and task is not asyncio.current_task():
            found.add(task)
    return sorted(f"{t.get_name()} ({(c := _code(t)) and c.co_qualname})" for t in found)


async def test_the_check_sees_a_task_of_ours_left_running() -> None:
    """The detector itself: a task a Tasks set still holds, and a product coroutine run as a bare task, are found."""
    from pancog.adapter.ack import settle  # any product coroutine function will do

    class Interaction:
        id = -1

    held = tasks_module.Tasks("forgotten")
    held.start(asyncio.Event().wait(), name="held-forever")
    await asyncio.sleep(0)
    assert [line for line in ours_left() if line.startswith("held-forever")], ours_left()
    await held.close()
    bare = asyncio.get_running_loop().create_task(settle(Interaction()), name="bare")  # type: ignore[arg-type]
    assert [line for line in ours_left() if line.startswith("bare (settle")], ours_left()
    await bare
    assert ours_left() == []


async def test_after_teardown_no_task_of_ours_is_left(pan: Pan) -> None:
    """A busy bot (two tables in play, a practice table with computer players, boards, the turn clock, the league
    and tournament loops) is closed: no task of ours is left, running or held."""
    players = await pan.seat(2)
    await pan.slash(players[0], "pan start")
    await pan.slash(pan.users[2], "pan practice", channel=pan.h.channel_named("pan-1"), opponents=2)
    assert pan.rt.tasks.held(), "the runtime started no task (boards, loops): the test would prove nothing"
    await pan.h.stop_bot()  # unloads the extension: teardown closes the runtime
    await asyncio.sleep(0)
    assert ours_left() == []
