"""Images by what they show (pancog/infra/renderq/memo.py): a hand drawn lately is answered without a worker."""

from __future__ import annotations

import threading

from pancog.game.cards import parse_card, parse_cards
from pancog.infra.renderq import RenderQueue
from pancog.infra.renderq.memo import ImageMemo
from renderer import HandSnapshot, render_hand_png


class Counting:
    """A pure image function that counts its calls (on the worker threads)."""

    def __init__(self) -> None:
        self.calls: list[bytes] = []
        self._lock = threading.Lock()

    def __call__(self, value: bytes) -> bytes:
        with self._lock:
            self.calls.append(value)
        return value * 10


async def test_an_input_drawn_lately_is_answered_without_a_worker() -> None:
    draw = Counting()
    queue = RenderQueue(1)
    try:
        first = await queue.render_once(draw, b"a")
        again = await queue.render_once(draw, b"a")
        other = await queue.render_once(draw, b"b")
        assert (first, again, other) == (b"a" * 10, b"a" * 10, b"b" * 10)
        assert draw.calls == [b"a", b"b"]  # the second "a" reached no worker
        assert queue.figures().done == 2
        assert (queue.memo.hits, queue.memo.misses) == (1, 2)
    finally:
        await queue.close()


async def test_a_changed_hand_is_drawn_again_and_the_same_hand_is_the_same_png() -> None:
    queue = RenderQueue(1)
    try:
        cards, drawn, marks = parse_cards("5S 2C 5H"), parse_card("5D"), frozenset({0, 2})
        hand = HandSnapshot(cards=cards, drawn=drawn, meldable=marks)
        png = await queue.render_once(render_hand_png, hand)
        assert png == render_hand_png(hand)
        assert await queue.render_once(render_hand_png, hand) is png
        for changed in (
            HandSnapshot(cards=cards, drawn=parse_card("6D")),  # another card
            HandSnapshot(cards=cards, drawn=drawn, meldable=marks, lang="es"),
            HandSnapshot(cards=cards, drawn=drawn, meldable=marks, sort="rank"),
        ):
            assert await queue.render_once(render_hand_png, changed) == render_hand_png(changed)
        assert queue.figures().done == 4 and queue.memo.hits == 1
    finally:
        await queue.close()


def test_the_memo_keeps_the_most_recently_used_within_its_bytes() -> None:
    memo = ImageMemo(max_bytes=10)
    memo.put("a", b"1234")
    memo.put("b", b"1234")
    assert memo.get("a") == b"1234"  # "a" is now the most recent
    memo.put("c", b"1234")  # 12 bytes: the least recent ("b") goes
    assert memo.get("b") is None and memo.get("a") == b"1234" and memo.get("c") == b"1234"
    assert memo.size == 8 and len(memo) == 2
    memo.put("big", b"x" * 11)  # larger than the whole memo: not kept, nothing evicted for it
    assert memo.get("big") is None and len(memo) == 2
    memo.put("a", b"123456")  # replaced: counted once
    assert memo.size == 10
    assert ImageMemo(0).get("a") is None
