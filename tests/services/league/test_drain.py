"""The settlement stores a hand's result on its journal row (migration V8); ``LeagueService.drain`` moves it into the
league's tables exactly once — across restarts, repeated drains and (PostgreSQL) results committed out of id order."""

from __future__ import annotations

import asyncio
import random

import pytest

from pancog.ai import make_player
from pancog.services.league import LeagueService, repo
from tests.support.league_play import play_hands

from .conftest import GUILD, Env
from .test_hook import USERS, recount, stored
from .test_seasons import hand


@pytest.fixture
def env(backend_env: Env) -> Env:
    return backend_env


async def _raw_stats(env: Env) -> dict[int, int]:
    """hands_dealt per user as stored, without draining first."""
    async with env.storage.transaction(write=False) as tx:
        return {r.user_id: r.hands_dealt for r in await repo.all_stats(tx, GUILD, 0)}


async def test_a_restart_before_the_drain_counts_each_hand_once(env: Env) -> None:
    """Hands settled, then the process dies before any drain: the results wait on their journal rows; a fresh
    service drains them once, and draining again (or from another service) adds nothing."""
    table = await env.open_table(USERS)
    players = {u: make_player("easy") for u in USERS}
    await play_hands(env.tables, table, players, 2, seed=51)
    assert await _raw_stats(env) == {}  # nothing drained yet: the results are on the journals
    async with env.storage.transaction(write=False) as tx:
        assert len(await repo.journal_results_after(tx, 0, 100)) == 2
    restarted = LeagueService(env.storage, env.ledger, clock=env.clock)
    await restarted.drain()
    assert await _raw_stats(env) == dict.fromkeys(USERS, 2)
    await play_hands(env.tables, table, players, 1, seed=52)  # the first service records a third hand
    await asyncio.gather(restarted.drain(), env.league.drain(), restarted.drain())
    assert await _raw_stats(env) == dict.fromkeys(USERS, 3)
    assert await stored(env) == await recount(env, table)
    async with env.storage.transaction(write=False) as tx:
        assert len(await repo.results_after(tx, 0, 100)) == 3


async def test_every_read_sees_every_settled_hand(env: Env) -> None:
    """No read shows stale figures: the card, the leaderboard and the flags each drain first."""
    table = await env.open_table(USERS)
    await play_hands(env.tables, table, {u: make_player("easy") for u in USERS}, 2, seed=53)
    assert await _raw_stats(env) == {}
    card = await env.league.player_card(GUILD, USERS[0])
    assert card.all_time.hands_dealt == 2
    await play_hands(env.tables, table, {u: make_player("easy") for u in USERS}, 1, seed=54)
    board = await env.league.leaderboard(GUILD, metric="net", caller=USERS[0])
    expected = await recount(env, table)
    assert {line.user_id: line.value for line in board.lines} == {u: v[7] for (_, _, u), v in expected.items()}
    await play_hands(env.tables, table, {u: make_player("easy") for u in USERS}, 1, seed=55)
    assert await env.league.flags(GUILD) == []
    assert await _raw_stats(env) == dict.fromkeys(USERS, 4)


async def test_results_committed_out_of_id_order_are_all_drained(env: Env) -> None:
    """Many results recorded at once, each transaction pausing after its journal row, while drains run: every
    result is drained exactly once. On PostgreSQL journal ids are not handed out in commit order; without the results
    lock (``StorageTx.lock_results``) a drain could pass an id still in flight and lose that result for ever."""
    await env.league.record_hand(GUILD, hand(1, [2]))  # caches the guild's season (none)
    rng = random.Random(7)
    digests = [hand(1 + n % 3, [1 + (n + 1) % 3]) for n in range(24)]

    async def settle(n: int) -> None:
        note = env.league.note(GUILD, digests[n])
        async with env.storage.transaction() as tx:
            text = await note(tx)
            await tx.insert_journal(
                key=f"race:{n}", reason="hand", actor="system", table_id=None, created_at=env.clock(), result=text
            )
            await asyncio.sleep(rng.random() / 50)

    async def drains() -> None:
        for _ in range(12):
            await env.league.drain()
            await asyncio.sleep(rng.random() / 100)

    await asyncio.gather(*(settle(n) for n in range(24)), drains())
    await env.league.drain()
    async with env.storage.transaction(write=False) as tx:
        results = await repo.results_after(tx, 0, 100)
        stats = {r.user_id: r.hands_dealt for r in await repo.all_stats(tx, GUILD, 0)}
    assert len(results) == 25
    assert sorted(o for o, *_ in results) == [o for o, *_ in results]
    assert stats == {1: 17, 2: 17, 3: 16}


async def test_an_unreadable_result_is_skipped_and_blocks_nothing(env: Env, caplog: pytest.LogCaptureFixture) -> None:
    """A journal whose result text does not parse (never written by this code) is logged and passed over; the
    results around it are drained as usual, and the reads keep working."""
    await env.league.record_hand(GUILD, hand(1, [2]))
    async with env.storage.transaction() as tx:
        await tx.insert_journal(
            key="bad", reason="hand", actor="system", table_id=None, created_at=env.clock(), result="7 0 {not json"
        )
    await env.league.record_hand(GUILD, hand(2, [1]))
    assert "unreadable league result" in caplog.text
    card = await env.league.player_card(GUILD, 1)
    assert (card.all_time.hands_dealt, card.all_time.hands_won) == (2, 1)
    assert await env.league.drain() == 0
