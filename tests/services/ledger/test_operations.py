"""Bank operations: starting chips, daily claims, admin grant/take, buy-in/cash-out, leaderboard, settings."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pancog.game.errors import PanError
from pancog.infra.storage import Account, AccountKind, Posting, transfer
from pancog.services.ledger import ChipLedger, InsufficientChips, InvalidAmount, TableClosed
from pancog.services.store import TableStore
from tests.support.storage import GUILD, AnyStorage, Clock, database_errors, raw_execute


def test_account_keys_round_trip() -> None:
    accounts = [Account.bank(1, 2), Account.stack(3, -4), Account.tops(5, "doubles"), Account.issued(6)]
    assert [a.key for a in accounts] == ["bank:1:2", "stack:3:-4", "tops:5:doubles", "issued:6"]
    assert [Account.parse(a.key) for a in accounts] == accounts
    assert [a.is_system for a in accounts] == [False, False, False, True]
    for bad in ("bank:1", "tops:5:triples", "cash:1:2", "issued:x"):
        with pytest.raises(ValueError, match="account key"):
            Account.parse(bad)


def test_transfer_builds_two_balanced_postings() -> None:
    a, b = Account.bank(1, 2), Account.stack(9, 2)
    assert transfer(a, b, 40) == (Posting(a, -40), Posting(b, 40))
    for amount in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="positive"):
            transfer(a, b, amount)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="different"):
        transfer(a, a, 1)


def test_insufficient_chips_is_a_player_readable_pan_error() -> None:
    error = InsufficientChips(needed=500, available=120)
    assert isinstance(error, PanError)
    assert error.code == "insufficient_chips"
    assert (error.needed, error.available) == (500, 120)
    assert "500" in error.message and "120" in error.message


async def test_starting_chips_granted_once(ledger: ChipLedger) -> None:
    assert await ledger.balance(GUILD, 7) == 0
    assert await ledger.ensure_player(GUILD, 7) == 1000
    assert await ledger.ensure_player(GUILD, 7) == 1000
    assert await ledger.balance(GUILD, 7) == 1000
    assert await ledger.balances([Account.issued(GUILD)]) == {Account.issued(GUILD): -1000}


async def test_starting_chips_follow_guild_setting(ledger: ChipLedger) -> None:
    await ledger.update_settings(GUILD, starting_chips=250)
    assert await ledger.ensure_player(GUILD, 7) == 250
    await ledger.update_settings(GUILD, starting_chips=5000)  # an existing player is not topped up
    assert await ledger.ensure_player(GUILD, 7) == 250
    assert await ledger.ensure_player(2, 7) == 1000  # another guild keeps the default


async def test_daily_claim_once_per_utc_day(ledger: ChipLedger, clock: Clock) -> None:
    first = await ledger.claim_daily(GUILD, 7)  # also grants the starting chips
    assert (first.claimed, first.amount, first.balance) == (True, 100, 1100)
    assert first.next_claim_in == timedelta(hours=12)
    clock.now += 3 * 3600
    again = await ledger.claim_daily(GUILD, 7)
    assert (again.claimed, again.amount, again.balance) == (False, 0, 1100)
    assert again.next_claim_in == timedelta(hours=9)
    clock.now += 9 * 3600  # 00:00 UTC the next day
    await ledger.update_settings(GUILD, daily_amount=50)
    next_day = await ledger.claim_daily(GUILD, 7)
    assert (next_day.claimed, next_day.amount, next_day.balance) == (True, 50, 1150)
    assert next_day.next_claim_in == timedelta(days=1)


async def test_the_smallest_amount_is_one_chip(ledger: ChipLedger) -> None:
    """Admin grants and takes accept any positive whole number of chips, 1 included; 0 is refused."""
    await ledger.ensure_player(GUILD, 7)
    await ledger.grant(GUILD, 7, 1, actor=42, reason="one", key="admin:one")
    await ledger.take(GUILD, 7, 1, actor=42, reason="one back", key="admin:one-back")
    assert await ledger.balance(GUILD, 7) == 1000
    with pytest.raises(InvalidAmount):
        await ledger.grant(GUILD, 7, 0, actor=42, reason="nothing", key="admin:zero")


async def test_one_starting_chip_is_granted(ledger: ChipLedger) -> None:
    """Any positive starting amount is granted, the smallest too (0 grants nothing)."""
    await ledger.update_settings(GUILD, starting_chips=1)
    assert await ledger.ensure_player(GUILD, 7) == 1
    assert await ledger.ensure_player(GUILD, 7) == 1  # once


async def test_daily_amount_changed_the_same_day_is_not_a_second_claim(ledger: ChipLedger, clock: Clock) -> None:
    """An admin changing the daily grant after a player claimed today: a second claim that day is still just
    "already claimed" (no chips, no error), not a conflict over the day's journal key."""
    first = await ledger.claim_daily(GUILD, 7)
    assert (first.claimed, first.amount, first.balance) == (True, 100, 1100)
    await ledger.update_settings(GUILD, daily_amount=250)
    clock.now += 3600
    again = await ledger.claim_daily(GUILD, 7)
    assert (again.claimed, again.amount, again.balance) == (False, 0, 1100)


