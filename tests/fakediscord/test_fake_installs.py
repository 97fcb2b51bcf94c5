"""User installs, interaction contexts and locales: the slash helper shows a command only where Discord would
(its ``contexts`` and ``integration_types``), a guild without the bot refuses channel messages (403 / 50001) and
caps followups at 5, and interactions carry the user's ``locale`` and the guild's ``guild_locale``."""

from __future__ import annotations

from typing import Any

import discord as dpy
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord.harness import Harness


def describe(interaction: dpy.Interaction) -> str:
    owners = {k: str(v) for k, v in sorted(interaction._integration_owners.items())}
    guild_locale = interaction.guild_locale.value if interaction.guild_locale else None
    return (
        f"guild={interaction.context.guild} dm={interaction.context.dm_channel} "
        f"private={interaction.context.private_channel} owners={owners} user_install="
        f"{interaction.is_user_integration()} locale={interaction.locale.value} guild_locale={guild_locale}"
    )


@app_commands.command(name="where", description="Say where and how the command was used")
@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
async def where(interaction: dpy.Interaction) -> None:
    await interaction.response.send_message(describe(interaction), ephemeral=True)


@app_commands.command(name="shout", description="Answer, then post in the channel and send followups")
@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
async def shout(interaction: dpy.Interaction, followups: int) -> None:
    await interaction.response.send_message("answered", ephemeral=True)
    try:
        await interaction.channel.send("posted in the channel")  # type: ignore[union-attr]
        posted = "posted"
    except dpy.HTTPException as exc:
        posted = f"channel refused {exc.status}/{exc.code}"
    sent, refusal = 0, "none"
    for i in range(followups):
        try:
            await interaction.followup.send(f"followup {i + 1}", ephemeral=True)
            sent += 1
        except dpy.HTTPException as exc:
            refusal = f"{exc.status}/{exc.code}"
            break
    await interaction.edit_original_response(content=f"{posted}; followups sent {sent}; refused {refusal}")


