"""A hand's chip result (pancog/services/chips.py): the one source of the chip figures shown for a hand.

Its nets are the ledger's postings for the hand (read back from the database), its flows add up to the same nets,
and the table service (live, and after a restart in the middle of a hand), the replay service (from the log) and
the league's digest give the same result for the same hand."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pancog.game.actions import Rebuy
from pancog.game.events import ChipReason
from pancog.game.state import EndReason, Pot
from pancog.infra.storage import SqliteStorage
from pancog.infra.storage.base import Account, Posting
from pancog.services.chips import Flow, HandChips, HandResult, engine_postings, player_deltas
from pancog.services.league.digest import digests_from_log
from pancog.services.replay import ReplayService
from pancog.services.tables import Applied, TableConfig, TableService, seeded_deals
from tests.services.test_replay import PLAYERS, TABLE, Env, choose, open_table
from tests.support.ledger_view import ledger_hand_nets

GUILD = 900


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    async with SqliteStorage(tmp_path / "pan.sqlite3") as storage:
        yield Env(storage)


async def play_collecting(env: Env, *, hands: int, seed: int) -> list[HandResult]:
    """Finish ``hands`` hands with random legal play; every result the table service gave with its ``Applied``."""
    results: list[HandResult] = []

    def listen(applied: Applied) -> None:
        if applied.result is not None:
            results.append(applied.result)

    env.tables.subscribe(listen)
    rng = random.Random(seed)
    while len(results) < hands:
        state = env.tables.get(TABLE).state
        if state.hand is None:
            for i, seat in enumerate(state.seats):
                if seat is not None and seat.stack < 20:
                    await env.tables.system_act(TABLE, Rebuy(seat=i, amount=60))
            await env.tables.start_hand(TABLE, PLAYERS[0])
            continue
        await env.tables.system_act(TABLE, choose(state, rng))
    env.tables.unsubscribe(listen)
    return results


def test_player_deltas_count_a_players_bank_and_stack_together() -> None:
    """A buy-in moves chips between a player's own accounts (nothing); an ante and a payment are what he lost."""
    postings = [
        Posting(Account.bank(1, 7), -100),
        Posting(Account.stack(5, 7), 100 - 1 - 3),
        Posting(Account.tops(5, "singles"), 1),
        Posting(Account.stack(5, 8), 3),
        Posting(Account.issued(1), 0),
    ]
    assert player_deltas(postings) == {7: -4, 8: 3}


def test_a_result_reads_its_flows() -> None:
    """received, paid, by payer and reason, the biggest single action, the chips between players."""
    flows = (
        Flow(seq=2, payer=1, payee=Pot.SINGLES, amount=1, reason=ChipReason.ANTE),
        Flow(seq=2, payer=2, payee=Pot.SINGLES, amount=1, reason=ChipReason.ANTE),
        Flow(seq=5, payer=2, payee=1, amount=2, reason=ChipReason.CONDITION),
        Flow(seq=9, payer=2, payee=1, amount=3, reason=ChipReason.OUTS),
        Flow(seq=9, payer=Pot.SINGLES, payee=1, amount=2, reason=ChipReason.TOPS),
    )
    result = HandResult(
        table_id=5,
        hand_no=1,
        first_seq=2,
        last_seq=9,
        reason=EndReason.OUT,
        winner=1,
        nets=((1, 6), (2, -6)),
        flows=flows,
    )
    assert result.received(1) == 7 and result.paid(1) == 1 and result.received(1) - result.paid(1) == result.net(1)
    assert result.paid(2) == 6 and result.net(2) == -6 and result.net(99) == 0
    assert result.received_from(1) == {
        2: {ChipReason.CONDITION: 2, ChipReason.OUTS: 3},
        Pot.SINGLES: {ChipReason.TOPS: 2},
    }
    assert result.biggest(1) == 5 and result.collected(1, ChipReason.CONDITION) == 2
    assert result.between_players() == {(2, 1): 5}
    assert result.players == (1, 2) and result.key == "hand:5:1"


