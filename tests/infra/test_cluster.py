"""The cluster launcher (pancog/infra/cluster.py): shard ranges, argument parsing, restarts with back-off, stop."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Mapping

import pytest

from pancog.infra import cluster
from pancog.infra.cluster import Launcher, parse_cluster, shard_range


@pytest.mark.parametrize(("processes", "shards"), [(1, 1), (2, 4), (3, 8), (4, 4), (3, 10)])
def test_shard_sets_cover_every_shard_once_and_are_strided(processes: int, shards: int) -> None:
    ranges = [shard_range(k, processes, shards) for k in range(processes)]
    assert sorted(s for r in ranges for s in r) == list(range(shards))
    assert all(r and all(s % processes == k for s in r) for k, r in enumerate(ranges))  # k, k+M, k+2M, ...
    assert max(map(len, ranges)) - min(map(len, ranges)) <= 1


def test_a_pod_ordinal_names_its_cluster_index() -> None:
    assert parse_cluster("pod/4", "pan-3") == (3, 4)
    assert parse_cluster("pod/4", "pan-bot-0") == (0, 4)
    with pytest.raises(ValueError, match="ordinal"):
        parse_cluster("pod/4", "pan")
    with pytest.raises(ValueError, match="ordinal"):
        parse_cluster("pod/4", None)
    with pytest.raises(ValueError, match="k/M"):
        parse_cluster("pod/2", "pan-2")


def test_bad_cluster_arguments_are_refused() -> None:
    assert parse_cluster("1/2") == (1, 2)
    for text in ("2/2", "-1/2", "a/b", "1", "0/0"):
        with pytest.raises(ValueError, match="k/M"):
            parse_cluster(text)
    with pytest.raises(ValueError, match="cannot be split"):
        shard_range(0, 3, 2)


def _sleeper(seconds: float) -> list[str]:
    return [sys.executable, "-c", f"import time; time.sleep({seconds})"]


def test_a_dead_process_is_restarted_after_its_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    envs: list[Mapping[str, str]] = []

    def spawn(argv: list[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
        envs.append(env)
        return subprocess.Popen(argv)

    launcher = Launcher(4, 2, env={}, spawn=spawn, argv_for=lambda k: _sleeper(30))
    launcher.start()
    try:
        assert [e["PAN_CLUSTER_INDEX"] for e in envs] == ["0", "1"]
        victim = launcher.specs[1].process
        assert victim is not None
        victim.kill()
        victim.wait()
        now = time.monotonic()
        assert launcher.poll(now) == [], "not before the back-off"
        assert launcher.specs[1].process is None
        assert launcher.poll(now + cluster.BACKOFF_START + 0.01) == [1]
        replacement = launcher.specs[1].process
        assert replacement is not None and replacement.pid != victim.pid and replacement.poll() is None
        assert launcher.specs[1].restarts == 1
        assert launcher.specs[1].backoff == cluster.BACKOFF_START * 2, "a second crash waits longer"
        assert launcher.specs[0].restarts == 0, "the healthy process is left alone"
    finally:
        launcher.stop(grace=2)
    assert all(s.process is None or s.process.poll() is not None for s in launcher.specs)


def test_stop_kills_what_ignores_sigterm() -> None:
    stubborn = [
        sys.executable,
        "-c",
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('up', flush=True); time.sleep(30)",
    ]
    launcher = Launcher(
        1, 1, env={}, spawn=lambda a, e: subprocess.Popen(a, stdout=subprocess.PIPE), argv_for=lambda k: stubborn
    )
    launcher.start()
    process = launcher.specs[0].process
    assert process is not None and process.stdout is not None
    assert process.stdout.readline() == b"up\n"  # its SIGTERM handler is installed
    launcher.stop(grace=0.3)
    assert process.returncode == -9
    assert launcher.poll() == [], "a stopping launcher restarts nothing"


def test_default_command_runs_bot_py_with_its_shard_range() -> None:
    launcher = Launcher(4, 2, env={}, python="py", spawn=lambda a, e: None)  # type: ignore[arg-type,return-value]
    assert [s.argv[1:] for s in launcher.specs] == [
        [str(cluster.ROOT / "bot.py"), "--shards", "4", "--cluster", "0/2"],
        [str(cluster.ROOT / "bot.py"), "--shards", "4", "--cluster", "1/2"],
    ]
