"""Community tournaments through the fake Discord (issue 15): a Sit & Go of three people and four computer players
from /tourney create to the results message, with the refusals on the way."""

from __future__ import annotations

import asyncio
import re

import pytest

from pancog.services.ledger import BankScope
from pancog.services.tournaments.model import Status
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.fakediscord import server as fake_server
from tests.fakediscord.models import FakeMessage


@pytest.fixture(autouse=True)
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Computer players act at once; people who never answer time out in a fraction of a second (then they are
    away and go on top every hand); the tournament clock ticks ten times a second; deals are reproducible."""
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    monkeypatch.setenv("PAN_CLOCK_SCALE", "300")
    monkeypatch.setenv("PAN_TIME_BANK_SECONDS", "0")
    monkeypatch.setenv("PAN_TOURNEY_TICK", "0.1")
    monkeypatch.setenv("PAN_DEAL_SEED", "15")


def public(pan: Pan, channel_id: int) -> list[FakeMessage]:
    return [m for m in pan.h.fake.messages.values() if m.channel_id == channel_id and not m.ephemeral]


async def wait_until_over(pan: Pan, tid: int, timeout: float = 240.0) -> None:
    service = pan.rt.tournaments
    assert service is not None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while service.get(tid).status not in (Status.FINISHED, Status.CANCELLED):
        assert loop.time() < deadline, service.info(tid)
        await asyncio.sleep(0.2)
    await pan.settle()


async def test_sit_and_go_three_people_four_computers(pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Create, register (button and command), refusals, a full table starts in a thread with exactly its people
    mentioned, tournament tables refuse /pan join rebuy leave, and the results message pays 700 chips."""
    pan = await pan_factory()
    host, ana, bo, outsider = pan.users
    service = pan.rt.tournaments
    assert service is not None
    guild = pan.h.guild.id
    channel = pan.h.channel

    # bad input: a level schedule that does not increase is refused privately; nothing is announced
    reply = await pan.slash(host, "tourney create", antes="10,10,20")
    assert private_to(reply, host) and service.tournaments == ()
    reply = await pan.slash(
        host,
        "tourney create",
        seats=7,
        buy_in=100,
        antes="10,20,40,80,160,320,640,1280",
        level_minutes=0.05,
        starting_stack=60,
        title="Friday SnG",
    )
    assert private_to(reply, host) and "Friday SnG" in reply.text
    (t,) = service.tournaments
    tid = t.tournament_id
    announcement = next(m for m in public(pan, channel.id) if "Friday SnG" in m.text)
    assert "Entries: **0/7**" in announcement.text
    assert [b.get("label") for b in announcement.buttons] == ["Register", "Unregister"]

    # register: the button, the command; twice is refused and changes nothing
    reply = await pan.click(host, announcement, "Register")
    assert private_to(reply, host) and "registered" in reply.text
    await pan.slash(ana, "tourney register")
    await pan.slash(bo, "tourney register")
    before = await pan.rt.ledger.balance(guild, ana.id)
    reply = await pan.slash(ana, "tourney register")
    assert private_to(reply, ana) and "already registered" in reply.text
    assert await pan.rt.ledger.balance(guild, ana.id) == before == 900
    # unregister and register again through the buttons; the live count follows
    await pan.click(outsider, announcement, "Register")
    assert "Entries: **4/7**" in pan.h.fake.messages[announcement.id].text
    reply = await pan.click(outsider, announcement, "Unregister")
    assert private_to(reply, outsider) and await pan.rt.ledger.balance(guild, outsider.id) == 1000
    assert "Entries: **3/7**" in pan.h.fake.messages[announcement.id].text
    # only the host (or a moderator) starts, adds computers, pauses; the fake gives every member Manage Server
    with monkeypatch.context() as m:
        m.setattr(fake_server, "ALL_PERMISSIONS", "0")
        for command in ("tourney addbots", "tourney start", "tourney pause", "tourney cancel"):
            reply = await pan.slash(ana, command)
            assert private_to(reply, ana) and "host" in reply.text.lower(), (command, reply.text)
    assert len(service.get(tid).entries) == 4 and service.get(tid).status is Status.REGISTERING  # 3 + refunded

    await pan.slash(host, "tourney addbots", count=4, level="easy")  # the table is full: it starts
    assert service.get(tid).status in (Status.RUNNING, Status.FINISHED)
    await pan.settle()
    threads = [c for c in pan.h.guild.channels if c.is_thread and c.parent_id == channel.id and c != pan.h.thread]
    assert len(threads) == 1
    thread = threads[0]
    starts = [m for m in public(pan, thread.id) if "starts:" in m.content]
    assert len(starts) == 1
    # exactly the three people seated are pinged, no one else
    humans = sorted(u.id for u in (host, ana, bo))
    assert (
        sorted(int(u) for u in starts[0].allowed_mentions["users"]) == humans
    )  # exactly the three people seated, no one else
    assert starts[0].allowed_mentions.get("parse", []) == []
    for user in (host, ana, bo):
        assert f"<@{user.id}>" in starts[0].content

    # the host pauses (no new deal); at a tournament table /pan join, rebuy and leave are refused privately
    reply = await pan.slash(host, "tourney pause")
    assert private_to(reply, host) and service.get(tid).paused_ms is not None
    outsider_bank = await pan.rt.ledger.balance(guild, outsider.id)
    for command, options in (("pan join", {}), ("pan rebuy", {"chips": 5}), ("pan leave", {})):
        user = outsider if command == "pan join" else ana
        reply = await pan.slash(user, command, channel=thread, **options)
        assert private_to(reply, user) and "tournament table" in reply.text, (command, reply.text)
    assert await pan.rt.ledger.balance(guild, outsider.id) == outsider_bank  # nothing moved
    assert await pan.rt.ledger.balance(BankScope.tournament(tid), outsider.id) == 0
    assert not service.get(tid).entries_of(outsider.id)[1:]
    assert pan.rt.tables.in_channel(thread.id).find_seat(outsider.id) is None
    # the table is the guild's (its settings, names, shard), only its chips are the tournament's: the hand DMs
    # name the server the table is played in (they said "your server" when the table's guild was the tournament id)
    session = pan.rt.tables.in_channel(thread.id)
    assert session.guild_id == guild and session.bank_scope == BankScope.tournament(tid)
    dealt = [m for m in pan.h.dms(ana) if "hand 1" in m.content]
    assert dealt and all(m.content.startswith(f"**{pan.h.guild.name}** · #") for m in dealt), [m.content for m in dealt]
    info = await pan.slash(outsider, "tourney info", channel=thread)
    assert private_to(info, outsider) and "paused" in info.text and "Chip counts" in info.text
    (image,) = info.message.attachments  # the standings image, its text twin as the alt text
    assert image.filename == "standings.png" and image.data.startswith(b"\x89PNG")
    assert "Clock paused by the host" in image.description and "(table 1)" in image.description
    await pan.slash(host, "tourney resume")

    await wait_until_over(pan, tid)
    done = service.get(tid)
    assert done.status is Status.FINISHED
    assert await service.audit(tid) == []
    tables = [tt.table_id for tt in done.tables.values()]
    assert tables and not set(tables) & set(pan.rt.boards)  # the tables closed: their boards went with them
    prizes = {e.player_id: e.prize or 0 for e in done.entries.values()}
    assert sum(prizes.values()) == 7 * 100
    winner = next(e.player_id for e in done.entries.values() if e.place == 1)
    results = [m for m in public(pan, channel.id) if "is over" in m.content]
    assert len(results) == 1
    expected = [winner] if winner > 0 else []
    assert [int(u) for u in results[0].allowed_mentions["users"]] == expected
    assert re.search(r"1\. .+ — wins \d+", results[0].content)
    (image,) = results[0].attachments
    assert image.filename == "standings.png" and "Finished" in image.description
    assert re.search(r"^1\. .+ — wins \d", image.description, re.M)
    assert pan.h.fake.channels[thread.id].archived and pan.h.fake.channels[thread.id].locked
    for user in (host, ana, bo):
        assert await pan.rt.ledger.balance(guild, user.id) == 900 + prizes.get(user.id, 0)
    listing = await pan.slash(bo, "tourney list")
    assert private_to(listing, bo) and "No tournament" in listing.text


