"""A small network of "hosts" for the multi-host tests: each host a Linux network namespace of its own.

The namespaces hang off one bridge in the test's own namespace, which holds the network's first address: the
shared services (the fake Discord, a PostgreSQL server of the test's own) listen there, and each host reaches them
over its own network stack and link, as separate machines on a LAN do. A host's processes are started under
``ip netns exec`` (:meth:`Network.command`), its link can be cut and mended (:meth:`Network.cut`, a partition),
and its loopback is its own (two hosts may use the same port).

It needs root (CAP_NET_ADMIN / CAP_SYS_ADMIN) and iproute2's ``ip`` (``scripts/test`` installs Debian's ``iproute2``
where it is missing and it runs as root). :func:`unavailable` says why a machine cannot, so that a test can fall back
to separate process groups on the loopback (the issue's "where the machine allows it") and say so in its output.

Names carry the test process's id, so parallel workers never meet; :func:`sweep` removes what a killed run left.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

__all__ = ["Network", "sweep", "unavailable"]

PREFIX = "pan"  # bridge pan<pid>b, namespaces pan<pid>h<i>, root-side links pan<pid>v<i>


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, check=False, timeout=30)
    if check and done.returncode != 0:
        raise OSError(f"ip {' '.join(args)}: {done.stderr.strip() or done.returncode}")
    return done


def unavailable() -> str | None:
    """Why network namespaces cannot be used here, or None when they can (a throw-away namespace is made).
    ``PAN_TEST_NETNS=off`` asks for the fallback (to run it where namespaces work)."""
    if os.environ.get("PAN_TEST_NETNS") == "off":
        return "PAN_TEST_NETNS=off"
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not installed"
    if os.geteuid() != 0:
        return "not root (network namespaces need CAP_NET_ADMIN)"
    probe = f"{PREFIX}{os.getpid()}p"  # everything the network needs, tried once: a namespace, a process in it,
    try:  # a bridge and a veth pair into the namespace (a sandbox may allow some and not others)
        _ip("netns", "add", probe)
        done = subprocess.run(["ip", "netns", "exec", probe, "true"], capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            raise OSError(f"ip netns exec: {done.stderr.strip() or done.returncode}")
        _ip("link", "add", f"{probe}b", "type", "bridge")
        _ip("link", "add", f"{probe}v", "type", "veth", "peer", "name", "eth0", "netns", probe)
    except OSError as exc:
        return f"cannot make a network of namespaces here: {exc}"
    finally:
        _ip("link", "del", f"{probe}v", check=False)
        _ip("link", "del", f"{probe}b", check=False)
        _ip("netns", "del", probe, check=False)
    return None


def sweep() -> None:
    """Remove namespaces and links of earlier runs whose process is gone (a run killed before its cleanup)."""
    names = _ip("netns", "list", check=False).stdout.split()
    links = re.findall(r"^\d+: ([^:@]+)", _ip("-o", "link", "show", check=False).stdout, flags=re.MULTILINE)
    for name in [*names, *links]:
        found = re.fullmatch(rf"{PREFIX}(\d+)(?:[bhv]\d*|p[bv]?)", name)
        if found is None or _alive(int(found.group(1))):
            continue
        if name in names:
            _ip("netns", "del", name, check=False)
        else:
            _ip("link", "del", name, check=False)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class Network:
    """A bridge at ``<subnet>.1`` and one namespace per host at ``<subnet>.2``, ``.3``, …; :meth:`close` removes all."""

    hosts: list[str]
    tag: str = field(default_factory=lambda: f"{PREFIX}{os.getpid()}")
    subnet: str = ""
    namespaces: dict[str, str] = field(default_factory=dict)  # host -> namespace
    links: dict[str, str] = field(default_factory=dict)  # host -> its link's end in the test's namespace
    addresses: dict[str, str] = field(default_factory=dict)  # host -> its address

    def __post_init__(self) -> None:
        if not self.subnet:  # 10.200-249.x.0/24 from the process id: parallel workers get different networks
            pid = os.getpid()
            self.subnet = f"10.{200 + pid % 50}.{pid // 50 % 256}"

    @property
    def bridge(self) -> str:
        return f"{self.tag}b"

    @property
    def address(self) -> str:
        """Where the shared services listen (the test's own namespace, on the bridge)."""
        return f"{self.subnet}.1"

    @property
    def cidr(self) -> str:
        return f"{self.subnet}.0/24"

    def create(self) -> Network:
        sweep()
        try:
            _ip("link", "add", self.bridge, "type", "bridge")
            _ip("addr", "add", f"{self.address}/24", "dev", self.bridge)
            _ip("link", "set", self.bridge, "up")
            for i, host in enumerate(self.hosts):
                ns, link, address = f"{self.tag}h{i}", f"{self.tag}v{i}", f"{self.subnet}.{i + 2}"
                _ip("netns", "add", ns)
                self.namespaces[host] = ns
                _ip("link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", ns)
                self.links[host] = link
                self.addresses[host] = address
                _ip("link", "set", link, "master", self.bridge, "up")
                _ip("-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")
                _ip("-n", ns, "link", "set", "eth0", "up")
                _ip("-n", ns, "link", "set", "lo", "up")
        except BaseException:
            self.close()
            raise
        return self

    def command(self, host: str, argv: list[str]) -> list[str]:
        """``argv`` run on ``host`` (``ip netns exec`` execs it: the process keeps the pid it was started with)."""
        return ["ip", "netns", "exec", self.namespaces[host], *argv]

    def cut(self, host: str) -> None:
        """Partition ``host``: its link goes down (its packets are lost, its connections stay open and stall)."""
        _ip("link", "set", self.links[host], "down")

    def mend(self, host: str) -> None:
        _ip("link", "set", self.links[host], "up", "master", self.bridge)

    def close(self) -> None:
        for ns in self.namespaces.values():
            with contextlib.suppress(OSError):
                _ip("netns", "del", ns)  # its end of the veth goes with it, and the pair with that
        for link in self.links.values():
            _ip("link", "del", link, check=False)  # already gone unless the namespace was not
        _ip("link", "del", self.bridge, check=False)
        self.namespaces.clear()
        self.links.clear()
