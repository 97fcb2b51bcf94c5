"""A season's role through the durable outbox, on the fake Discord: the end owes it, the deliverer grants it once
per winner, and ``/panadmin season end`` / ``/panadmin season roles`` say what was done — who has it, who left the
server, what is still owed and why. A refusal (no Manage Roles) is reported once and not retried by itself; a
moderator's retry after the fix gives the role. The worker's own retry, the post kind's nonce across a restart, and
a kind this version does not know are checked here too (the SIGKILL tests are in test_season_kill.py)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from pancog.adapter.effects import MESSAGE_POST, nonce_of
from pancog.services.league import HandDigest, LeagueService, PlayerLine
from pancog.services.outbox import OutboxItem
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.fakediscord import server as fake_server
from tests.fakediscord.models import FakeUser

ROLE = 777
PUT_ROLE = "PUT /guilds/{guild_id}/members/{user_id}/roles/{role_id}"
_hands = iter(range(1, 10**6))


def digest(winner: int, losers: list[int], chips: int) -> HandDigest:
    players = [PlayerLine(user_id=winner, played=True, won=True, net=chips * len(losers), biggest=chips)]
    players += [PlayerLine(user_id=u, played=True, net=-chips) for u in losers]
    return HandDigest(table_id=9, hand_no=next(_hands), reason="out", winner=winner, players=players, flows={})


async def season_with_results(pan: Pan, role: tuple[int, str] | None = (ROLE, "Champions")) -> list[FakeUser]:
    """A season with a winner role and four players placed 1..4 (the first three get the role)."""
    league = pan.rt.league
    assert league is not None
    options: dict[str, Any] = {"winner_role": role} if role is not None else {}
    await pan.slash(pan.h.moderator, "panadmin season start", name="Roles", **options)
    a, b, c, d = pan.users[:4]
    for user in (a, b, c, d):  # each has used the bot, so the bot knows their names
        await pan.slash(user, "pan balance")
    for winner, chips in ((a, 30), (b, 20), (c, 10)):
        await league.record_hand(pan.h.guild.id, digest(winner.id, [d.id], chips))
    return [a, b, c, d]


def puts(pan: Pan, user: FakeUser, role: int = ROLE) -> list[Any]:
    path = f"/guilds/{pan.h.guild.id}/members/{user.id}/roles/{role}"
    return [c for c in pan.h.fake.calls if c.route == PUT_ROLE and c.path == path]


async def test_the_end_grants_the_role_once_and_says_who_has_it(pan: Pan) -> None:
    a, b, c, d = await season_with_results(pan)
    guild = pan.h.guild
    guild.member_roles.setdefault(b.id, set()).add(ROLE)  # b has the role already (from an earlier season)
    guild.member_ids.remove(c.id)  # c left the server before the end
    reply = await pan.slash(pan.h.moderator, "panadmin season end")
    assert private_to(reply, pan.h.moderator)
    assert "Roles: player1 and player2 have Champions; player3 left the server." in reply.text, reply.text
    assert pan.h.fake.grants(guild, a, ROLE) == 1 and ROLE in pan.h.fake.roles_of(guild, a)
    assert puts(pan, a) and len(puts(pan, a)) == 1
    assert puts(pan, b) == [] and puts(pan, c) == [] and puts(pan, d) == []  # b had it (read first), d was 4th
    league = pan.rt.league
    assert league is not None
    items = await pan.rt.outbox.items(guild.id, prefix=LeagueService.role_prefix(guild.id, 1))
    assert sorted((i.payload["user_id"], i.status, i.result) for i in items) == sorted(
        [(a.id, "done", "granted"), (b.id, "done", "had it"), (c.id, "done", "left")]
    )
    reply = await pan.slash(pan.h.moderator, "panadmin season roles")  # a retry: nothing more to do, same report
    assert "Roles: player1 and player2 have Champions; player3 left the server." in reply.text
    assert len(puts(pan, a)) == 1 and pan.h.fake.grants(guild, a, ROLE) == 1


async def test_a_refusal_is_reported_once_and_waits_for_the_moderators_retry(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PAN_OUTBOX_POLL_SECONDS", "0.05")  # the slow tick, fast: it must still not retry
    pan = await pan_factory()
    a, b, c, _ = await season_with_results(pan)
    guild = pan.h.guild
    guild.roles[ROLE].grantable = False  # above the bot's own role: Discord answers 403 / 50013
    with caplog.at_level(logging.WARNING, logger="pan.outbox"):
        reply = await pan.slash(pan.h.moderator, "panadmin season end")
        assert "Champion: player1" in reply.text  # the season ended all the same
        assert (
            "3 still owed (player1, player2 and player3): the bot lacks Manage Roles, or its own role is below the one"
            " to give" in reply.text
        ), reply.text
        assert "/panadmin season roles tries again" in reply.text
        for _ in range(5):  # ticks pass and passes run: a refused item is not tried again by itself
            await asyncio.sleep(0.06)
            await pan.rt.deliveries.deliver_due()
        await pan.settle()
    assert sum(len(puts(pan, u)) for u in (a, b, c)) == 1  # the first refusal; the others failed alike, untried
    refused = [r for r in caplog.records if "refused" in r.getMessage()]
    assert len(refused) == 1, [r.getMessage() for r in refused]  # reported once
    status = await pan.slash(pan.h.moderator, "panadmin status")
    assert "Owed side effects: 3 refused by Discord" in status.text
    guild.roles[ROLE].grantable = True  # the admin moves the bot's role up
    reply = await pan.slash(pan.h.moderator, "panadmin season roles", number=1)
    assert "Roles: player1, player2 and player3 have Champions." in reply.text, reply.text
    assert [pan.h.fake.grants(guild, u, ROLE) for u in (a, b, c)] == [1, 1, 1]
    status = await pan.slash(pan.h.moderator, "panadmin status")
    assert "Owed side effects" not in status.text


async def test_season_roles_needs_an_ended_season_with_a_role(pan: Pan, monkeypatch: pytest.MonkeyPatch) -> None:
    mod = pan.h.moderator
    reply = await pan.slash(mod, "panadmin season roles")
    assert private_to(reply, mod) and "No such season" in reply.text
    await season_with_results(pan, role=None)
    await pan.slash(mod, "panadmin season end")
    reply = await pan.slash(mod, "panadmin season roles")
    assert private_to(reply, mod) and "Season 1 has no winner role" in reply.text
    monkeypatch.setattr(fake_server, "ALL_PERMISSIONS", "0")  # the fake gives everyone every permission otherwise
    reply = await pan.slash(pan.users[0], "panadmin season roles")
    assert private_to(reply, pan.users[0]) and "Manage Server" in reply.text


async def test_a_transient_failure_is_retried_by_the_worker_after_its_back_off(pan: Pan) -> None:
    """A handler that fails like a Discord outage (not a refusal): the item stays owed with the error, and the
    worker's timer delivers it after the back-off, with nobody asking."""
    outbox, deliveries = pan.rt.outbox, pan.rt.deliveries
    outbox.backoff = type(outbox.backoff)(first=0.05, factor=2.0, cap=0.2)
    calls: list[str] = []

    async def flaky(item: OutboxItem) -> str:
        calls.append(item.key)
        if len(calls) < 3:
            raise ConnectionResetError("the connection dropped")
        return "delivered"

    deliveries.register("test.flaky", flaky)
    async with pan.rt.storage.transaction() as tx:
        await outbox.enqueue(tx, key="flaky:1", guild_id=pan.h.guild.id, kind="test.flaky", payload={})
    await pan.settle()
    item = await outbox.get("flaky:1")
    assert item is not None and item.status == "owed" and "dropped" in (item.last_error or "")
    async with asyncio.timeout(10):
        while (item := await outbox.get("flaky:1")) is not None and item.status != "done":
            await asyncio.sleep(0.02)
    assert calls == ["flaky:1"] * 3 and item is not None and item.result == "delivered" and item.attempts == 3


