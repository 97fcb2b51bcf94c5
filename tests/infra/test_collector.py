"""The bot process's garbage-collector policy (pancog/infra/collector.py) and its settings."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest

from pancog.infra import collector
from pancog.infra.config import Config, ConfigError


@pytest.fixture
def thresholds_kept() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def test_thresholds_are_read_from_the_environment() -> None:
    assert Config.from_env({}).gc_thresholds == (10_000, 5, 2)
    assert Config.from_env({"PAN_GC_THRESHOLDS": "2000, 20, 5"}).gc_thresholds == (2000, 20, 5)
    assert Config.from_env({"PAN_GC_THRESHOLDS": "Python"}).gc_thresholds is None
    assert Config.from_env({}).gc_freeze is True
    assert Config.from_env({"PAN_GC_FREEZE": "0"}).gc_freeze is False
    for bad, why in (("10000,5", "three whole numbers"), ("0,5,10", "at least 1"), ("a,b,c", "three whole")):
        with pytest.raises(ConfigError, match=f"PAN_GC_THRESHOLDS='{bad}': must be .*{why}"):
            Config.from_env({"PAN_GC_THRESHOLDS": bad})
    with pytest.raises(ConfigError, match="PAN_GC_FREEZE"):
        Config.from_env({"PAN_GC_FREEZE": "yes"})


def test_configure_sets_the_thresholds_or_leaves_them(thresholds_kept: None) -> None:
    gc.set_threshold(700, 10, 10)
    assert collector.configure(None) == (700, 10, 10)
    assert collector.configure((10_000, 5, 2)) == (10_000, 5, 2)
    assert gc.get_threshold() == (10_000, 5, 2)


def test_the_pause_watch_times_each_collection_until_stopped() -> None:
    seen: list[tuple[int, float]] = []
    ticks = iter([10.0, 10.25, 20.0, 20.5])
    watch = collector.PauseWatch(lambda g, s: seen.append((g, s)), clock=lambda: next(ticks))
    try:
        gc.collect(1)
        gc.collect(2)
    finally:
        watch.stop()
    gc.collect()
    assert seen == [(1, 0.25), (2, 0.5)]
    watch.stop()  # twice is harmless


def test_freeze_moves_the_start_up_heap_out_of_the_collections() -> None:
    # In a fresh interpreter: freezing the test runner's own heap would keep its garbage for the whole session.
    code = (
        "import gc; import pancog.infra.collector as c; "
        "n = c.freeze(); print(n, gc.get_freeze_count(), len(gc.get_objects(2)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    frozen, counted, oldest = (int(x) for x in out)
    assert frozen == counted > 1000  # every module, class and function imported so far
    assert oldest < frozen / 10  # the oldest generation, walked by a full collection, is now nearly empty
