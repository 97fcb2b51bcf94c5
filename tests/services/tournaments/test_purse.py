"""Rebuys and the add-on, knock-out bounties and guaranteed pools through the service (real TableService, computer
players, a fast clock): the ledger audit balances after every step, escrow ends at 0 and every prize is exact."""

from __future__ import annotations

import asyncio

import pytest

from pancog.infra.storage.base import Account, BankScope, Posting
from pancog.services.ledger import InsufficientChips
from pancog.services.tournaments import purse
from pancog.services.tournaments.errors import BadTournamentOption, NotRegistered, RebuyRefused, TournamentNotRunning
from pancog.services.tournaments.levels import default_antes
from pancog.services.tournaments.model import EntryStatus, Format, Status, Tournament, TournamentConfig
from pancog.services.tournaments.service import PlayerOut, TournamentFinished
from tests.services.tournaments.test_service import GUILD, T_ID, Env, bot, check_books, check_ranking


async def run_audited(env: Env, tournament_id: int, max_rounds: int = 400) -> int:
    """Run to the end, checking the tournament's and the ledger's audit after every step; the steps audited."""
    for steps in range(1, max_rounds + 1):
        await env.settle()
        await check_books(env, tournament_id)
        if env.service.get(tournament_id).status in (Status.FINISHED, Status.CANCELLED):
            return steps
        env.clock.now += 30
        await env.service.tick()
    raise AssertionError("the tournament did not finish")


async def state_of(env: Env) -> tuple[object, ...]:
    """What a refusal must leave unchanged: every entry, the escrow, the banks of the field."""
    t = env.service.get(T_ID)
    players = sorted({e.player_id for e in t.entries.values()} | {bot(99)})
    accounts = [Account.escrow(T_ID)] + [Account.bank(GUILD, p) for p in players]
    accounts += [Account.bank(BankScope.tournament(T_ID), p) for p in players]
    balances = await env.ledger.balances(accounts)
    return tuple(repr(e) for e in t.entries.values()), tuple(sorted(balances.items()))


REBUYS = TournamentConfig(
    format=Format.SNG,
    buy_in=100,
    fee=10,
    seats=4,
    starting_stack=300,
    antes=default_antes(10),
    level_minutes=10,
    rebuy_levels=2,
    rebuy_stack=600,
    max_rebuys=1,
    addon=True,
)


async def paused_start(env: Env, cfg: TournamentConfig, players: int) -> None:
    """Fill a Sit & Go and stop its clock at once: the field is seated and no hand is dealt until the test says."""
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in range(1, players + 1):
        await env.service.register(T_ID, bot(n))
    await env.service.pause(T_ID, user_id=1)  # before the seating step deals
    await env.settle()
    assert env.service.get(T_ID).status is Status.RUNNING


async def advance(env: Env, seconds: float) -> None:
    """Let the clock run ``seconds`` (a hand may be dealt meanwhile), then stop it again."""
    await env.service.resume(T_ID, user_id=1)
    env.clock.now += seconds
    await env.service.pause(T_ID, user_id=1)
    await env.settle()


