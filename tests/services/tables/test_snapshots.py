"""Table snapshots: written with the action that ends a hand, used at start-up, never changing what is loaded."""

from __future__ import annotations

import dataclasses
import logging
import random
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pancog.game import engine
from pancog.game.actions import Action, Rebuy
from pancog.game.codec import dump_state, load_state
from pancog.game.events import HandEnded
from pancog.game.state import TableState
from pancog.infra.storage import SqliteStorage
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import Applied, TableConfig, TableService, seeded_deals

GUILD = 40
TABLES = (4001, 4002, 4003)
PLAYERS = (1, 2, 3, 4, 5, 6)


class Env:
    """A service on a SQLite file; ``restart()`` opens a fresh storage, store and service on the same file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.storage = SqliteStorage(path, synchronous="OFF")
        self.service = self._service()
        self.applied: list[Applied] = []

    def _service(self, **options: object) -> TableService:
        service = TableService(
            ChipLedger(self.storage),
            TableStore(self.storage),
            dealer=seeded_deals(5),
            **options,  # type: ignore[arg-type]
        )
        service.subscribe(lambda applied: self.applied.append(applied))
        return service

    async def restart(self, **options: object) -> TableService:
        await self.storage.close()
        self.storage = SqliteStorage(self.path, synchronous="OFF")
        await self.storage.open()
        self.service = self._service(**options)
        await self.service.load()
        return self.service

    def states(self) -> dict[int, TableState]:
        return {s.table_id: s.state for s in self.service.sessions}

    async def check(self) -> None:
        report = await self.service.ledger.audit()
        assert report.ok, report.summary()
        for session in self.service.sessions:
            assert await self.service.check_books(session.table_id) == []

    def snapshot_rows(self) -> list[tuple[int, int]]:
        with sqlite3.connect(self.path) as conn:
            return conn.execute("SELECT table_id, seq FROM snapshots ORDER BY table_id, seq").fetchall()


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    e = Env(tmp_path / "snap.sqlite3")
    await e.storage.open()
    yield e
    await e.check()
    await e.storage.close()


async def open_tables(env: Env, tables: tuple[int, ...] = TABLES, players: tuple[int, ...] = PLAYERS) -> None:
    for table in tables:
        await env.service.open_table(table, guild_id=GUILD, channel_id=table, host_id=players[0], config=TableConfig())
        for user in players:
            await env.service.join(table, user)


def choose(state: TableState, rng: random.Random) -> Action:
    """A legal move for the seat to act: mostly the best-paying play, sometimes any (hands end in ~100 actions)."""
    seat = engine.to_act(state)
    assert seat is not None
    menu = [a for a, _ in engine.plays(state, seat)]
    return menu[0] if rng.random() < 0.6 else rng.choice(menu)


async def play(env: Env, table: int, *, hands: int, then: int = 0, seed: int = 0) -> None:
    """Finish ``hands`` hands at ``table`` (dealing as needed), then play ``then`` more actions of the next one."""
    service = env.service
    rng = random.Random(seed * 31 + table)
    finished = extra = 0
    while finished < hands or extra < then:
        state = service.get(table).state
        if state.hand is None:
            for i, seat in enumerate(state.seats):
                if seat is not None and seat.stack < 10:
                    await service.system_act(table, Rebuy(seat=i, amount=40))
            await service.start_hand(table, PLAYERS[0])
            continue
        applied = await service.system_act(table, choose(state, rng))
        if any(isinstance(e, HandEnded) for e in applied.events):
            finished += 1
        elif finished >= hands:
            extra += 1


async def test_snapshots_restart_uses_snapshot_and_equals_live_state(env: Env) -> None:
    """Hands played on three tables; a fresh service on the same file rebuilds each from its snapshot + tail."""
    await open_tables(env)
    await play(env, TABLES[0], hands=2)  # between hands
    await play(env, TABLES[1], hands=2, then=25)  # mid-hand
    await play(env, TABLES[2], hands=1, then=3)
    ends = {
        table: max(a.state.seq for a in env.applied if a.session.table_id == table and _ended(a)) for table in TABLES
    }
    live = env.states()
    assert env.snapshot_rows() == sorted(ends.items())  # exactly one snapshot per table: the last hand end

    stored = {t.table_id: t for t in await env.service.store.load_open_tables()}
    for table in TABLES:
        item = stored[table]
        assert item.snapshot is not None and item.first_seq == ends[table] + 1
        assert len(item.actions) == live[table].seq - ends[table]  # only the tail is replayed
        assert load_state(item.snapshot).seq == ends[table]
    assert stored[TABLES[0]].actions == ()

    applied: list[int] = []
    real_apply = engine.apply

    def counting_apply(state: TableState, action: Action) -> engine.Transition:
        applied.append(1)
        return real_apply(state, action)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "apply", counting_apply)
        fresh = await env.restart()
    assert len(applied) == sum(live[t].seq - ends[t] for t in TABLES)
    assert env.states() == live
    assert {s.table_id: s.snapshot_seq for s in fresh.sessions} == ends
    await env.check()

    await play(env, TABLES[1], hands=1)  # play on after the restart: the next hand end replaces the snapshot
    assert [seq for table, seq in env.snapshot_rows() if table == TABLES[1]] == [env.states()[TABLES[1]].seq]


def _ended(applied: Applied) -> bool:
    return any(isinstance(e, HandEnded) for e in applied.events)


async def test_snapshots_crash_between_action_and_snapshot_loads_the_same(env: Env) -> None:
    """Actions committed without their snapshot (a crash, or an older bot) only lengthen the replay."""
    await open_tables(env, TABLES[:1])
    await play(env, TABLES[0], hands=1)
    first_end = env.service.get(TABLES[0]).state.seq
    await env.restart(snapshots=False)  # this service writes no snapshots: the next hand end has none
    await play(env, TABLES[0], hands=1, then=5)
    live = env.states()
    assert env.snapshot_rows() == [(TABLES[0], first_end)]
    (item,) = await env.service.store.load_open_tables()
    assert item.first_seq == first_end + 1 and len(item.actions) == live[TABLES[0]].seq - first_end
    await env.restart()
    assert env.states() == live
    await env.check()


async def test_snapshots_no_snapshot_at_all_replays_whole_log(env: Env) -> None:
    await env.restart(snapshots=False)
    await open_tables(env, TABLES[:2])
    await play(env, TABLES[0], hands=1, then=7)
    await play(env, TABLES[1], hands=2)
    live = env.states()
    assert env.snapshot_rows() == []
    await env.restart()
    assert env.states() == live
    assert {s.snapshot_seq for s in env.service.sessions} == {0}


@pytest.mark.parametrize(
    "bad",
    [
        "{not json",
        '{"v": 0, "state": {}}',  # an older format
        "WRONG_SEQ",
        "WRONG_TABLE",
        "OTHER_RULES",
    ],
)
async def test_snapshots_unusable_snapshot_falls_back_to_full_replay(
    env: Env, bad: str, caplog: pytest.LogCaptureFixture
) -> None:
    """An unreadable, old-format or mismatched snapshot is ignored with a warning; the whole log is replayed."""
    await open_tables(env, TABLES[:1])
    await play(env, TABLES[0], hands=1, then=4)
    live = env.states()
    (item,) = await env.service.store.load_open_tables()
    assert item.snapshot is not None
    snap_seq = item.first_seq - 1
    good = load_state(item.snapshot)
    text = {
        "WRONG_SEQ": dump_state(live[TABLES[0]]),  # a state from another seq
        "WRONG_TABLE": dump_state(_replace(good, table_id=999)),
        "OTHER_RULES": dump_state(_replace(good, rules=_replace(good.rules, ante_chips=3))),
    }.get(bad, bad)
    await env.service.store.save_snapshot(TABLES[0], snap_seq, text)
    with caplog.at_level(logging.WARNING, logger="pan.tables"):
        await env.restart()
    assert env.states() == live
    assert any("replaying the whole log" in r.getMessage() for r in caplog.records)
    assert env.service.get(TABLES[0]).snapshot_seq == 0
    # the next action writes a fresh snapshot only at the next hand end (or after snapshot_every actions)
    await play(env, TABLES[0], hands=1)
    assert env.snapshot_rows() == [(TABLES[0], env.states()[TABLES[0]].seq)]


def _replace(obj: object, **changes: object) -> object:
    return dataclasses.replace(obj, **changes)  # type: ignore[type-var]


async def test_snapshots_every_n_actions_bounds_a_long_hand(env: Env) -> None:
    """With ``snapshot_every=20`` a hand in progress is snapshotted every 21 actions; the reload is exact."""
    await env.restart(snapshot_every=20)
    await open_tables(env, TABLES[:1])
    await play(env, TABLES[0], hands=0, then=70)
    live = env.states()
    (row,) = env.snapshot_rows()
    assert live[TABLES[0]].seq - row[1] <= 21 and live[TABLES[0]].hand is not None
    (item,) = await env.service.store.load_open_tables()
    assert load_state(item.snapshot or "").hand is not None  # a mid-hand snapshot
    await env.restart(snapshot_every=20)
    assert env.states() == live


async def test_snapshots_closed_table_keeps_no_snapshot(env: Env) -> None:
    await open_tables(env, TABLES[:2])
    await play(env, TABLES[0], hands=1)
    await play(env, TABLES[1], hands=1)
    assert len(env.snapshot_rows()) == 2
    await env.service.close(TABLES[0], PLAYERS[0])
    assert [t for t, _ in env.snapshot_rows()] == [TABLES[1]]
    await env.restart()
    assert [s.table_id for s in env.service.sessions] == [TABLES[1]]


async def test_snapshots_encoding_failure_changes_nothing(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot that cannot be encoded is skipped (logged); the action still commits and the reload is exact."""
    import pancog.services.tables

    def broken(state: TableState) -> str:
        raise ValueError("codec bug")

    monkeypatch.setattr(pancog.services.tables, "dump_state", broken)
    await open_tables(env, TABLES[:1])
    await play(env, TABLES[0], hands=1, then=3)
    assert env.snapshot_rows() == []
    live = env.states()
    monkeypatch.undo()
    await env.restart()
    assert env.states() == live
