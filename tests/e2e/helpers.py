"""Reader-friendly helpers for end-to-end game tests (the fixtures live in tests/fakediscord/plugin.py).

from tests.e2e.helpers import seat_table, table_message, hand_pngs

async def test_four_players_start(discord):
    players = await seat_table(discord, 4)
    await discord.slash(players[0], "pan start")
    assert "turn" in table_message(discord).text
"""

from __future__ import annotations

from typing import Any

from tests.fakediscord.harness import Harness, Reply
from tests.fakediscord.models import FakeChannel, FakeMessage, FakeUser

__all__ = ["Harness", "Reply", "button_ids", "hand_pngs", "seat_table", "table_message"]


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
