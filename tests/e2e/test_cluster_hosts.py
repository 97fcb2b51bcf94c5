"""Two hosts, one cluster: host A and host B each run ``bot.py --cluster 0/2`` and ``--cluster 1/2`` (4 shards), every
bot process in a process group of its own, with its own host name in its leases (``PAN_HOST_NAME``); PostgreSQL and
the fake Discord (sharded gateway, counted global limit of 50/s) are shared. Of each pair one process serves and the
other waits as a standby (pancog/infra/coord.py). A table in a guild on every shard is played throughout, while:

1. **kill**: host A (serving every shard) is SIGKILLed; B's standbys take its shards once A's heartbeats are stale,
   and A is started again (its processes now wait as standbys);
2. **hang**: host B (serving now) is SIGSTOPped, and Discord closes its silent gateway sessions; A's standbys take the
   shards once B's heartbeats are stale; B is continued, finds its leases gone, exits and comes back as a standby;
3. **roll**: every serving process gets SIGTERM in turn and is restarted: it drains, hands its leases over at once,
   and each table pauses at most 15 s;
4. **partition** (network namespaces only): host A's link is cut while it serves: B takes every shard, A's processes
   stop serving by themselves while still cut off, and come back as standbys when the link is mended;
5. **blip** (network namespaces only): host B's link is cut for 0.5 s, well under the heartbeat timeout: no lease
   moves and no process exits.

After each, every table plays on, and per move: a move acknowledged to its player is in the table's log exactly
once, a move that failed (its process died or hung under it) at most once, so 0 lost and 0 doubled; the ledger
audit and every table's books balance; the fake saw at most 50 counted requests in any second and answered no 429.

Where the machine allows it (root, iproute2; ``netns.unavailable()`` tries each piece once), each host is a
**network namespace** of its own (tests/support/netns.py): its processes reach the fake Discord and a PostgreSQL
server of this test's own over a bridge, by TCP, with their own network stack and loopback, as separate machines on
a LAN do. Elsewhere the hosts are process groups on the loopback, sharing the run's PostgreSQL server; the output's
first line says which.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pancog.game.actions import AddToMeld, Borrow, Discard, Knock, NewMeld, Pluck, StartHand, TakeOption
from pancog.game.notation import parse_action
from pancog.game.state import TableState
from pancog.infra.cluster import Launcher
from pancog.infra.storage import PostgresStorage, storage_for
from tests.e2e.helpers import bot_env
from tests.e2e.test_cluster_kill import read_tables
from tests.e2e.test_kill_restart import greedy_command
from tests.fakediscord.harness import Harness, InteractionFailed
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.fakediscord.server import FakeDiscord
from tests.support import netns
from tests.support.pgserver import TempPostgres

ROOT = Path(__file__).resolve().parents[2]
SHARDS, PROCESSES = 4, 2
HEARTBEAT, TIMEOUT = 0.5, 3.0  # PAN_HEARTBEAT_SECONDS / PAN_HEARTBEAT_TIMEOUT, short for the test's wall time
LIMIT = 50
MOVE_TIMEOUT = 4.0  # a move unanswered this long failed (its process is dead or hung): the player moves again
PLAYER_MOVES = (Knock, Pluck, TakeOption, NewMeld, AddToMeld, Borrow, Discard)
ROUNDS = 4  # rounds of moves (one per table) played between events
ROLL_PAUSE = 15.0  # the most a table may wait during a rolling restart
BLIP = 0.5  # a network hiccup, well under the heartbeat timeout: must move nothing
TAKEOVER_PAUSE = 40.0  # a kill or a hang: the heartbeat timeout + a poll + start-up, on a loaded 2-core machine


@dataclass
class Host:
    """One "host": a launcher of both cluster indexes, each bot process a process group of its own."""

    name: str
    launcher: Launcher
    logs: list[Path] = field(default_factory=list)
    started: bool = False

    def start(self) -> None:
        self.launcher.start()
        self.started = True

    def poll(self) -> None:
        if self.started:  # a launcher polled before its start would start its processes
            self.launcher.poll()

    def pids(self) -> list[int]:
        return [s.process.pid for s in self.launcher.specs if s.process is not None and s.process.poll() is None]

    def signal(self, sig: signal.Signals) -> None:
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, sig)  # the bot and anything it started


@dataclass
class Site:
    """Where the hosts run: ``network`` (a namespace per host) or, where the machine does not allow it, None."""

    network: netns.Network | None
    database_url: str

    @property
    def address(self) -> str:
        """Where the fake Discord (and the database, with a network) listen."""
        return "127.0.0.1" if self.network is None else self.network.address


@pytest.fixture
def site(postgres_url: str) -> Iterator[Site]:
    reason = netns.unavailable()
    if reason is not None:
        print(f"hosts: process groups on the loopback ({reason}); the run's PostgreSQL over its Unix socket")
        yield Site(None, postgres_url)
        return
    network = netns.Network(["host-a", "host-b"]).create()
    server = TempPostgres.in_new_folder(listen=network.address, allow=network.cidr)
    try:
        server.start()
        print(f"hosts: network namespaces {network.addresses} on {network.cidr}; PostgreSQL at {network.address}")
        yield Site(network, server.url())
    finally:
        server.stop()
        network.close()


def host_spawn(
    folder: Path, name: str, logs: list[Path], network: netns.Network | None
) -> Callable[[list[str], Mapping[str, str]], Any]:
    def spawn(argv: list[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
        log = folder / f"{name}-bot-{env.get('PAN_CLUSTER_INDEX', 'x')}-{len(logs)}.log"
        logs.append(log)
        command = argv if network is None else network.command(name, argv)
        with log.open("wb") as err:
            return subprocess.Popen(
                command, env=dict(env), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, process_group=0
            )

    return spawn


def make_host(name: str, fake: FakeDiscord, site: Site, tmp_path: Path) -> Host:
    env = bot_env(
        fake,
        site.database_url,
        PAN_HOST_NAME=name,
        PAN_HEARTBEAT_SECONDS=str(HEARTBEAT),
        PAN_HEARTBEAT_TIMEOUT=str(TIMEOUT),
        PAN_STOP_TIMEOUT="10",  # a cut-off process that lost its leases leaves within this (bot.py arm_stop_bound)
        PAN_LOG_LEVEL="INFO",
    )
    env.pop("PAN_REST_GLOBAL_RATE", None)  # the shared budget: on
    logs: list[Path] = []
    launcher = Launcher(
        SHARDS, PROCESSES, python=sys.executable, env=env, spawn=host_spawn(tmp_path, name, logs, site.network)
    )
    return Host(name, launcher, logs)


async def members(storage: PostgresStorage) -> dict[str, tuple[str, str]]:
    """holder -> (cluster index, state) of every member row."""
    rows = await storage.fetch("SELECT holder, cluster, state FROM cluster_members")
    return {str(h): (str(c), str(s)) for h, c, s in rows}


async def holders(storage: PostgresStorage) -> dict[int, str]:
    """shard -> the process (``host:pid``) that holds its lease."""
    rows = await storage.fetch("SELECT shard_id, holder FROM shard_leases WHERE shard_count = $1", SHARDS)
    return {int(s): str(h) for s, h in rows}


async def serving_hosts(storage: PostgresStorage) -> dict[int, str]:
    """shard -> the host whose process holds its lease."""
    return {s: h.rpartition(":")[0] for s, h in (await holders(storage)).items()}


async def wait_for(what: str, check: Callable[[], Any], hosts: list[Host], timeout: float = 60) -> None:
    """Until ``await check()`` is true, polling the launchers (which restart what exited)."""
    deadline = time.monotonic() + timeout
    while not await check():
        for host in hosts:
            host.poll()
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.1)


async def move_counts(storage: PostgresStorage, table_ids: dict[int, int]) -> dict[int, int]:
    """channel -> how many player moves (and deals) its table's log holds."""
    rows = await storage.fetch(
        "SELECT table_id, action FROM actions WHERE table_id = ANY($1::bigint[])", list(table_ids)
    )
    counts = dict.fromkeys(table_ids.values(), 0)
    for table_id, action in rows:
        if isinstance(parse_action(str(action)), (*PLAYER_MOVES, StartHand)):
            counts[table_ids[int(table_id)]] += 1
    return counts