async def test_rebuys_and_the_add_on_grow_the_pool_and_pay_exactly(sqlite_storage) -> None:
    env = Env(sqlite_storage, hand_seconds=0)  # the clock moves only when the test says
    await env.service.create(T_ID + 1, guild_id=GUILD, channel_id=2, host_id=1, config=REBUYS)
    await env.service.register(T_ID + 1, bot(1))
    with pytest.raises(TournamentNotRunning):  # not before the start
        await env.service.rebuy(T_ID + 1, bot(1))
    await paused_start(env, REBUYS, 4)
    t = env.service.get(T_ID)
    for n in (1, 2):  # at or below the limit: bots 1 and 2 rebuy once (their banks pay the buy-in)
        await env.ledger.grant(GUILD, bot(n), 300, actor=1, reason="rebuy money")
        before = await env.ledger.balance(GUILD, bot(n))
        entry = await env.service.rebuy(T_ID, bot(n))
        assert entry.rebuys == 1 and await env.ledger.balance(GUILD, bot(n)) == before - 100
    await env.settle()
    await check_books(env, T_ID)
    stacks = {p: c for p, c, _ in env.service.standings_now(T_ID)}
    assert stacks[bot(1)] == stacks[bot(2)] == 600 and stacks[bot(3)] == 300  # the chips reached the table
    assert purse.collected_pool(t) == 4 * 90 + 2 * 100
    assert env.service.info(T_ID).rebuy_open and not env.service.info(T_ID).addon_open
    # hostile: each refusal stores nothing
    await env.ledger.grant(GUILD, bot(3), 300, actor=1, reason="rebuy money")
    for player, error in [(bot(1), RebuyRefused), (bot(99), NotRegistered)]:  # over the max count; not in the event
        before = await state_of(env)
        with pytest.raises(error):
            await env.service.rebuy(T_ID, player)
        assert await state_of(env) == before
    with pytest.raises(RebuyRefused):  # the add-on waits for the end of the rebuy period
        await env.service.addon(T_ID, bot(3))
    await advance(env, 10 * 60)  # level 2: the last rebuy level, the add-on is open
    assert env.service.info(T_ID).addon_open
    entry = await env.service.addon(T_ID, bot(3))
    assert entry.addons == 1
    await env.settle()  # the chips reach the table on the step between hands the add-on asked for
    before = await state_of(env)
    with pytest.raises(RebuyRefused):  # one add-on
        await env.service.addon(T_ID, bot(3))
    assert await state_of(env) == before
    await advance(env, 10 * 60)  # level 3: the rebuy period is over
    await env.ledger.grant(GUILD, bot(4), 300, actor=1, reason="rebuy money")
    before = await state_of(env)
    with pytest.raises(RebuyRefused, match="over"):
        await env.service.rebuy(T_ID, bot(4))
    assert await state_of(env) == before
    env.hand_seconds = 300
    await env.service.resume(T_ID, user_id=1)
    await run_audited(env, T_ID)
    assert t.status is Status.FINISHED
    pool = 4 * 90 + 3 * 100
    info = env.service.info(T_ID)
    assert (info.prize_pool, info.rebuys, info.addons) == (pool, 2, 1)
    assert sum(e.prize or 0 for e in t.entries.values()) == pool
    finished = next(e for e in env.events if isinstance(e, TournamentFinished))
    assert sum(finished.prizes.values()) == pool
    assert await env.ledger.balances([Account.escrow(T_ID)]) == {Account.escrow(T_ID): 0}
    check_ranking(t)


async def test_a_rebuy_above_the_stack_limit_is_refused(sqlite_storage) -> None:
    env = Env(sqlite_storage, hand_seconds=0)
    cfg = TournamentConfig(
        format=Format.SNG, buy_in=100, seats=2, starting_stack=300, level_minutes=10, rebuy_levels=3, max_rebuys=0
    )
    await paused_start(env, cfg, 2)
    await env.ledger.grant(GUILD, bot(1), 500, actor=1, reason="rebuy money")
    await env.service.rebuy(T_ID, bot(1))  # 300: at the limit (the starting stack)
    await env.settle()  # the chips reach the table on the step between hands the rebuy asked for
    before = await state_of(env)
    with pytest.raises(RebuyRefused, match="at or below"):  # 600 now, bought chips included
        await env.service.rebuy(T_ID, bot(1))
    assert await state_of(env) == before
    await env.settle()
    await check_books(env, T_ID)


async def test_a_rebuy_without_the_chips_changes_nothing(sqlite_storage) -> None:
    env = Env(sqlite_storage, hand_seconds=0)
    cfg = TournamentConfig(format=Format.SNG, buy_in=600, seats=2, level_minutes=10, rebuy_levels=3)
    await paused_start(env, cfg, 2)
    assert await env.ledger.balance(GUILD, bot(1)) == 400  # their 1,000 starting chips less the buy-in
    before = await state_of(env)
    with pytest.raises(InsufficientChips):
        await env.service.rebuy(T_ID, bot(1))
    assert await state_of(env) == before