async def test_admin_grant_and_take_are_audited(ledger: ChipLedger, storage: AnyStorage) -> None:
    grant = await ledger.grant(GUILD, 7, 300, actor=42, reason="tournament prize", key="admin:1")
    take = await ledger.take(GUILD, 7, 100, actor=42, reason="refund", key="admin:2")
    assert await ledger.balance(GUILD, 7) == 200
    async with storage.transaction(write=False) as tx:
        recorded = await tx.find_journal("admin:1")
        taken = await tx.find_journal("admin:2")
    assert recorded is not None and taken is not None
    assert (recorded.actor, recorded.reason) == ("42", "admin grant: tournament prize")
    assert (taken.actor, taken.reason) == ("42", "admin take: refund")
    assert recorded.postings == grant.postings and taken.postings == take.postings
    with pytest.raises(InsufficientChips) as caught:
        await ledger.take(GUILD, 7, 201, actor=42, reason="too much")
    assert (caught.value.needed, caught.value.available) == (201, 200)
    assert await ledger.balance(GUILD, 7) == 200
    with pytest.raises(InvalidAmount):
        await ledger.grant(GUILD, 7, 0, actor=42, reason="nothing")
    assert (await ledger.audit()).ok


async def test_buy_in_rebuy_and_cash_out(ledger: ChipLedger, store: TableStore) -> None:
    await store.open_table(9, guild_id=GUILD, channel_id=9, host_id=7, config="{}")
    await ledger.buy_in(9, 7, 400)
    await ledger.rebuy(9, 7, 100)
    assert await ledger.balance(GUILD, 7) == 500
    stack = Account.stack(9, 7)
    assert (await ledger.balances([stack]))[stack] == 500
    with pytest.raises(InsufficientChips) as caught:
        await ledger.buy_in(9, 7, 501)
    assert (caught.value.needed, caught.value.available) == (501, 500)
    partial = await ledger.cash_out(9, 7, 200)
    assert partial is not None and partial.created
    rest = await ledger.cash_out(9, 7)
    assert rest is not None and rest.postings[0] == Posting(stack, -300)
    assert await ledger.cash_out(9, 7) is None
    assert await ledger.balance(GUILD, 7) == 1000
    with pytest.raises(TableClosed):
        await ledger.buy_in(404, 7, 100)


async def test_leaderboard_excludes_computer_players(ledger: ChipLedger) -> None:
    for user, extra in ((1, 50), (2, 500), (3, 5), (-1, 10_000), (-2, 900)):
        await ledger.grant(GUILD, user, extra, actor="system", reason="seed")
    await ledger.grant(2, 99, 1_000_000, actor="system", reason="other guild")
    assert await ledger.leaderboard(GUILD, 2) == [(2, 500), (1, 50)]
    assert await ledger.leaderboard(GUILD) == [(2, 500), (1, 50), (3, 5)]


