"""A throw-away PostgreSQL server for the tests and benchmarks (Debian's ``postgresql`` package).

``scripts/test`` installs the package when it is missing. The server runs from a fresh data directory in a
temp folder, listens only on a Unix socket in that folder (no TCP port), with ``fsync=off`` (its data is
thrown away) and is stopped with its folder at the end. The server refuses to run as root, so under root
``initdb`` / ``pg_ctl`` run as the ``postgres`` user (``runuser``). With ``listen`` it also takes TCP connections on
that address from the ``allow`` network (the multi-host test: hosts in network namespaces reach it over a bridge).

pytest (``tests/support/pgplugin.py``): the controller process picks the folder; the first test that needs the
server starts it (under a file lock, so 4 xdist workers share one server); each worker gets its own
database and each test its own schema. ``PAN_TEST_DATABASE_URL`` uses an existing server instead.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["PostgresUnavailable", "TempPostgres", "find_bindir"]

SETTINGS = {"listen_addresses": "''", "max_connections": "300", "shared_buffers": "64MB"}
NOT_DURABLE = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}  # tests: data is thrown away


class PostgresUnavailable(RuntimeError):
    """PostgreSQL could not be found or started; the message says why and what to do."""


def find_bindir() -> Path:
    """The folder of ``initdb`` / ``pg_ctl``: ``$PAN_PG_BINDIR``, the ``PATH``, or the newest Debian version."""
    if os.environ.get("PAN_PG_BINDIR"):
        return Path(os.environ["PAN_PG_BINDIR"])
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).resolve().parent
    candidates = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: [int(n) for n in re.findall(r"\d+", p.parent.parent.name)],
    )
    if not candidates:
        raise PostgresUnavailable(
            "PostgreSQL is not installed: no initdb on PATH or in /usr/lib/postgresql/*/bin. "
            "Run scripts/test (it installs Debian's postgresql package) or `apt-get install postgresql`, "
            "or point PAN_TEST_DATABASE_URL at a server."
        )
    return candidates[-1].parent


class TempPostgres:
    """A server living in ``root`` (``root/data``, socket in ``root``). :meth:`start` is idempotent across processes."""

    def __init__(
        self, root: Path, *, durable: bool = False, listen: str | None = None, allow: str | None = None
    ) -> None:
        self.root = root
        self.durable = durable  # True (benchmarks): PostgreSQL's default fsync / synchronous_commit
        self.listen = listen  # also a TCP port (5432) on this address (tests of several hosts; no password: trust)
        self.allow = allow  # the network (CIDR) whose clients may connect over TCP
        self.data = root / "data"
        self.log = root / "server.log"

    @property
    def as_root(self) -> bool:
        return os.geteuid() == 0

    def url(self, database: str = "postgres") -> str:
        if self.listen is not None:
            return f"postgresql://postgres@{self.listen}:5432/{database}"
        return f"postgresql://postgres@/{database}?host={self.root}"

    def _run(self, *args: str) -> None:
        command = list(args)
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise PostgresUnavailable(
                f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}\n{log}"
            )

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists() and (self.root / ".s.PGSQL.5432").exists()

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / "lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self.running():
                return
            bindir = find_bindir()
            if self.as_root:
                try:
                    shutil.chown(self.root, "postgres", "postgres")
                except (LookupError, PermissionError) as exc:
                    raise PostgresUnavailable(f"cannot hand {self.root} to the postgres user: {exc}") from exc
            self.root.chmod(0o755)
            if not self.data.exists():
                self._run(str(bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "-N", "-E",
                          "UTF8", "--locale=C")  # fmt: skip
                if self.allow is not None:
                    with (self.data / "pg_hba.conf").open("a") as hba:
                        hba.write(f"host all all {self.allow} trust\n")
            settings = SETTINGS if self.durable else SETTINGS | NOT_DURABLE
            if self.listen is not None:
                settings = settings | {"listen_addresses": self.listen}
            options = " ".join(f"-c {name}={value}" for name, value in settings.items())
            self._run(str(bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                      "-o", f"-k {self.root} {options}", "start")  # fmt: skip

    def stop(self) -> None:
        """Stop the server (if running) and delete its folder."""
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(PostgresUnavailable):
                self._run(str(find_bindir() / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    @classmethod
    def in_new_folder(
        cls, *, durable: bool = False, listen: str | None = None, allow: str | None = None
    ) -> TempPostgres:
        # A short path: the socket path (folder + "/.s.PGSQL.5432") must stay under 107 bytes.
        root = Path(tempfile.mkdtemp(prefix="pan-pg-", dir="/tmp"))
        return cls(root, durable=durable, listen=listen, allow=allow)
