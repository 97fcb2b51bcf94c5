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
from tests.support.stallproxy import StallingProxy

SHARDS = ShardSet(4, (1, 3))
TIMING = MemberTiming(heartbeat=0.2, stale_after=1.0, poll=0.5)
# A standby (never started: its heartbeat only bounds its LISTEN connection's connect, generous here) that looks
# twice a second, and one that would look again only after a minute: if the latter takes the shards within the
# tests' 10 s, only the release's NOTIFY can have woken it (proven by structure, not by a time bound).
LOOKS = MemberTiming(heartbeat=2.0, stale_after=1.0, poll=0.5)
NOTIFY_ONLY = MemberTiming(heartbeat=2.0, stale_after=1.0, poll=60.0)


@pytest.fixture
async def url(postgres_url: str) -> AsyncIterator[str]:
    storage = PostgresStorage(postgres_url, min_size=1, max_size=1)
    await storage.open()  # the migrations: shard_leases, cluster_members, gateway_identify
    await storage.close()
    yield postgres_url


async def member(url: str, holder: str, lost: list[str] | None = None, timing: MemberTiming = TIMING) -> ClusterMember:
    m = ClusterMember(url, SHARDS, "1/2", holder=holder, timing=timing, on_lost=None if lost is None else lost.append)
    await m.open()
    return m


async def handed_over_by_notify(first: ClusterMember, second: ClusterMember, waiting: asyncio.Future[bool]) -> None:
    """``second`` waits as a standby (``waiting``: its claim) while ``first`` holds the shards: from its next look on it
    waits a minute between looks, then ``first`` releases, and only the release's NOTIFY can wake it within 10 s."""
    second.timing = NOTIFY_ONLY
    await asyncio.sleep(2 * LOOKS.poll)  # its look under the twice-a-second timing has ended
    assert not waiting.done()
    assert await first.release()
    assert await asyncio.wait_for(waiting, 10)
    assert second.epochs == {1: 2, 3: 2} and second.takeovers == 0  # released, not taken


async def test_a_live_holder_keeps_its_shards_and_a_release_hands_them_over_at_once(url: str) -> None:
    first, second = await member(url, "host-a:1"), await member(url, "host-b:2", timing=LOOKS)
    try:
        assert await first.claim()
        assert first.epochs == {1: 1, 3: 1}
        first.start()
        waiting = asyncio.ensure_future(second.claim())
        # the first keeps beating: the second, looking twice a second, keeps waiting
        await asyncio.sleep(2 * TIMING.stale_after)
        assert not waiting.done()
        await handed_over_by_notify(first, second, waiting)
    finally:
        await first.close()
        await second.close()


async def test_a_standby_that_could_not_listen_listens_at_its_next_look_and_is_woken_by_a_release(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its LISTEN connection failed when it opened (the warning says so): waiting as a standby, it listens again at
    its next look, so a release still hands the shards over at once rather than at its next poll."""
    first = await member(url, "host-a:1")
    connect, calls = asyncpg.connect, 0

    async def refused_once(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:  # the standby's second connection at open: the one it LISTENs on
            raise OSError("connection refused")
        return await connect(*args, **kwargs)

    monkeypatch.setattr(asyncpg, "connect", refused_once)
    second = await member(url, "host-b:2", timing=LOOKS)
    monkeypatch.undo()
    try:
        assert calls == 2  # opened, without a listener
        assert await first.claim()
        first.start()
        waiting = asyncio.ensure_future(second.claim())
        await asyncio.sleep(2 * LOOKS.poll)  # it has looked, found the first alive, and listened
        assert not waiting.done()
        await handed_over_by_notify(first, second, waiting)
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
    first, second = await member(url, "host-a:1"), await member(url, "host-b:2", timing=NOTIFY_ONLY)
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
        assert await first.release()
        assert await asyncio.wait_for(waiting, 10)  # woken by the NOTIFY: its next look is a minute away
        assert second.epochs == {1: 2, 3: 2} and second.takeovers == 0  # the row was gone: released, not taken
    finally:
        await first.close()
        await second.close()


async def test_a_holder_cut_off_from_the_database_gives_its_shards_up_by_itself(url: str) -> None:
    """A network cut stalls the holder's connection instead of failing it (TCP retries for ~15 minutes). Its
    heartbeat used to wait there for as long, so it never found that it could not be written: the process went on
    serving shards another process had taken. Now a heartbeat is bounded (``beat_timeout``): the holder gives its
    shards up (``on_lost``) once it has written none for ``stale_after``, as its successor takes them; and its release
    does not hang on the stalled socket either."""
    proxy = StallingProxy(url)
    cut_url = await proxy.start()
    lost: list[str] = []
    first, second = await member(cut_url, "host-a:1", lost), await member(url, "host-b:2")
    try:
        assert await first.claim()
        first.start()
        await asyncio.sleep(3 * TIMING.heartbeat)
        assert not lost  # beating through the relay
        proxy.stall()
        cut = time.monotonic()
        assert await asyncio.wait_for(second.claim(), 5)  # the successor: after stale_after on the database's clock
        bound = TIMING.stale_after + first.beat_timeout + TIMING.heartbeat + 0.5
        while not lost:
            assert time.monotonic() - cut < bound, "the cut-off holder never found it must stop"
            await asyncio.sleep(0.02)
        assert "no heartbeat" in lost[0], lost
        assert first.lost
        released = time.monotonic()
        assert not await first.release()  # it cannot tell the database, and says so
        assert time.monotonic() - released < first.beat_timeout + TIMING.heartbeat + 1.5
    finally:
        proxy.mend()
        await first.close()
        await second.close()
        await proxy.close()


async def test_a_member_cut_off_inside_the_identify_queue_frees_its_bucket(url: str) -> None:
    """The IDENTIFY queue holds a bucket's advisory lock while it waits out the window. A process cut off there left
    the server waiting for its next statement inside that transaction, the lock held until the server noticed the dead
    client (its TCP keepalive: two hours), and every other process's IDENTIFY of that bucket with it. The server now
    ends such a transaction once it has idled past the wait plus ``stale_after``."""
    proxy = StallingProxy(url)
    cut_url = await proxy.start()
    first, second = await member(cut_url, "host-a:1"), await member(url, "host-b:2")
    window = 0.6
    try:
        assert await second.identify_turn(0, 2, window=window) == 0.0
        turn = asyncio.ensure_future(first.identify_turn(2, 2, window=window))  # same bucket: takes the lock, waits
        await asyncio.sleep(0.3)
        proxy.stall()  # cut off while holding the bucket
        started = time.monotonic()
        await asyncio.wait_for(second.identify_turn(0, 2, window=window), window + TIMING.stale_after + 5)
        assert time.monotonic() - started < window + TIMING.stale_after + 3
        turn.cancel()
    finally:
        proxy.mend()
        await first.close()
        await second.close()
        await proxy.close()
