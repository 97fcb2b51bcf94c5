"""The bot's savings on discord.py's transport, on the real client against the fake Discord: every image goes
out in a multipart body built in one piece (pancog/infra/multipart.py) and arrives whole; a board edit's gateway
echo (MESSAGE_UPDATE) is not parsed while nothing listens for it, and reaches a listener as soon as one is added
(pancog/adapter/gateway_events.py); answers and edits go out without building the messages Discord returns
(pancog/adapter/edge.py, "sent lean")."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import discord
import pytest
from PIL import Image

from pancog.adapter import edge, table_cog
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


async def test_answers_and_edits_go_out_without_building_the_messages_discord_returns(
    pan: Pan, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The edge's lean sends (pancog/adapter/edge.py, "sent lean"): an answer (the hand panel: text, image,
    selects) and a board edit arrive as discord.py would send them, and discord.py builds no message object from
    what Discord returns for either; a public answer's id (a new board's) is what the board is edited through
    afterwards."""
    built: list[str] = []

    class CountedAnswer(discord.InteractionMessage):
        def __init__(self, **kwargs: Any) -> None:
            built.append("answer")
            super().__init__(**kwargs)

    class CountedEdit(discord.WebhookMessage):
        def __init__(self, **kwargs: Any) -> None:
            if kwargs["data"].get("edited_timestamp"):  # an edit's (a followup posted says None: it is read)
                built.append("edit")
            super().__init__(**kwargs)

    monkeypatch.setattr(discord.interactions, "InteractionMessage", CountedAnswer)
    monkeypatch.setattr(discord.webhook.async_, "WebhookMessage", CountedEdit)
    a, b = pan.users[:2]
    await pan.slash(a, "pan open")
    board = pan.board()
    edits = board.edits
    await pan.slash(b, "pan join")
    await pan.settle()
    assert pan.board().id == board.id and pan.board().edits > edits, "edited through the id the answer gave"
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    for user in (a, b):
        await pan.slash(user, "knock")
    reply = await pan.slash(a, "draw")
    assert reply.message is not None and reply.message.ephemeral and reply.message.visible_to == a.id
    assert reply.pngs and "Melds with the pluck" in reply.text
    kinds = [str(c.get("custom_id", "")) for c in reply.message.iter_components()]
    assert any(k.endswith(":play") for k in kinds) and any(k.endswith(":discard") for k in kinds)
    await pan.settle()
    assert built == [], "no InteractionMessage nor WebhookMessage built"
    # through discord.py's own methods instead, both messages are built (the counters can fail)

    async def plain_answer(interaction: Any, content: Any, *, ephemeral: bool, **kwargs: Any) -> int | None:
        return (await interaction.response.send_message(content, ephemeral=ephemeral, **kwargs)).message_id

    async def plain_edit(interaction: Any, message_id: int, **kwargs: Any) -> None:
        await interaction.followup.edit_message(message_id, **kwargs)

    monkeypatch.setattr(edge, "_send_answer", plain_answer)
    monkeypatch.setattr(edge, "_edit_by_token", plain_edit)
    await pan.slash(a, "meld", cards="AC 2C 3C 4C")
    await pan.settle()
    assert "answer" in built and "edit" in built


async def test_a_view_with_its_own_callbacks_is_registered_under_the_answer_s_id(
    pan: Pan, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A view that is not all dynamic items is stored by discord.py under the message id Discord returned, with the
    15 minutes an ephemeral answer's view gets (as ``InteractionResponse.send_message`` does)."""
    stored: list[tuple[int, float | None]] = []
    store = pan.h.bot._connection._view_store

    class Classic(discord.ui.View):
        def __init__(self, _current: str) -> None:
            super().__init__(timeout=None)

        @discord.ui.button(label="Ping", custom_id="test:ping")
        async def ping(self, interaction: discord.Interaction[Any], _button: discord.ui.Button[Any]) -> None:
            await interaction.response.send_message("pong", ephemeral=True)

        def stop(self) -> None:  # /pan help stops its view once sent: what discord.py stored until then
            stored.extend((mid, view.timeout) for mid, view in store._synced_message_views.items() if view is self)
            super().stop()

    monkeypatch.setattr(table_cog, "GuideView", Classic)
    user = pan.users[0]
    reply = await pan.slash(user, "pan help")
    assert reply.message is not None and reply.message.ephemeral
    assert stored == [(reply.message.id, edge.EPHEMERAL_VIEW_TIMEOUT)]
