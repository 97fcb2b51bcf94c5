"""The shared budget of Discord's global limit (pancog/infra/ratelimit.py) on a real PostgreSQL server: buckets of
several "processes" (each with its own connection) together never let more requests out in any one second than the
bound, use the budget they are given, survive cancelled waiters, and hold requests back while the database is gone.
"""

from __future__ import annotations

import asyncio
import itertools
import time

import aiohttp
import asyncpg
import pytest
from aiohttp import web

from pancog.infra.ratelimit import GlobalBucket, PostgresSlots, SlotGrant, window_bound
from pancog.infra.rest import RestTrace, exempt, route_of
from pancog.infra.storage import PostgresStorage
from tests.fakediscord.server import busiest_window


@pytest.fixture
async def budget_url(postgres_url: str) -> str:
    async with PostgresStorage(postgres_url):  # migrated: the rest_budget table exists
        pass
    return postgres_url


async def hammer(bucket: GlobalBucket, count: int, times: list[float]) -> None:
    async def one() -> None:
        await bucket.acquire()
        times.append(time.monotonic())

    await asyncio.gather(*(one() for _ in range(count)))


async def test_three_processes_together_stay_under_the_bound_and_use_the_budget(budget_url: str) -> None:
    rate = 100.0
    buckets = [GlobalBucket(PostgresSlots(budget_url), rate=rate) for _ in range(3)]
    times: list[float] = []
    started = time.monotonic()
    try:
        await asyncio.gather(*(hammer(b, 100, times) for b in buckets))  # 300 requests asked at once: 3 s of budget
    finally:
        for b in buckets:
            await b.close()
    took = time.monotonic() - started
    assert len(times) == 300
    assert busiest_window(times) <= window_bound(rate, buckets[0].expiry) == 111
    # the budget is used, not wasted: 300 requests at 100/s take about 3 s (a missed slot costs 10 ms)
    assert took < 3.0 * 1.5, took
    # every slot came from one global sequence: the row's next slot is past them all
    granted = sum(b.figures.granted for b in buckets)
    assert granted == sum(b.figures.used + b.figures.expired for b in buckets) >= 300


class StallsAfterAnswers:
    """A process that stalls after the database answered, every other time (its loop busy, or the machine's cores):
    the slots of those grants began before the answer was read."""

    def __init__(self, source: PostgresSlots, stall: float) -> None:
        self.source, self.stall, self.takes = source, stall, 0

    async def take(self, count: int, interval: float, burst: float) -> SlotGrant:
        grant = await self.source.take(count, interval, burst)
        self.takes += 1
        if self.takes % 2 == 0:
            await asyncio.sleep(self.stall)
        return grant

    async def close(self) -> None:
        await self.source.close()


async def test_a_process_that_stalls_after_the_answer_never_sends_on_top_of_the_others(budget_url: str) -> None:
    """Slots are mapped from the database's clock to ours with the answer's moment; a stalled answer shifted a whole
    grant late, on top of the next process's slots (56 counted requests in one second in the full suite once)."""
    rate = 100.0
    stalling = StallsAfterAnswers(PostgresSlots(budget_url), stall=0.3)
    buckets = [GlobalBucket(source, rate=rate, expiry=0.05) for source in (stalling, PostgresSlots(budget_url))]
    times: list[float] = []
    try:
        await asyncio.wait_for(asyncio.gather(*(hammer(b, 150, times) for b in buckets)), 20.0)
    finally:
        for b in buckets:
            await b.close()
    assert len(times) == 300 and stalling.takes >= 4
    assert busiest_window(times) <= window_bound(rate, buckets[0].expiry)
    assert buckets[0].figures.expired > 0  # the stalled grants' slots were dropped, not sent late


