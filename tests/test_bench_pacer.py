"""The cluster benchmark's pacer (bench/soak.py ``Pacer``): exactly ``rate`` slots in every second, at random times
within it, and a slot nobody took in time is lost rather than saved for a burst. No clock is timed here: the slots
are read as drawn, and the clock is replaced."""

from __future__ import annotations

import asyncio
import itertools
import random

import pytest

from bench import soak
from bench.soak import Pacer


def test_each_second_gets_exactly_its_slots_at_random_times_within_it() -> None:
    pacer = Pacer(150, random.Random(24))
    start = pacer.block
    for _ in range(40):
        pacer._draw()
    slots = list(pacer.pending)
    assert len(slots) == 40 * 150
    assert slots == sorted(slots)
    for second in range(40):
        inside = [t for t in slots if start + second <= t < start + second + 1]
        assert len(inside) == 150
    gaps = sorted(b - a for a, b in itertools.pairwise(slots))
    assert gaps[len(gaps) // 2] < 1 / 150 < gaps[-1]  # random, not evenly spaced: some gaps longer than the mean


def test_a_fractional_rate_averages_out() -> None:
    pacer = Pacer(2.5, random.Random(3))
    for _ in range(2000):
        pacer._draw()
    assert 4900 <= len(pacer.pending) <= 5100


def test_stale_slots_are_lost_and_the_next_one_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    pacer = Pacer(10, random.Random(5))
    twin = Pacer(10, random.Random(5))  # the same draws, read directly
    twin.block = pacer.block
    for _ in range(4):
        twin._draw()
    now = pacer.block + 3.5  # three and a half seconds in which nobody asked
    fresh = [t for t in twin.pending if t >= now - 0.05]
    assert fresh and len(fresh) < 10
    monkeypatch.setattr(soak.time, "monotonic", lambda: now)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(soak.asyncio, "sleep", sleep)
    asyncio.run(pacer.slot())
    assert pacer.issued == 1
    assert list(pacer.pending) == fresh[1:]  # every slot older than 50 ms was dropped, not saved for a burst
    assert slept == ([fresh[0] - now] if fresh[0] > now else [])  # the first fresh slot: waited for, if ahead