async def test_a_post_delivered_again_after_a_restart_is_not_posted_twice(pan: Pan) -> None:
    """The bot stops while Discord has created the message but before the item is marked done; the next bot
    delivers it again with the same nonce, and Discord (the fake) returns the first message: one post, its id
    the item's result."""
    fake, guild = pan.h.fake, pan.h.guild
    hold = fake.hold_next("POST /channels/*/messages", after=True)  # created, the answer not sent yet
    async with pan.rt.storage.transaction() as tx:
        await pan.rt.outbox.enqueue(
            tx,
            key="results:1",
            guild_id=guild.id,
            kind=MESSAGE_POST,
            payload={"channel_id": pan.h.channel.id, "content": "Tournament 1 is over: player1 wins"},
        )
    await asyncio.wait_for(hold.arrived.wait(), 10)
    stopping = asyncio.ensure_future(pan.h.stop_bot())  # the delivery is cut off mid-way
    await asyncio.sleep(0.1)
    hold.release()
    await stopping
    assert [m.text for m in pan.h.messages()] == ["Tournament 1 is over: player1 wins"]
    await pan.h.start_bot(pan.h.db_path, **pan.h._bot_options)
    pan.rt.edit_interval = 0.02
    await pan.settle()
    item = await pan.rt.outbox.get("results:1")
    assert item is not None and item.status == "done" and item.attempts == 2
    (message,) = pan.h.messages()
    assert item.result == str(message.id) and message.nonce == nonce_of("results:1")
    posts = [c for c in fake.calls if c.route == "POST /channels/{channel_id}/messages"]
    assert [c.deduplicated for c in posts] == [False, True]


