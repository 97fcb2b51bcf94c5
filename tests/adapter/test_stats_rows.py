"""The rows /pan stats shows fit the stats card whole: every label drawn in full inside its row (beside its value
for everyday figures; a huge value moves under its label rather than cutting it)."""

from __future__ import annotations

from pancog.adapter.presenters.league import stats_rows
from pancog.services.league.ratings import Rating
from pancog.services.league.repo import SeasonRow, StatsRow
from pancog.services.league.service import PlayerCard
from renderer.layout import inside
from renderer.stats import StatsSnapshot, layout_stats


def test_the_real_rows_fit_beside_their_values() -> None:
    big = StatsRow(
        user_id=1,
        hands_dealt=123_456,
        hands_played=99_999,
        hands_won=12_345,
        conditions=45_678,
        condition_chips=1_234_567,
        biggest=98_765,
        net=-1_234_567,
        tourneys_played=1_234,
        tourneys_cashed=567,
        tourneys_won=89,
    )
    season = SeasonRow(
        guild_id=1,
        number=12,
        name="Winter",
        mode="bank",
        starting_chips=1000,
        scope_id=-1,
        status="active",
        started_at=0,
        ends_at=None,
        ended_at=None,
        champion_id=None,
    )
    card = PlayerCard(
        user_id=1, season=season, season_stats=big, all_time=big, rating=Rating(), season_rating=None, season_bank=5
    )
    rows = stats_rows(card)
    assert any(label.startswith("Tournaments played") for label, _ in rows)
    lay = layout_stats(StatsSnapshot("Alice", "season 12 (Winter)", rows))
    for (label, _), row in zip(rows, lay.rows, strict=True):
        assert row.label_lines == (label,), label
        assert all(inside(box, row.cell) for box in (*row.label_boxes, row.value_box)), label
    everyday = PlayerCard(
        user_id=1, season=season, season_stats=None, all_time=StatsRow(user_id=1, tourneys_played=3), rating=Rating(),
        season_rating=None, season_bank=1000,
    )  # fmt: skip
    rows = stats_rows(everyday)
    lay = layout_stats(StatsSnapshot("Alice", "season 12 (Winter)", rows))
    for (label, _), row in zip(rows, lay.rows, strict=True):
        assert row.value_box[1] == row.label_boxes[0][1], f"{label!r} pushed its value to a second line"
