"""Components V2 messages: what the fake refuses (as Discord does) and what it accepts, with a real discord.py client
sending ``discord.ui.LayoutView`` on channel messages, interaction responses, followups and edits."""

from __future__ import annotations

import io
from typing import Any

import discord as dpy
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from tests.fakediscord import components as v2
from tests.fakediscord import limits
from tests.fakediscord.harness import Harness

V2 = 1 << 15


def _png(color: tuple[int, int, int] = (10, 120, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (6, 4), color).save(buffer, format="PNG")
    return buffer.getvalue()


# ------------------------------------------------------------------------------------------ payload level
def _text(content: str) -> dict[str, Any]:
    return {"type": 10, "content": content}


def _button(custom_id: str) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": custom_id, "custom_id": custom_id}


def _gallery(*urls: str) -> dict[str, Any]:
    return {"type": 12, "items": [{"media": {"url": url}} for url in urls]}


def _section(*texts: str, accessory: dict[str, Any] | None) -> dict[str, Any]:
    section: dict[str, Any] = {"type": 9, "components": [_text(t) for t in texts]}
    if accessory is not None:
        section["accessory"] = accessory
    return section


def _container(*children: dict[str, Any]) -> dict[str, Any]:
    return {"type": 17, "components": list(children)}


def test_a_valid_layout_passes_and_nested_components_count() -> None:
    layout = [
        _container(
            _text("Hand 3 · alice to play"),
            _section("Pot 40", accessory={"type": 11, "media": {"url": "attachment://pot.png"}}),
            _gallery("attachment://board.png"),
            {"type": 14, "divider": True, "spacing": 1},
            {"type": 1, "components": [_button("draw"), _button("take")]},
        ),
        {"type": 13, "file": {"url": "attachment://log.txt"}},
    ]
    assert v2.count_components(layout) == 11  # container 1, text 1, section 3, gallery 1, separator 1, row 3, file 1
    assert v2.check_v2(layout, {"pot.png", "board.png", "log.txt"}) == []
    payload = {"flags": V2, "components": layout}
    files = [("pot.png", b"1"), ("board.png", b"2"), ("log.txt", b"3")]
    assert limits.check_message(payload, files, creating=True) == []


def test_more_than_40_components_counting_nested_ones_is_refused() -> None:
    # 8 action rows of 4 buttons = 40 components: accepted; one more text display (41) is refused
    rows = [{"type": 1, "components": [_button(f"b{r}.{i}") for i in range(4)]} for r in range(8)]
    assert v2.check_v2(rows) == []
    assert v2.check_v2([*rows, _text("one too many")]) == [
        "41 components > 40 (components v2; nested components count)"
    ]
    # nested in a container they still count (and the container itself is one)
    assert any("41 components" in p for p in v2.check_v2([_container(*rows)]))


def test_a_v2_message_without_components_is_empty_and_refused() -> None:
    assert v2.check_v2([]) == ["a V2 message without components is empty (Discord refuses an empty message)"]


def test_text_displays_share_one_4000_character_budget() -> None:
    assert v2.check_v2([_text("a" * 2000), _container(_text("b" * 2000))]) == []
    assert v2.check_v2([_text("a" * 2000), _container(_text("b" * 2001))]) == [
        "text displays have 4001 chars in all > 4000"
    ]


def test_types_and_nesting() -> None:
    thumb = {"type": 11, "media": {"url": "https://example.com/a.png"}}
    assert any("not allowed at the top level" in p for p in v2.check_v2([thumb]))
    assert any("not allowed at the top level" in p for p in v2.check_v2([_button("loose")]))
    assert any("not allowed in a container" in p for p in v2.check_v2([_container(_container(_text("x")))]))
    assert any("not allowed in a container" in p for p in v2.check_v2([_container(thumb)]))
    assert any("1..3 text displays" in p for p in v2.check_v2([_section("a", "b", "c", "d", accessory=thumb)]))
    assert any("needs an accessory" in p for p in v2.check_v2([_section("a", accessory=None)]))
    assert any("only a button or a thumbnail" in p for p in v2.check_v2([_section("a", accessory=_text("no"))]))
    assert v2.check_v2([_section("a", accessory=_button("ok"))]) == []
    assert any("text displays only" in p for p in v2.check_v2([{"type": 9, "components": [thumb], "accessory": thumb}]))
    assert any("0 items" in p for p in v2.check_v2([_gallery()]))
    assert any("11 items" in p for p in v2.check_v2([_gallery(*[f"https://e.com/{i}.png" for i in range(11)])]))
    assert v2.check_v2([_gallery(*[f"https://e.com/{i}.png" for i in range(10)])]) == []
    assert any("must be attachment://" in p for p in v2.check_v2([{"type": 13, "file": {"url": "https://e.com/x"}}]))
    assert any("spacing" in p for p in v2.check_v2([{"type": 14, "spacing": 3}]))
    assert any("empty container" in p for p in v2.check_v2([_container()]))
    assert any("non-empty" in p for p in v2.check_v2([_text("")]))
    text_input = {"type": 4, "custom_id": "t", "style": 1, "label": "x"}
    assert any(
        "not allowed in a message action row" in p for p in v2.check_v2([{"type": 1, "components": [text_input]}])
    )
    # a legacy message cannot carry V2 components at all
    assert any("IS_COMPONENTS_V2" in p for p in limits.check_components([_text("hi")], flags=0))


def test_custom_ids_and_ids_are_unique_across_the_whole_message() -> None:
    layout = [
        _container({"type": 1, "components": [_button("same")]}),
        _section("s", accessory=_button("same")),
    ]
    assert any("'same' is not unique" in p for p in v2.check_v2(layout))
    assert any("id 7 is not unique" in p for p in v2.check_v2([_text("a") | {"id": 7}, _text("b") | {"id": 7}]))


def test_attachment_references_must_be_uploaded_or_attached() -> None:
    layout = [
        _gallery("attachment://board.png"),
        _section("s", accessory={"type": 11, "media": {"url": "attachment://t.png"}}),
    ]
    assert v2.check_v2(layout, {"board.png", "t.png"}) == []
    assert v2.check_v2(layout, {"board.png"}) == [
        "attachment://t.png is neither uploaded with this request nor attached to the message"
    ]


def test_content_or_embeds_with_the_flag_are_refused() -> None:
    layout = [_text("hi")]
    assert any(
        "content is not allowed" in p
        for p in limits.check_message({"flags": V2, "content": "x", "components": layout}, [], creating=True)
    )
    embeds = {"flags": V2, "embeds": [{"title": "t"}], "components": layout}
    assert any("embeds are not allowed" in p for p in limits.check_message(embeds, [], creating=True))
    # discord.py sends content: None / embeds: [] when they are cleared: that is fine
    cleared = {"flags": V2, "content": None, "embeds": [], "components": layout}
    assert limits.check_message(cleared, [], creating=True) == []


def test_reading_a_v2_message_in_order() -> None:
    layout = [
        _container(
            _text("Hand 3"),
            _section("Pot 40", accessory={"type": 11, "media": {"url": "attachment://pot.png"}, "description": "pot"}),
            {"type": 12, "items": [{"media": {"url": "attachment://board.png"}, "description": "the table"}]},
            {"type": 1, "components": [_button("draw")]},
        ),
        _text("Your move"),
    ]
    files = {"pot.png": b"P", "board.png": b"B"}
    shown = v2.seen(layout, files.get)
    assert shown.texts == ["Hand 3", "Pot 40", "Your move"]
    assert [(i.name, i.data, i.description) for i in shown.images] == [
        ("pot.png", b"P", "pot"),
        ("board.png", b"B", "the table"),
    ]
    assert [b["custom_id"] for b in shown.buttons] == ["draw"]


# ------------------------------------------------------------------------------------------ real discord.py client
class Board(dpy.ui.LayoutView):
    """A table board as one V2 message: text, a thumbnail section, the table image, a Draw button."""

    def __init__(self, count: int = 0, *, text: str = "Turn: alice", image: str = "board.png") -> None:
        super().__init__(timeout=None)
        self.count = count
        draw: dpy.ui.Button[Board] = dpy.ui.Button(label="Draw", custom_id="v2:draw")
        draw.callback = self.draw  # type: ignore[method-assign]
        self.add_item(
            dpy.ui.Container(
                dpy.ui.TextDisplay(f"{text} · draws {count}"),
                dpy.ui.Section(dpy.ui.TextDisplay("Pot 40"), accessory=dpy.ui.Thumbnail("attachment://pot.png")),
                dpy.ui.MediaGallery(dpy.MediaGalleryItem(f"attachment://{image}", description="the table")),
                dpy.ui.Separator(),
                dpy.ui.ActionRow(draw),
            )
        )

    async def draw(self, interaction: dpy.Interaction) -> None:
        await interaction.response.edit_message(view=Board(self.count + 1))


def _files() -> list[dpy.File]:
    return [dpy.File(io.BytesIO(_png()), "board.png"), dpy.File(io.BytesIO(_png((200, 0, 0))), "pot.png")]


class V2Cog(commands.GroupCog, group_name="v2", group_description="components v2 self-test"):
    @app_commands.command(name="post", description="Post a V2 board in the channel")
    async def post(self, interaction: dpy.Interaction) -> None:
        await interaction.response.send_message("posting", ephemeral=True)
        assert isinstance(interaction.channel, dpy.TextChannel)
        await interaction.channel.send(view=Board(), files=_files())

    @app_commands.command(name="reply", description="Answer with a V2 message")
    async def reply(self, interaction: dpy.Interaction) -> None:
        await interaction.response.send_message(view=Board(), files=_files(), ephemeral=True)

    @app_commands.command(name="later", description="Defer, follow up with V2, then edit the original")
    async def later(self, interaction: dpy.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.followup.send(view=Board(text="first"), files=_files())
        await interaction.edit_original_response(view=Board(text="edited"))


async def add_v2_cog(bot: commands.Bot) -> None:
    await bot.add_cog(V2Cog())


@pytest.fixture
async def h(harness_factory: Any) -> Harness:
    return await harness_factory(setup=add_v2_cog)


async def test_a_layout_view_posted_in_a_channel_is_accepted_seen_and_keeps_working(h: Harness) -> None:
    await h.slash(h.users[0], "v2 post")
    board = h.last_message()
    assert board.v2 and board.content == "" and board.embeds == []
    shown = h.seen(board)
    assert shown.texts == ["Turn: alice · draws 0", "Pot 40"]
    assert [(i.name, i.description) for i in shown.images] == [("pot.png", ""), ("board.png", "the table")]
    assert all(i.data is not None and i.data.startswith(b"\x89PNG") for i in shown.images)
    assert [b["label"] for b in shown.buttons] == ["Draw"]
    assert "Turn: alice" in board.text and "the table" in board.text  # .text reads V2 text and alt text too
    # the click edits the message (type 7); the echoed components keep the view dispatching: click again
    first = await h.click(h.users[1], board, "Draw")
    assert first.type == 7 and h.seen(board).texts[0] == "Turn: alice · draws 1"
    await h.click(h.users[2], board, "v2:draw")
    assert h.seen(board).texts[0] == "Turn: alice · draws 2" and board.v2
    # the images stay attached across the edits, so the references still resolve
    assert [i.data is not None for i in h.seen(board).images] == [True, True]


async def test_v2_in_an_interaction_response_a_followup_and_an_original_edit(h: Harness) -> None:
    reply = await h.slash(h.users[0], "v2 reply")
    assert reply.ephemeral and reply.message is not None and reply.message.v2
    assert reply.seen().texts[0] == "Turn: alice · draws 0"
    later = await h.slash(h.users[1], "v2 later")
    assert later.message is not None and later.message.v2
    assert later.seen().texts[0] == "edited · draws 0"  # the followup replaced "thinking", then the edit
    assert [i.data is not None for i in later.seen().images] == [True, True]


async def test_content_with_the_v2_flag_is_refused_400_50035(h: Harness) -> None:
    channel = h.bot.get_channel(h.channel.id)
    with pytest.raises(dpy.HTTPException) as refused:
        await channel.send("also some content", view=Board(), files=_files())
    assert (refused.value.status, refused.value.code) == (400, 50035)
    assert any("content is not allowed with the IS_COMPONENTS_V2 flag" in v for v in h.forgive())
    with pytest.raises(dpy.HTTPException) as embeds:
        await channel.send(embed=dpy.Embed(title="t"), view=Board(), files=_files())
    assert embeds.value.code == 50035
    assert any("embeds are not allowed" in v for v in h.forgive())
    assert h.messages() == []


async def test_an_image_reference_without_its_upload_is_refused(h: Harness) -> None:
    channel = h.bot.get_channel(h.channel.id)
    with pytest.raises(dpy.HTTPException) as refused:
        await channel.send(view=Board(), files=[dpy.File(io.BytesIO(_png()), "board.png")])  # no pot.png
    assert refused.value.code == 50035
    assert h.forgive() == [
        "payload Discord would reject: POST /channels/{channel_id}/messages: attachment://pot.png is neither "
        "uploaded with this request nor attached to the message"
    ]


async def test_text_over_the_shared_budget_and_too_many_components_are_refused(h: Harness) -> None:
    channel = h.bot.get_channel(h.channel.id)
    long = dpy.ui.LayoutView()
    long.add_item(dpy.ui.TextDisplay("a" * 2500)).add_item(dpy.ui.Container(dpy.ui.TextDisplay("b" * 1501)))
    with pytest.raises(dpy.HTTPException):
        await channel.send(view=long)
    assert any("4001 chars in all > 4000" in v for v in h.forgive())
    # discord.py stops a LayoutView at 40 itself; a raw payload of 41 is what Discord would refuse
    rows = [{"type": 1, "components": [_button(f"b{r}.{i}") for i in range(4)]} for r in range(8)]
    route = dpy.http.Route("POST", "/channels/{channel_id}/messages", channel_id=h.channel.id)
    with pytest.raises(dpy.HTTPException):
        await h.bot.http.request(route, json={"flags": V2, "components": [*rows, _text("41st")]})
    assert any("41 components > 40" in v for v in h.forgive())


async def test_a_v2_message_cannot_switch_back_or_take_content_by_edit(h: Harness) -> None:
    await h.slash(h.users[0], "v2 post")
    board = h.last_message()
    message = await h.bot.get_channel(h.channel.id).fetch_message(board.id)
    with pytest.raises(dpy.HTTPException):
        await message.edit(content="now with content")  # no flags sent: the message is still V2
    assert any("content is not allowed" in v for v in h.forgive())
    route = dpy.http.Route("PATCH", "/channels/{c}/messages/{m}", c=h.channel.id, m=board.id)
    with pytest.raises(dpy.HTTPException):
        await h.bot.http.request(route, json={"flags": 0, "components": []})
    assert any("IS_COMPONENTS_V2 cannot be removed" in v for v in h.forgive())
    # an edit that keeps the flag (a new layout) is fine, and the attachments it keeps still resolve
    edited = await message.edit(view=Board(5, text="after"))
    assert edited.flags.components_v2 and h.seen(board).texts[0] == "after · draws 5"
    # dropping the attachments the layout shows is refused
    with pytest.raises(dpy.HTTPException):
        await message.edit(attachments=[])
    assert any("attachment://" in v for v in h.forgive())
    assert board.v2 and len(board.attachments) == 2
    # taking every component away (a classic "strip the buttons" edit) leaves a V2 message empty: refused
    with pytest.raises(dpy.HTTPException):
        await message.edit(view=None)
    assert any("without components is empty" in v for v in h.forgive())


async def test_a_classic_message_may_become_v2_when_its_content_is_cleared(h: Harness) -> None:
    channel = h.bot.get_channel(h.channel.id)
    message = await channel.send("classic")
    with pytest.raises(dpy.HTTPException):
        await message.edit(view=Board(), attachments=_files())  # the old content would stay: refused
    assert any("content is not allowed" in v for v in h.forgive())
    edited = await message.edit(content=None, view=Board(), attachments=_files())
    assert edited.flags.components_v2
    assert h.seen(h.last_message()).texts[0] == "Turn: alice · draws 0"
