"""Run ``bot.py`` with a memory probe: on SIGUSR1 append a JSON report to ``$PAN_PROBE_OUT`` (SIGUSR2: gc,
malloc_trim, then report). A diagnostic for ``python -m bench.soak --probe``; the soak's own figures use plain bot.py.

Report: RSS and /proc smaps_rollup, glibc ``mallinfo2`` (arena = heap bytes from brk/arenas, hblkhd = mmapped
blocks, uordblks = in use, fordblks = free but kept), threads, the 25 most numerous object types, discord.py
caches (messages, users, members, the view store), renderer sprite caches, where pending asyncio tasks wait
(``waiting``: the innermost project frame of each) and the render queue's figures, and the top tracemalloc sites when
``PAN_PROBE_TRACEMALLOC=<frames>`` is set (tracing starts before the bot imports anything).

    PAN_PROBE_OUT=/tmp/probe.jsonl python -m bench.memprobe
"""

from __future__ import annotations

import collections
import ctypes
import ctypes.util
import gc
import json
import os
import signal
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if os.environ.get("PAN_PROBE_TRACEMALLOC"):
    tracemalloc.start(int(os.environ["PAN_PROBE_TRACEMALLOC"]))

import bot as bot_module  # noqa: E402 - after tracemalloc starts, to trace the bot's imports

SPRITE_CACHES = ("text_sprite", "text_width", "fit_text", "card_sprite", "back_sprite", "pill", "rounded_box", "font")
_captured: dict[str, Any] = {}
_build = bot_module.build_bot


def _capture(*args: Any, **kwargs: Any) -> Any:
    built = _build(*args, **kwargs)
    _captured["bot"] = built
    original_hook = built.setup_hook

    async def setup_hook() -> None:
        import asyncio

        loop = asyncio.get_running_loop()  # loop signal handlers wake the loop (a plain handler may not)
        loop.add_signal_handler(signal.SIGUSR1, _write, False)
        loop.add_signal_handler(signal.SIGUSR2, _write, True)
        await original_hook()

    built.setup_hook = setup_hook
    return built


bot_module.build_bot = _capture  # type: ignore[assignment]

if os.environ.get("PAN_PROBE_STOP_PANELS"):  # what-if: stop each ephemeral panel's view once sent (see soak.md)
    import discord

    _listen = discord.ui.View._start_listening_from_store

    def _listen_then_stop(self: Any, store: Any) -> None:
        _listen(self, store)
        if self.timeout == 15 * 60.0 and type(self).__name__ == "HandView":
            self.stop()

    discord.ui.View._start_listening_from_store = _listen_then_stop  # type: ignore[method-assign]


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks")
    ] + [("keepcost", ctypes.c_size_t)]


def _runtime(pan_bot: Any) -> Any:
    """The Pan runtime of the bot (None before the extension is loaded)."""
    from pancog.adapter.runtime import runtime_of

    try:
        return runtime_of(pan_bot)
    except RuntimeError:
        return None


def _libc() -> Any:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def _mallinfo() -> dict[str, int]:
    libc = _libc()
    fn = getattr(libc, "mallinfo2", None) if libc is not None else None
    if fn is None:
        return {}
    fn.restype = _MallInfo2
    info = fn()
    return {name: getattr(info, name) for name, _ in _MallInfo2._fields_}


def _proc(name: str) -> dict[str, int]:
    found: dict[str, int] = {}
    try:
        for line in Path(f"/proc/self/{name}").read_text().splitlines():
            key, _, rest = line.partition(":")
            parts = rest.split()
            if parts and parts[0].isdigit():
                found[key.strip()] = int(parts[0])
    except OSError:
        pass
    return found


