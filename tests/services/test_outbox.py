"""The durable outbox (pancog/services/outbox.py) on both backends: owed if and only if the caller's transaction
commits, once per key, woken after the commit, claimed once, retried with a capped back-off, a permanent failure
kept until re-armed, a dead process's claims taken over, and only the guilds this process owns delivered."""

from __future__ import annotations

import pytest

from pancog.services.outbox import Backoff, Outbox
from tests.support.storage import AnyStorage, Clock

GUILD, OTHER = 1, 2


class Boom(Exception):
    pass


@pytest.fixture
def outbox(storage: AnyStorage, clock: Clock) -> Outbox:
    return Outbox(storage, clock=clock, backoff=Backoff(first=2.0, factor=2.0, cap=10.0), lease=60.0)


async def owe(outbox: Outbox, key: str, guild: int = GUILD, **payload: object) -> bool:
    async with outbox.storage.transaction() as tx:
        return await outbox.enqueue(tx, key=key, guild_id=guild, kind="test.kind", payload=payload or {"n": 1})


async def test_an_item_is_owed_only_if_its_transaction_commits_and_wakes_after_the_commit(outbox: Outbox) -> None:
    woken: list[str] = []
    outbox.subscribe(lambda: woken.append("woken"))
    with pytest.raises(Boom):
        async with outbox.storage.transaction() as tx:
            await outbox.enqueue(tx, key="a", guild_id=GUILD, kind="test.kind", payload={"x": 1})
            raise Boom
    assert await outbox.get("a") is None and woken == []
    async with outbox.storage.transaction() as tx:
        assert await outbox.enqueue(tx, key="a", guild_id=GUILD, kind="test.kind", payload={"x": [1, "y"]})
        assert woken == []  # not before the commit
    assert woken == ["woken"]
    item = await outbox.get("a")
    assert item is not None and item.status == "owed" and dict(item.payload) == {"x": [1, "y"]}
    assert not await owe(outbox, "a")  # the same key again (a retried transaction): owed once, nobody woken
    assert woken == ["woken"]


async def test_claim_takes_each_due_item_once_and_done_records_the_result(outbox: Outbox, clock: Clock) -> None:
    for key in ("k1", "k2", "k3"):
        await owe(outbox, key)
        clock.now += 1
    first = await outbox.claim(limit=2)
    assert [i.key for i in first] == ["k1", "k2"] and all(i.attempts == 1 for i in first)
    second = await outbox.claim(limit=5)
    assert [i.key for i in second] == ["k3"]  # the first two are claimed (leased), not due
    assert await outbox.claim() == []
    await outbox.done("k1", "granted")
    done = await outbox.get("k1")
    assert done is not None and (done.status, done.result, done.done_at) == ("done", "granted", clock.now)
    clock.now += 61  # the lease of the undelivered ones ran out (their process hung): due again
    assert sorted(i.key for i in await outbox.claim()) == ["k2", "k3"]


async def test_a_transient_failure_backs_off_exponentially_up_to_the_cap(outbox: Outbox, clock: Clock) -> None:
    await owe(outbox, "t")
    waits = []
    for _ in range(5):
        (item,) = await outbox.claim()
        due = await outbox.failed(item.key, "503 Service Unavailable")
        assert due is not None
        waits.append(due - clock.now)
        assert await outbox.claim() == []  # not before its time
        clock.now = due
    assert waits == [2.0, 4.0, 8.0, 10.0, 10.0]
    item = await outbox.get("t")
    assert (
        item is not None
        and item.status == "owed"
        and item.attempts == 5
        and item.last_error == "503 Service Unavailable"
    )


async def test_a_permanent_failure_is_kept_until_rearmed(outbox: Outbox, clock: Clock) -> None:
    woken: list[int] = []
    outbox.subscribe(lambda: woken.append(1))
    await owe(outbox, "p")
    await owe(outbox, "q")
    (p, q) = await outbox.claim()
    assert await outbox.failed(p.key, "the bot lacks Manage Roles", permanent=True) is None
    await outbox.done(q.key, "granted")
    for _ in range(3):  # never claimed again by itself, however long it waits
        clock.now += 10_000
        assert await outbox.claim() == []
    assert await outbox.counts(GUILD) == {"owed": 0, "failed": 1}
    assert await outbox.rearm(OTHER, ["p"]) == 0  # another guild's moderator cannot
    woken.clear()
    assert await outbox.rearm(GUILD, ["p", "q", "nothing"]) == 1  # a delivered item stays delivered
    assert woken == [1]
    (again,) = await outbox.claim()
    assert again.key == "p" and again.attempts == 2 and again.status == "owed"


async def test_a_restarted_process_takes_its_dead_predecessors_claims_at_once(
    storage: AnyStorage, clock: Clock
) -> None:
    before = Outbox(storage, clock=clock, lease=600.0)
    await owe(before, "mid-delivery")
    (claimed,) = await before.claim()
    assert claimed.claimed_at == clock.now
    clock.now += 5  # killed mid-delivery; the next process starts 5 s later, long before the lease ends
    after = Outbox(storage, clock=clock, lease=600.0)
    (taken,) = await after.claim()
    assert taken.key == "mid-delivery" and taken.attempts == 2
    assert await after.claim() == [] and await before.claim() == []  # now claimed by the new process


async def test_only_the_guilds_this_process_owns_are_claimed(outbox: Outbox) -> None:
    for n in range(4):
        await owe(outbox, f"g1-{n}", GUILD)
        await owe(outbox, f"g2-{n}", OTHER)
    outbox.set_owner(lambda guild: guild == OTHER)
    taken = await outbox.claim(limit=3)
    assert [i.guild_id for i in taken] == [OTHER] * 3  # the other guild's items did not use up the limit
    assert await outbox.next_due() is not None
    outbox.set_owner(lambda guild: False)
    assert await outbox.claim() == [] and await outbox.next_due() is None


async def test_items_lists_a_guilds_items_by_exact_key_prefix(outbox: Outbox, clock: Clock) -> None:
    for key in ("season:1:2:role:5", "season:1:2:role:6", "season:1:20:role:5", "Season:1:2:role:7"):
        await owe(outbox, key)
    await owe(outbox, "season:1:2:role:8", OTHER)
    found = await outbox.items(GUILD, prefix="season:1:2:role:")
    assert [i.key for i in found] == ["season:1:2:role:5", "season:1:2:role:6"]
    assert len(await outbox.items(GUILD)) == 4
    (item,) = await outbox.claim(limit=1)
    await outbox.done(item.key, "granted")
    clock.now += 100
    assert await outbox.prune(done_before=clock.now - 50) == 1
    assert len(await outbox.items(GUILD)) == 3
