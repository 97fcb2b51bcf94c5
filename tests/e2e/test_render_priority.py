"""The render scheduler through the fake Discord: with a deep backlog of board renders, a user waiting on an
image (My hand, the first board of /pan open) is answered before the backlog drains, and boards coalesce."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

import pancog.adapter.board
import pancog.adapter.hand
import renderer.hand
from pancog.infra.renderq import Priority
from pancog.infra.renderq.memo import ImageMemo
from tests.e2e.conftest import PanFactory
from tests.e2e.scenarios import TWO_SHOE

SLOW = 0.15  # seconds per render while the bot is "loaded"
TABLES = 10


class SlowRenders:
    """Wraps the renderer functions the views use: each render takes ``SLOW`` s and is recorded."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, str]] = []  # (kind, title) in start order
        self._lock = threading.Lock()
        for module, kind in ((pancog.adapter.board, "render_table_png"), (pancog.adapter.hand, "render_hand_png")):
            original = getattr(module, kind)
            monkeypatch.setattr(module, kind, self._wrap(kind, original))

    def _wrap(self, kind: str, original: Any) -> Any:
        def slow(snap: Any) -> bytes:
            with self._lock:
                self.calls.append((kind, str(getattr(snap, "title", ""))))
            time.sleep(SLOW)  # holds a render worker, like a CPU-bound render
            return bytes(original(snap))

        return slow

    def tables(self) -> int:
        return sum(1 for kind, _ in self.calls if kind == "render_table_png")


