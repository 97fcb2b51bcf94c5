"""TableService: commit-then-swap, the ledger mapping, per-table locks, replay after restart."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from pancog.game.actions import Action, AddToMeld, Discard, GoOnTop, Knock, NewMeld, Pluck
from pancog.game.errors import PanError, RuleViolation
from pancog.game.state import EndReason
from pancog.infra.storage import SqliteStorage
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import (
    BuyInTooSmall,
    NoTableHere,
    NotHost,
    NotSeated,
    TableAlreadyOpen,
    TableConfig,
    TableService,
)
from tests.e2e.scenarios import TWO_SHOE, cards

GUILD = 500
CHANNEL = 600
TABLE = 700
A, B, C = 11, 12, 13


class Env:
    def __init__(self, storage: SqliteStorage) -> None:
        self.storage = storage
        self.ledger = ChipLedger(storage)
        self.store = TableStore(storage)
        self.service = TableService(self.ledger, self.store)

    async def snapshot(self) -> tuple[object, object]:
        """(engine state, ledger table balances) for before/after comparisons."""
        session = self.service.get(TABLE)
        async with self.storage.transaction(write=False) as tx:
            balances = await tx.table_balances(TABLE)
        return session.state, balances


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    async with SqliteStorage(tmp_path / "pan.sqlite3") as storage:
        e = Env(storage)
        yield e
        report = await e.ledger.audit()
        assert report.ok, report.summary()


async def open_two(env: Env) -> None:
    await env.service.open_table(TABLE, guild_id=GUILD, channel_id=CHANNEL, host_id=A, config=TableConfig.build())
    await env.service.join(TABLE, A)
    await env.service.join(TABLE, B)


async def play_two_player_hand(env: Env) -> None:
    """The scripted two-player hand; after every action the engine's stacks equal the ledger's."""
    svc = env.service
    svc.stack_next_hand(TABLE, TWO_SHOE, first_seat=0)
    await svc.start_hand(TABLE, A)
    assert await svc.check_books(TABLE) == []
    steps: list[tuple[int, Callable[[int], Action]]] = [
        (A, lambda s: Knock(seat=s)),
        (B, lambda s: Knock(seat=s)),
        (A, lambda s: Pluck(seat=s)),
        (A, lambda s: NewMeld(seat=s, cards=cards("AC 2C 3C"))),
        (A, lambda s: NewMeld(seat=s, cards=cards("4D 5D 6D"))),
        (A, lambda s: NewMeld(seat=s, cards=cards("JH QH KH"))),
        (A, lambda s: Discard(seat=s, card=cards("7C")[0])),
        (B, lambda s: Pluck(seat=s)),
        (B, lambda s: Discard(seat=s)),
        (A, lambda s: Pluck(seat=s)),
        (A, lambda s: AddToMeld(seat=s, meld=1)),
    ]
    for user, make in steps:
        await svc.act(TABLE, user, make)
        assert await svc.check_books(TABLE) == []


async def test_tables_full_hand_books_balance(env: Env) -> None:
    """A two-player hand to the going out: engine stacks equal ledger stacks after every action."""
    checked: list[int] = []

    def on_applied(applied: object) -> None:
        checked.append(1)

    env.service.subscribe(on_applied)
    await open_two(env)
    assert await env.service.check_books(TABLE) == []
    await play_two_player_hand(env)
    state = env.service.get(TABLE).state
    assert state.hand is None and state.last_hand is not None
    assert state.last_hand.end_reason is EndReason.OUT and state.last_hand.winner == 0
    assert await env.service.check_books(TABLE) == []
    assert state.seats[0] is not None and state.seats[1] is not None
    assert state.seats[0].stack > 100 > state.seats[1].stack
    assert len(checked) == state.seq
    # chips are conserved: bank + stacks = starting chips
    total = sum(s.stack for s in state.seats if s is not None) + state.singles_tops + state.doubles_tops
    assert total + await env.ledger.balance(GUILD, A) + await env.ledger.balance(GUILD, B) == 2000


async def test_tables_refusal_changes_nothing(env: Env) -> None:
    """Out of turn, unseated and illegal actions raise a PanError and leave state and ledger unchanged."""
    await open_two(env)
    env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=0)
    await env.service.start_hand(TABLE, A)
    before = await env.snapshot()
    with pytest.raises(RuleViolation):
        await env.service.act(TABLE, B, lambda s: Knock(seat=s))  # A declares first
    with pytest.raises(NotSeated):
        await env.service.act(TABLE, C, lambda s: Knock(seat=s))
    with pytest.raises(RuleViolation):
        await env.service.act(TABLE, A, lambda s: Pluck(seat=s))  # still declaring
    assert await env.snapshot() == before


async def test_tables_commit_failure_keeps_state(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """Commit-then-swap: when the DB write fails, the in-memory state stays as it was."""
    await open_two(env)
    env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=0)
    await env.service.start_hand(TABLE, A)
    before = await env.snapshot()

    async def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(env.store, "commit_action", broken)
    with pytest.raises(OSError, match="disk full"):
        await env.service.act(TABLE, A, lambda s: GoOnTop(seat=s))
    assert await env.snapshot() == before
    monkeypatch.undo()
    await env.service.act(TABLE, A, lambda s: GoOnTop(seat=s))  # the same action now commits
    assert env.service.get(TABLE).state.seq == before[0].seq + 1  # type: ignore[attr-defined]


async def test_tables_lock_serialises_in_order(env: Env) -> None:
    """Concurrent actions on one table apply one at a time, in arrival order; the illegal ones are refused."""
    await open_two(env)
    env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=0)
    await env.service.start_hand(TABLE, A)
    seq0 = env.service.get(TABLE).state.seq
    results = await asyncio.gather(
        env.service.act(TABLE, A, lambda s: Knock(seat=s)),
        env.service.act(TABLE, A, lambda s: Knock(seat=s)),  # double click: refused
        env.service.act(TABLE, B, lambda s: Knock(seat=s)),
        return_exceptions=True,
    )
    assert not isinstance(results[0], BaseException)
    assert isinstance(results[1], PanError)
    assert not isinstance(results[2], BaseException)
    assert results[0].state.seq == seq0 + 1 and results[2].state.seq == seq0 + 2
    assert env.service.get(TABLE).state.seq == seq0 + 2


async def test_tables_replay_equals_live_state(env: Env) -> None:
    """A restarted service rebuilds every open table exactly (state and books) from the log."""
    await open_two(env)
    await play_two_player_hand(env)
    env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=1)
    await env.service.start_hand(TABLE, A)
    await env.service.act(TABLE, B, lambda s: Knock(seat=s))
    live = env.service.get(TABLE).state
    fresh = TableService(env.ledger, env.store)
    assert await fresh.load() == 1
    assert fresh.get(TABLE).state == live
    assert fresh.in_channel(CHANNEL).table_id == TABLE
    assert await fresh.check_books(TABLE) == []


async def test_tables_buy_in_rules(env: Env) -> None:
    """Buy-ins below the minimum (20, 40 for doubles) or above the bank are refused clearly."""
    await env.service.open_table(TABLE, guild_id=GUILD, channel_id=CHANNEL, host_id=A, config=TableConfig.build())
    with pytest.raises(BuyInTooSmall):
        await env.service.join(TABLE, A, buy_in=19)
    with pytest.raises(BuyInTooSmall):
        await env.service.join(TABLE, A, buy_in=39, doubles=True)
    with pytest.raises(BuyInTooSmall):
        await env.service.join(TABLE, A, buy_in=5000)
    applied = await env.service.join(TABLE, A, buy_in=40, doubles=True)
    assert applied.state.seats[0] is not None and applied.state.seats[0].doubles
    assert await env.ledger.balance(GUILD, A) == 960  # new players get the guild's starting chips
    with pytest.raises(RuleViolation):
        await env.service.join(TABLE, A)  # already seated


async def test_tables_open_close_and_cash_out(env: Env) -> None:
    """One table per channel; close is for the host (or moderators) and returns every chip."""
    await open_two(env)
    with pytest.raises(TableAlreadyOpen):
        await env.service.open_table(
            TABLE + 1, guild_id=GUILD, channel_id=CHANNEL, host_id=B, config=TableConfig.build()
        )
    await play_two_player_hand(env)
    await env.service.leave(TABLE, B)
    assert env.service.get(TABLE).find_seat(B) is None
    with pytest.raises(NotHost):
        await env.service.close(TABLE, B)
    returned = await env.service.close(TABLE, A)
    assert set(returned) == {A}
    with pytest.raises(NoTableHere):
        env.service.in_channel(CHANNEL)
    assert await env.ledger.balance(GUILD, A) + await env.ledger.balance(GUILD, B) == 2000


async def test_tables_config_overrides() -> None:
    """Stakes set the ante and the 20-unit minimum buy-in; seats and turn time map to rules."""
    config = TableConfig.build("classic", stakes=2, seats=4, turn_seconds=30)
    rules = config.rules()
    assert (rules.ante_chips, rules.min_buyin_chips, rules.max_players, rules.turn_timeout_seconds) == (2, 40, 4, 30)
    assert TableConfig.from_json(config.to_json()) == config
    with pytest.raises(RuleViolation):
        TableConfig.build("nonsense")


async def test_tables_config_retire_forfeit() -> None:
    """The retire forfeit (RULES G6) is the chips beyond the ante paid to go on top; unset keeps the preset's."""
    assert TableConfig.build().rules().retire_forfeit_chips == 0
    config = TableConfig.build(stakes=3, retire_forfeit=2)
    assert (config.rules().retire_forfeit_chips, config.rules().ante_chips) == (2, 3)
    assert TableConfig.from_json(config.to_json()).rules().retire_forfeit_chips == 2
    with pytest.raises(RuleViolation):
        TableConfig.build(retire_forfeit=-1)


