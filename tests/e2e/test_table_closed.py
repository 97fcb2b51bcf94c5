"""One "table closed" event (``TableService.on_close``), whatever closed the table: the host, a moderator, the idle
timer, a deleted channel, a bank season's end. Through the fake Discord, each path drops the board (and its turn
ping), forgets the table's clock, and ends a watch of a hand at that table at once (told to the watch's listeners,
not only found out at the next read)."""

from __future__ import annotations

import asyncio

import pytest

from pancog.services.tables import CloseReason, TableClosed
from pancog.services.watch import Grant, GrantEnd
from tests.e2e.conftest import Pan, PanFactory
from tests.e2e.scenarios import TWO_SHOE
from tests.fakediscord.models import FakeChannel


class Closes:
    """What the table service published and what the watch service ended, as it happened."""

    def __init__(self, pan: Pan) -> None:
        self.closed: list[TableClosed] = []
        self.ended: list[tuple[Grant, GrantEnd]] = []
        pan.rt.tables.on_close(self.closed.append)
        assert pan.rt.watch is not None
        pan.rt.watch.on_end(lambda grant, why: self.ended.append((grant, why)))

    def reasons(self) -> list[CloseReason]:
        return [c.reason for c in self.closed]


async def mid_hand_with_a_watch(pan: Pan, channel: FakeChannel | None = None) -> int:
    """Two players in a hand at ``channel``; the second shares his cards with a third member. Returns the table."""
    a, b = await pan.seat(2, channel=channel)
    pan.stack(TWO_SHOE, first_seat=0, channel=channel)
    await pan.slash(a, "pan start", channel=channel)
    await pan.slash(b, "pan settings", channel=channel, share_hand=pan.users[2])
    table_id = pan.session(channel).table_id
    assert table_id in pan.rt.boards and pan.rt.watch is not None
    assert pan.rt.watch.watching(table_id, pan.users[2].id)
    return table_id


def assert_gone(pan: Pan, closes: Closes, table_id: int, *, watched: bool = True) -> None:
    """The board, its turn ping and the table's clock are gone; the watch ended with the close."""
    assert table_id not in pan.rt.boards
    assert pan.rt.clock is not None and pan.rt.clock.turn_info(table_id) is None
    assert pan.rt.clock.idle_deadline(table_id) is None
    boards = pan.rt.boards  # every board left belongs to another table
    assert all(
        getattr(board, "session", None) is None or board.session.table_id != table_id for board in boards.values()
    )
    assert [c.table_id for c in closes.closed] == [table_id]
    if watched:
        assert [(g.table_id, g.watcher_id, why) for g, why in closes.ended] == [
            (table_id, pan.users[2].id, GrantEnd.CLOSED)
        ]


async def test_the_hosts_close_drops_the_board_and_ends_the_watch(pan: Pan) -> None:
    """/pan close by the host mid-hand (confirmed)."""
    closes = Closes(pan)
    table_id = await mid_hand_with_a_watch(pan)
    await pan.close(pan.users[0])
    assert closes.reasons() == [CloseReason.HOST]
    assert_gone(pan, closes, table_id)


async def test_a_moderators_close_drops_the_board_and_ends_the_watch(pan: Pan) -> None:
    """/pan close by a moderator who is not the host (the fake gives every member Manage Server)."""
    closes = Closes(pan)
    table_id = await mid_hand_with_a_watch(pan)
    await pan.close(pan.users[3])
    assert closes.reasons() == [CloseReason.MODERATOR]
    assert_gone(pan, closes, table_id)


async def test_a_deleted_channel_drops_the_board_and_ends_the_watch(pan: Pan) -> None:
    """A moderator deletes the table's channel mid-hand: the table closes, and nothing more is posted there."""
    closes = Closes(pan)
    channel = pan.h.channel_named("pan-1")
    table_id = await mid_hand_with_a_watch(pan, channel)
    posted = len(pan.h.fake.calls)
    await pan.h.fake.delete_channel(channel)
    await pan.settle()
    assert closes.reasons() == [CloseReason.CHANNEL_DELETED]
    assert_gone(pan, closes, table_id)
    assert not [c for c in pan.h.fake.calls[posted:] if c.channel_id == channel.id]  # no post into the gone channel


async def test_the_idle_close_drops_the_board_and_still_announces(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table with no hand for the idle time closes itself: its board goes, and the channel is told why."""
    monkeypatch.setenv("PAN_IDLE_CLOSE_SECONDS", "30")
    monkeypatch.setenv("PAN_CLOCK_SCALE", "100")  # 0.3 s
    pan = await pan_factory()
    closes = Closes(pan)
    await pan.seat(2)
    table_id = pan.session().table_id
    assert table_id in pan.rt.boards
    async with asyncio.timeout(20):
        while not closes.closed:
            await asyncio.sleep(0.05)
    await pan.settle()
    assert closes.reasons() == [CloseReason.IDLE]
    assert_gone(pan, closes, table_id, watched=False)  # no hand, no watch: a grant ends with its hand
    assert "closed after 30 minutes without a hand" in pan.h.last_message().text


async def test_a_bank_seasons_end_drops_its_tables_board_and_ends_the_watch(pan: Pan) -> None:
    """/panadmin season end closes the bank season's tables first."""
    closes = Closes(pan)
    await pan.slash(pan.h.moderator, "panadmin season start", name="Winter", mode="bank", starting_chips=800)
    table_id = await mid_hand_with_a_watch(pan)
    await pan.slash(pan.h.moderator, "panadmin season end")
    assert closes.reasons() == [CloseReason.SEASON_ENDED]
    assert_gone(pan, closes, table_id)
