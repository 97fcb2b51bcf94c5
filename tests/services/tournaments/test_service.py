"""Whole tournaments of computer players through the service layer (real TableService, SQLite, fast clock)."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import pytest

from pancog.ai import Level
from pancog.game import engine
from pancog.game.actions import SetAway, StartHand
from pancog.game.events import ChipsMoved, HandStarted
from pancog.infra.storage.base import Account, Posting, StorageError
from pancog.services.bots import BotDriver, BotSettings, computer_id
from pancog.services.ledger import ChipLedger, InsufficientChips
from pancog.services.store import TableStore
from pancog.services.tables import Applied, TableService
from pancog.services.tournaments import rules
from pancog.services.tournaments.errors import (
    AlreadyRegistered,
    BadSchedule,
    BadTournamentOption,
    RegistrationClosed,
    TournamentStateError,
)
from pancog.services.tournaments.levels import default_antes
from pancog.services.tournaments.model import EntryStatus, Format, Status, Tournament, TournamentConfig
from pancog.services.tournaments.repository import TournamentRepository
from pancog.services.tournaments.service import (
    LevelUp,
    PlayerMoved,
    PlayerOut,
    TableOpened,
    TournamentCancelled,
    TournamentFinished,
    TournamentService,
    TournamentStarted,
)
from tests.services.tournaments.conftest import AnyStorage, open_database

GUILD = 5000
T_ID = 880_000_001


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class Env:
    def __init__(self, storage: AnyStorage, hand_seconds: float) -> None:
        self.clock = Clock()
        self.storage = storage
        self.ledger = ChipLedger(storage, clock=self.clock)
        self.tables = TableService(self.ledger, TableStore(storage, clock=self.clock), clock=self.clock)
        self.driver = BotDriver(self.tables, BotSettings(delay=0.0, next_hand_delay=None))
        self.service = TournamentService(self.tables, clock=self.clock)
        self.events: list[object] = []
        self.service.subscribe(self.events.append)
        self.hands = 0
        self.hand_seconds = hand_seconds
        self.tables.subscribe(self._on_applied)
        self.driver.start()
        self.extra: list[asyncio.Task[None]] = []

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        self.extra.append(asyncio.get_running_loop().create_task(coro))

    def _on_applied(self, applied: Applied) -> None:
        if isinstance(applied.action, StartHand):
            self.hands += 1
            # a hand "takes" hand_seconds at each table; tables play at the same time
            self.clock.now += self.hand_seconds / max(1, len(self.tables.sessions))

    async def settle(self) -> None:
        for _ in range(10_000):
            await self.driver.drain()
            await self.service.drain()
            for task in self.extra:
                await task  # a refusal would fail the test here
            self.extra.clear()
            if not self.driver.busy() and not self.service.busy():
                return

    async def run(self, tournament_id: int, max_rounds: int = 400) -> None:
        for _ in range(max_rounds):
            await self.settle()
            if self.service.get(tournament_id).status in (Status.FINISHED, Status.CANCELLED):
                return
            self.clock.now += 30
            await self.service.tick()
        raise AssertionError("the tournament did not finish")


def bot(n: int) -> int:
    return computer_id(Level.EASY, n)


def check_ranking(t) -> None:
    """Same hand: more chips left by it (then at its start) = better place; equal on both share; a later bust always
    ranks better."""
    out = [e for e in t.entries.values() if e.status is EntryStatus.OUT]
    for a in out:
        for b in out:
            if a.bust_group == b.bust_group and (a.end_stack, a.start_stack) > (b.end_stack, b.start_stack):
                assert a.place < b.place
            if a.bust_group == b.bust_group and (a.end_stack, a.start_stack) == (b.end_stack, b.start_stack):
                assert (a.place, a.tied) == (b.place, b.tied)
            if a.bust_group > b.bust_group:
                assert a.place < b.place
    places = sorted((e.place, e.tied) for e in t.entries.values())
    assert places[0] == (1, 1)


async def check_books(env: Env, tournament_id: int) -> None:
    assert await env.service.audit(tournament_id) == []
    report = await env.ledger.audit()
    assert report.ok, report.summary()


async def test_sit_and_go_seven_computer_players(storage):
    """A 7-seat Sit & Go starts when full, plays to one winner, pays 65/35 with a 10 % fee; books balance."""
    env = Env(storage, hand_seconds=300)  # a steep structure keeps the test quick: a new level every two hands
    cfg = TournamentConfig(
        format=Format.SNG, buy_in=100, fee=10, seats=7, starting_stack=300, antes=default_antes(10), level_minutes=10
    )
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in range(1, 8):
        await env.service.register(T_ID, bot(n))
    t = env.service.get(T_ID)
    assert t.status is Status.RUNNING  # the seating and the first deal follow on a task
    await env.run(T_ID)
    assert t.status is Status.FINISHED
    assert sum(isinstance(e, TableOpened) for e in env.events) == 1
    opened = next(e for e in env.events if isinstance(e, TableOpened))
    assert env.service.tournament_of_table(opened.table_id) == T_ID and env.service.tournament_of_table(1) is None
    finished = next(e for e in env.events if isinstance(e, TournamentFinished))
    assert sorted(finished.prizes.values(), reverse=True) == [410, 220]  # 630 pool: 65/35, remainder to first
    assert env.service.info(T_ID).prize_pool == 630  # 7 buy-ins less their fees
    places = sorted(e.place for e in t.entries.values())
    assert places[0] == 1 and len(places) == 7
    check_ranking(t)
    assert await env.ledger.balances([Account.escrow(T_ID)]) == {Account.escrow(T_ID): 0}
    assert (await env.ledger.balances([Account.house(GUILD)]))[Account.house(GUILD)] == 70
    await check_books(env, T_ID)
    assert env.hands > 5


async def test_scheduled_forty_entries_reentry_late_registration_final_table(sqlite_storage):
    storage = sqlite_storage
    """40 entries over 6 tables (re-entries during late registration), balancing, breaking, a final table."""
    env = Env(storage, hand_seconds=90)
    start = int(env.clock.now * 1000) + 60_000
    cfg = TournamentConfig(
        format=Format.SCHEDULED,
        buy_in=50,
        seats=7,
        starting_stack=100,
        antes=default_antes(10),
        level_minutes=2,
        start_at_ms=start,
        late_levels=4,
        max_entries=2,
        min_entries=10,
        preset="classic",  # going-out units (california pays none since #13): busts early enough to re-enter
    )
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in range(1, 31):
        await env.service.register(T_ID, bot(n))
    with pytest.raises(AlreadyRegistered):
        await env.service.register(T_ID, bot(1))
    env.clock.now += 61
    await env.service.tick()
    t = env.service.get(T_ID)
    assert t.status is Status.RUNNING and len(t.open_tables()) == 5
    late: list[int] = []
    reentered: list[int] = []
    moved: list[int] = []

    def on_event(event: object) -> None:  # players react while the tournament runs (hands deal back to back)
        pending = len(t.entries) + sum(1 for task in env.extra if not task.done())
        if isinstance(event, LevelUp) and event.level == 2:  # late registrations
            for n in range(31, 35):
                late.append(n)
                env.spawn(env.service.register(T_ID, bot(n)))
        if isinstance(event, LevelUp) and event.level == cfg.late_levels:  # the last level of late registration
            for n in range(35, 35 + max(0, 40 - pending)):
                late.append(n)
                env.spawn(env.service.register(T_ID, bot(n)))
        if isinstance(event, PlayerMoved):  # told after the move is counted on the entry
            moved.append(max(e.moves for e in t.entries_of(event.player_id) if e.status is EntryStatus.ALIVE))
        if isinstance(event, PlayerOut) and event.can_reenter and pending < 40:
            reentered.append(event.player_id)
            env.spawn(env.service.register(T_ID, event.player_id))

    env.service.subscribe(on_event)
    await env.run(T_ID)
    assert t.status is Status.FINISHED
    assert len(t.entries) == 40 and len(reentered) >= 1 and len(late) >= 4
    assert len({e.player_id for e in t.entries.values()}) == 40 - len(reentered)
    with pytest.raises(RegistrationClosed):
        await env.service.register(T_ID, bot(99))
    assert any(isinstance(e, PlayerMoved) for e in env.events)
    assert moved and min(moved) >= 1  # a moved entry's count of moves went up (the balancer moves the least moved)
    assert any(isinstance(e, TableOpened) and e.final for e in env.events)
    assert sorted(e.place for e in t.entries.values())[0] == 1
    paid = [e.prize for e in t.entries.values() if e.prize]
    assert sum(paid) == 50 * len(t.entries)
    check_ranking(t)
    await check_books(env, T_ID)


async def test_refusals_change_nothing(storage):
    """Bad input: a schedule that does not increase, no chips, start by a non-host, unregister after start."""
    env = Env(storage, hand_seconds=60)
    with pytest.raises(BadSchedule):
        TournamentConfig(antes=(10, 10, 20))
    cfg = TournamentConfig(format=Format.SNG, buy_in=5000, seats=3, starting_stack=400, antes=default_antes(10))
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    with pytest.raises(InsufficientChips):
        await env.service.register(T_ID, 42)  # a person with 1,000 starting chips
    assert env.service.get(T_ID).entries == {}
    assert await env.ledger.balance(GUILD, 42) == 1000
    await env.service.register(T_ID, bot(1))
    await env.service.register(T_ID, bot(2))
    with pytest.raises(Exception) as err:
        await env.service.start(T_ID, user_id=999)
    assert getattr(err.value, "code", "") == "not_host"
    refunded = await env.service.unregister(T_ID, bot(2))
    assert refunded == 5000 and await env.ledger.balance(GUILD, bot(2)) == 5000
    with pytest.raises(TournamentStateError):
        await env.service.start(T_ID, user_id=1)  # one entry left: below the minimum
    refunds = await env.service.cancel(T_ID, user_id=1)
    assert refunds == {bot(1): 5000}
    await check_books(env, T_ID)


async def test_a_failed_write_leaves_memory_unchanged_without_a_reload(
    storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every step computes the change on a draft, commits it, then swaps it in: when the storage fails the commit
    (here every write transaction fails as its COMMIT would, after the rows and postings were written), the
    tournament in memory is exactly what it was — the same objects, the same fields — and the database was never
    read back to repair it. The same steps succeed once the storage does."""
    env = Env(storage, hand_seconds=60)
    cfg = TournamentConfig(format=Format.SNG, buy_in=500, seats=3, starting_stack=400, antes=default_antes(10))
    t = await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in (1, 2):  # two of three seats: a Sit & Go starts by itself only when full
        await env.service.register(T_ID, bot(n))
    before = copy.deepcopy(t)
    entries = dict(t.entries)
    banks = [await env.ledger.balance(GUILD, bot(n)) for n in (1, 2, 3)]
    reads: list[object] = []
    load = env.service.repo.load

    async def counted_load(*args: Any, **kwargs: Any) -> list[Tournament]:
        reads.append(args)
        return await load(*args, **kwargs)

    monkeypatch.setattr(env.service.repo, "load", counted_load)
    real_transaction = storage.transaction

    @contextlib.asynccontextmanager
    async def failing(*, write: bool = True) -> AsyncIterator[Any]:
        async with real_transaction(write=write) as tx:
            yield tx
            if write:
                raise StorageError("disk full")  # the transaction rolls back: nothing it wrote stays

    monkeypatch.setattr(storage, "transaction", failing)
    with pytest.raises(StorageError, match="disk full"):
        await env.service.unregister(T_ID, bot(2))
    with pytest.raises(StorageError, match="disk full"):
        await env.service.start(T_ID, user_id=1)  # would seat both entries and take the fees
    with pytest.raises(StorageError, match="disk full"):
        await env.service.register(T_ID, bot(3))  # would fill the Sit & Go and start it
    monkeypatch.setattr(storage, "transaction", real_transaction)
    assert env.service.get(T_ID) is t and t == before  # not a field changed
    assert all(t.entries[k] is e for k, e in entries.items()) and not t.tables
    assert env.service.tournament_of_table(rules.derive(T_ID, 1)) is None
    assert reads == []  # nothing was reloaded to repair memory
    assert [await env.ledger.balance(GUILD, bot(n)) for n in (1, 2, 3)] == banks  # no posting stayed
    async with storage.transaction(write=False) as tx:
        (stored,) = await TournamentRepository().load(tx, tournament_id=T_ID)
    assert stored == t

    assert await env.service.unregister(T_ID, bot(2)) == 500  # the storage works again: so does the step
    assert await env.ledger.balance(GUILD, bot(2)) == banks[1] + 500
    assert [e.status for e in t.entries_of(bot(2))] == [EntryStatus.REFUNDED]
    assert t.entries[2] is entries[2]  # changed in place after the commit
    async with storage.transaction(write=False) as tx:
        (stored,) = await TournamentRepository().load(tx, tournament_id=T_ID)
    assert stored == t
    await env.service.cancel(T_ID, user_id=1)
    await check_books(env, T_ID)


