"""Self-play: run complete hands and sessions of N seats with given players through the engine (pure).

Each seat's player sees only ``observe(state, seat)``. Before the seat to act moves, every other seat
that may act out of turn (force a card, answer a split offer) is asked once per table state, in
rotation from the seat to act; the first one that acts changes the state and the round starts again.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pancog.game.actions import Action, Sit, StartHand
from pancog.game.engine import Observation, apply, observe, to_act
from pancog.game.events import Event, HandEnded
from pancog.game.rules import Rules
from pancog.game.state import TableState, initial_state

from .base import Player, choices, reactions

MAX_STEPS = 5000
"""Safety cap on applied actions per hand (the engine guarantees termination; this guards AI bugs)."""


@dataclass(slots=True)
class HandResult:
    """One finished hand: the chip change of every seat, the end and the decisions' timings."""

    deltas: tuple[int, ...]
    reason: str
    winner: int | None
    actions: int
    state: TableState
    decision_ms: dict[int, list[float]] = field(default_factory=dict)  # seat -> per-decision wall time


def seat_players(
    count: int, *, rules: Rules | None = None, buy_in: int = 1000, first_player_id: int = -1
) -> TableState:
    """A table with ``count`` computer seats (negative player ids), each bringing ``buy_in`` chips."""
    state = initial_state(rules)
    for i in range(count):
        state = apply(state, Sit(player_id=first_player_id - i, buy_in=buy_in, seat=i)).state
    return state


def _stacks(state: TableState) -> tuple[int, ...]:
    return tuple(s.stack if s is not None else 0 for s in state.seats)


def _timed(
    seat: int,
    timings: dict[int, list[float]] | None,
    fn: Callable[[Observation, Sequence[Action], random.Random], Action | None],
    obs: Observation,
    legal: Sequence[Action],
    rng: random.Random,
) -> Action | None:
    t0 = time.perf_counter()
    out = fn(obs, legal, rng)
    if timings is not None:
        timings.setdefault(seat, []).append((time.perf_counter() - t0) * 1000.0)
    return out


def play_hand(
    state: TableState,
    players: Sequence[Player],
    *,
    seed: int,
    first_seat: int | None = None,
    rng_seed: int | None = None,
    timings: bool = False,
    on_events: Callable[[Sequence[Event]], None] | None = None,
) -> HandResult:
    """Deal one hand with ``StartHand(seed=seed)`` and play it to the end with ``players`` (by seat).

    ``rng_seed`` seeds each seat's decision rng (default: derived from ``seed``), so a hand replays
    exactly. Raises ``RuntimeError`` if a player returns an action the engine refuses.
    """
    rngs = [random.Random(f"{rng_seed if rng_seed is not None else seed}:{i}") for i in range(len(players))]
    before = _stacks(state)
    tr = apply(state, StartHand(seed=seed, first_seat=first_seat))
    state = tr.state
    if on_events is not None:
        on_events(tr.events)
    hand_no = state.hand_no
    steps = 0
    timing: dict[int, list[float]] | None = {} if timings else None
    polled: int | None = None
    while state.hand is not None and state.hand.hand_no == hand_no:
        steps += 1
        if steps > MAX_STEPS:
            raise RuntimeError("hand did not finish")
        actor = to_act(state)
        action: Action | None = None
        h = state.hand
        may_react = h.option is not None or bool(h.force_backs) or h.split_offer is not None
        if polled != state.seq and may_react:
            polled = state.seq
            n = len(players)
            start = actor if actor is not None else 0
            for k in range(1, n + 1):
                seat = (start + k) % n
                if seat == actor:
                    continue
                obs = observe(state, seat)
                legal = reactions(obs)
                if not legal:
                    continue
                player = players[seat]
                rng = rngs[seat]
                action = _timed(seat, timing, player.react, obs, legal, rng)
                if action is not None:
                    break
        if action is None:
            if actor is None:
                raise RuntimeError("no seat to act in a hand in progress")
            obs = observe(state, actor)
            legal = choices(obs)
            if not legal:
                raise RuntimeError(f"seat {actor} has no legal action")
            player = players[actor]
            rng = rngs[actor]
            action = _timed(actor, timing, player.choose, obs, legal, rng)
        if action is None:
            raise RuntimeError(f"seat {actor} returned no action")
        try:
            tr = apply(state, action)
        except Exception as exc:
            raise RuntimeError(f"engine refused {action!r}: {exc}") from exc
        state = tr.state
        if on_events is not None:
            on_events(tr.events)
    after = _stacks(state)
    last = state.last_hand
    ended = next((e for e in tr.events if isinstance(e, HandEnded)), None)
    return HandResult(
        deltas=tuple(a - b for a, b in zip(after, before, strict=True)),
        reason=str(ended.reason) if ended is not None else (str(last.end_reason) if last is not None else "?"),
        winner=ended.winner if ended is not None else None,
        actions=steps,
        state=state,
        decision_ms=timing or {},
    )


def play_session(
    players: Sequence[Player],
    hands: int,
    *,
    seed: int = 0,
    rules: Rules | None = None,
    buy_in: int = 1000,
) -> list[HandResult]:
    """Play ``hands`` consecutive hands at one table (stacks and tops carry over between hands)."""
    state = seat_players(len(players), rules=rules, buy_in=buy_in)
    results: list[HandResult] = []
    for k in range(hands):
        res = play_hand(state, players, seed=seed * 100_003 + k)
        results.append(res)
        state = res.state
    return results


def play_fresh_hand(
    players: Sequence[Player],
    *,
    seed: int,
    first_seat: int = 0,
    rules: Rules | None = None,
    buy_in: int = 1000,
    timings: bool = False,
) -> HandResult:
    """One independent hand at a fresh table (empty tops, equal stacks): the unit of the benchmark."""
    state = seat_players(len(players), rules=rules, buy_in=buy_in)
    return play_hand(state, players, seed=seed, first_seat=first_seat, timings=timings)
