"""A tournament in the league, through the fake Discord: a finished Sit & Go counts in /pan stats once, also when the
process dies right after its end is stored; a tournament listed in a series counts in that series' standings."""

from __future__ import annotations

import asyncio

import pytest

from pancog.services.league import repo
from tests.e2e.conftest import PanFactory, private_to
from tests.e2e.test_tourney import fast, public, three_people_play_out  # noqa: F401 (fast: the pace fixture)
from tests.e2e.test_tourney_floor import end_while_dead, until
from tests.fakediscord import server as fake_server


@pytest.fixture(autouse=True)
def no_background_drain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside the tournament tests' pace (``fast``, autouse here too): the league's tick never drains meanwhile, only
    the reads do."""
    monkeypatch.setenv("PAN_SEASON_CHECK_SECONDS", "3600")


async def test_a_sit_and_go_counts_in_stats_once_after_a_kill_right_after_the_end(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process dies right after the tournament's end is stored (no event handled, nothing drained): after the
    restart /pan stats shows the tournament played (cashed, won as the tournament placed them) exactly once."""
    pan = await pan_factory()
    host, ana, _, _ = pan.users
    service = pan.rt.tournaments
    assert service is not None
    tid = await end_while_dead(pan, monkeypatch, "League SnG")
    done = service.get(tid)
    expect = {e.player_id: (e.place, e.prize) for e in done.entries.values()}
    await pan.h.restart()
    await asyncio.sleep(0.2)
    for user in (host, ana):
        place, prize = expect[user.id]
        reply = await pan.slash(user, "pan stats")
        assert private_to(reply, user)
        assert f"Tournaments played / cashed / won: 1 / {int(prize > 0)} / {int(place == 1)}" in reply.text
    league = pan.rt.league
    assert league is not None
    async with league.storage.transaction(write=False) as tx:
        stats = {r.user_id: r.tourneys_played for r in await repo.all_stats(tx, pan.h.guild.id, 0)}
    assert stats == {host.id: 1, ana.id: 1}
    await until(pan, lambda: bool([m for m in public(pan, pan.h.channel.id) if "is over" in m.text]), 30)
    assert len([m for m in public(pan, pan.h.channel.id) if "is over" in m.text]) == 1  # posted once, after all


async def test_a_tournament_created_in_a_series_counts_in_its_standings(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/tourney create series: lists the new tournament in that series; an unknown series, or a host who is not a
    moderator, is refused privately and nothing is stored; the finished tournament's places score in /pan standings
    series: (and in each player's stats)."""
    pan = await pan_factory()
    host, ana = pan.users[:2]
    mod = pan.h.moderator
    service, league = pan.rt.tournaments, pan.rt.league
    assert service is not None and league is not None
    await pan.slash(mod, "panadmin series", name="Cup", points="10,6,3", best=4)
    reply = await pan.slash(host, "tourney create", seats=3, series="Nope")
    assert private_to(reply, host) and "No such series" in reply.text
    with monkeypatch.context() as m:
        m.setattr(fake_server, "ALL_PERMISSIONS", "0")  # nobody has Manage Server: nobody is a moderator
        reply = await pan.slash(ana, "tourney create", seats=3, series="Cup")
        assert private_to(reply, ana) and "Only moderators can list a tournament in a series." in reply.text
    assert service.tournaments == ()
    async with league.storage.transaction(write=False) as tx:
        assert await tx.fetchall("SELECT * FROM tournaments") == []
        assert await tx.fetchall("SELECT * FROM league_series_events") == []
    tid, text = await three_people_play_out(pan, series="Cup")
    assert "Listed as an event of the series Cup" in text
    places = {e.player_id: e.place for e in service.get(tid).entries.values()}
    reply = await pan.slash(ana, "pan standings", series="Cup")
    assert private_to(reply, ana)
    lines = reply.text.splitlines()
    assert lines[0] == "**Series Cup — best 4 of 1 event** (1 finished)"
    points = {1: 10, 2: 6, 3: 3}
    for user in pan.users[:3]:
        want = points[places[user.id]]
        assert any(f"{user.name} — {want} points" in line for line in lines[1:]), (user.name, want, reply.text)
    prizes = {e.player_id: e.prize for e in service.get(tid).entries.values()}
    for user in pan.users[:3]:  # places shared by a tie count as won by each of them
        reply = await pan.slash(user, "pan stats")
        won, cashed = int(places[user.id] == 1), int(prizes[user.id] > 0)
        assert f"Tournaments played / cashed / won: 1 / {cashed} / {won}" in reply.text
    assert 1 in places.values()