async def resume_and_finish(database, now: float, hand_seconds: float = 300) -> Tournament:
    """A restart: new services on the same database resume the one tournament, which finishes with a winner and
    the books balanced. Returns the finished tournament."""
    async with open_database(database) as storage:
        env = Env(storage, hand_seconds=hand_seconds)
        env.clock.now = now
        await env.driver.stop()
        await env.tables.load()
        assert await env.service.load() == 1
        env.driver.start()
        await env.service.kick()
        await env.run(T_ID)
        t = env.service.get(T_ID)
        assert t.status is Status.FINISHED and sorted(e.place for e in t.entries.values())[0] == 1
        await check_books(env, T_ID)
    return t


async def test_restart_resumes_a_running_tournament(database):
    """The database stops taking commits mid-tournament (as at a SIGKILL); new services on the same file resume
    from what was committed and the tournament finishes with the books balanced."""
    async with open_database(database) as storage:
        env = Env(storage, hand_seconds=300)
        cfg = TournamentConfig(format=Format.SNG, buy_in=100, seats=5, starting_stack=300, antes=default_antes(10))
        await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
        real_commit = env.tables.store.commit_action

        async def dying_commit(*args: Any, **kwargs: Any) -> Any:
            if env.hands >= 6:
                raise RuntimeError("killed")
            return await real_commit(*args, **kwargs)

        env.tables.store.commit_action = dying_commit  # type: ignore[method-assign]
        for n in range(1, 6):
            await env.service.register(T_ID, bot(n))
        await env.settle()
        assert env.service.get(T_ID).status is Status.RUNNING
        now = env.clock.now
        await env.driver.stop()
    await resume_and_finish(database, now)


