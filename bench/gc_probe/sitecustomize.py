"""A probe of the garbage collector in the bot processes a benchmark starts (``bench/cluster.py``), as used for
docs/performance.md "The ack tail is the garbage collector"; read its output with ``bench/ack_tail.py``.

    GCPROBE_DIR=/tmp/gcp BENCH_ACK_DUMP=/tmp/gcp/acks.json PYTHONPATH=bench/gc_probe \\
        .venv/bin/python -m bench.cluster --backend postgres --processes 1 --tables 90 --pace 150
    .venv/bin/python -m bench.ack_tail /tmp/gcp/acks.json /tmp/gcp/gc-*.txt

Only a process whose script is ``bot.py`` is probed. ``gc-<pid>.txt``: one line per collection that took 3 ms or
more, and every full one — its start (``time.monotonic``, the clock the fake Discord stamps acks with), its
length in ms, its generation and the objects it collected. ``GCPROBE_GARBAGE_AFTER=S``: S seconds after start, one
collection with ``gc.DEBUG_SAVEALL`` and the count of the garbage by type in ``garbage-<pid>.txt`` (what is
collectable cyclic garbage at that moment); with ``GCPROBE_GARBAGE_WINDOW=W`` too, a full collection at S, then
every collection for W seconds keeps its garbage (``DEBUG_SAVEALL``), so the file counts all the cyclic garbage the
bot made in those W seconds, whatever generation it died in. ``GCPROBE_CENSUS_AFTER=S``: at the first full
collection S seconds after start, every tracked object counted by type in ``census-<pid>.txt``. Nothing else in
the bot changes: its thresholds and its freeze are its own settings (``PAN_GC_THRESHOLDS``, ``PAN_GC_FREEZE``).
"""

from __future__ import annotations

import os
import sys

if os.environ.get("GCPROBE_DIR") and any(arg.endswith("bot.py") for arg in sys.argv[:2]):
    import collections
    import gc
    import threading
    import time
    from pathlib import Path
    from typing import Any

    _folder = Path(os.environ["GCPROBE_DIR"])
    _folder.mkdir(parents=True, exist_ok=True)
    _log = (_folder / f"gc-{os.getpid()}.txt").open("a", buffering=1)
    _born = time.monotonic()
    _started = [0.0]
    _census_after = float(os.environ.get("GCPROBE_CENSUS_AFTER") or "inf")
    _census_done = [False]

    def _counted(objects: list[Any]) -> str:
        counts = collections.Counter(repr(type(o)) for o in objects)
        return "".join(f"{n} {kind}\n" for kind, n in counts.most_common(60))

    def _pause(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            _started[0] = time.monotonic()
            return
        took = time.monotonic() - _started[0]
        if took >= 0.003 or info["generation"] == 2:
            _log.write(f"{_started[0]:.4f} {took * 1000:.1f} {info['generation']} {info['collected']}\n")
        if info["generation"] == 2 and not _census_done[0] and time.monotonic() - _born > _census_after:
            _census_done[0] = True
            objects = gc.get_objects()
            text = f"total {len(objects)} frozen {gc.get_freeze_count()}\n" + _counted(objects)
            (_folder / f"census-{os.getpid()}.txt").write_text(text)

    gc.callbacks.append(_pause)

    if os.environ.get("GCPROBE_GARBAGE_AFTER"):

        def _garbage() -> None:
            window = float(os.environ.get("GCPROBE_GARBAGE_WINDOW") or "0")
            time.sleep(float(os.environ["GCPROBE_GARBAGE_AFTER"]))
            if window > 0:  # start from an empty heap of garbage, then keep all that the window makes
                gc.collect()
                counts = [0]
                gc.callbacks.append(lambda phase, info: phase == "stop" and counts.__setitem__(0, counts[0] + 1))
            gc.set_debug(gc.DEBUG_SAVEALL)
            time.sleep(window)
            gc.collect()
            gc.set_debug(0)
            head = f"garbage {len(gc.garbage)}"
            if window > 0:
                head += f" in a window of {window:g} s ({counts[0]} collections, the last a full one)"
            text = head + "\n" + _counted(gc.garbage)
            gc.garbage.clear()
            (_folder / f"garbage-{os.getpid()}.txt").write_text(text)

        threading.Thread(target=_garbage, name="gc-probe", daemon=True).start()
