"""The league's values and errors: boards, cards, histories, head-to-heads, seasons' infos (no discord)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

from pancog.game.errors import PanError
from pancog.game.i18n import N_

from .ratings import PROVISIONAL_RESULTS, Rating
from .repo import HistoryRow, SeasonRow, StandingRow, StatsRow, VersusRow

log = logging.getLogger("pan.league")

Metric = Literal["net", "chips", "rating", "wins"]
Period = Literal["season", "all"]
SeasonMode = Literal["net", "bank"]
DEFAULT_MODE: SeasonMode = "net"
RATINGS_CURSOR = "ratings"
JOURNALS_CURSOR = "journals"  # the last ledger journal whose result was moved (migration V8)
MAX_SEASON_DAYS = 366
MAX_NAME = 60
WINNER_PLACES = 3  # a season's role goes to the players placed 1..3 (ties share a place)
ROLE_GRANT = "role.grant"  # the outbox kind the adapter delivers (pancog/adapter/effects.py)
ROLE_REMOVE = "role.remove"  # the same, taking a role away (a division left)
MESSAGE_DM = "message.dm"  # the outbox kind of a DM (a decay warning)


class SeasonActive(PanError):
    code = "season_active"

    def __init__(self, name: str) -> None:
        super().__init__(N_("The season {name} is still running. End it first, or roll over to a new one."), name=name)


class NoSeason(PanError):
    code = "no_season"

    def __init__(self) -> None:
        super().__init__(N_("No such season here. Start one with /panadmin season start."))


class SeasonInputError(PanError):
    code = "bad_season_input"


@dataclass(frozen=True, slots=True, kw_only=True)
class BoardLine:
    rank: int
    user_id: int
    value: int  # chips, wins, or a rating score (1000 x (mu - 3 sigma))
    rated: int = 0  # rated results (a rating shows "?" below the guild's ``established``)
    # a board of what players have (metric chips, on the banks): the bank and the chips at tables in ``value``
    bank: int | None = None
    at_tables: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Board:
    metric: Metric
    period: Period
    season: SeasonRow | None
    lines: tuple[BoardLine, ...]
    caller: BoardLine | None  # the caller's own line (also when outside the top), None if he has no figure
    page: int = 1
    pages: int = 1  # pages of ``limit`` lines (at least 1)
    established: int = PROVISIONAL_RESULTS  # the guild's: ratings with fewer rated results show "?"
    # a season board lists the eligible players only (settings.py); when the caller is not one of them:
    # (his all-time rated results, when he last played or None, whether that is recent enough), else None
    ineligible: tuple[int, int | None, bool] | None = None
    active_days: int = 14


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerCard:
    """Everything ``/pan stats`` shows (image card and text twin are drawn from this)."""

    user_id: int
    season: SeasonRow | None
    season_stats: StatsRow | None
    all_time: StatsRow
    rating: Rating
    season_rating: Rating | None
    season_bank: int | None = None  # chips in the season bank ('bank' season; the starting chips before first use)
    established: int = PROVISIONAL_RESULTS  # the guild's: a rating with fewer rated results shows "?"

    @property
    def going_out_rate(self) -> float:
        s = self.all_time
        return s.hands_won / s.hands_played if s.hands_played else 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class RatingHistory:
    """A player's rating after each rated result: all-time and in the running season (``/pan rating``, the web).

    Points are (ordinal, created_at, score); ``score`` is 1000 x the shown figure (mu - 3 sigma)."""

    user_id: int
    season: SeasonRow | None
    all_time: tuple[tuple[int, int, int], ...]
    season_points: tuple[tuple[int, int, int], ...]
    rating: Rating
    season_rating: Rating | None
    recent: tuple[HistoryRow, ...]  # the last rated results, newest first (result, net, rating change)
    established: int = PROVISIONAL_RESULTS


@dataclass(frozen=True, slots=True, kw_only=True)
class Versus:
    """Head-to-head of two players of a guild: the results both took part in (``/pan versus``)."""

    user_id: int
    other_id: int
    rows: tuple[VersusRow, ...]  # oldest first

    @property
    def hands(self) -> int:
        return sum(1 for r in self.rows if r.kind == "hand")

    @property
    def tourneys(self) -> int:
        return sum(1 for r in self.rows if r.kind == "tourney")

    @property
    def net(self) -> int:
        """The first player's chips over their hands together."""
        return sum(r.net for r in self.rows)

    @property
    def other_net(self) -> int:
        return sum(r.other_net for r in self.rows)

    @property
    def wins(self) -> int:
        """Hands the first player won (went out or split) with the other dealt in, and tournaments he finished
        ahead of the other."""
        return sum(1 for r in self.rows if _beats(r.place, r.other_place, r.kind))

    @property
    def other_wins(self) -> int:
        return sum(1 for r in self.rows if _beats(r.other_place, r.place, r.kind))


def _beats(place: int, other: int, kind: str) -> bool:
    if kind == "hand":
        return place == 1
    return place < other


@dataclass(frozen=True, slots=True, kw_only=True)
class SeasonInfo:
    season: SeasonRow
    standings: tuple[StandingRow, ...]  # live for the active season, archived for an ended one
    exclusions: tuple[tuple[int, int, str, int], ...]  # (user, moderator, reason, created_at)


def _rating(found: tuple[float, float, int] | None) -> Rating:
    return Rating() if found is None else Rating(found[0], found[1], found[2])
