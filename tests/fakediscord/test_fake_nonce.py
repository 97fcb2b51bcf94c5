"""Message nonces and held requests: the fake answers a repeated nonce sent with ``enforce_nonce`` (discord.py sends
it whenever ``nonce=`` is passed) with the earlier message, as Discord does for a few minutes, and lets a test hold
a request before or after its route runs (to kill a bot at an exact point)."""

from __future__ import annotations

import asyncio
from typing import Any

import discord as dpy
import pytest

from tests.fakediscord.harness import Harness


@pytest.fixture
async def h(harness_factory: Any) -> Harness:
    return await harness_factory()


def posts(h: Harness) -> list[Any]:
    return [c for c in h.fake.calls if c.route == "POST /channels/{channel_id}/messages"]


async def test_a_repeated_nonce_returns_the_earlier_message_and_creates_nothing(h: Harness) -> None:
    channel = h.bot.get_channel(h.channel.id)
    first = await channel.send("Results", nonce="k1")
    again = await channel.send("Results", nonce="k1")
    assert again.id == first.id and again.nonce == "k1"
    assert [m.content for m in h.messages()] == ["Results"]
    assert [c.deduplicated for c in posts(h)] == [False, True]
    assert posts(h)[0].payload["enforce_nonce"] is True  # what discord.py sends with nonce=
    other = await channel.send("Results", nonce="k2")  # another nonce: another message
    assert other.id != first.id
    elsewhere = await h.bot.get_channel(h.channel_named("pan-1").id).send("Results", nonce="k1")
    assert elsewhere.id != first.id  # per channel
    h.fake.nonce_window = 0.0  # "a few minutes" later: a new message
    later = await channel.send("Results", nonce="k1")
    assert later.id not in (first.id, other.id)
    assert len(h.messages()) == 3


async def test_a_nonce_longer_than_25_characters_is_refused(h: Harness) -> None:
    channel = h.bot.get_channel(h.channel.id)
    with pytest.raises(dpy.HTTPException) as refused:
        await channel.send("x", nonce="n" * 26)
    assert (refused.value.status, refused.value.code) == (400, 50035)
    assert h.forgive()
    assert h.messages() == []


async def test_a_held_request_waits_and_a_dropped_one_never_runs(h: Harness) -> None:
    channel = h.bot.get_channel(h.channel.id)
    hold = h.fake.hold_next("POST /channels/*/messages")
    sending = asyncio.ensure_future(channel.send("held"))
    await asyncio.wait_for(hold.arrived.wait(), 5)
    assert h.messages() == []  # held before its route: nothing created yet
    hold.release()
    message = await sending
    assert [m.id for m in h.messages()] == [message.id]
    after = h.fake.hold_next("POST /channels/*/messages", after=True)
    sending = asyncio.ensure_future(channel.send("acted"))
    await asyncio.wait_for(after.arrived.wait(), 5)
    assert [m.content for m in h.messages()] == ["held", "acted"]  # the route ran; the answer is held
    after.release()
    await sending
    dropped = h.fake.hold_next("POST /channels/*/messages")
    sending = asyncio.ensure_future(channel.send("lost"))
    await asyncio.wait_for(dropped.arrived.wait(), 5)
    dropped.release(drop=True)
    await asyncio.sleep(0)
    while dropped.calls[0].status == 0:
        await asyncio.sleep(0.01)
    assert dropped.calls[0].status == 500 and len(h.messages()) == 2  # answered 500 without running the route
    retried = await sending  # discord.py retries a 500; the hold is used up, so the retry posts, once
    assert [m.id for m in h.messages()][-1] == retried.id and len(h.messages()) == 3
