"""Skill ratings with openskill (Weng-Lin Bayesian ratings for free-for-all results, pinned in requirements.txt).

Model: :class:`openskill.models.BradleyTerryFull`. openskill's default Plackett-Luce model mis-orders tied
ranks in 6.2.0 (two players tied for 2nd can end below the 4th); the full-pairing Bradley-Terry model compares
every pair of players, treats a shared rank as a draw between them, and passes the property test
``tests/services/league/test_ratings.py`` (equal priors: a better rank never gains less; equal ranks gain the same).

A player's shown figure is the conservative estimate ``mu - 3 sigma`` (0 for a newcomer, rising as the
system becomes sure); until it is established (:data:`PROVISIONAL_RESULTS` rated results by default, a guild's
league setting otherwise) it shows with a "?", as on lichess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import BradleyTerryFull

__all__ = ["MODEL", "PROVISIONAL_RESULTS", "Rating", "decayed", "display", "rate"]

MODEL = BradleyTerryFull()
PROVISIONAL_RESULTS = 30  # rated results before a rating is established (the default; a guild may change it)


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    rated: int = 0  # rated results so far

    @property
    def conservative(self) -> float:
        return self.mu - 3.0 * self.sigma

    @property
    def score(self) -> int:
        """``round(1000 * (mu - 3 sigma))``: the integer the leaderboards sort by."""
        return round(1000.0 * self.conservative)

    @property
    def provisional(self) -> bool:
        return self.rated < PROVISIONAL_RESULTS


def rate(priors: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The ratings after one result (``ranks``: 1 = best; equal numbers are a tie), in the same order.

    Raises:
        ValueError: fewer than two players, or ``ranks`` does not match ``priors``.
    """
    if len(priors) < 2 or len(priors) != len(ranks):
        raise ValueError("a rated result needs two or more players and one rank each")
    teams = [[MODEL.rating(mu=p.mu, sigma=p.sigma)] for p in priors]
    out = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [Rating(team[0].mu, team[0].sigma, p.rated + 1) for team, p in zip(out, priors, strict=True)]


def decayed(rating: Rating, amount: int) -> Rating:
    """``rating`` after losing ``amount`` (x 1000) of its shown figure to inactivity: ``mu`` goes down by it, the
    uncertainty and the count stay (decay says nothing new about the player's skill)."""
    return Rating(rating.mu - amount / 1000.0, rating.sigma, rating.rated)


def display(score: int, rated: int, established: int = PROVISIONAL_RESULTS) -> str:
    """The shown figure for a stored score, e.g. ``'12.3'``, or ``'4.1?'`` before ``established`` rated results."""
    text = f"{score / 1000:.1f}"
    return f"{text}?" if rated < established else text
