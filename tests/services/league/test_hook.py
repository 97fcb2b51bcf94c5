"""Hands played through the real TableService feed the league in the settlement's transaction, exactly once."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pancog.ai import make_player
from pancog.services.league import HandDigest, LeagueService, PlayerLine, digests_from_log, repo
from pancog.services.league.digest import decode
from pancog.services.league.service import stat_rows
from pancog.services.tables import TableConfig, TableService, seeded_deals
from tests.support.league_play import play_hands
from tests.support.wiring import wire_league

from .conftest import GUILD, Env, fresh_storage
from .test_seasons import hand

USERS = [101, 102, 103]


@pytest.fixture
def env(backend_env: Env) -> Env:
    """Every test here runs on SQLite and on PostgreSQL (the script test below takes a SQLite file)."""
    return backend_env


async def recount(env: Env, table: int) -> dict[tuple[int, int, int], list[int]]:
    """Stats recomputed from the table's stored action log through the engine (independent of the hook)."""
    log = await env.store.read_log(table)
    totals: dict[tuple[int, int, int], list[int]] = {}
    for _, digest in digests_from_log(table, TableConfig.build().rules(), [a for _, a, _ in log]):
        for row in stat_rows(GUILD, 0, digest):
            acc = totals.setdefault(row[:3], [0] * (len(row) - 3))
            for i, v in enumerate(row[3:]):
                acc[i] = max(acc[i], v) if i == 6 else acc[i] + v
    return totals


async def stored(env: Env) -> dict[tuple[int, int, int], list[int]]:
    """The all-time counters as every read of the league sees them: after a drain (the settlement stored the hand's
    result on its journal row; the drain moves it into the league's tables, exactly once)."""
    await env.league.drain()
    async with env.storage.transaction(write=False) as tx:
        rows = await repo.all_stats(tx, GUILD, 0)
    return {(GUILD, 0, r.user_id): [getattr(r, c) for c in repo.STAT_COLUMNS] for r in rows}


async def test_hook_stats_equal_a_recount_from_the_log(env: Env) -> None:
    """Every finished hand is recorded once; the counters equal a recount from the log replayed by the engine."""
    table = await env.open_table(USERS)
    await play_hands(env.tables, table, {u: make_player("easy") for u in USERS}, 6, seed=3)
    expected = await recount(env, table)
    assert expected and sum(v[0] for v in expected.values()) == 6 * len(USERS)
    assert await stored(env) == expected
    async with env.storage.transaction(write=False) as tx:
        results = await repo.results_after(tx, 0, 100)
    assert len(results) == 6


async def test_restart_mid_hand_counts_the_hand_once(env: Env) -> None:
    """A restart in the middle of a hand: the hook rebuilds the hand from the log; nothing is counted twice."""
    table = await env.open_table(USERS)
    players = {u: make_player("easy") for u in USERS}
    await play_hands(env.tables, table, players, 2, seed=5)
    # deal a third hand and play a few moves, then "restart": a fresh service + league over the same database
    await env.tables.start_hand(table, USERS[0])
    tables2 = TableService(env.ledger, env.store, dealer=seeded_deals(9), clock=env.clock)
    league2 = LeagueService(env.storage, env.ledger, clock=env.clock)
    wire_league(tables2, league2)
    assert await tables2.load() == 1
    env.tables, env.league = tables2, league2
    await finish_hand(env, table, players)
    await play_hands(env.tables, table, players, 1, seed=6)
    assert await stored(env) == await recount(env, table)
    async with env.storage.transaction(write=False) as tx:
        assert len(await repo.results_after(tx, 0, 100)) == 4


async def finish_hand(env: Env, table: int, players: dict) -> None:

    from pancog.ai.base import choices
    from pancog.game.engine import observe, to_act

    session = env.tables.get(table)
    rng = random.Random(1)
    hand_no = session.state.hand_no
    while session.state.hand is not None and session.state.hand.hand_no == hand_no:
        seat = to_act(session.state)
        assert seat is not None
        occupant = session.state.seats[seat]
        assert occupant is not None
        obs = observe(session.state, seat)
        action = players[occupant.player_id].choose(obs, choices(obs), rng)
        await env.tables.act(table, occupant.player_id, lambda _s, a=action: a)


