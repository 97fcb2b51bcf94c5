"""Edges of the tournaments the first services mutation sample found untested: the published payout table, a
started tournament cancelled with a fee, the start announcement, the audit of a leftover escrow, and the deal
that resumes when a break ends (docs/tournaments.md)."""

from __future__ import annotations

import pytest

from pancog.infra.storage.base import Account, Posting
from pancog.services.tournaments.levels import default_antes
from pancog.services.tournaments.model import Format, Status, TournamentConfig
from pancog.services.tournaments.payouts import payout_weights, places_paid, prizes
from pancog.services.tournaments.service import TournamentCancelled, TournamentStarted
from tests.tournaments.test_service import GUILD, T_ID, Env, bot, check_books

# docs/tournaments.md "Published payout table": the share of the pool per place, for 1 to 6 places paid
PUBLISHED = {
    1: (100.0,),
    2: (65.0, 35.0),
    3: (50.0, 30.0, 20.0),
    4: (45.0, 27.0, 17.0, 11.0),
    5: (40.0, 25.0, 16.0, 11.0, 8.0),
    6: (38.0, 23.0, 15.0, 10.0, 7.5, 6.5),
}


def _field_paying(places: int) -> int:
    """The smallest field (entries) that pays ``places`` places."""
    return next(n for n in range(1, 1000) if places_paid(n) == places)


@pytest.mark.parametrize("places", sorted(PUBLISHED))
def test_prizes_follow_the_published_payout_table(places: int) -> None:
    """A pool of 100,000 chips splits exactly as the published percentages (no remainder to move)."""
    entries = _field_paying(places)
    assert prizes(100_000, entries) == tuple(int(share * 1000) for share in PUBLISHED[places])


def test_seven_to_nine_places_continue_the_published_curve() -> None:
    """Every row of the table is a weight per mille (it sums to 1000); down to nine places paid, each extra place
    lowers first place's share, and first keeps more than the quarter a longer table gives it."""
    firsts = []
    for places in range(1, 10):
        weights = payout_weights(places)
        assert len(weights) == places and sum(weights) == 1000
        assert list(weights) == sorted(weights, reverse=True)
        amounts = prizes(100_000, _field_paying(places))
        assert len(amounts) == places and sum(amounts) == 100_000
        firsts.append(amounts[0])
    assert firsts == sorted(firsts, reverse=True) and len(set(firsts)) == 9
    assert firsts[-1] > 25_000
    assert prizes(100_000, _field_paying(10))[0] < firsts[-1]


HUMANS = (7, 8, 9)
SNG = TournamentConfig(format=Format.SNG, buy_in=100, fee=10, seats=3, starting_stack=300, antes=default_antes(10))


async def _started_sit_and_go(env: Env) -> None:
    """A 3-seat Sit & Go with a fee, filled by three people (nobody plays: the first hand waits for them)."""
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=SNG)
    for player in HUMANS:
        await env.service.register(T_ID, player)
    await env.settle()
    assert env.service.get(T_ID).status is Status.RUNNING


async def test_a_full_sit_and_go_announces_its_start_once(sqlite_storage) -> None:
    env = Env(sqlite_storage, hand_seconds=60)
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=SNG)
    for player in HUMANS[:2]:
        await env.service.register(T_ID, player)
    assert not any(isinstance(e, TournamentStarted) for e in env.events)
    await env.service.register(T_ID, HUMANS[2])
    await env.settle()
    assert [e for e in env.events if isinstance(e, TournamentStarted)] == [TournamentStarted(T_ID)]


async def test_cancelling_a_started_tournament_refunds_the_whole_buy_in_fee_included(storage) -> None:
    """Cancel after the start: the fees the house took at the start go back too; every bank is whole again, the
    escrow and the house hold nothing, and the books balance."""
    env = Env(storage, hand_seconds=60)
    await _started_sit_and_go(env)
    house = Account.house(GUILD)
    assert (await env.ledger.balances([house]))[house] == 3 * 10  # the fees, taken at the start
    refunds = await env.service.cancel(T_ID, user_id=1)
    assert refunds == dict.fromkeys(HUMANS, 100)
    assert [await env.ledger.balance(GUILD, p) for p in HUMANS] == [1000, 1000, 1000]
    escrow = Account.escrow(T_ID)
    assert await env.ledger.balances([house, escrow]) == {house: 0, escrow: 0}
    assert env.service.get(T_ID).status is Status.CANCELLED
    assert [e for e in env.events if isinstance(e, TournamentCancelled)] == [
        TournamentCancelled(T_ID, dict.fromkeys(HUMANS, 100))
    ]
    await check_books(env, T_ID)


async def test_audit_reports_chips_left_in_the_escrow_after_the_end(storage) -> None:
    """Once a tournament is over its escrow must be empty; chips left there (a stray posting) are reported."""
    env = Env(storage, hand_seconds=60)
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=SNG)
    await env.service.register(T_ID, 7)
    await env.service.cancel(T_ID, user_id=1)
    assert await env.service.audit(T_ID) == []
    await env.ledger.ensure_player(GUILD, 8)
    await env.ledger.transact(
        [Posting(Account.bank(GUILD, 8), -25), Posting(Account.escrow(T_ID), 25)],
        key="stray",
        reason="a posting to the wrong account",
    )
    problems = await env.service.audit(T_ID)
    assert len(problems) == 1 and "escrow" in problems[0] and "25" in problems[0]


async def test_the_deal_resumes_by_itself_when_a_break_ends(sqlite_storage) -> None:
    """docs/tournaments.md: no hand is dealt during a break; when it ends, the periodic tick deals again without
    anyone doing anything."""
    env = Env(sqlite_storage, hand_seconds=120)  # a hand "takes" two minutes: the first one runs into the break
    cfg = TournamentConfig(
        format=Format.SNG,
        buy_in=100,
        seats=3,
        starting_stack=3000,
        antes=default_antes(10),
        level_minutes=1,
        break_every=1,
        break_minutes=5,
    )
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in (1, 2, 3):
        await env.service.register(T_ID, bot(n))
    await env.settle()
    t = env.service.get(T_ID)
    _, _, on_break, left = env.service.level(t)
    assert (env.hands, on_break) == (1, True)  # the first hand ended in the break: no second deal
    env.clock.now += left / 2
    await env.service.tick()
    await env.settle()
    assert env.hands == 1  # still on break
    env.clock.now += left / 2 + 1
    await env.service.tick()
    await env.settle()
    assert env.hands > 1 and env.service.get(T_ID).status is Status.RUNNING
