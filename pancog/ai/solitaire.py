"""Solitaire look-ahead: how a board and hand fare over the seat's own next plucks, by sampling.

The race to go out decides most hands. For a candidate end-of-turn position, :func:`solitaire_value`
deals the seat's next ``horizon`` plucks from the cards it has not seen (a sample consistent with its
observation) and plays them greedily on its own board and hand: use a hit in the largest play, lay
down whatever else melds, discard the loosest card. The value is in chips: the conditions collected
(times the payers) and, if the player goes out within the horizon, the going-out pay discounted by the
turns it took. Opponents are not simulated (that is what keeps it cheap and low-variance).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from pancog.game.cards import ALL_CARDS, Card
from pancog.game.melds import Meld, outs_units
from pancog.game.moves import meld_plays
from pancog.game.rules import Rules

from .evaluate import CARD_INDEX, apply_meld_play, counts_of

DISCOUNT = 0.85
"""Per-turn discount of the going-out pay (another player may go out first)."""


def loosest(hand: Sequence[Card]) -> Card:
    """The hand card with the fewest partners (same rank, or same suit within two ranks); valle kept longer."""
    v = counts_of(hand)
    best: tuple[int, Card] | None = None
    for c in hand:
        i = CARD_INDEX[c]
        s, r0 = divmod(i, 10)
        partners = v[i] - 1 + sum(v[k * 10 + r0] for k in range(4) if k != s)
        partners += sum(v[s * 10 + r] for r in range(max(0, r0 - 2), min(9, r0 + 2) + 1) if r != r0)
        key = (partners * 4 + (2 if c.is_valle else 0), c)
        if best is None or key < best:
            best = key
    if best is None:
        raise ValueError("no card to discard")
    return best[1]


def _meld_more(
    board: tuple[Meld, ...], hand: tuple[Card, ...], rules: Rules
) -> tuple[tuple[Meld, ...], tuple[Card, ...], int]:
    """Lay down every further meld the hand holds (largest first); returns board, hand, units."""
    units = 0
    for _ in range(6):
        if not hand:
            break
        plays = meld_plays(0, hand, board, None, rules)
        best = None
        for p in plays:
            out = apply_meld_play(board, hand, None, p, rules)
            if out is not None and (best is None or (len(hand) - len(out.hand), out.units) > best[0]):
                best = ((len(hand) - len(out.hand), out.units), out)
        if best is None:
            break
        board, hand, units = best[1].board, best[1].hand, units + best[1].units
    return board, hand, units


def play_draws(
    board: tuple[Meld, ...],
    hand: tuple[Card, ...],
    draws: Sequence[Card],
    rules: Rules,
    deadline: float | None = None,
) -> tuple[int | None, tuple[Meld, ...], int]:
    """Play ``draws`` as successive plucks; returns (turn went out or None, final board, units collected).

    Stops early (as if the remaining plucks missed) once ``deadline`` (``time.perf_counter()``) passes.
    """
    units = 0
    for t, card in enumerate(draws):
        if deadline is not None and time.perf_counter() > deadline:
            break
        best = None
        for p in meld_plays(0, hand, board, card, rules):
            out = apply_meld_play(board, hand, card, p, rules)
            if out is not None and (best is None or (out.units, len(hand) - len(out.hand)) > best[0]):
                best = ((out.units, len(hand) - len(out.hand)), out)
        if best is None:
            continue
        board, hand, units = best[1].board, best[1].hand, units + best[1].units
        board, hand, more = _meld_more(board, hand, rules)
        units += more
        if not hand:
            return t, board, units
        rest = list(hand)
        rest.remove(loosest(hand))
        hand = tuple(rest)
    return None, board, units


def solitaire_value(
    board: tuple[Meld, ...],
    hand: tuple[Card, ...],
    draws: Sequence[Card],
    rules: Rules,
    *,
    payers: int,
    tops: int,
    deadline: float | None = None,
) -> float:
    """Chips this position is worth over the sampled ``draws`` (conditions, then a discounted going out)."""
    out_turn, final, units = play_draws(board, hand, draws, rules, deadline)
    value = float(units * payers)
    if out_turn is not None:
        pay = (outs_units(final, rules) + rules.going_out_units) * payers + tops
        value += pay * DISCOUNT**out_turn
    else:
        value += 0.4 * sum(len(m.cards) for m in final)
    return value


def sample_draws(unseen: Sequence[int], horizon: int, rng: random.Random) -> list[Card]:
    """``horizon`` cards drawn without replacement from the 40-slot ``unseen`` count vector."""
    pool = [ALL_CARDS[i] for i in range(40) for _ in range(unseen[i])]
    if len(pool) <= horizon:
        rng.shuffle(pool)
        return pool
    return rng.sample(pool, horizon)
