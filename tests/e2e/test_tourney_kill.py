"""The real ``python bot.py`` killed with SIGKILL in the middle of a Sit & Go, twice, restarted on the same
database each time: the tournament resumes where it was and finishes, the prizes equal the pool, the escrow is
empty and the ledger audit balances (issue 15)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pancog.infra.storage import SqliteStorage
from pancog.infra.storage.base import Account
from pancog.services.ledger import ChipLedger
from pancog.services.tournaments.model import Status, Tournament
from pancog.services.tournaments.repository import TournamentRepository
from tests.e2e.test_kill_restart import BotProcess
from tests.fakediscord.harness import Harness
from tests.fakediscord.server import FakeDiscord

BUY_IN = 100
SEATS = 7


async def read_tournament(db: Path) -> Tournament | None:
    async with SqliteStorage(db) as storage, storage.transaction(write=False) as tx:
        found = await TournamentRepository().load(tx, active_only=False)
    return found[0] if found else None


async def hands_played(db: Path) -> int:
    async with SqliteStorage(db) as storage:
        rows = await storage.fetch("SELECT COUNT(*) FROM actions WHERE action LIKE 'start%'")
    return int(rows[0][0])


async def wait_for(db: Path, ready: object, timeout: float) -> Tournament:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        t = await read_tournament(db)
        if t is not None and ready(t):  # type: ignore[operator]
            return t
        assert loop.time() < deadline, t
        await asyncio.sleep(0.2)


async def test_sigkill_mid_tournament_resumes_and_finishes(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    harness = Harness(fake_discord, members=1)
    db = tmp_path / "pan.sqlite3"
    bot = BotProcess(fake_discord, harness, db)
    bot.env |= {
        "PAN_BOT_DELAY": "0",
        "PAN_CLOCK_SCALE": "300",
        "PAN_TIME_BANK_SECONDS": "0",
        "PAN_TOURNEY_TICK": "0.2",
        "PAN_RENDER_MODE": "thread",
    }
    (host,) = harness.users
    await bot.start()
    try:
        await harness.slash(
            host,
            "tourney create",
            buy_in=BUY_IN,
            seats=SEATS,
            antes="10,20,40,80,160,320,640,1280",
            level_minutes=0.2,
            starting_stack=100,
        )
        await harness.slash(host, "tourney register")
        await harness.slash(host, "tourney addbots", count=SEATS - 1, level="easy")
        await wait_for(db, lambda t: t.status is Status.RUNNING, 20)
        kills = 0
        for at_least in (2, 5):  # mid-tournament: after some hands, twice
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60
            t = await read_tournament(db)
            while t is not None and t.status is Status.RUNNING and await hands_played(db) < at_least:
                assert loop.time() < deadline, (kills, await hands_played(db), t)
                await asyncio.sleep(0.1)
                t = await read_tournament(db)
            if t is None or t.status is not Status.RUNNING:
                break
            await bot.kill()
            kills += 1
            await bot.start()
        assert kills == 2  # both kills landed mid-tournament
        done = await wait_for(db, lambda t: t.status in (Status.FINISHED, Status.CANCELLED), 180)
    finally:
        await bot.stop()
    assert done.status is Status.FINISHED
    assert sorted(e.place or 0 for e in done.entries.values())[0] == 1
    assert sum(e.prize or 0 for e in done.entries.values()) == SEATS * BUY_IN
    assert all(tt.status == "closed" for tt in done.tables.values())
    async with SqliteStorage(db) as storage:
        ledger = ChipLedger(storage)
        report = await ledger.audit()
        assert report.ok, report.summary()
        async with storage.transaction(write=False) as tx:
            escrow = await tx.balances([Account.escrow(done.tournament_id)])
        assert escrow[Account.escrow(done.tournament_id)] == 0
        winner = next(e for e in done.entries.values() if e.place == 1)
        if winner.player_id == host.id:
            assert await ledger.balance(harness.guild.id, host.id) == 1000 - BUY_IN + (winner.prize or 0)
    log = "\n".join(bot.stderr)
    assert "Traceback" not in log, log
    assert fake_discord.unhandled == [] and fake_discord.violations == []
