"""Writers racing, duplicate deliveries and cancellation, on both backends.

A second ``Storage`` opened on the same database stands for a second bot process: on SQLite it is a second
connection to the same file (``BEGIN IMMEDIATE`` + ``busy_timeout``), on PostgreSQL a second connection pool.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator

import pytest

from pancog.infra.storage import Account, Posting, storage_for, transfer
from pancog.infra.storage.sqlite import _to_the_end
from pancog.services.ledger import ChipLedger, InsufficientChips
from pancog.services.store import TableStore
from tests.support.storage import GUILD, AnyStorage


@pytest.fixture
async def other(database: str, storage: AnyStorage) -> AsyncIterator[AnyStorage]:
    """A second, independent storage on the same (already migrated) database."""
    async with storage_for(database) as opened:
        yield opened


def bank(user: int) -> Account:
    return Account.bank(GUILD, user)


async def test_writers_racing_for_the_same_accounts_lose_no_update_and_never_deadlock(
    storage: AnyStorage, other: AnyStorage
) -> None:
    """Two processes post 120 transactions over the same three accounts, each listing them in its own order.

    Accounts are locked in key order whatever the postings' order, so opposite orders queue instead of
    deadlocking; every delta lands exactly once (no lost update).
    """
    users = (1, 2, 3)
    ledgers = (ChipLedger(storage), ChipLedger(other))
    await ledgers[0].grant(GUILD, 1, 10_000, actor="system", reason="seed", key="seed:1")
    await ledgers[1].grant(GUILD, 2, 10_000, actor="system", reason="seed", key="seed:2")
    await ledgers[0].grant(GUILD, 3, 10_000, actor="system", reason="seed", key="seed:3")
    rng = random.Random(17)
    expected = dict.fromkeys(users, 10_000)
    jobs: list[tuple[ChipLedger, list[Posting], str]] = []
    for index in range(120):
        a, b, c = rng.sample(users, 3)  # pay b and c from a: three accounts, in a random order
        x, y = rng.randint(1, 40), rng.randint(1, 40)
        postings = [Posting(bank(a), -(x + y)), Posting(bank(b), x), Posting(bank(c), y)]
        rng.shuffle(postings)
        expected[a] -= x + y
        expected[b] += x
        expected[c] += y
        jobs.append((ledgers[index % 2], postings, f"race:{index}"))
    receipts = await asyncio.wait_for(
        asyncio.gather(*(ledger.transact(postings, key=key, reason="race") for ledger, postings, key in jobs)),
        timeout=60,
    )
    assert all(r.created for r in receipts)
    assert {u: await ledgers[u % 2].balance(GUILD, u) for u in users} == expected
    report = await ledgers[1].audit()
    assert report.ok, report.summary()
    assert report.facts.journals == 3 + 120


async def test_racing_debits_never_overdraw_across_processes(storage: AnyStorage, other: AnyStorage) -> None:
    """Both processes try to spend the same 1,000 chips 100 at a time: exactly ten debits succeed."""
    first, second = ChipLedger(storage), ChipLedger(other)
    await first.grant(GUILD, 1, 1_000, actor="system", reason="seed", key="seed")

    async def spend(ledger: ChipLedger, index: int) -> bool:
        try:
            await ledger.transact(transfer(bank(1), bank(100 + index), 100), key=f"spend:{index}", reason="spend")
        except InsufficientChips:
            return False
        return True

    results = await asyncio.gather(*(spend((first, second)[i % 2], i) for i in range(30)))
    assert sum(results) == 10
    assert await second.balance(GUILD, 1) == 0
    assert (await first.audit()).ok


async def test_duplicate_deliveries_to_two_processes_post_once(
    storage: AnyStorage, other: AnyStorage, table: int
) -> None:
    """The same table action delivered 10 times to each of two processes at once: one log entry, one payment."""
    stores = (TableStore(storage), TableStore(other))
    pay = transfer(Account.stack(table, 11), Account.stack(table, 12), 25)
    receipts = await asyncio.gather(*(stores[i % 2].commit_action(table, 1, "pay 25", "[]", pay) for i in range(20)))
    assert sum(r.created for r in receipts) == 1
    assert len({r.journal_id for r in receipts}) == 1
    ledger = ChipLedger(other)
    assert await ledger.balances([Account.stack(table, 11), Account.stack(table, 12)]) == {
        Account.stack(table, 11): 175,
        Account.stack(table, 12): 225,
    }
    assert [seq for seq, _, _ in await stores[1].read_log(table)] == [1]
    granted = await asyncio.gather(
        *(ChipLedger(s).grant(GUILD, 9, 50, actor=1, reason="r", key="interaction:7") for s in (storage, other) * 5)
    )
    assert sum(g.created for g in granted) == 1 and await ledger.balance(GUILD, 9) == 50


async def test_cancelled_inside_the_transaction_leaves_nothing(storage: AnyStorage) -> None:
    """A caller cancelled after its postings, before COMMIT: nothing persists and the storage keeps working."""
    ledger = ChipLedger(storage)
    await ledger.ensure_player(GUILD, 7)
    posted = asyncio.Event()

    async def transfer_then_hang() -> None:
        async with storage.transaction() as tx:
            journal = await tx.insert_journal(key="k", reason="r", actor="system", table_id=None, created_at=0)
            assert journal is not None
            await tx.post(journal, transfer(bank(7), bank(8), 600))
            posted.set()
            await asyncio.sleep(30)

    task = asyncio.create_task(transfer_then_hang())
    await asyncio.wait_for(posted.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await ledger.balances([bank(7), bank(8)]) == {bank(7): 1000, bank(8): 0}
    receipt = await ledger.transact(transfer(bank(7), bank(8), 600), key="k", reason="r")
    assert receipt.created  # the key was rolled back with the postings
    assert await ledger.balances([bank(7), bank(8)]) == {bank(7): 400, bank(8): 600}


async def test_cancellation_at_random_moments_never_splits_a_transfer(
    storage: AnyStorage, caplog: pytest.LogCaptureFixture
) -> None:
    """Five rounds of 60 transfers started at once, each cancelled at a random moment within 40 ms (before, during
    or after its statements, COMMIT included): every transfer is either wholly committed (its journal exists and
    both legs landed) or absent; a cancelled caller sees only its CancelledError, never the connection's state
    ("another operation is in progress"), and no connection goes back to the pool in the middle of a COMMIT
    (asyncpg logs that, and an orphaned COMMIT's error, at ERROR)."""
    ledger = ChipLedger(storage)
    users = range(1, 5)
    for user in users:
        await ledger.ensure_player(GUILD, user)
    moves: dict[str, tuple[int, int, int]] = {}
    outcomes: list[object] = []
    loop = asyncio.get_running_loop()
    for seed in range(5, 10):
        rng = random.Random(seed)
        round_moves = {f"c{seed}:{i}": (*rng.sample(list(users), 2), rng.randint(1, 20)) for i in range(60)}
        moves |= round_moves
        tasks = {
            key: asyncio.create_task(ledger.transact(transfer(bank(a), bank(b), n), key=key, reason="c"))
            for key, (a, b, n) in round_moves.items()
        }
        for task in tasks.values():
            loop.call_later(rng.uniform(0, 0.04), task.cancel)
        outcomes += await asyncio.gather(*tasks.values(), return_exceptions=True)
    assert all(isinstance(o, asyncio.CancelledError) or getattr(o, "created", False) for o in outcomes), [
        o for o in outcomes if not isinstance(o, asyncio.CancelledError)
    ]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    expected = dict.fromkeys(users, 1000)
    async with storage.transaction(write=False) as tx:
        committed = [key for key in moves if await tx.find_journal(key) is not None]
    for key in committed:
        a, b, n = moves[key]
        expected[a] -= n
        expected[b] += n
    assert {u: await ledger.balance(GUILD, u) for u in users} == expected
    report = await ledger.audit()
    assert report.ok, report.summary()
    assert report.facts.journals == len(users) + len(committed)
    assert len(committed) >= sum(not isinstance(o, BaseException) for o in outcomes)
    receipt = await ledger.transact(transfer(bank(1), bank(2), 1), key="after", reason="still works")
    assert receipt.created


async def test_a_cancel_that_lands_as_a_statement_ends_is_still_raised() -> None:
    """The caller of a shielded BEGIN/COMMIT is cancelled in the same loop turn the statement finishes: the cancel is
    raised after it (it was swallowed once, and a delivery loop then outlived its stop() and hung the shutdown)."""
    loop = asyncio.get_running_loop()
    statement: asyncio.Future[int] = loop.create_future()
    caller = asyncio.ensure_future(_to_the_end(statement))
    await asyncio.sleep(0)  # the caller waits on the shield
    statement.set_result(1)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert statement.result() == 1  # the statement itself ran to its end