async def test_tables_seeded_deals_reproduce(env: Env) -> None:
    """PAN_DEAL_SEED-style dealers give the same hands in a fresh process (the seed is in the log too)."""
    from pancog.services.tables import seeded_deals

    deal_a, deal_b = seeded_deals(7), seeded_deals(7)
    await open_two(env)
    session = env.service.get(TABLE)
    assert [deal_a(session).seed for _ in range(3)] == [deal_b(session).seed for _ in range(3)]


async def test_simultaneous_opens(env: Env) -> None:
    """Two opens in one channel: exactly one table. Opens in different channels do not wait for each other: while
    one channel's open is writing its row, another channel's open completes (no global lock across the write)."""
    svc = env.service
    results = await asyncio.gather(
        *(
            svc.open_table(900 + i, guild_id=GUILD, channel_id=CHANNEL, host_id=A, config=TableConfig.build())
            for i in range(2)
        ),
        return_exceptions=True,
    )
    assert sum(isinstance(r, TableAlreadyOpen) for r in results) == 1
    assert [s.table_id for s in svc.sessions] == [next(r.table_id for r in results if not isinstance(r, Exception))]

    gate = asyncio.Event()
    original = env.store.open_table
    calls: list[int] = []

    async def slow_open(table_id: int, **kwargs: object) -> object:
        calls.append(table_id)
        if table_id == 950:
            await gate.wait()  # this channel's database write is slow
        return await original(table_id, **kwargs)  # type: ignore[arg-type]

    env.store.open_table = slow_open  # type: ignore[method-assign]
    slow = asyncio.create_task(
        svc.open_table(950, guild_id=GUILD, channel_id=CHANNEL + 1, host_id=A, config=TableConfig.build())
    )
    await asyncio.sleep(0)
    with pytest.raises(TableAlreadyOpen):  # the same channel, while its open is still writing
        await svc.open_table(951, guild_id=GUILD, channel_id=CHANNEL + 1, host_id=B, config=TableConfig.build())
    fast = await asyncio.wait_for(
        svc.open_table(952, guild_id=GUILD, channel_id=CHANNEL + 2, host_id=B, config=TableConfig.build()), 5
    )
    assert fast.table_id == 952 and not slow.done()
    gate.set()
    assert (await slow).table_id == 950
    assert calls == [950, 952]


