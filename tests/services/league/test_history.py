"""Rating history, match history and head-to-head (``league_history``, migration V11): written by the ratings fold in
the ratings' own transaction, refolded by the rebuild, on both backends."""

from __future__ import annotations

from pathlib import Path

import pytest

from pancog.ai import make_player
from pancog.infra.storage import storage_for
from pancog.services.league import LeagueService, Rating, SeasonInputError, digests_from_log, rating_match, repo
from pancog.services.league.digest import is_human
from pancog.services.ledger import ChipLedger
from pancog.services.tables import TableConfig
from tests.support.league_play import play_hands

from .conftest import GUILD, Clock, Env, fresh_database
from .test_seasons import hand

USERS = [201, 202, 203]


@pytest.fixture
def env(backend_env: Env) -> Env:
    return backend_env


async def _all_history(env: Env) -> list[tuple[object, ...]]:
    async with env.storage.transaction(write=False) as tx:
        rows = await tx.fetchall(
            f"SELECT {repo.HISTORY_COLUMNS} FROM league_history ORDER BY guild_id, ordinal, user_id"  # noqa: S608
        )
    return [tuple(r) for r in rows]


async def test_the_history_chains_to_the_stored_ratings(env: Env) -> None:
    """Each rated line starts where the player's last one ended; the last one is the rating the leaderboard shows;
    unrated lines (on top, a hand a computer won) leave the rating as it was."""
    table = await env.open_table(USERS)
    await play_hands(env.tables, table, {u: make_player("easy") for u in USERS}, 8, seed=11)
    for user in USERS:
        history = await env.league.rating_history(GUILD, user)
        rows = list(reversed(await env.league.history(GUILD, user, limit=1000)))
        assert len(rows) == 8  # dealt into every hand
        score = 0
        for row in rows:
            assert row.score_before == score
            if not row.rated:
                assert row.score == row.score_before
            score = row.score
        card = await env.league.player_card(GUILD, user)
        assert score == card.rating.score
        assert [p[2] for p in history.all_time] == [r.score for r in rows if r.rated]
        assert len(history.all_time) == card.rating.rated
        assert history.recent == tuple(reversed([r for r in rows if r.rated]))[:20]


async def test_match_history_lines_match_the_hands_played(env: Env) -> None:
    """A player's history lines are the hands he was dealt, with his net for each (a recount from the log)."""
    table = await env.open_table(USERS)
    await play_hands(env.tables, table, {u: make_player("easy") for u in USERS}, 6, seed=12)
    log = await env.store.read_log(table)
    digests = [d for _, d in digests_from_log(table, TableConfig.build().rules(), [a for _, a, _ in log])]
    for user in USERS:
        rows = list(reversed(await env.league.history(GUILD, user, limit=100)))
        expected = [
            (d.key, next(p.net for p in d.players if p.user_id == user))
            for d in digests
            if any(p.user_id == user for p in d.players)
        ]
        assert [(r.result_key, r.net) for r in rows] == expected
        rated = {d.key for d in digests if (m := rating_match(d)) is not None and user in m[0]}
        assert {r.result_key for r in rows if r.rated} == rated


async def test_versus_counts_hands_nets_and_wins(env: Env) -> None:
    league = env.league
    await league.record_hand(GUILD, hand(1, [2]))  # 1 beats 2: +10 / -10
    await league.record_hand(GUILD, hand(2, [1, 3]))  # 2 beats 1 and 3
    await league.record_hand(GUILD, hand(3, [1], on_top=(2,)))  # 2 on top: dealt together, no win
    await league.record_hand(GUILD, hand(3, [4]))  # without 1 and 2
    await league.record_tournament(GUILD, 77, [(2, 1), (1, 2), (3, 3)], cashed={2})
    versus = await league.versus(GUILD, 1, 2)
    assert (versus.hands, versus.tourneys) == (3, 1)
    assert (versus.net, versus.other_net) == (10 - 10 - 10, -10 + 20 + 0)
    assert (versus.wins, versus.other_wins) == (1, 2)  # a hand each, and 2 finished ahead in the tournament
    mirrored = await league.versus(GUILD, 2, 1)
    assert (mirrored.wins, mirrored.other_wins, mirrored.net) == (2, 1, versus.other_net)
    assert (await league.versus(GUILD, 1, 4)).rows == ()
    with pytest.raises(SeasonInputError):
        await league.versus(GUILD, 1, 1)


async def test_season_points_follow_the_season_rating(env: Env) -> None:
    league = env.league
    await league.record_hand(GUILD, hand(1, [2]))  # before the season: all-time only
    await league.start_season(GUILD, "Spring")
    await league.record_hand(GUILD, hand(1, [2]))
    await league.record_hand(GUILD, hand(2, [1]))
    history = await league.rating_history(GUILD, 1)
    assert len(history.all_time) == 3 and len(history.season_points) == 2
    assert history.season_rating is not None and history.season_points[-1][2] == history.season_rating.score
    assert history.all_time[-1][2] == history.rating.score


async def test_rebuild_rewrites_the_same_history(env: Env) -> None:
    table = await env.open_table(USERS)
    await play_hands(env.tables, table, {u: make_player("easy") for u in USERS}, 5, seed=13)
    await env.league.record_tournament(GUILD, 5, [(USERS[0], 2), (USERS[1], 1)])
    await env.league.drain()
    before = await _all_history(env)
    assert before and all(is_human(int(r[1])) for r in before)  # type: ignore[call-overload]
    await env.league.rebuild()
    assert await _all_history(env) == before
    await env.league.rebuild(from_log=False)
    assert await _all_history(env) == before


async def test_v11_refolds_the_ratings_with_their_history(backend: str, server_url: str | None, tmp_path: Path) -> None:
    """A database rated before V11 has no history: V11 clears the derived ratings, and the next drain refolds them
    from the results, to the same figures, writing every past line."""
    async with fresh_database(backend, tmp_path, server_url) as target:
        async with storage_for(target, target_version=8) as v8:
            league = LeagueService(v8, ChipLedger(v8), clock=Clock())
            # V8's fold: the ratings are written, the history table does not exist yet
            from pancog.services.league import recording as league_service

            original = repo.put_history

            async def no_history(tx: object, rows: object) -> None:
                return None

            async def no_decay(tx: object, guild_id: int) -> list[object]:  # nor the decay rules (V18)
                return []

            decay_rules = league_service.decay_rules
            repo.put_history = no_history  # type: ignore[assignment]
            league_service.decay_rules = no_decay  # type: ignore[assignment]
            try:
                await league.record_hand(GUILD, hand(1, [2, 3]))
                await league.record_hand(GUILD, hand(3, [1]))
                async with v8.transaction(write=False) as tx:  # V8's reads: the ratings table itself
                    old = Rating(*(await repo.get_ratings(tx, GUILD, 0, [1]))[1])
            finally:
                repo.put_history = original
                league_service.decay_rules = decay_rules
            assert league_service.repo is repo
        async with storage_for(target) as upgraded:
            assert await upgraded.schema_version() >= 11
            league = LeagueService(upgraded, ChipLedger(upgraded), clock=Clock())
            card = await league.player_card(GUILD, 1)
            assert card.rating == old
            history = await league.rating_history(GUILD, 1)
            assert [p[2] for p in history.all_time][-1] == old.score and len(history.all_time) == 2
