"""Threads (archived and locked), Scheduled Events, and roles held by members: what the fake refuses and records,
driven by the real discord.py client (the harness's bot and plain clients with other intents)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import discord as dpy
import pytest

from tests.fakediscord.clients import plain_client
from tests.fakediscord.harness import Harness
from tests.fakediscord.server import Reopened

EXTERNAL = dpy.EntityType.external
GUILD_ONLY = dpy.PrivacyLevel.guild_only


@pytest.fixture
async def h(harness_factory: Any) -> Harness:
    return await harness_factory()


def _sent(h: Harness, event: str) -> list[dict[str, Any]]:
    """The gateway payloads of ``event`` the fake sent to the bot's live session."""
    session = h.fake._sessions[h.bot.ws.session_id]
    return [p for p in session.buffer if p["t"] == event]


# ------------------------------------------------------------------------------------------ threads
async def test_a_post_in_a_thread_the_bot_archived_reopens_it_and_is_recorded(h: Harness) -> None:
    thread = h.bot.get_channel(h.thread.id)
    assert isinstance(thread, dpy.Thread)
    await thread.edit(archived=True)
    assert h.thread.archived and h.thread.archived_by == "bot"
    late = await thread.send("Hand 2 is over")
    assert not h.thread.archived  # Discord takes the post as activity
    assert h.fake.reopened == [Reopened(h.thread.id, late.id, "bot")]
    await h.idle()
    assert not h.bot.get_channel(h.thread.id).archived  # THREAD_UPDATE reached the bot
    # archived by Discord's inactivity timer, a post reopens it too; that one is not the bot's doing
    await h.fake.archive_thread(h.thread, by="auto")
    again = await thread.send("next")
    assert h.fake.reopened[-1] == Reopened(h.thread.id, again.id, "auto")


async def test_an_archived_thread_refuses_edits_and_a_locked_one_refuses_posts(h: Harness) -> None:
    thread = h.bot.get_channel(h.thread.id)
    board = await thread.send("board v1")
    await thread.edit(archived=True, locked=True)
    with pytest.raises(dpy.HTTPException) as edit:
        await board.edit(content="board v2")
    assert (edit.value.status, edit.value.code) == (400, 50083)
    with pytest.raises(dpy.HTTPException) as post:
        await thread.send("after the end")
    assert post.value.code == 50083 and h.fake.reopened == []
    with pytest.raises(dpy.HTTPException) as join:
        await thread.add_user(dpy.Object(h.users[0].id))
    assert join.value.code == 50083
    assert [m.content for m in h.messages(h.thread)] == ["board v1"]
    await thread.edit(archived=False)  # unarchived (by a moderator's or the bot's PATCH), edits work again
    await board.edit(content="board v2")
    assert h.messages(h.thread)[0].content == "board v2"


async def test_an_interaction_answer_in_an_archived_thread_cannot_be_edited(h: Harness) -> None:
    reply = await h.slash(h.users[0], "pan help", channel=h.thread)
    assert reply.message is not None
    # an ephemeral answer is not in the thread: editing it is fine; a visible one is refused once archived
    thread = h.bot.get_channel(h.thread.id)
    await h.fake.archive_thread(h.thread)
    webhook = dpy.Webhook.partial(h.fake.application_id, reply.interaction.token, client=h.bot)
    await webhook.edit_message(reply.message.id, content="still mine")
    visible = await thread.send("visible")  # reopens it (a moderator archived it)
    assert h.fake.reopened[-1].archived_by == "moderator"
    await h.fake.archive_thread(h.thread)
    with pytest.raises(dpy.HTTPException) as refused:
        await visible.edit(content="changed")
    assert refused.value.code == 50083


async def test_creating_a_thread_checks_its_channel_message_and_name(h: Harness) -> None:
    channel = h.bot.get_channel(h.channel.id)
    with pytest.raises(dpy.NotFound) as unknown:
        await h.bot.http.start_thread_without_message(
            123456789, name="t", auto_archive_duration=1440, type=dpy.ChannelType.public_thread.value
        )
    assert unknown.value.code == 10003
    message = await channel.send("start here")
    await message.create_thread(name="table 1")
    with pytest.raises(dpy.HTTPException) as twice:
        await message.create_thread(name="table 1 again")
    assert twice.value.code == 160004
    with pytest.raises(dpy.HTTPException) as nested:
        await h.bot.http.start_thread_without_message(h.thread.id, name="inside", auto_archive_duration=60, type=11)
    assert nested.value.code == 50024
    with pytest.raises(dpy.HTTPException) as long_name:
        await channel.create_thread(name="x" * 101, type=dpy.ChannelType.public_thread)
    assert long_name.value.code == 50035
    assert any("thread name must be 1..100" in p for p in h.forgive())


