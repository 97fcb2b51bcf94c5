"""Every public message the bot posts is Components V2, checked on what the fake recorded: a session of a league
table (a hand, a shared hand, a shared replay, the season's end closing the table), a table closed by its host and
a sit-and-go tournament to its results. Only a turn ping stays classic content (the allowlist,
``tests/e2e/public_posts.py``; docs/architecture.md "Public messages are Components V2"). Every Pan e2e test checks
the same at teardown; this one also checks that the session posted each kind, and that the check catches a classic
post."""

from __future__ import annotations

import asyncio

import pytest

from pancog.adapter import edge
from pancog.adapter.pings import mention_only
from pancog.adapter.presenters.table import turn_ping
from tests.e2e.conftest import Pan
from tests.e2e.public_posts import classic_posts, ping_line
from tests.e2e.scenarios import TWO_SHOE
from tests.e2e.test_table_commands import play_two
from tests.e2e.test_tourney import public
from tests.e2e.test_tourney_floor import play_sit_and_go
from tests.fakediscord.models import FakeMessage


def posted(pan: Pan) -> list[FakeMessage]:
    """Every message the bot posted where more than one person sees it (DMs with the bot left out)."""
    fake = pan.h.fake
    return [
        m
        for m in fake.messages.values()
        if m.author_id == fake.bot_user.id
        and m.posted_flags is not None
        and (fake.channels[m.channel_id].recipient_id is None)
    ]


def one_v2(messages: list[FakeMessage], words: str) -> FakeMessage:
    found = [m for m in messages if words in m.text]
    assert found, f"nothing public says {words!r}"
    assert all(m.posted_v2 and not m.content and not m.embeds for m in found), [m.text[:80] for m in found]
    return found[-1]


async def test_a_league_table_posts_only_v2_or_turn_pings(pan: Pan) -> None:
    a, b, watcher = pan.users[:3]
    mod = pan.h.moderator
    await pan.slash(mod, "panadmin season start", name="Winter", mode="bank", starting_chips=800)
    await pan.slash(a, "pan open")
    await pan.slash(b, "pan join")
    await pan.slash(mod, "panadmin config", ping_after=0.0)  # turn pings at once (the allowlisted kind)
    await play_two(pan)
    reply = await pan.slash(a, "pan replay", hand=1)
    await pan.click(a, reply.all_messages[-1], "Share")
    await pan.slash(mod, "panadmin season end")  # the season's table closes: its channel is told
    await pan.slash(a, "pan open")
    await pan.slash(a, "pan close")
    await pan.slash(a, "pan open")
    await pan.slash(b, "pan join")
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    await pan.slash(a, "pan settings", share_hand=watcher)
    await pan.slash(a, "pan settings", stop_sharing=True)
    ask = await pan.slash(a, "pan close")  # mid-hand: confirmed privately, then told publicly
    assert ask.message is not None
    await pan.click(a, ask.message, "Close the table")

    everything = posted(pan)
    assert classic_posts(pan.h.fake) == []
    board = one_v2(everything, "Hand 1 is over")  # the hand's result
    assert board.seen().images
    one_v2(everything, "lets")  # a hand shared with a member, with the watcher's button
    one_v2(everything, "no longer shares their cards")
    shared = next(m for m in everything if any(name.endswith(".gif") for name, _ in m.files))
    assert shared.posted_v2 and [i.name for i in shared.seen().images] == [shared.files[0][0]]
    assert shared.seen().images[0].description  # the animation's text twin, read with images off
    one_v2(everything, "The season has ended")
    assert len([m for m in everything if "Table closed." in m.text and m.posted_v2]) == 2  # /pan close, both ways
    classic = [m for m in everything if not m.posted_v2]
    assert classic and all(ping_line(m) for m in classic)  # turn pings, each one line naming its one member


@pytest.fixture
def quick_tourney(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tournament tests' clocks (tests/e2e/test_tourney.py): computers act at once, a human's turn times out
    fast, the tournament clock ticks ten times a second."""
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    monkeypatch.setenv("PAN_CLOCK_SCALE", "300")
    monkeypatch.setenv("PAN_TIME_BANK_SECONDS", "0")
    monkeypatch.setenv("PAN_TOURNEY_TICK", "0.1")
    monkeypatch.setenv("PAN_DEAL_SEED", "15")


async def test_a_tournament_posts_only_v2(quick_tourney: None, pan: Pan) -> None:
    """A sit-and-go to its end: its announcement, the table's start, each knock-out and the results (with the
    standings image) are V2 messages; the mentions they carry are the only ones ``allowed_mentions`` lets notify."""
    await play_sit_and_go(pan)
    await asyncio.sleep(0.5)
    await pan.settle()

    everything = posted(pan)
    assert classic_posts(pan.h.fake) == []
    one_v2(everything, "Entries:")  # the lobby
    started = one_v2(everything, "starts:")  # the tournament table's players, pinged in its thread
    assert started.allowed_mentions is not None and len(started.allowed_mentions["users"]) == 3
    knocked = one_v2(everything, " is out of ")
    assert knocked.allowed_mentions is not None and knocked.allowed_mentions.get("parse") == []
    assert [f"<@{u}>" in knocked.text for u in knocked.allowed_mentions["users"]] == [True]
    results = one_v2(public(pan, pan.h.channel.id), "is over")
    assert [i.name for i in results.seen().images] == ["standings.png"]
    assert results.seen().images[0].description  # the standings' text twin


async def test_a_classic_public_post_is_caught(pan: Pan) -> None:
    """The check is not vacuous: a public post with content is listed, a one-line ping that is not a turn ping too;
    a turn ping and a DM are not."""
    a = pan.users[0]
    channel = pan.rt.bot.get_partial_messageable(pan.h.channel.id, guild_id=pan.h.guild.id)
    plain = await edge.post(pan.rt.bot, channel, "The table is closed.", about=edge.STATIC)
    ping = await edge.post(
        pan.rt.bot,
        channel,
        turn_ping(a.id, "player2 drew.", declaring=False),
        about=edge.STATIC,
        allowed_mentions=mention_only(a.id),
    )
    knocked = await edge.post(  # one line pinging one member, but not a turn ping: caught
        pan.rt.bot,
        channel,
        f"<@{a.id}> is out of Tournament 1 in 3rd place.",
        about=edge.STATIC,
        allowed_mentions=mention_only(a.id),
    )
    direct = await edge.dm(pan.rt.bot, a.id, "Your turn at your Pan table.", about=edge.STATIC)
    await pan.settle()
    assert plain is not None and ping is not None and knocked is not None and direct is not None
    assert classic_posts(pan.h.fake) == [
        f"#{pan.h.channel.name} (content): 'The table is closed.'",
        f"#{pan.h.channel.name} (content): '<@{a.id}> is out of Tournament 1 in 3rd place.'",
    ]
    for message in (plain, knocked):  # the teardown check would fail the test on them
        del pan.h.fake.messages[message.id]
    assert classic_posts(pan.h.fake) == []
