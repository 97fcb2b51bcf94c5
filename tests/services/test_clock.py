"""TurnClock: turn time, time bank, away and back, idle close, restarts — with a fake clock, real SQLite."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pancog.game import engine
from pancog.game.actions import GoOnTop, Knock, Pluck, SetAway, StartHand
from pancog.game.errors import PanError
from pancog.game.events import CardPlucked, Discarded, TimedOut
from pancog.game.state import PlayerStatus
from pancog.infra import logs
from pancog.infra.storage import SqliteStorage
from pancog.services.clock import ClockNotice, ClockSettings, NotAway, TurnClock
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import NotSeated, TableConfig, TableService
from tests.e2e.scenarios import TWO_SHOE

GUILD, CHANNEL, TABLE = 500, 600, 700
A, B, C = 11, 12, 13
T0 = 1_800_000_000.0


def at(t: float) -> object:
    """An epoch time to the millisecond (``pytest.approx``'s default tolerance is 30 minutes at 1.8e9)."""
    return pytest.approx(t, abs=1e-3)


class FakeTime:
    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class Env:
    def __init__(self, storage: SqliteStorage, now: FakeTime, settings: ClockSettings | None = None) -> None:
        self.storage = storage
        self.now = now
        self.ledger = ChipLedger(storage, clock=now)
        self.store = TableStore(storage, clock=now)
        self.service = TableService(self.ledger, self.store, clock=now)
        self.clock = TurnClock(self.service, settings, now=now)
        self.notices: list[ClockNotice] = []
        self.clock.observe(self.notices.append)

    def kinds(self) -> list[str]:
        return [n.kind for n in self.notices]

    def state(self) -> engine.TableState:
        return self.service.get(TABLE).state

    async def tick(self, seconds: float) -> int:
        self.now.advance(seconds)
        return await self.clock.run_due()

    async def restart(self) -> Env:
        """A new service and clock over the same database (a process restart)."""
        await self.clock.stop()
        fresh = Env(self.storage, self.now, self.clock.settings)
        await fresh.service.load()
        await fresh.clock.start(run=False)
        return fresh


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    async with SqliteStorage(tmp_path / "pan.sqlite3") as storage:
        e = Env(storage, FakeTime())
        await e.clock.start(run=False)
        yield e
        await e.clock.stop()
        report = await e.ledger.audit()
        assert report.ok, report.summary()


async def seat(env: Env, *players: int) -> None:
    await env.service.open_table(
        TABLE, guild_id=GUILD, channel_id=CHANNEL, host_id=players[0], config=TableConfig.build()
    )
    for p in players:
        await env.service.join(TABLE, p, buy_in=100)


async def deal(env: Env, first: int = 0, *, shoe: bool = False) -> None:
    session = env.service.get(TABLE)
    session.stacked.append(StartHand(shoe=TWO_SHOE, first_seat=first) if shoe else StartHand(seed=7, first_seat=first))
    await env.service.start_hand(TABLE, session.player_ids()[-1])  # not A: a move of his breaks his streak


# ----------------------------------------------------------------------------- turn time and bank


async def test_clock_warns_then_times_out_after_turn_and_bank(env: Env) -> None:
    """Deadline = turn (60) + bank (120); a warning 15 s before; the timeout sluffs a declaring player."""
    await seat(env, A, B)
    await deal(env)
    info = env.clock.turn_info(TABLE)
    assert info is not None and info.seat == 0 and info.player_id == A
    assert info.deadline == at(T0 + 180)
    assert await env.tick(164) == 0 and env.kinds() == []
    assert await env.tick(2) == 1 and env.kinds() == ["warning"]
    assert env.notices[0].seconds_left == pytest.approx(14)
    seq = env.state().seq
    await env.tick(13.9)
    assert env.state().seq == seq  # not yet
    await env.tick(0.2)
    state = env.state()
    assert state.seq == seq + 1
    hand = state.hand if state.hand is not None else state.last_hand
    assert hand is not None and hand.player(0).status is PlayerStatus.RETIRED
    assert env.kinds() == ["warning", "timeout"]
    assert env.clock.bank_left(TABLE, A) == 0
    assert env.clock.streak(TABLE, A) == 1


async def test_clock_bank_spent_only_beyond_turn_time(env: Env) -> None:
    """Answering within the turn time costs nothing; 70 s costs 10 s of bank; the next deadline uses the rest."""
    await seat(env, A, B)
    await deal(env, shoe=True)
    env.now.advance(59)
    await env.service.act(TABLE, A, lambda s: Knock(seat=s))
    assert env.clock.bank_left(TABLE, A) == 120
    env.now.advance(70)
    await env.service.act(TABLE, B, lambda s: Knock(seat=s))
    assert env.clock.bank_left(TABLE, B) == pytest.approx(110)
    await env.clock.drain()
    row = await env.store.get_table(TABLE)
    assert row is not None and json.loads(row.meta)["clock"]["banks"] == {str(B): 110.0}
    # A draws first: his deadline is the full 60 + 120 from B's knock
    info = env.clock.turn_info(TABLE)
    assert info is not None and info.player_id == A and info.deadline == at(env.now.t + 180)


async def test_clock_timeout_in_play_plucks_and_discards(env: Env) -> None:
    """In play the timeout plucks and discards the pluck; the turn passes on."""
    await seat(env, A, B)
    await deal(env, shoe=True)
    await env.service.act(TABLE, A, lambda s: Knock(seat=s))
    await env.service.act(TABLE, B, lambda s: Knock(seat=s))
    seq = env.state().seq
    applied: list[object] = []
    env.service.subscribe(applied.append)
    await env.tick(181)
    assert env.state().seq == seq + 1
    events = applied[0].events  # type: ignore[attr-defined]
    assert [type(e) for e in events][:3] == [TimedOut, CardPlucked, Discarded]
    assert engine.to_act(env.state()) == 1


async def test_clock_player_acting_at_the_deadline_wins(env: Env) -> None:
    """A move committed before the clock fires starts a new decision: the old expiry never lands."""
    await seat(env, A, B)
    await deal(env, shoe=True)
    env.now.advance(200)  # past A's deadline, but the clock has not run yet
    await env.service.act(TABLE, A, lambda s: Knock(seat=s))
    seq = env.state().seq
    assert await env.clock.run_due() == 0
    assert env.state().seq == seq and env.clock.streak(TABLE, A) == 0
    # and a system action for an older seq is refused by the service, changing nothing
    with pytest.raises(PanError):
        await env.service.system_act(TABLE, GoOnTop(seat=1), expect_seq=seq - 1)
    assert env.state().seq == seq


# ----------------------------------------------------------------------------- away and back


async def play_lone_hand(env: Env) -> None:
    """A (first) times out -> on top; B knocks, C goes on top: B wins alone."""
    await env.tick(181)
    await env.service.act(TABLE, B, lambda s: Knock(seat=s))
    await env.service.act(TABLE, C, lambda s: GoOnTop(seat=s))
    await env.clock.drain()


async def first_hand_timed_out(env: Env) -> None:
    """A, B and C seated; the first hand played with A timing out (one expiry)."""
    await seat(env, A, B, C)
    await deal(env, first=0)
    await play_lone_hand(env)


async def away_in_the_second_hand(env: Env) -> None:
    """After the first hand's expiry, A's second in a row in the next hand makes him away."""
    await first_hand_timed_out(env)
    await deal(env, first=0)
    await env.tick(61)
    assert env.state().seats[0].away  # type: ignore[union-attr]


async def test_clock_two_expiries_make_away_then_stood_up_at_hand_end(env: Env) -> None:
    """Two expiries in a row: away at once, stood up (stack to the bank) when the hand ends."""
    await first_hand_timed_out(env)
    assert env.state().hand is None and env.clock.streak(TABLE, A) == 1
    await deal(env, first=0)
    await env.tick(1)  # A's bank is spent: 60 s this time
    assert env.state().seats[0] is not None and not env.state().seats[0].away  # type: ignore[union-attr]
    await env.tick(60)
    state = env.state()
    assert state.hand is not None, "the hand goes on without A"
    assert state.seats[0] is not None and state.seats[0].away
    assert env.kinds().count("timeout") == 2 and "away" in env.kinds()
    stack = state.seats[0].stack
    bank_before = await env.ledger.balance(GUILD, A)
    await env.service.act(TABLE, B, lambda s: Knock(seat=s))
    await env.service.act(TABLE, C, lambda s: GoOnTop(seat=s))
    await env.clock.drain()
    assert env.service.get(TABLE).find_seat(A) is None
    assert await env.ledger.balance(GUILD, A) == bank_before + stack
    assert env.kinds()[-1] == "stood" and env.notices[-1].cashouts == ((A, stack),)
    assert await env.service.check_books(TABLE) == []


async def test_clock_back_returns_an_away_player(env: Env) -> None:
    """/pan back while still seated: back in, streak cleared, not stood up at the hand's end."""
    await away_in_the_second_hand(env)
    await env.clock.back(TABLE, A)
    assert not env.state().seats[0].away  # type: ignore[union-attr]
    assert env.clock.streak(TABLE, A) == 0
    with pytest.raises(NotAway):
        await env.clock.back(TABLE, A)
    with pytest.raises(NotSeated):
        await env.clock.back(TABLE, 99)
    await env.service.act(TABLE, B, lambda s: Knock(seat=s))
    await env.service.act(TABLE, C, lambda s: GoOnTop(seat=s))
    await env.clock.drain()
    assert env.service.get(TABLE).find_seat(A) == 0


async def test_clock_back_checks_away_inside_the_table_lock(env: Env) -> None:
    """/pan back races another writer that puts the seat back in play first (a tournament's between-hands step):
    the answer is NotAway (the tournament then ends its own away), never the engine's refusal."""
    await away_in_the_second_hand(env)
    session = env.service.get(TABLE)
    async with session.lock:  # both writers queue behind this; the lock is FIFO: the system step goes first
        first = asyncio.create_task(env.service.system_act(TABLE, SetAway(seat=0, away=False)))
        await asyncio.sleep(0)  # the system step is now waiting for the lock (a yield, not a timing)
        back = asyncio.create_task(env.clock.back(TABLE, A))
        await asyncio.sleep(0)  # /pan back passed its pre-check (still away) and waits for the lock
        assert not first.done() and not back.done()
    await first
    with pytest.raises(NotAway):
        await back
    assert not env.state().seats[0].away  # type: ignore[union-attr]


async def test_clock_timeouts_of_a_player_another_service_plays_for_are_not_his_expiries(env: Env) -> None:
    """A tournament sluffs an away entry's turns with its own Timeouts: they build no streak and never set him away
    (such an away, queued behind the hand, could land after his /pan back). Once he is present again, they count."""
    playing_for: set[int] = {A}

    class Keeper:  # what the tournament service is to the clock (a SeatKeeper), keeping no table's seats here
        def owns_table(self, table_id: int) -> bool:
            return False

        def plays_for(self, table_id: int, player_id: int) -> bool:
            return table_id == TABLE and player_id in playing_for

    env.clock.keep_seats_of(Keeper())
    await first_hand_timed_out(env)  # A's turn times out: not counted
    assert env.clock.streak(TABLE, A) == 0
    await deal(env, first=0)
    await env.tick(181)  # and again: without the hook, the second in a row would set A away
    await env.clock.drain()
    assert env.clock.streak(TABLE, A) == 0
    assert not env.state().seats[0].away  # type: ignore[union-attr]
    assert "away" not in env.kinds() and env.kinds().count("timeout") == 2
    playing_for.clear()  # he is back: his own expiries count again
    await env.service.act(TABLE, B, lambda s: Knock(seat=s))
    await env.service.act(TABLE, C, lambda s: GoOnTop(seat=s))
    await env.clock.drain()
    await deal(env, first=0)
    await env.tick(181)
    await env.clock.drain()
    assert env.clock.streak(TABLE, A) == 1


async def test_clock_own_move_breaks_the_streak(env: Env) -> None:
    """An expiry, then the player's own move: the next expiry counts from one again."""
    await first_hand_timed_out(env)
    assert env.clock.streak(TABLE, A) == 1
    await deal(env, first=0)
    await env.service.act(TABLE, A, lambda s: Knock(seat=s))
    assert env.clock.streak(TABLE, A) == 0


# ----------------------------------------------------------------------------- idle tables


async def test_clock_idle_table_closes_and_returns_stacks(env: Env) -> None:
    """No hand for 30 minutes since the last action: the table closes itself, every chip goes home."""
    await seat(env, A, B)
    banks = {p: await env.ledger.balance(GUILD, p) for p in (A, B)}
    assert env.clock.idle_deadline(TABLE) == at(T0 + 1800)
    await env.tick(1799)
    assert env.service.find_in_channel(CHANNEL) is not None
    await env.tick(2)
    assert env.service.find_in_channel(CHANNEL) is None
    assert env.kinds() == ["idle_closed"]
    assert dict(env.notices[0].cashouts) == {A: 100, B: 100}
    for p in (A, B):
        assert await env.ledger.balance(GUILD, p) == banks[p] + 100


async def test_clock_table_in_a_hand_is_never_idle_closed(env: Env) -> None:
    await seat(env, A, B)
    await deal(env, shoe=True)
    await env.service.act(TABLE, A, lambda s: Knock(seat=s))
    assert env.clock.idle_deadline(TABLE) is None
    env.now.advance(3600)
    await env.service.act(TABLE, B, lambda s: Knock(seat=s))  # keeps going; no idle close
    await env.clock.run_due()
    assert env.service.find_in_channel(CHANNEL) is not None


async def test_clock_picks_up_a_table_opened_without_actions(env: Env) -> None:
    await env.service.open_table(TABLE, guild_id=GUILD, channel_id=CHANNEL, host_id=A, config=TableConfig.build())
    await env.tick(1801)  # the sweep finds it; its idle time counts from its creation
    await env.clock.run_due()
    assert env.service.find_in_channel(CHANNEL) is None


# ----------------------------------------------------------------------------- restarts


async def test_clock_resumes_after_restart_with_remaining_time(env: Env) -> None:
    """After a restart the deadline is the last committed action's time + turn + the persisted bank."""
    await seat(env, A, B)
    await deal(env, shoe=True)
    env.now.advance(100)  # A spends 40 s of bank
    await env.service.act(TABLE, A, lambda s: Knock(seat=s))
    knocked_at = env.now.t
    await env.clock.drain()
    env.now.advance(30)
    await env.service.act(TABLE, B, lambda s: Knock(seat=s))  # A to draw from here
    last = env.now.t
    env.now.advance(50)  # the process dies 50 s into A's turn
    fresh = await env.restart()
    info = fresh.clock.turn_info(TABLE)
    assert info is not None and info.player_id == A
    assert info.started == at(last) and last > knocked_at
    assert info.deadline == at(last + 60 + 80)
    seq = fresh.state().seq
    await fresh.tick(89)
    assert fresh.state().seq == seq and fresh.kinds() == ["warning"]
    await fresh.tick(1.5)
    assert fresh.state().seq == seq + 1 and fresh.kinds()[-1] == "timeout"
    await fresh.clock.stop()


async def test_clock_idle_time_survives_restart(env: Env) -> None:
    await seat(env, A, B)
    env.now.advance(1000)
    fresh = await env.restart()
    assert fresh.clock.idle_deadline(TABLE) == at(T0 + 1800)
    await fresh.tick(801)
    assert fresh.service.find_in_channel(CHANNEL) is None
    await fresh.clock.stop()


# ----------------------------------------------------------------------------- the background loop


async def test_clock_background_loop_with_fast_clock(tmp_path: Path) -> None:
    """time_scale 1200: a 60 + 120 s clock expires in 0.15 s of real time, on its own."""
    async with SqliteStorage(tmp_path / "pan.sqlite3") as storage:
        ledger, store = ChipLedger(storage), TableStore(storage)
        service = TableService(ledger, store)
        clock = TurnClock(service, ClockSettings(time_scale=1200))
        fired = asyncio.Event()
        kinds: list[str] = []

        def on_notice(notice: ClockNotice) -> None:
            kinds.append(notice.kind)
            if notice.kind == "timeout":
                fired.set()

        clock.observe(on_notice)
        await clock.start()
        await service.open_table(TABLE, guild_id=GUILD, channel_id=CHANNEL, host_id=A, config=TableConfig.build())
        for p in (A, B):
            await service.join(TABLE, p)
        service.stack_next_hand(TABLE, TWO_SHOE, first_seat=0)
        await service.start_hand(TABLE, A)
        await asyncio.wait_for(fired.wait(), 30)  # a failure deadline only: the timeout fires on its own
        await clock.stop()
        # The warning comes first when the loop wakes before the deadline; a starved loop that wakes after it times
        # out at once, without a warning for a moment already gone (the order is tested with a driven clock above).
        assert kinds in (["warning", "timeout"], ["timeout"])
        assert (await ledger.audit()).ok


async def test_clock_scheduler_wakes_only_for_an_earlier_deadline(tmp_path: Path) -> None:
    """The scheduler sleeps towards the earliest deadline (or the next sweep); a deadline set after an action wakes
    it only when it is earlier than that, never on every action. Driven: the fake sleep records each sleep the loop
    starts and never ends on its own, so every recorded sleep after the first is a wake."""
    sleeps: list[float] = []
    alarms: list[asyncio.Event] = []

    async def sleep(delay: float) -> None:
        sleeps.append(delay)
        alarms.append(asyncio.Event())
        await alarms[-1].wait()  # ends when the test rings it

    async def settled(count: int) -> None:
        for _ in range(200):  # yields to the loop, not a timing: it runs until it sleeps again
            if len(sleeps) >= count:
                return
            await asyncio.sleep(0)

    now = FakeTime()
    async with SqliteStorage(tmp_path / "pan.sqlite3") as storage:
        service = TableService(ChipLedger(storage, clock=now), TableStore(storage, clock=now), clock=now)
        clock = TurnClock(service, ClockSettings(time_bank_seconds=0), now=now, sleep=sleep)
        await clock.start()
        await settled(1)
        assert sleeps == [60.0]  # nothing to time: asleep until the next sweep
        config = TableConfig.build(turn_seconds=40)
        await service.open_table(TABLE, guild_id=GUILD, channel_id=CHANNEL, host_id=A, config=config)
        for p in (A, B):
            await service.join(TABLE, p)
        service.stack_next_hand(TABLE, TWO_SHOE, first_seat=0)
        await service.start_hand(TABLE, A)
        await settled(2)
        assert sleeps == [60.0, 25.0]  # woken: the first turn's warning (40 - 15 s) comes before the sweep
        now.advance(5)
        await service.act(TABLE, A, lambda s: Knock(seat=s))  # B's decision: its warning, 25 s from now, is later
        await settled(3)
        assert len(sleeps) == 2  # still asleep towards the earlier one
        now.advance(20)  # the sleep towards A's warning ends: A has acted, so it sleeps again, towards B's
        alarms[-1].set()
        await settled(3)
        assert sleeps[2] == pytest.approx(5.0)
        assert clock.turn_info(TABLE) is not None
        await clock.stop()


# ----------------------------------------------------------------------------- structured logs


def test_logs_context_fields_on_every_line(caplog: pytest.LogCaptureFixture) -> None:
    logs.install_record_factory()
    logger = logging.getLogger("pan.test.logs")
    formatter = logs.ContextFormatter(logging.Formatter("%(levelname)s %(message)s"))
    with caplog.at_level(logging.INFO, logger="pan.test.logs"):
        with logs.context(guild=1, table=2, hand=3, seat=4):
            logger.info("inside")
        logger.info("outside")
        logs.TableLogger(logger, table=9, seat=0).info("adapter")
    inside, outside, adapter = caplog.records
    assert formatter.format(inside) == "INFO inside [guild=1 table=2 hand=3 seat=4]"
    assert formatter.format(outside) == "INFO outside"
    assert formatter.format(adapter) == "INFO adapter [table=9 seat=0]"
    as_json = json.loads(logs.ContextFormatter(json_lines=True).format(inside))
    assert (as_json["guild"], as_json["table"], as_json["hand"], as_json["seat"]) == (1, 2, 3, 4)


async def test_logs_context_does_not_leak_between_tasks() -> None:
    async def one(table: int) -> dict[str, int]:
        with logs.context(table=table):
            await asyncio.sleep(0)
            return logs.current()

    assert await asyncio.gather(one(1), one(2)) == [{"table": 1}, {"table": 2}]
    assert logs.current() == {}


async def test_clock_timeout_then_pluck_is_legal_for_the_next_player(env: Env) -> None:
    """After A's timeout in play, B can act normally (the table never stalls on A)."""
    await seat(env, A, B)
    await deal(env, shoe=True)
    await env.service.act(TABLE, A, lambda s: Knock(seat=s))
    await env.service.act(TABLE, B, lambda s: Knock(seat=s))
    await env.tick(181)
    await env.service.act(TABLE, B, lambda s: Pluck(seat=s))
    assert engine.to_act(env.state()) == 1


async def test_clock_unsticks_a_refused_timeout(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """If the engine ever refused a timeout, the player is stood up (RULES §6.5) so the table keeps moving."""
    await seat(env, A, B, C)
    await deal(env, first=0)
    real = env.service.system_act

    async def refuse_timeouts(table_id: int, action: object, **kwargs: object) -> object:
        if type(action).__name__ == "Timeout":
            raise PanError("engine gap")
        return await real(table_id, action, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(env.service, "system_act", refuse_timeouts)
    await env.tick(181)
    assert env.kinds() == ["error"]  # past the deadline at once: no warning
    assert env.service.get(TABLE).find_seat(A) is None, "stood up: declaring, so he retired and cashed out"
    assert engine.to_act(env.state()) == 1


async def test_clock_hand_where_everyone_is_away_ends(env: Env) -> None:
    """Both players away in play: instead of timing out forever, the floor fouls the abandoned hands; it ends."""
    await seat(env, A, B)
    await deal(env, shoe=True)
    await env.service.act(TABLE, A, lambda s: Knock(seat=s))
    await env.service.act(TABLE, B, lambda s: Knock(seat=s))
    for _ in range(4):  # A, B, A (away), B (away): two expiries in a row each
        await env.tick(181)
    for _ in range(10):
        if env.state().hand is None:
            break
        await env.tick(1)
    state = env.state()
    assert state.hand is None and state.last_hand is not None
    assert env.kinds().count("abandoned") >= 1 and env.kinds().count("timeout") <= 6
    assert all(s is None for s in state.seats), "both away players were stood up when the hand ended"
    assert await env.service.check_books(TABLE) == []


# ----------------------------------------------------------------------------- idle time: from the last hand's end


async def end_a_hand(env: Env) -> float:
    """Deal, A knocks, B goes on top: A wins alone and the hand ends now; returns that moment."""
    await deal(env, shoe=True)
    await env.service.act(TABLE, A, lambda s: Knock(seat=s))
    await env.service.act(TABLE, B, lambda s: GoOnTop(seat=s))
    assert env.state().hand is None and env.state().hand_no >= 1
    await env.clock.drain()
    return env.now.t


async def test_clock_idle_time_counts_from_opening_not_from_joins(env: Env) -> None:
    """No hand ever dealt: 30 minutes from the opening, however many people sit down or leave meanwhile."""
    await env.service.open_table(TABLE, guild_id=GUILD, channel_id=CHANNEL, host_id=A, config=TableConfig.build())
    env.now.advance(600)
    await env.service.join(TABLE, A, buy_in=100)  # the first action the clock sees comes 10 minutes late
    await env.clock.drain()
    assert env.clock.idle_deadline(TABLE) == at(T0 + 1800)
    env.now.advance(600)
    await env.service.join(TABLE, B, buy_in=100)
    env.now.advance(300)
    await env.service.leave(TABLE, A)
    assert env.clock.idle_deadline(TABLE) == at(T0 + 1800)
    await env.tick(1800 - 1500 - 1)
    assert env.service.find_in_channel(CHANNEL) is not None
    await env.tick(2)
    assert env.service.find_in_channel(CHANNEL) is None and env.kinds() == ["idle_closed"]
    assert dict(env.notices[0].cashouts) == {B: 100}


async def test_clock_idle_time_counts_from_the_end_of_the_last_hand(env: Env) -> None:
    """A hand ends at E: seat changes after it do not move the close from E + 30 min; a new deal stops it."""
    await seat(env, A, B)
    env.now.advance(3000)  # idle long before the hand: the deal stops the idle clock
    ended = await end_a_hand(env)
    assert env.clock.idle_deadline(TABLE) == at(ended + 1800)
    env.now.advance(900)
    await env.service.join(TABLE, C, buy_in=100)
    env.now.advance(600)
    await env.service.rebuy(TABLE, A, 10)
    await env.service.leave(TABLE, C)
    assert env.clock.idle_deadline(TABLE) == at(ended + 1800)
    await env.tick(1800 - 1500 - 1)
    assert env.service.find_in_channel(CHANNEL) is not None
    await env.tick(2)
    assert env.service.find_in_channel(CHANNEL) is None and env.kinds() == ["idle_closed"]


async def test_clock_a_new_hand_restarts_the_idle_time(env: Env) -> None:
    await seat(env, A, B)
    first = await end_a_hand(env)
    env.now.advance(1700)
    second = await end_a_hand(env)
    assert second > first and env.clock.idle_deadline(TABLE) == at(second + 1800)
    await env.tick(1799)
    assert env.service.find_in_channel(CHANNEL) is not None


async def test_clock_idle_deadline_after_a_hand_survives_restart(env: Env) -> None:
    """The meta keeps when the last hand ended: a restart keeps the deadline (not a fresh 30 minutes)."""
    await seat(env, A, B)
    ended = await end_a_hand(env)
    env.now.advance(500)
    await env.service.join(TABLE, C, buy_in=100)
    await env.clock.drain()
    row = await env.store.get_table(TABLE)
    assert row is not None and json.loads(row.meta)["clock"]["idle_since"] == at(ended)
    env.now.advance(500)
    fresh = await env.restart()
    assert fresh.clock.idle_deadline(TABLE) == at(ended + 1800)
    await fresh.tick(799)
    assert fresh.service.find_in_channel(CHANNEL) is not None
    await fresh.tick(2)
    assert fresh.service.find_in_channel(CHANNEL) is None
    await fresh.clock.stop()


async def test_clock_idle_deadline_without_meta_is_read_from_the_log(env: Env) -> None:
    """Meta lost or overwritten (a crash before its write, another writer): the log's hand end gives the time."""
    await seat(env, A, B)
    ended = await end_a_hand(env)
    env.now.advance(700)
    await env.service.join(TABLE, C, buy_in=100)
    await env.clock.stop()
    await env.store.update_meta(TABLE, json.dumps({"names": {}}))
    env.now.advance(100)
    fresh = await env.restart()
    assert fresh.clock.idle_deadline(TABLE) == at(ended + 1800)
    await fresh.clock.stop()
