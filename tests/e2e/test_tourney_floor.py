"""What players and hosts see around a tournament's tables, through the fake Discord: the level on the board, the
knock-outs, where a late entrant sits, the final table, the escaped title, the results after a kill."""

from __future__ import annotations

import asyncio
import re

import pytest

from pancog.adapter.safety import shown
from pancog.services.tournaments.model import Status, Tournament
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.e2e.test_tourney import fast, public, wait_until_over  # noqa: F401 (fast: the pace fixture)
from tests.fakediscord.models import FakeMessage


def threads_of(pan: Pan) -> list[int]:
    channel = pan.h.channel
    return [c.id for c in pan.h.guild.channels if c.is_thread and c.parent_id == channel.id and c != pan.h.thread]


def boards_in(pan: Pan, channel_id: int) -> list[FakeMessage]:
    return [m for m in public(pan, channel_id) if m.attachments and m.attachments[0].filename == "table.png"]


async def until(pan: Pan, check, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline
        await asyncio.sleep(0.05)
    await pan.settle()


async def test_a_tournament_board_shows_the_level_and_no_join_start_leave(
    pan_factory: PanFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """The board of a tournament table says the level, the ante, the time to the next level and the players left
    with their average stack; it offers no Join, Start or Leave and never says "Join, then press Start". At the end
    its thread is archived after the last hand's summary: nothing is posted or edited there afterwards."""
    pan = await pan_factory()
    host, ana, _, _ = pan.users
    service = pan.rt.tournaments
    assert service is not None
    await pan.slash(host, "tourney create", seats=3, buy_in=100, antes="10,20,40,80,160,320", title="Board SnG")
    await pan.slash(host, "tourney register")
    await pan.slash(ana, "tourney register")
    (t,) = service.tournaments
    await pan.slash(host, "tourney addbots", count=1, level="easy")
    await until(pan, lambda: bool(threads_of(pan)) and bool(boards_in(pan, threads_of(pan)[0])))
    (thread,) = threads_of(pan)
    board = boards_in(pan, thread)[-1]
    content = pan.h.fake.messages[board.id].text
    assert re.search(r"🏆 Level \d+ · ante \d+ · next level <t:\d+:R> · [23] players left, average stack \d+", content)
    assert "Join" not in content and "press **Start**" not in content
    labels = {b.get("label") for b in pan.h.fake.messages[board.id].buttons}
    assert not labels & {"Join", "Start", "Leave"}, labels
    await pan.slash(host, "tourney resume")
    await wait_until_over(pan, t.tournament_id)
    for m in public(pan, thread):  # nobody takes chips "back to the bank" in a tournament
        assert "back to the bank" not in m.text
    await asyncio.sleep(1.5)  # a late board edit or summary would come now
    await pan.settle()
    assert pan.h.fake.channels[thread].archived and pan.h.fake.channels[thread].locked
    assert not pan.h.fake.reopened and "Thread is archived" not in caplog.text
    assert any("over" in m.text.lower() or m.embeds for m in public(pan, thread)[-3:])


async def play_sit_and_go(pan: Pan) -> Tournament:
    """Three members and one computer player in a 4-seat Sit & Go with fast levels, played to its end."""
    host, ana, bo, _ = pan.users
    service = pan.rt.tournaments
    assert service is not None
    await pan.slash(host, "tourney create", seats=4, buy_in=100, antes="10,20,40,80,160,320,640", level_minutes=0.05)
    for user in (host, ana, bo):
        await pan.slash(user, "tourney register")
    (t,) = service.tournaments
    await pan.slash(host, "tourney addbots", count=1, level="easy")
    await wait_until_over(pan, t.tournament_id)
    return service.get(t.tournament_id)


async def test_every_knock_out_is_announced_pinging_only_that_player(
    pan_factory: PanFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """A 4-player Sit & Go: three knock-out lines with their places (and the prize in the money), each in the table's
    thread and the tournament's channel, each pinging only the player who is out."""
    pan = await pan_factory()
    done = await play_sit_and_go(pan)
    lines = [m for m in public(pan, pan.h.channel.id) if " is out of " in m.text]
    assert len(lines) == 3, [m.text for m in lines]
    suffix = {2: "nd", 3: "rd", 4: "th"}
    for e in done.entries.values():
        if e.place == 1:
            continue
        assert e.place is not None
        who = f"<@{e.player_id}>" if e.player_id > 0 else None
        (line,) = [
            m for m in lines if (who is None or who in m.text) and f"in {e.place}{suffix[e.place]} place" in m.text
        ][:1]
        users = [int(u) for u in line.allowed_mentions["users"]]
        assert users == ([e.player_id] if e.player_id > 0 else []), (line.text, users)
        assert (f"winning {e.prize}" in line.text) == bool(e.prize)
    (thread,) = threads_of(pan)
    assert len([m for m in public(pan, thread) if " is out of " in m.text]) >= 2
    await asyncio.sleep(1.5)  # a late board edit or summary would come now: never into the archived thread
    await pan.settle()
    assert pan.h.fake.channels[thread].archived and pan.h.fake.channels[thread].locked
    assert not pan.h.fake.reopened and "Thread is archived" not in caplog.text


async def test_the_title_is_escaped_and_a_long_one_refused_with_nothing_stored(pan_factory: PanFactory) -> None:
    """A title's Markdown and mentions render as typed; 2,000 characters are refused privately, nothing stored."""
    pan = await pan_factory()
    host = pan.users[0]
    service = pan.rt.tournaments
    assert service is not None
    reply = await pan.slash(host, "tourney create", title="x" * 2000)
    assert private_to(reply, host) and "Something went wrong" not in reply.text and "60" in reply.text, reply.text
    assert service.tournaments == ()
    assert not [m for m in public(pan, pan.h.channel.id) if "🏆" in m.text]
    hostile = "<@&515151> @everyone **bold** ||x||"
    await pan.slash(host, "tourney create", title=hostile)
    (announcement,) = [m for m in public(pan, pan.h.channel.id) if "🏆" in m.text]
    assert shown(hostile, limit=60) in announcement.text and hostile not in announcement.text
    assert announcement.allowed_mentions.get("parse", []) == []
    (t,) = service.tournaments
    assert t.status is Status.REGISTERING or t.status is Status.ANNOUNCED


async def end_while_dead(pan: Pan, monkeypatch: pytest.MonkeyPatch, title: str) -> int:
    """A 3-seat Sit & Go (host and ana, who never answer, and one easy computer player) played to its end by a process
    that "dies" right after the end is stored: no event is handled after that commit and nothing owed is delivered.
    Returns the tournament's id; the caller restarts the bot (``_handle`` is restored when the test ends)."""
    from pancog.adapter.tourney_cog import TourneyCog
    from pancog.services.tournaments.service import TournamentFinished

    host, ana, _, _ = pan.users
    service = pan.rt.tournaments
    assert service is not None
    await pan.slash(host, "tourney create", seats=3, buy_in=100, antes="10,20,40,80,160,320,640", title=title)
    await pan.slash(host, "tourney register")
    await pan.slash(ana, "tourney register")
    tid = service.tournaments[-1].tournament_id
    original = TourneyCog._handle

    async def dies_at_the_end(self: TourneyCog, event: object) -> None:  # the kill: nothing after the commit runs
        if not isinstance(event, TournamentFinished):
            await original(self, event)  # type: ignore[arg-type]

    monkeypatch.setattr(TourneyCog, "_handle", dies_at_the_end)
    await pan.rt.deliveries.stop()  # nothing owed is delivered before the "kill"
    await pan.slash(host, "tourney addbots", count=1, level="easy")
    await wait_until_over(pan, tid)
    monkeypatch.setattr(TourneyCog, "_handle", original)
    return tid


async def test_results_are_posted_after_a_kill_right_after_the_end(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process dies right after the end is stored (nothing told to Discord: no event handled, no delivery):
    after the restart the results are posted, once, with the winner pinged, and the prizes were paid once."""
    pan = await pan_factory()
    host, ana, _, _ = pan.users
    service = pan.rt.tournaments
    assert service is not None
    tid = await end_while_dead(pan, monkeypatch, "Kill SnG")
    assert not [m for m in public(pan, pan.h.channel.id) if "is over" in m.text]
    done = service.get(tid)
    winner = next(e.player_id for e in done.entries.values() if e.place == 1)
    banks = {u.id: await pan.rt.ledger.balance(pan.h.guild.id, u.id) for u in (host, ana)}
    await pan.h.restart()
    await until(pan, lambda: bool([m for m in public(pan, pan.h.channel.id) if "is over" in m.text]), 30)
    await asyncio.sleep(0.5)
    results = [m for m in public(pan, pan.h.channel.id) if "is over" in m.text]
    assert len(results) == 1 and "Kill SnG" in results[0].text
    assert [int(u) for u in results[0].allowed_mentions["users"]] == ([winner] if winner > 0 else [])
    assert results[0].attachments and results[0].attachments[0].filename == "standings.png"
    for u in (host, ana):  # paid once: the restart paid nothing again
        assert await pan.rt.ledger.balance(pan.h.guild.id, u.id) == banks[u.id]


async def test_a_late_entrant_is_told_where_they_sit_and_register_goes_when_registration_closes(
    pan_factory: PanFactory,
) -> None:
    """A scheduled event started early: a late registration is told (pinged, in the table's thread) "you are at
    table N, seat S"; once late registration closes (level 2), the announcement loses its Register button."""
    pan = await pan_factory()
    host, ana, bo, _ = pan.users
    service = pan.rt.tournaments
    assert service is not None
    await pan.slash(
        host,
        "tourney create",
        format="scheduled",
        start="+60",
        seats=4,
        buy_in=100,
        late_levels=1,
        level_minutes=0.25,  # 15 s: the late registration below comes in level 1 even on a loaded machine
        antes="10,20,40,80,160,320,640,1280",
        starting_stack=2000,
        title="Late MTT",
    )
    (t,) = service.tournaments
    announcement = next(m for m in public(pan, pan.h.channel.id) if "Late MTT" in m.text)
    await pan.slash(host, "tourney register")
    await pan.slash(ana, "tourney register")
    await pan.slash(host, "tourney addbots", count=1, level="easy")
    reply = await pan.slash(host, "tourney start")
    assert private_to(reply, host)
    await until(pan, lambda: bool(threads_of(pan)))
    reply = await pan.slash(bo, "tourney register")  # late: the table has room
    assert private_to(reply, bo) and "registered" in reply.text
    await until(pan, lambda: any(f"<@{bo.id}>, you are at" in m.text for m in public(pan, threads_of(pan)[0])))
    (told,) = [m for m in public(pan, threads_of(pan)[0]) if f"<@{bo.id}>, you are at" in m.text]
    assert re.search(r"you are at table 1, seat \d", told.text)
    assert [int(u) for u in told.allowed_mentions["users"]] == [bo.id]
    assert "Register" in [b.get("label") for b in pan.h.fake.messages[announcement.id].buttons]
    await until(pan, lambda: not service.registration_open(service.get(t.tournament_id)), 60)
    await until(pan, lambda: "Register" not in [b.get("label") for b in pan.h.fake.messages[announcement.id].buttons])
    await pan.slash(host, "tourney cancel")


async def test_tournament_seats_keep_their_names_after_a_restart(pan_factory: PanFactory) -> None:
    """After a restart in the middle of a Sit & Go, the board names its people (stored names), not "Player 1234"."""
    pan = await pan_factory()
    host, ana, _, _ = pan.users
    service = pan.rt.tournaments
    assert service is not None
    # antes of a few chips on 5000-chip stacks: the two people, away and going on top every hand, cannot bust before
    # the pause lands, however fast the computer plays on a loaded machine (antes of 10,20,40… ended it in 30 hands)
    created = await pan.slash(
        host, "tourney create", seats=3, buy_in=100, antes="1,2,3,4,5,6", starting_stack=5000, title="Names SnG"
    )
    assert "Names SnG" in created.text, created.text
    await pan.slash(host, "tourney register")
    await pan.slash(ana, "tourney register")
    # the hands run on with nobody to wait for (the two people are away): no quiescence until the pause
    await pan.h.slash(host, "tourney addbots", count=1, level="easy", settle=False)
    await pan.h.until(lambda: bool(threads_of(pan)) and bool(boards_in(pan, threads_of(pan)[0])), "the table", 60)
    await pan.h.slash(host, "tourney pause", settle=False)
    # restarted between hands (no turn ping in flight: a ping sent while the old client closes is another matter)
    await until(pan, lambda: not pan.rt.tables.in_channel(threads_of(pan)[0]).in_hand, 60)
    await pan.h.restart()
    await pan.h.slash(host, "tourney resume", settle=False)
    (thread,) = threads_of(pan)
    before = {m.id: m.edits for m in boards_in(pan, thread)}
    await pan.h.until(lambda: any(m.edits > before.get(m.id, -1) for m in boards_in(pan, thread)), "a board", 30)
    board = pan.h.fake.messages[boards_in(pan, thread)[-1].id]
    alt = board.attachments[0].description or ""
    for user in (host, ana):
        assert user.name in alt, alt
    assert "Player " not in alt
    await pan.slash(host, "tourney cancel")
