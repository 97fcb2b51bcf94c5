"""Chip leagues through the fake Discord: a season started, hands played, stats, leaderboard, flags, ended, and
its standings viewable afterwards; refusals are private and change nothing."""

from __future__ import annotations

import pytest

from pancog.services.ledger import BankScope
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
    assert reply.text.splitlines()[1] == "No eligible players yet."  # one rated hand: nobody is established (30)
    assert reply.text.splitlines()[-1] == "You are not listed yet: you need 29 more rated results."
    reply = await pan.slash(b, "pan leaderboard", metric="rating")
    assert all("?" in line for line in reply.text.splitlines()[1:3]), reply.text  # one rated hand: "3.4?"
    reply = await pan.slash(b, "panadmin league", established=1)
    assert private_to(reply, b) and "established after 1 rated result " in reply.text
    reply = await pan.slash(b, "pan leaderboard", metric="net", period="season")
    winner_line = reply.text.splitlines()[1]
    assert winner_line.startswith("1. player1") and "+" in winner_line
    assert reply.text.splitlines()[2] == "2. player2 — -5 chips ← you"  # the caller's own place, marked
    assert reply.text.splitlines()[3].startswith("-# Listed: players with 1 rated result or more")
    reply = await pan.slash(b, "pan leaderboard", metric="rating")
    assert not any("?" in line for line in reply.text.splitlines()[1:3]), reply.text  # established after one
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


async def test_a_bank_season_plays_from_season_banks_and_leaves_the_bank_alone(pan: Pan) -> None:
    """'bank' mode through the commands: the season start offers it, a table opened in it buys in from the season
    banks, /pan balance, stats, leaderboard and standings show the season banks, the end closes the season's table
    (stacks back to the season banks) and then the banks themselves, and the all-time bank never moves."""
    a, b = pan.users[:2]
    mod = pan.h.moderator
    guild = pan.h.guild.id
    league, ledger = pan.rt.league, pan.rt.ledger
    assert league is not None
    all_time = {u.id: await ledger.ensure_player(guild, u.id) for u in (a, b)}
    assert all_time == {a.id: 1000, b.id: 1000}

    reply = await pan.slash(mod, "panadmin league", established=0)  # the season board lists who played lately
    assert private_to(reply, mod) and "established after 0 rated results" in reply.text
    reply = await pan.slash(mod, "panadmin season start", name="Winter", mode="bank", starting_chips=800)
    assert private_to(reply, mod) and "season bank of 800 chips" in reply.text
    season = await league.active_season(guild)
    assert season is not None and season.mode == "bank" and season.scope_id > 0
    await pan.slash(a, "pan open")  # the host sits with the default buy-in: 5 minimums (100 chips) of his season bank
    reply = await pan.slash(b, "pan join")
    assert private_to(reply, b) and "You sat down with 100 chips. Season bank: 700 chips." in reply.text
    session = pan.session()
    assert session.guild_id == guild and session.bank_scope == season.bank_scope
    assert {u.id: await league.season_bank(guild, u.id) for u in (a, b)} == {a.id: 700, b.id: 700}
    reply = await pan.slash(a, "pan balance")
    assert private_to(reply, a)
    assert "Bank: 1,000 chips." in reply.text and "Season 1 (Winter) bank: 700 chips. Plus 100 chips" in reply.text

    await play_two(pan)  # player1 goes out
    assert pan.session().state.hand is None
    reply = await pan.slash(b, "pan stats", player=a)
    assert private_to(reply, b) and "Season 1 bank: 700 chips" in reply.text and "Hands dealt: 1" in reply.text
    reply = await pan.slash(a, "pan leaderboard", metric="chips", period="season")
    lines = reply.text.splitlines()  # what each has: the season bank and the chips still on the season's table
    assert private_to(reply, a) and lines[0] == "**Leaderboard — chips (season bank + at tables), season 1 (Winter)**"
    assert lines[1:] == [
        "1. player1 — 805 chips (season bank 700 + 105 at tables) ← you",
        "2. player2 — 795 chips (season bank 700 + 95 at tables)",
        "-# Listed: players with 0 rated results or more who played in the last 14 days.",
    ]
    reply = await pan.slash(a, "pan standings")
    first = reply.text.splitlines()[1]
    assert first.startswith("1. player1 — 805 chips (season bank 700 + 105 at tables), +5 won"), reply.text

    reply = await pan.slash(mod, "panadmin season end")
    assert private_to(reply, mod) and "Final standings" in reply.text and "Champion: player1" in reply.text
    assert pan.rt.tables.find_in_channel(pan.h.channel.id) is None  # the season's table closed first
    closing = [m.text for m in pan.h.messages() if "The season has ended" in m.text]
    assert len(closing) == 1 and "player1:" in closing[0] and "player2:" in closing[0]
    async with pan.rt.storage.transaction(write=False) as tx:
        standings = await tx.fetchall(
            "SELECT user_id, chips FROM league_standings WHERE guild_id = ? AND season_no = 1 ORDER BY place", (guild,)
        )
    assert [u for u, _ in standings] == [a.id, b.id] and sum(c for _, c in standings) <= 1600
    assert standings[0][1] > 800 > standings[1][1]  # after the table closed: the hand's winner is up
    assert {u.id: await ledger.balance(guild, u.id) for u in (a, b)} == all_time  # untouched
    assert {u.id: await ledger.balance(season.bank_scope, u.id) for u in (a, b)} == {a.id: 0, b.id: 0}  # closed
    assert (await ledger.audit()).ok
    reply = await pan.slash(a, "pan standings", season=1)
    assert "ended" in reply.text and "Champion: player1" in reply.text and "in the season bank" in reply.text

    await pan.slash(a, "pan open")  # between seasons: tables play from the ordinary bank again
    assert pan.session().bank_scope == BankScope.guild(guild) and await ledger.balance(guild, a.id) == 900


