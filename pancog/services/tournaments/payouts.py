"""Prize pools: places paid by field size, the published table, ties (pure, stdlib only).

Places paid: 1 below 5 entries, 2 below 10, 3 below 20, then 15 % of the field (rounded, at least 3).
The published table gives each place a weight in per mille; amounts are ``pool * weight // total``,
and the remainder of the integer division goes to first place. A custom list replaces the table.
Players who finish tied (equal stacks at the start of the hand that knocked them out) share the prizes
of every place they cover; the remainder of that split goes to the tied player listed first.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from pancog.game.i18n import N_

from .errors import BadTournamentOption

__all__ = ["PAYOUT_TABLE", "payout_weights", "places_paid", "prizes", "share_ties"]

# weights (per mille) by number of places paid; beyond the table the weights come from a geometric tail
PAYOUT_TABLE: dict[int, tuple[int, ...]] = {
    1: (1000,),
    2: (650, 350),
    3: (500, 300, 200),
    4: (450, 270, 170, 110),
    5: (400, 250, 160, 110, 80),
    6: (380, 230, 150, 100, 75, 65),
    7: (360, 220, 140, 95, 70, 60, 55),
    8: (350, 210, 130, 90, 65, 55, 52, 48),
    9: (340, 200, 125, 85, 62, 52, 48, 45, 43),
}


def places_paid(entries: int) -> int:
    """How many places are paid for a field of ``entries`` (>= 1 when entries >= 1)."""
    if entries < 5:
        return 1 if entries >= 1 else 0
    if entries < 10:
        return 2
    if entries < 20:
        return 3
    return max(3, min(entries, round(entries * 0.15)))


def payout_weights(places: int) -> tuple[int, ...]:
    """The published weights for ``places`` paid places (non-increasing, positive)."""
    if places < 1:
        raise BadTournamentOption(N_("At least one place must be paid."))
    if places in PAYOUT_TABLE:
        return PAYOUT_TABLE[places]
    # a long table: 25 % to first, then a geometric fall to a floor of a third of tenth place
    weights = [250.0]
    for _ in range(places - 1):
        weights.append(max(weights[-1] * 0.78, 1.0))
    return tuple(max(1, int(w * 100)) for w in weights)


def prizes(pool: int, entries: int, custom: Sequence[int] | None = None) -> tuple[int, ...]:
    """Chips for places 1..n; they sum to ``pool`` exactly and never increase down the places.

    ``custom``: weights (e.g. percentages) replacing the table (non-increasing, positive).

    Raises:
        BadTournamentOption: a custom list that is empty, not positive or increasing.
    """
    if pool < 0:
        raise BadTournamentOption(N_("The prize pool cannot be negative."))
    if custom is not None:
        weights = tuple(custom)
        if not weights or any(w <= 0 for w in weights):
            raise BadTournamentOption(N_("A payout list needs positive shares."))
        if any(b > a for a, b in itertools.pairwise(weights)):
            raise BadTournamentOption(N_("A payout list cannot pay a lower place more than a higher one."))
        weights = weights[: max(1, entries)]
    else:
        weights = payout_weights(max(1, places_paid(entries)))
    total = sum(weights)
    amounts = [pool * w // total for w in weights]
    amounts[0] += pool - sum(amounts)
    return tuple(amounts)


def share_ties(place_prizes: Sequence[int], groups: Sequence[int]) -> list[int]:
    """Amounts per finisher, best first, where ``groups`` are the sizes of tied groups in place order.

    A group of k finishers covering places p..p+k-1 shares the sum of those places' prizes (places beyond the
    paid ones are worth 0); the remainder goes to the group's first finisher. The result sums to the prizes of
    the places covered.
    """
    out: list[int] = []
    place = 0
    for k in groups:
        if k < 1:
            raise ValueError("a tied group has at least one finisher")
        covered = sum(place_prizes[place : place + k])
        share, rest = divmod(covered, k)
        out += [share + rest] + [share] * (k - 1)
        place += k
    return out
