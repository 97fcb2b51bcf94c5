"""The Check in button of a scheduled tournament's announcement (dynamic: it answers on the message after a restart).
Its verb ``tnc_checkin`` is answered by :class:`pancog.adapter.tourney_play_cog.TourneyPlayCog`."""

from __future__ import annotations

import re
from typing import Any

import discord

from pancog.adapter.runtime import runtime_of
from pancog.game import i18n

__all__ = ["CHECK_IN", "CheckInButton"]

CHECK_IN = i18n.N_("Check in")


class CheckInButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"pan:tnc:(?P<tid>\d+):checkin"):
    def __init__(self, tournament_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=i18n.tr(CHECK_IN), style=discord.ButtonStyle.primary, custom_id=f"pan:tnc:{tournament_id}:checkin"
            )
        )
        self.tournament_id = tournament_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> CheckInButton:
        return cls(int(match["tid"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await runtime_of(interaction.client).dispatch(interaction, self.tournament_id, "tnc_checkin", (), item=self)
