"""Each player's DM channel is opened once per process (pancog/adapter/dm_channels.py), on the real client against
the fake Discord: discord.py keeps 128 DM channels, and a bot DMing more people than that opened a channel again
for every DM — a second request counted against the global rate limit."""

from __future__ import annotations

import io

import discord
from PIL import Image

from pancog.adapter import edge
from pancog.adapter.dm_channels import DmChannels, dm_channels
from tests.e2e.conftest import Pan
from tests.e2e.scenarios import TWO_SHOE

OPEN = "POST /users/@me/channels"


def _opens(pan: Pan) -> int:
    return sum(1 for c in pan.h.fake.calls if c.route == OPEN)


async def test_more_people_than_discord_py_keeps_get_dms_through_one_open_each(pan: Pan) -> None:
    bot = pan.h.bot
    people = [pan.h.fake.add_user(f"player{i}") for i in range(140)]  # discord.py keeps 128 DM channels
    before = _opens(pan)
    for round_no in (1, 2):
        for person in people:
            message = await edge.dm(bot, person.id, f"round {round_no}", about=edge.STATIC)
            assert message is not None
    assert _opens(pan) - before == len(people)  # one each, not one per DM (discord.py alone: 280)
    for person in people:
        assert [m.text for m in pan.h.dms(person)] == ["round 1", "round 2"]
    assert len(bot._connection._private_channels) <= 128  # discord.py's own cache did not grow to hold them


async def test_hand_dms_open_each_players_channel_once(pan: Pan) -> None:
    a, b = await pan.seat(2)
    before = _opens(pan)
    for _hand in range(2):
        pan.stack(TWO_SHOE, first_seat=0)
        await pan.slash(a, "pan start")
        await pan.slash(a, "sluff")
        await pan.slash(b, "sluff")
    assert _opens(pan) - before <= 2  # the deals of two hands: at most one open per player
    assert len(pan.h.dms(a)) >= 2 and len(pan.h.dms(b)) >= 2
    channels = dm_channels(pan.h.bot)  # the hand DMs went through the cache
    assert channels.known(a.id) and channels.known(b.id)


async def test_a_channel_discord_no_longer_knows_is_opened_again_and_the_image_arrives_whole(pan: Pan) -> None:
    bot = pan.h.bot
    person = pan.h.fake.add_user("wanderer")
    await edge.dm(bot, person.id, "first", about=edge.STATIC)
    old = pan.h.fake.dm_channel(person)
    assert old is not None and dm_channels(bot).known(person.id)
    del pan.h.fake.channels[old.id]  # Discord forgot it: a send there is 404 Unknown Channel
    png = io.BytesIO()
    Image.new("RGB", (40, 30), (10, 120, 40)).save(png, format="PNG")
    before = _opens(pan)
    file = discord.File(io.BytesIO(png.getvalue()), filename="hand.png")
    message = await edge.dm(bot, person.id, "second", about=edge.STATIC, file=file)
    assert message is not None
    assert _opens(pan) - before == 1  # opened again, once
    new = pan.h.fake.dm_channel(person)
    assert new is not None and new.id != old.id
    (sent,) = pan.h.dms(person)
    assert sent.text == "second" and sent.pngs == [png.getvalue()]  # the retry carried the whole image
    pan.h.fake.channels[old.id] = old  # back, for the teardown's check of public posts (a DM is private)


def test_the_cache_keeps_the_most_recently_used() -> None:
    channels = DmChannels(limit=3)
    for user in (1, 2, 3):
        channels.remember(user, 100 + user)
    assert channels.get(1) == 101  # used again: now the newest
    channels.remember(4, 104)  # over the limit: the least recently used (2) goes
    assert [u for u in (1, 2, 3, 4) if channels.known(u)] == [1, 3, 4]
    assert len(channels) == 3 and not channels.known(2)
