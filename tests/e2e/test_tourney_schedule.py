"""Templates, weekly schedules and their Discord Scheduled Events through the fake Discord: a host saves a
tournament's settings, schedules them weekly; the occurrence is announced and published as an external event
(its link, start, estimated end, description), whose status follows the tournament (active, completed); the next
week's occurrence appears; a kill between the commit and the event's REST call, or between Discord creating it and
the bot storing it, still leaves exactly one event; without Manage Events the tournament goes on and the host is
told once; every refusal is private and stores nothing."""

from __future__ import annotations

import asyncio
import datetime as dt
import time

from pancog.services.outbox import OutboxItem
from pancog.services.tournaments.model import Status, Tournament
from pancog.services.tournaments.schedules import EVENT, WEEK_MS
from pancog.services.tournaments.service import TournamentService
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.e2e.test_tourney import fast, public, wait_until_over  # noqa: F401 (fast: the pace fixture)
from tests.fakediscord.models import FakeScheduledEvent

CREATE_EVENT = "POST /guilds/{guild_id}/scheduled-events"
EDIT_EVENT = "PATCH /guilds/{guild_id}/scheduled-events/{event_id}"


def service_of(pan: Pan) -> TournamentService:
    assert pan.rt.tournaments is not None
    return pan.rt.tournaments


async def with_template(pan: Pan) -> Tournament:
    """The host announces a tournament (quick settings) and saves it as the template "Friday Pan"."""
    host = pan.users[0]
    await pan.slash(
        host, "tourney create", format="scheduled", start="+60", seats=4, buy_in=50, title="The original",
        starting_stack=40, antes="10,20,40", level_minutes=1.0,
    )  # fmt: skip
    (t,) = service_of(pan).tournaments
    reply = await pan.slash(host, "tourney template save", name="Friday Pan", tournament=str(t.tournament_id))
    assert private_to(reply, host) and "Friday Pan" in reply.text
    return t


def occurrences(pan: Pan) -> list[Tournament]:
    return sorted(
        (t for t in service_of(pan).tournaments if t.config.title == "Friday Pan"),
        key=lambda t: t.config.start_at_ms or 0,
    )


def events(pan: Pan) -> list[FakeScheduledEvent]:
    return list(pan.h.guild.scheduled_events.values())


def iso_ms(text: str) -> int:
    return int(dt.datetime.fromisoformat(text).timestamp() * 1000)


async def count(pan: Pan, sql: str) -> int:
    async with pan.rt.storage.transaction(write=False) as tx:
        return int((await tx.fetchall(sql))[0][0])


async def settled_item(pan: Pan) -> OutboxItem:
    """The first occurrence's event item, once delivered or refused."""
    for _ in range(100):
        found = [i for i in await pan.rt.outbox.items(pan.h.guild.id, kind=EVENT) if i.key.endswith(":0:e")]
        if found and found[0].status != "owed":
            return found[0]
        await asyncio.sleep(0.1)
    raise AssertionError(f"the event item is still owed: {found}")


def moved_to(pan: Pan, status: int) -> bool:
    """The bot edited a Scheduled Event to ``status`` (and Discord took it)."""
    edits = [c for c in pan.h.fake.calls if c.route == EDIT_EVENT and 200 <= c.status < 300]
    return any((c.payload or {}).get("status") == status for c in edits)


