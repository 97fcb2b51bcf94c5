"""All-or-nothing commits, idempotent retries and concurrent transfers."""

from __future__ import annotations

import asyncio
import random

import pytest

from pancog.infra.storage import Account, IdempotencyConflict, LogConflict, Posting, transfer
from pancog.services.ledger import ChipLedger, InsufficientChips
from pancog.services.store import TableStore
from tests.support.storage import GUILD, AnyStorage, raw_execute, tx_class


def stack(user: int, table: int = 500) -> Account:
    return Account.stack(table, user)


async def snapshot(ledger: ChipLedger, store: TableStore, table: int) -> tuple[object, ...]:
    accounts = [stack(u, table) for u in (11, 12, 13)] + [Account.tops(table, "singles"), Account.bank(GUILD, 11)]
    row = await store.get_table(table)
    assert row is not None
    return (await ledger.balances(accounts), row.last_seq, await store.read_log(table))


async def test_overdraw_after_earlier_postings_and_log_append_persists_nothing(
    ledger: ChipLedger, store: TableStore, storage: AnyStorage, table: int
) -> None:
    await store.commit_action(table, 1, "ante", "[]", [*transfer(stack(11), Account.tops(table, "singles"), 5)])
    before = await snapshot(ledger, store, table)
    postings = [
        *transfer(stack(11), stack(12), 50),  # fine
        *transfer(stack(12), Account.tops(table, "singles"), 10),  # fine
        *transfer(stack(13), stack(11), 201),  # overdraws: 13 holds 200
    ]
    with pytest.raises(InsufficientChips) as caught:
        await store.commit_action(table, 2, "settle", "[]", postings)
    assert (caught.value.needed, caught.value.available, caught.value.account) == (201, 200, stack(13))
    assert await snapshot(ledger, store, table) == before
    async with storage.transaction(write=False) as tx:
        assert await tx.find_journal("table:500:seq:2") is None  # the key is free for a corrected retry
    receipt = await store.commit_action(table, 2, "settle", "[]", postings[:4])
    assert receipt.created
    assert (await ledger.audit()).ok


async def test_failure_injected_after_postings_rolls_back_postings(
    ledger: ChipLedger, store: TableStore, storage: AnyStorage, table: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = await snapshot(ledger, store, table)

    async def broken_append(self: object, **kwargs: object) -> None:
        await raw_execute(
            self,
            "INSERT INTO actions (table_id, seq, action, events, created_at) VALUES (500, 1, 'half-written', '[]', 0)",
        )
        raise OSError("disk on fire")

    monkeypatch.setattr(tx_class(storage), "append_action", broken_append)
    with pytest.raises(OSError, match="disk on fire"):
        await store.commit_action(table, 1, "pay", "[]", transfer(stack(11), stack(12), 30))
    monkeypatch.undo()
    assert await snapshot(ledger, store, table) == before
    assert (await ledger.audit()).ok


async def test_log_gap_rolls_back_postings(ledger: ChipLedger, store: TableStore, table: int) -> None:
    before = await snapshot(ledger, store, table)
    with pytest.raises(LogConflict):
        await store.commit_action(table, 2, "skips seq 1", "[]", transfer(stack(11), stack(12), 30))
    assert await snapshot(ledger, store, table) == before


async def test_exception_inside_transaction_block_rolls_back(ledger: ChipLedger, storage: AnyStorage) -> None:
    await ledger.ensure_player(GUILD, 7)
    with pytest.raises(RuntimeError, match="injected"):
        async with storage.transaction() as tx:
            journal = await tx.insert_journal(key="k", reason="r", actor="system", table_id=None, created_at=0)
            assert journal is not None
            await tx.post(journal, transfer(Account.bank(GUILD, 7), Account.bank(GUILD, 8), 600))
            raise RuntimeError("injected")
    assert await ledger.balances([Account.bank(GUILD, 7), Account.bank(GUILD, 8)]) == {
        Account.bank(GUILD, 7): 1000,
        Account.bank(GUILD, 8): 0,
    }
    receipt = await ledger.transact(transfer(Account.bank(GUILD, 7), Account.bank(GUILD, 8), 600), key="k", reason="r")
    assert receipt.created  # the key was rolled back with everything else


async def test_unbalanced_postings_are_refused(ledger: ChipLedger) -> None:
    with pytest.raises(ValueError, match="sum to zero"):
        await ledger.transact(
            [Posting(Account.issued(GUILD), -5), Posting(Account.bank(GUILD, 1), 4)], key="x", reason="r"
        )
    with pytest.raises(ValueError, match="non-zero"):
        await ledger.transact([Posting(Account.bank(GUILD, 1), 0)], key="y", reason="r")
    assert (await ledger.audit()).facts.journals == 0


async def test_retry_with_same_key_never_pays_twice(ledger: ChipLedger, store: TableStore, table: int) -> None:
    pay = transfer(stack(11), stack(12), 40)
    first = await store.commit_action(table, 1, "pay 40", "[]", pay)
    second = await store.commit_action(table, 1, "pay 40", "[]", pay)
    assert first.created and not second.created
    assert second.journal_id == first.journal_id and second.postings == first.postings
    assert await ledger.balances([stack(11), stack(12)]) == {stack(11): 160, stack(12): 240}
    assert [seq for seq, _, _ in await store.read_log(table)] == [1]
    with pytest.raises(IdempotencyConflict):
        await store.commit_action(table, 1, "pay 41", "[]", transfer(stack(11), stack(12), 41))
    grant = await ledger.grant(GUILD, 5, 10, actor=1, reason="r", key="interaction:99")
    again = await ledger.grant(GUILD, 5, 10, actor=1, reason="r", key="interaction:99")
    assert grant.created and not again.created
    assert await ledger.balance(GUILD, 5) == 10
    assert (await ledger.audit()).ok


async def test_concurrent_retries_of_one_key_post_once(ledger: ChipLedger, store: TableStore, table: int) -> None:
    pay = transfer(stack(11), stack(12), 7)
    receipts = await asyncio.gather(*(store.commit_action(table, 1, "pay 7", "[]", pay) for _ in range(20)))
    assert sum(r.created for r in receipts) == 1
    assert await ledger.balances([stack(11), stack(12)]) == {stack(11): 193, stack(12): 207}


async def test_fifty_concurrent_transfers_conserve_chips(ledger: ChipLedger) -> None:
    users = list(range(1, 6))
    for user in users:
        await ledger.ensure_player(GUILD, user)
    rng = random.Random(4)
    moves = [(*rng.sample(users, 2), rng.randint(100, 700)) for _ in range(50)]

    async def move(index: int, payer: int, payee: int, amount: int) -> bool:
        try:
            await ledger.transact(
                transfer(Account.bank(GUILD, payer), Account.bank(GUILD, payee), amount), key=f"m{index}", reason="t"
            )
        except InsufficientChips:
            return False
        return True

    results = await asyncio.gather(*(move(i, *m) for i, m in enumerate(moves)))
    assert 0 < sum(results) < 50  # some succeed, some are refused for lack of chips
    balances = await ledger.balances([Account.bank(GUILD, u) for u in users])
    assert sum(balances.values()) == 5000
    assert min(balances.values()) >= 0
    expected = dict.fromkeys(users, 1000)
    for ok, (payer, payee, amount) in zip(results, moves, strict=True):
        if ok:
            expected[payer] -= amount
            expected[payee] += amount
    assert {a.user_id: b for a, b in balances.items()} == expected
    report = await ledger.audit()
    assert report.ok, report.summary()
    assert report.facts.journals == 5 + sum(results)
