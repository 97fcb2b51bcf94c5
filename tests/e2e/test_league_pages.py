"""The league's rating chart, match history and head-to-head, and the league web page's address, through the fake
Discord: private answers, a chart with its figures as alt text, refusals that change nothing, a revocable address,
and the replay's Share recorded for the web."""

from __future__ import annotations

import re

import pytest

from pancog.services.web_access import TOKEN_PATTERN
from tests.e2e.conftest import Pan, private_to
from tests.e2e.test_replays import message
from tests.e2e.test_table_commands import play_two
from tests.fakediscord import server as fake_server

ADDRESS = re.compile(r"(http://pan\.test/g/([A-Za-z0-9_-]+)/)")


async def test_rating_chart_history_and_versus(pan: Pan) -> None:
    a, b = await pan.seat(2)
    stranger = pan.users[3]
    await play_two(pan)  # a goes out: one rated hand each
    reply = await pan.slash(b, "pan rating", player=a)
    assert private_to(reply, b)
    attachment = reply.all_messages[-1].attachments[0]
    assert attachment.filename == "rating.png" and attachment.data.startswith(b"\x89PNG")
    assert "All time: " in attachment.description and "after 1 rated result" in attachment.description
    assert "Last 1 rated result of player1" in reply.text and "went out, +" in reply.text
    assert re.search(r"rating \+\d+\.\d to \d+\.\d", reply.text)
    mine = await pan.slash(b, "pan rating")
    assert "lost, -" in mine.text and "rating -0.0" not in mine.text
    reply = await pan.slash(a, "pan versus", member=b)
    assert private_to(reply, a)
    assert "Hands together: 1" in reply.text and "Wins: player1 1, player2 0" in reply.text
    reply = await pan.slash(a, "pan versus", member=stranger)
    assert "have not played a league hand together" in reply.text
    reply = await pan.slash(a, "pan versus", member=a)
    assert private_to(reply, a) and "another player" in reply.text


async def test_panadmin_web_on_rotate_off(pan: Pan, monkeypatch: pytest.MonkeyPatch) -> None:
    web, mod, guild = pan.rt.web, pan.h.moderator, pan.h.guild.id
    assert web is not None
    reply = await pan.slash(mod, "panadmin web", action="on")  # pan-web is not running on this bot
    assert private_to(reply, mod) and "not running" in reply.text and await web.token_of(guild) is None
    pan.rt.web_address = "http://pan.test"
    with monkeypatch.context() as m:  # the fake gives every member every permission; take Manage Server away
        m.setattr(fake_server, "ALL_PERMISSIONS", "0")
        reply = await pan.slash(pan.users[0], "panadmin web", action="on")
        assert private_to(reply, pan.users[0]) and "Manage Server" in reply.text
    assert await web.token_of(guild) is None
    reply = await pan.slash(mod, "panadmin web", action="on")
    found = ADDRESS.search(reply.text)
    assert private_to(reply, mod) and found is not None and TOKEN_PATTERN.match(found.group(2))
    first = found.group(2)
    assert await web.guild_of(first) == guild
    again = ADDRESS.search((await pan.slash(mod, "panadmin web", action="on")).text)
    assert again is not None and again.group(2) == first  # on twice: the same address
    rotated = ADDRESS.search((await pan.slash(mod, "panadmin web", action="rotate")).text)
    assert rotated is not None and rotated.group(2) != first
    assert await web.guild_of(first) is None and await web.guild_of(rotated.group(2)) == guild
    reply = await pan.slash(mod, "panadmin web", action="off")
    assert "off" in reply.text and await web.guild_of(rotated.group(2)) is None


async def test_a_players_share_is_recorded_for_the_web_and_a_strangers_is_not(pan: Pan) -> None:
    web = pan.rt.web
    assert web is not None
    a, _ = await pan.seat(2)
    stranger = pan.users[3]
    await play_two(pan)
    table = pan.session().table_id
    reply = await pan.slash(stranger, "pan replay", hand=1)
    await pan.click(stranger, message(pan, reply.all_messages[-1]), "Share")
    assert await web.shared_hand(pan.h.guild.id, table, 1) is None  # not his hand
    reply = await pan.slash(a, "pan replay", hand=1)
    await pan.click(a, message(pan, reply.all_messages[-1]), "Share")
    shared = await web.shared_hand(pan.h.guild.id, table, 1)
    assert shared is not None and shared.user_id == a.id
