"""Clicks, commands, selects and the views the bot sends are freed by reference counting, not left to the garbage
collector: at 150 actions a second that garbage made the collector's pauses the ack's tail (docs/performance.md,
"Less cyclic garbage"). The real discord.py client, against the fake Discord, in this process: every collection
here keeps what it frees (``gc.DEBUG_SAVEALL``) and the test names what the bot's side left."""

from __future__ import annotations

import asyncio
import gc
import io
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import discord

from pancog.adapter import ack
from pancog.infra.tasks import Timer
from tests.e2e.conftest import Pan
from tests.e2e.scenarios import TWO_SHOE


@contextmanager
def cyclic_garbage() -> Iterator[list[object]]:
    """Everything the collector frees inside the block (a full collection before and at its end)."""
    found: list[object] = []
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield found
        gc.collect()
        found.extend(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def the_bots(garbage: list[object]) -> Counter[str]:
    """The bot's objects among ``garbage``: discord.py's interactions, responses, views and items, the timers of
    scheduled defers, a sent image's buffer, and a cancelled task's error (its traceback and frames come with it)."""
    kinds = (
        io.BytesIO,  # a sent image's buffer
        discord.Interaction,
        discord.InteractionResponse,
        discord.ui.View,
        discord.ui.LayoutView,
        discord.ui.Item,
        Timer,
        asyncio.CancelledError,
    )
    return Counter(type(o).__name__ for o in garbage if isinstance(o, kinds))


async def test_a_played_hand_leaves_no_interaction_view_or_timer_to_the_collector(pan: Pan) -> None:
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    with cyclic_garbage() as garbage:
        await pan.click(a, pan.board(), "Knock")  # a board button: a dynamic item in a view rebuilt by discord.py
        await pan.slash(b, "knock")  # a slash command
        reply = await pan.slash(a, "draw")  # answered with the hand panel: a view of dynamic selects
        panel = reply.message
        assert panel is not None
        menu = next(c for c in panel.iter_components() if str(c.get("custom_id", "")).endswith(":play"))
        choice = next(o for o in menu["options"] if o["label"].startswith("Meld A♣ 2♣ 3♣"))
        chosen = await pan.select(a, panel, menu["custom_id"], [choice["value"]])  # the panel edited in place
        assert "Melded" in pan.h.fake.messages[panel.id].text
        await pan.slash(a, "discard", card="7C")
        await pan.settle()
        assert chosen.interaction is not None and reply.interaction is not None
    left = the_bots(garbage)
    assert not left, f"left to the garbage collector: {dict(left)}"
    assert not ack._PENDING  # every scheduled defer was cancelled by its answer and forgotten


class _Pending:
    task: asyncio.Task[None] | None = None


def _scheduled_defer_as_it_was() -> _Pending:
    """A defer scheduled the old way: a task that sleeps, held by a record its own coroutine names."""
    pending = _Pending()

    async def later() -> None:
        await asyncio.sleep(10)
        pending.task = None

    pending.task = asyncio.get_running_loop().create_task(later())
    return pending


async def test_the_check_finds_what_the_bot_used_to_leave(pan: Pan) -> None:
    """The oracle above can fail: a view sent without the edge's release, and a scheduled defer as it was,
    cancelled by the answer (its error's traceback holds the frame that names the record holding the task), are
    found."""
    await pan.seat(2)
    with cyclic_garbage() as garbage:
        view = discord.ui.View(timeout=None)
        view.add_item(discord.ui.Button(label="x", custom_id="x"))
        pending = _scheduled_defer_as_it_was()
        await asyncio.sleep(0)
        assert pending.task is not None
        pending.task.cancel()
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        del view, pending
    left = the_bots(garbage)
    assert left["View"] == 1 and left["Button"] == 1 and left["CancelledError"] == 1


def test_every_dynamic_item_is_registered_with_the_client() -> None:
    """The edge no longer lets discord.py store a view of dynamic items it sends (``edge._dispose``), and storing it
    was what also registered its items' patterns: each Pan dynamic item must be registered at setup instead
    (``extension.DYNAMIC_ITEMS``, ``bot.add_dynamic_items``), or its clicks would find no handler."""
    from pancog.adapter import extension

    def subclasses(cls: type) -> set[type]:
        found = set(cls.__subclasses__())
        for sub in list(found):
            found |= subclasses(sub)
        return found

    ours = {c for c in subclasses(discord.ui.DynamicItem) if c.__module__.startswith("pancog.")}
    assert len(ours) >= 9
    assert ours <= set(extension.DYNAMIC_ITEMS), sorted(c.__name__ for c in ours - set(extension.DYNAMIC_ITEMS))