async def test_stop_cancels_pending_steps_and_a_restart_finishes_the_tournament(database):
    """Shutdown: ``stop()`` cancels the step the filling registration spawned (seating, the first deal) before
    storage closes, so nothing writes to a closed database; the next start re-derives it and the tournament
    finishes with the books balanced."""
    async with open_database(database) as storage:
        env = Env(storage, hand_seconds=300)
        cfg = TournamentConfig(format=Format.SNG, buy_in=100, seats=5, starting_stack=300, antes=default_antes(10))
        await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
        for n in range(1, 6):
            await env.service.register(T_ID, bot(n))
        assert env.service.busy()  # the full Sit & Go's start runs on a task
        await env.service.stop()
        assert not env.service.busy()
        await env.driver.stop()
        now = env.clock.now
    await resume_and_finish(database, now)


async def test_away_player_is_dealt_in_and_goes_on_top(sqlite_storage):
    storage = sqlite_storage
    """An away person is dealt every hand and goes on top automatically: the only chips they pay are antes."""
    env = Env(storage, hand_seconds=300)
    human = 4242
    paid: list[tuple[str, int]] = []
    dealt: list[int] = []

    def watch(applied: Applied) -> None:
        seat = applied.session.find_seat(human)
        for event in applied.events:
            if isinstance(event, HandStarted) and seat in event.dealt:
                dealt.append(event.hand_no)
            if isinstance(event, ChipsMoved) and seat is not None and event.payer == seat:
                paid.append((event.reason.value, event.amount))

    env.tables.subscribe(watch)
    cfg = TournamentConfig(format=Format.SNG, buy_in=100, seats=3, starting_stack=300, antes=default_antes(10))
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    await env.service.register(T_ID, bot(1))
    await env.service.register(T_ID, human)
    await env.service.set_away(T_ID, human, True)
    await env.service.register(T_ID, bot(2))  # the table is full: it starts
    await env.run(T_ID)
    assert len(dealt) >= 3
    assert paid and {reason for reason, _ in paid} == {"ante"}
    me = next(e for e in env.service.get(T_ID).entries.values() if e.player_id == human)
    assert me.status is EntryStatus.OUT and me.place == 3
    await check_books(env, T_ID)


