"""Reader-friendly helpers for end-to-end game tests (the fixtures live in tests/fakediscord/plugin.py).

from tests.e2e.helpers import seat_table, table_message, hand_pngs

async def test_four_players_start(discord):
    players = await seat_table(discord, 4)
    await discord.slash(players[0], "pan start")
    assert "turn" in table_message(discord).text
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tests.fakediscord.harness import Harness, Reply
from tests.fakediscord.models import FakeChannel, FakeMessage, FakeUser
from tests.fakediscord.server import FakeDiscord

__all__ = [
    "Harness",
    "Reply",
    "bot_env",
    "button_ids",
    "hand_pngs",
    "logged_spawn",
    "seat_table",
    "table_message",
]

ROOT = Path(__file__).resolve().parents[2]


async def seat_table(
    discord: Harness,
    n: int,
    *,
    channel: FakeChannel | None = None,
    opener_joins: bool = False,
    **open_options: Any,
) -> list[FakeUser]:
    """Seat ``n`` users at a new table in ``channel`` (default: #general) and return them, opener first.

    ``users[0]`` runs ``/pan open`` with ``open_options`` (e.g. ``preset="california"``); it is assumed
    to seat the opener, unless ``opener_joins=True``. Then the other users run ``/pan join``. Each
    command waits for the bot's answer (and fails fast on a bot error or a missing answer).
    """
    assert n <= len(discord.users), f"the harness has only {len(discord.users)} users; ask for more members"
    players = discord.users[:n]
    await discord.slash(players[0], "pan open", channel=channel, **open_options)
    for player in players if opener_joins else players[1:]:
        await discord.slash(player, "pan join", channel=channel)
    return players


def table_message(discord: Harness, channel: FakeChannel | None = None) -> FakeMessage:
    """The latest visible message in the channel (the table post, in a game test)."""
    return discord.last_message(channel)


def hand_pngs(discord: Harness, user: FakeUser) -> list[bytes]:
    """Every PNG the user received, by DM or in an ephemeral response, oldest first."""
    messages = sorted([*discord.dms(user), *discord.ephemerals(user)], key=lambda m: m.id)
    return [png for m in messages for png in m.pngs]


def button_ids(message: FakeMessage) -> list[str]:
    """custom_ids of the buttons on a message, in display order."""
    return [b["custom_id"] for b in message.buttons if "custom_id" in b]


def bot_env(fake: FakeDiscord, database_url: str, **settings: str) -> dict[str, str]:
    """The environment of a ``bot.py`` subprocess against ``fake`` on ``database_url``, plus ``settings``.

    Global commands (no TEST_GUILD_ID: every guild of every shard has /pan); renders in threads (several bots and
    their renders on a shared 2-core machine: keep it light)."""
    env = {
        **os.environ,
        "DISCORD_TOKEN": fake.token,
        "DISCORD_API_BASE": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "DATABASE_URL": database_url,
        "PAN_GUILD_READY_TIMEOUT": "0.05",
        "PAN_LOG_LEVEL": "WARNING",
        "PAN_RENDER_MODE": "thread",
        "PAN_DEAL_SEED": "17",
        **settings,
    }
    env.pop("TEST_GUILD_ID", None)
    return env


def logged_spawn(folder: Path, logs: list[Path]) -> Callable[[list[str], Mapping[str, str]], subprocess.Popen[bytes]]:
    """A launcher ``spawn`` that starts each bot with its stderr in a log file of its own (appended to ``logs``)."""

    def spawn(argv: list[str], process_env: Mapping[str, str]) -> subprocess.Popen[bytes]:
        log = folder / f"bot-{process_env.get('PAN_CLUSTER_INDEX', 'x')}-{len(logs)}.log"
        logs.append(log)
        with log.open("wb") as err:
            return subprocess.Popen(argv, env=dict(process_env), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)

    return spawn