# ------------------------------------------------------------------------------------------ scheduled events
def _soon(hours: float) -> dt.datetime:
    return dpy.utils.utcnow() + dt.timedelta(hours=hours)


async def test_scheduled_events_are_created_edited_read_and_deleted_with_gateway_events(h: Harness) -> None:
    guild = h.bot.get_guild(h.guild.id)
    event = await guild.create_scheduled_event(
        name="Friday Pan",
        start_time=_soon(1),
        end_time=_soon(3),
        entity_type=EXTERNAL,
        location="#pan-1",
        privacy_level=GUILD_ONLY,
        description="Weekly tournament",
    )
    stored = h.guild.scheduled_events[event.id]
    assert (stored.name, stored.location, stored.status) == ("Friday Pan", "#pan-1", 1)
    await h.until(lambda: guild.get_scheduled_event(event.id) is not None, "GUILD_SCHEDULED_EVENT_CREATE")
    renamed = await event.edit(name="Friday Pan (rebuys)")
    assert renamed.name == "Friday Pan (rebuys)" and renamed.location == "#pan-1"
    await h.until(lambda: guild.get_scheduled_event(event.id).name == renamed.name, "GUILD_SCHEDULED_EVENT_UPDATE")
    # people mark interest; the bot reads them back (and is told, GUILD_SCHEDULED_EVENT_USER_ADD)
    for user in h.users[:4]:
        await h.mark_interested(user, event.id)
    await h.mark_interested(h.users[3], event.id, interested=False)  # changed their mind
    fetched = await guild.fetch_scheduled_event(event.id, with_counts=True)
    assert fetched.user_count == 3
    assert sorted([u.id async for u in fetched.users()]) == sorted(u.id for u in h.users[:3])
    oldest = [u.id async for u in fetched.users(limit=2, after=dpy.Object(id=0))]
    assert oldest == sorted(u.id for u in h.users[:3])[:2]
    assert [u.id async for u in fetched.users(limit=2)] == sorted(u.id for u in h.users[:3])[:0:-1]
    added = [p["d"]["user_id"] for p in _sent(h, "GUILD_SCHEDULED_EVENT_USER_ADD")]
    assert added == [str(u.id) for u in h.users[:4]]
    assert [p["d"]["user_id"] for p in _sent(h, "GUILD_SCHEDULED_EVENT_USER_REMOVE")] == [
        str(h.users[3].id)
    ]  # discord.py keeps them only for users it has cached
    started = await renamed.start()
    ended = await started.end()
    assert ended.status is dpy.EventStatus.ended
    await ended.delete()
    assert h.guild.scheduled_events == {}
    await h.until(lambda: guild.get_scheduled_event(event.id) is None, "GUILD_SCHEDULED_EVENT_DELETE")
    with pytest.raises(dpy.NotFound) as gone:
        await guild.fetch_scheduled_event(event.id)
    assert gone.value.code == 10070


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"scheduled_start_time": "past"}, "cannot schedule an event in the past"),
        ({"scheduled_end_time": None}, "an external event needs scheduled_end_time"),
        ({"entity_metadata": None}, "needs entity_metadata.location"),
        ({"entity_metadata": {"location": "x" * 101}}, "needs entity_metadata.location"),
        ({"name": ""}, "name must be 1..100"),
        ({"name": "n" * 101}, "name must be 1..100"),
        ({"description": "d" * 1001}, "description must be at most 1000"),
        ({"scheduled_end_time": "before start"}, "must be after scheduled_start_time"),
        ({"entity_type": 2}, "needs channel_id of a voice channel"),
        ({"privacy_level": 1}, "must be 2 (guild only)"),
    ],
)
async def test_a_scheduled_event_discord_refuses(h: Harness, change: dict[str, Any], problem: str) -> None:
    payload: dict[str, Any] = {
        "name": "Friday Pan",
        "privacy_level": 2,
        "scheduled_start_time": _soon(1).isoformat(),
        "scheduled_end_time": _soon(3).isoformat(),
        "entity_type": 3,
        "entity_metadata": {"location": "#pan-1"},
        "description": "ok",
    }
    payload |= change
    if payload["scheduled_start_time"] == "past":
        payload["scheduled_start_time"] = _soon(-1).isoformat()
    if payload["scheduled_end_time"] == "before start":
        payload["scheduled_end_time"] = _soon(0.5).isoformat()
    route = dpy.http.Route("POST", "/guilds/{guild_id}/scheduled-events", guild_id=h.guild.id)
    with pytest.raises(dpy.HTTPException) as refused:
        await h.bot.http.request(route, json=payload)
    assert (refused.value.status, refused.value.code) == (400, 50035)
    assert any(problem in p for p in h.forgive())
    assert h.guild.scheduled_events == {}