async def three_handed_sng(env: Env, human: int) -> tuple[Any, Any]:
    """A Sit & Go of ``human`` between two computer players, started (full) and settled: (its table, the session)."""
    cfg = TournamentConfig(format=Format.SNG, buy_in=100, seats=3, starting_stack=300, antes=default_antes(10))
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for player in (bot(1), human, bot(2)):  # full: it starts
        await env.service.register(T_ID, player)
    await env.settle()
    (tt,) = env.service.get(T_ID).open_tables()
    return tt, env.tables.get(tt.table_id)


async def test_a_player_back_from_away_plays_their_own_turns_again(sqlite_storage):
    """``back`` (``/pan back``) ends away in a tournament: the entry is no longer away (stored), and the table waits
    for the player's own move instead of sluffing it; taking the seat back at the table does the same."""
    env = Env(sqlite_storage, hand_seconds=60)
    human = 4243
    tt, session = await three_handed_sng(env, human)

    def waits_for_human() -> bool:
        return session.in_hand and engine.to_act(session.state) == session.find_seat(human)

    assert env.hands == 1 and waits_for_human()  # nobody plays for a person who is not away
    await env.service.pause(T_ID, user_id=1)  # no new deal: the hand in progress is the one to watch
    await env.service.set_away(T_ID, human, True)
    await env.settle()
    assert env.hands == 1 and not session.in_hand  # away: sluffed to the end of the hand

    assert not await env.service.back(tt.table_id + 1, human)  # not a tournament table
    assert not await env.service.back(tt.table_id, bot(1))  # not away
    assert await env.service.back(tt.table_id, human)
    assert not await env.service.back(tt.table_id, human)  # once
    async with env.storage.transaction(write=False) as tx:
        (stored,) = await TournamentRepository().load(tx)
    assert not next(e for e in stored.entries.values() if e.player_id == human).away
    await env.service.resume(T_ID, user_id=1)
    await env.settle()
    assert env.hands == 2 and waits_for_human()  # their move is theirs again

    # away again; then the player takes the seat back at the table (the hand panel's Come back)
    await env.service.pause(T_ID, user_id=1)
    await env.service.set_away(T_ID, human, True)
    await env.settle()
    assert env.hands == 2 and not session.in_hand
    await env.tables.system_act(tt.table_id, SetAway(seat=session.find_seat(human), away=True))
    await env.tables.act(tt.table_id, human, lambda s: SetAway(seat=s, away=False))
    assert not env.service.plays_for(tt.table_id, human)  # at once: nobody plays for them any more
    await env.service.drain()  # the entry is stored as back, then changed in memory
    assert not next(e for e in env.service.get(T_ID).entries.values() if e.player_id == human).away
    async with env.storage.transaction(write=False) as tx:
        (stored,) = await TournamentRepository().load(tx)
    assert not next(e for e in stored.entries.values() if e.player_id == human).away
    await env.service.resume(T_ID, user_id=1)
    await env.settle()
    assert env.hands == 3 and waits_for_human()


