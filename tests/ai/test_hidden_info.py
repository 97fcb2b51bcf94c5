"""No hidden information reaches a computer player: its only input is one seat's observation."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any

import pytest

from pancog.ai import HardPlayer, choices, make_player, reactions
from pancog.game.cards import Card
from pancog.game.engine import Observation, observe, to_act
from pancog.game.state import PlayerHand, TableState
from tests.ai.conftest import TickClock


def twin(state: TableState, seat: int, seed: int) -> TableState:
    """The same table with every hand but ``seat``'s and the stock dealt again from the same cards."""
    h = state.hand
    assert h is not None
    others = [p for p in h.players if p is not None and p.seat != seat]
    pool = [c for p in others for c in p.hand] + list(h.stock)
    random.Random(seed).shuffle(pool)
    players: list[PlayerHand | None] = list(h.players)
    pos = 0
    for p in others:
        n = len(p.hand)
        players[p.seat] = dataclasses.replace(p, hand=tuple(sorted(pool[pos : pos + n])))
        pos += n
    hand = dataclasses.replace(h, players=tuple(players), stock=tuple(pool[pos:]))
    return dataclasses.replace(state, hand=hand)


def cards_in(obj: Any) -> Counter[Card]:
    """Every Card reachable from ``obj`` (dataclasses, tuples), as a multiset."""
    found: Counter[Card] = Counter()
    if isinstance(obj, Card):
        found[obj] += 1
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            found += cards_in(getattr(obj, f.name))
    elif isinstance(obj, tuple | list):
        for x in obj:
            found += cards_in(x)
    return found


def public_cards(obs: Observation) -> Counter[Card]:
    allowed: Counter[Card] = Counter(obs.hand)
    for p in obs.players:
        for m in p.melds:
            allowed += Counter(m.cards)
    for c in (obs.drawn, obs.option, obs.muck_top):
        if c is not None:
            allowed[c] += 1
    for fb in obs.force_backs:
        allowed[fb.card] += 1
    return allowed


def _seat_to_observe(state: TableState) -> int:
    seat = to_act(state)
    assert seat is not None
    return seat


def test_twin_states_give_identical_observations(midhand_states: list[TableState]) -> None:
    """Two states that differ only in other players' hands and the stock order look the same to the seat."""
    assert len(midhand_states) >= 10
    for k, state in enumerate(midhand_states):
        seat = _seat_to_observe(state)
        other = twin(state, seat, seed=k)
        h1, h2 = state.hand, other.hand
        assert h1 is not None and h2 is not None
        assert h1.stock != h2.stock or any(
            a is not None and b is not None and a.hand != b.hand for a, b in zip(h1.players, h2.players, strict=True)
        )
        assert observe(state, seat) == observe(other, seat)
        for watcher in range(6):
            assert observe(state, watcher).legal == observe(other, watcher).legal


def test_observation_holds_no_hidden_card(midhand_states: list[TableState]) -> None:
    """Every card in an observation is the seat's own, on a board, or face up on the table."""
    for state in midhand_states:
        for seat in range(6):
            obs = observe(state, seat)
            public = public_cards(obs)
            assert not (cards_in(dataclasses.replace(obs, legal=())) - public)
            # legal actions name only the seat's own cards or public ones
            assert set(cards_in(obs.legal)) <= set(public)
            names = {f.name for f in dataclasses.fields(obs)}
            assert not names & {"stock", "hands", "muck", "shoe"}
            h = state.hand
            assert h is not None
            for p in obs.players:
                if p.seat != seat:
                    assert p.hand_count == len(h.player(p.seat).hand)
                    assert not hasattr(p, "hand")


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
def test_decisions_identical_on_twin_states(
    level: str, midhand_states: list[TableState], frozen_search_clock: TickClock
) -> None:
    """For the same rng seed every level decides the same on states that differ only in hidden cards (the hard
    level's clock stands still, so a loaded machine cannot cut one of the two searches short)."""
    for k, state in enumerate(midhand_states[::2]):
        seat = _seat_to_observe(state)
        other = twin(state, seat, seed=100 + k)
        player = HardPlayer(500, samples=3) if level == "hard" else make_player(level)
        o1, o2 = observe(state, seat), observe(other, seat)
        a1 = player.choose(o1, choices(o1), random.Random(k))
        a2 = player.choose(o2, choices(o2), random.Random(k))
        assert a1 == a2
        for watcher in range(6):
            w1, w2 = observe(state, watcher), observe(other, watcher)
            if reactions(w1):
                assert player.react(w1, reactions(w1), random.Random(k)) == player.react(
                    w2, reactions(w2), random.Random(k)
                )
