"""Opt-in rating decay for inactive established players (no discord, no clock of its own).

A guild turns it on with ``/panadmin league decay:<points a week> after:<days>``; it is off by default. Each change is
a **rule** with the moment it took effect (``league_decay_rules``, migration V18), so decay is a function of the
result timeline and the rules alone, never of when anything ran:

* A player's **inactivity** starts at his last result in the guild (any result, rated or not: ``league_history``).
* Decay happens at **day boundaries counted from that result**: boundary ``k`` is ``last + k x 86,400 s`` (k = 1, 2,
  ...). Boundary ``k`` costs ``points / 7`` when the rule in force at that moment decays (``points > 0``), ``k`` is
  beyond its ``after`` days, and the player is established under it (his all-time rated results, unchanged while he
  is away, reach the rule's ``established``). Over a gap the boundaries' points are summed and divided by 7 once
  (rounded down), so a week of one rule costs exactly its points.
* **The fold applies it** (:mod:`.recording`): before a result at ``t`` is rated, each of its players' all-time rating
  loses the decay of the boundaries ``<= t`` since his previous result (``mu`` goes down, sigma and the count stay),
  so the stored rating, the history rows and a rebuild (the same fold over the same results and rules) agree
  exactly. **Reads** show the decay owed from the last result up to the read's ``now`` on top (not stored: it
  depends on ``now``; the next result stores it).
* Decay never takes the shown rating below 0, the newcomer's figure; season ratings do not decay (a season is short,
  and its board already lists only active players).

A player gets a **DM a day before** his decay starts (once per inactivity spell: the outbox key names his last
result's time), sent by the league cog's tick through the durable outbox.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pancog.infra.storage.base import StorageTx

__all__ = [
    "DAY",
    "DecayRule",
    "DecayWarning",
    "capped",
    "decay_due",
    "decay_rules",
    "decay_start",
    "last_results",
    "pending_decay",
    "put_decay_rule",
]

DAY = 86_400
MAX_DECAY = 100_000  # x 1000 rating points a week (100 points: more than any rating)


@dataclass(frozen=True, slots=True, kw_only=True)
class DecayRule:
    """The decay in force from ``since``: ``points`` (x 1000, as scores are stored) a week after ``after`` days
    without a result, for players with at least ``established`` rated results. ``points == 0``: off."""

    since: int
    points: int
    after: int
    established: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DecayWarning:
    """A player whose rating starts to decay at ``starts_at`` (the next day boundary) unless he plays before."""

    user_id: int
    last: int  # his last result: names the inactivity spell (the outbox key)
    starts_at: int
    points: int  # a week, x 1000
    score: int  # his all-time score now (x 1000)

    @property
    def key(self) -> str:
        return f"decay:{self.user_id}:{self.last}"


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def decay_due(rules: Sequence[DecayRule], last: int, until: int, rated: int) -> int:
    """The decay (x 1000) owed by a player whose last result was at ``last``, with ``rated`` rated results, for the
    day boundaries after it up to ``until`` (inclusive). ``rules`` oldest first; each is in force from its ``since``
    until the next one's."""
    total = 0
    for i, rule in enumerate(rules):
        if rule.points <= 0 or rated < rule.established:
            continue
        k_low = max(rule.after + 1, _ceil_div(rule.since - last, DAY))  # boundaries in force under this rule
        k_high = (until - last) // DAY
        if i + 1 < len(rules):
            k_high = min(k_high, _ceil_div(rules[i + 1].since - last, DAY) - 1)
        if k_high >= k_low:
            total += (k_high - k_low + 1) * rule.points
    return total // 7


def capped(due: int, score: int) -> int:
    """``due`` without taking ``score`` below 0."""
    return max(0, min(due, score))


def decay_start(rule: DecayRule, last: int) -> int:
    """When ``rule`` first decays a player whose last result was at ``last`` (a day boundary)."""
    return last + max(rule.after + 1, _ceil_div(rule.since - last, DAY)) * DAY


async def decay_rules(tx: StorageTx, guild_id: int) -> list[DecayRule]:
    rows = await tx.fetchall(
        "SELECT since, points, after_days, established FROM league_decay_rules WHERE guild_id = ? ORDER BY since",
        (guild_id,),
    )
    return [DecayRule(since=int(s), points=int(p), after=int(a), established=int(e)) for s, p, a, e in rows]


async def put_decay_rule(tx: StorageTx, guild_id: int, rule: DecayRule) -> None:
    """The rule in force from ``rule.since`` (a second change within the same second replaces the first)."""
    await tx.execute(
        "INSERT INTO league_decay_rules (guild_id, since, points, after_days, established) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (guild_id, since) DO UPDATE SET points = excluded.points, after_days = excluded.after_days, "
        "established = excluded.established",
        (guild_id, rule.since, rule.points, rule.after, rule.established),
    )


async def last_results(tx: StorageTx, guild_id: int, users: Sequence[int] | None = None) -> dict[int, int]:
    """{user: when he last had a result in the guild} (every player's when ``users`` is None)."""
    if users is not None and not users:
        return {}
    where = "" if users is None else f" AND user_id IN ({', '.join('?' * len(users))})"
    rows = await tx.fetchall(
        f"SELECT user_id, MAX(created_at) FROM league_history WHERE guild_id = ?{where} GROUP BY user_id",  # noqa: S608
        (guild_id, *(users or ())),
    )
    return {int(u): int(t) for u, t in rows if t is not None}


async def pending_decay(
    tx: StorageTx, guild_id: int, ratings: Mapping[int, tuple[int, int]], now: float
) -> dict[int, int]:
    """{user: decay owed at ``now`` since his last result (x 1000), capped at his score} for the players ``ratings``
    (user -> (all-time score, rated results)); players who owe nothing are left out. Not stored: the next result's
    fold stores it (the same boundaries, so the same amount)."""
    rules = await decay_rules(tx, guild_id)
    if not rules or not ratings:
        return {}
    many = len(ratings) > 200
    last = await last_results(tx, guild_id, None if many else list(ratings))
    owed: dict[int, int] = {}
    for user, (score, rated) in ratings.items():
        if user in last:
            amount = capped(decay_due(rules, last[user], int(now), rated), score)
            if amount:
                owed[user] = amount
    return owed
