"""BotDriver with the real TableService on a temporary SQLite file: computer seats play, never wedge, resume."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from pancog.ai import Level, make_player, rank_plays
from pancog.game import engine
from pancog.game.actions import Action, GoOnTop, Knock, Rebuy, SetAway, Sit, StartHand, Timeout
from pancog.game.engine import Observation
from pancog.infra.storage import SqliteStorage
from pancog.infra.storage.base import Account
from pancog.services.bots import (
    BotDriver,
    BotSettings,
    computer_id,
    computer_name,
    hint_allowed,
    level_of,
    ordered_plays,
    practice_scope,
)
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import Applied, TableConfig, TableService, seeded_deals
from tests.e2e.scenarios import TWO_SHOE
from tests.support.wiring import wire_bots

GUILD = 900
CHANNEL = 901
TABLE = 902
HUMAN = 77
FAST = BotSettings(delay=0.0, next_hand_delay=None)


class Env:
    def __init__(self, storage: SqliteStorage, seed: int = 7) -> None:
        self.storage = storage
        self.ledger = ChipLedger(storage)
        self.store = TableStore(storage)
        self.service = TableService(self.ledger, self.store, dealer=seeded_deals(seed))
        self.applied: list[Applied] = []
        self.service.subscribe(self.applied.append)

    async def check(self) -> None:
        report = await self.ledger.audit()
        assert report.ok, report.summary()
        for session in self.service.sessions:
            assert await self.service.check_books(session.table_id) == []


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    async with SqliteStorage(tmp_path / "bots.sqlite3") as storage:
        e = Env(storage)
        yield e
        await e.check()


async def open_table(env: Env, *, practice: bool = True, away_bot: bool = False, guild: int | None = None) -> None:
    scope = practice_scope(GUILD) if guild is None else guild
    config = TableConfig.build(practice=practice, away_bot=away_bot)
    await env.service.open_table(TABLE, guild_id=scope, channel_id=CHANNEL, host_id=HUMAN, config=config)


class Gate:
    """A sleep that waits until released (a computer player 'thinking' for as long as the test wants)."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.calls = 0

    async def __call__(self, seconds: float) -> None:
        self.calls += 1
        await self.open.wait()


