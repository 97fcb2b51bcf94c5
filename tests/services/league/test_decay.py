"""Opt-in rating decay: the exact amount (day boundaries since the last result, rules in force at each), applied by
the fold before a result and shown on reads up to now, the same after a rebuild, and a warning a day before it starts
owed once per inactivity spell through the outbox. Both backends for the service."""

from __future__ import annotations

import pytest

from pancog.services.league import LeagueService, SeasonInputError
from pancog.services.league.decay import DAY, DecayRule, decay_due, decay_start
from pancog.services.outbox import Outbox
from tests.services.league.conftest import GUILD, Env

A, B, C = 11, 12, 13


def rule(since: int, points: int, after: int = 3, established: int = 1) -> DecayRule:
    return DecayRule(since=since, points=points, after=after, established=established)


def test_decay_due_counts_the_day_boundaries_beyond_the_grace_under_the_rule_in_force() -> None:
    last = 1_000_000
    week = [rule(0, 7000)]  # 7 points a week: 1 a day
    assert decay_due(week, last, last + 3 * DAY, 5) == 0  # within the 3 days' grace
    assert decay_due(week, last, last + 4 * DAY - 1, 5) == 0  # boundary 4 not reached
    assert decay_due(week, last, last + 4 * DAY, 5) == 1000  # boundary 4: the first day of decay, at or before
    assert decay_due(week, last, last + 10 * DAY + 5, 5) == 7000  # boundaries 4..10: a week
    assert decay_due(week, last, last + 10 * DAY, 0) == 0  # not established: no decay
    assert decay_due([rule(0, 7000, established=6)], last, last + 10 * DAY, 5) == 0
    assert decay_due([rule(0, 100)], last, last + 6 * DAY, 5) == 42  # 3 boundaries x 100 / 7, rounded down once
    # a rule turned on during the gap decays only the boundaries from its start; a change applies from its own
    piecewise = [rule(last + 6 * DAY, 7000), rule(last + 8 * DAY + 1, 14_000, after=1), rule(last + 9 * DAY + 1, 0)]
    # boundaries 6, 7, 8 under the first (1000 each), 9 under the second (2000), none under the third (off)
    assert decay_due(piecewise, last, last + 20 * DAY, 5) == 5000
    assert decay_start(rule(0, 7000), last) == last + 4 * DAY
    assert decay_start(rule(last + 6 * DAY + 5, 7000), last) == last + 7 * DAY


async def ratings(league: LeagueService) -> list[tuple[object, ...]]:
    async with league.storage.transaction(write=False) as tx:
        return list(
            await tx.fetchall(
                "SELECT guild_id, season_no, user_id, mu, sigma, rated, score FROM league_ratings "
                "ORDER BY guild_id, season_no, user_id"
            )
        )


async def test_decay_is_exact_folded_before_the_next_result_and_a_rebuild_gives_the_same(backend_env: Env) -> None:
    env = backend_env
    outbox = Outbox(env.storage, clock=env.clock)
    league = LeagueService(env.storage, env.ledger, clock=env.clock, outbox=outbox)
    start = int(env.clock.now)
    with pytest.raises(SeasonInputError):
        await league.configure(GUILD, decay=101)
    with pytest.raises(SeasonInputError):
        await league.configure(GUILD, decay=1, decay_after=0)
    assert (await league.league_settings(GUILD)).decay == 0  # off by default, and the refusals stored nothing
    settings = await league.configure(GUILD, established=2, decay=0.7, decay_after=3)  # 0.1 a day after 3 days
    assert (settings.decay, settings.decay_after, settings.established) == (700, 3, 2)
    await league.record_tournament(GUILD, 1, [(A, 1), (B, 2), (C, 3)])
    env.clock.now += 100
    await league.record_tournament(GUILD, 2, [(A, 1), (C, 2), (B, 3)])
    last = start + 100
    card = await league.player_card(GUILD, A)
    stored = card.rating.score
    assert stored > 1000 and card.rating.rated == 2

    # ten days later: boundaries 4..9 of the gap decay (the 10th is 100 s ahead): 6 x 700 / 7 = 600, shown now
    env.clock.now = last + 10 * DAY - 100
    assert (await league.player_card(GUILD, A)).rating.score == stored - 600
    board = await league.leaderboard(GUILD, metric="rating", period="all")
    assert next(line.value for line in board.lines if line.user_id == A) == stored - 600
    assert (await league.rating_history(GUILD, A)).rating.score == stored - 600

    # the result at that moment: its fold stores the same decay before rating it
    await league.record_tournament(GUILD, 3, [(B, 1), (A, 2), (C, 3)])
    (row,) = [h for h in await league.history(GUILD, A) if h.result_key == "tourney:3"]
    assert row.score_before == stored - 600
    # the admin doubles it, then a gap of 5 more days passes under both rules, and a fourth result is folded
    env.clock.now += DAY // 2
    await league.configure(GUILD, decay=1.4)
    env.clock.now += 5 * DAY
    await league.record_tournament(GUILD, 4, [(A, 1), (B, 2), (C, 3)])
    before = await ratings(league)
    history = [(h.result_key, h.score_before, h.score) for h in await league.history(GUILD, A)]
    await league.rebuild()
    assert await ratings(league) == before  # the very same floats: decay is a function of the timeline and rules
    assert [(h.result_key, h.score_before, h.score) for h in await league.history(GUILD, A)] == history


async def test_a_warning_a_day_before_decay_is_owed_once_per_inactivity_spell(backend_env: Env) -> None:
    env = backend_env
    outbox = Outbox(env.storage, clock=env.clock)
    league = LeagueService(env.storage, env.ledger, clock=env.clock, outbox=outbox)
    await league.configure(GUILD, established=1, decay=7, decay_after=3)
    await league.record_tournament(GUILD, 1, [(A, 1), (B, 2)])
    last = int(env.clock.now)
    env.clock.now = last + 3 * DAY - 1
    assert await league.decay_warnings(GUILD) == []  # more than a day before
    env.clock.now = last + 3 * DAY
    due = await league.decay_warnings(GUILD)
    assert [(w.user_id, w.starts_at, w.points) for w in due] == [(A, last + 4 * DAY, 7000)]  # B's rating is 0
    assert await league.owe_decay_warnings(GUILD, [(w, f"warn {w.user_id}") for w in due]) == 1
    assert await league.owe_decay_warnings(GUILD, [(w, "again") for w in due]) == 0  # the same spell: once
    env.clock.now += DAY // 2
    assert await league.decay_warnings(GUILD) == []  # warned already
    (item,) = await outbox.items(GUILD, prefix="league:decay:")
    assert (item.kind, dict(item.payload)) == ("message.dm", {"user_id": A, "content": f"warn {A}"})
    env.clock.now = last + 4 * DAY
    assert await league.decay_warnings(GUILD) == []  # decay started: too late to warn
    # a new result starts a new spell: warned again when it nears its decay; DMs off owe nothing
    await league.record_tournament(GUILD, 2, [(A, 1), (B, 2)])
    env.clock.now += 3 * DAY
    due = await league.decay_warnings(GUILD)
    assert [w.user_id for w in due] == [A]
    assert await league.owe_decay_warnings(GUILD, [(w, None) for w in due]) == 0
    assert len(await outbox.items(GUILD, prefix="league:decay:")) == 1
    await league.configure(GUILD, decay=0)
    assert await league.decay_warnings(GUILD) == []  # off: nobody is warned
