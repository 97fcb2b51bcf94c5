"""The bot process's cyclic garbage collector: fewer, shorter pauses of the event loop.

Why (measured, docs/performance.md "The ack tail is the garbage collector"): at 150 actions/s the bot makes
~4,000 objects a second of *cyclic* garbage, which reference counting cannot free — mostly discord.py's: each
``Interaction`` and its ``InteractionResponse`` point at each other (with the ``Member``, ``User`` and
``Namespace`` hanging off them), each view's items point back at their view, each cancelled task keeps its
traceback's frames. With Python's thresholds (700, 10, 10) the collector runs its youngest generation every few
milliseconds of allocation, so anything alive for a few hundred ms — an interaction until its answer is sent, a
board's view until its edit — is promoted to the oldest generation before it dies, and the oldest generation
then fills with garbage: a *full* collection every ~6.5 s, each walking the whole heap (~150,000 objects, most
of them modules, functions and classes loaded at start-up) for 110–200 ms while no interaction is answered. 53 of
the 70 slowest acks of a run fell inside one of them.

What this module does (both set by ``bot.py``, both settings in docs/operations.md):

- :func:`configure` — thresholds ``(10000, 5, 2)`` by default (``PAN_GC_THRESHOLDS``): the youngest generation
  is collected every 10,000 allocations (~1 s at 150 actions/s, ~5 ms each), so most garbage dies young, where a
  collection is cheap; the middle generation every 5 of those (30–60 ms); the oldest after every 2 of those (and,
  Python's own rule, only once a quarter of it is new), so it never holds more than ~15 s of promoted garbage:
  50–100 ms every ~15 s instead of 150–200 ms every minute (``10000,5,10``) or every ~6.5 s (Python's).
- :func:`freeze` — at the first ready (the extension loaded, the commands synced, the guilds received), move
  everything alive into the permanent generation (``gc.freeze``): the modules, classes and functions of
  discord.py, Pillow and the bot, and the guild caches, are never walked again. What was frozen and later
  becomes *cyclic* garbage is not collected; start-up objects live as long as the process, so that is at most a
  bounded, one-time amount (``PAN_GC_FREEZE=0`` turns it off).
- :class:`PauseWatch` — times every collection (``gc.callbacks``) for the ``pan_gc_pause_seconds`` histogram.

No discord import: a service module; ``bot.py`` and the metrics wire it.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable
from typing import Any

__all__ = ["DEFAULT_THRESHOLDS", "PauseWatch", "configure", "freeze", "parse_thresholds"]

log = logging.getLogger("pan.collector")

Thresholds = tuple[int, int, int]

DEFAULT_THRESHOLDS: Thresholds = (10_000, 5, 2)


def parse_thresholds(text: str) -> Thresholds | None:
    """``"10000,5,2"`` → (10000, 5, 2); ``"python"`` → None (leave Python's own). Raises ValueError otherwise.

    >>> parse_thresholds("10000, 5, 2"), parse_thresholds("python")
    ((10000, 5, 2), None)
    """
    if text.strip().lower() == "python":
        return None
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError("three whole numbers, e.g. 10000,5,2 (or python)")
    young, middle, old = (int(p) for p in parts)
    if young < 1 or middle < 1 or old < 1:
        raise ValueError("each threshold at least 1 (0 would switch the collector off)")
    return young, middle, old


def configure(thresholds: Thresholds | None) -> Thresholds:
    """Set the collector's thresholds (None: leave them); returns those in force."""
    if thresholds is not None:
        gc.set_threshold(*thresholds)
    young, middle, old = gc.get_threshold()
    return young, middle, old


def freeze() -> int:
    """Collect once, then move every object alive into the permanent generation; returns how many are frozen."""
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    log.info("garbage collector: %d start-up objects frozen, thresholds %s", frozen, gc.get_threshold())
    return frozen


class PauseWatch:
    """Calls ``observe(generation, seconds)`` after every collection, until :meth:`stop`."""

    def __init__(self, observe: Callable[[int, float], None], clock: Callable[[], float] = time.perf_counter) -> None:
        self.observe = observe
        self.clock = clock
        self.started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = self.clock()
        else:
            self.observe(int(info["generation"]), self.clock() - self.started)

    def stop(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)