class Recording:
    """A normal player that records the seq of every observation it decided on."""

    def __init__(self, fail: bool = False) -> None:
        self.inner = make_player("normal")
        self.level = Level.NORMAL
        self.seqs: list[int] = []
        self.fail = fail

    def choose(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
        self.seqs.append(obs.seq)
        if self.fail:
            raise RuntimeError("a broken computer player")
        return self.inner.choose(obs, legal, rng)

    def react(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action | None:
        return self.inner.react(obs, legal, rng)


def test_ids_names_and_levels() -> None:
    """Player ids carry the level; names are clearly computer players."""
    pid = computer_id("normal", 1)
    assert pid < 0 and level_of(pid) is Level.NORMAL and computer_name(pid) == "🤖 Normal bot 1"
    assert level_of(computer_id("hard", 3)) is Level.HARD and computer_name(computer_id("easy", 2)) == "🤖 Easy bot 2"
    assert level_of(-5) is Level.NORMAL and "Computer" in computer_name(-5)
    assert practice_scope(GUILD) == -GUILD


async def test_computers_play_a_whole_hand(env: Env) -> None:
    """Three computer seats deal and play a hand to its end through the service; the books balance."""
    await open_table(env)
    driver = BotDriver(env.service, FAST)
    wire_bots(env.service, driver)
    driver.start()
    for level in ("easy", "normal", "hard"):
        await driver.seat_computer(TABLE, level)
    session = env.service.get(TABLE)
    assert sorted(session.player_ids()) == sorted(computer_id(lv, 1) for lv in ("easy", "normal", "hard"))
    await env.service.start_hand(TABLE, computer_id("normal", 1))
    await asyncio.wait_for(driver.drain(), 20)
    assert session.state.hand is None and session.state.hand_no == 1
    assert session.state.last_hand is not None and session.state.last_hand.end_reason is not None
    actors = {a.actor for a in env.applied if a.state.hand_no == 1}
    assert actors <= set(session.player_ids())  # every move came through act() as a seated player
    assert not any(isinstance(a.action, Timeout) for a in env.applied)
    await driver.stop()


async def test_play_is_reproducible(tmp_path: Path) -> None:
    """The same deals give the same computer decisions (per-decision seeded rng)."""
    logs = []
    for run in range(2):
        async with SqliteStorage(tmp_path / f"r{run}.sqlite3") as storage:
            env = Env(storage, seed=11)
            await open_table(env)
            driver = BotDriver(env.service, FAST)
            wire_bots(env.service, driver)
            driver.start()
            await driver.seat_computer(TABLE, "normal")
            await driver.seat_computer(TABLE, "easy")
            await env.service.start_hand(TABLE, computer_id("normal", 1))
            await asyncio.wait_for(driver.drain(), 20)
            await driver.stop()
            logs.append([a for _s, a, _e in await env.store.read_log(TABLE)])
    assert len(logs[0]) > 10 and logs[0] == logs[1]


async def test_practice_chips_leave_the_real_bank_alone(env: Env) -> None:
    """fill_practice funds a practice bank (bank:-G:U); the person's real bank is never posted to."""
    await open_table(env)
    real_before = await env.ledger.ensure_player(GUILD, HUMAN)
    driver = BotDriver(env.service, BotSettings(delay=0.0, next_hand_delay=None))
    wire_bots(env.service, driver)
    await driver.fill_practice(TABLE, HUMAN, opponents=2, level="easy")
    session = env.service.get(TABLE)
    assert session.state.hand_no == 1 and len(session.player_ids()) == 3
    assert await env.ledger.balance(GUILD, HUMAN) == real_before
    balances = await env.ledger.balances([Account.bank(GUILD, HUMAN), Account.bank(-GUILD, HUMAN)])
    assert balances[Account.bank(GUILD, HUMAN)] == real_before
    assert hint_allowed(session, HUMAN)
    await env.service.close(TABLE, HUMAN)
    assert await env.ledger.balance(GUILD, HUMAN) == real_before
    assert await env.ledger.balance(-GUILD, HUMAN) > 0  # the practice stack went back to the practice bank


async def test_computers_absent_from_the_leaderboard(env: Env) -> None:
    """A computer player's bank holds chips but never appears on the leaderboard."""
    await open_table(env, practice=False, guild=GUILD)
    driver = BotDriver(env.service, FAST)
    wire_bots(env.service, driver)
    bot = await driver.seat_computer(TABLE, "normal")
    await env.ledger.grant(GUILD, bot, 1_000_000, actor="system", reason="test: richest")
    await env.ledger.ensure_player(GUILD, HUMAN)
    board = await env.ledger.leaderboard(GUILD, 10)
    assert await env.ledger.balance(GUILD, bot) >= 1_000_000
    assert [u for u, _ in board] == [HUMAN]
    assert not hint_allowed(env.service.get(TABLE), HUMAN)  # not a practice table


async def test_stale_decision_is_recomputed(env: Env) -> None:
    """A decision whose table moved on while the computer 'thought' is dropped and made again on the new state."""
    await open_table(env)
    gate = Gate()
    recording = Recording()
    driver = BotDriver(
        env.service, BotSettings(delay=1.0, next_hand_delay=None), sleep=gate, player_factory=lambda _: recording
    )
    wire_bots(env.service, driver)
    driver.start()
    env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=1)  # the computer (seat 1) declares first
    await driver.fill_practice(TABLE, HUMAN, opponents=1, level="normal")
    await asyncio.sleep(0)
    assert gate.calls == 1 and driver.busy()
    seq_before = env.service.get(TABLE).state.seq
    await env.ledger.ensure_player(practice_scope(GUILD), HUMAN + 1)
    buy_in = env.service.get(TABLE).rules.min_buyin_chips
    await env.service.system_act(TABLE, Sit(player_id=HUMAN + 1, buy_in=buy_in))  # the table moves on meanwhile
    gate.open.set()
    await asyncio.wait_for(driver.drain(), 30)
    session = env.service.get(TABLE)
    assert gate.calls >= 2  # it waited again for the new state
    assert recording.seqs == [seq_before + 1]  # decided once, on the state after the Sit
    declared = [a for a in env.applied if a.actor == computer_id("normal", 1)]
    assert declared and declared[-1].before.seq == seq_before + 1
    assert engine.to_act(session.state) == 0  # now the person's turn to declare
    await driver.stop()


async def test_failing_player_falls_back_to_timeout(env: Env, caplog: pytest.LogCaptureFixture) -> None:
    """An exception in a computer player is logged and its seat plays the timeout move; the table goes on."""
    await open_table(env)
    driver = BotDriver(env.service, FAST, player_factory=lambda _: Recording(fail=True))
    wire_bots(env.service, driver)
    driver.start()
    env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=1)
    with caplog.at_level(logging.ERROR, logger="pan.bots"):
        await driver.fill_practice(TABLE, HUMAN, opponents=1, level="normal")
        await asyncio.wait_for(driver.drain(), 30)
    timeouts = [a for a in env.applied if isinstance(a.action, Timeout)]
    assert len(timeouts) == 1 and timeouts[0].actor is None and timeouts[0].action.seat == 1
    assert "failed to choose" in caplog.text
    assert engine.to_act(env.service.get(TABLE).state) == 0
    await driver.stop()


