"""Chip-dumping and collusion flags: scripted colluders are caught within a stated number of hands (a feeder heads-up,
a soft partner who never plays apart, an inseparable pair); honest guilds of equal and mixed skill raise nothing at
any moment; each flag carries named figures and the hands behind it."""

from __future__ import annotations

import asyncio
import math
import random
import time
from pathlib import Path

import pytest

from pancog.ai import make_player
from pancog.infra.storage import SqliteStorage
from pancog.services.league import Flag, HandDigest, PlayerLine, compute_flags
from pancog.services.league.flags import SOFT_MIN_HANDS, _z, binomial_tail, hypergeometric_tail, sittings
from tests.support.league_play import Feeder, play_hands

from . import guilds
from .conftest import GUILD, Env
from .guilds import PARTNER, SOFT

FEEDER_HANDS = 40  # the stated bound: a feeder at a heads-up table is flagged within this many hands
FEEDER_HANDS_3 = 60  # three-handed, the feeder's chips are shared with the honest player: slower to stand out


def _pairs(flags: list[Flag], kind: str) -> list[tuple[int, int]]:
    return [(f.first, f.second) for f in flags if f.kind == kind]


@pytest.mark.parametrize("deals", [9, 14])
async def test_heads_up_feeder_is_flagged_within_the_stated_hands(tmp_path: Path, deals: int) -> None:
    """A scripted feeder (always knocks in, never melds) heads-up with its partner, through the real table service:
    a 'flow' flag names feeder -> partner, with figures and the hands behind it, within FEEDER_HANDS hands. With
    these deals the chips' z alone (the flag before the sign test over the hands) needed 43 and 42 hands."""
    async with SqliteStorage(tmp_path / "league.sqlite3", synchronous="OFF") as storage:
        env = Env(storage, seed=deals)
        table = await env.open_table([201, 202], buy_in=5000)
        await play_hands(env.tables, table, {201: Feeder(), 202: make_player("easy")}, FEEDER_HANDS, seed=deals)
        flags = [f for f in await env.league.flags(GUILD) if f.kind == "flow"]
    assert _pairs(flags, "flow") == [(201, 202)]
    flag = flags[0]
    assert flag.figure("shared_hands") == FEEDER_HANDS and flag.figure("net_chips") >= 50 and flag.score >= 4.5
    assert flag.figure("hands_paid") > 5 * flag.figure("hands_paid_back") and flag.figure("one_sided") >= 0.8
    assert flag.figure("payer_hands_vs_others") == 0  # heads-up: nobody else to compare him with, so no share
    assert "payer_paid_share_vs_others" not in dict(flag.figures)
    assert flag.hands and all(key.startswith(f"hand:{table}:") for key in flag.hands)


def test_three_handed_feeder_is_flagged_as_the_payer() -> None:
    """Feeder seated with its partner and an honest player (engine self-play): the feeder -> partner flow is flagged
    within FEEDER_HANDS_3 hands; no flag names the partner or the honest player as a payer to the feeder; the figures
    show the feeder pays the honest player too (what a moderator weighs: a dumper or a very weak player)."""
    digests = guilds.feeder_session(2, hands=FEEDER_HANDS_3, third="easy")
    flags = compute_flags(digests)
    assert (SOFT, PARTNER) in _pairs(flags, "flow")
    assert all(f.first == SOFT for f in flags if f.kind == "flow")
    flag = next(f for f in flags if (f.kind, f.second) == ("flow", PARTNER))
    assert flag.figure("payer_hands_vs_others") > 0 and flag.figure("payer_paid_share_vs_others") > 0.8


def test_a_soft_partner_who_never_plays_apart_is_flagged() -> None:
    """SOFT (goes on top whenever PARTNER has knocked in before him) only ever sits at PARTNER's tables: not one hand
    without him, so no baseline from hands apart. He is judged by the hands an honest player knocks with (a dealt
    meld) in the situation soft play is about (someone in before him), against his own such hands when PARTNER was
    not in before him and the guild's rate: 'soft' SOFT -> PARTNER, and nobody else."""
    guild = guilds.soft_guild(1, sessions=32)
    assert all(PARTNER in {p.user_id for p in d.players} for d in guild.hands if SOFT in {p.user_id for p in d.players})
    flags = compute_flags(guild.hands)
    assert _pairs(flags, "soft") == [(SOFT, PARTNER)]
    flag = next(f for f in flags if f.kind == "soft")
    assert flag.figure("hands_after_opponent_knocked") >= SOFT_MIN_HANDS
    assert flag.figure("on_top_rate_vs_opponent") >= 0.9 and flag.figure("honest_rate") < 0.1
    assert flag.figure("on_top_rate_otherwise") < 0.1 < flag.figure("hands_otherwise")
    assert len(flag.hands) == 10 and len(set(flag.hands)) == 10
    honest = set(range(1, 7))
    assert not [f for f in flags if {f.first, f.second} & honest]


