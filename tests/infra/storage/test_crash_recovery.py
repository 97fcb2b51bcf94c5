"""SIGKILL a simulated session at 22 random moments; after each restart the books and logs must be exact.

The driver (tests/infra/storage/crash_driver.py) derives every posting from its action text, so this test
recomputes every expected balance from the durable logs alone and compares it with the ledger.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from pancog.infra.storage import Account, AccountKind, storage_for
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from tests.infra.storage.crash_driver import GUILD, postings_for, replay

ROOT = Path(__file__).resolve().parents[3]
DRIVER = "tests.infra.storage.crash_driver"  # run as a module from the repository root
KILLS = 22
MIN_COMMITS = 5


def run_and_kill(db: str, seed: int, rng: random.Random) -> list[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", DRIVER, db, str(seed)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    # Read past "ready" and a random number of commits, then kill a few ms later: every kill lands in the middle
    # of the session loop (often mid-transaction), however slow a loaded machine makes the driver.
    commits_before_kill = rng.randint(MIN_COMMITS, 3 * MIN_COMMITS)
    deadline = time.monotonic() + 60
    while sum(line.startswith("ok ") for line in lines) < commits_before_kill and time.monotonic() < deadline:
        line = proc.stdout.readline()
        assert line, f"driver died: {proc.stderr.read() if proc.stderr else ''}"
        lines.append(line.strip())
    time.sleep(rng.uniform(0, 0.02))
    os.kill(proc.pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == -signal.SIGKILL, err
    return lines + out.splitlines()


async def check_books(db: str) -> tuple[dict[int, int], dict[int, int]]:
    """Audit, contiguity and recomputation from the logs; returns ({open table: last seq}, {table: last seq})."""
    async with storage_for(db) as storage:
        ledger, store = ChipLedger(storage), TableStore(storage)
        report = await ledger.audit()
        assert report.ok, report.summary()
        table_rows = await storage.fetch("SELECT table_id, status, last_seq FROM tables")
        accounts = {
            Account.parse(key): balance for key, balance in await storage.fetch("SELECT key, balance FROM accounts")
        }
        starts = {
            int(k.split(":")[2])
            for (k,) in await storage.fetch("SELECT idem_key FROM journals WHERE idem_key LIKE 'start:%'")
        }
        expected: dict[Account, int] = defaultdict(int)
        for user in starts:
            expected[Account.bank(GUILD, user)] += 1000
        open_seqs: dict[int, int] = {}
        all_seqs: dict[int, int] = {}
        for table_id, status, last_seq in table_rows:
            all_seqs[table_id] = last_seq
            log = await store.read_log(table_id)
            assert [seq for seq, _, _ in log] == list(range(1, last_seq + 1)), f"table {table_id} log has a gap"
            actions = [action for _, action, _ in log]
            for action in actions:  # bank side of every sit
                for posting in postings_for(table_id, action):
                    if posting.account.kind is AccountKind.BANK:
                        expected[posting.account] += posting.delta
            final = replay(table_id, actions)
            assert min(final.values(), default=0) >= 0
            if status == "open":
                open_seqs[table_id] = last_seq
                for account, amount in final.items():
                    expected[account] += amount
            else:  # closed: every stack went back to its bank, leftover tops back to issued
                for account, amount in final.items():
                    if account.kind is AccountKind.STACK and account.user_id is not None:
                        expected[Account.bank(GUILD, account.user_id)] += amount
        actual = {a: b for a, b in accounts.items() if a.kind is not AccountKind.ISSUED and b != 0}
        assert actual == {a: b for a, b in expected.items() if b != 0}
        return open_seqs, all_seqs


async def wait_backend_gone(db: str, name: str) -> None:
    """PostgreSQL: the killed driver's server backend may still be finishing a COMMIT the driver had sent (durable,
    just not acknowledged); it becomes visible to others when the backend is done with it. So the books are read
    once that backend has exited (a state, polled), not when the client process is gone."""
    async with storage_for(db) as storage:
        deadline = time.monotonic() + 30
        while (await storage.fetch("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", name))[0][0]:
            assert time.monotonic() < deadline, f"the killed driver's backend {name} did not exit"
            await asyncio.sleep(0.01)


def test_sigkill_at_random_points_loses_nothing_and_pays_nothing_twice(database: str) -> None:
    db = database  # SQLite: the killed process's WAL is recovered; PostgreSQL: the server rolls its transaction back
    postgres = db.startswith("postgres")
    rng = random.Random(2026)
    previous: dict[int, int] = {}
    committed_total = 0
    for run in range(KILLS):
        name = f"pan-crash-{os.getpid()}-{run}"  # the driver's connections, found in pg_stat_activity by this name
        lines = run_and_kill(f"{db}&application_name={name}" if postgres else db, seed=run, rng=rng)
        if postgres:
            asyncio.run(wait_backend_gone(db, name))
        resumed = {int(t): int(s) for kind, t, s in (line.split() for line in lines if line.startswith("resume"))}
        assert resumed == previous, "a table did not resume at its last committed action"
        # start-up work stays bounded (counted, not timed): the driver keeps at most 3 tables open, so a restart
        # resumes at most 3, each retrying at most its one last action
        retries = [line for line in lines if line.startswith("retry")]
        assert len(resumed) <= 3 and len(retries) <= len(resumed), (resumed, retries)
        assert all(line.endswith("False") for line in retries), retries
        open_seqs, all_seqs = asyncio.run(check_books(db))
        committed: dict[int, int] = {}
        for line in lines:
            if line.startswith("ok "):
                _, table_id, seq = line.split()
                committed[int(table_id)] = int(seq)
        closed = {int(line.split()[1]) for line in lines if line.startswith("closed")}
        assert not closed & set(open_seqs), "a table reported closed is open again"
        for table_id, seq in committed.items():  # everything reported committed is durable
            assert all_seqs.get(table_id, -1) >= seq, f"table {table_id} lost action {seq}"
        committed_total += len([line for line in lines if line.startswith("ok ")])
        previous = open_seqs
    assert committed_total >= KILLS * MIN_COMMITS, "the driver barely ran; the kills did not land mid-session"