def test_standings_text_fits_one_message_for_a_big_field() -> None:
    """200 entries on 25 tables: the top chip counts, every prize winner, the rest summarised, under 2000 chars."""
    from pancog.adapter.presenters.tournament import tourney_info_text

    chips = [(f"player {n}", 10_000 - n, n % 25 + 1) for n in range(200)]
    tables = [(no, [f"player {n}" for n in range(8)]) for no in range(1, 26)]
    results = [(f"player {n}", n + 1, 100 if n < 30 else 0) for n in range(200)]
    text = tourney_info_text("Big", "running", 3, 40, False, False, 95, 200, 200, 2000, [100] * 30, chips, tables, [])
    assert len(text) < 2000 and "1. player 0 — 10000 (table 1)" in text and "… and 185 more" in text
    assert "25 tables: 1 (8)" in text
    done = tourney_info_text("Big", "finished", 9, 0, False, False, 0, 200, 0, 2000, [], [], [], results)
    assert len(done) < 2000 and "30. player 29 — wins 100" in done and "31. player 30" not in done


async def test_the_announcement_keeps_counting_after_a_restart(pan_factory: PanFactory) -> None:
    """The announcement's message id is stored (V7): after a restart its live entry count still follows
    registrations, through the old message's buttons and through /tourney register."""
    pan = await pan_factory()
    host, ana, bo, _ = pan.users
    await pan.slash(host, "tourney create", seats=7, buy_in=100, title="Restart SnG")
    announcement = next(m for m in public(pan, pan.h.channel.id) if "Restart SnG" in m.text)
    await pan.slash(ana, "tourney register")
    assert "Entries: **1/7**" in pan.h.fake.messages[announcement.id].text
    await pan.h.restart()
    await pan.settle()
    reply = await pan.click(bo, announcement, "Register")
    assert private_to(reply, bo) and "registered" in reply.text
    assert "Entries: **2/7**" in pan.h.fake.messages[announcement.id].text
    await pan.slash(host, "tourney register")
    assert "Entries: **3/7**" in pan.h.fake.messages[announcement.id].text