@pytest.mark.parametrize("progressive", [False, True], ids=["plain", "progressive"])
async def test_bounties_are_paid_in_the_knock_out_journal_and_escrow_ends_at_zero(sqlite_storage, progressive) -> None:
    env = Env(sqlite_storage, hand_seconds=300)
    cfg = TournamentConfig(
        format=Format.SNG,
        buy_in=100,
        fee=10,
        bounty=40,
        progressive=progressive,
        seats=6,
        starting_stack=300,
        antes=default_antes(10),
        level_minutes=10,
        preset="classic",
    )
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in range(1, 7):
        await env.service.register(T_ID, bot(n))
    await run_audited(env, T_ID)
    t = env.service.get(T_ID)
    assert t.status is Status.FINISHED
    outs = [e for e in env.events if isinstance(e, PlayerOut)]
    assert len(outs) == 5
    for out in outs:  # the knock-out line's bounty is what the ledger paid, in that knock-out's journal
        e = t.entries[out.entry_id]
        if out.bounty:
            assert out.bounty_to is not None and e.knocked_by is not None
            assert t.entries[e.knocked_by].player_id == out.bounty_to
            assert out.bounty == 40 if not progressive else 20 <= out.bounty <= 6 * 40 // 2
            journal = await _journal(env, f"tny:{T_ID}:bounty:{e.bust_group}")
            assert journal is not None
            assert (
                sum(p.delta for p in journal.postings if p.account == Account.bank(GUILD, out.bounty_to)) >= out.bounty
            )
    assert any(o.bounty for o in outs)  # (a hand without a single winner leaves its bounty to the end)
    won = sum(e.bounty_won for e in t.entries.values())
    assert won == 6 * 40  # every bounty collected: by knock-outs, the rest by the winner at the end
    assert all(e.bounty == 0 for e in t.entries.values())
    pool = 6 * (100 - 10 - 40)
    assert sum(e.prize or 0 for e in t.entries.values()) == pool == env.service.info(T_ID).prize_pool
    assert await env.ledger.balances([Account.escrow(T_ID)]) == {Account.escrow(T_ID): 0}
    banks = await env.ledger.balances([Account.bank(GUILD, bot(n)) for n in range(1, 7)])
    assert sum(banks.values()) - 6 * 900 == pool + 6 * 40  # prizes and bounties, to the chip (900 left after buy-in)
    check_ranking(t)


async def _journal(env: Env, key: str):
    async with env.storage.transaction(write=False) as tx:
        return await tx.find_journal(key)


def test_a_bounty_larger_than_the_buy_in_is_refused() -> None:
    with pytest.raises(BadTournamentOption, match="bounty"):
        TournamentConfig(buy_in=100, bounty=150)
    with pytest.raises(BadTournamentOption, match="bounty"):
        TournamentConfig(buy_in=100, fee=20, bounty=90)  # the fee comes first
    with pytest.raises(BadTournamentOption):
        TournamentConfig(buy_in=100, progressive=True)
    with pytest.raises(BadTournamentOption):
        TournamentConfig(buy_in=100, addon=True)  # an add-on ends a rebuy period
    cfg = TournamentConfig(buy_in=100, bounty=50, progressive=True, rebuy_levels=2, addon=True, guarantee=900)
    assert TournamentConfig.from_json(cfg.to_json()) == cfg


async def test_bounties_go_back_with_a_cancel(storage) -> None:
    """Cancelled after the start: every entry gets its buy-in back, bounty included, and the escrow ends at 0."""
    env = Env(storage, hand_seconds=0)
    cfg = TournamentConfig(format=Format.SNG, buy_in=100, fee=10, bounty=30, seats=3, level_minutes=10)
    await paused_start(env, cfg, 3)
    refunds = await env.service.cancel(T_ID, user_id=1)
    assert refunds == {bot(n): 100 for n in (1, 2, 3)}
    assert await env.ledger.balances([Account.escrow(T_ID)]) == {Account.escrow(T_ID): 0}
    await check_books(env, T_ID)