@dataclass
class Play:
    """The players: one move per table per round, each checked against the log (see the module docstring)."""

    harness: Harness
    storage: PostgresStorage
    tables: list[tuple[FakeChannel, list[FakeUser]]]
    hosts: list[Host]
    table_ids: dict[int, int] = field(default_factory=dict)  # table id -> channel id
    acked: int = 0
    failed: int = 0
    last_ok: dict[int, float] = field(default_factory=dict)  # channel -> when its last move was answered
    pauses: dict[int, float] = field(default_factory=dict)  # channel -> the longest wait since the last mark

    def mark(self) -> None:
        now = time.monotonic()
        self.last_ok = {c.id: now for c, _ in self.tables}
        self.pauses = {c.id: 0.0 for c, _ in self.tables}

    async def move(self, state: TableState, channel: FakeChannel, users: list[FakeUser]) -> bool:
        if state.hand is None:
            user, command, options = users[0], "pan start", {}
        else:
            seat, command, options = greedy_command(state)
            seated = state.seats[seat]
            assert seated is not None
            user = next(u for u in users if u.id == seated.player_id)
        try:
            await self.harness.slash(user, command, channel=channel, timeout=MOVE_TIMEOUT, **options)
        except InteractionFailed:
            return False
        now = time.monotonic()
        self.pauses[channel.id] = max(self.pauses[channel.id], now - self.last_ok[channel.id])
        self.last_ok[channel.id] = now
        return True

    async def rounds(self, count: int, *, until: Callable[[], Any] | None = None, timeout: float = 120) -> None:
        """Play ``count`` rounds in which every table's move was answered, after ``until()`` holds (polled)."""
        done, deadline = 0, time.monotonic() + timeout
        while done < count:
            for host in self.hosts:
                host.poll()
            assert time.monotonic() < deadline, f"{done} of {count} rounds in {timeout}s"
            states, problems = await read_tables(self.storage)
            assert problems == [], problems
            before = await move_counts(self.storage, self.table_ids)
            results = await asyncio.gather(*(self.move(states[c.id], c, u) for c, u in self.tables))
            after = await move_counts(self.storage, self.table_ids)
            for (channel, _), ok in zip(self.tables, results, strict=True):
                grew = after[channel.id] - before[channel.id]
                # answered: in the log exactly once; failed: at most once (it may have committed before the end)
                assert grew == 1 if ok else grew in (0, 1), (channel.id, ok, grew)
            self.acked += sum(results)
            self.failed += len(results) - sum(results)
            if all(results) and (until is None or await until()):
                done += 1
            elif not all(results):
                await asyncio.sleep(0.2)


