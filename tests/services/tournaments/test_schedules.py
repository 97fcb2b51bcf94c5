"""Templates and weekly schedules through the service, on a controlled clock (SQLite and PostgreSQL): each occurrence
created ``announce_hours`` ahead by the tick, exactly once across restarts and a failed commit; stopping; the
Scheduled Event's status owed through the outbox as the tournament moves on; every refusal storing nothing."""

from __future__ import annotations

import pytest

from pancog.game.errors import PanError
from pancog.services.outbox import Outbox
from pancog.services.table_session import NotHost
from pancog.services.tournaments.errors import BadSchedule, BadTournamentOption
from pancog.services.tournaments.levels import default_antes
from pancog.services.tournaments.model import Format, Status, TournamentConfig
from pancog.services.tournaments.schedules import (
    ANNOUNCE,
    EVENT,
    EVENT_STATUS,
    WEEK_MS,
    NoSuchSchedule,
    NoSuchTemplate,
    estimated_end_ms,
)
from pancog.services.tournaments.service import TournamentService
from tests.services.tournaments.test_service import GUILD, T_ID, Env, bot

HOST, MOD, OTHER = 42, 43, 44
HOUR = 3_600_000
S_ID = 990_000_001


def with_outbox(env: Env) -> Outbox:
    """The env's service again, with an outbox (what the bot wires), as a restarted process would build it."""
    outbox = Outbox(env.storage, clock=env.clock)
    env.service = TournamentService(env.tables, clock=env.clock, outbox=outbox)
    return outbox


def now_ms(env: Env) -> int:
    return int(env.clock.now * 1000)


async def a_template(env: Env, name: str = "Friday Pan", **extra: object) -> None:
    cfg = TournamentConfig(
        format=Format.SCHEDULED,
        title="the original",
        buy_in=100,
        fee=10,
        seats=4,
        starting_stack=300,
        antes=default_antes(10),
        start_at_ms=now_ms(env) + HOUR,
        min_entries=2,
        bounty=20,
        **extra,  # type: ignore[arg-type]
    )
    await env.service.create(T_ID, guild_id=GUILD, channel_id=7, host_id=HOST, config=cfg)
    await env.service.schedules.save_template(GUILD, name, env.service.get(T_ID), HOST, moderator=False)


async def count(env: Env, table: str) -> int:
    async with env.storage.transaction(write=False) as tx:
        rows = await tx.fetchall(f"SELECT COUNT(*) FROM {table}")  # noqa: S608
    return int(rows[0][0])


async def owed(outbox: Outbox, kind: str) -> list[str]:
    return sorted(i.key for i in await outbox.items(GUILD, kind=kind))


async def test_templates_save_list_replace_delete(storage) -> None:
    env = Env(storage, hand_seconds=60)
    with_outbox(env)
    await a_template(env)
    (tpl,) = await env.service.schedules.templates(GUILD)
    assert tpl.name == "Friday Pan" and tpl.created_by == HOST
    assert tpl.settings["title"] == "" and tpl.settings["start_at_ms"] is None  # the rest is the tournament's
    assert tpl.settings["buy_in"] == 100 and tpl.settings["bounty"] == 20 and tpl.settings["seats"] == 4
    schedules = env.service.schedules
    t = env.service.get(T_ID)
    with pytest.raises(NotHost):  # not its host, not a moderator
        await schedules.save_template(GUILD, "Mine", t, OTHER, moderator=False)
    with pytest.raises(BadSchedule):  # a name longer than a title
        await schedules.save_template(GUILD, "x" * 61, t, HOST, moderator=False)
    with pytest.raises(NotHost):
        await schedules.delete_template(GUILD, "Friday Pan", OTHER, moderator=False)
    with pytest.raises(NoSuchTemplate):
        await schedules.delete_template(GUILD, "Saturday", HOST, moderator=False)
    assert await count(env, "tournament_templates") == 1
    await schedules.save_template(GUILD, "friday pan", t, HOST, moderator=False)  # same name, any case: replaced
    assert [x.name for x in await schedules.templates(GUILD)] == ["friday pan"]
    assert await schedules.templates(GUILD + 1) == []  # per guild
    await schedules.delete_template(GUILD, "FRIDAY PAN", MOD, moderator=True)
    assert await count(env, "tournament_templates") == 0


async def test_a_sit_and_go_makes_no_template(storage) -> None:
    env = Env(storage, hand_seconds=60)
    with_outbox(env)
    await env.service.create(T_ID, guild_id=GUILD, channel_id=7, host_id=HOST, config=TournamentConfig(seats=4))
    with pytest.raises(BadSchedule):
        await env.service.schedules.save_template(GUILD, "SnG", env.service.get(T_ID), HOST, moderator=False)
    assert await count(env, "tournament_templates") == 0