@pytest.mark.parametrize("house", [1000, 150], ids=["house-covers", "house-short"])
async def test_a_guarantee_pays_the_overlay_from_the_house_in_the_payout_journal(storage, house) -> None:
    env = Env(storage, hand_seconds=300)
    await env.ledger.transact(  # the house's earlier fees
        [Posting(Account.issued(GUILD), -house), Posting(Account.house(GUILD), house)], key="fees", reason="fees"
    )
    cfg = TournamentConfig(
        format=Format.SNG, buy_in=100, fee=10, seats=4, guarantee=1000, antes=default_antes(10), level_minutes=10
    )
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in range(1, 5):
        await env.service.register(T_ID, bot(n))
    info = env.service.info(T_ID)
    assert (info.prize_pool, info.overlay, info.guarantee) == (1000, 1000 - 4 * 90, 1000)
    await run_audited(env, T_ID)
    t = env.service.get(T_ID)
    assert t.status is Status.FINISHED
    assert sum(e.prize or 0 for e in t.entries.values()) == 1000
    overlay = 1000 - 360
    journal = await _journal(env, f"tny:{T_ID}:payouts")
    legs = {p.account: p.delta for p in journal.postings}
    from_house = min(overlay, house + 40)  # the house had its fees and this tournament's 4 x 10
    assert legs[Account.house(GUILD)] == -from_house
    assert legs.get(Account.issued(GUILD), 0) == -(overlay - from_house)
    house_now = (await env.ledger.balances([Account.house(GUILD)]))[Account.house(GUILD)]
    assert house_now == house + 40 - from_house
    assert await env.ledger.balances([Account.escrow(T_ID)]) == {Account.escrow(T_ID): 0}


async def test_a_pool_above_the_guarantee_has_no_overlay(sqlite_storage) -> None:
    env = Env(sqlite_storage, hand_seconds=300)
    cfg = TournamentConfig(format=Format.SNG, buy_in=100, seats=3, guarantee=200, level_minutes=10)
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in (1, 2, 3):
        await env.service.register(T_ID, bot(n))
    await run_audited(env, T_ID)
    t = env.service.get(T_ID)
    assert env.service.info(T_ID).overlay == 0 and sum(e.prize or 0 for e in t.entries.values()) == 300
    assert all(e.status in (EntryStatus.OUT, EntryStatus.ALIVE) for e in t.entries.values())


TARGET = T_ID + 50