async def until(pan: Pan, check, what: str, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    await pan.h.until(check, what, timeout=timeout)
    await pan.settle()


async def test_a_weekly_schedule_announces_publishes_and_follows_each_occurrence(pan_factory: PanFactory) -> None:
    pan = await pan_factory()
    host, ana = pan.users[0], pan.users[1]
    await with_template(pan)
    reply = await pan.slash(host, "tourney templates")
    assert private_to(reply, host) and "Friday Pan" in reply.text and "buy-in 50" in reply.text

    reply = await pan.slash(host, "tourney schedule weekly", template="friday pan", start="+90", weeks=2)
    assert private_to(reply, host) and "for 2 weeks" in reply.text
    await until(pan, lambda: len(events(pan)) == 1, "the event")  # 90 minutes away: inside the 24-hour window
    (occ,) = occurrences(pan)
    start = occ.config.start_at_ms or 0
    announcement = next(m for m in public(pan, pan.h.channel.id) if "Friday Pan" in m.text)
    assert "Register" in [b.get("label") for b in announcement.buttons]
    assert occ.announcement == (pan.h.channel.id, announcement.id)
    (event,) = events(pan)
    assert event.name == "Friday Pan" and event.entity_type == 3 and event.status == 1
    assert event.location == f"https://discord.com/channels/{pan.h.guild.id}/{pan.h.channel.id}/{announcement.id}"
    assert iso_ms(event.scheduled_start_time) == start
    assert event.scheduled_end_time is not None and iso_ms(event.scheduled_end_time) == start + 3_600_000  # 1 h min
    assert "buy-in 50 chips" in (event.description or "") and event.location in (event.description or "")
    async with pan.rt.storage.transaction(write=False) as tx:
        stored = await tx.fetchall(
            "SELECT event_id FROM tournament_events WHERE tournament_id = ?", (occ.tournament_id,)
        )
    assert stored == [(event.id,)]

    tid = occ.tournament_id
    reply = await pan.slash(ana, "tourney register", tournament=str(tid))
    await pan.slash(host, "tourney addbots", count=1, level="easy", tournament=str(tid))
    await pan.slash(host, "tourney start", tournament=str(tid))
    # active once started: the edit to status 2 was made (a short tournament may already be over, the event completed)
    await until(pan, lambda: moved_to(pan, 2), "the event active")
    await wait_until_over(pan, tid)
    await until(pan, lambda: pan.h.guild.scheduled_events[event.id].status == 3, "the event completed")
    assert service_of(pan).get(tid).status is Status.FINISHED

    # a week later: the next occurrence is announced and published, a week after the first
    service_of(pan).use_clock(lambda: time.time() + 7 * 86_400)
    await until(pan, lambda: len(events(pan)) == 2, "the second week's event")
    second = occurrences(pan)[-1]
    assert second.config.start_at_ms == start + WEEK_MS and second.status is Status.REGISTERING
    (new,) = [e for e in events(pan) if e.id != event.id]
    assert iso_ms(new.scheduled_start_time) == start + WEEK_MS and new.status == 1
    assert await count(pan, "SELECT COUNT(*) FROM tournament_occurrences") == 2
    assert pan.h.problems() == []


async def test_a_kill_between_the_commit_and_the_event_call_still_makes_one_event(pan_factory: PanFactory) -> None:
    pan = await pan_factory()
    host = pan.users[0]
    await with_template(pan)
    hold = pan.h.fake.hold_next("POST /guilds/*/scheduled-events")  # Discord never sees the first try
    await pan.h.slash(host, "tourney schedule weekly", template="Friday Pan", start="+90", settle=False)
    await asyncio.wait_for(hold.arrived.wait(), 10)
    stopping = asyncio.ensure_future(pan.h.stop_bot())
    await asyncio.sleep(0.1)
    hold.release(drop=True)
    await stopping
    assert events(pan) == []
    await pan.h.start_bot(pan.h.db_path, **pan.h._bot_options)
    await until(pan, lambda: len(events(pan)) == 1, "the event after the restart")
    (occ,) = occurrences(pan)
    item = await settled_item(pan)
    assert item.status == "done" and item.result == str(events(pan)[0].id)
    assert await count(pan, "SELECT COUNT(*) FROM tournament_occurrences") == 1  # nothing created twice
    assert len([m for m in public(pan, pan.h.channel.id) if "Friday Pan" in m.text]) == 1
    assert occ.status is Status.REGISTERING


async def test_a_kill_after_discord_made_the_event_finds_it_again(pan_factory: PanFactory) -> None:
    pan = await pan_factory()
    host = pan.users[0]
    await with_template(pan)
    hold = pan.h.fake.hold_next("POST /guilds/*/scheduled-events", after=True)  # made; the answer never arrives
    await pan.h.slash(host, "tourney schedule weekly", template="Friday Pan", start="+90", settle=False)
    await asyncio.wait_for(hold.arrived.wait(), 10)
    stopping = asyncio.ensure_future(pan.h.stop_bot())
    await asyncio.sleep(0.1)
    hold.release()
    await stopping
    assert len(events(pan)) == 1
    await pan.h.start_bot(pan.h.db_path, **pan.h._bot_options)
    item = await settled_item(pan)
    assert item.status == "done"
    (event,) = events(pan)  # found by its mark, not made twice
    assert item.result == str(event.id)
    assert len([c for c in pan.h.fake.calls if c.route == CREATE_EVENT]) == 1


async def test_without_manage_events_the_tournament_goes_on_and_the_host_is_told_once(pan_factory: PanFactory) -> None:
    pan = await pan_factory()
    host = pan.users[0]
    await with_template(pan)
    pan.h.fake.deny_events(pan.h.guild)
    await pan.slash(host, "tourney schedule weekly", template="Friday Pan", start="+90", announce_hours=48)
    await until(pan, lambda: len(occurrences(pan)) == 1, "the occurrence")
    item = await settled_item(pan)
    assert item.status == "failed" and "Manage Events" in (item.last_error or "")
    notices = [m for m in public(pan, pan.h.channel.id) if "Manage Events" in m.text]
    assert len(notices) == 1 and f"<@{host.id}>" in notices[0].text
    (occ,) = occurrences(pan)
    assert occ.status is Status.REGISTERING and events(pan) == []
    service_of(pan).use_clock(lambda: time.time() + 7 * 86_400)  # the next week: still no second notice
    await until(pan, lambda: len(occurrences(pan)) == 2, "the second occurrence")
    await asyncio.sleep(0.5)
    await pan.settle()
    assert len([m for m in public(pan, pan.h.channel.id) if "Manage Events" in m.text]) == 1
    assert pan.h.fake.violations == []


async def test_bad_schedules_and_templates_are_refused_privately_with_nothing_stored(pan_factory: PanFactory) -> None:
    pan = await pan_factory()
    host, ana = pan.users[0], pan.users[1]
    t = await with_template(pan)
    pan.h.plain_member(ana)  # neither host nor moderator
    schedules = "SELECT COUNT(*) FROM tournament_schedules"
    for options, words in (
        ({"template": "Friday Pan", "start": "2020-01-01 19:00"}, "future"),
        ({"template": "Friday Pan", "start": "next friday"}, "YYYY-MM-DD"),
        ({"template": "Saturday", "start": "+90"}, "no template"),
    ):
        reply = await pan.slash(host, "tourney schedule weekly", **options)
        assert private_to(reply, host) and words in reply.text, reply.text
        assert await count(pan, schedules) == 0
    reply = await pan.slash(ana, "tourney template save", name="Mine", tournament=str(t.tournament_id))
    assert private_to(reply, ana) and "host" in reply.text  # not its host
    assert await count(pan, "SELECT COUNT(*) FROM tournament_templates") == 1
    reply = await pan.slash(ana, "tourney template delete", name="Friday Pan")
    assert private_to(reply, ana) and await count(pan, "SELECT COUNT(*) FROM tournament_templates") == 1

    await pan.slash(host, "tourney schedule weekly", template="Friday Pan", start="2099-12-11 19:00")
    (s,) = service_of(pan).schedules.of_guild(pan.h.guild.id)
    reply = await pan.slash(host, "tourney schedule list")
    assert private_to(reply, host) and str(s.schedule_id) in reply.text and "until stopped" in reply.text
    reply = await pan.slash(ana, "tourney schedule stop", schedule=str(s.schedule_id))  # neither host nor moderator
    assert private_to(reply, ana) and "host" in reply.text
    reply = await pan.slash(host, "tourney schedule stop", schedule="nope")
    assert private_to(reply, host) and "number" in reply.text
    assert await count(pan, "SELECT COUNT(*) FROM tournament_schedules WHERE stopped_ms IS NULL") == 1
    reply = await pan.slash(host, "tourney schedule stop", schedule=str(s.schedule_id))
    assert private_to(reply, host) and "Stopped" in reply.text
    assert await count(pan, "SELECT COUNT(*) FROM tournament_schedules WHERE stopped_ms IS NULL") == 0


async def test_a_cancelled_occurrence_cancels_its_event(pan_factory: PanFactory) -> None:
    pan = await pan_factory()
    host = pan.users[0]
    await with_template(pan)
    await pan.slash(host, "tourney schedule weekly", template="Friday Pan", start="+90")
    await until(pan, lambda: len(events(pan)) == 1, "the event")
    (occ,) = occurrences(pan)
    (event,) = events(pan)
    await pan.slash(host, "tourney cancel", tournament=str(occ.tournament_id))
    await until(pan, lambda: pan.h.guild.scheduled_events[event.id].status == 4, "the event canceled")
    assert service_of(pan).get(occ.tournament_id).status is Status.CANCELLED
    assert pan.h.fake.violations == []
