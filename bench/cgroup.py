"""A CPU quota for one benchmark process tree, with a cgroup v1 (Linux, run as root): how a bigger machine sees it.

The benchmark machine has 2 cores, shared by the bots, their render workers, PostgreSQL and the benchmark's own
players and fake Discord. To measure how throughput scales with processes the way a machine with a core per
process would, each bot process (and the render workers it forks, which inherit its cgroup) gets the same
fraction of a core: ``cpu.cfs_quota_us`` microseconds of CPU every ``cpu.cfs_period_us``. Whatever runs outside
the quota (players, fake, database) does not count against it. The ``cpuacct`` controller beside it says how much
CPU the tree used; ``cpu.stat`` how often the kernel throttled it.

    quota = CpuQuota.create("pan-bench-0", cores=0.4)
    quota.add(process.pid)          # before the process forks its render workers
    ... quota.usage() ... quota.throttled() ...
    quota.remove()                  # moves any process left to the root cgroup, then removes the folders
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PERIOD_US = 100_000


def available() -> str | None:
    """None if cgroup v1 ``cpu`` and ``cpuacct`` hierarchies can be used here, else why not."""
    for controller in ("cpu", "cpuacct"):
        folder = ROOT / controller
        if not (folder / "cgroup.procs").exists():
            return f"no cgroup v1 {controller} hierarchy at {folder}"
    if not (ROOT / "cpu" / "cpu.cfs_quota_us").exists():
        return "the cpu controller has no cfs_quota_us (CONFIG_CFS_BANDWIDTH)"
    return None


@dataclass
class CpuQuota:
    name: str
    cores: float

    @property
    def cpu(self) -> Path:
        return ROOT / "cpu" / self.name

    @property
    def acct(self) -> Path:
        return ROOT / "cpuacct" / self.name

    @classmethod
    def create(cls, name: str, cores: float) -> CpuQuota:
        quota = cls(name, cores)
        for folder in (quota.cpu, quota.acct):
            folder.mkdir(exist_ok=True)
        (quota.cpu / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (quota.cpu / "cpu.cfs_quota_us").write_text(str(max(1000, int(cores * PERIOD_US))))
        return quota

    def add(self, pid: int) -> None:
        """Put ``pid`` in the quota (its later children are born in it)."""
        for folder in (self.cpu, self.acct):
            (folder / "cgroup.procs").write_text(str(pid))

    def usage(self) -> float:
        """CPU seconds used by every process that was in the group while it was there."""
        return int((self.acct / "cpuacct.usage").read_text()) / 1e9

    def throttled(self) -> tuple[int, int, float]:
        """(periods, periods throttled, seconds throttled) since the group was made."""
        stat = dict(line.split() for line in (self.cpu / "cpu.stat").read_text().splitlines() if line.strip())
        return int(stat["nr_periods"]), int(stat["nr_throttled"]), int(stat["throttled_time"]) / 1e9

    def remove(self) -> None:
        for folder in (self.cpu, self.acct):
            if not folder.exists():
                continue
            for pid in (folder / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):  # gone meanwhile
                    (folder.parent / "cgroup.procs").write_text(pid)
            with contextlib.suppress(OSError):
                folder.rmdir()