async def test_two_hosts_survive_a_kill_a_hang_and_a_rolling_restart(tmp_path: Path, site: Site) -> None:
    fake = FakeDiscord(shards=SHARDS, global_limit=LIMIT, max_concurrency=2)
    harness = Harness(fake, members=2 * SHARDS)
    tables: list[tuple[FakeChannel, list[FakeUser]]] = []
    for shard in range(SHARDS):
        pair = harness.users[2 * shard : 2 * shard + 2]
        guild = fake.add_guild(f"shard {shard}", channels=("pan",), members=pair, shard=shard)
        tables.append((guild.channels[0], pair))
    await fake.start(site.address)
    a = make_host("host-a", fake, site, tmp_path)
    b = make_host("host-b", fake, site, tmp_path)
    hosts = [a, b]
    storage = storage_for(site.database_url)
    assert isinstance(storage, PostgresStorage)

    def connected() -> Any:
        async def check() -> bool:
            return fake.sessions_by_shard() == dict.fromkeys(range(SHARDS), 1)

        return check

    async def served_by(name: str) -> bool:
        return set((await serving_hosts(storage)).values()) == {name} and fake.sessions_by_shard() == dict.fromkeys(
            range(SHARDS), 1
        )

    async def standbys(name: str, indexes: tuple[str, ...] = ("0/2", "1/2")) -> bool:
        """A process of each of ``indexes`` on host ``name`` is up and waiting."""
        rows = await members(storage)
        waiting = {c for h, (c, s) in rows.items() if h.startswith(name + ":") and s == "waiting"}
        return waiting >= set(indexes)

    play = Play(harness, storage, tables, hosts)
    try:
        a.start()
        await wait_for("host A serves every shard", connected(), hosts)
        await storage.open()
        b.start()
        await wait_for("host B's processes wait as standbys", lambda: standbys("host-b"), hosts)
        assert await served_by("host-a")
        if site.network is not None:  # each host reached the database from its own address, over the bridge
            rows = await storage.fetch(
                "SELECT DISTINCT host(client_addr) FROM pg_stat_activity WHERE client_addr IS NOT NULL"
            )
            assert {str(r[0]) for r in rows} >= set(site.network.addresses.values()), rows
        for channel, (host, guest) in tables:
            await harness.slash(host, "pan open", channel=channel)
            await harness.slash(guest, "pan join", channel=channel)
        rows = await storage.fetch("SELECT table_id, channel_id FROM tables WHERE status = 'open'")
        play.table_ids = {int(t): int(c) for t, c in rows}
        assert sorted(play.table_ids.values()) == sorted(c.id for c, _ in tables)

        async def seated() -> bool:
            states, _ = await read_tables(storage)
            return all(len([s for s in states[c.id].seats if s is not None]) == 2 for c, _ in tables)

        await wait_for("both players seated at every table", seated, hosts)
        play.mark()
        await play.rounds(ROUNDS)

        # 1. kill host A: B takes every shard once A's heartbeats are stale
        killed_at = time.monotonic()
        a.signal(signal.SIGKILL)
        for spec in a.launcher.specs:
            if spec.process is not None:
                spec.process.wait()
        a.launcher.stopping = True  # the host is down: nothing restarts there
        play.mark()
        await play.rounds(ROUNDS, until=lambda: served_by("host-b"))
        took = max(play.pauses.values())
        assert took <= TAKEOVER_PAUSE, play.pauses
        print(f"kill: every table played again; longest pause {took:.1f}s ({time.monotonic() - killed_at:.1f}s)")
        a.launcher.stopping = False  # host A is back: its processes start and wait as standbys
        await wait_for("host A's processes wait as standbys", lambda: standbys("host-a"), hosts)

        # 2. hang host B: Discord drops its silent sessions; A takes every shard once B's heartbeats are stale
        b.signal(signal.SIGSTOP)
        await fake.end_sessions(range(SHARDS))
        play.mark()
        await play.rounds(ROUNDS, until=lambda: served_by("host-a"))
        took = max(play.pauses.values())
        assert took <= TAKEOVER_PAUSE, play.pauses
        print(f"hang: every table played again; longest pause {took:.1f}s")
        b.signal(signal.SIGCONT)  # it finds its leases gone, exits 75, and its launcher starts it as a standby
        await wait_for("host B's processes wait as standbys again", lambda: standbys("host-b"), hosts)
        assert await served_by("host-a")

        # 3. roll: SIGTERM every serving process in turn (then its host restarts it); the standby takes over at once
        for host in (a, b):
            for spec in host.launcher.specs:
                serving = await serving_hosts(storage)
                if serving.get(spec.index) != host.name:
                    continue
                assert spec.process is not None
                other = b if host is a else a
                shards = {spec.index, spec.index + PROCESSES}

                async def handed(other: Host = other, shards: set[int] = shards) -> bool:
                    serving = await serving_hosts(storage)
                    return all(serving.get(s) == other.name for s in shards)

                async def moved(shards: set[int] = shards) -> bool:
                    """The shards served again: by the successor or, if it stood down since, whoever took them."""
                    serving = await serving_hosts(storage)
                    return all(s in serving for s in shards) and await connected()()

                play.mark()
                in_flight = asyncio.ensure_future(play.rounds(1))  # a move on every table, SIGTERM under them
                await asyncio.sleep(0.05)
                stopped_at = time.monotonic()
                spec.process.send_signal(signal.SIGTERM)
                # bounded: a successor that never takes the leases fails here with who holds them, not at the suite's
                # timeout (under a starved machine a standby can find the database silent and stand down itself)
                while not await handed() and time.monotonic() - stopped_at < 2 * TIMEOUT:
                    await asyncio.sleep(0.02)
                handover = time.monotonic() - stopped_at
                # released, not timed out: the successor had the leases before the heartbeat timeout could free them
                assert handover < TIMEOUT, (
                    f"leases of shards {sorted(shards)} not with {other.name} {handover:.2f}s after SIGTERM; "
                    f"serving now: {await serving_hosts(storage)}; members: {await members(storage)}"
                )
                successor = {s: h for s, h in (await holders(storage)).items() if s in shards}
                await in_flight
                await play.rounds(2, until=moved)
                now = {s: h for s, h in (await holders(storage)).items() if s in shards}
                if now == successor:
                    assert max(play.pauses.values()) <= ROLL_PAUSE, play.pauses
                else:
                    # a second fault on top of the roll: the successor found the database silent for the heartbeat
                    # timeout (a starved machine, with the test's 3 s) and stood down, and another process took the
                    # shards as after a hang; the roll's own bound was met by the handover above
                    assert max(play.pauses.values()) <= TAKEOVER_PAUSE, play.pauses
                    print(f"roll: the successor {successor} stood down since; now {now}")
                print(
                    f"roll {host.name} {spec.index}/2: leases handed over in {handover:.2f}s, "
                    f"longest pause {max(play.pauses.values()):.1f}s"
                )
                waiting = host if now == successor else other  # the stopped process, or the one that stood down
                await wait_for(
                    f"the process {spec.index}/2 of {waiting.name} back as a standby",
                    lambda h=waiting, k=spec.index: standbys(h.name, (f"{k}/2",)),
                    hosts,
                )

        # 4. partition (hosts in network namespaces only): host A's link is cut while it serves every shard. Alive, it
        #    reaches neither the database nor Discord, and its connections stall rather than fail. Discord drops its
        #    silent sessions; B's standbys take every shard once A's heartbeats are stale; and A's processes, unable
        #    to write a heartbeat for PAN_HEARTBEAT_TIMEOUT, stop serving by themselves (exit 75) while still cut off.
        #    Mended, A's processes come back as standbys, and nothing A had in flight is applied twice.
        if site.network is not None:
            # a successor that stood down in the roll may have left a process's shards on B: roll them over to A
            serving = await serving_hosts(storage)
            on_b = [u for u in b.launcher.specs if u.process is not None and serving.get(u.index) == "host-b"]
            for unit in on_b:
                assert unit.process is not None
                unit.process.send_signal(signal.SIGTERM)
            if on_b:
                await wait_for("every shard back on host A", lambda: served_by("host-a"), hosts)
                await wait_for("host B's processes wait as standbys", lambda: standbys("host-b"), hosts)
            assert await served_by("host-a")
            cut_off = [spec.process for spec in a.launcher.specs if spec.process is not None]
            site.network.cut("host-a")
            cut_at = time.monotonic()
            await fake.end_sessions(range(SHARDS))
            play.mark()
            await play.rounds(ROUNDS, until=lambda: served_by("host-b"))
            took = max(play.pauses.values())
            assert took <= TAKEOVER_PAUSE, play.pauses

            async def left() -> bool:
                return all(process.poll() is not None for process in cut_off)

            await wait_for("host A's cut-off processes stop serving", left, hosts, timeout=TAKEOVER_PAUSE)
            assert [process.returncode for process in cut_off] == [75] * len(cut_off)
            stopped = time.monotonic() - cut_at

            # restarted at once by their supervisor, still cut off, they wait for Discord (and the database) to be
            # in reach again instead of crashing in a loop
            async def waiting_out_the_cut() -> bool:
                restarted = [spec.process for spec in a.launcher.specs if spec.process not in cut_off]
                fresh = a.logs[-len(a.launcher.specs) :]
                return len(restarted) == len(a.launcher.specs) and all(
                    "is out of reach" in log.read_text(errors="replace") for log in fresh
                )

            await wait_for("host A's restarted processes wait out the cut", waiting_out_the_cut, hosts)
            relaunched = [spec.process for spec in a.launcher.specs]
            site.network.mend("host-a")
            await wait_for("host A's processes wait as standbys again", lambda: standbys("host-a"), hosts)
            assert [spec.process for spec in a.launcher.specs] == relaunched  # the same processes: none crashed
            assert await served_by("host-b")
            play.mark()
            await play.rounds(ROUNDS)
            print(f"partition: every table played again (longest pause {took:.1f}s); A stopped in {stopped:.1f}s")

            # 5. a blip: host B's link (B serves every shard) is cut for much less than the heartbeat timeout. Nothing
            #    moves: no shard changes hands, no process exits, the stalled connections recover, every table plays.
            serving_b = [spec.process for spec in b.launcher.specs]
            takeovers = await storage.fetch("SELECT shard_id, epoch FROM shard_leases ORDER BY shard_id")
            site.network.cut("host-b")
            await asyncio.sleep(BLIP)
            site.network.mend("host-b")
            play.mark()
            await play.rounds(ROUNDS)
            assert await served_by("host-b")
            assert await storage.fetch("SELECT shard_id, epoch FROM shard_leases ORDER BY shard_id") == takeovers
            assert [spec.process for spec in b.launcher.specs] == serving_b
            assert all(process is not None and process.poll() is None for process in serving_b)
            print(f"blip of {BLIP}s: no lease moved, longest pause {max(play.pauses.values()):.1f}s")

        _, problems = await read_tables(storage)
        assert problems == []
        for channel, (host, _guest) in tables:
            reply = await harness.slash(host, "panadmin audit", channel=channel)
            assert reply.text.startswith("Ledger audit: OK"), reply.text
        if site.network is not None:  # and Discord: every IDENTIFY came from a host's own address, both hosts served
            assert {peer for _, peer in fake.identified_from} == set(site.network.addresses.values()), (
                fake.identified_from
            )
        status = fake.status()
        assert status["global"]["max_per_window"] <= LIMIT, status["global"]
        assert status["global"]["responses_429"] == 0, status["global"]
        assert status["identify"]["violations"] == [], status["identify"]
        print(f"{play.acked} moves answered, {play.failed} failed and moved again; {status['global']}")
    except BaseException:
        for host in hosts:
            host.signal(signal.SIGCONT)
            host.signal(signal.SIGUSR1)  # each bot writes its tasks' stacks to its log
        await asyncio.sleep(1)
        for host in hosts:
            for log in host.logs:
                print(f"==== {log.name}\n{log.read_text(errors='replace')[-12000:]}")
        print(f"==== sessions by shard: {fake.sessions_by_shard()}; gateway log: {fake.gateway_log[-16:]}")
        with contextlib.suppress(Exception):
            print(f"==== members: {await members(storage)}; leases: {await serving_hosts(storage)}")
        raise
    finally:
        b.signal(signal.SIGCONT)
        if site.network is not None:
            site.network.mend("host-a")
        for host in hosts:
            host.launcher.stop(grace=10)
        await storage.close()
        await fake.stop()
    text = "\n".join(log.read_text(errors="replace") for host in hosts for log in host.logs)
    assert "Traceback" not in text and " ERROR " not in text, text[-4000:]
    assert fake.unhandled == [] and fake.violations == []
