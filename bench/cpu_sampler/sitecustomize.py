"""A CPU-time sampler for the bot processes a benchmark starts (``bench/cluster.py``, ``bench/discord_calls.py``).

py-spy samples what is *runnable*: under a cgroup quota a throttled process, and on a busy machine one preempted
right after it woke another (a socket write to PostgreSQL or the fake Discord), are sampled where they wait, so
its profile of the bot showed 24 % in ``_SelectorSocketTransport.write`` that was 3 % of the bot's CPU time. This
sampler counts CPU time only: ``ITIMER_PROF`` (the process's user + system time) sends SIGPROF every half
millisecond of it, and the handler, which runs on the main thread (the event loop), records that thread's stack.
Threads other than the main one are not seen (with PostgreSQL the bot runs everything on its loop).

    CPUPROF_DIR=/tmp/prof PYTHONPATH=bench/cpu_sampler .venv/bin/python -m bench.cluster ...
    .venv/bin/python -m bench.profile_top /tmp/prof/cpu-<pid>.txt

Only a process whose script is ``bot.py`` is sampled, from ``CPUPROF_DELAY`` seconds after it starts (default 45:
the cluster bench's start-up and warm-up) for ``CPUPROF_SECONDS`` (default 50); then ``cpu-<pid>.txt`` (py-spy's
raw format, which ``bench/profile_top.py`` reads) and ``cpu-<pid>.txt.times`` (user and system seconds over the
window, the number of samples, the garbage collector's collections and seconds per generation) are written.
Each signal also wakes the event loop once (asyncio's wakeup fd), a small cost of its own.
"""

from __future__ import annotations

import os
import sys

if os.environ.get("CPUPROF_DIR") and any(arg.endswith("bot.py") for arg in sys.argv[:2]):
    import collections
    import gc
    import signal
    import threading
    import time
    from types import FrameType
    from typing import Any

    _counts: collections.Counter[str] = collections.Counter()
    _on = [False]
    _gc_seconds = [0.0, 0.0, 0.0]
    _gc_runs = [0, 0, 0]
    _gc_start: list[float | None] = [None]
    _quiet = [False]

    def _sample(_signum: int, frame: FrameType | None) -> None:
        if not _quiet[0]:  # asyncio's wakeup fd fills when the loop is throttled: no warning for each signal
            _quiet[0] = True
            fd = signal.set_wakeup_fd(-1)
            if fd != -1:
                signal.set_wakeup_fd(fd, warn_on_full_buffer=False)
        if not _on[0]:
            return
        stack = []
        while frame is not None:
            code = frame.f_code
            stack.append(f"{code.co_name} ({code.co_filename}:{frame.f_lineno})")
            frame = frame.f_back
        _counts[";".join(reversed(stack))] += 1

    def _collected(phase: str, info: dict[str, Any]) -> None:
        if not _on[0]:
            return
        if phase == "start":
            _gc_start[0] = time.process_time()
        elif _gc_start[0] is not None:
            generation = info["generation"]
            _gc_seconds[generation] += time.process_time() - _gc_start[0]
            _gc_runs[generation] += 1

    def _window() -> None:
        time.sleep(float(os.environ.get("CPUPROF_DELAY", "45")))
        before = os.times()
        _on[0] = True
        time.sleep(float(os.environ.get("CPUPROF_SECONDS", "50")))
        _on[0] = False
        after = os.times()
        os.makedirs(os.environ["CPUPROF_DIR"], exist_ok=True)
        path = os.path.join(os.environ["CPUPROF_DIR"], f"cpu-{os.getpid()}.txt")
        with open(path, "w") as out:
            out.writelines(f"{stack} {n}\n" for stack, n in _counts.items())
        with open(path + ".times", "w") as out:
            out.write(
                f"user {after.user - before.user:.3f} system {after.system - before.system:.3f} "
                f"samples {sum(_counts.values())} gc_runs {_gc_runs} gc_seconds {[round(s, 3) for s in _gc_seconds]}\n"
            )

    gc.callbacks.append(_collected)
    signal.signal(signal.SIGPROF, _sample)
    signal.setitimer(signal.ITIMER_PROF, 0.0005, 0.0005)
    threading.Thread(target=_window, name="cpu-sampler", daemon=True).start()