@app_commands.command(name="mine", description="Only for people who installed the app themselves")
@app_commands.allowed_installs(guilds=False, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
async def mine(interaction: dpy.Interaction) -> None:
    await interaction.response.send_message(describe(interaction), ephemeral=True)


@app_commands.command(name="servers", description="Guild-only")
@app_commands.guild_only()
async def servers(interaction: dpy.Interaction) -> None:
    await interaction.response.send_message("in a server", ephemeral=True)


async def add_commands(bot: commands.Bot) -> None:
    for command in (where, shout, mine, servers):
        bot.tree.add_command(command)


@pytest.fixture
async def h(harness_factory: Any) -> Harness:
    harness = await harness_factory(setup=add_commands)
    await harness.bot.tree.sync()  # user installs need global commands (test mode synced guild copies)
    return harness


async def test_command_sync_keeps_integration_types_and_contexts(h: Harness) -> None:
    synced = {c["name"]: c for c in h.fake.global_commands}
    assert (synced["where"]["integration_types"], synced["where"]["contexts"]) == ([0, 1], [0, 1, 2])
    assert (synced["mine"]["integration_types"], synced["mine"]["contexts"]) == ([1], [0, 1, 2])
    assert synced["servers"]["contexts"] == [0] and synced["servers"]["integration_types"] is None


async def test_in_a_guild_without_the_bot_the_app_answers_only_through_the_interaction(h: Harness) -> None:
    elsewhere = h.guild_without_bot()
    channel = elsewhere.channels[0]
    user = h.users[0]
    reply = await h.slash(user, "where", channel=channel)
    assert reply.content == (
        f"guild=True dm=False private=False owners={{1: '{user.id}'}} user_install=True locale=en-US guild_locale=en-US"
    )
    assert h.bot.get_guild(elsewhere.id) is None  # the bot never got the guild
    shout_reply = await h.slash(user, "shout", channel=channel, followups=6)
    assert shout_reply.content == "channel refused 403/50001; followups sent 5; refused 400/40094"
    assert h.messages(channel) == []
    # the guild's install does not reach it, and a command for guilds only through that install is not there
    with pytest.raises(AssertionError, match="Discord would not show /where in a guild through the guild install"):
        await h.slash(user, "where", channel=channel, install="guild")
    with pytest.raises(AssertionError, match=r"its integration_types are \[0\]"):
        await h.slash(user, "servers", channel=channel)


async def test_in_the_bots_guild_through_the_guild_install_there_is_no_followup_cap(h: Harness) -> None:
    reply = await h.slash(h.users[0], "shout", followups=6)
    assert reply.content == "posted; followups sent 6; refused none"
    # the user's own install of a command that has one works in the bot's guild too, and is capped there
    user_reply = await h.slash(h.users[0], "where", install="user")
    assert f"owners={{1: '{h.users[0].id}'}} user_install=True" in user_reply.content
    # a global command needs an installation its integration_types name (in the bot's guild the guild copy that
    # test mode syncs would show instead: guild commands come with the guild install, whatever their types)
    with pytest.raises(
        AssertionError, match=r"the bot's DM through the guild install: its integration_types are \[1\]"
    ):
        await h.slash(h.users[0], "mine", channel=h.bot_dm(h.users[0]), install="guild")


async def test_in_the_bots_dm_and_in_a_private_channel(h: Harness) -> None:
    user = h.users[1]
    dm = await h.slash(user, "where", channel=h.bot_dm(user))
    assert dm.content.startswith("guild=False dm=True private=False owners={0: '0'} user_install=False")
    own = await h.slash(user, "mine", channel=h.bot_dm(user), install="user")
    assert "dm=True" in own.content and "user_install=True" in own.content
    with pytest.raises(AssertionError, match=r"its contexts are \[0\]"):
        await h.slash(user, "servers", channel=h.bot_dm(user))
    group = h.private_channel(user, h.users[2], h.users[3])
    private = await h.slash(user, "where", channel=group)
    assert private.content.startswith(f"guild=False dm=False private=True owners={{1: '{user.id}'}}")
    shouted = await h.slash(user, "shout", channel=group, followups=6)
    assert shouted.content == "channel refused 403/50001; followups sent 5; refused 400/40094"
    with pytest.raises(AssertionError, match="not installed there"):
        await h.slash(user, "where", channel=group, install="guild")
    pair = h.private_channel(user, h.users[2], group=False)
    assert "private=True" in (await h.slash(user, "where", channel=pair)).content


async def test_interactions_carry_the_users_locale_and_the_guilds(h: Harness) -> None:
    ana = h.users[0]
    h.set_locale(ana, "es-ES")
    h.set_locale(ana, "es-419", guild=h.guild)  # the server's preferred locale
    reply = await h.slash(ana, "where", install="user")
    assert "locale=es-ES guild_locale=es-419" in reply.content
    assert "locale=en-US guild_locale=es-419" in (await h.slash(h.users[1], "where", install="user")).content
    with pytest.raises(AssertionError, match="not a Discord locale"):
        h.set_locale(ana, "tl")  # Tagalog has no Discord client locale


async def test_a_click_on_a_message_keeps_the_installation_it_came_from(h: Harness) -> None:
    elsewhere = h.guild_without_bot()

    class Again(dpy.ui.View):
        @dpy.ui.button(label="Again", custom_id="again")
        async def again(self, interaction: dpy.Interaction, button: dpy.ui.Button[Again]) -> None:
            await interaction.response.send_message(describe(interaction), ephemeral=True)

    @app_commands.command(name="offer", description="Offer a button")
    @app_commands.allowed_installs(guilds=True, users=True)
    async def offer(interaction: dpy.Interaction) -> None:
        await interaction.response.send_message("click", view=Again(), ephemeral=True)

    h.bot.tree.add_command(offer)
    await h.bot.tree.sync()
    offered = await h.slash(h.users[0], "offer", channel=elsewhere.channels[0])
    assert offered.message is not None
    clicked = await h.click(h.users[0], offered.message, "Again")
    assert f"owners={{1: '{h.users[0].id}'}} user_install=True" in clicked.content


class Spanish(app_commands.Translator):
    """Command names and descriptions in Spanish (``names``: what the name of /where becomes)."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def translate(
        self, string: app_commands.locale_str, locale: dpy.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        if locale is not dpy.Locale.spain_spanish:
            return None
        return {"where": self.name, "Say where and how the command was used": "Dice dónde"}.get(string.message)


async def test_localized_command_names_are_held_to_discords_rules(h: Harness) -> None:
    await h.bot.tree.set_translator(Spanish("dónde"))
    await h.bot.tree.sync()
    where_command = next(c for c in h.fake.global_commands if c["name"] == "where")
    assert where_command["name_localizations"] == {"es-ES": "dónde"}
    assert where_command["description_localizations"] == {"es-ES": "Dice dónde"}
    await h.bot.tree.set_translator(Spanish("Dónde está"))  # discord.py does not check translations: Discord does
    with pytest.raises(dpy.HTTPException) as refused:
        await h.bot.tree.sync()
    assert refused.value.code == 50035
    assert any("name_localizations['es-ES'] 'Dónde está'" in p for p in h.forgive())


def test_command_sync_limits() -> None:
    from tests.fakediscord.limits import check_commands

    good = {"name": "pan", "description": "Play", "options": [{"type": 3, "name": "word", "description": "w"}]}
    assert check_commands([good]) == []
    assert any("lower-case" in p for p in check_commands([good | {"name": "Pan"}]))
    assert any("lower-case" in p for p in check_commands([good | {"name": "x" * 33}]))
    assert any("description must be 1..100" in p for p in check_commands([good | {"description": ""}]))
    assert any("'tl', not a Discord locale" in p for p in check_commands([good | {"name_localizations": {"tl": "x"}}]))
    optional = {"type": 3, "name": "a", "description": "a"}
    required_late = [optional, {"type": 3, "name": "b", "description": "b", "required": True}]
    assert any("required after an optional" in p for p in check_commands([good | {"options": required_late}]))
    many = [{"type": 3, "name": f"o{i}", "description": "d"} for i in range(26)]
    assert any("26 options > 25" in p for p in check_commands([good | {"options": many}]))
    choices = [{"name": f"c{i}", "value": f"v{i}"} for i in range(26)]
    option = {"type": 3, "name": "pick", "description": "d", "choices": choices}
    assert any("26 choices > 25" in p for p in check_commands([good | {"options": [option]}]))
    # 8,000 characters: the longest localization of each field counts
    long = {"description": "d" * 100, "description_localizations": {"es-ES": "e" * 100}}
    fat = [{"type": 3, "name": f"o{i}", **long} for i in range(25)]
    sub = [{"type": 1, "name": f"s{k}", "description": "d" * 100, "options": fat} for k in range(4)]
    assert any("chars > 8000" in p for p in check_commands([good | {"options": sub}]))
    assert check_commands([{"type": 2, "name": "View Hand", "description": ""}]) == []  # a user command