@pytest.mark.parametrize("already", [False, True], ids=["seat", "already-registered"])
async def test_a_satellite_registers_its_winner_in_the_target_from_escrow(storage, already) -> None:
    """400 chips buy one 300-chip seat in the target (registered there, the buy-in moved escrow to escrow in the payout
    journal) and the remaining 100 go to second place in chips; a winner already registered there gets the seat's
    value in chips. Escrow ends at 0 and the target's escrow holds exactly its buy-ins."""
    env = Env(storage, hand_seconds=300)
    target_cfg = TournamentConfig(format=Format.SNG, buy_in=300, seats=6, level_minutes=10, title="Main event")
    await env.service.create(TARGET, guild_id=GUILD, channel_id=9, host_id=1, config=target_cfg)
    if already:
        for n in range(1, 5):
            await env.service.register(TARGET, bot(n))
    with pytest.raises(BadTournamentOption):  # the target must exist in this server and not have started
        await env.service.create(
            T_ID + 7,
            guild_id=GUILD,
            channel_id=1,
            host_id=1,
            config=TournamentConfig(format=Format.SNG, buy_in=100, seats=4, satellite_for=TARGET + 1),
        )
    with pytest.raises(BadTournamentOption):
        await env.service.create(
            T_ID + 8,
            guild_id=GUILD + 1,
            channel_id=1,
            host_id=1,
            config=TournamentConfig(format=Format.SNG, buy_in=100, seats=4, satellite_for=TARGET),
        )
    assert {t.tournament_id for t in env.service.tournaments} == {TARGET}
    cfg = TournamentConfig(
        format=Format.SNG, buy_in=100, seats=4, antes=default_antes(10), level_minutes=10, satellite_for=TARGET
    )
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in range(1, 5):
        await env.service.register(T_ID, bot(n))
    assert env.service.info(T_ID).satellite_seats == 1
    target_before = len(env.service.get(TARGET).entries)
    await run_audited(env, T_ID)
    t = env.service.get(T_ID)
    first = next(e for e in t.entries.values() if e.place == 1)
    second = next(e for e in t.entries.values() if e.place == 2)
    assert (first.prize, second.prize) == (300, 100)
    target = env.service.get(TARGET)
    escrow = await env.ledger.balances([Account.escrow(T_ID), Account.escrow(TARGET)])
    assert escrow[Account.escrow(T_ID)] == 0
    journal = await _journal(env, f"tny:{T_ID}:payouts")
    legs = {p.account: p.delta for p in journal.postings}
    if not already:
        (seat,) = [e for e in target.entries.values() if e.entry_id > target_before]
        assert seat.player_id == first.player_id and seat.status is EntryStatus.REGISTERED
        assert escrow[Account.escrow(TARGET)] == 300
        assert legs[Account.escrow(TARGET)] == 300 and legs[Account.escrow(T_ID)] == -400
        assert legs[Account.bank(GUILD, second.player_id)] == 100
        assert Account.bank(GUILD, first.player_id) not in legs
    else:
        assert len(target.entries) == target_before  # nothing added there: the seat's value is paid in chips
        assert escrow[Account.escrow(TARGET)] == 4 * 300
        assert legs[Account.bank(GUILD, first.player_id)] == 300 and legs[Account.escrow(T_ID)] == -400
        assert Account.escrow(TARGET) not in legs
    assert await env.service.audit(TARGET) == []


async def test_steps_between_hands_coalesce_and_a_rebuy_waits_for_one_at_most(sqlite_storage, monkeypatch) -> None:
    """Tables that end their hands while a step holds the tournament's lock queue one step, not one each: the waiting
    step reads every table when it runs. (With one queued per table, 25 tables ending a hand queued 25 steps over all
    of them, and the add-ons bought at the end of the rebuy period waited behind them for minutes.) A rebuy bought
    meanwhile is committed as soon as the running step ends, and its chips reach the table on the queued step."""
    env = Env(sqlite_storage, hand_seconds=0)
    cfg = TournamentConfig(format=Format.SNG, buy_in=100, seats=2, starting_stack=300, level_minutes=10, rebuy_levels=3)
    await paused_start(env, cfg, 2)
    await env.ledger.grant(GUILD, bot(1), 100, actor=1, reason="rebuy money")
    floor = env.service._floor
    runs = 0
    real = floor.between_hands

    async def counted(t: Tournament) -> None:
        nonlocal runs
        runs += 1
        await real(t)

    monkeypatch.setattr(floor, "between_hands", counted)
    t = env.service.get(T_ID)
    lock = floor.core.lock(T_ID)
    await lock.acquire()  # a step is running
    steps = [asyncio.create_task(floor.after_hand(t)) for _ in range(10)]  # ten tables end a hand meanwhile
    rebuy = asyncio.create_task(env.service.rebuy(T_ID, bot(1)))
    await asyncio.sleep(0)
    lock.release()
    await asyncio.gather(*steps)
    assert (await rebuy).rebuys == 1
    await env.settle()
    assert runs == 2, "one queued step, and the one the rebuy asked for once it was committed"
    assert {p: c for p, c, _ in env.service.standings_now(T_ID)}[bot(1)] == 600  # the chips reached the table
    await check_books(env, T_ID)