async def test_an_unknown_kind_stays_owed_for_a_newer_version(pan: Pan) -> None:
    async with pan.rt.storage.transaction() as tx:
        await pan.rt.outbox.enqueue(tx, key="future:1", guild_id=pan.h.guild.id, kind="future.kind", payload={})
    await pan.settle()
    item = await pan.rt.outbox.get("future:1")
    assert item is not None and item.status == "owed" and "cannot deliver 'future.kind'" in (item.last_error or "")


async def test_division_roles_follow_the_ratings(pan: Pan) -> None:
    """Two divisions with roles: /panadmin division keeps them in step at once, the deliverer grants each role once;
    when the ratings swap two players, the league's tick owes a removal and a grant each, and the fake shows the
    roles moved."""
    league = pan.rt.league
    assert league is not None
    guild = pan.h.guild
    mod = pan.h.moderator
    a, b = pan.users[:2]
    for user in (a, b):
        await pan.slash(user, "pan balance")
    await pan.slash(mod, "panadmin league", established=2)
    for _ in range(2):
        await league.record_hand(guild.id, digest(a.id, [b.id], 10))
    reply = await pan.slash(mod, "panadmin division", name="Top", top=1, role=(880, "Top"))
    assert private_to(reply, mod) and "- Top: the top 1, role <@&880>" in reply.text
    reply = await pan.slash(mod, "panadmin division", name="Rest", min_rating=-1000.0, role=(881, "Rest"))
    assert "- Top: the top 1" in reply.text and "- Rest: rated -1000.0 or more, role <@&881>" in reply.text

    async def delivered() -> None:
        keys = [i.key for i in await pan.rt.outbox.items(guild.id, prefix="division:")]
        await pan.rt.deliveries.drive(guild.id, keys)

    await delivered()
    assert pan.h.fake.grants(guild, a, 880) == 1 and pan.h.fake.grants(guild, b, 881) == 1
    assert 880 in pan.h.fake.roles_of(guild, a) and 881 in pan.h.fake.roles_of(guild, b)
    for _ in range(6):  # b overtakes a
        await league.record_hand(guild.id, digest(b.id, [a.id], 10))
    cog = pan.h.bot.get_cog("PanLeague")
    await cog.tick()  # type: ignore[union-attr]
    await delivered()
    assert 881 in pan.h.fake.roles_of(guild, a) and 880 not in pan.h.fake.roles_of(guild, a)
    assert 880 in pan.h.fake.roles_of(guild, b) and 881 not in pan.h.fake.roles_of(guild, b)
    await delivered()  # driven again: nothing granted twice
    assert pan.h.fake.grants(guild, a, 880) == 1 and pan.h.fake.grants(guild, b, 880) == 1
