"""Final-table deals (pure, stdlib only): how the prizes still to be won are split when the players left agree.

* **Chip chop** (as the big online rooms offer it): every player is first given the smallest prize still to be won
  (the next pay jump is guaranteed to everyone), and the rest is split in proportion to the chips.
* **ICM** (the Malmuth–Harville model): a player finishes first with probability ``stack / all chips``; given who
  finished above, the next place is drawn the same way among the others; each player gets the expected value of the
  prizes by those probabilities. Computed exactly (fractions, over the subsets of players left: at most 2^8 states
  at a final table of 8).

Both are exact in whole chips: each share is rounded down and the chips left over go one each to the largest
fractions (ties: the bigger stack, then the earlier entry), so the amounts add up to what is dealt exactly.

A part of the money can be **left to play for**: it comes off the first prize (at most the difference between the
first and second prizes, so the first place stays worth the most) and goes to the winner of the play that follows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

__all__ = ["chip_chop", "icm", "max_keep", "split"]


def max_keep(place_prizes: Sequence[int]) -> int:
    """The most that can be left to play for: first prize minus second (all of it heads-up with one prize)."""
    if not place_prizes:
        return 0
    return place_prizes[0] - (place_prizes[1] if len(place_prizes) > 1 else 0)


def _whole(shares: Mapping[int, Fraction], total: int, stacks: Mapping[int, int]) -> dict[int, int]:
    """Round fractional shares (summing to ``total``) to whole chips that sum to ``total`` exactly."""
    out = {k: int(v) for k, v in shares.items()}  # floor: shares are never negative
    left = total - sum(out.values())
    order = sorted(shares, key=lambda k: (-(shares[k] - out[k]), -stacks[k], k))
    for k in order[:left]:
        out[k] += 1
    return out


def chip_chop(stacks: Mapping[int, int], place_prizes: Sequence[int], keep: int = 0) -> dict[int, int]:
    """``stacks``: entry -> chips of the players left; ``place_prizes``: the prizes of places 1..n still to be won
    (n = players left, unpaid places 0); ``keep``: chips left to play for. Returns entry -> chips dealt."""
    n = len(stacks)
    prizes = _prizes(place_prizes, n, keep)
    total = sum(prizes)
    floor = min(prizes)
    chips = sum(stacks.values())
    rest = total - floor * n
    shares = {k: Fraction(floor) + Fraction(rest * s, chips) for k, s in stacks.items()}
    return _whole(shares, total, stacks)


def icm(stacks: Mapping[int, int], place_prizes: Sequence[int], keep: int = 0) -> dict[int, int]:
    """The Malmuth–Harville equity of each player (entry -> chips dealt), ``keep`` left to play for."""
    prizes = _prizes(place_prizes, len(stacks), keep)
    players = sorted(stacks)
    equity = {k: Fraction(0) for k in players}
    reach: dict[frozenset[int], Fraction] = {frozenset(players): Fraction(1)}
    for place, prize in enumerate(prizes):  # states with `place` players already finished above
        step: dict[frozenset[int], Fraction] = {}
        for left, p in reach.items():
            chips = sum(stacks[k] for k in left)
            for k in left:
                q = p * Fraction(stacks[k], chips) if chips else p / len(left)
                equity[k] += q * prize
                rest = left - {k}
                step[rest] = step.get(rest, Fraction(0)) + q
        reach = step
        if place == len(players) - 1:
            break
    return _whole(equity, sum(prizes), stacks)


def split(kind: str, stacks: Mapping[int, int], place_prizes: Sequence[int], keep: int = 0) -> dict[int, int]:
    """``kind`` ``chip`` or ``icm``."""
    if kind == "icm":
        return icm(stacks, place_prizes, keep)
    return chip_chop(stacks, place_prizes, keep)


def _prizes(place_prizes: Sequence[int], n: int, keep: int) -> list[int]:
    if n < 2:
        raise ValueError("a deal needs at least two players")
    prizes = list(place_prizes[:n]) + [0] * max(0, n - len(place_prizes))
    if not 0 <= keep <= max_keep(prizes):
        raise ValueError("the part left to play for is out of range")
    prizes[0] -= keep
    return prizes