async def test_urgent_renders_jump_the_board_backlog(pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAN_RENDER_THREADS", "1")
    monkeypatch.setenv("PAN_RENDER_HANDS_INLINE", "0")  # hands queued like any image (by default they skip the queue)
    channels = ("general", *(f"pan-{i}" for i in range(1, TABLES + 1)))
    pan = await pan_factory(members=TABLES + 1, channels=channels)
    rt = pan.rt
    assert rt.renders.workers == 1
    h = pan.h
    # One table per channel; the first one has a hand in progress (so My hand renders an image).
    a, _b = await pan.seat(2)
    for i, user in enumerate(pan.users[2:TABLES], start=1):
        await pan.slash(user, "pan open", channel=h.channel_named(f"pan-{i}"))
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    board_message = pan.board()
    boards = list(rt.boards.values())
    assert len(boards) == TABLES - 1

    slow = SlowRenders(monkeypatch)
    for _ in range(3):  # every board is dirty, kicked again and again while its render waits
        for board in boards:
            board.kick()
        await asyncio.sleep(0)  # let the board tasks run (and queue their renders) between the kicks
    await h.until(lambda: rt.renders.depth(Priority.BOARD) >= len(boards) - 2, "the board renders queued")
    backlog = rt.renders.depth(Priority.BOARD)

    # A click on My hand: its render is URGENT, so at most one board render (the running one) is ahead of it.
    reply = await h.click(a, board_message, "My hand", settle=False)
    assert reply.pngs and "Hand 1" in reply.text
    assert rt.renders.depth(Priority.BOARD) >= backlog - 3, "answered before the board backlog drained"
    first_hand = next(i for i, (kind, _) in enumerate(slow.calls) if kind == "render_hand_png")
    assert first_hand <= 2, slow.calls

    # /pan open in a new channel: its first board is URGENT too.
    reply = await h.slash(pan.users[TABLES], "pan open", channel=h.channel_named(f"pan-{TABLES}"), settle=False)
    assert reply.pngs and rt.renders.depth(Priority.BOARD) >= 1, rt.renders.figures()

    await pan.settle()
    # Coalescing: three kicks per board while its render waited made one render each, not three.
    assert slow.tables() <= len(boards) + 4, slow.calls
    figures = rt.renders.figures()
    assert figures.backlog == 0 and figures.max_wait["urgent"] < figures.max_wait["board"]
    for board in boards:  # every board still shows its table (nothing lost)
        message = h.fake.messages[board.session.board_message_id or 0]
        assert message.files and not message.deleted
    status = await pan.slash(h.moderator, "panadmin status")
    assert "Renders: 0/1 workers busy" in status.text and "urgent" in status.text, status.text


async def test_restart_refresh_is_background_work(pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a restart every board is re-rendered at BACKGROUND priority; a user's click still goes first."""
    monkeypatch.setenv("PAN_RENDER_THREADS", "1")
    monkeypatch.setenv("PAN_RENDER_HANDS_INLINE", "0")
    channels = ("general", "pan-1", "pan-2", "pan-3", "pan-4")
    pan = await pan_factory(members=6, channels=channels)
    a, _b = await pan.seat(2)
    for i, user in enumerate(pan.users[2:6], start=1):
        await pan.slash(user, "pan open", channel=pan.h.channel_named(f"pan-{i}"))
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    slow = SlowRenders(monkeypatch)
    await pan.h.restart()
    pan.rt.edit_interval = 0.02
    await pan.h.until(lambda: pan.rt.renders.depth(Priority.BACKGROUND) >= 2, "the restart's board refresh queued")
    reply = await pan.h.click(a, pan.board(), "My hand", settle=False)
    assert reply.pngs
    assert pan.rt.renders.depth(Priority.BACKGROUND) >= 1, "the click did not wait for the whole refresh"
    await pan.settle()
    assert pan.rt.renders.figures().done >= 6
    assert slow.tables() >= 5


@pytest.mark.parametrize("inline", ["1", "0"])
async def test_my_hand_is_drawn_by_the_bot_itself_unless_told(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch, inline: str
) -> None:
    """PAN_RENDER_HANDS_INLINE (default 1): My hand's strip is drawn on the event loop, not by a worker, even behind
    a board backlog the worker is busy with; at 0 it waits for the worker like any urgent image."""
    monkeypatch.setenv("PAN_RENDER_THREADS", "1")
    monkeypatch.setenv("PAN_RENDER_HANDS_INLINE", inline)
    warmed: list[int] = []  # the threads the start-up's hand warm-up ran on
    # (patched where the extension imports it from: bot.load_extension runs the extension's module afresh)
    monkeypatch.setattr(renderer.hand, "warm_up", lambda: warmed.append(threading.get_ident()))
    pan = await pan_factory(members=3, channels=("general", "pan-1"))
    rt = pan.rt
    if inline == "1":
        await pan.h.until(lambda: bool(warmed), "the hand strip warmed at start")
        assert warmed[0] != threading.get_ident(), "warmed on a thread, not on the event loop"
    else:
        assert warmed == [], "hands go to the workers: nothing to warm in the bot"
    a, _b = await pan.seat(2)
    await pan.slash(pan.users[2], "pan open", channel=pan.h.channel_named("pan-1"))
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    await pan.settle()
    rt.renders.memo = ImageMemo()  # the deal's DM drew this hand already: My hand must draw it again
    before = rt.renders.figures()
    gate = threading.Event()  # holds every board render (on the only worker) until the test opens it
    board_png = pancog.adapter.board.render_table_png

    def held(snap: Any) -> bytes:
        gate.wait(30)
        return bytes(board_png(snap))

    monkeypatch.setattr(pancog.adapter.board, "render_table_png", held)
    try:
        for board in rt.boards.values():
            board.kick()
        await pan.h.until(lambda: rt.renders.running >= 1, "a board render holds the only worker")
        if inline == "1":
            reply = await pan.h.click(a, pan.board(), "My hand", settle=False)
            assert not gate.is_set() and rt.renders.running >= 1, "answered while the worker was held on a board"
        else:
            asyncio.get_running_loop().call_later(0.2, gate.set)
            reply = await pan.h.click(a, pan.board(), "My hand", settle=False)
            assert gate.is_set(), "the hand waited for the worker the board held"
        assert reply.pngs and "Hand 1" in reply.text
        figures = rt.renders.figures()
        if inline == "1":
            assert figures.inline > before.inline, figures
        else:
            assert figures.inline == before.inline == 0, figures
    finally:
        gate.set()
    await pan.settle()
