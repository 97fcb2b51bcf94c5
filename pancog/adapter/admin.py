"""The ``/panadmin`` top-level group: server administration, Manage Server by default, guild only.

Feature cogs add their subcommands to it (chip leagues: ``season start|end|info`` and ``flags``). The UX branch
may introduce the same module concurrently; merge the two into one group.
"""

from __future__ import annotations

import discord
from discord import app_commands

__all__ = ["panadmin", "season"]

panadmin = app_commands.Group(
    name="panadmin",
    description="Pan server administration",
    default_permissions=discord.Permissions(manage_guild=True),
    guild_only=True,
)
season = app_commands.Group(name="season", description="League seasons: start, end, info", parent=panadmin)
