"""A season's end owes its winners their role through the durable outbox, in the ending transaction (both
backends): one item per human placed 1..3, none for a computer or the 4th, nothing if the end rolls back, nothing
twice on a retried end or rollover; a moderator's retry finds them (and owes them for a season ended before)."""

from __future__ import annotations

import pytest

from pancog.services.league import ROLE_GRANT, LeagueService, NoSeason, repo
from pancog.services.outbox import Outbox

from .conftest import GUILD, Env
from .test_seasons import hand

ROLE = 777


class Boom(Exception):
    pass


def with_outbox(env: Env) -> tuple[LeagueService, Outbox]:
    outbox = Outbox(env.storage, clock=env.clock)
    return LeagueService(env.storage, env.ledger, clock=env.clock, outbox=outbox), outbox


async def play_season(league: LeagueService) -> None:
    await league.start_season(GUILD, "Roles", role_id=ROLE)
    for _ in range(3):
        await league.record_hand(GUILD, hand(1, [2, 3, 4]))
    await league.record_hand(GUILD, hand(2, [3, 4], chips=5))
    await league.record_hand(GUILD, hand(-7, [4], chips=1))  # a computer player does well too
    await league.record_hand(GUILD, hand(3, [4], chips=1))


async def test_the_end_owes_each_human_winner_the_role_once(backend_env: Env) -> None:
    league, outbox = with_outbox(backend_env)
    await play_season(league)
    woken: list[int] = []
    outbox.subscribe(lambda: woken.append(1))
    info = await league.end_season(GUILD)
    places = {r.user_id: r.place for r in info.standings}
    winners = sorted(u for u, p in places.items() if p <= 3 and u > 0)
    items = await outbox.items(GUILD, prefix=LeagueService.role_prefix(GUILD, 1))
    assert [i.key for i in items] == [f"season:{GUILD}:1:role:{u}" for u in sorted(winners, key=str)]
    assert all(i.kind == ROLE_GRANT and i.payload["role_id"] == ROLE and i.status == "owed" for i in items)
    assert {i.payload["user_id"] for i in items} == set(winners) and 4 not in winners
    assert woken == [1]  # one wake, after the commit
    season, keys = await league.season_roles(GUILD)  # a moderator's retry: the same items, nothing new
    assert season.number == 1 and sorted(keys) == sorted(i.key for i in items)
    assert len(await outbox.items(GUILD)) == len(items)


async def test_an_end_that_rolls_back_owes_nothing(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    league, outbox = with_outbox(env)
    await play_season(league)

    async def broken(*_args: object, **_kwargs: object) -> None:
        raise Boom

    monkeypatch.setattr(repo, "exclusions", broken)  # fails after the items were written, in the same transaction
    with pytest.raises(Boom):
        await league.end_season(GUILD)
    monkeypatch.undo()
    assert await outbox.items(GUILD) == []
    assert (await league.active_season(GUILD)) is not None  # still running: nothing happened
    await league.end_season(GUILD)
    assert len(await outbox.items(GUILD)) == 3


async def test_a_season_ended_before_the_outbox_gets_its_items_when_a_moderator_asks(env: Env) -> None:
    await play_season(env.league)  # env.league has no outbox: the way seasons ended before V9
    await env.league.end_season(GUILD)
    league, outbox = with_outbox(env)
    assert await outbox.items(GUILD) == []
    season, keys = await league.season_roles(GUILD, 1)
    assert season.role_id == ROLE and len(keys) == 3
    assert len(await outbox.items(GUILD, prefix=LeagueService.role_prefix(GUILD, 1))) == 3
    with pytest.raises(NoSeason):
        await league.season_roles(GUILD, 2)
    await league.start_season(GUILD, "Running")
    with pytest.raises(NoSeason):  # a running season has no roles to give yet
        await league.season_roles(GUILD, 2)
    assert (await league.season_roles(GUILD))[0].number == 1  # the latest ended one


async def test_a_rollover_owes_the_ended_seasons_roles_once(env: Env) -> None:
    league, outbox = with_outbox(env)
    await play_season(league)
    await league.rollover(GUILD, 1, "Next")
    await league.rollover(GUILD, 1, "Next")  # a retry finds season 2: nothing owed twice
    assert len(await outbox.items(GUILD, prefix=LeagueService.role_prefix(GUILD, 1))) == 3
