"""Issue #14.5: the server-admin commands are a top-level ``/panadmin`` group hidden from members by
``default_member_permissions`` (Manage Server), with the runtime check kept; ``/panadmin channels``; the play
verbs say they are Pan's and are guild-only."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import Pan, private_to
from tests.fakediscord import server as fake_server


def synced(pan: Pan) -> dict[str, dict[str, Any]]:
    fake = pan.h.fake
    return {c["name"]: c for c in [*fake.global_commands, *fake.guild_commands.get(pan.h.guild.id, [])]}


async def test_admin_commands_are_a_hidden_top_level_group(pan: Pan) -> None:
    commands = synced(pan)
    admin = commands["panadmin"]
    assert str(admin["default_member_permissions"]) == "32"  # Manage Server: Discord hides it from other members
    assert admin.get("contexts") == [0] or admin.get("dm_permission") is False  # guild only
    assert {o["name"] for o in admin["options"]} >= {"config", "grant", "status", "audit", "channels"}
    pan_names = {o["name"] for o in commands["pan"]["options"]}
    assert not pan_names & {"grant", "config", "status", "audit"}  # no longer under /pan (where it did nothing)
    for verb in ("knock", "sluff", "draw", "take", "meld", "add", "borrow", "discard", "force", "foul", "hand"):
        assert commands[verb]["description"].startswith("Pan card game"), verb
        assert commands[verb].get("contexts") == [0] or commands[verb].get("dm_permission") is False


async def test_the_runtime_check_stays(pan: Pan, monkeypatch: pytest.MonkeyPatch) -> None:
    member = pan.users[0]  # an admin may have given the command to everyone: the bot still refuses
    monkeypatch.setattr(fake_server, "ALL_PERMISSIONS", "0")  # the fake gives every member every permission
    for command, options in (
        ("panadmin grant", {"user": pan.users[1], "amount": 5, "reason": "x"}),
        ("panadmin status", {}),
        ("panadmin audit", {}),
        ("panadmin channels", {"action": "list"}),
    ):
        reply = await pan.slash(member, command, **options)
        assert private_to(reply, member) and ("Manage Server" in reply.text or "moderators" in reply.text), command


async def test_channels_restrict_where_pan_is_played(pan: Pan) -> None:
    mod, player = pan.h.moderator, pan.users[0]
    general, pan1 = pan.h.channel, pan.h.channel_named("pan-1")
    await pan.slash(player, "pan open", channel=general)  # a table already open keeps working
    reply = await pan.slash(mod, "panadmin channels", action="add", where=pan1)
    assert private_to(reply, mod) and f"<#{pan1.id}>" in reply.text
    reply = await pan.slash(player, "pan open", channel=pan.h.channel_named("pan-2"))
    assert private_to(reply, player) and "isn't played in this channel" in reply.text and f"<#{pan1.id}>" in reply.text
    assert pan.rt.tables.find_in_channel(pan.h.channel_named("pan-2").id) is None  # nothing changed
    assert "sat down" in (await pan.slash(pan.users[1], "pan join", channel=general)).text
    reply = await pan.slash(pan.users[1], "pan open", channel=pan1)
    assert not reply.ephemeral and pan.rt.tables.find_in_channel(pan1.id) is not None
    reply = await pan.slash(mod, "panadmin channels", action="clear")
    assert "every channel" in reply.text
    reply = await pan.slash(mod, "panadmin channels", action="add")
    assert private_to(reply, mod) and "Pick the channel" in reply.text


async def test_the_four_colour_board_is_a_server_setting(pan: Pan, monkeypatch: pytest.MonkeyPatch) -> None:
    """#14.9: /panadmin config four_colour turns on the four-colour deck for the public board (and outcome)."""
    from pancog.adapter import board as board_module

    a, _b = await pan.seat(2)
    board = pan.board()
    drawn: list[bool] = []
    real = board_module.table_snapshot

    def spy(*args: Any, **kwargs: Any) -> Any:
        drawn.append(bool(kwargs.get("four_color")))
        return real(*args, **kwargs)

    monkeypatch.setattr(board_module, "table_snapshot", spy)
    reply = await pan.slash(pan.h.moderator, "panadmin config", four_colour=True)
    assert private_to(reply, pan.h.moderator) and "Four-colour board: on." in reply.text
    assert pan.rt.display.cached(pan.h.guild.id).four_color
    await pan.settle()
    assert drawn and drawn[-1] is True and pan.board().id == board.id  # the board was redrawn four-colour
    # durable: a fresh settings service reads it back from the database
    from pancog.services.prefs import GuildDisplaySettings, GuildPrefsKV, StoragePrefsStore

    fresh = GuildDisplaySettings(GuildPrefsKV(StoragePrefsStore(pan.rt.storage)))
    assert (await fresh.get(pan.h.guild.id)).four_color
    await pan.slash(pan.h.moderator, "panadmin channels", action="add", where=pan.h.channel)
    assert (await fresh.get(pan.h.guild.id)).four_color  # the channels list shares the server's document
    reply = await pan.slash(pan.h.moderator, "panadmin config")
    assert "Four-colour board: on." in reply.text and a is not None
