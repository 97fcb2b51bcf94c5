"""The real entry point, ``python bot.py``, against the fake; and the fake run standalone."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.fakediscord.harness import Harness
from tests.fakediscord.server import FakeDiscord
from tests.fakediscord.standalone import FakeDiscordThread

ROOT = Path(__file__).resolve().parents[2]


async def test_python_bot_py_plays_pan_help(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    harness = Harness(fake_discord, members=2)
    env = {
        **os.environ,
        "DISCORD_TOKEN": fake_discord.token,
        "DISCORD_API_BASE": fake_discord.api_base,
        "DISCORD_GATEWAY_URL": fake_discord.gateway_url,
        "TEST_GUILD_ID": str(harness.guild.id),
        "PAN_DB_PATH": str(tmp_path / "pan.sqlite3"),
        "PAN_GUILD_READY_TIMEOUT": "0.05",
        "PAN_LOG_LEVEL": "INFO",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "bot.py", cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    lines: list[str] = []
    frozen = asyncio.Event()

    async def read_log() -> None:
        assert process.stderr is not None
        async for raw in process.stderr:
            lines.append(raw.decode())
            if "start-up objects frozen" in lines[-1]:
                frozen.set()

    reader = asyncio.create_task(read_log())
    try:
        await asyncio.wait_for(fake_discord.identified.wait(), timeout=15)
        assert "pan" in {c["name"] for c in fake_discord.guild_commands[harness.guild.id]}
        reply = await harness.slash(harness.users[0], "pan help")
        assert reply.ephemeral and "Pan" in reply.content
        await asyncio.wait_for(frozen.wait(), timeout=15)  # at the first ready
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), timeout=10)
        await asyncio.wait_for(reader, timeout=10)
    log = "".join(lines)
    assert "Traceback" not in log and " ERROR " not in log, log
    assert fake_discord.unhandled == [] and fake_discord.violations == []
    # At its first ready, bot.py froze its start-up heap out of the collector's walks, with the bot's thresholds
    # (pancog/infra/collector.py): the modules of discord.py, Pillow and the bot are tens of thousands of objects.
    line = re.search(r"garbage collector: (\d+) start-up objects frozen, thresholds \(10000, 5, 2\)", log)
    assert line is not None and int(line.group(1)) > 20_000, log


def test_python_bot_py_without_token_exits_with_help(tmp_path: Path) -> None:
    env = {**os.environ, "DISCORD_TOKEN": ""}  # an existing (empty) variable is not overridden by .env
    result = subprocess.run(
        [sys.executable, str(ROOT / "bot.py")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30
    )
    assert result.returncode != 0
    assert "DISCORD_TOKEN is not set" in result.stderr


def test_standalone_fake_in_a_thread() -> None:
    with FakeDiscordThread(members=3, channels=2) as running:
        env = running.env()
        request = urllib.request.Request(  # noqa: S310 - http://127.0.0.1 only
            env["DISCORD_API_BASE"] + "/users/@me", headers={"Authorization": f"Bot {env['DISCORD_TOKEN']}"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310
            assert response.headers["Content-Type"] == "application/json"
            assert json.loads(response.read())["id"] == str(running.fake.bot_user.id)
        assert [c.name for c in running.harness.guild.channels if not c.is_thread] == ["general", "pan-1"]
        assert len(running.harness.users) == 3