async def test_an_event_status_only_moves_forward(h: Harness) -> None:
    guild = h.bot.get_guild(h.guild.id)
    event = await guild.create_scheduled_event(
        name="Pan", start_time=_soon(1), end_time=_soon(2), entity_type=EXTERNAL, location="here",
        privacy_level=GUILD_ONLY,
    )  # fmt: skip
    with pytest.raises(dpy.HTTPException):
        await event.edit(status=dpy.EventStatus.completed)  # scheduled -> completed skips active
    assert any("status 1 cannot become 3" in p for p in h.forgive())
    with pytest.raises(dpy.HTTPException):
        await event.edit(start_time=_soon(-1))  # moved into the past
    assert any("in the past" in p for p in h.forgive())
    cancelled = await event.cancel()
    with pytest.raises(dpy.HTTPException):
        await cancelled.edit(name="again")
    assert any("the event is finished" in p for p in h.forgive())


# ------------------------------------------------------------------------------------------ roles held by members
async def test_roles_granted_and_removed_change_the_member_and_are_counted(h: Harness) -> None:
    champions = h.fake.add_role(h.guild, "Champions")
    await h.fake.role_created(h.guild, champions)
    guild = h.bot.get_guild(h.guild.id)
    winner = h.users[0]
    async with plain_client(h.fake, intents=dpy.Intents.default() | dpy.Intents(members=True)) as (watcher, _):
        updates: list[list[int]] = []

        @watcher.event
        async def on_member_update(before: dpy.Member, after: dpy.Member) -> None:
            updates.append([r.id for r in after.roles if not r.is_default()])

        member = await guild.fetch_member(winner.id)
        assert member.roles == [guild.default_role]
        await member.add_roles(dpy.Object(champions.id))
        await member.add_roles(dpy.Object(champions.id))  # already held: no change, not counted again
        assert h.fake.grants(h.guild, winner, champions.id) == 1
        assert [r.id for r in (await guild.fetch_member(winner.id)).roles] == [guild.id, champions.id]
        await member.remove_roles(dpy.Object(champions.id))
        assert (await guild.fetch_member(winner.id)).roles == [guild.default_role]
        await member.add_roles(dpy.Object(champions.id))
        assert h.fake.grants(h.guild, winner, champions.id) == 2
        await h.until(lambda: len(updates) == 3, "three GUILD_MEMBER_UPDATEs (grant, removal, grant)")
        assert updates == [[champions.id], [], [champions.id]]
    # the bot itself has no members intent: Discord sends it no GUILD_MEMBER_UPDATE
    assert _sent(h, "GUILD_MEMBER_UPDATE") == [] and len(_sent(h, "GUILD_ROLE_CREATE")) == 1


async def test_an_unknown_role_a_role_above_the_bot_and_an_unknown_member_are_refused(h: Harness) -> None:
    guild = h.bot.get_guild(h.guild.id)
    member = await guild.fetch_member(h.users[0].id)
    with pytest.raises(dpy.NotFound) as unknown:
        await member.add_roles(dpy.Object(424242))
    assert unknown.value.code == 10011
    high = h.fake.add_role(h.guild, "Admins", grantable=False)
    with pytest.raises(dpy.Forbidden) as above:
        await member.add_roles(dpy.Object(high.id))
    assert above.value.code == 50013
    role = h.fake.add_role(h.guild, "Ok")
    with pytest.raises(dpy.NotFound) as stranger:
        await h.bot.http.add_role(h.guild.id, 99, role.id)
    assert stranger.value.code == 10007
    assert h.fake.role_grants == {}


async def test_a_role_option_names_a_role_of_the_guild(h: Harness) -> None:
    await h.slash(h.moderator, "panadmin season start", name="Roles", winner_role=(777, "Champions"))
    assert h.guild.roles[777].name == "Champions"
    assert h.bot.get_guild(h.guild.id).get_role(777) is not None  # GUILD_ROLE_CREATE reached the bot
