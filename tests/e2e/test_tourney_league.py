"""A tournament in the league, through the fake Discord: a finished Sit & Go counts in /pan stats once, also when the
process dies right after its end is stored; a tournament listed in a series counts in that series' standings."""

from __future__ import annotations

import asyncio

import pytest

from pancog.services.league import repo
from tests.e2e.conftest import PanFactory, private_to
from tests.e2e.test_tourney import public, wait_until_over


@pytest.fixture(autouse=True)
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    monkeypatch.setenv("PAN_CLOCK_SCALE", "300")
    monkeypatch.setenv("PAN_TIME_BANK_SECONDS", "0")
    monkeypatch.setenv("PAN_TOURNEY_TICK", "0.1")
    monkeypatch.setenv("PAN_DEAL_SEED", "15")
    monkeypatch.setenv("PAN_SEASON_CHECK_SECONDS", "3600")  # no background drain: the reads drain


async def test_a_sit_and_go_counts_in_stats_once_after_a_kill_right_after_the_end(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process dies right after the tournament's end is stored (no event handled, nothing drained): after the
    restart /pan stats shows the tournament played (cashed, won as the tournament placed them) exactly once."""
    from pancog.adapter.tourney_cog import TourneyCog
    from pancog.services.tournaments.service import TournamentFinished

    pan = await pan_factory()
    host, ana, _, _ = pan.users
    service = pan.rt.tournaments
    assert service is not None
    await pan.slash(host, "tourney create", seats=3, buy_in=100, antes="10,20,40,80,160,320,640", title="League SnG")
    await pan.slash(host, "tourney register")
    await pan.slash(ana, "tourney register")
    (t,) = service.tournaments
    tid = t.tournament_id
    original = TourneyCog._handle

    async def dies_at_the_end(self: TourneyCog, event: object) -> None:  # the kill: nothing after the commit runs
        if not isinstance(event, TournamentFinished):
            await original(self, event)  # type: ignore[arg-type]

    monkeypatch.setattr(TourneyCog, "_handle", dies_at_the_end)
    await pan.slash(host, "tourney addbots", count=1, level="easy")
    await wait_until_over(pan, tid)
    done = service.get(tid)
    expect = {e.player_id: (e.place, e.prize) for e in done.entries.values()}
    monkeypatch.setattr(TourneyCog, "_handle", original)
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
    assert len([m for m in public(pan, pan.h.channel.id) if "is over" in m.content]) == 1