async def test_weekly_occurrences_are_created_ahead_once_across_restarts_and_stop(storage) -> None:
    env = Env(storage, hand_seconds=60)
    outbox = with_outbox(env)
    await a_template(env)
    first = now_ms(env) + 3 * 86_400_000  # in three days
    s = await env.service.schedules.weekly(
        S_ID, guild_id=GUILD, channel_id=9, host_id=HOST, template="friday pan", first_start_ms=first, weeks=3
    )
    assert s.occurrences == 3 and s.announce_ms == 24 * HOUR  # the default: a day ahead
    before = {t.tournament_id for t in env.service.tournaments}
    await env.service.tick()
    assert {t.tournament_id for t in env.service.tournaments} == before  # not yet: two days to the window
    env.clock.now += 2 * 86_400 + 60  # the day before, plus a minute
    await env.service.tick()
    await env.service.tick()  # a second tick creates nothing more
    (occ,) = [t for t in env.service.tournaments if t.tournament_id not in before]
    assert occ.config.title == "Friday Pan" and occ.config.start_at_ms == first
    assert occ.channel_id == 9 and occ.host_id == HOST and occ.status is Status.REGISTERING
    assert occ.config.buy_in == 100 and occ.config.bounty == 20 and occ.config.fee == 10
    assert await owed(outbox, ANNOUNCE) == [f"sched:{S_ID}:0:a"]
    assert await owed(outbox, EVENT) == [f"sched:{S_ID}:0:e"]
    assert await env.service.schedules.occurrences(S_ID) == [(0, occ.tournament_id, first)]

    # a restart: a new service reads the schedule and creates nothing twice
    with_outbox(env)
    await env.tables.load()
    await env.service.load()
    await env.service.kick()
    await env.service.tick()
    assert await count(env, "tournament_occurrences") == 1
    assert len([t for t in env.service.tournaments if t.config.title == "Friday Pan"]) == 1

    env.clock.now += 7 * 86_400  # the next week's window: occurrence 1, a week after the first
    await env.service.tick()
    occurrences = await env.service.schedules.occurrences(S_ID)
    assert [(n, start) for n, _, start in occurrences] == [(0, first), (1, first + WEEK_MS)]
    assert len({tid for _, tid, _ in occurrences}) == 2

    with pytest.raises(NotHost):  # neither its host nor a moderator: nothing stored
        await env.service.schedules.stop(GUILD, S_ID, OTHER, moderator=False)
    with pytest.raises(NoSuchSchedule):
        await env.service.schedules.stop(GUILD + 1, S_ID, HOST, moderator=False)
    async with storage.transaction(write=False) as tx:
        assert (await tx.fetchall("SELECT stopped_ms FROM tournament_schedules"))[0][0] is None
    await env.service.schedules.stop(GUILD, S_ID, HOST, moderator=False)
    assert env.service.schedules.of_guild(GUILD) == []
    env.clock.now += 7 * 86_400
    await env.service.tick()
    assert await count(env, "tournament_occurrences") == 2  # stopped: no third


async def test_a_failed_commit_creates_nothing_and_the_next_tick_creates_it_once(storage) -> None:
    env = Env(storage, hand_seconds=60)
    outbox = with_outbox(env)
    await a_template(env)
    first = now_ms(env) + 2 * HOUR
    await env.service.schedules.weekly(
        S_ID, guild_id=GUILD, channel_id=9, host_id=HOST, template="Friday Pan", first_start_ms=first
    )
    real = outbox.enqueue
    calls = 0

    async def dies_on_the_event(tx, **kw):  # a crash inside the creating transaction, after the announcement
        nonlocal calls
        calls += 1
        if kw["kind"] == EVENT:
            raise RuntimeError("killed")
        return await real(tx, **kw)

    outbox.enqueue = dies_on_the_event  # type: ignore[method-assign]
    tournaments = await count(env, "tournaments")
    await env.service.tick()  # logged, not raised
    assert calls == 2
    assert await count(env, "tournaments") == tournaments  # rolled back: no tournament, no occurrence, no item
    assert await count(env, "tournament_occurrences") == 0
    assert await count(env, "tournament_events") == 0
    assert await owed(outbox, ANNOUNCE) == []
    assert env.service.schedules.schedules[S_ID].next_no == 0
    outbox.enqueue = real  # type: ignore[method-assign]
    await env.service.tick()
    await env.service.tick()
    assert await count(env, "tournaments") == tournaments + 1
    assert await count(env, "tournament_occurrences") == 1
    assert await owed(outbox, EVENT) == [f"sched:{S_ID}:0:e"]


