"""Ledger rules that a bank must keep, each with the refusal it gives: amounts, idempotency, actors,
tables, settings and the audit. Every refusal is checked by type and message, and changes nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from pancog.infra.storage import Account, Posting, SqliteStorage, transfer
from pancog.infra.storage.base import AuditFacts, IdempotencyConflict
from pancog.services.ledger import AuditReport, ChipLedger, InsufficientChips, InvalidAmount, TableClosed
from pancog.services.store import TableStore
from tests.support.storage import GUILD, Clock

BAD_AMOUNTS = [0, -5, True, 1.5, "10", None]


async def unchanged(ledger: ChipLedger, storage: SqliteStorage, call: Callable[[], Awaitable[object]]) -> None:
    """``call`` must be refused by the caller's pytest.raises and leave the books as they were."""
    async with storage.transaction(write=False) as tx:
        before = await tx.audit_facts()
    try:
        await call()
    finally:
        async with storage.transaction(write=False) as tx:
            after = await tx.audit_facts()
        assert (after.journals, after.postings, after.total_non_system) == (
            before.journals,
            before.postings,
            before.total_non_system,
        )


@pytest.mark.parametrize("amount", BAD_AMOUNTS)
async def test_every_bank_operation_refuses_a_bad_amount(
    ledger: ChipLedger, storage: SqliteStorage, store: TableStore, amount: object
) -> None:
    await store.open_table(9, guild_id=GUILD, channel_id=9, host_id=7, config="{}")
    await ledger.buy_in(9, 7, 100)
    calls: list[Callable[[], Awaitable[object]]] = [
        lambda: ledger.grant(GUILD, 7, amount, actor=42, reason="x"),  # type: ignore[arg-type]
        lambda: ledger.take(GUILD, 7, amount, actor=42, reason="x"),  # type: ignore[arg-type]
        lambda: ledger.buy_in(9, 7, amount),  # type: ignore[arg-type]
        lambda: ledger.rebuy(9, 7, amount),  # type: ignore[arg-type]
    ]
    if amount is not None:  # cash_out(amount=None) means "the whole stack"
        calls.append(lambda: ledger.cash_out(9, 7, amount))  # type: ignore[arg-type]
    for call in calls:
        with pytest.raises(InvalidAmount, match="whole number of chips above zero") as caught:
            await unchanged(ledger, storage, call)
        assert caught.value.amount == amount and caught.value.code == "invalid_amount"
    assert await ledger.balance(GUILD, 7) == 900


async def test_a_buy_in_grants_the_starting_chips_first_and_records_who_and_why(
    ledger: ChipLedger, storage: SqliteStorage, store: TableStore
) -> None:
    await store.open_table(9, guild_id=GUILD, channel_id=9, host_id=7, config="{}")
    first = await ledger.buy_in(9, 7, 150, key="b1")
    again = await ledger.rebuy(9, 7, 50, key="r1")
    assert first.created and again.created
    assert first.postings == (Posting(Account.bank(GUILD, 7), -150), Posting(Account.stack(9, 7), 150))
    assert await ledger.balance(GUILD, 7) == 800
    async with storage.transaction(write=False) as tx:
        b1, r1 = await tx.find_journal("b1"), await tx.find_journal("r1")
        start = await tx.find_journal(f"start:{GUILD}:7")
    assert b1 is not None and r1 is not None and start is not None
    assert (b1.reason, b1.actor, b1.table_id) == ("buy-in", "7", 9)
    assert (r1.reason, r1.actor, r1.table_id) == ("rebuy", "7", 9)
    assert (start.reason, start.actor, start.table_id) == ("starting chips", "system", None)
    with pytest.raises(InsufficientChips, match="needs 801 and only 800") as caught:
        await unchanged(ledger, storage, lambda: ledger.buy_in(9, 7, 801))
    assert caught.value.account == Account.bank(GUILD, 7)


async def test_retries_with_the_same_key_post_once(ledger: ChipLedger, storage: SqliteStorage) -> None:
    one = await ledger.grant(GUILD, 7, 30, actor=42, reason="prize", key="k")
    two = await ledger.grant(GUILD, 7, 30, actor=42, reason="prize", key="k")
    assert one.created and not two.created
    assert (two.journal_id, two.postings) == (one.journal_id, one.postings)
    assert await ledger.balance(GUILD, 7) == 30
    with pytest.raises(IdempotencyConflict, match="already used for different postings"):
        await unchanged(ledger, storage, lambda: ledger.grant(GUILD, 7, 31, actor=42, reason="prize", key="k"))
    assert await ledger.balance(GUILD, 7) == 30


async def test_transact_refuses_unbalanced_or_empty_postings(ledger: ChipLedger, storage: SqliteStorage) -> None:
    a, b = Account.bank(GUILD, 1), Account.bank(GUILD, 2)
    await ledger.grant(GUILD, 1, 10, actor="system", reason="seed")
    with pytest.raises(ValueError, match="sum to zero, not 1"):
        await unchanged(ledger, storage, lambda: ledger.transact([Posting(a, -1), Posting(b, 2)], key="u", reason="x"))
    with pytest.raises(ValueError, match="non-zero ints"):
        await unchanged(ledger, storage, lambda: ledger.transact([Posting(a, 0), Posting(b, 0)], key="z", reason="x"))
    with pytest.raises(ValueError, match="non-zero ints"):
        await unchanged(
            ledger, storage, lambda: ledger.transact([Posting(a, True), Posting(b, -1)], key="t", reason="x")
        )
    with pytest.raises(InsufficientChips, match="needs 11 and only 10"):
        await unchanged(ledger, storage, lambda: ledger.transact(transfer(a, b, 11), key="o", reason="x"))
    done = await ledger.transact(transfer(a, b, 10), key="ok", reason="move", actor=1)
    assert done.created
    assert await ledger.balances([a, b]) == {a: 0, b: 10}


