"""The phone layout through Discord: a player's own choice (/pan settings layout) and the server's public board
(/panadmin config board_layout)."""

from __future__ import annotations

import io
from dataclasses import replace

from PIL import Image

from pancog.adapter.board import Board
from pancog.services.prefs import Layout, PlayerSettings, StoragePrefsStore
from renderer import TableSnapshot, layout_table
from tests.e2e.conftest import Pan, private_to
from tests.e2e.privacy import HandRecorder, assert_private
from tests.e2e.scenarios import TWO_SHOE


def width_of(png: bytes) -> tuple[int, int]:
    size: tuple[int, int] = Image.open(io.BytesIO(png)).size
    return size


async def test_a_phone_player_gets_the_table_over_his_hand_privately(pan: Pan, hands: HandRecorder) -> None:
    """/pan settings layout:phone: that player's My hand is one portrait image (the table over his hand, 480 px)
    with both text twins as its alt text, his hand DM is portrait; the other player's and the public board stay
    wide; the choice is stored with his preferences."""
    a, b = await pan.seat(2)
    reply = await pan.slash(a, "pan settings", layout="phone")
    assert private_to(reply, a) and "Layout: phone" in reply.text
    assert (await PlayerSettings(StoragePrefsStore(pan.rt.storage)).get(a.id)).layout is Layout.PHONE  # durable
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    assert width_of(pan.h.dms(a)[-1].pngs[-1])[0] == 480  # the deal's DM: the hand in rows
    assert width_of(pan.h.dms(b)[-1].pngs[-1])[0] > 480
    for user in (a, b):
        await pan.slash(user, "knock")
    reply = await pan.slash(a, "draw")
    assert private_to(reply, a)
    (attachment,) = reply.message.attachments if reply.message else []
    assert attachment.filename == "hand.png"
    size = width_of(attachment.data)
    assert size[0] == 480 and size[1] > 480  # portrait
    assert "Your hand, 10 cards" in attachment.description and "Seat 2: player2" in attachment.description
    assert "Pluck: " in attachment.description
    other = await pan.click(b, pan.board(), "My hand")
    assert private_to(other, b) and width_of(other.pngs[-1])[0] > 480  # his own choice: wide
    board_png = next(data for name, data in pan.board().files if name == "table.png")
    assert width_of(board_png)[0] == 800  # the public board: the server's choice (wide by default)
    await pan.slash(a, "pan settings", layout="wide")
    reply = await pan.click(a, pan.board(), "My hand")
    assert width_of(reply.pngs[-1])[0] > 480
    assert assert_private(pan.h.fake, hands) >= 4


async def test_the_server_can_make_the_public_board_portrait(pan: Pan) -> None:
    """/panadmin config board_layout:phone: the public board is redrawn 480 px wide (one column of seats), with
    the same text twin as its alt text; wide brings it back."""
    await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(pan.users[0], "pan start")
    board = pan.board()
    before = next(a for a in board.attachments if a.filename == "table.png")
    assert width_of(before.data)[0] == 800
    reply = await pan.slash(pan.h.moderator, "panadmin config", board_layout="phone")
    assert private_to(reply, pan.h.moderator) and "Public board: phone layout" in reply.text
    await pan.settle()
    after = next(a for a in pan.board().attachments if a.filename == "table.png")
    assert pan.board().id == board.id  # edited in place
    assert width_of(after.data) == (480, layout_table(_portrait_of(pan)).height)
    assert after.description == before.description  # the same facts, laid out for phones
    await pan.slash(pan.h.moderator, "panadmin config", board_layout="wide")
    await pan.settle()
    again = next(a for a in pan.board().attachments if a.filename == "table.png")
    assert width_of(again.data)[0] == 800


def _portrait_of(pan: Pan) -> TableSnapshot:
    """The board as the bot draws it now, in portrait."""
    session = pan.session()
    board = pan.rt.boards[session.table_id]
    assert isinstance(board, Board)
    return replace(board.boards.table_for(session, four_color=False), layout="portrait")
