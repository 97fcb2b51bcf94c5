"""The one-host cluster launcher: M bot processes, process k owning shards k, k+M, …, restarted if they die.

``python -m pancog.infra.cluster --shards 4 --processes 2`` (or ``scripts/cluster``) runs
``python bot.py --shards 4 --cluster k/2`` for k = 0..M-1 and supervises them:

- a process that exits (crash, SIGKILL, out of memory) is started again after a back-off (0.5 s doubling to
  30 s; reset once it has stayed up for a minute); its tables resume from the log and snapshots as after any
  restart, and the shard lease it takes on start-up (``epoch`` + 1) fences off anything the dead one left;
- SIGTERM/SIGINT to the launcher stops every process (SIGTERM, then SIGKILL after a grace period) and exits.

Every process talks to the same PostgreSQL (``DATABASE_URL``); a guild lives on one shard, so each table is
owned by exactly one process. It never imports discord (it only starts processes).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pancog.infra.config import Config, ConfigError, environment

__all__ = ["Launcher", "ProcessSpec", "main", "parse_cluster", "pod_ordinal", "shard_range"]

log = logging.getLogger("pan.cluster")

ROOT = Path(__file__).resolve().parents[2]
BACKOFF_START = 0.5
BACKOFF_MAX = 30.0
STABLE_AFTER = 60.0  # a process up this long has its back-off reset
STOP_GRACE = 10.0


def shard_range(index: int, processes: int, shards: int) -> list[int]:
    """The shard ids of process ``index`` of ``processes``: ``k, k+M, k+2M, …`` (every shard in exactly one set).

    Strided rather than contiguous: with M = the gateway's ``max_concurrency`` (or a divisor of it) each process's
    shards share one IDENTIFY bucket and different processes never do, and adding shards keeps every process's share
    even.

    >>> [shard_range(k, 3, 8) for k in range(3)]
    [[0, 3, 6], [1, 4, 7], [2, 5]]
    """
    if not 0 <= index < processes:
        raise ValueError(f"process index {index} is not in 0..{processes - 1}")
    if shards < processes:
        raise ValueError(f"{shards} shards cannot be split over {processes} processes")
    return list(range(index, shards, processes))


def pod_ordinal(name: str) -> int:
    """The ordinal of a StatefulSet pod from its name (``pan-3`` → 3: Kubernetes names pods ``<set>-<ordinal>``)."""
    _, dash, tail = name.rpartition("-")
    if not dash or not tail.isdigit():
        raise ValueError(f"--cluster pod/M: the pod name {name!r} does not end in -<ordinal> (set POD_NAME)")
    return int(tail)


def parse_cluster(text: str, pod_name: str | None = None) -> tuple[int, int]:
    """``"k/M"`` → ``(k, M)`` with 0 <= k < M. ``"pod/M"``: k is the StatefulSet ordinal of ``pod_name``
    (``Config.pod_name``: ``POD_NAME``, else ``HOSTNAME``, which Kubernetes sets to the pod name)."""
    left, sep, right = text.partition("/")
    if left == "pod":
        left = str(pod_ordinal(pod_name or ""))
    try:
        index, count = int(left), int(right)
    except ValueError:
        raise ValueError(f"--cluster wants k/M such as 0/2, not {text!r}") from None
    if not sep or count < 1 or not 0 <= index < count:
        raise ValueError(f"--cluster wants k/M with 0 <= k < M, not {text!r}")
    return index, count


@dataclasses.dataclass(slots=True)
class ProcessSpec:
    """One supervised bot process and its restart bookkeeping."""

    index: int
    argv: list[str]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    restarts: int = 0
    backoff: float = BACKOFF_START
    next_start: float = 0.0


class Launcher:
    """Starts the M processes and keeps them running (see the module docstring).

    ``spawn`` is injectable so tests can supervise any command (e.g. ``python -c``); by default it is
    ``subprocess.Popen`` with the launcher's environment."""

    def __init__(
        self,
        shards: int,
        processes: int,
        *,
        python: str = sys.executable,
        bot: Path = ROOT / "bot.py",
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        spawn: Callable[[list[str], Mapping[str, str]], subprocess.Popen[bytes]] | None = None,
        argv_for: Callable[[int], list[str]] | None = None,
    ) -> None:
        for k in range(processes):
            shard_range(k, processes, shards)  # validates
        self.shards, self.count = shards, processes
        self.env = dict(env) if env is not None else environment()
        self._spawn = spawn or (lambda argv, env: subprocess.Popen(argv, env=dict(env)))  # noqa: S603
        make_argv = argv_for or (
            lambda k: [python, str(bot), "--shards", str(shards), "--cluster", f"{k}/{processes}", *extra_args]
        )
        self.specs = [ProcessSpec(index=k, argv=make_argv(k)) for k in range(processes)]
        self.stopping = False

    def start(self) -> None:
        for spec in self.specs:
            self._start(spec)

    def _start(self, spec: ProcessSpec) -> None:
        env = dict(self.env)
        env["PAN_CLUSTER_INDEX"] = str(spec.index)
        spec.process = self._spawn(spec.argv, env)
        spec.started_at = time.monotonic()
        log.info(
            "process %d/%d started (pid %d, shards %s)",
            spec.index,
            self.count,
            spec.process.pid,
            shard_range(spec.index, self.count, self.shards),
        )

    def poll(self, now: float | None = None) -> list[int]:
        """Restart what has died (after its back-off). Returns the indexes started again in this call."""
        now = time.monotonic() if now is None else now
        restarted: list[int] = []
        for spec in self.specs:
            process = spec.process
            if self.stopping:
                break
            if process is not None and process.poll() is None:
                if now - spec.started_at >= STABLE_AFTER:
                    spec.backoff = BACKOFF_START
                continue
            if process is not None:  # it just died: schedule the restart
                log.warning(
                    "process %d/%d (pid %d) exited with %s; restarting in %.1f s",
                    spec.index,
                    self.count,
                    process.pid,
                    process.returncode,
                    spec.backoff,
                )
                spec.process = None
                spec.next_start = now + spec.backoff
                spec.backoff = min(BACKOFF_MAX, spec.backoff * 2)
            if now >= spec.next_start:
                spec.restarts += 1
                self._start(spec)
                restarted.append(spec.index)
        return restarted

    def stop(self, grace: float = STOP_GRACE) -> None:
        """SIGTERM every process, SIGKILL what is still running after ``grace`` seconds."""
        self.stopping = True
        live = [s.process for s in self.specs if s.process is not None and s.process.poll() is None]
        for process in live:
            process.terminate()
        deadline = time.monotonic() + grace
        for process in live:
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def run(self, interval: float = 0.2) -> int:
        """Start everything and supervise until SIGTERM/SIGINT."""

        def on_signal(signum: int, _frame: object) -> None:
            log.info("signal %d: stopping the cluster", signum)
            self.stopping = True

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        self.start()
        while not self.stopping:
            self.poll()
            time.sleep(interval)
        self.stop()
        return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/cluster", description=__doc__.split("\n\n")[0])
    parser.add_argument("--shards", type=int, required=True, help="total shard count N")
    parser.add_argument("--processes", type=int, required=True, help="bot processes M (each gets N/M shards)")
    args, extra = parser.parse_known_args(argv)
    try:
        config = Config.from_env()
    except ConfigError as exc:
        parser.error(str(exc))
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(name)s %(message)s")
    if not config.database_url:
        log.warning("DATABASE_URL is not set: every process would open its own SQLite file; use PostgreSQL")
    try:
        launcher = Launcher(args.shards, args.processes, extra_args=extra)
    except ValueError as exc:
        parser.error(str(exc))
    return launcher.run()


if __name__ == "__main__":
    sys.exit(main())