async def test_rebuild_reproduces_stats_and_ratings_exactly(env: Env) -> None:
    """rebuild() from the action logs gives the same counters and the very same ratings (floats included)."""
    t1 = await env.open_table(USERS)
    t2 = await env.open_table([104, 105, -1001])
    await play_hands(env.tables, t1, {u: make_player("easy") for u in USERS}, 5, seed=11)
    await play_hands(env.tables, t2, {u: make_player("easy") for u in (104, 105, -1001)}, 5, seed=12)
    await play_hands(env.tables, t1, {u: make_player("normal") for u in USERS}, 4, seed=13)
    await env.league.drain()
    before_stats = await stored(env)
    async with env.storage.transaction(write=False) as tx:
        before = await tx.fetchall(
            "SELECT guild_id, season_no, user_id, mu, sigma, rated, score FROM league_ratings ORDER BY 1,2,3"
        )
        bodies = await tx.fetchall("SELECT result_key, ordinal, body FROM league_results ORDER BY ordinal")
    assert before and all(r[2] >= 0 for r in before)  # computer players are never rated
    hands, results = await env.league.rebuild(from_log=True)
    assert hands == results == 14
    assert await stored(env) == before_stats
    async with env.storage.transaction(write=False) as tx:
        after = await tx.fetchall(
            "SELECT guild_id, season_no, user_id, mu, sigma, rated, score FROM league_ratings ORDER BY 1,2,3"
        )
        bodies_after = await tx.fetchall("SELECT result_key, ordinal, body FROM league_results ORDER BY ordinal")
    assert after == before
    assert bodies_after == bodies
    assert -1001 not in {k[2] for k in before_stats}
    assert isinstance(HandDigest, type)


async def test_rebuild_script_refolds_a_database(sqlite_env: Env, tmp_path, capsys) -> None:
    """``python -m pancog.services.league rebuild --db`` reproduces the counters of a database played through the
    service."""
    from pancog.services.league.__main__ import _rebuild, main

    env = sqlite_env
    table = await env.open_table(USERS)
    await play_hands(env.tables, table, {u: make_player("easy") for u in USERS}, 3, seed=21)
    before = await stored(env)
    async with env.storage.transaction() as tx:
        await tx.execute("DELETE FROM league_stats")
    assert await stored(env) == {}
    await _rebuild(env.storage.path, from_log=True)
    assert await stored(env) == before
    assert "3 hands re-derived" in capsys.readouterr().out
    assert main(["rebuild", "--db", str(tmp_path / "missing.sqlite3")]) == 2


async def test_a_result_recorded_again_under_another_ordinal_adds_nothing(env: Env) -> None:
    """The same hand key offered again (another journal): no second result row, the counters do not move."""
    table = await env.open_table(USERS)
    await play_hands(env.tables, table, {u: make_player("easy") for u in USERS}, 2, seed=8)
    before = await stored(env)
    async with env.storage.transaction(write=False) as tx:
        (body,) = (await tx.fetchall("SELECT body FROM league_results ORDER BY ordinal LIMIT 1"))[0]

    digest = decode(body)
    assert isinstance(digest, HandDigest)
    assert not await env.league.record_hand(GUILD, digest)
    assert await stored(env) == before


async def test_hands_in_a_season_count_for_it_and_all_time(env: Env) -> None:
    """During a season a settled hand feeds the season's counters and the all-time ones; after it, all-time only."""
    season = await env.league.start_season(GUILD, "Autumn", length_days=1)
    table = await env.open_table(USERS)
    players = {u: make_player("easy") for u in USERS}
    await play_hands(env.tables, table, players, 2, seed=31)
    await env.league.drain()
    async with env.storage.transaction(write=False) as tx:
        in_season = {r.user_id: r.hands_dealt for r in await repo.all_stats(tx, GUILD, season.number)}
    assert in_season == dict.fromkeys(USERS, 2)
    env.clock.now += 2 * 86_400
    assert [s.number for s in await env.league.due_seasons()] == [season.number]
    await env.league.end_season(GUILD)
    await play_hands(env.tables, table, players, 1, seed=32)
    await env.league.drain()
    async with env.storage.transaction(write=False) as tx:
        assert {r.user_id: r.hands_dealt for r in await repo.all_stats(tx, GUILD, season.number)} == in_season
        assert {r.user_id: r.hands_dealt for r in await repo.all_stats(tx, GUILD, 0)} == dict.fromkeys(USERS, 3)
    card = await env.league.player_card(GUILD, USERS[0])
    assert card.season is None and card.all_time.hands_dealt == 3


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), seats=st.integers(2, 4), hands=st.integers(1, 3), computer=st.booleans())
async def test_stats_equal_a_recount_from_the_log_property(
    backend: str,
    server_url: str | None,
    tmp_path_factory: pytest.TempPathFactory,
    seed: int,
    seats: int,
    hands: int,
    computer: bool,
) -> None:
    """Any seeded session (2-4 seats, maybe a computer player): the counters written at settlement equal a recount
    from the stored log replayed through the engine, and every hand is recorded exactly once. Both backends."""
    async with fresh_storage(backend, tmp_path_factory.mktemp("prop"), server_url) as storage:
        env = Env(storage, seed=seed)
        users = [501 + i for i in range(seats)]
        if computer:
            users[-1] = -2001
        table = await env.open_table(users)
        await play_hands(env.tables, table, {u: make_player("easy") for u in users}, hands, seed=seed)
        assert await stored(env) == await recount(env, table)
        async with env.storage.transaction(write=False) as tx:
            assert len(await repo.results_after(tx, 0, 100)) == hands


