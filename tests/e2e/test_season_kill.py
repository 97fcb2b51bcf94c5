"""The real ``python bot.py`` killed with SIGKILL at every step of a season's end, restarted on the same database and
the same fake Discord: each winner ends with the season's role, granted exactly once.

Three seasons, each with three winners, each ended by a moderator's ``/panadmin season end`` and killed at one step
(the fake holds the bot's request there, the test kills the process, then lets the request go):

1. after the end committed, before any role call (the first member read is held: nothing granted yet);
2. between the first and the second grant (the second grant is held before Discord acts, then dropped);
3. after the last grant, before it is marked done (Discord granted it; the answer never reached the bot).

The restarted process delivers what the killed one left owed. Then: every winner holds the role, the fake counted
one grant per (member, role) and saw one grant request per member that reached Discord (a retry reads the member
first), the moderator's ``/panadmin season roles`` says so with the players' names (stored before the first kill:
no "Player NNNN"), and nothing was logged as an error.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from pancog.infra.storage import SqliteStorage
from pancog.services.league import HandDigest, LeagueService, PlayerLine
from pancog.services.ledger import ChipLedger
from pancog.services.outbox import Outbox
from tests.e2e.test_kill_restart import BotProcess
from tests.fakediscord.harness import Harness
from tests.fakediscord.models import FakeUser
from tests.fakediscord.server import FakeDiscord, Hold

PUT_ROLE = "PUT /guilds/{guild_id}/members/{user_id}/roles/{role_id}"
_hands = iter(range(1, 10**6))


def digest(winner: int, loser: int, chips: int) -> HandDigest:
    players = [
        PlayerLine(user_id=winner, played=True, won=True, net=chips, biggest=chips),
        PlayerLine(user_id=loser, played=True, net=-chips),
    ]
    return HandDigest(table_id=9, hand_no=next(_hands), reason="out", winner=winner, players=players, flows={})


async def prepare_season(db: Path, guild_id: int, number: int, role_id: int, users: list[FakeUser]) -> None:
    """While the bot is down: season ``number`` with a winner role, and results placing users[0..2] first to third
    (users[3] fourth, no role)."""
    async with SqliteStorage(db) as storage:
        league = LeagueService(storage, ChipLedger(storage))
        season = await league.start_season(guild_id, f"Season {number}", role_id=role_id)
        assert season.number == number
        for winner, chips in zip(users[:3], (30, 20, 10), strict=True):
            await league.record_hand(guild_id, digest(winner.id, users[3].id, chips))


async def role_items(db: Path, guild_id: int, number: int) -> list[tuple[int, str, str | None]]:
    async with SqliteStorage(db) as storage:
        items = await Outbox(storage).items(guild_id, prefix=LeagueService.role_prefix(guild_id, number))
    return [(int(i.payload["user_id"]), i.status, i.result) for i in items]


async def stored_names(db: Path, guild_id: int) -> dict[int, str]:
    async with SqliteStorage(db) as storage:
        rows = await storage.fetch("SELECT user_id, name FROM member_names WHERE guild_id = ?", guild_id)
    return {int(u): str(n) for u, n in rows}


async def until(check: object, what: str, timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while not await check():  # type: ignore[operator]
            await asyncio.sleep(0.05)  # another process writes the database: poll it
    assert await check(), what  # type: ignore[operator]


async def end_and_kill_at(harness: Harness, bot: BotProcess, hold: Hold, *, drop: bool) -> None:
    """The moderator ends the season; when the bot reaches the held request, SIGKILL it, then let the request go
    (``drop``: Discord never acts on it)."""
    pending = asyncio.ensure_future(harness.slash(harness.moderator, "panadmin season end", settle=False, timeout=30))
    await asyncio.wait_for(hold.arrived.wait(), 30)
    await bot.kill()
    hold.release(drop=drop)
    pending.cancel()
    with contextlib.suppress(BaseException):
        await pending
    for interaction in harness.fake.interactions.values():
        if not interaction.settled:
            interaction.abandoned = True  # killed with it; the moderator would ask again


async def test_sigkill_at_every_step_of_a_season_end_grants_each_role_once(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    harness = Harness(fake_discord, members=4)
    guild = harness.guild
    db = tmp_path / "pan.sqlite3"
    bot = BotProcess(fake_discord, harness, db)
    users = harness.users
    winners = users[:3]
    roles = [fake_discord.add_role(guild, f"Champions {n}").id for n in (1, 2, 3)]
    fake = fake_discord
    await prepare_season(db, guild.id, 1, roles[0], users)
    await bot.start()
    try:
        for user in users:  # each has used the bot once: their names are stored (then no command names them again)
            await harness.slash(user, "pan balance")
        await until(lambda: _has_names(db, guild.id, users), "the names were stored")

        # 1. the end committed; killed before any role call
        await end_and_kill_at(harness, bot, fake.hold_next("GET /guilds/*/members/*"), drop=True)
        assert sorted(s for _, s, _ in await role_items(db, guild.id, 1)) == ["owed"] * 3  # owed, not granted
        assert [fake.grants(guild, u, roles[0]) for u in winners] == [0, 0, 0]
        await bot.start()
        await until(lambda: _all_done(db, guild.id, 1), "season 1's roles delivered after the restart")
        await bot.stop()

        # 2. between the first and the second grant
        await prepare_season(db, guild.id, 2, roles[1], users)
        await bot.start()
        second = fake.hold_next("PUT /guilds/*/members/*/roles/*", skip=1)
        await end_and_kill_at(harness, bot, second, drop=True)
        assert [fake.grants(guild, u, roles[1]) for u in winners] == [1, 0, 0]
        await bot.start()
        await until(lambda: _all_done(db, guild.id, 2), "season 2's roles delivered after the restart")
        await bot.stop()

        # 3. after the last grant, before it was marked done
        await prepare_season(db, guild.id, 3, roles[2], users)
        await bot.start()
        last = fake.hold_next("PUT /guilds/*/members/*/roles/*", skip=2, after=True)
        await end_and_kill_at(harness, bot, last, drop=False)
        assert [fake.grants(guild, u, roles[2]) for u in winners] == [1, 1, 1]  # Discord did it all
        assert sorted(s for _, s, _ in await role_items(db, guild.id, 3)) == ["done", "done", "owed"]
        await bot.start()
        await until(lambda: _all_done(db, guild.id, 3), "season 3's last item marked done after the restart")

        for number, role in enumerate(roles, 1):
            for user in winners:
                assert fake.grants(guild, user, role) == 1, (number, user.name)
                assert role in fake.roles_of(guild, user)
                reached = [
                    c
                    for c in fake.calls
                    if c.route == PUT_ROLE
                    and c.path == f"/guilds/{guild.id}/members/{user.id}/roles/{role}"
                    and c.injected is None
                ]
                assert len(reached) == 1, (number, user.name, [c.status for c in reached])
            assert fake.grants(guild, users[3], role) == 0  # fourth place: no role
        last_results = {u: r for u, _, r in await role_items(db, guild.id, 3)}
        assert sorted(last_results.values()) == ["granted", "granted", "had it"]  # the retried one read it first

        for number in (1, 2, 3):  # the moderator's retry says what was done, naming everyone
            reply = await harness.slash(harness.moderator, "panadmin season roles", number=number)
            assert f"Roles: player1, player2 and player3 have Champions {number}." in reply.text, reply.text
            assert "Player " not in reply.text
    finally:
        await bot.stop()
    log = "\n".join(bot.stderr)
    assert "Traceback" not in log and " ERROR " not in log, log
    assert fake.unhandled == [] and fake.violations == []


async def _has_names(db: Path, guild_id: int, users: list[FakeUser]) -> bool:
    return set(await stored_names(db, guild_id)) >= {u.id for u in users}


async def _all_done(db: Path, guild_id: int, number: int) -> bool:
    items = await role_items(db, guild_id, number)
    return len(items) == 3 and all(status == "done" for _, status, _ in items)