async def test_pan_back_ends_away_in_a_tournament(pan_factory: PanFactory) -> None:
    """A person the clock marked away is sluffed automatically every hand; /pan back in the table's thread ends
    that (the entry is no longer away); a second /pan back is refused privately."""
    pan = await pan_factory()
    host, ana, _, _ = pan.users
    service = pan.rt.tournaments
    assert service is not None
    await pan.slash(host, "tourney create", seats=3, buy_in=100, antes="10,20,40,80,160", level_minutes=5.0)
    tid = service.tournaments[0].tournament_id
    await pan.slash(ana, "tourney register")
    await pan.slash(host, "tourney register")
    await pan.slash(host, "tourney addbots", count=1, level="easy")  # full: it starts
    entry = next(e for e in service.get(tid).entries.values() if e.player_id == ana.id)
    await pan.h.until(lambda: entry.away, "ana timed out twice and is away", timeout=120)
    await pan.slash(host, "tourney pause")  # the level clock and the deal stop; nobody times out any more
    tables = [pan.rt.tables.get(tt.table_id) for tt in service.get(tid).open_tables()]
    await pan.h.until(lambda: not any(s.in_hand for s in tables), "the hand in progress is over", timeout=120)
    thread = next(
        c for c in pan.h.guild.channels if c.is_thread and c.parent_id == pan.h.channel.id and c != pan.h.thread
    )
    reply = await pan.slash(ana, "pan back", channel=thread)
    assert private_to(reply, ana) and "Welcome back" in reply.text, reply.text
    assert not entry.away
    reply = await pan.slash(ana, "pan back", channel=thread)
    assert private_to(reply, ana) and "not away" in reply.text
    await pan.slash(host, "tourney cancel")


def role_puts(pan: Pan) -> list[str]:
    return [c.path for c in pan.h.fake.calls if c.route == "PUT /guilds/{guild_id}/members/{user_id}/roles/{role_id}"]


async def three_people_play_out(pan: Pan, **options: object) -> tuple[int, str]:
    """Three people (never answering: away, on top every hand until one holds every chip) play a Sit & Go created
    by users[0] with ``options``; returns the tournament id and the creation reply's text."""
    service = pan.rt.tournaments
    assert service is not None
    host = pan.users[0]
    reply = await pan.slash(
        host,
        "tourney create",
        seats=3,
        buy_in=100,
        antes="10,20,40,80,160,320,640,1280",
        level_minutes=0.05,
        starting_stack=60,
        **options,
    )
    assert private_to(reply, host)
    tid = service.tournaments[-1].tournament_id
    for user in pan.users[:3]:
        await pan.slash(user, "tourney register", tournament=str(tid))
    await wait_until_over(pan, tid)
    return tid, reply.text


async def test_the_winner_gets_the_tournament_role(pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A moderator attaches a winner role at /tourney create (told whether the bot can give it); a host who is not
    a moderator is refused privately and nothing is created; at the end the winner (people only) gets the role."""
    pan = await pan_factory()
    service = pan.rt.tournaments
    assert service is not None
    with monkeypatch.context() as m:
        m.setattr(fake_server, "ALL_PERMISSIONS", "0")  # nobody has Manage Server: nobody is a moderator
        reply = await pan.slash(pan.users[1], "tourney create", winner_role=(777, "Champions"))
        assert private_to(reply, pan.users[1]) and "Only moderators" in reply.text
    assert service.tournaments == ()
    tid, text = await three_people_play_out(pan, winner_role=(777, "Champions"))
    assert "The winner gets the role Champions" in text
    winners = [e.player_id for e in service.get(tid).entries.values() if e.place == 1]
    assert winners and role_puts(pan) == [f"/guilds/{pan.h.guild.id}/members/{u}/roles/777" for u in winners]
    (results,) = [m for m in public(pan, pan.h.channel.id) if "is over" in m.content]
    assert "could not give" not in results.content


async def test_a_refused_winner_role_is_told_once_in_the_results(pan_factory: PanFactory) -> None:
    """Without Manage Roles Discord answers 403: the results message says so once; nothing else is tried."""
    pan = await pan_factory()
    pan.h.fake.fail_next("PUT /guilds/*/members/*/roles/*", status=403, count=5)
    await three_people_play_out(pan, winner_role=(778, "Top"))
    (results,) = [m for m in public(pan, pan.h.channel.id) if "is over" in m.content]
    assert results.content.count("could not give the winner the role") == 1
    assert results.allowed_mentions.get("roles", []) == []  # the role is named, never pinged
    assert len(role_puts(pan)) == 1