async def test_pending_computer_turn_resumes_after_restart(tmp_path: Path) -> None:
    """A computer turn pending when the process stopped is played after TableService.load() and start()."""
    path = tmp_path / "restart.sqlite3"
    async with SqliteStorage(path) as storage:
        env = Env(storage)
        await open_table(env)
        gate = Gate()  # never opens: the computer is still thinking when we "crash"
        driver = BotDriver(env.service, BotSettings(delay=30.0, next_hand_delay=None), sleep=gate)
        wire_bots(env.service, driver)
        driver.start()
        env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=1)
        await driver.fill_practice(TABLE, HUMAN, opponents=1, level="normal")
        await asyncio.sleep(0)
        seq = env.service.get(TABLE).state.seq
        assert engine.to_act(env.service.get(TABLE).state) == 1 and driver.busy()
        await driver.stop()
    async with SqliteStorage(path) as storage:
        env = Env(storage)
        assert await env.service.load() == 1
        driver = BotDriver(env.service, FAST)
        wire_bots(env.service, driver)
        assert driver.start() == 1
        await asyncio.wait_for(driver.drain(), 30)
        state = env.service.get(TABLE).state
        assert state.seq == seq + 1 and engine.to_act(state) == 0
        assert env.applied[0].actor == computer_id("normal", 1)
        await driver.stop()
        await env.check()


@pytest.mark.parametrize("away_bot", [True, False])
async def test_away_seat_played_by_normal_level(env: Env, away_bot: bool) -> None:
    """On an away_bot table the timeout of an away person becomes the normal level's move; elsewhere it stays."""
    await open_table(env, away_bot=away_bot)
    driver = BotDriver(env.service, FAST)
    wire_bots(env.service, driver)
    driver.start()
    env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=0)  # the person declares first
    await driver.fill_practice(TABLE, HUMAN, opponents=1, level="easy")
    await env.service.system_act(TABLE, SetAway(seat=0, away=True))
    applied = await env.service.system_act(TABLE, Timeout(seat=0))
    if away_bot:
        assert isinstance(applied.action, Knock)  # TWO_A holds three melds: the normal level knocks
    else:
        assert isinstance(applied.action, Timeout)
    await driver.drain()
    await driver.stop()


