"""Computer players for Pan: practice opponents, filled seats, stand-ins for away players, and hints.

Pure Python (stdlib only, no discord/asyncio). A player sees exactly one seat's
``pancog.game.engine.Observation`` -- its own hand and the public table -- never the stock or
another hand. Typical use by the table service::

    player = make_player("normal")
    obs = observe(state, seat)
    legal = choices(obs)                     # in turn; reactions(obs) for out-of-turn forces
    action = player.choose(obs, legal, rng)  # one of legal; then engine.apply(state, action)

Hints: ``rank_plays(obs)`` orders the legal plays by the normal level's evaluation and
``explain(obs, action)`` gives one plain sentence. See ``docs/ai.md``.
"""

from __future__ import annotations

from .base import Level, Player, choices, reactions
from .hard import HardPlayer, determinize
from .hints import explain, hint, rank_plays
from .players import EasyPlayer, NormalPlayer, RandomPlayer
from .selfplay import HandResult, play_fresh_hand, play_hand, play_session, seat_players


def make_player(level: str | Level, *, budget_ms: float | None = None) -> Player:
    """A computer player of ``level`` (``random``, ``easy``, ``normal`` or ``hard``).

    ``budget_ms`` sets the hard level's time budget per decision (at most 500 ms).

    Raises:
        ValueError: for an unknown level.
    """
    lv = Level(level)
    match lv:
        case Level.RANDOM:
            return RandomPlayer()
        case Level.EASY:
            return EasyPlayer()
        case Level.NORMAL:
            return NormalPlayer()
        case Level.HARD:
            return HardPlayer(budget_ms) if budget_ms is not None else HardPlayer()


__all__ = [
    "EasyPlayer",
    "HandResult",
    "HardPlayer",
    "Level",
    "NormalPlayer",
    "Player",
    "RandomPlayer",
    "choices",
    "determinize",
    "explain",
    "hint",
    "make_player",
    "play_fresh_hand",
    "play_hand",
    "play_session",
    "rank_plays",
    "reactions",
    "seat_players",
]