def test_an_inseparable_pair_holding_a_third_of_the_seats_is_flagged() -> None:
    """SOFT and PARTNER (honest play) only ever sit heads-up with each other, each holding about a third of the
    guild's seats, while four other players share other tables: 'together' names them — and nobody else, though the
    four others, left to themselves, sit together often (the pair's sittings do not count against them)."""
    guild = guilds.inseparable_guild(1)
    seats = sum(len(d.players) for d in guild.hands)
    for user in (SOFT, PARTNER):
        assert 0.3 < sum(1 for d in guild.hands for p in d.players if p.user_id == user) / seats < 0.4
    flags = compute_flags(guild.hands)
    assert [(f.kind, f.first, f.second) for f in flags] == [("together", SOFT, PARTNER)]
    flag = flags[0]
    assert flag.figure("share_of_first_hands") == flag.figure("share_of_second_hands") == 1.0
    assert flag.figure("sittings_together") == 24 and flag.figure("guild_sittings") == 30
    assert flag.figure("sittings_expected") < 20 and flag.score >= 4.5


@pytest.mark.parametrize(("seed", "styles"), [(0, guilds.EQUAL), (1, guilds.MIXED)])
def test_honest_guilds_raise_no_flags_at_any_moment(seed: int, styles: tuple[str, ...]) -> None:
    """Honest players of equal skill, and of mixed levels, mixing at random tables: no flag after any session (a
    moderator may look at any time). bench/league.py --flags runs ten guilds of each kind (docs/leagues.md)."""
    guild = guilds.honest_guild(seed, styles=styles, pool=8, sessions=20, hands=12)
    assert len(set(guild.levels.values())) == len(styles)
    for _, end in guild.sessions:
        assert compute_flags(guild.hands[:end]) == [], end


def _line(
    user: int, *, played: bool = True, on_top: bool = False, made: int | None = None, at: int | None = None
) -> PlayerLine:
    return PlayerLine(user_id=user, played=played, on_top=on_top, made=made, position=at)


def _hand(n: int, lines: list[PlayerLine], table: int = 1) -> HandDigest:
    return HandDigest(table_id=table, hand_no=n, reason="void", winner=None, players=lines)


def test_soft_play_flag_on_hands_recorded_without_strength_or_order() -> None:
    """Digests stored before the strength and order were kept: A goes on top whenever B is in, and rarely
    otherwise: 'soft' flag (A, B) with the two rates."""
    rng = random.Random(3)
    hands: list[HandDigest] = []
    for n in range(200):
        with_b = n % 2 == 0
        others = rng.sample([3, 4, 5, 6], 2)
        lines = [_line(1, played=not with_b, on_top=with_b)] + [_line(u) for u in others]
        if with_b:
            lines.append(_line(2))
        elif rng.random() < 0.2:
            lines[0] = _line(1, played=False, on_top=True)
        hands.append(_hand(n, lines))
    flags = [f for f in compute_flags(hands) if f.kind == "soft"]
    assert _pairs(flags, "soft") == [(1, 2)]
    assert flags[0].figure("on_top_rate_vs_opponent") == 1.0 and flags[0].figure("on_top_rate_otherwise") < 0.35
    assert len(flags[0].hands) == 10


def _contested(rng: random.Random, n: int, soft_to: int | None) -> HandDigest:
    """Player 1 declares last, holding a dealt meld, after two of 2..5 of whom one or both knocked in. He goes on
    top in 40 % of such hands whoever is in (a tight player against competition) — or, with ``soft_to``, always when
    that player is in and never otherwise."""
    first, second = rng.sample([2, 3, 4, 5], 2)
    second_in = rng.random() < 0.5
    ins = {first} | ({second} if second_in else set())
    top = (soft_to in ins) if soft_to is not None else rng.random() < 0.4
    lines = [
        _line(first, made=4, at=0),
        _line(second, played=second_in, on_top=not second_in, made=0, at=1),
        _line(1, played=not top, on_top=top, made=5, at=2),
    ]
    return _hand(n, lines)


