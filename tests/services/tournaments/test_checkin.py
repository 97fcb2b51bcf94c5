"""Check-in for a scheduled tournament, through the service (SQLite and PostgreSQL): the window, the refusals (each
changing nothing), and the no-shows refunded in one journal at the start."""

from __future__ import annotations

import pytest

from pancog.infra.storage.base import Account
from pancog.services.tournaments.checkin import CheckIn
from pancog.services.tournaments.core import Core
from pancog.services.tournaments.errors import BadTournamentOption, NotRegistered, RegistrationClosed
from pancog.services.tournaments.levels import default_antes
from pancog.services.tournaments.model import EntryStatus, Format, Status, TournamentConfig
from pancog.services.tournaments.repository import TournamentRepository
from tests.services.tournaments.test_service import GUILD, T_ID, Env, bot, check_books

ANN, BOB, CY, DEE = 42, 43, 44, 45


async def test_no_shows_are_unregistered_and_refunded_in_one_journal_at_the_start(storage) -> None:
    env = Env(storage, hand_seconds=60)
    start = int(env.clock.now * 1000) + 60 * 60_000
    cfg = TournamentConfig(
        format=Format.SCHEDULED,
        buy_in=100,
        seats=4,
        starting_stack=300,
        antes=default_antes(10),
        start_at_ms=start,
        min_entries=2,
        checkin_minutes=15,
    )
    with pytest.raises(BadTournamentOption):
        TournamentConfig(checkin_minutes=10)  # a Sit & Go has no start time to check in for
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=ANN, config=cfg)
    assert env.service.checkin_window(T_ID) == (start - 15 * 60_000, start)
    for player in (ANN, BOB, CY, DEE, bot(1)):
        await env.service.register(T_ID, player)
    with pytest.raises(RegistrationClosed):  # too early: nothing stored
        await env.service.check_in(T_ID, ANN)
    assert not env.service.checked_in(T_ID, ANN)
    env.clock.now += 46 * 60  # 14 minutes to go: check-in is open
    await env.service.check_in(T_ID, ANN)
    await env.service.check_in(T_ID, BOB)
    with pytest.raises(RegistrationClosed):  # twice
        await env.service.check_in(T_ID, ANN)
    with pytest.raises(NotRegistered):  # not registered
        await env.service.check_in(T_ID, 99)
    await env.service.unregister(T_ID, DEE)  # unregistered before the start: refunded as always
    banks = {p: await env.ledger.balance(GUILD, p) for p in (ANN, BOB, CY, DEE)}
    assert banks[CY] == 900

    stored = CheckIn(Core(env.tables, TournamentRepository()))  # what a restart reads back
    async with storage.transaction(write=False) as tx:
        await stored.load(tx, [T_ID])
    assert stored.checked == {T_ID: {ANN, BOB}}

    env.clock.now += 15 * 60
    await env.service.tick()
    await env.settle()
    t = env.service.get(T_ID)
    assert t.status is Status.RUNNING
    cy = next(e for e in t.entries.values() if e.player_id == CY)
    assert cy.status is EntryStatus.REFUNDED  # a no-show: unregistered
    assert await env.ledger.balance(GUILD, CY) == 1000
    assert {e.player_id for e in t.entries.values() if e.status is EntryStatus.ALIVE} == {ANN, BOB, bot(1)}
    async with storage.transaction(write=False) as tx:
        journal = await tx.find_journal(f"tny:{T_ID}:noshows")
    assert journal is not None and {p.account: p.delta for p in journal.postings} == {
        Account.escrow(T_ID): -100,
        Account.bank(GUILD, CY): 100,
    }
    with pytest.raises(RegistrationClosed):  # over
        await env.service.check_in(T_ID, CY)
    await check_books(env, T_ID)