def report(trim: bool = False) -> dict[str, Any]:
    gc.collect()
    out: dict[str, Any] = {"time": time.time(), "trim": trim}
    if trim:
        libc = _libc()
        if libc is not None and hasattr(libc, "malloc_trim"):
            libc.malloc_trim(0)
    status = _proc("status")
    out["rss_kib"] = status.get("VmRSS", 0)
    out["smaps_rollup"] = {
        k: v for k, v in _proc("smaps_rollup").items() if k in ("Rss", "Anonymous", "Private_Dirty", "Shared_Clean")
    }
    out["mallinfo2"] = _mallinfo()
    out["threads"] = [t.name for t in threading.enumerate()]
    counts = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
    out["gc_objects"] = len(gc.get_objects())
    out["types"] = counts.most_common(25)
    views = collections.Counter()
    sample: Any = None
    for o in gc.get_objects():
        if _is_view(o):
            views[f"{type(o).__qualname__} timeout={o.timeout}"] += 1
            sample = o
    out["views"] = views.most_common(10)
    if sample is not None:
        out["view_referrers"] = [type(r).__qualname__ for r in gc.get_referrers(sample)][:10]
    pan_bot = _captured.get("bot")
    if pan_bot is not None:
        state = pan_bot._connection
        store = state._view_store
        out["discord"] = {
            "messages": len(state._messages) if state._messages is not None else None,
            "users": len(state._users),
            "members": sum(len(g._members) for g in pan_bot.guilds),
            "dm_channels": len(state._private_channels),
            "views": len(store._views),
            "synced_message_views": len(store._synced_message_views),
            "dynamic_items": len(store._dynamic_items),
        }
        rt = _runtime(pan_bot)
        if rt is not None:
            out["pan"] = {
                "sessions": len(rt.tables.sessions),
                "boards": len(rt.boards),
                "names": rt.names.cached,
                "tasks": len(asyncio_tasks()),
            }
    out["waiting"] = task_census()
    rt = _runtime(pan_bot) if pan_bot is not None else None
    if rt is not None:
        out["renders"] = rt.renders.figures().line()
    try:
        from renderer import assets

        out["sprites"] = {
            name: getattr(assets, name).cache_info().currsize
            for name in SPRITE_CACHES
            if hasattr(getattr(assets, name, None), "cache_info")
        }
    except Exception as exc:  # a diagnostic: report, never fail
        out["sprites"] = repr(exc)
    if tracemalloc.is_tracing():
        snap = tracemalloc.take_snapshot()
        out["traced_bytes"] = tracemalloc.get_traced_memory()[0]
        out["traced_files"] = [
            (str(s.traceback[0].filename).replace(str(ROOT), "."), s.size) for s in snap.statistics("filename")[:25]
        ]
        out["traced_lines"] = [
            (f"{str(s.traceback[0].filename).replace(str(ROOT), '.')}:{s.traceback[0].lineno}", s.size, s.count)
            for s in snap.statistics("lineno")[:30]
        ]
    return out


def _is_view(o: Any) -> bool:
    try:
        import discord

        return isinstance(o, discord.ui.view.BaseView)
    except Exception:  # a diagnostic: never fail
        return False


def task_census(limit: int = 25) -> list[tuple[str, int]]:
    """Where the pending asyncio tasks are waiting: the innermost project frame of each (most common first)."""
    places: collections.Counter[str] = collections.Counter()
    for task in asyncio_tasks():
        frames = []
        coro: Any = task.get_coro()
        while coro is not None:  # follow the await chain (Task.get_stack gives only a suspended task's top frame)
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
            if frame is not None:
                frames.append(frame)
            coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
        ours = [f for f in frames if str(ROOT) in f.f_code.co_filename and ".venv" not in f.f_code.co_filename]
        frame = (ours or frames or [None])[-1]
        if frame is None:
            places["<no frame>"] += 1
            continue
        name = frame.f_code.co_filename.replace(str(ROOT), ".")
        places[f"{name}:{frame.f_lineno} {frame.f_code.co_name}"] += 1
    return places.most_common(limit)


def asyncio_tasks() -> set[Any]:
    import asyncio

    try:
        return asyncio.all_tasks()
    except RuntimeError:
        return set()


def _write(trim: bool) -> None:
    data = report(trim=trim)
    path = os.environ.get("PAN_PROBE_OUT", "/tmp/pan-probe.jsonl")  # noqa: S108 - a diagnostic default
    with open(path, "a", encoding="utf-8") as sink:
        sink.write(json.dumps(data) + "\n")


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(bot_module.main())
