"""Series points ("best N of M events"), read from the tournaments' stored results (V15), on both backends."""

from __future__ import annotations

import pytest

from pancog.services.league import NoSeries, SeasonInputError, parse_points
from pancog.services.league.series import series_lines

from .conftest import GUILD, Env


@pytest.fixture
def env(backend_env: Env) -> Env:
    return backend_env


def test_best_n_count_and_ties_share_a_place() -> None:
    points = (10, 6, 4)
    events = [[(1, 1), (2, 2), (3, 3)], [(2, 1), (1, 4)], [(2, 1), (1, 1), (-5, 2)]]  # -5: a computer player
    lines = series_lines(events, points, best=2)
    assert [(ln.place, ln.user_id, ln.total) for ln in lines] == [(1, 1, 20), (1, 2, 20), (3, 3, 4)]
    assert lines[1].counted == (10, 10) and lines[1].played == 3 and lines[0].counted == (10, 10)
    assert series_lines(events, points, best=3)[0].user_id == 2  # all three count: 26 beats 20
    assert series_lines([[(1, 9)]], points, best=1)[0].total == 0  # beyond the table: no points


def test_points_are_parsed_and_checked() -> None:
    assert parse_points("25, 18,15") == (25, 18, 15)
    with pytest.raises(SeasonInputError):
        parse_points("25,x")


async def test_a_series_reads_its_events_results(env: Env) -> None:
    league = env.league
    with pytest.raises(NoSeries):
        await league.series_standings(GUILD, "Cup")
    with pytest.raises(SeasonInputError):
        await league.define_series(GUILD, "Cup", (), 2)
    series = await league.define_series(GUILD, " Cup ", (10, 6, 4), 2)
    assert series.name == "Cup" and series.best == 2
    assert await league.add_to_series(GUILD, "Cup", 1) and await league.add_to_series(GUILD, "Cup", 2)
    assert not await league.add_to_series(GUILD, "Cup", 2)  # listed once
    await league.add_to_series(GUILD, "Cup", 3)  # scheduled: not finished yet
    await league.record_tournament(GUILD, 1, [(7, 1), (8, 2), (9, 3)])
    await league.record_tournament(GUILD, 2, [(8, 1), (7, 2)])
    await league.record_tournament(GUILD, 4, [(9, 1), (7, 2)])  # not in the series
    standings = await league.series_standings(GUILD, "Cup")
    assert (standings.events, standings.finished) == (3, 2)
    assert [(ln.place, ln.user_id, ln.total, ln.played) for ln in standings.lines] == [
        (1, 7, 16, 2),  # 10 + 6
        (1, 8, 16, 2),  # 6 + 10: tied
        (3, 9, 4, 1),
    ]
    with pytest.raises(NoSeries):
        await league.add_to_series(GUILD + 1, "Cup", 5)