async def test_between_hands_step_leaves_a_player_who_came_back_first_back(sqlite_storage):
    """The between-hands step puts an engine-away seat back in play (and plays for it as away in the tournament);
    the player takes the seat back himself while the step waits for the table lock. The step's own SetAway is then
    refused by the engine: the step goes on (no failed tick), and the player stays back, playing his own turns."""
    env = Env(sqlite_storage, hand_seconds=60)
    human = 4244
    tt, session = await three_handed_sng(env, human)
    await env.service.pause(T_ID, user_id=1)
    await env.service.set_away(T_ID, human, True)  # sluffed to the end of the hand in progress
    await env.settle()
    assert env.hands == 1 and not session.in_hand
    seat = session.find_seat(human)
    await env.tables.system_act(tt.table_id, SetAway(seat=seat, away=True))  # the table's clock put him away

    step_waits = asyncio.Event()
    original = env.tables.system_act

    async def system_act(table_id: int, action: Any, **kw: Any) -> Applied:
        if isinstance(action, SetAway) and not action.away:
            step_waits.set()  # the step read the seat as away and now queues for the table lock
        return await original(table_id, action, **kw)

    env.tables.system_act = system_act  # type: ignore[method-assign]
    async with session.lock:  # FIFO: the player's own move queues first, the step second
        own = asyncio.create_task(env.tables.act(tt.table_id, human, lambda s: SetAway(seat=s, away=False)))
        await asyncio.sleep(0)  # the player's move now waits for the lock (a yield, not a timing)
        step = asyncio.create_task(env.service.resume(T_ID, user_id=1))  # runs the between-hands step
        await step_waits.wait()
        assert not own.done() and not step.done()
    await own
    await step  # without the fix: the engine's "not away" refusal escapes the step here
    env.tables.system_act = original  # type: ignore[method-assign]
    state = session.state.seats[seat]
    assert state is not None and not state.away
    assert not next(e for e in env.service.get(T_ID).entries.values() if e.player_id == human).away
    await env.settle()
    assert env.hands == 2 and session.in_hand and engine.to_act(session.state) == seat  # his own move again
    async with env.storage.transaction(write=False) as tx:
        (stored,) = await TournamentRepository().load(tx)
    assert not next(e for e in stored.entries.values() if e.player_id == human).away


