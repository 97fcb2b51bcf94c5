"""Established ratings and the season leaderboard's eligible players (established, active), with pages; the guild's
league settings (V15) on both backends."""

from __future__ import annotations

import pytest

from pancog.services.league import LeagueSettings, SeasonInputError, display

from .conftest import GUILD, Env
from .test_seasons import hand


@pytest.fixture
def env(backend_env: Env) -> Env:
    return backend_env


def test_a_rating_shows_a_question_mark_until_established() -> None:
    assert display(12_345, 29) == "12.3?" and display(12_345, 30) == "12.3"
    assert display(12_345, 2, established=3) == "12.3?" and display(12_345, 3, established=3) == "12.3"


async def test_settings_default_change_and_refuse(env: Env) -> None:
    league = env.league
    assert await league.league_settings(GUILD) == LeagueSettings(established=30, active_days=14)
    assert await league.configure(GUILD, established=4) == LeagueSettings(established=4, active_days=14)
    assert await league.configure(GUILD, active_days=3) == LeagueSettings(established=4, active_days=3)
    with pytest.raises(SeasonInputError):
        await league.configure(GUILD, established=-1)
    with pytest.raises(SeasonInputError):
        await league.configure(GUILD, active_days=0)
    assert await league.league_settings(GUILD) == LeagueSettings(established=4, active_days=3)  # refused: unchanged
    assert await league.league_settings(GUILD + 1) == LeagueSettings()  # per guild


async def test_the_season_board_lists_established_active_players_only(env: Env) -> None:
    league = env.league
    await league.start_season(GUILD, "Spring")
    await league.configure(GUILD, established=3, active_days=2)
    for _ in range(3):  # 1 and 2: three rated hands each; 3 joins only once
        await league.record_hand(GUILD, hand(1, [2]))
    await league.record_hand(GUILD, hand(3, [1]))
    board = await league.leaderboard(GUILD, metric="net", period="season", caller=3)
    assert [line.user_id for line in board.lines] == [1, 2]  # 1: 4 rated results, 2: 3; 3 has 1
    assert board.caller is None and board.ineligible is not None and board.ineligible[::2] == (1, True)
    assert board.established == 3
    whole = await league.leaderboard(GUILD, metric="net", period="all", caller=3)
    assert 3 in [line.user_id for line in whole.lines]  # all time lists everyone

    env.clock.now += 3 * 86_400  # nobody played for three days: nobody is active
    await league.record_hand(GUILD, hand(2, [3]))  # 2 plays again (3 still not established)
    board = await league.leaderboard(GUILD, metric="net", period="season", caller=1)
    assert [(line.rank, line.user_id) for line in board.lines] == [(1, 2)]  # placed among the listed
    assert board.caller is None and board.ineligible == (4, int(env.clock.now) - 3 * 86_400, False)  # established, idle


async def test_boards_page_by_twenty(env: Env) -> None:
    league = env.league
    players = list(range(100, 145))  # 45 players, each wins one hand against 99
    for i, user in enumerate(players):
        await league.record_hand(GUILD, hand(user, [99], chips=1000 - i))
    first = await league.leaderboard(GUILD, metric="net", period="all", caller=players[-1], limit=20)
    assert (first.page, first.pages, len(first.lines)) == (1, 3, 20)
    assert first.caller is not None and first.caller.rank == 45  # his own place, off the page
    third = await league.leaderboard(GUILD, metric="net", period="all", caller=players[-1], limit=20, page=3)
    assert [line.user_id for line in third.lines] == [*players[40:], 99]  # 99 lost every hand: last
    assert [line.rank for line in third.lines] == list(range(41, 47))
    with pytest.raises(SeasonInputError):
        await league.leaderboard(GUILD, page=0)
