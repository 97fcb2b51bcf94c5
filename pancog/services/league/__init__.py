"""Chip leagues: seasons, standings, ratings, player stats and chip-dumping flags.

Services only (no discord import). The adapter builds one :class:`LeagueService`, registers it with the table
service (its listener, settlement hook and close listener: the composition root), and calls one method per command
(docs/leagues.md).
"""

from .decay import DecayWarning
from .digest import HandDigest, HandTally, PlayerLine, TourneyDigest, digests_from_log, rating_match
from .flags import Flag, compute_flags
from .ratings import PROVISIONAL_RESULTS, Rating, display, rate
from .repo import HistoryRow, SeasonRow, StandingRow, StatsRow, VersusRow
from .service import (
    ROLE_GRANT,
    ROLE_REMOVE,
    WINNER_PLACES,
    Board,
    BoardLine,
    LeagueService,
    Metric,
    NoSeason,
    NoSeries,
    Period,
    PlayerCard,
    RatingHistory,
    SeasonActive,
    SeasonInfo,
    SeasonInputError,
    Series,
    SeriesLine,
    SeriesStandings,
    Versus,
    parse_points,
)
from .settings import Division, LeagueSettings

__all__ = [
    "PROVISIONAL_RESULTS",
    "ROLE_GRANT",
    "ROLE_REMOVE",
    "WINNER_PLACES",
    "Board",
    "BoardLine",
    "DecayWarning",
    "Division",
    "Flag",
    "HandDigest",
    "HandTally",
    "HistoryRow",
    "LeagueService",
    "LeagueSettings",
    "Metric",
    "NoSeason",
    "NoSeries",
    "Period",
    "PlayerCard",
    "PlayerLine",
    "Rating",
    "RatingHistory",
    "SeasonActive",
    "SeasonInfo",
    "SeasonInputError",
    "SeasonRow",
    "Series",
    "SeriesLine",
    "SeriesStandings",
    "StandingRow",
    "StatsRow",
    "TourneyDigest",
    "Versus",
    "VersusRow",
    "compute_flags",
    "digests_from_log",
    "display",
    "parse_points",
    "rate",
    "rating_match",
]
