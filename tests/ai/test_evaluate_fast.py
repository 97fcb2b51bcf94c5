"""The evaluation's hand terms written out for speed (``pancog.ai.evaluate``: one count vector per hand, the hits as
bits, the units from tables made once per rules and board) give the same numbers as the plain statement of each
term below — the same float to the last bit, since the hand panel and the computer players order plays by them and
a tie broken differently would reorder a menu.

The inputs: the boards, hands and unseen cards of seats in self-played hands (paid sets, runs a King would pay on, split
melds), every hand also less each of its cards (what ranking the discards asks), under the rule variants the
evaluation reads, and random hands over few faces (pairs, sets, near-runs) for the count-vector terms."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

from pancog.ai import Level, make_player
from pancog.ai.evaluate import (
    CARD_INDEX,
    SUITS,
    WEIGHTS,
    Weights,
    _board_units,
    _faces,
    _forming,
    _forms,
    _units,
    counts_of,
    hit_chance,
    made_cards,
    near_melds,
    position_value,
)
from pancog.ai.selfplay import play_fresh_hand
from pancog.game.cards import ALL_CARDS, Card, Rank, Suit
from pancog.game.engine import Observation
from pancog.game.melds import Meld, MeldKind
from pancog.game.moves import lay_offs
from pancog.game.rules import Rules

# --------------------------------------------------------------------------------------------- the plain terms


def plain_units(idx: int, v: Sequence[int], board: Sequence[Meld], rules: Rules) -> int:
    s, r0 = divmod(idx, 10)
    rank = Rank(r0 + 1)
    factor = 2 if SUITS[s] is Suit.SPADES and rules.spades_double else 1
    best = 0
    if v[idx] >= 2 and (not rank.is_noncomoquer or rules.suited_ak_pays):
        best = (2 if rank.is_valle else 1) * factor
    if rank.is_valle and rules.unsuited_valle_pays and sum(1 for k in range(4) if k != s and v[k * 10 + r0]) >= 2:
        best = max(best, 1)
    base = s * 10
    if r0 <= 2 and all(v[base + r] or r == r0 for r in range(3)):
        best = max(best, factor)
    if r0 >= 7 and all(v[base + r] or r == r0 for r in range(7, 10)):
        best = max(best, factor)
    for m in board:
        if not m.valid:
            continue
        first = m.cards[0]
        if m.kind is MeldKind.SET:
            if first.rank is rank and m.suit is SUITS[s] and m.paid > 0:
                best = max(best, factor)
        elif first.suit is SUITS[s] and (
            (r0 == 0 and first.rank is Rank.TWO) or (r0 == 9 and m.cards[-1].rank is Rank.QUEEN)
        ):
            best = max(best, factor)
    return best


def plain_hit_chance(
    hand: Sequence[Card], board: Sequence[Meld], u: Sequence[int], rules: Rules, payers: int, unit_weight: float
) -> float:
    total = sum(u)
    if total <= 0:
        return 0.0
    v = counts_of(hand)
    fits = [lay_offs(board, c) for c in ALL_CARDS]
    acc = 0.0
    scale = unit_weight * payers / 5.0
    for idx in range(40):
        n = u[idx]
        if n and (fits[idx] or _forms(v, idx)):
            acc += n * (1.0 + scale * plain_units(idx, v, board, rules))
    return acc / total


def plain_made_cards(hand: Sequence[Card]) -> int:
    left = counts_of(hand)
    used = 0
    for r0 in range(10):
        idxs = [k * 10 + r0 for k in range(4)]
        for i in idxs:
            while left[i] >= 3:
                left[i] -= 3
                used += 3
        if r0 in (0, 9):
            n = sum(left[i] for i in idxs)
            if n >= 3:
                used += n
                for i in idxs:
                    left[i] = 0
        else:
            while sum(1 for i in idxs if left[i]) >= 3:
                present = sorted((i for i in idxs if left[i]), key=lambda i: -left[i])
                for i in present[:3]:
                    left[i] -= 1
                used += 3
    for k in range(4):
        base = k * 10
        r = 0
        while r < 10:
            length = 0
            while r + length < 10 and left[base + r + length] > 0:
                length += 1
            if length >= 3:
                for j in range(length):
                    left[base + r + j] -= 1
                used += length
                r += length
            else:
                r += max(1, length)
    return used


def plain_near_melds(hand: Sequence[Card]) -> int:
    v = counts_of(hand)
    n = 0
    for idx in range(40):
        k = v[idx]
        if not k:
            continue
        r0 = idx % 10
        if k >= 2:
            n += 1
        if r0 in (0, 9):
            continue
        for d in (1, 2):
            if r0 + d <= 9 and v[idx + d]:
                n += 1
    for r0 in range(10):
        same = [v[k * 10 + r0] for k in range(4)]
        if r0 in (0, 9):
            if sum(same) >= 2:
                n += 1
        elif sum(1 for x in same if x) >= 2:
            n += 1
    return n


def plain_position_value(
    board: Sequence[Meld], hand: Sequence[Card], u: Sequence[int], rules: Rules, payers: int, weights: Weights
) -> float:
    board_cards = sum(len(m.cards) for m in board)
    if board_cards >= 11:
        return 1000.0
    value = weights.board * board_cards
    value += weights.made * plain_made_cards(hand)
    value += weights.hits * plain_hit_chance(hand, board, u, rules, payers, weights.unit)
    value += weights.pair * plain_near_melds(hand)
    value += weights.valle * sum(1 for c in hand if c.is_valle)
    return value


# --------------------------------------------------------------------------------------------- the inputs


class _Recording:
    """A normal computer player that keeps every observation it is asked to act on."""

    def __init__(self, seen: list[Observation]) -> None:
        self.inner = make_player(Level.NORMAL)
        self.seen = seen

    def choose(self, obs: Observation, legal: Any, rng: random.Random) -> Any:
        self.seen.append(obs)
        return self.inner.choose(obs, legal, rng)

    def react(self, obs: Observation, legal: Any, rng: random.Random) -> Any:
        return self.inner.react(obs, legal, rng)


def _observations(hands: int) -> list[Observation]:
    seen: list[Observation] = []
    for seed in range(hands):
        players: list[Any] = [_Recording(seen) for _ in range(4)]
        play_fresh_hand(players, seed=seed, first_seat=seed % 4)
    return seen


RULES = [
    Rules(),
    dataclasses.replace(Rules(), spades_double=False),
    dataclasses.replace(Rules(), suited_ak_pays=False),
    dataclasses.replace(Rules(), unsuited_valle_pays=False),
]


def test_position_value_and_its_terms_are_the_plain_ones_over_played_positions() -> None:
    rng = random.Random(11)
    checked = 0
    paid_sets = runs_to_queen = 0
    for obs in _observations(40):
        me = next(p for p in obs.players if p.seat == obs.seat)
        board = me.melds
        paid_sets += any(m.kind is MeldKind.SET and m.paid > 0 for m in board)
        runs_to_queen += any(m.kind is not MeldKind.SET and m.cards[-1].rank is Rank.QUEEN for m in board)
        u = [rng.randint(0, 8) for _ in range(40)]
        hands = [list(obs.hand)] + [[c for j, c in enumerate(obs.hand) if j != i] for i in range(len(obs.hand))]
        for hand in hands:
            rules = rng.choice(RULES)
            payers = rng.randint(1, 5)
            assert position_value(board, hand, u, rules, payers=payers) == plain_position_value(
                board, hand, u, rules, payers, WEIGHTS
            ), (hand, board)
            for weight in (0.0, WEIGHTS.unit):
                assert hit_chance(hand, board, u, rules, payers=payers, unit_weight=weight) == plain_hit_chance(
                    hand, board, u, rules, payers, weight
                )
            v = counts_of(hand)
            faces, on_board = _faces(rules.spades_double, rules.suited_ak_pays), _board_units(tuple(board), rules)
            assert [_units(i, v, rules, faces, on_board) for i in range(40)] == [
                plain_units(i, v, board, rules) for i in range(40)
            ]
            checked += 1
    assert checked > 2000
    assert paid_sets > 0 and runs_to_queen > 0, (paid_sets, runs_to_queen)  # the boards' terms were exercised
    assert position_value((), [], [0] * 40, Rules()) == plain_position_value((), [], [0] * 40, Rules(), 5, WEIGHTS)


def test_hand_terms_are_the_plain_ones_over_clustered_hands() -> None:
    rng = random.Random(5)
    made_seen = set()
    for _ in range(6000):
        pool = rng.sample(ALL_CARDS, rng.randint(1, 10))
        hand = [rng.choice(pool) for _ in range(rng.randint(0, 16))]
        made = made_cards(hand)
        assert made == plain_made_cards(hand), hand
        assert near_melds(hand) == plain_near_melds(hand), hand
        v = counts_of(hand)
        bits = _forming(v)
        assert [bool(bits >> i & 1) for i in range(40)] == [_forms(v, i) for i in range(40)], hand
        made_seen.add(made)
    assert len(made_seen) > 8  # covers from nothing made to many melds


def test_card_index_is_the_bit_order() -> None:
    """The hits are bits by :data:`CARD_INDEX`: suit-major, ten ranks a suit."""
    for card, idx in CARD_INDEX.items():
        assert idx == SUITS.index(card.suit) * 10 + int(card.rank) - 1
