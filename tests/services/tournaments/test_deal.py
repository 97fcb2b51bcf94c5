"""Final-table deals: the pure splits (chip chop, Malmuth–Harville ICM) and the service's proposal, acceptances,
refusals and payment (real TableService, SQLite and PostgreSQL, computer players and away humans)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pancog.infra.storage.base import Account, Posting
from pancog.services.tournaments import chop, rules
from pancog.services.tournaments.deal_events import DealAccepted, DealDone, DealProposed
from pancog.services.tournaments.errors import BadDeal, DealAlreadyAccepted, NoDeal, NotInDeal
from pancog.services.tournaments.levels import default_antes
from pancog.services.tournaments.model import Format, Status, TournamentConfig
from pancog.services.tournaments.service import TournamentFinished
from tests.services.tournaments.test_service import GUILD, T_ID, Env, bot, check_books

ANN, BOB = 42, 43


def icm_by_orders(stacks: dict[int, int], prizes: list[int]) -> dict[int, Fraction]:
    """ICM the slow way: every finishing order, its Harville probability."""
    out = {k: Fraction(0) for k in stacks}
    for order in itertools.permutations(stacks):
        p, left = Fraction(1), sum(stacks.values())
        for k in order:
            p *= Fraction(stacks[k], left)
            left -= stacks[k]
        for place, k in enumerate(order):
            out[k] += p * (prizes[place] if place < len(prizes) else 0)
    return out


def test_icm_is_the_harville_expectation_in_whole_chips() -> None:
    stacks = {1: 5000, 2: 3000, 3: 2000}
    exact = icm_by_orders(stacks, [500, 300, 200])
    got = chop.icm(stacks, [500, 300, 200])
    assert sum(got.values()) == 1000
    assert all(abs(got[k] - exact[k]) < 1 for k in stacks)
    assert got == {1: 384, 2: 327, 3: 289}
    assert chop.chip_chop(stacks, [500, 300, 200]) == {1: 400, 2: 320, 3: 280}  # 200 each, then 400 by chips
    assert chop.icm({1: 10, 2: 10}, [700, 300], keep=200) == {1: 400, 2: 400}  # 200 left to play for
    with pytest.raises(ValueError, match="out of range"):
        chop.icm({1: 10, 2: 10}, [700, 300], keep=401)


@settings(deadline=None, max_examples=60)
@given(
    stacks=st.lists(st.integers(1, 10_000), min_size=2, max_size=5),
    prizes=st.lists(st.integers(0, 5_000), min_size=1, max_size=6).map(lambda xs: sorted(xs, reverse=True)),
    kind=st.sampled_from(["chip", "icm"]),
)
def test_a_deal_pays_exactly_what_is_dealt(stacks: list[int], prizes: list[int], kind: str) -> None:
    by_entry = dict(enumerate(stacks, start=1))
    places = prizes[: len(stacks)] + [0] * max(0, len(stacks) - len(prizes))
    keep = chop.max_keep(places) // 2
    got = chop.split(kind, by_entry, places, keep)
    assert sum(got.values()) == sum(places) - keep and min(got.values()) >= 0
    if kind == "icm":
        exact = icm_by_orders(by_entry, [places[0] - keep, *places[1:]])
        assert all(abs(got[k] - exact[k]) < 1 for k in by_entry)


async def three_handed(env: Env, buy_in: int = 100) -> None:
    """A 3-seat Sit & Go: two people (away: the tournament plays their turns) and a computer player."""
    cfg = TournamentConfig(
        format=Format.SNG,
        buy_in=buy_in,
        seats=3,
        starting_stack=400,
        antes=default_antes(10),
        level_minutes=10,
        payouts=(65, 35),
    )
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=ANN, config=cfg)
    for player in (ANN, BOB):
        await env.service.register(T_ID, player)
        await env.service.set_away(T_ID, player, True)
    await env.service.register(T_ID, bot(1))  # full: it starts (seating and the first deal follow on a task)


async def test_every_player_left_accepts_once_then_the_deal_pays_and_ends_the_tournament(storage) -> None:
    """An ICM deal asked for before the players are seated is proposed once they are (on their stacks); no hand is
    dealt while it waits; the computer player accepts at once; a bystander and a second click are refused with nothing
    stored; the last acceptance pays the amounts from escrow in one journal and ends the tournament; the audit balances
    at every step."""
    env = Env(storage, hand_seconds=30)
    await three_handed(env)
    t = env.service.get(T_ID)
    assert t.status is Status.RUNNING
    with pytest.raises(NoDeal):
        await env.service.accept_deal(T_ID, ANN)
    with pytest.raises(BadDeal):
        await env.service.propose_deal(T_ID, ANN, "icm", keep=10**6)
    before = await env.ledger.balance(GUILD, ANN)
    await env.service.propose_deal(T_ID, ANN, "icm")
    with pytest.raises(BadDeal):  # one at a time
        await env.service.propose_deal(T_ID, BOB, "chip")
    await env.settle()
    proposed = [e for e in env.events if isinstance(e, DealProposed)]
    assert len(proposed) == 1 and proposed[0].waiting == (ANN, BOB)
    shares = {p: (stack, chips) for p, stack, chips in proposed[0].shares}
    assert sum(stack for stack, _ in shares.values()) == 1200 and sum(c for _, c in shares.values()) == 300
    assert {p: c for p, (_, c) in shares.items()} == {
        t.entries[k].player_id: v for k, v in chop.icm(env.service.deal(T_ID).stacks, [195, 105, 0]).items()
    }
    hands = env.hands
    env.clock.now += 600
    await env.service.tick()
    await env.settle()
    assert env.hands == hands, "no hand is dealt while the deal waits"
    assert await env.service.audit(T_ID) == []
    with pytest.raises(NotInDeal):
        await env.service.accept_deal(T_ID, 99)
    await env.service.accept_deal(T_ID, ANN)
    with pytest.raises(DealAlreadyAccepted):
        await env.service.accept_deal(T_ID, ANN)
    assert env.service.deal(T_ID).accepted == {ANN, bot(1)}
    assert [e for e in env.events if isinstance(e, DealAccepted)][-1].waiting == (BOB,)
    await check_books(env, T_ID)
    await env.service.accept_deal(T_ID, BOB)
    await env.settle()
    assert t.status is Status.FINISHED
    done = next(e for e in env.events if isinstance(e, DealDone))
    assert dict(done.paid) == {p: c for p, (_, c) in shares.items()} and done.keep == 0
    assert await env.ledger.balance(GUILD, ANN) == before + shares[ANN][1]
    assert sum(e.prize or 0 for e in t.entries.values()) == rules.prize_pool(t) == 300
    assert await env.ledger.balances([Account.escrow(T_ID)]) == {Account.escrow(T_ID): 0}
    finished = next(e for e in env.events if isinstance(e, TournamentFinished))
    assert sum(finished.prizes.values()) == 300
    async with storage.transaction(write=False) as tx:
        journal = await tx.find_journal(f"tny:{T_ID}:payouts")
        assert await tx.find_journal(f"tny:{T_ID}:deal") is None
    assert journal is not None and -sum(p.delta for p in journal.postings if p.account == Account.escrow(T_ID)) == 300
    await check_books(env, T_ID)


async def test_a_part_left_to_play_for_goes_to_the_winner_of_the_rest(sqlite_storage) -> None:
    """A chip chop leaving the difference between first and second to play for: the dealt amounts are paid in one
    journal at once, play resumes, and the winner takes the part left at the finish; the prizes add up to the pool."""
    env = Env(sqlite_storage, hand_seconds=300)
    await three_handed(env, buy_in=200)
    t = env.service.get(T_ID)
    await env.service.propose_deal(T_ID, BOB, "chip", keep=195 * 2 - 105 * 2)  # first 390, second 210: 180 left
    await env.settle()
    deal = env.service.deal(T_ID)
    assert deal is not None and deal.status == "proposed"
    await env.service.accept_deal(T_ID, BOB)
    await env.service.accept_deal(T_ID, ANN)
    await env.settle()
    assert env.service.deal(T_ID).status == "accepted"
    assert sum(deal.amounts.values()) == 600 - 180
    assert await env.service.audit(T_ID) == []
    await env.run(T_ID)  # the people are still away: the tournament plays their turns
    assert t.status is Status.FINISHED
    winner = next(e for e in t.entries.values() if e.place == 1)
    assert winner.prize == deal.amounts[winner.entry_id] + 180
    assert all(e.prize == deal.amounts[e.entry_id] for e in t.entries.values() if e.place != 1)
    assert sum(e.prize or 0 for e in t.entries.values()) == 600
    await check_books(env, T_ID)


async def guaranteed(env: Env, guarantee: int) -> None:
    """The three-handed Sit & Go (100 a head, 65/35) with a guaranteed pool: the house holds 50 chips of earlier fees,
    so an overlay above that is partly issued by the guild."""
    await env.ledger.transact(
        [Posting(Account.issued(GUILD), -50), Posting(Account.house(GUILD), 50)], key="fees", reason="fees"
    )
    cfg = TournamentConfig(
        format=Format.SNG,
        buy_in=100,
        seats=3,
        starting_stack=400,
        antes=default_antes(10),
        level_minutes=10,
        payouts=(65, 35),
        guarantee=guarantee,
    )
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=ANN, config=cfg)
    for player in (ANN, BOB):
        await env.service.register(T_ID, player)
        await env.service.set_away(T_ID, player, True)
    await env.service.register(T_ID, bot(1))


async def overlay_legs(env: Env, key: str) -> tuple[int, int]:
    """(from the house, issued by the guild) in a journal."""
    async with env.storage.transaction(write=False) as tx:
        journal = await tx.find_journal(f"tny:{T_ID}:{key}")
    assert journal is not None, key
    legs = {p.account: p.delta for p in journal.postings}
    return -legs.get(Account.house(GUILD), 0), -legs.get(Account.issued(GUILD), 0)


@pytest.mark.parametrize("keep", [0, 100], ids=["ends-on-the-deal", "part-left-to-play-for"])
async def test_a_deal_shares_the_guaranteed_pool_overlay_included(sqlite_storage, keep: int) -> None:
    """A card room's overlay is part of the prize pool, so a final-table deal divides the prizes still to be won with
    the overlay in them: 3 x 100 collected, 1,000 guaranteed, 650 / 350 to play for. The overlay (700: the house's 50,
    the guild issues 650) comes in with the first journal that pays the dealt amounts — the payouts journal when the
    tournament ends on the deal, the deal's own journal when a part is left to play for (escrow never pays out chips it
    does not hold) — and never twice; every prize is exact and the audit balances at every step."""
    env = Env(sqlite_storage, hand_seconds=30)
    await guaranteed(env, 1000)
    t = env.service.get(T_ID)
    info = env.service.info(T_ID)
    assert (info.prize_pool, info.overlay) == (1000, 700)
    banks = {p: await env.ledger.balance(GUILD, p) for p in (ANN, BOB)}
    await env.service.propose_deal(T_ID, ANN, "chip", keep=keep)
    await env.settle()
    deal = env.service.deal(T_ID)
    assert deal is not None and deal.status == "proposed"
    stacks = dict(deal.stacks)
    assert sum(stacks.values()) == 1200
    # chip chop by hand: everyone first gets the smallest prize (0: three left, two paid), the rest by chips
    dealt = 1000 - keep
    expected = {k: dealt * s // 1200 for k, s in stacks.items()}
    by_fraction = sorted(stacks, key=lambda k: (-(dealt * stacks[k] % 1200), -stacks[k], k))
    for k in by_fraction[: dealt - sum(expected.values())]:  # the odd chips: largest fractions first
        expected[k] += 1
    assert deal.amounts == expected and sum(expected.values()) == dealt
    await env.service.accept_deal(T_ID, ANN)
    await check_books(env, T_ID)
    await env.service.accept_deal(T_ID, BOB)
    await env.settle()
    await check_books(env, T_ID)
    by_player = {t.entries[k].player_id: v for k, v in expected.items()}
    if keep:  # play went on (the people are away: the tournament plays their turns) after the deal's journal
        assert await overlay_legs(env, "deal") == (50, 650)  # the overlay arrives with the first prizes paid
        async with env.storage.transaction(write=False) as tx:
            journal = await tx.find_journal(f"tny:{T_ID}:deal")
        assert journal is not None
        legs = {p.account: p.delta for p in journal.postings}
        assert legs[Account.escrow(T_ID)] == 700 - dealt  # escrow kept the collected 300 less nothing it lacked
        assert {p: legs.get(Account.bank(GUILD, p), 0) for p in by_player} == by_player
        await env.run(T_ID)
        assert await overlay_legs(env, "payouts") == (0, 0)  # not twice
    else:
        async with env.storage.transaction(write=False) as tx:
            assert await tx.find_journal(f"tny:{T_ID}:deal") is None
        assert await overlay_legs(env, "payouts") == (50, 650)
    assert t.status is Status.FINISHED
    winner = next(e for e in t.entries.values() if e.place == 1)
    for e in t.entries.values():
        assert e.prize == expected[e.entry_id] + (keep if e is winner else 0)
    assert sum(e.prize or 0 for e in t.entries.values()) == 1000
    for p in (ANN, BOB):
        entry = next(e for e in t.entries.values() if e.player_id == p)
        assert await env.ledger.balance(GUILD, p) == banks[p] + entry.prize
    assert await env.ledger.balances([Account.escrow(T_ID), Account.house(GUILD)]) == {
        Account.escrow(T_ID): 0,
        Account.house(GUILD): 0,
    }
    await check_books(env, T_ID)


async def test_a_deal_waits_for_the_end_of_the_rebuy_period(sqlite_storage) -> None:
    """The pool is not final while rebuys and the add-on are still sold (a guarantee's overlay shrinks with each):
    a deal proposed then is refused and nothing is stored."""
    env = Env(sqlite_storage, hand_seconds=30)
    cfg = TournamentConfig(
        format=Format.SNG,
        buy_in=100,
        seats=2,
        starting_stack=400,
        antes=default_antes(10),
        level_minutes=10,
        rebuy_levels=2,
        addon=True,
        guarantee=1000,
    )
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=ANN, config=cfg)
    await env.service.register(T_ID, ANN)
    await env.service.set_away(T_ID, ANN, True)
    await env.service.register(T_ID, bot(1))  # full: it starts
    assert env.service.get(T_ID).status is Status.RUNNING
    with pytest.raises(BadDeal, match="rebuy period"):
        await env.service.propose_deal(T_ID, ANN, "chip")
    assert env.service.deal(T_ID) is None
    await env.settle()
    await check_books(env, T_ID)
