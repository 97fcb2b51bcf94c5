"""pancog/infra/memory.py (glibc malloc housekeeping) and the memory-related options bot.py sets."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import bot as bot_module
from pancog.infra import memory
from pancog.infra.config import Config

glibc_only = pytest.mark.skipif(memory.glibc() is None, reason="the C library is not glibc")


@glibc_only
def test_configure_allocator_and_trim_on_glibc() -> None:
    assert memory.configure_allocator(arenas=memory.DEFAULT_ARENAS) is True
    assert memory.configure_allocator(arenas=0, mmap_threshold=0) is True  # nothing to change
    assert isinstance(memory.trim(), bool)
    rss = memory.rss_kib()
    assert rss is None or rss > 0


def test_everything_is_a_no_op_without_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "_probed", True)
    monkeypatch.setattr(memory, "_glibc", None)
    assert memory.glibc() is None
    assert memory.configure_allocator() is False
    assert memory.trim() is False
    trimmer = memory.Trimmer(0.01)
    assert not trimmer.enabled
    trimmer.start()  # does nothing
    assert trimmer._task is None


@glibc_only
async def test_trimmer_trims_periodically_and_stops() -> None:
    trimmer = memory.Trimmer(0.01)
    trimmer.start()
    for _ in range(200):
        if trimmer.trims >= 2:
            break
        await asyncio.sleep(0.01)
    await trimmer.stop()
    assert trimmer.trims >= 2
    done = trimmer.trims
    await asyncio.sleep(0.05)
    assert trimmer.trims == done  # stopped


async def test_trimmer_off_with_zero_interval() -> None:
    trimmer = memory.Trimmer(0)
    assert not trimmer.enabled
    trimmer.start()
    await trimmer.stop()
    assert trimmer.trims == 0


def test_bot_keeps_no_message_cache_and_reads_the_trim_interval(tmp_path: Path) -> None:
    env = {"PAN_DB_PATH": str(tmp_path / "pan.sqlite3"), "PAN_MALLOC_TRIM_SECONDS": "15"}
    pan_bot = bot_module.build_bot(Config.from_env(env))
    assert pan_bot._connection.max_messages is None  # no cache of board/summary messages
    assert pan_bot.trimmer.interval == 15.0
    default = bot_module.build_bot(Config.from_env({"PAN_DB_PATH": str(tmp_path / "pan.sqlite3")}))
    assert default.trimmer.interval == memory.DEFAULT_TRIM_SECONDS
    off = bot_module.build_bot(
        Config.from_env({"PAN_DB_PATH": str(tmp_path / "x.sqlite3"), "PAN_MALLOC_TRIM_SECONDS": "0"})
    )
    assert not off.trimmer.enabled


def test_allocator_settings_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(memory, "configure_allocator", lambda arenas: calls.append(arenas) or True)
    assert bot_module.configure_allocator(Config.from_env({"PAN_MALLOC_ARENAS": "0"})) is False
    assert bot_module.configure_allocator(Config.from_env({})) is True
    assert bot_module.configure_allocator(Config.from_env({"PAN_MALLOC_ARENAS": "4"})) is True
    assert calls == [memory.DEFAULT_ARENAS, 4]


def test_gil_switch_interval_from_env() -> None:
    """PAN_GIL_SWITCH_MS: 1 ms by default, a number of ms when given, Python's own value kept for 0."""
    import sys

    before = sys.getswitchinterval()
    try:

        def ms(value: str) -> float:
            return Config.from_env({"PAN_GIL_SWITCH_MS": value}).gil_switch_ms

        assert bot_module.configure_switch_interval(ms("")) == pytest.approx(0.001, abs=1e-9)
        assert bot_module.configure_switch_interval(ms("0.5")) == pytest.approx(0.0005, abs=1e-9)
        sys.setswitchinterval(0.005)
        assert bot_module.configure_switch_interval(ms("0")) == pytest.approx(0.005, abs=1e-9)
    finally:
        sys.setswitchinterval(before)


def test_event_loop_from_env(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """PAN_EVENT_LOOP: bot.py runs on uvloop by default, on asyncio's own loop when asked or when uvloop is missing."""
    import builtins

    import uvloop

    def loop_of(value: str) -> tuple[type, str]:
        new_loop, name = bot_module.event_loop_factory(Config.from_env({"PAN_EVENT_LOOP": value}).event_loop)
        loop = new_loop()
        try:
            return type(loop), name
        finally:
            loop.close()

    assert loop_of("") == (uvloop.Loop, "uvloop")
    kind, name = loop_of("asyncio")
    assert name == "asyncio" and not issubclass(kind, uvloop.Loop) and issubclass(kind, asyncio.AbstractEventLoop)

    real_import = builtins.__import__

    def without_uvloop(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "uvloop":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_uvloop)
    kind, name = loop_of("uvloop")
    assert name == "asyncio" and not issubclass(kind, uvloop.Loop)
    assert "uvloop is not installed" in caplog.text
