"""Every level only ever returns a legal action; hard respects its budget; normal beats random."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from pancog.ai import HardPlayer, Level, Player, choices, hard, make_player, play_fresh_hand, reactions, solitaire
from pancog.game.actions import Action
from pancog.game.engine import Observation, observe, to_act
from pancog.game.state import TableState
from tests.ai.conftest import TickClock


class Checked:
    """Wraps a player and asserts every decision is one of the legal actions it was offered."""

    def __init__(self, inner: Player) -> None:
        self.inner = inner
        self.level = inner.level
        self.decisions = 0

    def choose(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
        assert legal and obs.to_act == obs.seat
        engine_legal = {a for a, _ in obs.legal}
        action = self.inner.choose(obs, legal, rng)
        assert action in legal and action in engine_legal
        self.decisions += 1
        return action

    def react(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action | None:
        action = self.inner.react(obs, legal, rng)
        assert action is None or action in legal
        self.decisions += 1
        return action


@pytest.mark.parametrize("level", ["random", "easy", "normal"])
def test_level_plays_only_legal_actions(level: str) -> None:
    """Over several complete hands (hundreds of decisions) every choice is legal and the engine accepts it."""
    players = [Checked(make_player(level)) for _ in range(6)]
    for seed in range(6):
        res = play_fresh_hand(players, seed=seed, first_seat=seed % 6)  # type: ignore[arg-type]
        assert res.reason in {"out", "lone", "nobody", "split", "settled", "void"}
    assert sum(p.decisions for p in players) >= 300


def test_hard_plays_only_legal_actions() -> None:
    """The hard level (small budget) plays a complete hand against the others with legal actions only."""
    players = [
        Checked(HardPlayer(25, samples=4)),
        Checked(make_player("normal")),
        Checked(HardPlayer(25, samples=4)),
        Checked(make_player("easy")),
        Checked(HardPlayer(25, samples=4)),
        Checked(make_player("random")),
    ]
    play_fresh_hand(players, seed=11, first_seat=1)  # type: ignore[arg-type]
    assert players[0].decisions + players[2].decisions + players[4].decisions >= 10


def test_hard_respects_its_time_budget(midhand_states: list[TableState], monkeypatch: pytest.MonkeyPatch) -> None:
    """With an unreachable sample cap, hard stops at its deadline, not at the cap, and overshoots it by at most
    one check. The clock is simulated (each reading = 1 ms), so this is about the deadline logic, not the
    machine's speed; the real decision times are measured by ``bench/ai.py`` (p50/p99/max per level)."""
    clock = TickClock(0.001)
    monkeypatch.setattr(hard, "time", clock)
    monkeypatch.setattr(solitaire, "time", clock)
    budget = 40.0
    player = HardPlayer(budget, samples=10_000)
    searched = 0
    for k, state in enumerate(midhand_states):
        seat = to_act(state)
        assert seat is not None
        obs = observe(state, seat)
        start = clock.now
        player.choose(obs, choices(obs), random.Random(k))
        elapsed_ms = round((clock.now - start) * 1000)  # whole ticks (no float drift)
        # the deadline is 0.9 * budget after the first reading; one more reading notices it has passed, and the
        # statistics read the clock once more: at most 2 ticks past the deadline
        assert elapsed_ms <= 0.9 * budget + 3, f"{elapsed_ms} clock ms with a {budget:.0f} ms budget"
        if player.last.samples > 0:
            searched += 1
            assert player.last.samples < 10_000  # it stopped at the deadline, not at the sample cap
            assert elapsed_ms >= 0.9 * budget  # and not before it
    assert searched >= 3  # the search really ran (it is not only the normal evaluation)


def test_hard_budget_is_capped_at_500_ms() -> None:
    assert HardPlayer(5000).budget_ms == 500
    assert make_player("hard").budget_ms == 500  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        HardPlayer(0)


def test_hard_is_deterministic_given_the_rng(midhand_states: list[TableState], frozen_search_clock: TickClock) -> None:
    """Same observation and rng seed -> same choice (the clock stands still: the sample cap ends the search)."""
    for k, state in enumerate(midhand_states[:6]):
        seat = to_act(state)
        assert seat is not None
        obs = observe(state, seat)
        a = HardPlayer(500, samples=3).choose(obs, choices(obs), random.Random(k))
        b = HardPlayer(500, samples=3).choose(obs, choices(obs), random.Random(k))
        assert a == b


def test_make_player_levels() -> None:
    for level in Level:
        assert make_player(level).level is level
        assert make_player(level.value).level is level
    with pytest.raises(ValueError):
        make_player("grandmaster")


def _duplicate_match(a: str, b: str, deals: int, seed: int) -> float:
    """Mean chips per seat-hand of level ``a`` minus level ``b`` over duplicate 3-vs-3 deals."""
    total = 0
    for d in range(deals):
        for swap in (False, True):
            levels = [(b if i % 2 == 0 else a) if swap else (a if i % 2 == 0 else b) for i in range(6)]
            res = play_fresh_hand([make_player(x) for x in levels], seed=seed + d, first_seat=d % 6)
            total += sum(res.deltas[i] if levels[i] == a else -res.deltas[i] for i in range(6))
    return total / (deals * 2 * 3)


def test_normal_beats_random_clearly() -> None:
    """Over a fixed-seed duplicate sample, normal wins clearly more chips per hand than random."""
    margin = _duplicate_match("normal", "random", deals=8, seed=4242)
    assert margin > 1.5, margin


def test_every_level_reacts_only_with_legal_actions(midhand_states: list[TableState]) -> None:
    """Out of turn, a player passes or picks one of the offered forces / split answers."""
    for level in Level:
        player = HardPlayer(25, samples=2) if level is Level.HARD else make_player(level)
        for k, state in enumerate(midhand_states):
            for seat in range(6):
                obs = observe(state, seat)
                legal = reactions(obs)
                if legal:
                    action = player.react(obs, legal, random.Random(k))
                    assert action is None or action in legal
