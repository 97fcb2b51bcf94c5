"""Cluster coordination through PostgreSQL only: membership with a heartbeat, shard leases that a hung process loses,
a clean hand-over on shutdown, cross-process events (LISTEN/NOTIFY) and the gateway IDENTIFY queue across hosts.

Every process of a cluster (``bot.py --cluster k/M``) is a :class:`ClusterMember` with a connection of its own
(never waiting behind the table transactions of the storage pool):

* **Claim.** Before it loads a table or connects a shard, a process takes the leases of its shards
  (``shard_leases``, epoch + 1 — the epoch every table write checks, docs/storage.md "Shard leases") in one
  transaction, *unless* another holder of one of them is alive: it has a ``cluster_members`` row whose heartbeat is
  younger than ``stale_after`` seconds on the database's clock (a draining one too: it is finishing its
  actions). Then the process waits (a standby) and tries again every ``poll`` seconds, or at once when a holder
  announces its release (NOTIFY). So two copies of ``--cluster k/M`` on two hosts are an active process and a
  standby, and either takes over when the other dies, hangs or stops.
* **Heartbeat.** Every ``heartbeat`` seconds the process writes its row's ``beat_at`` (the database's clock) and reads
  its leases back. A lease whose epoch moved (a successor took it: this process was stopped long enough to be
  presumed dead) or a heartbeat that could not be written for ``stale_after`` seconds calls ``on_lost``: the process
  must stop serving (bot.py closes and exits 75; its supervisor starts it again as a standby). A process frozen
  (SIGSTOP, a VM paused) cannot write anything meanwhile anyway: each table write checks its epoch.
* **Release.** A process stopping cleanly (SIGTERM) first stops taking actions and finishes those in flight, then
  deletes its member row and NOTIFYs: a waiting successor takes the leases at once, not after ``stale_after``.
* **Events.** ``publish(kind, payload)`` sends a JSON event on the ``pan_events`` channel to every process (itself
  included); ``subscribe`` registers the handler of a kind. Used for what one process does to tables another owns.
* **IDENTIFY queue.** :meth:`identify_turn` spaces the IDENTIFYs of each rate-limit bucket
  (``shard_id % max_concurrency``) ``window`` seconds apart across every process and host: the bucket's last
  IDENTIFY time is a row read and written under a transaction-scoped advisory lock of that bucket.

The bound (documented in docs/operations.md): a process that stops heart-beating at ``t`` loses its leases to a
waiting process by ``t + stale_after + poll`` (defaults 10 s + 1 s). It never imports discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import asyncpg

from pancog.infra.storage.base import ShardSet
from pancog.infra.tasks import Tasks

__all__ = ["EVENTS_CHANNEL", "UNREACHABLE", "ClusterMember", "MemberTiming", "holder_for"]

log = logging.getLogger("pan.coord")

EVENTS_CHANNEL = "pan_events"  # cross-process events (JSON: {"kind", "from", "data"})
RELEASE_CHANNEL = "pan_leases"  # a holder let its leases go: waiting processes try again at once
_LEASE_LOCK = 0x706C65  # "ple": one claimer per shard count at a time (the check and the take are one step)
_IDENTIFY_LOCK = 0x706964  # "pid": one IDENTIFY decision per rate-limit bucket at a time
UNREACHABLE = (OSError, TimeoutError, asyncpg.CannotConnectNowError, asyncpg.InterfaceError)
"""What connecting to (or talking with) a database that is down or out of reach raises: worth waiting out."""


def holder_for(host: str | None) -> str:
    """``host:pid`` (host: ``PAN_HOST_NAME``, else the hostname): unique among live processes, and it names where a
    lease is held."""
    return f"{host or socket.gethostname()}:{os.getpid()}"


def gone(holder: str, mine: str) -> bool:
    """A holder on this host whose process no longer exists (a crash restarted by the local supervisor): its lease
    is free now, not ``stale_after`` later. Elsewhere only the heartbeat can tell."""
    host, _, pid = holder.rpartition(":")
    if host != mine.rpartition(":")[0] or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, someone else's
        return False
    return False


@dataclass(frozen=True, slots=True)
class MemberTiming:
    heartbeat: float = 2.0  # PAN_HEARTBEAT_SECONDS: how often the row is written and the leases read back
    stale_after: float = 10.0  # PAN_HEARTBEAT_TIMEOUT: a row older than this is a dead (or hung) process
    poll: float = 1.0  # a waiting process retries this often (and at once on a release)


Handler = Callable[[dict[str, Any]], Coroutine[Any, Any, None]]
T = TypeVar("T")


@dataclass
class ClusterMember:
    """One process's membership (see the module docstring). ``open`` → ``claim`` → ``start`` … ``release``."""

    url: str
    shards: ShardSet
    cluster: str  # "k/M", shown in the row
    holder: str = field(default_factory=lambda: holder_for(None))
    timing: MemberTiming = field(default_factory=MemberTiming)
    on_lost: Callable[[str], None] | None = None
    epochs: dict[int, int] = field(default_factory=dict)
    takeovers: int = 0  # leases taken from a holder presumed dead (not released cleanly)
    _conn: asyncpg.Connection[asyncpg.Record] | None = None
    _listener: asyncpg.Connection[asyncpg.Record] | None = None
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _released: asyncio.Event = field(default_factory=asyncio.Event)
    _handlers: dict[str, list[Handler]] = field(default_factory=dict)
    _tasks: Tasks = field(default_factory=lambda: Tasks("cluster", logger=log))
    _started: float = field(default_factory=time.time)
    _last_beat: float = 0.0  # time.monotonic() of the last heartbeat the database took
    _lost: bool = False
    _closed: bool = False
    _state: str = "serving"  # what the heartbeat writes: 'draining' once shutdown has begun

    def _settings(self) -> dict[str, str]:
        """The membership connection's settings: its heartbeats need not wait for the disk, and a transaction of
        this process left open when it vanished (cut off from the network, its socket stalled rather than closed)
        is ended by the server after ``stale_after``, so the lease lock or a row it held frees itself by the time a
        successor takes over (the server would otherwise notice the dead client only at its TCP keepalive: hours)."""
        idle = max(1000, int(self.timing.stale_after * 1000))
        return {"synchronous_commit": "off", "idle_in_transaction_session_timeout": str(idle)}

    async def open(self) -> None:
        self._conn = await asyncio.wait_for(
            asyncpg.connect(self.url, server_settings=self._settings()), self.timing.stale_after
        )
        await self._listen()

    async def _listen(self) -> None:
        """A connection of its own for LISTEN (its notifications arrive between statements, so it runs none)."""
        try:
            listener = await asyncio.wait_for(asyncpg.connect(self.url), self.timing.heartbeat)
            await listener.add_listener(RELEASE_CHANNEL, self._on_release)
            await listener.add_listener(EVENTS_CHANNEL, self._on_event)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
            log.warning("cannot listen for cluster events (%r); retrying at the next heartbeat or look", exc)
            return
        self._listener = listener

    def _connection(self) -> asyncpg.Connection[asyncpg.Record]:
        if self._conn is None:
            raise RuntimeError("the cluster member is not open")
        return self._conn

    # ------------------------------------------------------------------ leases
    async def claim(self, stop: asyncio.Event | None = None) -> bool:
        """Take this process's shard leases, waiting while a live process holds any of them (``epochs`` set).
        False when ``stop`` was set first (the process is stopping while it waited)."""
        waiting_logged = False
        while stop is None or not stop.is_set():
            self._released.clear()
            busy = await self.try_claim()
            if busy is None:
                return True
            if not waiting_logged:
                log.info("shards %s held by live %s: waiting as a standby", list(self.shards.ids), busy)
                waiting_logged = True
            if self._listener is None or self._listener.is_closed():  # LISTEN failed at open (or dropped): a standby
                await self._listen()  # listens again at each look, so that a release still wakes it at once
            deadline = time.monotonic() + self.timing.poll  # or sooner: a release (NOTIFY) or a stop
            while time.monotonic() < deadline and not self._released.is_set() and not (stop and stop.is_set()):
                await asyncio.sleep(0.05)
        return False

    async def try_claim(self) -> str | None:
        """One attempt: None when the leases are now ours (``epochs`` set), else the live holder in the way."""
        shards = self.shards
        async with self._lock:
            conn = self._connection()
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1, $2)", _LEASE_LOCK, shards.count)
                rows = await conn.fetch(
                    "SELECT l.shard_id, l.holder, "
                    "m.beat_at > extract(epoch FROM clock_timestamp())::float8 - $3 AS live "
                    "FROM shard_leases l LEFT JOIN cluster_members m ON m.holder = l.holder "
                    "WHERE l.shard_count = $1 AND l.shard_id = ANY($2::bigint[])",
                    shards.count,
                    list(shards.ids),
                    self.timing.stale_after,
                )
                held = {
                    int(r["shard_id"]): (str(r["holder"]), bool(r["live"]) and not gone(str(r["holder"]), self.holder))
                    for r in rows
                }
                busy = next((h for h, live in held.values() if live and h != self.holder), None)
                await self._upsert(conn, "waiting" if busy else "serving")
                if busy is not None:
                    return busy
                presumed_dead = {h for h, live in held.values() if h != self.holder and not live}
                presumed_dead &= set(
                    await conn.fetchval(
                        "SELECT coalesce(array_agg(holder), '{}') FROM cluster_members WHERE holder = ANY($1::text[])",
                        list(presumed_dead),
                    )
                )
                epochs: dict[int, int] = {}
                for shard_id in sorted(shards.ids):  # in shard order, as take_shard_leases: no deadlock
                    epochs[shard_id] = int(
                        await conn.fetchval(
                            "INSERT INTO shard_leases (shard_count, shard_id, epoch, holder, taken_at) "
                            "VALUES ($1, $2, 1, $3, extract(epoch FROM clock_timestamp())::float8) "
                            "ON CONFLICT (shard_count, shard_id) DO UPDATE SET epoch = shard_leases.epoch + 1, "
                            "holder = excluded.holder, taken_at = excluded.taken_at RETURNING epoch",
                            shards.count,
                            shard_id,
                            self.holder,
                        )
                    )
                if presumed_dead:  # their rows go: they are stale, and a revived one re-inserts and finds it lost
                    await conn.execute(
                        "DELETE FROM cluster_members WHERE holder = ANY($1::text[])", list(presumed_dead)
                    )
                    self.takeovers += 1
                    log.warning("took shards %s from %s (no heartbeat)", list(shards.ids), sorted(presumed_dead))
        self.epochs = epochs
        self._last_beat = time.monotonic()
        log.info("shard leases claimed: %s of %d", epochs, shards.count)
        return None

    async def _upsert(self, conn: asyncpg.Connection[asyncpg.Record], state: str) -> None:
        await conn.execute(
            "INSERT INTO cluster_members (holder, cluster, shard_count, shards, state, started_at, beat_at) "
            "VALUES ($1, $2, $3, $4, $5, $6, extract(epoch FROM clock_timestamp())::float8) "
            "ON CONFLICT (holder) DO UPDATE SET state = excluded.state, "
            "beat_at = excluded.beat_at",
            self.holder,
            self.cluster,
            self.shards.count,
            ",".join(str(i) for i in self.shards.ids),
            state,
            self._started,
        )

    def start(self) -> None:
        """Start the heartbeat (after :meth:`claim`)."""
        self._tasks.spawn(self._beat_forever(), name="cluster-heartbeat")

    async def beat(self) -> bool:
        """One heartbeat: write the row, read the leases back. False (and ``on_lost`` called) when they are lost."""
        if self._lost or self._closed:
            return not self._lost
        try:
            async with self._lock:
                if self._closed:  # released while this heartbeat waited for the lock
                    return not self._lost
                # Bounded: a connection whose peer vanished (a network cut) stalls instead of failing, for as long as
                # TCP retries (~15 min); a heartbeat that hung there would never find that it cannot be written.
                rows = await self._bounded(self._beat_rows(), self.beat_timeout)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
            silent = time.monotonic() - self._last_beat
            log.warning("heartbeat failed (%s); silent for %.1f s", exc.__class__.__name__ + f": {exc}", silent)
            await self._reconnect()
            if silent > self.timing.stale_after:
                self._lose(f"no heartbeat for {silent:.1f} s: presumed dead by the others")
            return not self._lost
        if self._listener is None or self._listener.is_closed():  # the database restarted: listen again
            await self._listen()
        current = {int(r["shard_id"]): int(r["epoch"]) for r in rows}
        moved = {s: (e, current.get(s)) for s, e in self.epochs.items() if current.get(s) != e}
        if moved:
            self._lose(f"leases taken by another process (shard: (ours, now)): {moved}")
            return False
        self._last_beat = time.monotonic()
        return True

    @property
    def beat_timeout(self) -> float:
        """How long one heartbeat (or release) may wait for the database: half of ``stale_after``, so a stalled one
        fails in time for the next to find the silence and give the leases up before a successor takes them."""
        return max(self.timing.heartbeat, self.timing.stale_after / 2)

    async def _bounded(self, work: Coroutine[Any, Any, T], timeout: float) -> T:
        """``work`` on the membership connection, or TimeoutError after ``timeout`` s. The connection is then
        dropped (``terminate``: its statements fail at once) rather than the work cancelled: a cancelled transaction
        would wait for its ROLLBACK on the very socket that stalled."""
        task = asyncio.ensure_future(work)
        try:
            done, _ = await asyncio.wait({task}, timeout=timeout)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if done:
            return task.result()
        conn = self._conn
        if conn is not None:
            conn.terminate()
        with contextlib.suppress(Exception):  # it fails at once now; the bound is for safety
            await asyncio.wait_for(task, 1.0)
        raise TimeoutError(f"the database did not answer within {timeout:.1f} s")

    async def _beat_rows(self) -> list[asyncpg.Record]:
        conn = self._conn
        if conn is None:  # the last reconnect failed: this heartbeat fails too, and the next one tries again
            raise ConnectionError("no connection to the database")
        async with conn.transaction():
            await self._upsert(conn, self._state)
            return await conn.fetch(
                "SELECT shard_id, epoch FROM shard_leases WHERE shard_count = $1 AND shard_id = ANY($2::bigint[])",
                self.shards.count,
                list(self.shards.ids),
            )

    async def _reconnect(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.terminate()
        with contextlib.suppress(OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
            self._conn = await asyncio.wait_for(
                asyncpg.connect(self.url, server_settings=self._settings()), self.timing.heartbeat
            )

    def _lose(self, reason: str) -> None:
        if self._lost:
            return
        self._lost = True
        log.warning("this process must stop serving shards %s: %s", list(self.shards.ids), reason)
        if self.on_lost is not None:
            self.on_lost(reason)

    @property
    def lost(self) -> bool:
        return self._lost

    async def _beat_forever(self) -> None:
        while not self._closed and not self._lost:
            await asyncio.sleep(self.timing.heartbeat)
            await self.beat()

    async def draining(self) -> None:
        """Mark the row draining (shutdown has begun; shown to operators): it is still alive until :meth:`release`."""
        with contextlib.suppress(OSError, asyncpg.PostgresError, asyncpg.InterfaceError, RuntimeError):
            async with self._lock:
                self._state = "draining"
                await self._connection().execute(
                    "UPDATE cluster_members SET state = 'draining' WHERE holder = $1", self.holder
                )

    async def release(self) -> bool:
        """Let the leases go (after the last write): delete the row, NOTIFY the waiting processes, close. False when
        the database could not be told (a successor then waits for the heartbeat timeout instead)."""
        if self._closed:
            return True
        self._closed = True  # no heartbeat starts from now on (beat() looks again once it has the lock)
        released = False
        with contextlib.suppress(OSError, asyncpg.PostgresError, asyncpg.InterfaceError, RuntimeError, TimeoutError):
            # The lock first: a heartbeat in flight finishes its transaction before the tasks are cancelled. Cancelled
            # while its BEGIN was on the wire, it left the connection inside that transaction, and the DELETE and
            # NOTIFY below ran in it and were rolled back when the connection closed (the successor then waited for
            # the heartbeat timeout: tests/infra/test_coord.py, "a release during a heartbeat"). Bounded like a
            # heartbeat: cut off from the database, the process still stops (its successor waits out the timeout).
            await self._bounded(self._release_rows(), self.beat_timeout + self.timing.heartbeat)
            released = True
        await self.close()
        return released

    async def _release_rows(self) -> None:
        async with self._lock:
            await self._tasks.close()
            conn = self._connection()
            if conn.is_in_transaction():  # left by anything else cancelled inside one: not this release's
                await conn.execute("ROLLBACK")
            await conn.execute("DELETE FROM cluster_members WHERE holder = $1", self.holder)
            if not self._lost:
                await conn.execute("SELECT pg_notify($1, $2)", RELEASE_CHANNEL, self.holder)
                log.info("shard leases released: %s of %d", list(self.shards.ids), self.shards.count)

    async def close(self) -> None:
        self._closed = True
        await self._tasks.close()
        for conn in (self._listener, self._conn):
            if conn is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.close(), 2.0)
                if not conn.is_closed():  # the database did not answer the goodbye (cut off): drop the socket
                    conn.terminate()
        self._listener = self._conn = None

    def _on_release(self, _conn: object, _pid: int, _channel: str, _payload: object) -> None:
        self._released.set()

    # ------------------------------------------------------------------ events
    def subscribe(self, kind: str, handler: Handler) -> None:
        self._handlers.setdefault(kind, []).append(handler)

    async def publish(self, kind: str, data: dict[str, Any]) -> None:
        """Send an event to every process of the cluster (this one included), after the caller's commit."""
        payload = json.dumps({"kind": kind, "from": self.holder, "data": data}, separators=(",", ":"))
        async with self._lock:
            await self._connection().execute("SELECT pg_notify($1, $2)", EVENTS_CHANNEL, payload)

    def _on_event(self, _conn: object, _pid: int, _channel: str, payload: object) -> None:
        try:
            event = json.loads(str(payload))
            kind, data = str(event["kind"]), dict(event["data"])
        except (ValueError, KeyError, TypeError):
            log.warning("unreadable cluster event: %.200s", payload)
            return
        for handler in self._handlers.get(kind, ()):
            self._tasks.spawn(handler(data), name=f"cluster-event-{kind}")

    # ------------------------------------------------------------------ identify queue
    async def identify_turn(self, shard_id: int, max_concurrency: int, window: float = 5.5) -> float:
        """Wait until ``shard_id`` may IDENTIFY: ``window`` s after the last IDENTIFY of its bucket from any process.
        Discord asks for 5 s; the extra half second covers the time between this answer and the IDENTIFY reaching
        Discord (the socket is opened after it). Returns the seconds waited."""
        bucket = shard_id % max(1, max_concurrency)
        # Its own connection: the lock is held while waiting. Were this process cut off while holding it, the
        # server ends the transaction (and frees the bucket for the others) once it has idled past the wait.
        idle = int((window + self.timing.stale_after) * 1000)
        conn = await asyncio.wait_for(
            asyncpg.connect(self.url, server_settings={"idle_in_transaction_session_timeout": str(idle)}),
            self.timing.stale_after,
        )
        try:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1, $2)", _IDENTIFY_LOCK, bucket)
                row = await conn.fetchrow(
                    "SELECT extract(epoch FROM clock_timestamp())::float8 AS now, "
                    "(SELECT last_at FROM gateway_identify WHERE bucket = $1) AS last",
                    bucket,
                )
                if row is None:  # a SELECT without FROM always returns its row
                    raise asyncpg.InterfaceError("no clock row")
                now, last = float(row["now"]), row["last"]
                delay = 0.0 if last is None else max(0.0, float(last) + window - now)
                if delay:
                    await asyncio.sleep(delay)
                await conn.execute(
                    "INSERT INTO gateway_identify (bucket, last_at) "
                    "VALUES ($1, extract(epoch FROM clock_timestamp())::float8) "
                    "ON CONFLICT (bucket) DO UPDATE SET last_at = excluded.last_at",
                    bucket,
                )
        finally:
            await conn.close()
        return delay
