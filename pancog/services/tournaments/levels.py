"""The level schedule: antes that rise by wall clock, with optional breaks (pure, stdlib only).

A level is an ante in chips (the table stakes unit). The default schedule multiplies a base ante by
x1, 1.5, 2, 3, 4, 6, 8, 12, 16, ... (+33-50 % a level); after the listed levels the last two ratios repeat.
Time counts only while the tournament runs (the service subtracts pauses). A break of ``break_minutes``
follows every ``break_every`` levels; no hand is dealt during a break.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from pancog.game.i18n import N_

from .errors import BadSchedule

__all__ = ["DEFAULT_MULTIPLIERS", "LevelClock", "LevelSchedule", "default_antes", "parse_antes"]

DEFAULT_MULTIPLIERS: tuple[float, ...] = (1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)


def default_antes(base: int, count: int = 30) -> tuple[int, ...]:
    """``count`` strictly increasing antes from ``base`` (x1, 1.5, 2, 3, 4, 6, ... then doubling every two levels)."""
    if base < 1:
        raise BadSchedule(N_("The first ante must be at least one chip."))
    antes: list[int] = []
    for i in range(count):
        value = round(base * DEFAULT_MULTIPLIERS[i]) if i < len(DEFAULT_MULTIPLIERS) else antes[i - 2] * 2
        antes.append(max(value, antes[-1] + 1) if antes else value)
    return tuple(antes)


def parse_antes(text: str) -> tuple[int, ...]:
    """``"10, 15, 20 30"`` -> (10, 15, 20, 30). Raises :class:`BadSchedule` (not numbers, not increasing)."""
    parts = text.replace(",", " ").split()
    try:
        antes = tuple(int(p) for p in parts)
    except ValueError:
        raise BadSchedule(N_("Write the antes as whole numbers, e.g. 10, 15, 20, 30.")) from None
    return LevelSchedule.validated(antes)


@dataclass(frozen=True, slots=True)
class LevelClock:
    """Where the schedule is at one moment."""

    level: int  # 0-based index into the antes (during a break: the level that follows it)
    ante: int
    on_break: bool
    seconds_left: float  # until the next level starts or the break ends


@dataclass(frozen=True, slots=True, kw_only=True)
class LevelSchedule:
    antes: tuple[int, ...]
    level_minutes: float = 10.0
    break_every: int = 0  # 0: no breaks
    break_minutes: float = 5.0

    def __post_init__(self) -> None:
        LevelSchedule.validated(self.antes)
        if self.level_minutes <= 0:
            raise BadSchedule(N_("A level lasts more than zero minutes."))
        if self.break_every < 0 or self.break_minutes < 0:
            raise BadSchedule(N_("Breaks cannot be negative."))

    @staticmethod
    def validated(antes: Sequence[int]) -> tuple[int, ...]:
        """The antes as a tuple. Raises :class:`BadSchedule` unless non-empty, >= 1 and strictly increasing."""
        if not antes:
            raise BadSchedule(N_("A level schedule needs at least one level."))
        if any(isinstance(a, bool) or not isinstance(a, int) or a < 1 for a in antes):
            raise BadSchedule(N_("Every ante is a whole number of chips, at least 1."))
        if any(b <= a for a, b in itertools.pairwise(antes)):
            raise BadSchedule(N_("The level schedule must increase at every level."))
        return tuple(antes)

    def ante(self, level: int) -> int:
        """The ante of ``level`` (the last one stays once the schedule runs out)."""
        return self.antes[min(max(level, 0), len(self.antes) - 1)]

    def at(self, elapsed: float) -> LevelClock:
        """The level ``elapsed`` running seconds after the start."""
        level_s = self.level_minutes * 60
        break_s = self.break_minutes * 60 if self.break_every else 0.0
        block = self.break_every * level_s + break_s if self.break_every else 0.0
        t = max(0.0, elapsed)
        done = 0
        if block:
            blocks = int(t // block)
            done, t = blocks * self.break_every, t - blocks * block
            if t >= self.break_every * level_s:  # in the break after this block
                level = done + self.break_every
                return LevelClock(level, self.ante(level), True, block - t)
        index = done + int(t // level_s)
        return LevelClock(index, self.ante(index), False, level_s - t % level_s)
