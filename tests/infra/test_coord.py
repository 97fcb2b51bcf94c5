"""Cluster coordination through PostgreSQL (pancog/infra/coord.py), against the real server: a live holder keeps its
shards, a release hands them over at once, a silent holder loses them after the heartbeat timeout and learns it at
its next heartbeat, the IDENTIFY queue spaces a bucket across members, and an event reaches every member."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from pancog.infra.coord import ClusterMember, MemberTiming
from pancog.infra.storage import PostgresStorage, ShardSet

SHARDS = ShardSet(4, (1, 3))
TIMING = MemberTiming(heartbeat=0.2, stale_after=1.0, poll=0.5)


@pytest.fixture
async def url(postgres_url: str) -> AsyncIterator[str]:
    storage = PostgresStorage(postgres_url, min_size=1, max_size=1)
    await storage.open()  # the migrations: shard_leases, cluster_members, gateway_identify
    await storage.close()
    yield postgres_url


async def member(url: str, holder: str, lost: list[str] | None = None) -> ClusterMember:
    m = ClusterMember(url, SHARDS, "1/2", holder=holder, timing=TIMING, on_lost=None if lost is None else lost.append)
    await m.open()
    return m


async def test_a_live_holder_keeps_its_shards_and_a_release_hands_them_over_at_once(url: str) -> None:
    first, second = await member(url, "host-a:1"), await member(url, "host-b:2")
    try:
        assert await first.claim()
        assert first.epochs == {1: 1, 3: 1}
        first.start()
        waiting = asyncio.ensure_future(second.claim())
        await asyncio.sleep(2 * TIMING.stale_after)  # the first keeps beating: the second keeps waiting
        assert not waiting.done()
        released = time.monotonic()
        await first.release()
        assert await asyncio.wait_for(waiting, 5)
        assert time.monotonic() - released < TIMING.poll  # woken by the NOTIFY, not by its next poll
        assert second.epochs == {1: 2, 3: 2} and second.takeovers == 0
    finally:
        await first.close()
        await second.close()


async def test_a_silent_holder_loses_its_shards_after_the_timeout_and_learns_it(url: str) -> None:
    lost: list[str] = []
    first, second = await member(url, "host-a:1", lost), await member(url, "host-b:2")
    try:
        assert await first.claim()  # no heartbeat task: as silent as a SIGSTOPped process
        started = time.monotonic()
        assert await asyncio.wait_for(second.claim(), 5)
        waited = time.monotonic() - started
        assert TIMING.stale_after * 0.8 <= waited <= TIMING.stale_after + TIMING.poll + 0.5, waited
        assert second.epochs == {1: 2, 3: 2} and second.takeovers == 1
        assert not await first.beat()  # it wakes up: its leases moved on
        assert first.lost and len(lost) == 1 and "taken by another process" in lost[0]
    finally:
        await first.close()
        await second.close()


async def test_the_identify_queue_spaces_one_bucket_across_members(url: str) -> None:
    first, second = await member(url, "host-a:1"), await member(url, "host-b:2")
    try:
        assert await first.identify_turn(0, 2, window=0.6) == 0.0
        started = time.monotonic()
        waited = await second.identify_turn(2, 2, window=0.6)  # shard 2 % 2: the same bucket, another host
        assert waited > 0.3 and time.monotonic() - started >= waited
        assert await second.identify_turn(1, 2, window=0.6) == 0.0  # another bucket: at once
    finally:
        await first.close()
        await second.close()


async def test_an_event_reaches_every_member(url: str) -> None:
    first, second = await member(url, "host-a:1"), await member(url, "host-b:2")
    seen: list[tuple[str, Any]] = []

    def handler(name: str) -> Any:
        async def handle(data: dict[str, Any]) -> None:
            seen.append((name, data))

        return handle

    try:
        first.subscribe("season_end", handler("first"))
        second.subscribe("season_end", handler("second"))
        await first.publish("season_end", {"guild": 7})
        deadline = time.monotonic() + 5
        while len(seen) < 2:
            assert time.monotonic() < deadline, seen
            await asyncio.sleep(0.02)
        assert sorted(seen, key=lambda s: s[0]) == [("first", {"guild": 7}), ("second", {"guild": 7})]
    finally:
        await first.close()
        await second.close()


async def test_a_release_during_a_heartbeat_still_hands_the_shards_over_at_once(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM may come while a heartbeat's BEGIN is on the wire. Cancelled there, the heartbeat left its connection
    inside that transaction (the server had run the BEGIN), the release's DELETE and NOTIFY ran in it and were rolled
    back when the connection closed: the successor waited for the heartbeat timeout (seen once in ~300 releases, and
    in tests/e2e/test_cluster_hosts.py's roll). The release now waits for a heartbeat in flight instead."""
    first, second = await member(url, "host-a:1"), await member(url, "host-b:2")
    try:
        assert await first.claim()
        in_begin = asyncio.Event()
        start = asyncpg.transaction.Transaction.start

        async def begin_then_wait(transaction: Any) -> None:  # the BEGIN has run; its answer is still "on the wire"
            await start(transaction)
            if transaction._connection is first._conn and not in_begin.is_set():
                in_begin.set()
                await asyncio.sleep(0.3)

        monkeypatch.setattr(asyncpg.transaction.Transaction, "start", begin_then_wait)
        first.start()
        waiting = asyncio.ensure_future(second.claim())
        await asyncio.wait_for(in_begin.wait(), 5)
        released = time.monotonic()
        assert await first.release()
        assert await asyncio.wait_for(waiting, 5)
        assert time.monotonic() - released < TIMING.poll  # woken by the NOTIFY, not by its next poll
        assert second.epochs == {1: 2, 3: 2} and second.takeovers == 0  # the row was gone: released, not taken
    finally:
        await first.close()
        await second.close()
