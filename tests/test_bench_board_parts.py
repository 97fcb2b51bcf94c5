"""The render-job dump of bench/render_dump (a ``sitecustomize`` on the bot's ``PYTHONPATH``) and its reader in
bench/board_parts.py: what a render worker reads through ``read_frame`` lands in ``$RENDER_DUMP.<pid>``, and the reader
gives back the jobs, in order, and skips the frames that are not jobs (the bot's process reads its workers' "ready"
frames through the same function)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

from bench.board_parts import jobs
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
    workers.read_frame(theirs)
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
