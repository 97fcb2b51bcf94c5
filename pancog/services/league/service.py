"""LeagueService: the league's front (seasons, per-hand stats, ratings, leaderboards, chip-dumping flags). No discord
imports.

The work lives in rooms, each with one job: :mod:`.recording` (results in from the table service and tournaments, the
drain into stats and ratings, the rebuild; how a hand reaches the league is told there), :mod:`.seasons` (start, end,
roll over, standings, season roles, exclusions), :mod:`.boards` (leaderboards, cards, histories, head-to-heads,
flags), :mod:`.series` (series of tournaments, best N of M), :mod:`.divisions` (divisions and their roles),
:mod:`.inactivity` (decay warnings; the decay itself is :mod:`.decay`, applied by the fold); :mod:`.model` holds their
values and errors, :mod:`.settings` a guild's league settings.
"""

from __future__ import annotations

from .boards import Boards
from .divisions import DivisionsRoom
from .inactivity import DecayRoom
from .model import (
    ROLE_GRANT,
    ROLE_REMOVE,
    WINNER_PLACES,
    Board,
    BoardLine,
    Metric,
    NoSeason,
    Period,
    PlayerCard,
    RatingHistory,
    SeasonActive,
    SeasonInfo,
    SeasonInputError,
    Versus,
)
from .recording import stat_rows
from .seasons import Seasons
from .series import NoSeries, Series, SeriesLine, SeriesRoom, SeriesStandings, parse_points

__all__ = [
    "ROLE_GRANT",
    "ROLE_REMOVE",
    "WINNER_PLACES",
    "Board",
    "BoardLine",
    "LeagueService",
    "Metric",
    "NoSeason",
    "NoSeries",
    "Period",
    "PlayerCard",
    "RatingHistory",
    "SeasonActive",
    "SeasonInfo",
    "SeasonInputError",
    "Series",
    "SeriesLine",
    "SeriesStandings",
    "Versus",
    "parse_points",
    "stat_rows",
]


class LeagueService(Seasons, Boards, SeriesRoom, DivisionsRoom, DecayRoom):
    """The front the adapter uses: one object, its rooms (:mod:`.recording`, :mod:`.seasons`, :mod:`.boards`)
    share the storage, the caches and the drain."""
