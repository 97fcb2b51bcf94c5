"""PanCog: the slash-command adapter. Thin: parse, call one service method, present, respond."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

HOW_TO_PLAY = (
    "**Pan (Panguingue)** — ten-card rummy from California card rooms.\n"
    "Open a table with `/pan open`, sit with `/pan join`, start with `/pan start`.\n"
    "Each turn: pluck from the stock (`/draw`) or take the option card (`/take`), meld it, then discard.\n"
    "Melds that make *conditions* are paid in chips at once; the first to meld all 11 cards goes out.\n"
    "Full guide: docs/how-to-play.md"
)


@app_commands.guild_only()
class PanCog(commands.GroupCog, group_name="pan", group_description="Panguingue card tables"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        super().__init__()

    @classmethod
    async def create(cls, bot: commands.Bot) -> PanCog:
        return cls(bot)

    @app_commands.command(name="help", description="How to play Pan, in short")
    async def help_(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(HOW_TO_PLAY, ephemeral=True)