async def test_guild_settings_round_trip(ledger: ChipLedger) -> None:
    assert (await ledger.settings(GUILD)).starting_chips == 1000
    updated = await ledger.update_settings(GUILD, preset="las-vegas", daily_amount=250, moderator_role_id=77)
    assert await ledger.settings(GUILD) == updated
    assert (updated.preset, updated.daily_amount, updated.moderator_role_id, updated.starting_chips) == (
        "las-vegas",
        250,
        77,
        1000,
    )
    with pytest.raises(InvalidAmount):
        await ledger.update_settings(GUILD, daily_amount=-5)
    with pytest.raises(TypeError, match="unknown guild settings"):
        await ledger.update_settings(GUILD, colour="red")


async def test_audit_detects_tampering(ledger: ChipLedger, storage: AnyStorage) -> None:
    await ledger.ensure_player(GUILD, 7)
    report = await ledger.audit()
    assert report.ok and report.chips_in_play == 1000
    assert "OK" in report.summary()
    async with storage.transaction() as tx:  # a rogue write that bypasses the ledger
        await raw_execute(tx, "UPDATE accounts SET balance = balance + 5 WHERE key = 'bank:1:7'")
    report = await ledger.audit()
    assert not report.ok
    assert any("bank:1:7" in problem for problem in report.problems)
    assert any("issued" in problem for problem in report.problems)


async def test_audit_reports_a_negative_balance(ledger: ChipLedger, storage: AnyStorage, backend: str) -> None:
    """A player's bank below zero (table stakes: nobody plays behind) is an audit problem of its own. The
    schema's CHECK refuses it; a rogue writer can get past it — on SQLite by switching CHECKs off for the session,
    on PostgreSQL only by dropping the constraint (an owner's DDL) — and the audit still says so."""
    await ledger.ensure_player(GUILD, 7)
    async with storage.transaction() as tx:  # a rogue write that bypasses the ledger and the CHECK
        if backend == "sqlite":
            await raw_execute(tx, "PRAGMA ignore_check_constraints = ON")
        else:
            await raw_execute(
                tx,
                "DO $$ DECLARE c text; BEGIN FOR c IN SELECT conname FROM pg_constraint "
                "WHERE conrelid = 'accounts'::regclass AND contype = 'c' "
                "AND pg_get_constraintdef(oid) LIKE '%balance%' LOOP "
                "EXECUTE format('ALTER TABLE accounts DROP CONSTRAINT %I', c); END LOOP; END $$",
            )
        await raw_execute(tx, "UPDATE accounts SET balance = -5 WHERE key = 'bank:1:7'")
    report = await ledger.audit()
    assert not report.ok
    assert "bank:1:7 is negative (-5)" in report.problems


async def test_append_only_tables_reject_updates(ledger: ChipLedger, storage: AnyStorage) -> None:
    await ledger.ensure_player(GUILD, 7)
    for statement in ("UPDATE postings SET delta = 1", "DELETE FROM journals"):
        with pytest.raises(database_errors(), match="append_only"):
            async with storage.transaction() as tx:
                await raw_execute(tx, statement)
    assert (await ledger.audit()).ok
    assert AccountKind.ISSUED.value == "issued"


async def test_a_daily_amount_of_one_chip_is_granted(ledger: ChipLedger) -> None:
    """The smallest daily grant is one chip: granted, not refused as nothing."""
    await ledger.update_settings(GUILD, starting_chips=0, daily_amount=1)
    claim = await ledger.claim_daily(GUILD, 7)
    assert (claim.claimed, claim.amount, claim.balance) == (True, 1, 1)
    assert await ledger.balance(GUILD, 7) == 1
