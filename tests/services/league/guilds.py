"""Seeded guilds for the collusion flags: honest guilds of equal or mixed skill, and guilds with one colluding (or
inseparable) pair. Engine self-play (``engine_session``: no storage, quick), folded by the same ``HandTally`` the
settlement hook uses, so the flags read the digests a real guild would record.

Used by ``tests/league/test_flags.py`` and ``bench/league.py --flags`` (the false-positive rate and the detection
delays in docs/leagues.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pancog.ai import make_player
from pancog.ai.base import Player
from pancog.services.league import HandDigest, compute_flags
from tests.support.league_play import Feeder, GreedyPlayer, SoftPlayer, engine_session

EQUAL = ("easy",)
"""Every player at the easy level."""
MIXED = ("easy", "normal")
"""The two reproducible levels: easy (knocks nearly every hand) and normal (goes on top with about half of the hands
without a dealt meld, plays the board better)."""
MIXED_HARD = (*MIXED, "hard")
"""MIXED and the hard level (roll-outs within a time budget, so not reproducible run to run: the bench only)."""
CARELESS = (*MIXED, "greedy")
"""MIXED and a careless player (:class:`GreedyPlayer`: knocks three hands in four whatever it holds, throws a
random card): far weaker than the computer levels, the known limit of the flow flag (docs/leagues.md)."""

SOFT, PARTNER = 101, 102
"""The colluding pair's user ids (honest players are 1..pool)."""


def player_of(level: str) -> Player:
    if level == "greedy":
        return GreedyPlayer(knock=0.75)
    if level == "hard":
        return make_player("hard", budget_ms=20)
    return make_player(level)


@dataclass(slots=True)
class Guild:
    """A guild's hands in commit order, and each session's (first hand index, end index) into ``hands``."""

    hands: list[HandDigest] = field(default_factory=list)
    sessions: list[tuple[int, int]] = field(default_factory=list)
    levels: dict[int, str] = field(default_factory=dict)

    def play(self, users: Sequence[int], players: Sequence[Player], hands: int, *, seed: int, table_id: int) -> None:
        start = len(self.hands)
        self.hands += engine_session(users, players, hands, seed=seed, table_id=table_id)
        self.sessions.append((start, len(self.hands)))


def _levels(rng: random.Random, users: Sequence[int], styles: Sequence[str]) -> dict[int, str]:
    order = list(styles) * (len(users) // len(styles) + 1)
    rng.shuffle(order)
    return {user: order[i] for i, user in enumerate(users)}


def honest_guild(
    seed: int, *, styles: Sequence[str] = EQUAL, pool: int = 8, sessions: int = 30, hands: int = 12
) -> Guild:
    """``pool`` honest players (user ids 1..pool, each of one of ``styles``): ``sessions`` table sessions, each
    seating 2-4 players drawn at random, ``hands`` hands each."""
    rng = random.Random(seed)
    guild = Guild(levels=_levels(rng, range(1, pool + 1), styles))
    for s in range(sessions):
        users = rng.sample(range(1, pool + 1), rng.randint(2, min(4, pool)))
        guild.play(
            users,
            [player_of(guild.levels[u]) for u in users],
            hands,
            seed=rng.getrandbits(40),
            table_id=seed * 10_000 + s + 1,
        )
    return guild


def soft_guild(
    seed: int, *, styles: Sequence[str] = EQUAL, pool: int = 6, sessions: int = 24, hands: int = 10, every: int = 2
) -> Guild:
    """An honest guild (as :func:`honest_guild`) where every ``every``-th session is the pair's: SOFT (a
    :class:`SoftPlayer` over the easy level: goes on top whenever PARTNER has knocked in before him) sits only at
    PARTNER's tables, with one or two honest players; he never plays a hand without PARTNER."""
    rng = random.Random(seed)
    guild = Guild(levels=_levels(rng, range(1, pool + 1), styles))
    guild.levels |= {SOFT: "soft", PARTNER: "easy"}
    for s in range(sessions):
        if s % every == every - 1:
            others = rng.sample(range(1, pool + 1), rng.randint(1, 2))
            users = [SOFT, PARTNER, *others]
            players = [SoftPlayer(make_player("easy"), partner_seat=1), make_player("easy")]
            players += [player_of(guild.levels[u]) for u in others]
        else:
            users = rng.sample(range(1, pool + 1), rng.randint(2, min(4, pool)))
            players = [player_of(guild.levels[u]) for u in users]
        guild.play(users, players, hands, seed=rng.getrandbits(40), table_id=seed * 10_000 + s + 1)
    return guild


def inseparable_guild(
    seed: int, *, styles: Sequence[str] = EQUAL, pool: int = 4, sessions: int = 30, hands: int = 10, every: int = 5
) -> Guild:
    """SOFT and PARTNER (both honest, easy level) play only heads-up with each other, in four sessions of five;
    the other ``pool`` players mix at 2-4 seat tables in the rest. With the defaults each of the two holds about a
    third of the guild's seats (the pair is in 80 % of the sessions, heads-up; the others' tables hold 2-4)."""
    rng = random.Random(seed)
    guild = Guild(levels=_levels(rng, range(1, pool + 1), styles))
    guild.levels |= {SOFT: "easy", PARTNER: "easy"}
    for s in range(sessions):
        if s % every != every - 1:
            users = [SOFT, PARTNER]
            players = [make_player("easy"), make_player("easy")]
        else:
            users = rng.sample(range(1, pool + 1), rng.randint(2, min(4, pool)))
            players = [player_of(guild.levels[u]) for u in users]
        guild.play(users, players, hands, seed=rng.getrandbits(40), table_id=seed * 10_000 + s + 1)
    return guild


def feeder_session(seed: int, *, hands: int, partner: str = "easy", third: str | None = None) -> list[HandDigest]:
    """A scripted feeder (SOFT: always knocks in, never melds) with PARTNER heads-up, or three-handed with an honest
    player of level ``third`` (user 1)."""
    users = [SOFT, PARTNER] + ([1] if third else [])
    players = [Feeder(), player_of(partner)] + ([player_of(third)] if third else [])
    return engine_session(users, players, hands, seed=seed, table_id=seed + 1)


Detect = Callable[[list[HandDigest]], bool]


def first_flagged(hands: list[HandDigest], detect: Detect, checkpoints: Sequence[int]) -> int | None:
    """The first checkpoint ``n`` (a number of hands) at which ``detect(hands[:n])`` holds, None if none."""
    return next((n for n in checkpoints if detect(hands[:n])), None)


def names(kind: str, first: int, second: int) -> Detect:
    """A detector: the flags over the hands include ``kind`` naming ``(first, second)``."""

    def detect(hands: list[HandDigest]) -> bool:
        return any((f.kind, f.first, f.second) == (kind, first, second) for f in compute_flags(hands))

    return detect
