"""The CPU figures the benchmarks print (bench/proc_cpu.py): per action, and the bot against the harness."""

from __future__ import annotations

import os
import time

import pytest

from bench.proc_cpu import TreeCpu, cpu_figures, cpu_line, shares


def test_figures_per_action_and_the_ratio_to_the_harness() -> None:
    figures = cpu_figures(total=0.75, main=0.45, actions=150, harness=0.27)
    assert figures["bot_cpu_ms_per_action"] == 5.0
    assert figures["bot_main_cpu_ms_per_action"] == 3.0
    assert figures["bot_render_cpu_ms_per_action"] == 2.0
    assert figures["actions_per_core_s"] == 200.0
    assert figures["harness_cpu_ms_per_action"] == 1.8
    assert figures["bot_per_harness"] == pytest.approx(2.78)
    line = cpu_line(figures)
    assert "bot CPU per action 5.0 ms (main 3.0, render workers 2.0)" in line
    assert line.endswith("harness 1.8 ms per action (bot / harness 2.78)")


def test_no_actions_and_no_harness_time() -> None:
    assert (
        cpu_line(cpu_figures(total=1.0, main=1.0, actions=0, harness=1.0)) == "bot CPU per action: no actions counted"
    )
    assert cpu_figures(total=1.0, main=1.0, actions=10, harness=0.0)["bot_per_harness"] is None


def test_tree_cpu_counts_this_process() -> None:
    meter = TreeCpu.start([os.getpid()])
    spent = time.process_time()
    while time.process_time() < spent + 0.3:
        pass
    spent = time.process_time() - spent
    total, main = meter.stop()
    # /proc counts in clock ticks (10 ms) and splits user from system time by sampling: within a few ticks
    assert spent - 0.05 <= main <= total
    assert main <= spent + 0.1


def test_each_process_s_cpu_and_the_shares() -> None:
    meter = TreeCpu.start([os.getpid()])
    spent = time.process_time()
    while time.process_time() < spent + 0.2:
        pass
    by_process = meter.by_process()
    assert set(by_process) >= {os.getpid()} and by_process[os.getpid()] >= 0.15
    assert shares([0.1, 0.9, 0.0]) == [90, 10, 0]
    assert shares([]) == [] and shares([0.0, 0.0]) == []
