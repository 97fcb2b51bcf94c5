"""How late the bot's event loop runs, and where its main thread was when it stalled (``bench/cluster.py``).

A slow ack can wait for the event loop (a long callback, a blocking call) or for a core (the process is runnable but
descheduled, on a busy machine or under a cgroup quota). This probe tells the two apart:

- a 5 ms timer on the bot's loop logs how late each tick fires, as ``[time.monotonic, seconds late]`` pairs, to
  ``late-<pid>.json`` (rewritten every 5 s and at exit; ``time.monotonic`` is the clock of ``BENCH_ACK_DUMP``);
- a watcher thread, when no tick has come for ``LOOPPROBE_STALL_MS`` (default 40) ms, writes the main thread's stack
  to ``stall-<pid>.txt``, once per stall. Stalls that land in unrelated places (an aiohttp release, a PostgreSQL
  fetch, a board's edge check) are the process descheduled; the same frame every time would be a blocking call.

    LOOPPROBE_DIR=/tmp/lp PYTHONPATH=bench/loop_probe BENCH_ACK_DUMP=/tmp/lp/acks.json \\
        .venv/bin/python -m bench.cluster --backend postgres --processes 1 --tables 90 --pace 150 ...
    .venv/bin/python -m bench.ack_tail /tmp/lp/acks.json --late /tmp/lp/late-<pid>.json

The watcher takes the GIL every 10 ms and the timer wakes the loop every 5 ms: a small cost of their own, so a run
with the probe is not one of the figures' runs. Only a process whose script is ``bot.py`` is probed.
"""

from __future__ import annotations

import os
import sys

if os.environ.get("LOOPPROBE_DIR") and any(arg.endswith("bot.py") for arg in sys.argv[:2]):
    import asyncio
    import asyncio.runners
    import atexit
    import json
    import threading
    import time
    import traceback
    from typing import Any

    _dir = os.environ["LOOPPROBE_DIR"]
    os.makedirs(_dir, exist_ok=True)
    _stall = float(os.environ.get("LOOPPROBE_STALL_MS", "40")) / 1000
    _late: list[tuple[float, float]] = []
    _last_tick = [time.monotonic()]
    _main: list[int] = []

    def _save() -> None:
        with open(os.path.join(_dir, f"late-{os.getpid()}.json"), "w") as out:
            json.dump(list(_late), out)  # a copy: the loop appends while the watcher saves

    async def _beat() -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.005)
            now = time.monotonic()
            _last_tick[0] = now
            _late.append((now, max(0.0, now - before - 0.005)))

    def _watch() -> None:
        stalls = open(os.path.join(_dir, f"stall-{os.getpid()}.txt"), "w")  # noqa: SIM115 (open for the process)
        reported = 0.0
        saved = time.monotonic()
        while True:
            time.sleep(0.01)
            now = time.monotonic()
            tick = _last_tick[0]
            if now - tick >= _stall and tick != reported:
                frame = sys._current_frames().get(_main[0])
                if frame is not None:
                    stack = "".join(traceback.format_stack(frame)[-12:])
                    stalls.write(f"== at {now:.3f}: no tick for {(now - tick) * 1000:.0f} ms\n{stack}\n")
                    stalls.flush()
                reported = tick
            if now - saved >= 5:
                _save()
                saved = now

    _run = asyncio.runners.Runner.run

    def _probed_run(self: Any, coro: Any, **kwargs: Any) -> Any:
        async def probed() -> Any:
            _main.append(threading.get_ident())
            beat = asyncio.get_running_loop().create_task(_beat())
            threading.Thread(target=_watch, name="loop-probe", daemon=True).start()
            try:
                return await coro
            finally:
                beat.cancel()

        return _run(self, probed(), **kwargs)

    asyncio.runners.Runner.run = _probed_run  # type: ignore[method-assign]
    atexit.register(_save)