async def test_every_result_is_the_ledgers_postings_and_its_flows_add_up(env: Env) -> None:
    """For every hand: the result's nets are what the committed postings (read back from the database) gave each
    player; each player's received − paid over the flows is his net; the nets sum to minus what went to the pots."""
    await open_table(env)
    results = await play_collecting(env, hands=10, seed=3)
    assert [r.hand_no for r in results] == list(range(1, 11))
    for result in results:
        ledger = await ledger_hand_nets(env.storage, TABLE, result.first_seq, result.last_seq)
        assert dict(result.nets) == ledger, f"hand {result.hand_no}"
        for user in result.players:
            assert result.received(user) - result.paid(user) == result.net(user)
        to_pots = sum(f.amount for f in result.flows if isinstance(f.payee, Pot))
        from_pots = sum(f.amount for f in result.flows if isinstance(f.payer, Pot))
        assert sum(n for _, n in result.nets) == from_pots - to_pots


async def test_the_replay_and_the_league_give_the_table_services_result(env: Env) -> None:
    """The same hand's result from the live table service, from the replay service (the log, replayed), and the
    league's digest figures (net, condition chips, biggest collection, chips between players) — all equal."""
    await open_table(env)
    live = await play_collecting(env, hands=8, seed=4)
    replays = ReplayService(env.store)
    rows = await env.store.read_log(TABLE)
    digests = {d.hand_no: d for _, d in digests_from_log(TABLE, TableConfig.build().rules(), [a for _, a, _ in rows])}
    for result in live:
        assert await replays.result(TABLE, result.hand_no) == result
        digest = digests[result.hand_no]
        for line in digest.players:
            assert line.net == result.net(line.user_id)
            assert line.condition_chips == result.collected(line.user_id, ChipReason.CONDITION)
            assert line.biggest == result.biggest(line.user_id)
        assert digest.flows == result.between_players()


@pytest.mark.parametrize("snapshot_every", [400, 3])
async def test_a_restart_in_the_middle_of_a_hand_keeps_its_chips(tmp_path: Path, snapshot_every: int) -> None:
    """A process that loads a table in the middle of a hand still gives that hand's whole result when it ends, also
    when the table's snapshot lies inside the hand (a long hand: the whole log is replayed)."""
    async with SqliteStorage(tmp_path / "pan.sqlite3") as storage:
        env = Env(storage)
        env.tables = TableService(env.ledger, env.store, dealer=seeded_deals(5), snapshot_every=snapshot_every)
        await open_table(env)
        await play_collecting(env, hands=2, seed=6)
        rng = random.Random(7)
        deal = (await env.tables.start_hand(TABLE, PLAYERS[0])).state.seq
        for _ in range(12):
            await env.tables.system_act(TABLE, choose(env.tables.get(TABLE).state, rng))
        assert env.tables.get(TABLE).state.hand is not None
        restarted = TableService(env.ledger, env.store, dealer=seeded_deals(5), snapshot_every=snapshot_every)
        assert await restarted.load() == 1
        loaded = restarted.get(TABLE)
        assert loaded.chips.hand_no == 3  # folding the hand in progress since its deal
        assert (loaded.snapshot_seq > deal) == (snapshot_every == 3)  # a snapshot inside the hand: the whole log
        env.tables = restarted
        (result,) = await play_collecting(env, hands=1, seed=8)
        ledger = await ledger_hand_nets(storage, TABLE, result.first_seq, result.last_seq)
        assert result.hand_no == 3 and result.first_seq == deal and dict(result.nets) == ledger


async def test_hand_chips_without_the_deal_gives_no_result(env: Env) -> None:
    """Folding from the middle of a hand gives nothing for that hand (the caller rebuilds it from the log); the next
    hand, seen from its deal, has its result."""
    await open_table(env)
    seen: list[Applied] = []
    env.tables.subscribe(seen.append)
    await play_collecting(env, hands=2, seed=9)
    first_end = next(i for i, a in enumerate(seen) if a.result is not None)
    chips = HandChips(TABLE)
    results = [chips.feed(a.before, a.events, a.state) for a in seen[3:]]  # from after the first deal
    assert results[first_end - 3] is None
    found = [r for r in results if r is not None]
    assert len(found) == 1 and found[0] == seen[-1].result
    assert engine_postings((), table_id=TABLE, guild_id=GUILD, before=seen[0].before, after=seen[0].state) == []
