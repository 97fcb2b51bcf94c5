"""Fixtures for the computer-player tests: mid-hand table states reached by seeded self-play."""

from __future__ import annotations

import random

import pytest

from pancog.ai import choices, hard, make_player, solitaire
from pancog.ai.selfplay import seat_players
from pancog.game.actions import StartHand
from pancog.game.engine import apply, observe, to_act
from pancog.game.state import TableState


def advance(state: TableState, steps: int, seed: int) -> TableState:
    """Play ``steps`` in-turn actions with the easy level (stops early if the hand ends)."""
    easy = make_player("easy")
    rng = random.Random(seed)
    hand_no = state.hand_no
    for _ in range(steps):
        if state.hand is None or state.hand.hand_no != hand_no:
            break
        seat = to_act(state)
        assert seat is not None
        obs = observe(state, seat)
        state = apply(state, easy.choose(obs, choices(obs), rng)).state
    return state


def dealt(seed: int, seats: int = 6) -> TableState:
    """A fresh 6-seat table with a hand just dealt."""
    return apply(seat_players(seats), StartHand(seed=seed, first_seat=0)).state


@pytest.fixture
def midhand_states() -> list[TableState]:
    """A spread of states: declaring, early play and later play, over a few deals."""
    out: list[TableState] = []
    for seed in range(4):
        for steps in (0, 3, 12, 30, 55):
            st = advance(dealt(seed), steps, seed)
            if st.hand is not None and st.hand.phase.value != "over":
                out.append(st)
    return out


class TickClock:
    """A stand-in for ``time.perf_counter`` that advances ``tick`` seconds per reading: the search's elapsed
    "time" is then a count of its deadline checks, the same on every machine and under any load."""

    def __init__(self, tick: float) -> None:
        self.tick = tick
        self.now = 1000.0
        self.readings = 0

    def perf_counter(self) -> float:
        self.readings += 1
        self.now += self.tick
        return self.now


@pytest.fixture
def frozen_search_clock(monkeypatch: pytest.MonkeyPatch) -> TickClock:
    """The hard level's clock stands still: its search never reaches its deadline, so only the sample cap and the
    rng decide (a real clock on a loaded machine cuts one of two "identical" searches short)."""
    clock = TickClock(0.0)
    monkeypatch.setattr(hard, "time", clock)
    monkeypatch.setattr(solitaire, "time", clock)
    return clock
