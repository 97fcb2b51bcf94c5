"""The bot's two savings on discord.py's transport, on the real client against the fake Discord: every image goes
out in a multipart body built in one piece (pancog/infra/multipart.py) and arrives whole; a board edit's gateway
echo (MESSAGE_UPDATE) is not parsed while nothing listens for it, and reaches a listener as soon as one is added
(pancog/adapter/gateway_events.py)."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import discord
import pytest
from PIL import Image

from pancog.infra.multipart import LeanRequest
from tests.e2e.conftest import Pan
from tests.e2e.scenarios import TWO_SHOE


async def test_images_go_out_in_one_piece_and_edits_are_parsed_only_when_heard(
    pan: Pan, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = pan.h.bot
    assert bot.http._HTTPClient__session._request_class is LeanRequest  # type: ignore[attr-defined]
    parsed: list[int] = []

    class Counted(discord.RawMessageUpdateEvent):  # built only by discord.py's own MESSAGE_UPDATE parser
        def __init__(self, *, data: Any, message: discord.Message) -> None:
            parsed.append(int(data["id"]))
            super().__init__(data=data, message=message)

    monkeypatch.setattr(discord.state, "RawMessageUpdateEvent", Counted)
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    board = pan.board()
    edits = board.edits
    await pan.slash(a, "knock")
    board = pan.board()
    assert board.edits > edits and not board.ephemeral  # edited in place: the fake sent MESSAGE_UPDATE
    assert parsed == []  # nobody listens: not parsed
    (image,) = board.attachments
    with Image.open(io.BytesIO(image.data)) as png:  # the board's image came through the lean body whole
        png.load()
        assert png.format == "PNG" and png.width > 100
    bodies = [c for c in pan.h.fake.calls if c.files]
    assert bodies and all(f.data[:8] == b"\x89PNG\r\n\x1a\n" for c in bodies for f in c.files)

    heard: list[int] = []

    async def on_edit(event: discord.RawMessageUpdateEvent) -> None:
        heard.append(event.message_id)

    bot.add_listener(on_edit, "on_raw_message_edit")
    try:
        edits = board.edits
        await pan.slash(b, "knock")
        board = pan.board()
        assert board.edits > edits
        assert board.id in heard and board.id in parsed  # a listener: discord.py's parser, as before
    finally:
        bot.remove_listener(on_edit, "on_raw_message_edit")


async def test_an_image_sent_again_after_a_502_arrives_whole(pan: Pan) -> None:
    """discord.py sends a request again after a 502, a new form over the same file: the second one-piece body
    carries the whole image again, and it is what the board shows."""
    a, _b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    first = len(pan.h.fake.calls)
    pan.h.fake.fail_next("PATCH /webhooks/*/*/messages/*", status=502)
    await pan.slash(a, "knock")
    edits = [c for c in pan.h.fake.calls[first:] if c.route == "PATCH /webhooks/{app_id}/{token}/messages/{message_id}"]
    assert [c.status for c in edits][:2] == [502, 200]
    (image,) = pan.board().attachments
    assert [f.data for f in edits[1].files] == [image.data]
    with Image.open(io.BytesIO(image.data)) as png:
        png.load()
        assert png.format == "PNG" and png.width > 100


async def test_a_wait_for_an_edit_gets_it(pan: Pan) -> None:
    """``wait_for("raw_message_edit")`` is a listener too: while one waits, edits are parsed and reach it."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    await pan.slash(a, "knock")
    board = pan.board()
    waiter = asyncio.ensure_future(pan.h.bot.wait_for("raw_message_edit", timeout=10))
    await asyncio.sleep(0)  # the wait is registered
    await pan.slash(b, "knock")
    event = await waiter
    assert event.message_id == pan.board().id == board.id