def test_soft_judges_on_top_against_the_same_situation() -> None:
    """Going on top with a dealt meld when someone is already in is a style some honest players have (the hard
    level does it); judged against his own hands in that situation, it is no flag against anyone. Doing it only
    when one player is in is."""
    rng = random.Random(8)
    tight = [_contested(rng, n, None) for n in range(400)]
    assert [f for f in compute_flags(tight) if f.kind == "soft"] == []
    soft = [_contested(rng, n, 3) for n in range(400)]
    assert _pairs(compute_flags(soft), "soft") == [(1, 3)]


def test_soft_ignores_hands_without_a_dealt_meld() -> None:
    """Going on top with a weak hand when the partner is in is what honest players do: no evidence, no flag."""
    hands = [_hand(n, [_line(2, made=3, at=0), _line(1, played=False, on_top=True, made=0, at=1)]) for n in range(300)]
    assert compute_flags(hands) == []
    strong = [_hand(n, [_line(2, made=3, at=0), _line(1, played=False, on_top=True, made=3, at=1)]) for n in range(30)]
    assert _pairs(compute_flags(strong), "soft") == [(1, 2)]


def test_together_flag_for_a_pair_that_always_sits_together() -> None:
    """Ten regulars mixing at random at one table, except 1 and 2 who only ever sit down together."""
    rng = random.Random(5)
    hands: list[HandDigest] = []
    for n in range(600):
        people = [1, 2, *rng.sample(range(3, 11), 1)] if n % 4 == 0 else rng.sample(range(3, 11), 3)
        hands.append(_hand(n, [_line(u) for u in people], table=2))
    flags = [f for f in compute_flags(hands) if f.kind == "together"]
    assert _pairs(flags, "together") == [(1, 2)]
    assert flags[0].figure("shared_hands") == 150 and flags[0].figure("sittings_expected") < 50


def test_together_needs_other_sittings_to_tell_a_pair_apart() -> None:
    """Two players who sat together at each of their twelve sittings: no sign of anything when the guild's other
    sittings all had them too (everyone plays with everyone), a 'together' flag when the guild's other players sat
    at twelve other tables without them."""

    def guild(apart: bool) -> list[HandDigest]:
        hands = []
        for s in range(24):
            people = [1, 2, 3 + s % 4] if s % 2 == 0 or not apart else [3 + s % 4, 3 + (s + 1) % 4]
            hands += [_hand(n, [_line(u) for u in people], table=100 + s) for n in range(8)]
        return hands

    assert _pairs(compute_flags(guild(apart=False)), "together") == []
    assert _pairs(compute_flags(guild(apart=True)), "together") == [(1, 2)]


def test_a_lasting_skill_gap_is_no_flow_flag() -> None:
    """A pays B in 60 % of the hands where chips move between them, over 2,000 hands: a skill gap (significant by
    now), but nowhere near one-way, so no flag; paying in 95 % of them is one."""
    rng = random.Random(4)

    def pair(share: float) -> list[HandDigest]:
        out = []
        for n in range(2000):
            flows = {(1, 2): rng.randint(1, 9)} if rng.random() < share else {(2, 1): rng.randint(1, 9)}
            out.append(
                HandDigest(table_id=5, hand_no=n, reason="out", winner=None, players=[_line(1), _line(2)], flows=flows)
            )
        return out

    assert compute_flags(pair(0.6)) == []
    assert _pairs(compute_flags(pair(0.95)), "flow") == [(1, 2)]


def test_flags_ignore_computer_players_and_small_samples() -> None:
    hands = [
        HandDigest(table_id=3, hand_no=n, reason="out", winner=-1, players=[_line(-1), _line(7)], flows={(7, -1): 50})
        for n in range(100)
    ]
    few = [
        HandDigest(table_id=4, hand_no=n, reason="out", winner=8, players=[_line(8), _line(9)], flows={(9, 8): 50})
        for n in range(10)
    ]
    assert compute_flags(hands + few) == []


