"""Chip-dumping and collusion flags: pure statistics over a guild's hand digests, for moderators.

Three flags, each with named figures and the hands behind it (never a punishment by itself). Each flag's score is
a z: the normal quantile of the chance of what was seen (or more) if the players were honest, computed exactly
(binomial or hypergeometric tails) where the figure is a count, so a small sample is never over-trusted.

- ``flow``: one player's chips flow to another far more than the other way. Per shared hand ``d`` = the chips A
  paid B directly minus what B paid A (conditions, outs, going out). Two scores, the larger counts: the chips,
  ``z_chips = sum(d) / sqrt(sum(d^2))`` (self-normalised: the hands' own spread is the yardstick, so big stakes are
  not flagged for big swings; for honest equals ``d`` is symmetric and the score has a sub-Gaussian tail whatever
  the stakes), and the hands, ``z_hands`` = the sign test over the hands in which chips moved between them (honest
  equals pay each other in about half of them). Raised at ``FLOW_Z`` over ``FLOW_MIN_HANDS`` shared hands with
  ``FLOW_MIN_CHIPS`` net and at least ``FLOW_ONE_SIDED`` of the chips going one way: a lasting skill gap makes a
  significant flow over enough hands too, but never a nearly one-way one (honest players still win some).
- ``together``: a pair that sits together in nearly all of each other's hands (``TOGETHER_SHARE`` of each one's)
  while the guild had other tables they could have sat at. The unit is the *sitting* (a run of hands at one table
  with the same people): who sits with whom is chosen per sitting, and the hands of one sitting are no separate
  choices. Null: the guild's sittings as they were, each player in as many as he was, filled without regard to who
  else sits there; the exact chance (Fisher's one-sided test) that A and B share as many sittings as they did.
  That baseline uses each player's share of the sittings only, so an inseparable pair is not its own excuse however
  much of the guild it is: it is flagged once the other sittings make the overlap unlikely. The strongest pair is
  judged first and its shared sittings then leave the baseline of the pairs judged after it (a pair that fills its
  own tables leaves the others fewer to spread over, which is no evidence about them).
- ``soft``: A goes on top unusually often when B has knocked in (he lets B win uncontested). Judged on the hands an
  honest player knocks with — A was dealt a meld (``STRONG_MADE`` cards already made, the digest's ``made``) — and
  in the situation soft play is about: someone had knocked in before A declared (the digest's ``position``); B
  counts if his knock came before A's declaration. Hands recorded before those facts were kept are all judged,
  with B in at all, in a class of their own. A's honest rate of going on top there is an empirical-Bayes estimate:
  the guild's rate in the same class (everyone but A) counted as ``SOFT_PRIOR_HANDS`` hands, plus A's own such
  hands without B in before him. So a player never seen apart from B is judged by the guild's rate and by his
  hands where B declared after him or went on top, and one seen apart mostly by his own. Raised when his rate
  with B in is ``SOFT_GAP`` above that estimate over ``SOFT_MIN_HANDS`` hands and the binomial tail at the
  estimate gives ``SOFT_Z`` (a binomial at the mean rate bounds the tail of the hands' mixed rates from above:
  Hoeffding 1956).

Computer players are ignored (they are the house's, not anyone's partner).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist

from .digest import HandDigest, PlayerLine, is_human

__all__ = [
    "FLOW_MIN_CHIPS",
    "FLOW_MIN_HANDS",
    "FLOW_ONE_SIDED",
    "FLOW_Z",
    "LIMITS",
    "SOFT_GAP",
    "SOFT_MIN_HANDS",
    "SOFT_Z",
    "STRONG_MADE",
    "TOGETHER_SHARE",
    "TOGETHER_Z",
    "Flag",
    "Limits",
    "binomial_tail",
    "compute_flags",
    "hypergeometric_tail",
    "sittings",
]

FLOW_Z = 4.5
FLOW_MIN_HANDS = 15
FLOW_MIN_CHIPS = 50
FLOW_ONE_SIDED = 0.8  # share of the chips between the two that go the flagged way
TOGETHER_Z = 4.5
TOGETHER_SHARE = 0.8  # share of each one's hands played with the other
TOGETHER_MIN_HANDS = 40
TOGETHER_MIN_SITTINGS = 5
SOFT_Z = 4.5
SOFT_GAP = 0.3
SOFT_MIN_HANDS = 20
SOFT_PRIOR_HANDS = 20  # weight of the guild's rate in a player's own estimate, in hands
STRONG_MADE = 3  # cards already in melds when dealt: a dealt meld, a hand honest players knock with
RATE_FLOOR = 0.02  # no estimated rate below this (nor above 1 - this): nobody is perfectly predictable
EVIDENCE = 10  # hands listed per flag
_Z_CAP = 40.0  # a chance below ~1e-350 (float underflow) scores this
Sitting = tuple[frozenset[int], list[str]]
"""A run of hands at one table dealt to the same humans: (the humans, the hands' result keys)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """The thresholds a flag is raised at (the module's constants). ``bench/league.py --flags`` loosens them to see
    how close honest players come."""

    flow_z: float = FLOW_Z
    flow_min_hands: int = FLOW_MIN_HANDS
    flow_min_chips: int = FLOW_MIN_CHIPS
    flow_one_sided: float = FLOW_ONE_SIDED
    together_z: float = TOGETHER_Z
    together_share: float = TOGETHER_SHARE
    together_min_hands: int = TOGETHER_MIN_HANDS
    together_min_sittings: int = TOGETHER_MIN_SITTINGS
    soft_z: float = SOFT_Z
    soft_gap: float = SOFT_GAP
    soft_min_hands: int = SOFT_MIN_HANDS


LIMITS = Limits()


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


def compute_flags(digests: Iterable[HandDigest], limits: Limits = LIMITS) -> list[Flag]:
    """Every flag raised by ``digests`` (one guild's hands, in order), strongest first."""
    hands = list(digests)
    people = [sorted(_humans(d)) for d in hands]
    keys = [d.key for d in hands]
    flags = _flow_flags(hands, people, keys, limits)
    flags += _together_flags(_sittings(hands, people, keys), limits)
    flags += _soft_flags(hands, limits)
    flags.sort(key=lambda f: (-f.score, f.kind, f.first, f.second))
    return flags


def _humans(d: HandDigest) -> list[int]:
    return [p.user_id for p in d.players if is_human(p.user_id)]


# ----------------------------------------------------------------------------------------------- exact tails


def _z(log_p: float) -> float:
    """The z-score of a one-sided chance given as its natural log (0 for a chance of one half or more)."""
    if log_p >= math.log(0.5):
        return 0.0
    if log_p > -700.0:
        return -NormalDist().inv_cdf(math.exp(log_p))
    # beyond a float's range: the tail's asymptote, -log p ~ z^2/2 + log(z) + log(sqrt(2 pi))
    x = -2.0 * log_p
    return min(_Z_CAP, math.sqrt(x - math.log(x) - math.log(2.0 * math.pi)))


def _log_sum(terms: Iterable[float]) -> float:
    values = list(terms)
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def _log_choose(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def binomial_tail(k: int, n: int, p: float) -> float:
    """log P(X >= k) for X ~ Binomial(n, p), 0 < p < 1."""
    if k <= 0:
        return 0.0
    if k > n:
        return -math.inf
    lp, lq = math.log(p), math.log1p(-p)
    return _log_sum(_log_choose(n, j) + j * lp + (n - j) * lq for j in range(k, n + 1))


def hypergeometric_tail(k: int, total: int, marked: int, drawn: int) -> float:
    """log P(X >= k) for X the marked items among ``drawn`` drawn without replacement from ``total``."""
    top = min(marked, drawn)
    if k <= max(0, drawn + marked - total):
        return 0.0
    if k > top:
        return -math.inf
    whole = _log_choose(total, drawn)
    return _log_sum(_log_choose(marked, j) + _log_choose(total - marked, drawn - j) - whole for j in range(k, top + 1))


# ----------------------------------------------------------------------------------------------- flow


def _flow_flags(hands: list[HandDigest], people: list[list[int]], keys: list[str], limits: Limits) -> list[Flag]:
    # per pair (a < b): per shared hand the net flow a -> b, and the hand
    nets: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    for index, (d, humans) in enumerate(zip(hands, people, strict=True)):
        flows = d.flows
        for i, a in enumerate(humans):
            for b in humans[i + 1 :]:
                nets[(a, b)].append((flows.get((a, b), 0) - flows.get((b, a), 0), index))
    # hands in which each player paid another on balance (for the payer's record against everyone else)
    paid_to: dict[tuple[int, int], int] = defaultdict(int)
    for (a, b), rows in nets.items():
        paid_to[(a, b)] = sum(1 for net, _ in rows if net > 0)
        paid_to[(b, a)] = sum(1 for net, _ in rows if net < 0)
    paid_all: dict[int, int] = defaultdict(int)
    got_all: dict[int, int] = defaultdict(int)
    for (payer, payee), count in paid_to.items():
        paid_all[payer] += count
        got_all[payee] += count
    flags = []
    for (a, b), rows in nets.items():
        total = sum(net for net, _ in rows)
        if len(rows) < limits.flow_min_hands or abs(total) < limits.flow_min_chips:
            continue
        sign = 1 if total > 0 else -1
        toward = sum(sign * net for net, _ in rows if sign * net > 0)
        back = sum(-sign * net for net, _ in rows if sign * net < 0)
        if toward + back == 0:
            continue  # no chips moved between them
        one_sided = toward / (toward + back)
        if one_sided < limits.flow_one_sided:
            continue
        paid = sum(1 for net, _ in rows if sign * net > 0)
        paid_back = sum(1 for net, _ in rows if sign * net < 0)
        z_chips = abs(total) / math.sqrt(sum(net * net for net, _ in rows))
        z_hands = _z(binomial_tail(paid, paid + paid_back, 0.5))
        score = max(z_chips, z_hands)
        if score < limits.flow_z:
            continue
        payer, payee = (a, b) if sign > 0 else (b, a)
        # the payer against everyone else: a weak player pays everybody, a dumper mostly his partner
        others_paid = paid_all[payer] - paid_to[(payer, payee)]
        others_got = got_all[payer] - paid_to[(payee, payer)]
        others = others_paid + others_got
        evidence = sorted((row for row in rows if sign * row[0] > 0), key=lambda row: -sign * row[0])[:EVIDENCE]
        flags.append(
            Flag(
                kind="flow",
                first=payer,
                second=payee,
                score=score,
                figures=(
                    ("net_chips", abs(total)),
                    ("shared_hands", len(rows)),
                    ("hands_paid", paid),
                    ("hands_paid_back", paid_back),
                    ("one_sided", round(one_sided, 3)),
                    ("payer_hands_vs_others", others),
                    # (no share without such hands: a 0 would read as "pays nobody else")
                    *((("payer_paid_share_vs_others", round(others_paid / others, 3)),) if others else ()),
                ),
                hands=tuple(keys[index] for _, index in evidence),
            )
        )
    return flags


# ----------------------------------------------------------------------------------------------- together


def sittings(hands: Iterable[HandDigest]) -> list[Sitting]:
    """The guild's sittings: per table, each run of consecutive hands dealt to the same humans (the humans, the
    hands' keys), tables in order of their first hand. Hands without a human belong to no sitting."""
    listed = list(hands)
    return _sittings(listed, [_humans(d) for d in listed], [d.key for d in listed])


def _sittings(hands: list[HandDigest], people: list[list[int]], keys: list[str]) -> list[Sitting]:
    by_table: dict[int, list[int]] = defaultdict(list)
    for index, d in enumerate(hands):
        by_table[d.table_id].append(index)
    out: list[Sitting] = []
    for indexes in by_table.values():
        last: frozenset[int] | None = None
        for index in sorted(indexes, key=lambda i: hands[i].hand_no):
            humans = frozenset(people[index])
            if not humans:
                last = None
                continue
            if humans != last:
                out.append((humans, []))
                last = humans
            out[-1][1].append(keys[index])
    return out


@dataclass(frozen=True, slots=True)
class _Together:
    a: int
    b: int
    z: float
    figures: tuple[tuple[str, float], ...]
    shared: tuple[int, ...]  # the pair's sittings (indexes into the guild's)


def _together_candidates(runs: list[Sitting], live: list[int], limits: Limits) -> list[_Together]:
    """The pairs over the sittings ``live`` (indexes into ``runs``) that pass every criterion but the z, scored."""
    dealt: dict[int, int] = defaultdict(int)
    seated: dict[int, int] = defaultdict(int)  # sittings per player
    shared: dict[tuple[int, int], list[int]] = defaultdict(list)
    for index in live:
        people, keys = runs[index]
        ordered = sorted(people)
        for p in ordered:
            dealt[p] += len(keys)
            seated[p] += 1
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                shared[(a, b)].append(index)
    out = []
    for (a, b), indexes in shared.items():
        hands_together = sum(len(runs[i][1]) for i in indexes)
        if hands_together < limits.together_min_hands or len(indexes) < limits.together_min_sittings:
            continue
        share_a, share_b = hands_together / dealt[a], hands_together / dealt[b]
        if min(share_a, share_b) < limits.together_share:
            continue
        z = _z(hypergeometric_tail(len(indexes), len(live), seated[a], seated[b]))
        figures = (
            ("shared_hands", hands_together),
            ("share_of_first_hands", round(share_a, 3)),
            ("share_of_second_hands", round(share_b, 3)),
            ("sittings_together", len(indexes)),
            ("sittings_expected", round(seated[a] * seated[b] / len(live), 1)),
            ("guild_sittings", len(live)),
        )
        out.append(_Together(a, b, z, figures, tuple(indexes)))
    return out


def _together_flags(runs: list[Sitting], limits: Limits) -> list[Flag]:
    # Strongest pair first; its shared sittings then leave the baseline of the pairs judged after it. A pair that
    # fills its own tables leaves the guild's other players fewer tables to spread over, which would otherwise make
    # them look clustered too (the explained sittings are not evidence about anyone else).
    live = list(range(len(runs)))
    flags: list[Flag] = []
    while True:
        found = [c for c in _together_candidates(runs, live, limits) if c.z >= limits.together_z]
        if not found:
            return flags
        best = max(found, key=lambda c: (c.z, -c.a, -c.b))
        flags.append(
            Flag(
                kind="together",
                first=best.a,
                second=best.b,
                score=best.z,
                figures=best.figures,
                hands=tuple(runs[i][1][0] for i in best.shared[-EVIDENCE:]),  # the first hand of the latest sittings
            )
        )
        gone = set(best.shared)
        live = [i for i in live if i not in gone]


# ----------------------------------------------------------------------------------------------- soft


def _judged(line: PlayerLine) -> int | None:
    """The class of hands a line is judged in: 1 a dealt meld, 0 a hand recorded before the strength and the order
    were kept; None: a hand without a dealt meld (honest players often go on top with it: no evidence either
    way)."""
    if line.made is None or line.position is None:
        return 0
    return 1 if line.made >= STRONG_MADE else None


def _knocked_before(line: PlayerLine, ins: list[PlayerLine]) -> list[int] | None:
    """Who had knocked in when ``line``'s player declared (None: the order was not recorded, and every other
    player who knocked in counts; the player's baseline is then all his hands of the class)."""
    if line.position is None:
        return None
    return [p.user_id for p in ins if p.position is not None and p.position < line.position]


@dataclass(slots=True)
class _Count:
    hands: int = 0
    tops: int = 0

    def add(self, top: bool) -> None:
        self.hands += 1
        self.tops += top


@dataclass(slots=True)
class _Soft:
    """One (A, B) pair's judged hands, summed over the classes, each class with its own estimate."""

    hands: int = 0
    tops: int = 0
    expected: float = 0.0  # sum of the honest estimate over the hands
    guild: float = 0.0  # sum of the guild's rate over the hands
    rest: int = 0  # A's judged hands without B knocked in before him
    rest_tops: int = 0


def _clamp(rate: float) -> float:
    return min(max(rate, RATE_FLOOR), 1 - RATE_FLOOR)


def _soft_flags(hands: list[HandDigest], limits: Limits) -> list[Flag]:
    guild: dict[int, _Count] = defaultdict(_Count)  # per class
    own: dict[tuple[int, int], _Count] = defaultdict(_Count)  # per (player, class)
    pair: dict[tuple[int, int, int], _Count] = defaultdict(_Count)  # per (A, B, class): B knocked in before A
    evidence: dict[tuple[int, int], list[tuple[int, str]]] = defaultdict(list)  # (made cards, key) of A's tops
    for d in hands:
        lines = [p for p in d.players if is_human(p.user_id)]
        ins = [p for p in lines if p.played]
        for pa in lines:
            kind = _judged(pa)
            if kind is None:
                continue
            before = _knocked_before(pa, ins)
            if before is None:
                opponents = [p.user_id for p in ins if p.user_id != pa.user_id]
            elif before:
                opponents = before
            else:
                continue  # nobody was in yet: not the situation soft play is judged in (nor its baseline)
            guild[kind].add(pa.on_top)
            own[(pa.user_id, kind)].add(pa.on_top)
            for b in opponents:
                pair[(pa.user_id, b, kind)].add(pa.on_top)
                if pa.on_top:
                    evidence[(pa.user_id, b)].append((pa.made or 0, d.key))
    totals: dict[tuple[int, int], _Soft] = defaultdict(_Soft)
    for (a, b, kind), seen in pair.items():
        mine = own[(a, kind)]
        rest, rest_tops = mine.hands - seen.hands, mine.tops - seen.tops
        others, others_tops = guild[kind].hands - mine.hands, guild[kind].tops - mine.tops
        population = _clamp(others_tops / others if others else RATE_FLOOR)
        honest = _clamp((rest_tops + SOFT_PRIOR_HANDS * population) / (rest + SOFT_PRIOR_HANDS))
        acc = totals[(a, b)]
        acc.hands += seen.hands
        acc.tops += seen.tops
        acc.expected += seen.hands * honest
        acc.guild += seen.hands * population
        acc.rest += rest
        acc.rest_tops += rest_tops
    flags = []
    for (a, b), acc in totals.items():
        if acc.hands < limits.soft_min_hands:
            continue
        honest = acc.expected / acc.hands
        rate = acc.tops / acc.hands
        if rate - honest < limits.soft_gap:
            continue
        z = _z(binomial_tail(acc.tops, acc.hands, honest))
        if z < limits.soft_z:
            continue
        weigh = sorted(evidence[(a, b)], key=lambda row: -row[0])[:EVIDENCE]  # the strongest hands thrown first
        flags.append(
            Flag(
                kind="soft",
                first=a,
                second=b,
                score=z,
                figures=(
                    ("hands_after_opponent_knocked", acc.hands),
                    ("went_on_top", acc.tops),
                    ("on_top_rate_vs_opponent", round(rate, 3)),
                    ("honest_rate", round(honest, 3)),
                    ("hands_otherwise", acc.rest),
                    *((("on_top_rate_otherwise", round(acc.rest_tops / acc.rest, 3)),) if acc.rest else ()),
                    ("guild_rate", round(acc.guild / acc.hands, 3)),
                ),
                hands=tuple(key for _, key in weigh),
            )
        )
    return flags
