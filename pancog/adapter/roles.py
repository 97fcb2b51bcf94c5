"""Giving a role to members (a league season's top finishers, a tournament's winner): one code path.

Without Manage Roles (or with the role above the bot's own) Discord answers 403 Forbidden: :func:`give_role` stops
at the first refusal (every other member would be refused the same way) and returns None, so the caller tells
the admin once. A member who has left the server is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable

import discord

__all__ = ["give_role"]


async def give_role(
    client: discord.Client, guild_id: int, role_id: int, user_ids: Iterable[int], *, reason: str
) -> int | None:
    """Add ``role_id`` to each of ``user_ids`` (people only: computer players have negative ids and are
    skipped). Returns how many got it, or None when the bot may not give it (no Manage Roles, role too high, or
    the server unknown to the bot)."""
    guild = client.get_guild(guild_id)
    if guild is None:
        return None
    given = 0
    for user_id in user_ids:
        if user_id < 0:
            continue
        try:
            member = guild.get_member(user_id) or await guild.fetch_member(user_id)
            await member.add_roles(discord.Object(role_id), reason=reason)
        except discord.Forbidden:
            return None
        except discord.NotFound:  # left the server
            continue
        given += 1
    return given
