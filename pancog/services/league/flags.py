"""Chip-dumping and collusion flags: pure statistics over a guild's hand digests, for moderators.

Three flags, each with its figures and the hands behind it (never a punishment by itself):

- ``flow``: one player's chips flow to another far more than the other way. Per shared hand ``i`` let
  ``d_i`` be the chips A paid B directly minus what B paid A (conditions, outs, going out). Honest equals are a
  zero-mean walk, so ``z = sum(d) / sqrt(sum(d^2))`` (a self-normalised sum: the hands' own spread is the
  yardstick, so a big-stakes pair is not flagged for big swings). Flagged when ``z >= FLOW_Z`` over at least
  ``FLOW_MIN_HANDS`` shared hands with at least ``FLOW_MIN_CHIPS`` net.
- ``together``: a pair shares hands far more often than the guild's mix predicts. Expected shared hands
  ``E = h_A * (seats_A - 1) * h_B / (H - h_A)`` (each of A's other seats is a draw from everybody else's hands);
  flagged when observed >= ``TOGETHER_RATIO`` * E, the Poisson excess ``(obs - E) / sqrt(E) >= TOGETHER_Z`` and
  the guild has enough other players for the question to mean something.
- ``soft``: A goes on top unusually often when B is in the hand (lets B win uncontested). A's on-top rate in
  the hands with B in play against his rate in all his other hands; a binomial z-score ``>= SOFT_Z`` over at least
  ``SOFT_MIN_HANDS`` hands and a rate at least ``SOFT_GAP`` above his usual one.

Computer players are ignored (they are the house's, not anyone's partner).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from .digest import HandDigest, is_human

__all__ = [
    "FLOW_MIN_CHIPS",
    "FLOW_MIN_HANDS",
    "FLOW_Z",
    "SOFT_Z",
    "TOGETHER_Z",
    "Flag",
    "compute_flags",
]

FLOW_Z = 4.5
FLOW_MIN_HANDS = 15
FLOW_MIN_CHIPS = 50
TOGETHER_RATIO = 3.0
TOGETHER_Z = 6.0
TOGETHER_MIN_PLAYERS = 6  # fewer regulars: everybody plays with everybody
TOGETHER_MIN_HANDS = 40
SOFT_Z = 4.5
SOFT_MIN_HANDS = 30
SOFT_GAP = 0.3
EVIDENCE = 10  # hands listed per flag


@dataclass(frozen=True, slots=True, kw_only=True)
class Flag:
    kind: str  # 'flow' | 'together' | 'soft'
    first: int  # flow: the payer; soft: the one going on top; together: the lower id
    second: int  # flow: the payee; soft: the opponent; together: the higher id
    score: float  # the z-score that raised it
    figures: tuple[tuple[str, float], ...]  # named numbers for the moderator
    hands: tuple[str, ...]  # result keys (hand:<table>:<hand_no>) of the hands that weigh most

    def figure(self, name: str) -> float:
        return dict(self.figures)[name]


def compute_flags(digests: Iterable[HandDigest]) -> list[Flag]:
    """Every flag raised by ``digests`` (one guild's hands, in order), strongest first."""
    hands = list(digests)
    flags = _flow_flags(hands) + _together_flags(hands) + _soft_flags(hands)
    flags.sort(key=lambda f: (-f.score, f.kind, f.first, f.second))
    return flags


def _humans(d: HandDigest) -> list[int]:
    return [p.user_id for p in d.players if is_human(p.user_id)]


def _flow_flags(hands: list[HandDigest]) -> list[Flag]:
    # per ordered pair (a < b): per shared hand net flow a -> b
    sums: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0, 0.0, 0])  # sum, sum of squares, hands
    worst: dict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)
    for d in hands:
        people = sorted(_humans(d))
        if len(people) < 2:
            continue
        for i, a in enumerate(people):
            for b in people[i + 1 :]:
                net = d.flows.get((a, b), 0) - d.flows.get((b, a), 0)
                acc = sums[(a, b)]
                acc[0] += net
                acc[1] += net * net
                acc[2] += 1
                if net:
                    worst[(a, b)].append((net, d.key))
    flags = []
    for (a, b), (total, squares, count) in sums.items():
        if count < FLOW_MIN_HANDS or squares == 0 or abs(total) < FLOW_MIN_CHIPS:
            continue
        z = total / math.sqrt(squares)
        if abs(z) < FLOW_Z:
            continue
        payer, payee = (a, b) if total > 0 else (b, a)
        sign = 1 if total > 0 else -1
        evidence = sorted(worst[(a, b)], key=lambda t: -sign * t[0])[:EVIDENCE]
        flags.append(
            Flag(
                kind="flow",
                first=payer,
                second=payee,
                score=abs(z),
                figures=(("net_chips", abs(total)), ("shared_hands", count), ("z", round(abs(z), 2))),
                hands=tuple(key for _, key in evidence),
            )
        )
    return flags


