"""The Pan cog package. ``setup`` is the discord.py extension entry point."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from discord.ext import commands


async def setup(bot: commands.Bot) -> None:
    from .adapter.cog import setup_cogs

    await setup_cogs(bot)