async def test_a_table_opened_before_california_dropped_going_out_units_keeps_them(env: Env) -> None:
    """Issue 13: california pays no going-out units for tables opened after the change; a table whose config row
    was written before it (no preset edition) keeps 2 units, live and after a restart's replay of its log."""
    assert TableConfig.build().rules().going_out_units == 0  # a new table
    old = TableConfig.from_json('{"preset": "california", "overrides": {}, "title": ""}')
    assert old.edition == 1 and old.rules().going_out_units == 2
    await env.service.open_table(TABLE, guild_id=GUILD, channel_id=CHANNEL, host_id=A, config=old)
    await env.service.join(TABLE, A)
    await env.service.join(TABLE, B)
    await play_two_player_hand(env)  # A goes out: B pays the outs and the 2 going-out units
    live = env.service.get(TABLE).state
    assert live.last_hand is not None and live.last_hand.winner == 0
    fresh = TableService(env.ledger, env.store)
    assert await fresh.load() == 1
    assert fresh.get(TABLE).state == live and fresh.get(TABLE).state.rules.going_out_units == 2
    assert TableConfig.from_json(old.to_json()) == old


async def test_check_books_never_reads_an_action_between_its_commit_and_its_swap(env: Env) -> None:
    """The audit's engine snapshot and ledger read are one consistent moment: an action whose postings are committed
    but whose state is not swapped in yet (the table's lock still held) is waited for, never reported as a
    difference (a loaded machine's /panadmin audit saw every stack off by the ante and the tops by the antes)."""
    await open_two(env)
    committed, release = asyncio.Event(), asyncio.Event()
    real = env.store.commit_action

    async def slow_commit(*args: object, **kwargs: object) -> object:
        result = await real(*args, **kwargs)  # type: ignore[arg-type]
        committed.set()
        await release.wait()  # the postings are in the ledger; the engine state is swapped after this returns
        return result

    env.store.commit_action = slow_commit  # type: ignore[method-assign]
    start = asyncio.create_task(env.service.start_hand(TABLE, A))
    await committed.wait()
    audit = asyncio.create_task(env.service.check_books(TABLE))
    await asyncio.sleep(0.05)
    release.set()
    await start
    assert await audit == []
    assert await env.service.check_books(TABLE) == []
