"""Names survive a SIGKILL: the real ``python bot.py`` sees four members once (a command each), is killed, starts
again on the same database, and — before any of them acts again — the standings, the season leaderboard, the
champion line and the table's board name them all; nothing says "Player NNNN"."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.e2e.test_kill_restart import BotProcess
from tests.e2e.test_season_kill import prepare_season, stored_names
from tests.fakediscord.harness import Harness
from tests.fakediscord.server import FakeDiscord

NAMES = ("Alice Ng", "Bob Okafor", "Carmen Díaz", "Dmitri Volkov")


async def test_names_are_shown_after_a_restart_before_anyone_acts_again(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    harness = Harness(fake_discord, members=4)
    guild = harness.guild
    users = harness.users
    for user, name in zip(users, NAMES, strict=True):
        user.name = name
    db = tmp_path / "pan.sqlite3"
    await prepare_season(db, guild.id, 1, fake_discord.add_role(guild, "Champions").id, users)
    bot = BotProcess(fake_discord, harness, db)
    await bot.start()
    try:
        await harness.slash(users[0], "pan open")
        await harness.slash(users[1], "pan join")
        for user in users[2:]:
            await harness.slash(user, "pan balance")
        async with asyncio.timeout(30):  # written in a batch, off the commands' path
            while set(await stored_names(db, guild.id)) != {u.id for u in users}:
                await asyncio.sleep(0.05)
        assert await stored_names(db, guild.id) == {u.id: n for u, n in zip(users, NAMES, strict=True)}
        await bot.kill()
        await bot.start()
        mod = harness.moderator
        # the season board lists established players only (30 rated results by default); these played a few
        await harness.slash(mod, "panadmin league", established=0)
        standings = await harness.slash(mod, "pan standings")
        board = await harness.slash(mod, "pan leaderboard", metric="net", period="season")
        ended = await harness.slash(mod, "panadmin season end")
        for reply in (standings, board, ended):
            for name in NAMES:
                assert name in reply.text, (name, reply.text)
            assert "Player " not in reply.text, reply.text
        assert f"Champion: {NAMES[0]}" in ended.text
        assert "Roles: Alice Ng, Bob Okafor and Carmen Díaz have Champions." in ended.text, ended.text
        before = {m.id for m in harness.messages()}
        await harness.slash(mod, "pan table")  # the board posted again, drawn by the new process
        async with asyncio.timeout(30):
            while not (boards := [m for m in harness.messages() if m.id not in before and m.attachments]):
                await asyncio.sleep(0.05)
        seats = boards[-1].text  # its content and the image's alt text (every seat's name)
        assert NAMES[0] in seats and NAMES[1] in seats and "Player " not in seats, seats
    finally:
        await bot.stop()
    log = "\n".join(bot.stderr)
    assert "Traceback" not in log and " ERROR " not in log, log
    assert fake_discord.unhandled == [] and fake_discord.violations == []