async def test_a_request_that_resumes_after_its_slot_takes_another() -> None:
    """On a virtual clock: the first request's slot is handed over, then the process is busy for a second before
    the request runs on; sent then, it would count in another second's share, so it waits for a new slot."""
    now = [100.0]

    class Slots:
        next_slot = now[0]  # the first slot now, the second a little later: the filler sleeps for it

        async def take(self, count: int, interval: float, burst: float) -> SlotGrant:
            first = max(self.next_slot, now[0] - burst)
            self.next_slot = first + count * interval
            return SlotGrant(first=first, interval=interval, count=count, now=now[0])

        async def close(self) -> None:
            pass

    async def busy_then_sleep(seconds: float) -> None:  # the filler sleeps for the next slot; meanwhile a stall
        now[0] += 1.0 + seconds
        await asyncio.sleep(0)

    bucket = GlobalBucket(Slots(), rate=40.0, clock=lambda: now[0], sleep=busy_then_sleep)
    try:
        first, second = asyncio.create_task(bucket.acquire()), asyncio.create_task(bucket.acquire())
        await asyncio.wait_for(asyncio.gather(first, second), 5.0)
        # the first one's slot (handed over before the stall) and the second one's (gone during it) were missed
        assert bucket.figures.expired >= 2
        assert bucket.figures.used == 2 and bucket.figures.round_trips >= 2
    finally:
        await bucket.close()


class VirtualSlots:
    """Slots on a virtual clock (``now[0]``), as the database would grant them."""

    def __init__(self, now: list[float]) -> None:
        self.now = now
        self.next_slot = now[0]

    async def take(self, count: int, interval: float, burst: float) -> SlotGrant:
        first = max(self.next_slot, self.now[0] - burst)
        self.next_slot = first + count * interval
        return SlotGrant(first=first, interval=interval, count=count, now=self.now[0])

    async def close(self) -> None:
        pass


async def test_a_request_whose_connection_came_after_its_slot_takes_another() -> None:
    """Through aiohttp's own trace signals, a real session and server: the request takes its slot, then (the clock
    moved on a second while it waited for its connection) its slot is over when the connection is ready, so it
    takes another before it is written; it goes out once."""
    now = [100.0]
    seen: list[str] = []

    async def messages(request: web.Request) -> web.Response:
        seen.append(request.path)
        return web.json_response({"id": "1"})

    app = web.Application()
    app.router.add_post("/api/v10/channels/1/messages", messages)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    trace = RestTrace(f"http://127.0.0.1:{port}/api/v10")
    bucket = GlobalBucket(VirtualSlots(now), rate=40.0, clock=lambda: now[0])
    trace.bucket = bucket

    slow = [True]

    async def waits_for_its_connection(*_args: object) -> None:  # after the slot was taken, before the connection
        if slow[0]:
            now[0] += 1.0

    trace.config.on_request_start.append(waits_for_its_connection)
    try:
        async with aiohttp.ClientSession(trace_configs=[trace.config]) as session:
            async with session.post(f"http://127.0.0.1:{port}/api/v10/channels/1/messages", json={}) as response:
                assert response.status == 200
            now[0] += 1.0  # the next one: taken and connected (a kept connection) within its slot
            slow[0] = False
            async with session.post(f"http://127.0.0.1:{port}/api/v10/channels/1/messages", json={}) as response:
                assert response.status == 200
    finally:
        await bucket.close()
        await runner.cleanup()
    assert seen == ["/api/v10/channels/1/messages"] * 2
    assert bucket.figures.expired == 1  # the first slot, over before the first request's connection was ready
    assert bucket.figures.round_trips == 3 and bucket.figures.used == 2


async def test_grants_of_two_connections_never_overlap(budget_url: str) -> None:
    a, b = PostgresSlots(budget_url), PostgresSlots(budget_url)
    try:
        grants = []
        for _ in range(20):
            grants += await asyncio.gather(a.take(3, 0.01, 0.0), b.take(5, 0.01, 0.0))
    finally:
        await a.close()
        await b.close()
    spans = sorted((g.first, g.first + g.count * g.interval) for g in grants)
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end - 1e-9  # each grant begins where an earlier one ended, or later


