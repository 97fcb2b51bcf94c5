"""A crash at any write (as a SIGKILL: that transaction and everything after it never happen), then a restart on
the same file: the tournament resumes exactly and ends with the same standings and prizes as without the crash."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from pancog.services.tournaments.errors import AlreadyRegistered
from pancog.services.tournaments.levels import default_antes
from pancog.services.tournaments.model import Format, Status, TournamentConfig
from tests.services.tournaments.conftest import open_database
from tests.services.tournaments.test_service import GUILD, T_ID, Env, bot, check_books, check_ranking, resume_and_finish

CFG = TournamentConfig(format=Format.SNG, buy_in=100, fee=5, seats=4, starting_stack=200, antes=default_antes(10))


class Killed(Exception):
    """The process died here."""


class DyingStorage:
    """A storage (either backend) whose ``die_at``-th write transaction, and every one after it, never happens."""

    def __init__(self, database: str, die_at: int | None) -> None:
        self.inner = open_database(database)
        self.die_at = die_at
        self.writes = 0
        self.clock: Any = None
        self.died_at_time: float | None = None  # the fake clock when the process died

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def __aenter__(self) -> DyingStorage:
        await self.inner.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.inner.close()

    def _write(self) -> None:
        self.writes += 1
        if self.die_at is not None and self.writes >= self.die_at:
            if self.died_at_time is None:
                self.died_at_time = self.clock()
            raise Killed

    @contextlib.asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[Any]:
        if write:
            self._write()
        async with self.inner.transaction(write=write) as tx:
            yield tx

    async def commit_bare_action(self, **action: Any) -> int | None:
        """A table action written in one statement is one write, as its transaction would be. When the next write
        is the fatal one, the shortcut declines and the transaction meets the crash: both backends die at the same
        write (SQLite always declines)."""
        if self.die_at is not None and self.writes + 1 >= self.die_at:
            return None
        result: int | None = await self.inner.commit_bare_action(**action)
        if result is not None:
            self.writes += 1
        return result


async def _register_all(env: Env) -> None:
    for n in range(1, 5):
        with contextlib.suppress(AlreadyRegistered):
            await env.service.register(T_ID, bot(n))


def _outcome(env: Env) -> list[tuple[Any, ...]]:
    t = env.service.get(T_ID)
    return sorted((e.player_id, e.place, e.tied, e.prize, e.bust_group, e.start_stack) for e in t.entries.values())


async def _play(path: str, die_at: int | None) -> tuple[int, list[tuple[Any, ...]]]:
    """Run until the end or the crash; after a crash, restart on the same file and finish. (writes, outcome)"""
    now = None
    async with DyingStorage(path, die_at) as storage:
        env = Env(storage, hand_seconds=600)
        storage.clock = env.clock
        try:
            await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=CFG)
            await _register_all(env)
            await env.run(T_ID)
        except (Killed, AssertionError):
            pass
        writes, now = storage.writes, storage.died_at_time
        await env.driver.stop()
        if die_at is None:
            await check_books(env, T_ID)
            return writes, _outcome(env)
    async with open_database(path) as storage:
        env = Env(storage, hand_seconds=600)
        assert now is not None
        env.clock.now = now
        await env.driver.stop()
        await env.tables.load()
        if await env.service.load() == 0:  # the crash came before the tournament was created (it never ends first)
            await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=CFG)
        env.driver.start()
        await env.service.kick()
        if env.service.get(T_ID).status is Status.REGISTERING:
            await _register_all(env)
        await env.run(T_ID)
        t = env.service.get(T_ID)
        assert t.status is Status.FINISHED
        check_ranking(t)
        await check_books(env, T_ID)
        return writes, _outcome(env)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, list[tuple[Any, ...]]]:
    import asyncio

    return asyncio.run(_play(str(tmp_path_factory.mktemp("ref") / "ref.sqlite3"), None))


@pytest.mark.parametrize("point", [0.004, 0.02, 0.3, 0.7, -2, -1])
async def test_crash_anywhere_resumes_exactly(database, reference, point):
    """Killed at a write (registration, start, mid-hand, a bust, the payouts): same result after the restart, on
    either backend, as the uninterrupted reference run on SQLite (deals and seat draws derive from the seed)."""
    writes, expected = reference
    die_at = max(1, int(writes * point)) if point > 0 else writes + 1 + int(point)
    _, outcome = await _play(database, die_at)
    assert outcome == expected


MTT = TournamentConfig(
    format=Format.SCHEDULED,
    buy_in=40,
    seats=4,
    starting_stack=150,
    antes=default_antes(10),
    start_at_ms=0,
    min_entries=4,
)


async def _play_mtt(path: str, die_at: int | None) -> tuple[int, int]:
    """A 9-entry, 3-table event; after a crash, restart and finish. Returns (writes, players moved)."""
    async with DyingStorage(path, die_at) as storage:
        env = Env(storage, hand_seconds=600)
        storage.clock = env.clock
        moved = 0
        try:
            await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=MTT)
            for n in range(1, 10):
                await env.service.register(T_ID, bot(n))
            await env.run(T_ID)
        except (Killed, AssertionError):
            pass
        writes, now = storage.writes, storage.died_at_time
        moved = sum(type(e).__name__ == "PlayerMoved" for e in env.events)
        await env.driver.stop()
        if die_at is None:
            return writes, moved
    assert now is not None
    t = await resume_and_finish(path, now, hand_seconds=600)  # finished, a winner, the books balanced
    assert len(t.entries) == 9
    assert sum(e.prize or 0 for e in t.entries.values()) == 9 * 40
    check_ranking(t)
    return writes, moved


@pytest.mark.parametrize("backend", ["sqlite"])  # ~1 min on PostgreSQL; the crash points above cover it
async def test_multi_table_crash_during_moves_resumes(databases):
    """Three tables breaking down to a final table, killed at two points (mid-event, near the final table)."""
    writes, moved = await _play_mtt(await databases(), None)
    assert moved > 0
    for point in (0.4, 0.8):
        await _play_mtt(await databases(), int(writes * point))
