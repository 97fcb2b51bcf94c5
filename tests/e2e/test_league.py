"""Chip leagues through the fake Discord: a season started, hands played, stats, leaderboard, flags, ended, and
its standings viewable afterwards; refusals are private and change nothing."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Pan, private_to
from tests.e2e.test_table_commands import play_two
from tests.fakediscord import server as fake_server


async def test_a_season_start_play_end_standings(pan: Pan) -> None:
    a, b = pan.users[:2]
    mod = pan.h.moderator
    reply = await pan.slash(mod, "panadmin season start", name="Autumn", length=30)
    assert private_to(reply, mod) and "Season 1 **Autumn** has started" in reply.text
    reply = await pan.slash(mod, "panadmin season start", name="Again")
    assert private_to(reply, mod) and "still running" in reply.text  # refused, nothing started
    assert [s.number for s in await pan.rt.league.seasons(pan.h.guild.id)] == [1]  # type: ignore[union-attr]

    await pan.seat(2)
    await play_two(pan)  # player1 goes out
    assert pan.session().state.hand is None

    reply = await pan.slash(b, "pan stats", player=a)
    assert private_to(reply, b)
    assert "Hands dealt: 1" in reply.text and "Went out: 1" in reply.text and "season 1 (Autumn)" in reply.text
    assert reply.files and reply.files[0][0] == "stats.png" and reply.files[0][1].startswith(b"\x89PNG")
    reply = await pan.slash(b, "pan leaderboard", metric="net", period="season")
    winner_line = reply.text.splitlines()[1]
    assert winner_line.startswith("1. player1") and "+" in winner_line
    assert "You: #2" in reply.text and "-" in reply.text.splitlines()[-1]  # the caller's own rank line
    reply = await pan.slash(a, "pan standings")
    assert private_to(reply, a) and reply.text.splitlines()[1].startswith("1. player1")

    reply = await pan.slash(mod, "panadmin flags")
    assert private_to(reply, mod) and "No flags" in reply.text

    reply = await pan.slash(mod, "panadmin season end")
    assert private_to(reply, mod) and "Final standings" in reply.text and "Champion: player1" in reply.text
    reply = await pan.slash(a, "pan standings", season=1)
    assert "ended" in reply.text and "Champion: player1" in reply.text
    reply = await pan.slash(a, "pan leaderboard", metric="net", period="season")
    assert private_to(reply, a) and "No such season" in reply.text
    reply = await pan.slash(a, "pan standings", season=7)
    assert private_to(reply, a) and "No such season" in reply.text


async def test_league_refusals_are_private_and_change_nothing(pan: Pan, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = pan.users[:2]
    league = pan.rt.league
    assert league is not None
    with monkeypatch.context() as m:  # the fake gives every member every permission; take Manage Server away
        m.setattr(fake_server, "ALL_PERMISSIONS", "0")
        reply = await pan.slash(a, "panadmin season start", name="Mine")
        assert private_to(reply, a) and "Manage Server" in reply.text
        reply = await pan.slash(a, "panadmin flags", exclude=b, reason="dumping")
        assert private_to(reply, a) and "Manage Server" in reply.text
    assert await league.seasons(pan.h.guild.id) == []
    reply = await pan.slash(pan.h.moderator, "panadmin season end")
    assert private_to(reply, pan.h.moderator) and "No such season" in reply.text
    reply = await pan.slash(pan.h.moderator, "panadmin flags", exclude=b, reason="dumping")
    assert private_to(reply, pan.h.moderator) and "No such season" in reply.text
    await pan.slash(pan.h.moderator, "panadmin season start", name="S")
    reply = await pan.slash(pan.h.moderator, "panadmin flags", exclude=b, reason="   ")
    assert private_to(reply, pan.h.moderator) and "reason" in reply.text
    assert (await league.season_info(pan.h.guild.id)).exclusions == ()
    reply = await pan.slash(pan.h.moderator, "panadmin flags", exclude=b, reason="fed by a friend")
    assert "left out" in reply.text
    info = await league.season_info(pan.h.guild.id)
    assert [(u, r) for u, _, r, _ in info.exclusions] == [(b.id, "fed by a friend")]


async def test_a_season_whose_length_is_up_is_ended_by_the_background_check(pan: Pan) -> None:
    league = pan.rt.league
    assert league is not None
    await pan.slash(pan.h.moderator, "panadmin season start", name="Short", length=1)
    cog = pan.h.bot.get_cog("PanLeague")
    assert await cog.end_due_seasons() == 0  # type: ignore[union-attr]  # not due yet: nothing ends
    league._clock = lambda: 10**12  # far past the planned end
    assert await cog.end_due_seasons() == 1  # type: ignore[union-attr]
    assert await cog.end_due_seasons() == 0  # type: ignore[union-attr]  # idempotent
    assert [s.status for s in await league.seasons(pan.h.guild.id)] == ["ended"]


async def test_the_background_tick_drains_the_league(pan: Pan) -> None:
    """A settled hand waits on its journal row until a drain; the cog's background tick is one (so a later
    /pan stats has nothing to fold), and it drains once: a second tick changes nothing."""
    from pancog.services.league import repo

    league = pan.rt.league
    assert league is not None
    guild = pan.h.guild.id
    await pan.seat(2)
    await play_two(pan)

    async def dealt() -> dict[int, int]:
        async with league.storage.transaction(write=False) as tx:
            return {r.user_id: r.hands_dealt for r in await repo.all_stats(tx, guild, 0)}

    assert await dealt() == {}
    cog = pan.h.bot.get_cog("PanLeague")
    assert await cog.tick() == 0  # type: ignore[union-attr]  # no season is due
    a, b = pan.users[:2]
    assert await dealt() == {a.id: 1, b.id: 1}
    assert await cog.tick() == 0  # type: ignore[union-attr]
    assert await dealt() == {a.id: 1, b.id: 1}
    reply = await pan.slash(a, "pan stats")
    assert private_to(reply, a) and "Hands dealt" in reply.text and "1 (100% of hands played)" in reply.text
