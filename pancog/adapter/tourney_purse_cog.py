"""``/tourney rebuy`` and ``/tourney addon``: a player buys a starting stack again during the rebuy period, or takes
the one add-on at its end. One service call each (:meth:`TournamentService.rebuy` / :meth:`~.addon`); every refusal
(no rebuys, the period over, above the stack limit, the maximum reached, not in the event, a short bank) is a
private ``PanError`` and charges nothing.

The tournament is picked as every ``/tourney`` command picks it (the option, else the one of this channel or table
thread): the cog borrows :class:`~pancog.adapter.tourney_cog.TourneyCog`'s picker, given by the composition root.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from pancog.adapter.base import PanCog
from pancog.adapter.errors import send_ephemeral
from pancog.adapter.groups import IN_TOURNEY
from pancog.adapter.presenters.tournament import tourney_title
from pancog.adapter.presenters.tourney_purse import tourney_bought
from pancog.adapter.runtime import PanRuntime
from pancog.services.tournaments.model import Tournament
from pancog.services.tournaments.service import TournamentService

__all__ = ["TourneyPurseCog"]

Picker = Callable[[discord.Interaction[Any], str | None], Tournament]


class TourneyPurseCog(PanCog):
    """Rebuys and the add-on of a running tournament."""

    def __init__(self, runtime: PanRuntime, service: TournamentService, pick: Picker) -> None:
        super().__init__(runtime)
        self.service = service
        self.pick = pick

    @app_commands.command(
        name="rebuy", description="Buy a starting stack again (rebuy period, at or below the limit)", extras=IN_TOURNEY
    )
    @app_commands.describe(tournament="Which tournament (default: the one in this channel)")
    async def rebuy(self, interaction: discord.Interaction, tournament: str | None = None) -> None:
        await self._buy(interaction, tournament, addon=False)

    @app_commands.command(
        name="addon", description="Take the one add-on at the end of the rebuy period", extras=IN_TOURNEY
    )
    @app_commands.describe(tournament="Which tournament (default: the one in this channel)")
    async def addon(self, interaction: discord.Interaction, tournament: str | None = None) -> None:
        await self._buy(interaction, tournament, addon=True)

    async def _buy(self, interaction: discord.Interaction[Any], tournament: str | None, *, addon: bool) -> None:
        t = self.pick(interaction, tournament)
        await self.defer(interaction)
        if addon:
            await self.service.addon(t.tournament_id, interaction.user.id)
        else:
            await self.service.rebuy(t.tournament_id, interaction.user.id)
        bank = await self.rt.ledger.balance(t.guild_id, interaction.user.id)
        cfg = t.config
        title = tourney_title(cfg.title, t.tournament_id)
        await send_ephemeral(interaction, tourney_bought(title, addon, cfg.buy_in, cfg.starting_stack, bank))