async def test_my_hand_order_follows_the_normal_evaluation(env: Env) -> None:
    """ordered_plays keeps every engine play and puts the normal level's best first."""
    await open_table(env)
    driver = BotDriver(env.service, BotSettings(delay=0.0, next_hand_delay=None))
    wire_bots(env.service, driver)
    env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=0)
    await driver.fill_practice(TABLE, HUMAN, opponents=1, level="easy")
    state = env.service.get(TABLE).state
    plays = engine.plays(state, 0)
    ordered = ordered_plays(state, 0, plays)
    assert sorted(map(repr, ordered)) == sorted(map(repr, plays))
    best = rank_plays(engine.observe(state, 0))[0][0]
    assert ordered[0][0] == best


async def test_practice_table_deals_the_next_hand(env: Env) -> None:
    """After a practice hand ends, a computer seat deals the next one (after next_hand_delay) while a person sits."""
    await open_table(env)
    driver = BotDriver(env.service, BotSettings(delay=0.0, next_hand_delay=0.0))
    wire_bots(env.service, driver)
    driver.start()
    env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=0)  # the person declares first
    await driver.fill_practice(TABLE, HUMAN, opponents=2, level="normal")
    await env.service.act(TABLE, HUMAN, lambda seat: GoOnTop(seat=seat))  # he sits this hand out
    await asyncio.wait_for(driver.drain(), 20)
    session = env.service.get(TABLE)
    assert session.state.hand_no == 2 and session.state.hand is not None  # dealt by itself
    deals = [a for a in env.applied if isinstance(a.action, StartHand)]
    assert [a.actor for a in deals] == [HUMAN, computer_id("normal", 1)]
    await driver.stop()


async def test_no_deal_on_an_ordinary_table(env: Env) -> None:
    """Computer seats never deal at a table that is not a practice table (people press Start there)."""
    await open_table(env, practice=False, guild=GUILD)
    driver = BotDriver(env.service, BotSettings(delay=0.0, next_hand_delay=0.0))
    wire_bots(env.service, driver)
    driver.start()
    await driver.seat_computer(TABLE, "easy")
    await driver.seat_computer(TABLE, "normal")
    await env.service.start_hand(TABLE, computer_id("easy", 1))
    await asyncio.wait_for(driver.drain(), 20)
    assert env.service.get(TABLE).state.hand is None and env.service.get(TABLE).state.hand_no == 1
    await driver.stop()


async def test_practice_computers_rebuy_between_hands(env: Env) -> None:
    """On a practice-chip table a computer player below the minimum buys back in before the next deal."""
    await open_table(env)
    driver = BotDriver(env.service, BotSettings(delay=0.0, next_hand_delay=0.0))
    wire_bots(env.service, driver)
    driver.start()
    minimum = env.service.get(TABLE).rules.min_buyin_chips
    await env.service.join(TABLE, HUMAN, buy_in=minimum)
    for n in (1, 2):  # two computers with exactly the minimum: whoever loses the hand falls below it
        await env.service.join(TABLE, computer_id("easy", n), buy_in=minimum)
    env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=0)
    await env.service.start_hand(TABLE, HUMAN)
    await env.service.act(TABLE, HUMAN, lambda seat: GoOnTop(seat=seat))
    await asyncio.wait_for(driver.drain(), 20)
    rebuys = [a for a in env.applied if isinstance(a.action, Rebuy)]
    assert rebuys and all(a.actor is not None and a.actor < 0 for a in rebuys)
    state = env.service.get(TABLE).state
    assert state.hand_no == 2
    cost = state.rules.ante + state.rules.rake  # hand 2 has been dealt (and anted) since
    assert all(s.stack >= minimum - cost for s in state.seats if s is not None and s.player_id < 0)
    await driver.stop()