def _together_flags(hands: list[HandDigest]) -> list[Flag]:
    dealt: dict[int, int] = defaultdict(int)
    others: dict[int, int] = defaultdict(int)  # sum over a player's hands of the other humans at the table
    shared: dict[tuple[int, int], list[str]] = defaultdict(list)
    for d in hands:
        people = sorted(_humans(d))
        for p in people:
            dealt[p] += 1
            others[p] += len(people) - 1
        for i, a in enumerate(people):
            for b in people[i + 1 :]:
                shared[(a, b)].append(d.key)
    total = sum(dealt.values())
    regulars = sum(1 for n in dealt.values() if n >= TOGETHER_MIN_HANDS)
    if regulars < TOGETHER_MIN_PLAYERS:
        return []
    flags = []
    for (a, b), keys in shared.items():
        observed = len(keys)
        if observed < TOGETHER_MIN_HANDS:
            continue
        # A's other seats are draws from everyone else's hands; symmetric average of the two views
        exp_a = others[a] * dealt[b] / max(1, total - dealt[a])
        exp_b = others[b] * dealt[a] / max(1, total - dealt[b])
        expected = max(1e-9, (exp_a + exp_b) / 2)
        z = (observed - expected) / math.sqrt(expected)
        if observed < TOGETHER_RATIO * expected or z < TOGETHER_Z:
            continue
        flags.append(
            Flag(
                kind="together",
                first=a,
                second=b,
                score=z,
                figures=(("shared_hands", observed), ("expected", round(expected, 1)), ("z", round(z, 2))),
                hands=tuple(keys[-EVIDENCE:]),
            )
        )
    return flags


def _soft_flags(hands: list[HandDigest]) -> list[Flag]:
    # for each player: (hands dealt, on top) overall; for each (a, b): hands where b played and a was dealt
    overall: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    pair: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    keys: dict[tuple[int, int], list[str]] = defaultdict(list)
    for d in hands:
        lines = [p for p in d.players if is_human(p.user_id)]
        for p in lines:
            overall[p.user_id][0] += 1
            overall[p.user_id][1] += int(p.on_top)
        for pa in lines:
            for pb in lines:
                if pa.user_id == pb.user_id or not pb.played:
                    continue
                acc = pair[(pa.user_id, pb.user_id)]
                acc[0] += 1
                acc[1] += int(pa.on_top)
                if pa.on_top:
                    keys[(pa.user_id, pb.user_id)].append(d.key)
    flags = []
    for (a, b), (n, tops) in pair.items():
        if n < SOFT_MIN_HANDS:
            continue
        rest_n = overall[a][0] - n
        rest_tops = overall[a][1] - tops
        if rest_n < SOFT_MIN_HANDS:
            continue
        base = min(max(rest_tops / rest_n, 0.02), 0.98)
        rate = tops / n
        z = (tops - n * base) / math.sqrt(n * base * (1 - base))
        if z < SOFT_Z or rate - base < SOFT_GAP:
            continue
        flags.append(
            Flag(
                kind="soft",
                first=a,
                second=b,
                score=z,
                figures=(
                    ("hands_with_opponent_in", n),
                    ("on_top_rate_vs_opponent", round(rate, 3)),
                    ("on_top_rate_otherwise", round(rest_tops / rest_n, 3)),
                    ("z", round(z, 2)),
                ),
                hands=tuple(keys[(a, b)][-EVIDENCE:]),
            )
        )
    return flags