def test_sittings_are_runs_of_the_same_people_at_one_table() -> None:
    """A sitting ends when the humans dealt in change; computer players do not count; each table on its own."""
    hands = [
        _hand(1, [_line(1), _line(2)], table=7),
        _hand(2, [_line(1), _line(2), _line(-3)], table=7),
        _hand(1, [_line(1), _line(4)], table=8),
        _hand(3, [_line(1), _line(2), _line(5)], table=7),
        _hand(4, [_line(1), _line(2)], table=7),
    ]
    assert sittings(hands) == [
        (frozenset({1, 2}), ["hand:7:1", "hand:7:2"]),
        (frozenset({1, 2, 5}), ["hand:7:3"]),
        (frozenset({1, 2}), ["hand:7:4"]),
        (frozenset({1, 4}), ["hand:8:1"]),
    ]


def test_exact_tails() -> None:
    """The counts' chances are exact: all 20 of 20 fair coin flips; 10 named of 10 drawn from 30."""
    assert binomial_tail(20, 20, 0.5) == pytest.approx(-20 * math.log(2))
    assert binomial_tail(0, 20, 0.5) == 0.0 and binomial_tail(21, 20, 0.5) == -math.inf
    assert math.exp(binomial_tail(2, 3, 0.5)) == pytest.approx(0.5)
    assert hypergeometric_tail(10, 30, 10, 10) == pytest.approx(-math.log(math.comb(30, 10)))
    assert math.exp(hypergeometric_tail(1, 4, 2, 2)) == pytest.approx(5 / 6)
    assert hypergeometric_tail(1, 3, 2, 2) == 0.0  # two of three drawn: one of the two marked can't be missed
    assert _z(math.log(0.5)) == 0.0 and _z(math.log(3.4e-6)) == pytest.approx(4.5, abs=0.01)
    assert _z(-699.9) == pytest.approx(_z(-700.1), abs=0.05)  # the asymptote takes over where exp() underflows
    assert _z(-1e6) == 40.0
    assert math.exp(hypergeometric_tail(2, 3, 2, 2)) == pytest.approx(1 / 3)


async def test_flags_are_computed_off_the_event_loop(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """A big guild's flags take seconds of CPU (docs/leagues.md): the service computes them in a worker thread, so
    the bot's event loop keeps answering meanwhile."""
    import pancog.services.league.boards as service

    def slow(digests: object) -> list[Flag]:
        time.sleep(0.3)
        return []

    monkeypatch.setattr(service, "compute_flags", slow)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    assert await env.league.flags(GUILD) == []
    ticker.cancel()
    assert ticks >= 10


def _soft_hands(with_partner: int, without_partner: int) -> list[HandDigest]:
    """Player 1 goes on top in every hand where 2 knocks in, and plays every other hand (against 3)."""
    hands = [
        HandDigest(
            table_id=1,
            hand_no=n,
            reason="out",
            winner=2,
            players=[PlayerLine(user_id=1, on_top=True), PlayerLine(user_id=2, played=True, won=True)],
        )
        for n in range(with_partner)
    ]
    hands += [
        HandDigest(
            table_id=1,
            hand_no=with_partner + n,
            reason="out",
            winner=3,
            players=[PlayerLine(user_id=1, played=True), PlayerLine(user_id=3, played=True, won=True)],
        )
        for n in range(without_partner)
    ]
    return hands


@pytest.mark.parametrize(
    ("with_partner", "without_partner", "flagged"),
    [(SOFT_MIN_HANDS, 0, True), (SOFT_MIN_HANDS - 1, 30, False), (SOFT_MIN_HANDS, 30, True), (60, 40, True)],
)
def test_soft_play_needs_its_minimum_of_hands_with_the_opponent_in(
    with_partner: int, without_partner: int, flagged: bool
) -> None:
    """docs/leagues.md: a 'soft' flag needs SOFT_MIN_HANDS judged hands with the opponent in, and none apart from
    him (the guild's rate is the baseline then); one hand fewer is too small a sample."""
    soft = [(f.first, f.second) for f in compute_flags(_soft_hands(with_partner, without_partner)) if f.kind == "soft"]
    assert soft == ([(1, 2)] if flagged else [])