class _RecordedSlots(PostgresSlots):
    """The real slots, each grant kept for the test to read."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.grants: list[SlotGrant] = []

    async def take(self, count: int, interval: float, burst: float) -> SlotGrant:
        grant = await super().take(count, interval, burst)
        self.grants.append(grant)
        return grant


async def test_an_idle_bucket_lets_a_small_burst_out_at_once(budget_url: str) -> None:
    """After a quiet spell the database grants a slot that has already begun (up to the burst allowance ago), so the
    bucket lets the request out without sleeping. Checked by what was granted and what the bucket slept, not by a
    wall-clock bound (a loaded machine's round trip is no part of the rule)."""
    slept: list[float] = []

    async def sleep(delay: float) -> None:
        slept.append(delay)
        await asyncio.sleep(delay)

    source = _RecordedSlots(budget_url)
    bucket = GlobalBucket(source, rate=40.0, sleep=sleep)
    try:
        await bucket.acquire()  # first contact, connection opened
        await asyncio.sleep(0.3)  # idle: the next slot is in the past
        source.grants.clear()
        slept.clear()
        assert await bucket.acquire() is not None
        idle = source.grants[0]
        # the slot had begun a burst allowance before the database granted it
        assert idle.first == pytest.approx(idle.now - bucket.burst, rel=0, abs=1e-6)
        if bucket.figures.expired == 0:  # answered within the slot (not a machine too loaded to use it)
            assert slept == [] and len(source.grants) == 1  # let out at once: no sleep, no second grant
    finally:
        await bucket.close()


async def test_a_cancelled_waiter_hands_its_slot_on(budget_url: str) -> None:
    bucket = GlobalBucket(PostgresSlots(budget_url), rate=20.0)
    try:
        waiters = [asyncio.create_task(bucket.acquire()) for _ in range(6)]
        await asyncio.sleep(0)
        waiters[1].cancel()
        waiters[3].cancel()
        done = await asyncio.wait_for(asyncio.gather(*waiters, return_exceptions=True), 3.0)
        assert [isinstance(d, asyncio.CancelledError) for d in done] == [False, True, False, True, False, False]
        assert bucket.waiting() == 0
    finally:
        await bucket.close()


async def test_without_the_database_requests_wait_and_close_releases_them(budget_url: str) -> None:
    bucket = GlobalBucket(PostgresSlots(budget_url + "&port=1"), rate=40.0)  # nothing listens on port 1
    waiter = asyncio.create_task(bucket.acquire())
    await asyncio.sleep(0.3)
    assert not waiter.done()  # no budget known: nothing goes out
    assert bucket.figures.failures >= 1
    await bucket.close()
    await asyncio.wait_for(waiter, 1.0)  # a stopping process lets its waiters go


async def test_a_dropped_connection_is_opened_again(budget_url: str) -> None:
    source = PostgresSlots(budget_url)
    bucket = GlobalBucket(source, rate=100.0)
    try:
        await bucket.acquire()
        conn = await source._connection()
        admin = await asyncpg.connect(budget_url)
        try:
            await admin.execute("SELECT pg_terminate_backend($1)", conn.get_server_pid())
        finally:
            await admin.close()
        await asyncio.wait_for(asyncio.gather(*(bucket.acquire() for _ in range(3))), 5.0)
    finally:
        await bucket.close()


def test_routes_are_templates_and_interaction_routes_are_exempt() -> None:
    assert route_of("/api/v10/channels/1234567890123/messages") == "/channels/{id}/messages"
    assert route_of("/api/v10/webhooks/1234567890123/tok_en-x/messages/@original") == (
        "/webhooks/{id}/{token}/messages/@original"
    )
    assert exempt(route_of("/api/v10/interactions/1234567890123/abc/callback"))
    assert exempt(route_of("/api/v10/webhooks/1234567890123/abc"))
    assert not exempt(route_of("/api/v10/channels/1234567890123/messages/1234567890124"))
    assert not exempt(route_of("/api/v10/users/@me/channels"))