async def test_pause_stops_the_deal_and_the_clock(sqlite_storage):
    storage = sqlite_storage
    """While paused, hands in progress finish, no new hand is dealt and the level clock stands still."""
    env = Env(storage, hand_seconds=60)
    cfg = TournamentConfig(format=Format.SNG, buy_in=100, seats=3, starting_stack=300, antes=default_antes(10))
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    await env.service.register(T_ID, bot(1))
    await env.service.register(T_ID, bot(2))
    with pytest.raises(Exception) as err:
        await env.service.pause(T_ID, user_id=1)  # not running yet
    assert getattr(err.value, "code", "") == "tournament_not_running"
    await env.service.register(T_ID, bot(3))  # full: it starts; seats and the first deal follow on a task
    for _ in range(10_000):
        if env.hands:
            break
        await asyncio.sleep(0)
    await env.service.pause(T_ID, user_id=1)  # while the first hand is played
    await env.settle()
    assert env.hands == 1
    t = env.service.get(T_ID)
    before = env.service.level(t)
    env.clock.now += 3600
    await env.service.tick()
    await env.settle()
    assert env.hands == 1 and env.service.level(t)[0] == before[0]
    assert env.service.info(T_ID).paused
    await env.service.resume(T_ID, user_id=1)
    env.hand_seconds = 900  # a steep finish keeps the test quick
    await env.run(T_ID)
    info = env.service.info(T_ID)
    assert info.status is Status.FINISHED and [r[1] for r in info.results] == [1, 2, 3]
    assert sum(r[2] for r in info.results) == info.prize_pool == 300
    await check_books(env, T_ID)


def test_config_round_trip_and_refusals():
    """A config survives its JSON; impossible options are refused with a clear error."""
    cfg = TournamentConfig(
        format=Format.SCHEDULED,
        start_at_ms=1,
        payouts=(50, 30, 20),
        max_entries=3,
        late_levels=2,
        fee=10,
        seats=6,
        winner_role_id=2**60,
    )
    assert TournamentConfig.from_json(cfg.to_json()) == cfg
    older = json.loads(TournamentConfig().to_json())
    del older["winner_role_id"]  # stored before the option existed
    assert TournamentConfig.from_json(json.dumps(older)) == TournamentConfig()
    assert cfg.minutes_per_level == 10 and TournamentConfig().minutes_per_level == 6
    for bad in (
        {"seats": 9},
        {"fee": 200},
        {"late_levels": 2},  # a Sit & Go is a freezeout
        {"format": Format.SCHEDULED},  # no start time
        {"starting_stack": 10},  # not more than the first ante
        {"payouts": (20, 30)},
        {"format": Format.SCHEDULED, "start_at_ms": 1, "seats": 3},  # multi-table tables seat 4 to 8
    ):
        with pytest.raises(BadTournamentOption):
            TournamentConfig(**bad)


async def test_scheduled_below_minimum_is_cancelled_and_refunded(storage):
    """At the start time a field below the minimum is cancelled: every buy-in (fee included) goes back."""
    env = Env(storage, hand_seconds=60)
    start = int(env.clock.now * 1000) + 1000
    cfg = TournamentConfig(format=Format.SCHEDULED, start_at_ms=start, buy_in=200, fee=20, min_entries=4, seats=6)
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg, announce_only=True)
    with pytest.raises(RegistrationClosed):
        await env.service.register(T_ID, 7)
    await env.service.open_registration(T_ID, user_id=1)
    for player in (7, 8, 9):
        await env.service.register(T_ID, player)
    assert await env.ledger.balance(GUILD, 7) == 800
    env.clock.now += 2
    await env.service.tick()
    assert env.service.get(T_ID).status is Status.CANCELLED
    assert [await env.ledger.balance(GUILD, p) for p in (7, 8, 9)] == [1000, 1000, 1000]
    assert (await env.ledger.balances([Account.house(GUILD)]))[Account.house(GUILD)] == 0
    await check_books(env, T_ID)


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
