"""Discord's global rate limit shared by every process of the bot, through PostgreSQL: a bucket of send slots.

Discord allows a bot token about 50 requests per second across all its connections (interaction endpoints are
exempt). Each process of a cluster only knows its own traffic, and discord.py only reacts to a global 429 after the
fact; several processes together can therefore go over the limit. Here every process takes its **send slots** from
one row in PostgreSQL (``rest_budget``, an unlogged table: it is coordination state, and a crash may empty it):

* The row holds ``next_slot``, a time on the database server's clock. Taking ``n`` slots is one ``UPDATE``: the
  first is ``max(next_slot, now - burst)``, the others follow every ``1 / rate`` seconds, and ``next_slot`` moves past
  them. Slots are therefore handed out in one global sequence, ``1 / rate`` apart, whichever process takes them.
* A process takes as many slots as it has requests waiting (at most ``max_batch``): one round trip for a burst.
* A request may go out from its slot's time until ``expiry`` seconds after it; a slot missed (its process was busy,
  or the request's connection was not ready in time: checked again when aiohttp has the connection, just before the
  request is written, ``pancog/infra/rest.py``) is dropped and the request waits for another. So the requests sent
  in any one second used slots from a span of ``1 + expiry`` seconds: at most ``rate * (1 + expiry) + 1`` of them,
  whatever the processes do — 45 at the default 40/s and 0.1 s, leaving room under Discord's 50 for the time a
  request spends between its slot and Discord.

The database's clock is the only clock that counts: each answer carries the server's time, so hosts whose clocks
disagree share one schedule. That time was read somewhere between the question and the answer, so a slot is used
only while it has surely begun (the answer's moment) and surely not ended (the question's): a process that stalled
after the database answered would otherwise use its slots late, on top of the slots the others use then (the
stall's length times the rate over the limit: 56 requests in one second were seen so, on a loaded test machine). A
grant whose round trip took longer than ``expiry`` is dropped whole, and its requests take another; so is a slot
whose request resumed after the slot's end.

A single process on SQLite has nobody to share with and uses no bucket (discord.py's own handling of a global 429
remains); a REST proxy that enforces the limit itself (``DISCORD_API_BASE``) makes the bucket unnecessary
(``PAN_REST_GLOBAL_RATE=0``). See docs/operations.md.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

import asyncpg

from pancog.infra.tasks import Tasks

__all__ = ["GlobalBucket", "PostgresSlots", "SlotGrant", "SlotSource", "window_bound"]

log = logging.getLogger("pan.ratelimit")

BUCKET_NAME = "global"


def window_bound(rate: float, expiry: float) -> int:
    """The most requests the bucket lets out in any one second (see the module docstring)."""
    return int(rate * (1 + expiry)) + 1


@dataclass(frozen=True, slots=True)
class SlotGrant:
    """``count`` slots, the first at ``first`` and then every ``interval`` s, on the clock of ``now`` (the database's
    clock when it granted them)."""

    first: float
    interval: float
    count: int
    now: float


class SlotSource(Protocol):
    """Where the slots come from (PostgreSQL in production; a test may share one in memory between buckets)."""

    async def take(self, count: int, interval: float, burst: float) -> SlotGrant: ...

    async def close(self) -> None: ...


_TAKE = """
WITH clock AS (SELECT extract(epoch FROM clock_timestamp())::float8 AS now)
INSERT INTO rest_budget AS b (name, next_slot)
SELECT $1, clock.now - $3 + $2 FROM clock
ON CONFLICT (name) DO UPDATE SET next_slot = greatest(b.next_slot, (SELECT now FROM clock) - $3) + $2
RETURNING next_slot, (SELECT now FROM clock)
"""


class PostgresSlots:
    """Slots from the ``rest_budget`` row, on a connection of its own (never waiting behind the table
    transactions of the pool); the row is written with ``synchronous_commit`` off: it is not data to keep."""

    def __init__(self, url: str, *, name: str = BUCKET_NAME) -> None:
        self.url, self.name = url, name
        self._conn: asyncpg.Connection[asyncpg.Record] | None = None
        self._lock = asyncio.Lock()

    async def _connection(self) -> asyncpg.Connection[asyncpg.Record]:
        if self._conn is None or self._conn.is_closed():
            self._conn = await asyncpg.connect(self.url, server_settings={"synchronous_commit": "off"})
        return self._conn

    async def take(self, count: int, interval: float, burst: float) -> SlotGrant:
        async with self._lock:  # one statement at a time on the connection
            conn = await self._connection()
            try:
                row = await conn.fetchrow(_TAKE, self.name, count * interval, burst)
            except (asyncpg.PostgresConnectionError, OSError):
                await self._drop()
                raise
        if row is None:  # an INSERT ... ON CONFLICT DO UPDATE ... RETURNING always returns its row
            raise asyncpg.InterfaceError("the REST budget row was not returned")
        end, now = float(row[0]), float(row[1])
        return SlotGrant(first=end - count * interval, interval=interval, count=count, now=now)

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.terminate()

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), 2.0)


@dataclass
class BucketFigures:
    granted: int = 0  # slots taken from the shared row
    used: int = 0  # requests let out
    expired: int = 0  # slots missed (the process was busy past their expiry), or left over by cancelled waiters
    round_trips: int = 0
    failures: int = 0  # the database did not answer: requests waited and tried again
    waited: float = 0.0  # seconds requests spent waiting in all


@dataclass
class GlobalBucket:
    """One process's side of the shared limit: ``await bucket.acquire()`` before each counted request."""

    source: SlotSource
    rate: float = 40.0
    expiry: float = 0.1
    max_batch: int = 10
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    figures: BucketFigures = field(default_factory=BucketFigures)
    _waiters: collections.deque[asyncio.Future[float | None]] = field(default_factory=collections.deque)
    _filler: asyncio.Task[None] | None = None
    _closed: bool = False
    _tasks: Tasks = field(default_factory=lambda: Tasks("rest-bucket", logger=log))

    @property
    def interval(self) -> float:
        return 1.0 / self.rate

    @property
    def burst(self) -> float:
        """How far in the past an idle bucket's first slot may lie: half the expiry, so that it can still be used
        when the answer arrives, and a burst after a quiet spell goes out at once."""
        return self.expiry / 2

    def waiting(self) -> int:
        return sum(1 for w in self._waiters if not w.done())

    async def acquire(self) -> float | None:
        """Wait for a send slot of the shared budget (cancellable: the slot goes to the next waiter). Returns the end
        of the slot on :attr:`clock` (None: no slot, the bucket is closed): a request that has not gone out by then
        must take another (:meth:`still_open`)."""
        if self._closed:
            return None
        started = self.clock()
        try:
            late = False
            while True:
                waiter: asyncio.Future[float | None] = asyncio.get_running_loop().create_future()
                if late:  # its turn again at once: it waited its turn already
                    self._waiters.appendleft(waiter)
                else:
                    self._waiters.append(waiter)
                if self._filler is None or self._filler.done():
                    self._filler = self._tasks.spawn(self._fill(), name="rest-bucket")
                deadline = await waiter  # the end of its slot on our clock (None: the bucket closed)
                if self.still_open(deadline):
                    return deadline
                # resumed after its slot had ended (the process was busy): sent now, it would count in the next
                # second's share; the slot is missed (counted so by still_open), and the request takes another
                late = True
        finally:
            self.figures.waited += self.clock() - started

    def still_open(self, deadline: float | None) -> bool:
        """Whether a request given a slot ending at ``deadline`` may still go out now. Checked again when its connection
        is ready, just before it is written: waiting for a connection (a new one in a burst) can outlast the slot,
        and a request sent after its slot would count on top of the slots the others use then. False counts the
        slot as missed; the request then takes another."""
        if deadline is None or self.clock() <= deadline:
            return True
        self.figures.used -= 1
        self.figures.expired += 1
        return False

    async def _fill(self) -> None:
        backoff = 0.05
        while not self._closed:
            while self._waiters and self._waiters[0].done():  # cancelled meanwhile
                self._waiters.popleft()
            wanted = len(self._waiters)
            if wanted == 0:
                return
            count = min(wanted, self.max_batch)
            asked = self.clock()
            try:
                grant = await self.source.take(count, self.interval, self.burst)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError) as exc:
                # Without the database nobody can be sure of the budget: wait rather than risk a global 429 storm.
                self.figures.failures += 1
                log.warning("the shared REST budget is unreachable (%s); retrying in %.2f s", exc, backoff)
                await self.sleep(backoff)
                backoff = min(2.0, backoff * 2)
                continue
            backoff = 0.05
            self.figures.round_trips += 1
            self.figures.granted += grant.count
            # The database read its clock (grant.now) between our question and its answer: the database's clock
            # -> ours is at least `early` and at most `late`. A slot is used only from when it has surely begun
            # (`late`) until it has surely not ended (`early`): empty when the round trip took longer than expiry.
            early, late = asked - grant.now, self.clock() - grant.now
            for i in range(grant.count):
                slot = grant.first + i * grant.interval
                start, end = slot + late, slot + self.expiry + early
                delay = start - self.clock()
                if delay > 0:
                    await self.sleep(delay)
                if self.clock() > end:  # we woke too late (or the answer came too late): this slot is gone
                    self.figures.expired += 1
                    continue
                while self._waiters and self._waiters[0].done():
                    self._waiters.popleft()
                if not self._waiters:
                    self.figures.expired += 1
                    continue
                self._waiters.popleft().set_result(end)
                self.figures.used += 1

    async def close(self) -> None:
        """Let every waiter go (the process is stopping) and close the source."""
        self._closed = True
        await self._tasks.close()
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
        await self.source.close()