async def test_in_a_cluster_only_the_guilds_own_process_ends_its_due_season(pan: Pan) -> None:
    """Every process runs the due-season check over every guild; one that does not own the guild's shard must leave
    the season alone (its tables are elsewhere and must close before the banks do); the owner closes the season's
    table, then ends the season."""
    from pancog.infra.storage import ShardSet

    league = pan.rt.league
    assert league is not None
    a, b = pan.users[:2]
    guild = pan.h.guild.id
    await pan.slash(pan.h.moderator, "panadmin season start", name="Due", length=1, mode="bank", starting_chips=800)
    await pan.slash(a, "pan open")
    await pan.slash(b, "pan join")
    table = pan.session()
    own = ShardSet(4, (0,)).shard_of(guild)
    cog = pan.h.bot.get_cog("PanLeague")
    league._clock = lambda: 10**12  # far past the planned end
    store = pan.rt.store
    try:
        store.shards = ShardSet(4, tuple(s for s in range(4) if s != own))  # a process of the other shards
        assert await cog.end_due_seasons() == 0  # type: ignore[union-attr]
        assert [s.status for s in await league.seasons(guild)] == ["active"]
        assert pan.rt.tables.get(table.table_id) is table  # its table plays on
        store.shards = ShardSet(4, (own,))  # the guild's own process
        store.epochs = {own: await _lease(pan, own)}
        assert await cog.end_due_seasons() == 1  # type: ignore[union-attr]
    finally:
        store.shards, store.epochs = None, {}
    assert [s.status for s in await league.seasons(guild)] == ["ended"]
    assert table.table_id not in {s.table_id for s in pan.rt.tables.sessions}
    audit = await pan.slash(pan.h.moderator, "panadmin audit")
    assert audit.text.startswith("Ledger audit: OK"), audit.text


async def _lease(pan: Pan, shard: int) -> int:
    """Take shard ``shard``'s lease (of 4) for this in-process bot, as a cluster process would; its epoch."""
    from pancog.infra.storage import ShardSet

    async with pan.rt.storage.transaction() as tx:
        epochs = await tx.take_shard_leases(ShardSet(4, (shard,)), "test", 0.0)
    return epochs[shard]


async def test_the_season_end_event_closes_the_seasons_tables_a_process_still_has(pan: Pan) -> None:
    """The handler every process runs when a season-end event arrives (pancog/infra/coord.py delivers it): it forgets
    the cached season and closes its open tables on that season's banks, stacks back to the season banks."""
    league = pan.rt.league
    assert league is not None
    a, b = pan.users[:2]
    guild = pan.h.guild.id
    await pan.slash(pan.h.moderator, "panadmin season start", name="Gone", mode="bank", starting_chips=800)
    season = await league.active_season(guild)
    assert season is not None
    await pan.slash(a, "pan open")
    await pan.slash(b, "pan join")
    table = pan.session()
    cog = pan.h.bot.get_cog("PanLeague")
    await cog.season_ended({"guild_id": guild, "scope_id": season.scope_id + 1})  # type: ignore[union-attr]
    assert pan.rt.tables.get(table.table_id) is table  # another scope's end: not this table
    await cog.season_ended({"guild_id": guild, "scope_id": season.scope_id})  # type: ignore[union-attr]
    await pan.h.idle()
    assert table.table_id not in {s.table_id for s in pan.rt.tables.sessions}
    assert "season" in pan.h.last_message(table_channel(pan, table)).text.lower()
    audit = await pan.slash(pan.h.moderator, "panadmin audit")
    assert audit.text.startswith("Ledger audit: OK"), audit.text


def table_channel(pan: Pan, table: object) -> object:
    return next(c for c in pan.h.guild.channels if c.id == table.channel_id)  # type: ignore[attr-defined]


async def test_a_series_of_tournaments_best_results_count(pan: Pan) -> None:
    """A moderator makes a series (points per place, best 1 counts) and lists two tournaments; their results, as
    the tournament service records them, make the standings a player reads with /pan standings series:."""
    a, b = pan.users[:2]
    mod = pan.h.moderator
    league = pan.rt.league
    assert league is not None
    guild = pan.h.guild.id
    reply = await pan.slash(mod, "panadmin series", name="Cup", points="10,6")
    assert private_to(reply, mod) and "Give both points: and best:" in reply.text
    reply = await pan.slash(a, "pan standings", series="Cup")
    assert private_to(reply, a) and "No such series" in reply.text
    reply = await pan.slash(mod, "panadmin series", name="Cup", points="10,6", best=1, add_tourney=501)
    assert private_to(reply, mod) and "Series saved.\nTournament listed." in reply.text
    assert "No finished events yet." in reply.text
    await pan.slash(mod, "panadmin series", name="Cup", add_tourney=502)
    await league.record_tournament(guild, 501, [(a.id, 1), (b.id, 2)])
    await league.record_tournament(guild, 502, [(b.id, 1), (a.id, 2)])
    reply = await pan.slash(b, "pan standings", series="Cup")
    assert private_to(reply, b)
    assert reply.text.splitlines() == [
        "**Series Cup — best 1 of 2 events** (2 finished)",
        "1. player1 — 10 points (10 from 2 events)",
        "1. player2 — 10 points (10 from 2 events)",
        "-# Points by place: 10, 6",
    ]
