"""CPU time of a process tree, read from ``/proc`` (Linux): the bot's own cost per action, robust to a shared machine.

Wall-clock throughput on a machine shared with other jobs (or with the benchmark's own players and fake Discord)
says how much CPU the bot *got*; CPU seconds per action say what it *needs*. `TreeCpu` samples a root process
and all its live descendants (the bot, its render forkserver and the render workers forked from it): the CPU used
between two samples is the sum, over every process alive at the second sample, of its user + system time minus
what it had at the first sample (zero for a process born in between). A process that exits between the two samples
loses only its last share (render workers live as long as the bot; a worker replaced mid-window is the exception).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, user + system CPU seconds) of ``pid``, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) ", which may contain spaces
    # fields[0] is the state (field 3); ppid is field 4, utime 14, stime 15 (man proc)
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK


def tree_times(roots: Iterable[int]) -> dict[int, float]:
    """CPU seconds of every live process in the trees under ``roots`` (roots included), by pid."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None:
                parents[int(entry)], cpu[int(entry)] = st
    wanted = {r for r in roots if r in cpu}
    grew = True
    while grew:
        more = {pid for pid, ppid in parents.items() if ppid in wanted and pid not in wanted}
        wanted |= more
        grew = bool(more)
    return {pid: cpu[pid] for pid in wanted}


@dataclass
class TreeCpu:
    """CPU seconds used by process trees between `start` and `stop` (see the module docstring)."""

    before: dict[int, float]
    roots: tuple[int, ...]
    main_before: float = 0.0

    @classmethod
    def start(cls, roots: Iterable[int]) -> TreeCpu:
        roots = tuple(roots)
        before = tree_times(roots)
        return cls(before, roots, sum(before.get(r, 0.0) for r in roots))

    def by_process(self) -> dict[int, float]:
        """CPU seconds of each process alive in the trees now, since `start` (one born since: all of its own)."""
        return {pid: t - self.before.get(pid, 0.0) for pid, t in tree_times(self.roots).items()}

    def stop(self) -> tuple[float, float]:
        """(CPU seconds of the whole trees, of the root processes alone) since `start`."""
        after = tree_times(self.roots)
        total = sum(t - self.before.get(pid, 0.0) for pid, t in after.items())
        main = sum(after.get(r, 0.0) for r in self.roots) - self.main_before
        return total, main


def cpu_figures(total: float, main: float, actions: int, harness: float) -> dict[str, float | None]:
    """The CPU-per-action figures printed by the benchmarks (milliseconds; actions/s one core would carry)."""
    if actions <= 0:
        return {"bot_cpu_ms_per_action": None}
    return {
        "bot_cpu_ms_per_action": round(1000 * total / actions, 2),
        "bot_main_cpu_ms_per_action": round(1000 * main / actions, 2),
        "bot_render_cpu_ms_per_action": round(1000 * (total - main) / actions, 2),
        "actions_per_core_s": round(actions / total, 1) if total > 0 else None,
        "harness_cpu_ms_per_action": round(1000 * harness / actions, 2),
        # the harness (players and fake Discord) does the same work per action in every run, so its CPU per action
        # is a yardstick of the machine's speed at that moment: the ratio cancels the VM's phase, which moves both
        # by up to a fifth between runs minutes apart (docs/performance.md, "The machine's speed cancels")
        "bot_per_harness": round(total / harness, 2) if harness > 0 else None,
    }


def cpu_line(figures: dict[str, float | None]) -> str:
    if figures.get("bot_cpu_ms_per_action") is None:
        return "bot CPU per action: no actions counted"
    return (
        f"bot CPU per action {figures['bot_cpu_ms_per_action']} ms (main {figures['bot_main_cpu_ms_per_action']}, "
        f"render workers {figures['bot_render_cpu_ms_per_action']}) = {figures['actions_per_core_s']} actions/s "
        f"per core; harness {figures['harness_cpu_ms_per_action']} ms per action (bot / harness "
        f"{figures.get('bot_per_harness')})"
    )


def shares(seconds: Iterable[float]) -> list[int]:
    """Each part's share of the whole, in per cent, largest first (how the render processes split their work)."""
    parts = sorted(seconds, reverse=True)
    whole = sum(parts)
    return [round(100 * p / whole) for p in parts] if whole > 0 else []


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, every core, from /proc/stat: the difference of
    two readings says how much of the machine a window used (1.0 = every core busy)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # user nice system idle iowait irq softirq steal (guest time is inside user)
    return (total - idle) / _TICK, total / _TICK
