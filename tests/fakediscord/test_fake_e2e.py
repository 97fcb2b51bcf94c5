"""The harness's own tests: the real PanBot (plus a test-only cog) against the fake Discord."""

from __future__ import annotations

import contextlib
import io
from typing import Any

import discord as dpy
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from tests.fakediscord.harness import Harness, InteractionFailed


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


class CounterView(dpy.ui.View):
    """A message with buttons: "Add" edits the message (type 7), "Slow" defers then follows up."""

    def __init__(self, count: int = 0) -> None:
        super().__init__(timeout=None)
        self.count = count

    @dpy.ui.button(label="Add", custom_id="t:add")
    async def add(self, interaction: dpy.Interaction, button: dpy.ui.Button[CounterView]) -> None:
        self.count += 1
        await interaction.response.edit_message(content=f"count={self.count}", view=self)

    @dpy.ui.button(label="Slow", custom_id="t:slow")
    async def slow(self, interaction: dpy.Interaction, button: dpy.ui.Button[CounterView]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send(
            f"slow count={self.count}", ephemeral=True, file=dpy.File(io.BytesIO(_png()), "c.png")
        )

    @dpy.ui.select(custom_id="t:pick", options=[dpy.SelectOption(label=s, value=s) for s in ("c", "d", "h", "s")])
    async def pick(self, interaction: dpy.Interaction, select: dpy.ui.Select[CounterView]) -> None:
        await interaction.response.send_message(f"picked {','.join(select.values)}", ephemeral=True)


class HarnessCog(commands.GroupCog, group_name="t", group_description="harness self-test commands"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="dm", description="DM the invoker a PNG")
    async def dm(self, interaction: dpy.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            await interaction.user.send("your hand", file=dpy.File(io.BytesIO(_png()), "hand.png"))
        except dpy.Forbidden as exc:
            await interaction.followup.send(f"DMs closed (code {exc.code})", ephemeral=True)
            return
        await interaction.followup.send("sent", ephemeral=True)

    @app_commands.command(name="post", description="Post a counter with buttons")
    async def post(self, interaction: dpy.Interaction) -> None:
        await interaction.response.send_message("posting", ephemeral=True)
        assert isinstance(interaction.channel, dpy.TextChannel)
        await interaction.channel.send("count=0", view=CounterView())

    @app_commands.command(name="echo", description="Echo options")
    @app_commands.choices(suit=[app_commands.Choice(name=s, value=s) for s in ("c", "d", "h", "s")])
    async def echo(
        self, interaction: dpy.Interaction, word: str, times: int, who: dpy.Member, loud: bool = False, suit: str = "c"
    ) -> None:
        text = " ".join([word] * times) + f" for {who.display_name} suit={suit}"
        await interaction.response.send_message(text.upper() if loud else text)

    @app_commands.command(name="cards", description="Autocomplete cards")
    async def cards(self, interaction: dpy.Interaction, cards: str) -> None:
        await interaction.response.send_message(f"cards {cards}", ephemeral=True)

    @cards.autocomplete("cards")
    async def cards_autocomplete(self, interaction: dpy.Interaction, current: str) -> list[app_commands.Choice[str]]:
        names = [f"{r}{s}" for r in "A234567JQK" for s in "CDHS"]
        return [app_commands.Choice(name=n, value=n) for n in names if n.startswith(current.upper())][:25]

    @app_commands.command(name="broken", description="A handler that raises")
    async def broken(self, interaction: dpy.Interaction) -> None:
        raise RuntimeError("deliberately broken handler")

    @app_commands.command(name="twice", description="Answers twice: the second ack is 40060")
    async def twice(self, interaction: dpy.Interaction) -> None:
        await interaction.response.send_message("first", ephemeral=True)
        with contextlib.suppress(dpy.InteractionResponded):
            await interaction.response.send_message("second")
        # discord.py refuses a second response locally; go through the raw webhook to see Discord's answer.
        route = dpy.http.Route("POST", "/interactions/{i}/{t}/callback", i=interaction.id, t=interaction.token)
        try:
            await self.bot.http.request(route, json={"type": 4, "data": {"content": "again"}})
        except dpy.HTTPException as exc:
            await interaction.followup.send(f"second ack refused: {exc.status} {exc.code}", ephemeral=True)

    @app_commands.command(name="ask", description="Open a modal")
    async def ask(self, interaction: dpy.Interaction) -> None:
        await interaction.response.send_modal(NameModal())


class NameModal(dpy.ui.Modal, title="Your name"):
    name = dpy.ui.TextInput(label="Name", custom_id="t:name")

    async def on_submit(self, interaction: dpy.Interaction) -> None:
        await interaction.response.send_message(f"hello {self.name.value}", ephemeral=True)


async def add_test_cog(bot: commands.Bot) -> None:
    await bot.add_cog(HarnessCog(bot))


@pytest.fixture
async def h(harness_factory: Any) -> Harness:
    return await harness_factory(setup=add_test_cog)


async def test_login_ready_and_guild_sync(h: Harness) -> None:
    bot = h.bot
    assert bot.is_ready()
    assert bot.user.id == h.fake.bot_user.id
    guild = bot.get_guild(h.guild.id)
    assert guild is not None and guild.name == "Pan Test"
    assert {c.name for c in guild.text_channels} == {"general", "pan-1", "pan-2"}
    assert guild.get_thread(h.thread.id) is not None
    synced = {c["name"] for c in h.fake.guild_commands[h.guild.id]}
    assert {"pan", "t"} <= synced
    assert [c.route for c in h.fake.calls[:2]] == ["GET /users/@me", "GET /oauth2/applications/@me"]


async def test_global_sync(h: Harness) -> None:
    await h.bot.tree.sync()
    assert {c["name"] for c in h.fake.global_commands} >= {"pan", "t"}
    assert all(c["id"] and c["application_id"] == str(h.fake.application_id) for c in h.fake.global_commands)


async def test_pan_help_is_ephemeral(h: Harness) -> None:
    reply = await h.slash(h.users[0], "pan help")
    assert reply.type == 4
    assert reply.ephemeral
    assert "Pan" in reply.content
    assert h.ephemerals(h.users[0]) == [reply.message]
    assert h.messages() == []  # nothing visible in the channel
    callback = next(c for c in h.fake.calls if c.route.endswith("/callback"))
    assert callback.ephemeral and not callback.global_limit
    assert reply.latency is not None and reply.latency < 1.0


async def test_options_user_resolved_and_choices(h: Harness) -> None:
    reply = await h.slash(h.users[0], "t echo", word="hi", times=2, who=h.users[1], loud=True, suit="h")
    assert reply.content == "HI HI FOR PLAYER2 SUIT=H"
    assert not reply.ephemeral
    assert h.last_message().content == reply.content
    with pytest.raises(AssertionError, match="not one of"):
        await h.slash(h.users[0], "t echo", word="x", times=1, who=h.users[1], suit="z")
    with pytest.raises(AssertionError, match="missing required"):
        await h.slash(h.users[0], "t echo", word="x")


async def test_autocomplete(h: Harness) -> None:
    choices = await h.autocomplete(h.users[0], "t cards", "cards", "5")
    assert [c["name"] for c in choices] == ["5C", "5D", "5H", "5S"]


async def test_dm_with_png(h: Harness) -> None:
    user = h.users[1]
    reply = await h.slash(user, "t dm")
    assert reply.ephemeral and reply.content == "sent"
    [dm] = h.dms(user)
    assert dm.text == "your hand"
    [png] = dm.pngs
    assert Image.open(io.BytesIO(png)).size == (4, 3)
    # the bytes are served back, as Attachment.read() needs
    channel = await h.bot.fetch_channel(h.fake.dm_channel(user).id)
    message = await channel.fetch_message(dm.id)
    assert await message.attachments[0].read() == png


async def test_closed_dm_is_forbidden_50007(h: Harness) -> None:
    user = h.users[2]
    h.fake.close_dms(user)
    reply = await h.slash(user, "t dm")
    assert reply.content == "DMs closed (code 50007)"
    assert h.dms(user) == []
    refused = [c for c in h.fake.calls if c.status == 403]
    assert [c.route for c in refused] == ["POST /channels/{channel_id}/messages"]


async def test_button_click_edits_message(h: Harness) -> None:
    await h.slash(h.users[0], "t post")
    table = h.last_message()
    assert table.content == "count=0"
    reply = await h.click(h.users[1], table, "Add")
    assert reply.type == 7
    assert table.content == "count=1"
    await h.click(h.users[2], table, "t:add")
    assert table.content == "count=2" and table.edits == 2
    slow = await h.click(h.users[0], table, "Slow")
    assert slow.type == 5 and slow.ephemeral and slow.content == "slow count=2"
    assert slow.files[0][0] == "c.png"
    picked = await h.select(h.users[0], table, "t:pick", ["h"])
    assert picked.content == "picked h"


async def test_modal(h: Harness) -> None:
    opened = await h.slash(h.users[0], "t ask")
    assert opened.type == 9 and opened.modal is not None
    reply = await h.submit_modal(h.users[0], opened, {"t:name": "Ana"})
    assert reply.content == "hello Ana"


async def test_second_ack_is_40060(h: Harness) -> None:
    reply = await h.slash(h.users[0], "t twice")
    assert "second ack refused: 400 40060" in reply.text


async def test_429_is_retried(h: Harness) -> None:
    h.fake.fail_next("POST /channels/*/messages", status=429, retry_after=0.05)
    await h.slash(h.users[0], "t post")
    assert h.last_message().content == "count=0"
    posts = [c for c in h.fake.calls if c.route == "POST /channels/{channel_id}/messages"]
    assert [c.status for c in posts] == [429, 200]
    assert posts[0].global_limit


async def test_5xx_is_retried(h: Harness) -> None:
    h.fake.fail_next("POST /channels/*/messages", status=502)
    await h.slash(h.users[0], "t post", timeout=4)
    assert h.last_message().content == "count=0"
    posts = [c.status for c in h.fake.calls if c.route == "POST /channels/{channel_id}/messages"]
    assert posts == [502, 200]


async def test_gateway_drop_resumes_and_replays(h: Harness) -> None:
    seen: list[str] = []

    async def on_message(message: dpy.Message) -> None:
        seen.append(message.content)

    h.bot.add_listener(on_message)
    await h.fake.drop_gateway()
    await h.fake.user_message(h.users[0], h.channel, "while you were away")
    await h.until(lambda: "while you were away" in seen, "the message sent while the gateway was down")
    assert any(e.startswith("resume") and "replayed=" in e and not e.endswith("=0") for e in h.fake.gateway_log)
    reply = await h.slash(h.users[0], "pan help")  # still works after the resume
    assert reply.ephemeral


async def test_payload_over_limits_is_rejected_and_recorded(h: Harness) -> None:
    channel = h.bot.get_channel(h.channel.id)
    with pytest.raises(dpy.HTTPException) as raised:
        await channel.send("x" * 2001)
    assert raised.value.status == 400 and raised.value.code == 50035
    assert h.fake.violations == ["POST /channels/{channel_id}/messages: content has 2001 chars > 2000"]
    with pytest.raises(AssertionError, match="content has 2001 chars"):
        h.check()
    assert h.forgive()  # clear it so this test's teardown passes


async def test_missing_permissions_50013(h: Harness) -> None:
    h.fake.deny(h.channel)
    channel = h.bot.get_channel(h.channel.id)
    with pytest.raises(dpy.Forbidden) as raised:
        await channel.send("hi")
    assert raised.value.code == 50013


async def test_broken_handler_fails_fast(h: Harness) -> None:
    with pytest.raises(InteractionFailed, match=r"(?s)logged an error.*deliberately broken handler") as failed:
        await h.slash(h.users[0], "t broken", timeout=3)
    assert "never answered" not in str(failed.value)  # the ERROR log ended the wait, not the timeout
    with pytest.raises(AssertionError, match="error log"):
        h.check()
    h.forgive()


async def test_restart_keeps_db_and_reconnects(h: Harness) -> None:
    old_bot = h.bot
    await h.restart()
    assert h.bot is not old_bot and h.bot.is_ready()
    assert h.bot.db_path == old_bot.db_path
    assert sum(e.startswith("identify") for e in h.fake.gateway_log) == 2
    assert (await h.slash(h.users[0], "pan help")).ephemeral


async def test_channel_and_message_deletion_reach_the_bot(h: Harness) -> None:
    await h.slash(h.users[0], "t post")
    table = h.last_message()
    await h.fake.delete_message(table)
    await h.fake.delete_channel(h.channel_named("pan-2"))
    await h.idle()
    assert h.bot.get_channel(h.channel_named("general").id) is not None
    assert all(c.name != "pan-2" for c in h.bot.get_guild(h.guild.id).text_channels)
    assert h.messages() == []


async def test_unimplemented_route_is_a_problem(h: Harness) -> None:
    with pytest.raises(dpy.NotFound):
        await h.bot.http.request(dpy.http.Route("GET", "/channels/{channel_id}/webhooks", channel_id=h.channel.id))
    assert h.fake.unhandled == [f"GET /channels/{h.channel.id}/webhooks"]
    assert any("route not implemented" in p for p in h.forgive())


async def test_every_call_is_recorded_with_timing(h: Harness) -> None:
    reply = await h.slash(h.users[0], "t post")
    callback, post = (c for c in h.fake.calls if c.interaction_id == reply.interaction.id or c.method == "POST")
    assert callback.route == "POST /interactions/{interaction_id}/{token}/callback"
    assert not callback.global_limit and callback.ephemeral
    # ``at``: when the request reached the machine, which the kernel tells to its tick (4 ms), so it may seem to
    # precede the dispatch by up to a tick; when the fake read it (``at + read_lag``) cannot
    assert callback.read_lag >= 0 and callback.at + callback.read_lag >= reply.interaction.dispatched_at
    assert post.route == "POST /channels/{channel_id}/messages" and post.global_limit
    assert post.channel_id == h.channel.id and post.content == "count=0" and not post.ephemeral
    assert [b["custom_id"] for b in h.last_message().buttons] == ["t:add", "t:slow"]


async def test_the_discord_fixture_runs_the_plain_pan_bot(discord: Harness) -> None:
    reply = await discord.slash(discord.users[0], "pan help")
    assert reply.ephemeral and "/pan open" in reply.content
    assert "t" not in {c["name"] for c in discord.fake.guild_commands[discord.guild.id]}


async def test_click_on_a_dm_message(h: Harness) -> None:
    user = h.users[0]
    member = h.bot.get_guild(h.guild.id).get_member(user.id) or await h.bot.fetch_user(user.id)
    await member.send("count=0", view=CounterView())
    [dm] = h.dms(user)
    reply = await h.click(user, dm, "Add")
    assert reply.type == 7 and dm.content == "count=1"