@pytest.mark.parametrize(("actor", "error", "message"), [(True, TypeError, "user id"), ("bob", ValueError, "'bob'")])
async def test_an_actor_is_a_user_id_or_system(
    ledger: ChipLedger, storage: SqliteStorage, actor: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        await unchanged(ledger, storage, lambda: ledger.grant(GUILD, 7, 5, actor=actor, reason="x"))  # type: ignore[arg-type]


async def test_cash_out_on_closed_and_unknown_tables(
    ledger: ChipLedger, store: TableStore, storage: SqliteStorage
) -> None:
    await store.open_table(9, guild_id=GUILD, channel_id=9, host_id=7, config="{}")
    await ledger.buy_in(9, 7, 100)
    with pytest.raises(InsufficientChips, match="needs 101 and only 100"):
        await unchanged(ledger, storage, lambda: ledger.cash_out(9, 7, 101))
    part = await ledger.cash_out(9, 7, 40)
    assert part is not None and part.postings == (
        Posting(Account.stack(9, 7), -40),
        Posting(Account.bank(GUILD, 7), 40),
    )
    await store.close_table(9)  # cashes the remaining 60 out
    with pytest.raises(TableClosed, match="closed or does not exist") as caught:
        await unchanged(ledger, storage, lambda: ledger.buy_in(9, 7, 10))
    assert caught.value.table_id == 9
    assert await ledger.cash_out(9, 7) is None  # nothing left behind; a closed table still answers
    assert await ledger.balance(GUILD, 7) == 1000
    with pytest.raises(TableClosed, match="closed or does not exist"):
        await unchanged(ledger, storage, lambda: ledger.cash_out(404, 7))


async def test_zero_starting_chips_and_zero_daily_grant_post_nothing(
    ledger: ChipLedger, storage: SqliteStorage
) -> None:
    await ledger.update_settings(GUILD, starting_chips=0, daily_amount=0)
    assert await ledger.ensure_player(GUILD, 7) == 0
    claim = await ledger.claim_daily(GUILD, 7)
    assert (claim.claimed, claim.amount, claim.balance) == (False, 0, 0)
    async with storage.transaction(write=False) as tx:
        assert (await tx.audit_facts()).journals == 0


async def test_daily_claim_is_per_player_and_per_guild(ledger: ChipLedger, clock: Clock) -> None:
    assert (await ledger.claim_daily(GUILD, 7)).claimed
    assert (await ledger.claim_daily(GUILD, 8)).claimed
    assert (await ledger.claim_daily(GUILD + 1, 7)).claimed
    assert not (await ledger.claim_daily(GUILD, 7)).claimed
    clock.now += 86_400
    assert (await ledger.claim_daily(GUILD, 7)).amount == 100


@pytest.mark.parametrize(
    "changes", [{"starting_chips": -1}, {"daily_amount": True}, {"starting_chips": 2.5}, {"daily_amount": "5"}]
)
async def test_settings_refuse_bad_amounts(ledger: ChipLedger, changes: dict[str, object]) -> None:
    with pytest.raises(InvalidAmount, match="whole number"):
        await ledger.update_settings(GUILD, **changes)
    assert (await ledger.settings(GUILD)).starting_chips == 1000


async def test_leaderboard_limits(ledger: ChipLedger) -> None:
    for user in (1, 2, 3):
        await ledger.grant(GUILD, user, user * 10, actor="system", reason="seed")
    assert await ledger.leaderboard(GUILD, 1) == [(3, 30)]
    assert await ledger.leaderboard(GUILD, 0) == []
    assert await ledger.leaderboard(GUILD, -3) == []


def test_audit_report_wording() -> None:
    facts = AuditFacts(
        accounts=3,
        journals=2,
        postings=4,
        total_non_system=1500,
        total_issued=-1500,
        cached_mismatch=(),
        unbalanced_journals=(),
        negative_accounts=(),
        log_gaps=(),
    )
    report = AuditReport(facts, ())
    assert report.ok and report.chips_in_play == 1500
    assert report.summary() == "OK: 3 accounts, 2 transactions, 4 postings; 1,500 chips held, 1,500 issued."
    bad = AuditReport(facts, ("bank:1:7 is negative (-5)",))
    assert not bad.ok
    assert bad.summary().splitlines() == [
        "FAILED: 3 accounts, 2 transactions, 4 postings; 1,500 chips held, 1,500 issued.",
        "bank:1:7 is negative (-5)",
    ]


async def test_audit_names_an_unbalanced_transaction(ledger: ChipLedger, storage: SqliteStorage) -> None:
    await ledger.grant(GUILD, 7, 50, actor="system", reason="seed", key="seed")
    async with storage.transaction() as tx:  # a rogue leg added to a committed transaction
        await tx._conn.execute(  # type: ignore[attr-defined]
            "INSERT INTO postings (journal_id, leg, account_key, delta) "
            "SELECT id, 99, 'bank:1:7', 5 FROM journals WHERE idem_key = 'seed'"
        )
    report = await ledger.audit()
    assert not report.ok
    assert "transaction seed sums to 5, not 0" in report.problems
