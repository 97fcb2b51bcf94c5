"""The render-job dump of bench/render_dump (a ``sitecustomize`` on the bot's ``PYTHONPATH``) and its reader in
bench/board_parts.py: what a render worker reads through ``read_frame`` lands in ``$RENDER_DUMP.<pid>``, and the reader
gives back the jobs, in order, and skips the frames that are not jobs (the bot's process reads its workers' "ready"
frames through the same function); each job's CPU time in the worker lands in ``$RENDER_DUMP-cpu.<pid>``, one line per
job in the dump's order, and is laid beside the same jobs replayed."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from bench.board_parts import bot_times, in_bot_and_replayed, in_order, jobs
from renderer.table import render_table_png

ROOT = Path(__file__).resolve().parent.parent

WORKER = """
import pickle, socket, sys
from pancog.infra.renderq import workers
from renderer.table import render_table_png
from renderer.samples import sample_table
ours, theirs = socket.socketpair()
workers.send_frame(ours, pickle.dumps(("ready", 1)))
workers.send_frame(ours, pickle.dumps((render_table_png, sample_table(4, 2))))
workers.send_frame(ours, pickle.dumps((render_table_png, sample_table(2, 0))))
for _ in range(3):
    frame = workers.read_frame(theirs)
    value = workers.pickle.loads(frame)  # as the worker's loop unpickles a job
    if value[0] != "ready":
        fn, snapshot = value
        assert fn(snapshot).startswith(b"\\x89PNG")
print(workers.read_frame.__module__)
"""


def run_worker(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``WORKER`` in a fresh interpreter with the project importable, ``env`` its whole environment."""
    argv = [sys.executable, "-c", "import sys; sys.path.insert(1, sys.argv[1]); exec(sys.argv[2])", str(ROOT), WORKER]
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=60, check=False)


def test_the_dump_holds_every_job_a_worker_read_and_the_reader_gives_them_back(tmp_path: Path) -> None:
    dump = tmp_path / "renders"
    env = dict(os.environ, RENDER_DUMP=str(dump), PYTHONPATH=str(ROOT / "bench" / "render_dump"))
    done = run_worker(env, ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "sitecustomize"  # read_frame is the dump's wrapper
    files = list(tmp_path.glob("renders.*"))
    assert len(files) == 1
    found = list(jobs(files))
    assert [fn for fn, _ in found] == [render_table_png, render_table_png]
    assert [len(snapshot.seats) for _, snapshot in found] == [4, 2]
    timed = bot_times(files[0])  # renders-cpu.<pid>, beside the dump, one line per job
    assert (tmp_path / files[0].name.replace("renders.", "renders-cpu.")).exists()
    assert [name for name, _ in timed] == ["render_table_png", "render_table_png"]
    assert all(ms > 0 for _, ms in timed)
    ((name, n, in_bot, replayed),) = in_bot_and_replayed(files, warm=0)
    assert (name, n) == ("render_table_png", 2)
    assert in_bot == sum(ms for _, ms in timed) / 2
    assert replayed > 0
    assert in_bot_and_replayed(files, warm=2) == []  # every job left out as warm-up: nothing to compare
    # as the worker ran them: in order, cold, a gap before each; the second half compared (here the second job)
    ((name, n, in_bot, replayed),) = in_order(files[0], gap_ms=1.0, burst=1)
    assert (name, n, in_bot) == ("render_table_png", 1, timed[1][1])
    assert replayed > 0


def test_times_and_jobs_that_do_not_pair_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "renders.5"
    frame = pickle.dumps((render_table_png, "a snapshot"))
    path.write_bytes(len(frame).to_bytes(4, "little") + frame)
    (tmp_path / "renders-cpu.5").write_text("render_table_png 1.5\nrender_table_png 2.0\n")
    assert bot_times(path) == [("render_table_png", 1.5), ("render_table_png", 2.0)]
    with pytest.raises(SystemExit, match="1 jobs but 2 times"):
        in_bot_and_replayed([path], warm=0)
    assert bot_times(tmp_path / "renders.6") == []  # no times file: no comparison


def test_without_the_variable_nothing_is_wrapped(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "RENDER_DUMP"}
    env["PYTHONPATH"] = str(ROOT / "bench" / "render_dump")
    done = run_worker(env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pancog.infra.renderq.workers"
    assert list(tmp_path.iterdir()) == []


def test_the_reader_skips_frames_that_are_not_jobs(tmp_path: Path) -> None:
    path = tmp_path / "renders.1"
    frames = [pickle.dumps(("ready", 7)), pickle.dumps((render_table_png, "a snapshot")), pickle.dumps(None)]
    path.write_bytes(b"".join(len(f).to_bytes(4, "little") + f for f in frames))
    assert list(jobs([path])) == [(render_table_png, "a snapshot")]
