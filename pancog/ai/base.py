"""The computer-player interface: a player sees one seat's :class:`Observation` and nothing else.

The engine's ``observe(state, seat)`` holds the seat's own hand, the public table and the seat's
legal actions (computed by the engine from what that seat may know: its own hand, the public boards,
the option card and the force-back list). :func:`choices` and :func:`reactions` filter those legal
actions to the ones a computer player takes, so the *only* input a player ever receives is that
observation plus an ``rng``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol, runtime_checkable

from pancog.game.actions import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    Claim,
    DeclineDraw,
    DeclineSplit,
    Discard,
    Force,
    GoOnTop,
    Knock,
    MakeGood,
    NewMeld,
    Pluck,
    TakeOption,
)
from pancog.game.engine import Observation
from pancog.game.state import Phase

IN_TURN_TYPES: tuple[type, ...] = (
    Knock,
    GoOnTop,
    Pluck,
    DeclineDraw,
    TakeOption,
    NewMeld,
    AddToMeld,
    Borrow,
    MakeGood,
    Claim,
    Discard,
)
"""Action types a computer player chooses among when the hand waits for it."""

OUT_OF_TURN_TYPES: tuple[type, ...] = (Force, AcceptSplit, DeclineSplit)
"""Out-of-turn actions a computer player may take (it never calls fouls, offers splits or changes a declaration)."""


class Level(StrEnum):
    """Computer player strength. ``random`` (uniform over legal actions) exists for measurement."""

    RANDOM = "random"
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


@runtime_checkable
class Player(Protocol):
    """A computer player. Both methods see only ``obs`` (one seat's view) and the filtered legal actions.

    ``choose`` is called when the hand waits for this seat (``obs.to_act == obs.seat``) and must return
    one of ``legal``. ``react`` is called when the seat may act out of turn (force a card, answer a
    split offer) and returns one of ``legal`` or ``None`` to pass. Given the same ``obs``, ``legal``
    and ``rng`` state, a player returns the same action.
    """

    level: Level

    def choose(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action: ...

    def react(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action | None: ...


def choices(obs: Observation) -> tuple[Action, ...]:
    """The in-turn actions a computer player picks from (empty when the hand is not waiting for it).

    During declarations only the seat's own declaration is offered (never a change of an earlier one).
    """
    if obs.to_act != obs.seat:
        return ()
    acts = tuple(a for a, _ in obs.legal if isinstance(a, IN_TURN_TYPES))
    if obs.phase is Phase.DECLARING:
        return tuple(a for a in acts if isinstance(a, Knock | GoOnTop))
    if obs.phase is Phase.PLAYING:
        return tuple(a for a in acts if not isinstance(a, Knock | GoOnTop))
    return acts


def reactions(obs: Observation) -> tuple[Action, ...]:
    """The out-of-turn actions a computer player may take now (forces, split answers)."""
    return tuple(a for a, _ in obs.legal if isinstance(a, OUT_OF_TURN_TYPES))


def chips_of(obs: Observation, action: Action) -> int:
    """Chips the engine says ``action`` collects now (0 if not a paying play)."""
    for a, v in obs.legal:
        if a == action:
            return v
    return 0
