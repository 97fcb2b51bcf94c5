"""Chip-dumping and collusion flags: scripted colluders are caught within a stated number of hands; honest play
across seeded sessions raises (almost) nothing; each flag carries its figures and hands."""

from __future__ import annotations

import random

import pytest

from pancog.ai import make_player
from pancog.services.league import HandDigest, PlayerLine, compute_flags
from tests.support.league_play import Feeder, engine_session, honest_guild, play_hands

from .conftest import GUILD, Env

FEEDER_HANDS = 40  # the stated bound: a feeder at a heads-up table is flagged within this many hands
FEEDER_HANDS_3 = 60  # three-handed, the feeder's chips are shared with the honest player: slower to stand out
HONEST_GUILDS = 2  # seeded honest guilds in the suite (bench/league.py --fp-guilds runs more; docs/leagues.md)


async def test_feeder_is_flagged_within_the_stated_hands(env: Env) -> None:
    """A scripted feeder (always knocks in, never melds) heads-up with its partner, through the real table service:
    a 'flow' flag names feeder -> partner, with figures and the hands behind it, within FEEDER_HANDS hands."""
    table = await env.open_table([201, 202], buy_in=5000)
    await play_hands(env.tables, table, {201: Feeder(), 202: make_player("easy")}, FEEDER_HANDS, seed=4)
    flags = [f for f in await env.league.flags(GUILD) if f.kind == "flow"]
    assert [(f.first, f.second) for f in flags] == [(201, 202)]
    flag = flags[0]
    assert flag.figure("shared_hands") <= FEEDER_HANDS and flag.figure("net_chips") > 0 and flag.figure("z") >= 4.5
    assert flag.hands and all(key.startswith(f"hand:{table}:") for key in flag.hands)


def test_honest_guilds_raise_no_flags() -> None:
    """Equal honest players mixing at random tables over seeded sessions: no flag at all (bench runs more)."""
    raised = []
    for seed in range(HONEST_GUILDS):
        raised += compute_flags(honest_guild(seed, pool=6, sessions=6, hands=10))
    assert raised == []


def test_engine_feeder_in_a_three_handed_game_flags_the_feeder_as_payer() -> None:
    """Feeder seated with its partner and an honest player (engine self-play): the feeder -> partner flow is flagged
    within FEEDER_HANDS_3 hands; no flag names the partner or the honest player as a payer to the feeder."""
    easy = make_player("easy")
    digests = engine_session([301, 302, 303], [Feeder(), easy, easy], FEEDER_HANDS_3, seed=2, table_id=77)
    flags = compute_flags(digests)
    assert ("flow", 301, 302) in {(f.kind, f.first, f.second) for f in flags}
    assert all(f.first == 301 for f in flags if f.kind == "flow")


def _line(user: int, *, played: bool = True, on_top: bool = False) -> PlayerLine:
    return PlayerLine(user_id=user, played=played, on_top=on_top)


def test_soft_play_flag_against_one_opponent() -> None:
    """A goes on top whenever B is in, and rarely otherwise: 'soft' flag (A, B) with the two rates."""
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
        hands.append(HandDigest(table_id=1, hand_no=n, reason="void", winner=None, players=lines))
    flags = [f for f in compute_flags(hands) if f.kind == "soft"]
    assert [(f.first, f.second) for f in flags] == [(1, 2)]
    assert flags[0].figure("on_top_rate_vs_opponent") == 1.0 and flags[0].figure("on_top_rate_otherwise") < 0.35
    assert len(flags[0].hands) == 10


def test_together_flag_for_a_pair_that_always_sits_together() -> None:
    """Ten regulars mixing at random, except 1 and 2 who only ever sit down together."""
    rng = random.Random(5)
    hands: list[HandDigest] = []
    for n in range(600):
        people = [1, 2, *rng.sample(range(3, 11), 1)] if n % 4 == 0 else rng.sample(range(3, 11), 3)
        hands.append(HandDigest(table_id=2, hand_no=n, reason="void", winner=None, players=[_line(u) for u in people]))
    flags = [f for f in compute_flags(hands) if f.kind == "together"]
    assert [(f.first, f.second) for f in flags] == [(1, 2)]
    assert flags[0].figure("shared_hands") == 150 and flags[0].figure("expected") < 50


def test_flags_ignore_computer_players_and_small_samples() -> None:
    hands = [
        HandDigest(
            table_id=3,
            hand_no=n,
            reason="out",
            winner=-1,
            players=[_line(-1), _line(7)],
            flows={(7, -1): 50},
        )
        for n in range(100)
    ]
    few = [
        HandDigest(table_id=4, hand_no=n, reason="out", winner=8, players=[_line(8), _line(9)], flows={(9, 8): 50})
        for n in range(10)
    ]
    assert compute_flags(hands + few) == []


def test_together_needs_six_regulars() -> None:
    """``TOGETHER_MIN_PLAYERS``: with fewer than six regulars everybody plays with everybody, so a pair that always
    sits together is no sign; the same pattern with a sixth regular is flagged (the test is not vacuous)."""

    def guild(rest: list[int]) -> list[HandDigest]:
        hands = []
        for n in range(60):
            for table, people in ((1, [1, 2]), (2, rest)):
                hands.append(
                    HandDigest(
                        table_id=table, hand_no=n, reason="void", winner=None, players=[_line(u) for u in people]
                    )
                )
        return hands

    assert [f for f in compute_flags(guild([3, 4, 5])) if f.kind == "together"] == []  # five regulars
    flagged = [(f.first, f.second) for f in compute_flags(guild([3, 4, 5, 6])) if f.kind == "together"]
    assert (1, 2) in flagged


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
    [(30, 30, True), (29, 30, False), (30, 29, False), (60, 40, True)],
)
def test_soft_play_needs_thirty_hands_each_way(with_partner: int, without_partner: int, flagged: bool) -> None:
    """docs/leagues.md: a 'soft' flag needs at least 30 hands each way (with the opponent in, and otherwise); at 30
    and 30 an always-on-top-against-him player is flagged, one hand fewer either way is too small a sample."""
    soft = [(f.first, f.second) for f in compute_flags(_soft_hands(with_partner, without_partner)) if f.kind == "soft"]
    assert soft == ([(1, 2)] if flagged else [])