async def test_a_window_missed_while_down_is_recorded_and_the_next_week_goes_on(storage) -> None:
    env = Env(storage, hand_seconds=60)
    with_outbox(env)
    await a_template(env)
    first = now_ms(env) + 2 * HOUR
    await env.service.schedules.weekly(
        S_ID, guild_id=GUILD, channel_id=9, host_id=HOST, template="Friday Pan", first_start_ms=first, weeks=2
    )
    env.clock.now += 7 * 86_400  # down through the whole first window; the second one is open
    tournaments = await count(env, "tournaments")
    await env.service.tick()
    occ = await env.service.schedules.occurrences(S_ID)
    assert occ[0][:2] == (0, None) and occ[1][0] == 1 and occ[1][1] is not None
    assert await count(env, "tournaments") == tournaments + 1  # never a tournament to start "now"
    assert env.service.schedules.of_guild(GUILD) == []  # two weeks: over


async def test_the_event_status_follows_the_tournament(storage) -> None:
    env = Env(storage, hand_seconds=300)
    outbox = with_outbox(env)
    await a_template(env, level_minutes=10)
    first = now_ms(env) + 2 * HOUR
    await env.service.schedules.weekly(
        S_ID, guild_id=GUILD, channel_id=9, host_id=HOST, template="Friday Pan", first_start_ms=first, weeks=2
    )
    await env.service.tick()
    occ = next(t for t in env.service.tournaments if t.config.title == "Friday Pan")
    assert estimated_end_ms(occ.config) == first + 150 * 60_000  # 15 levels of 10 minutes
    for n in (1, 2, 3):
        await env.service.register(occ.tournament_id, bot(n))
    assert await owed(outbox, EVENT_STATUS) == []
    env.clock.now += 2 * 3600
    await env.service.tick()  # the start: the event owes "active"
    assert env.service.get(occ.tournament_id).status is Status.RUNNING
    assert await owed(outbox, EVENT_STATUS) == [f"sched:ev:{occ.tournament_id}:2"]
    await env.run(occ.tournament_id)
    await env.service.tick()
    await env.service.tick()
    assert await owed(outbox, EVENT_STATUS) == [f"sched:ev:{occ.tournament_id}:2", f"sched:ev:{occ.tournament_id}:3"]

    # the next week's occurrence has too few entries at its start: cancelled, the event canceled
    env.clock.now = (first + WEEK_MS) / 1000 - 3600
    await env.service.tick()
    nxt = next(t for t in env.service.tournaments if t.config.title == "Friday Pan" and t is not occ)
    env.clock.now += 3601
    await env.service.tick()
    await env.service.tick()
    assert env.service.get(nxt.tournament_id).status is Status.CANCELLED
    assert f"sched:ev:{nxt.tournament_id}:4" in await owed(outbox, EVENT_STATUS)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"first": -60_000}, BadSchedule),  # in the past
        ({"weeks": 0}, BadSchedule),
        ({"weeks": 53}, BadSchedule),
        ({"hours": 0}, BadSchedule),
        ({"hours": 145}, BadSchedule),
        ({"template": "Saturday"}, NoSuchTemplate),
    ],
)
async def test_a_bad_schedule_is_refused_with_nothing_stored(storage, change, error) -> None:
    env = Env(storage, hand_seconds=60)
    with_outbox(env)
    await a_template(env)
    with pytest.raises(error) as caught:
        await env.service.schedules.weekly(
            S_ID,
            guild_id=GUILD,
            channel_id=9,
            host_id=HOST,
            template=str(change.get("template", "Friday Pan")),
            first_start_ms=now_ms(env) + int(change.get("first", 2 * HOUR)),
            weeks=change.get("weeks"),  # type: ignore[arg-type]
            announce_hours=int(change.get("hours", 24)),
        )
    assert isinstance(caught.value, PanError)
    assert await count(env, "tournament_schedules") == 0
    assert env.service.schedules.of_guild(GUILD) == []


@pytest.mark.parametrize("privilege", [{"guarantee": 1000}, {"winner_role_id": 777}])
async def test_a_template_with_the_house_s_money_or_a_role_is_scheduled_by_a_moderator_only(storage, privilege) -> None:
    env = Env(storage, hand_seconds=60)
    with_outbox(env)
    await a_template(env, **privilege)
    with pytest.raises(BadTournamentOption):
        await env.service.schedules.weekly(
            S_ID, guild_id=GUILD, channel_id=9, host_id=HOST, template="Friday Pan",
            first_start_ms=now_ms(env) + 2 * HOUR,
        )  # fmt: skip
    assert await count(env, "tournament_schedules") == 0
    await env.service.schedules.weekly(
        S_ID, guild_id=GUILD, channel_id=9, host_id=MOD, template="Friday Pan",
        first_start_ms=now_ms(env) + 2 * HOUR, moderator=True,
    )  # fmt: skip
    assert await count(env, "tournament_schedules") == 1