async def test_rebuild_keeps_the_results_of_a_log_that_does_not_replay(env: Env) -> None:
    """A table whose stored log cannot be replayed keeps its recorded results (a warning); other tables rebuild."""
    table = await env.open_table(USERS)
    await play_hands(env.tables, table, {u: make_player("easy") for u in USERS}, 2, seed=41)
    broken = await env.store.open_table(
        99, guild_id=GUILD, channel_id=99, host_id=1, config=TableConfig.build().to_json()
    )
    await env.store.commit_action(broken.table_id, 1, "not an action", "")
    kept = HandDigest(table_id=99, hand_no=1, reason="void", winner=None, players=[PlayerLine(user_id=USERS[0])])
    assert await env.league.record_hand(GUILD, kept)
    before = await stored(env)
    hands, results = await env.league.rebuild(from_log=True)
    assert (hands, results) == (2, 3)
    assert await stored(env) == before


async def _ratings(env: Env) -> list[tuple[object, ...]]:
    async with env.storage.transaction(write=False) as tx:
        rows = await tx.fetchall(
            "SELECT guild_id, season_no, user_id, mu, sigma, rated, score FROM league_ratings ORDER BY 1,2,3"
        )
    return [tuple(r) for r in rows]


async def test_ratings_after_a_rebuild_are_not_folded_again(env: Env) -> None:
    """A rebuild refolds every result into the ratings and leaves the drain nothing to do: a result is rated once,
    so draining after the rebuild reads no result and changes no rating."""
    for winner, loser in ((1, 2), (2, 3), (3, 1), (1, 3)):
        await env.league.record_hand(GUILD, hand(winner, [loser]))  # recorded, then drained: rated
    assert await env.league.drain() == 0
    before = await _ratings(env)
    assert [r[5] for r in before] == [3, 2, 3]  # users 1, 2, 3: each hand rated once
    assert await env.league.rebuild(from_log=False) == (0, 4)
    assert await _ratings(env) == before  # same results in the same order: the same ratings
    assert await env.league.drain() == 0
    assert await _ratings(env) == before
    card = await env.league.player_card(GUILD, 1)  # a read that drains first
    assert card.rating.rated == 3


async def test_a_settlement_with_the_season_cached_builds_nothing_inside(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/leagues.md: with the season cached, ``note`` builds the result's text before the transaction; inside it
    nothing is built or read (the writer lock is held for one more column of the journal row), and the drain
    turns that text into the stats."""
    await env.league.record_hand(GUILD, hand(1, [2]))  # the guild's season (none) is now cached
    record = env.league.note(GUILD, hand(2, [1], chips=30))

    def built_inside(*_: object, **__: object) -> object:
        raise AssertionError("the result was built inside the settlement's transaction")

    monkeypatch.setattr(HandDigest, "encode", built_inside)
    monkeypatch.setattr(repo, "active_season", built_inside)
    async with env.storage.transaction() as tx:
        text = await record(tx)
        journal = await tx.insert_journal(
            key="settle:test", reason="hand", actor="system", table_id=None, created_at=env.clock(), result=text
        )
        assert journal is not None
    monkeypatch.undo()
    assert text is not None and text.startswith(f"{GUILD} 0 ")
    card = await env.league.player_card(GUILD, 2)
    assert (card.all_time.hands_dealt, card.all_time.hands_won, card.all_time.net) == (2, 1, 30 - 10)
