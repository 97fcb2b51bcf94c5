"""``/tourney rebuy`` and ``/tourney addon``: a player buys a starting stack again during the rebuy period, or takes
the one add-on at its end. One service call each (:meth:`TournamentService.rebuy` / :meth:`~.addon`); every refusal
(no rebuys, the period over, above the stack limit, the maximum reached, not in the event, a short bank) is a
private ``PanError`` and charges nothing.

The tournament is picked as every ``/tourney`` command picks it (the option, else the one of this channel or table
thread): the cog borrows :class:`~pancog.adapter.tourney_cog.TourneyCog`'s picker, given by the composition root.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from pancog.adapter.base import PanCog
from pancog.adapter.errors import BadOption, send_ephemeral
from pancog.adapter.groups import IN_TOURNEY
from pancog.adapter.presenters.tournament import tourney_title
from pancog.adapter.presenters.tourney_purse import TOURNEY_NO_TARGET, tourney_bought
from pancog.adapter.runtime import PanRuntime
from pancog.services.tournaments.errors import NoSuchTournament
from pancog.services.tournaments.model import Status, Tournament
from pancog.services.tournaments.service import TournamentService

__all__ = ["TourneyPurseCog", "satellite_target_id", "satellite_title"]

Picker = Callable[[discord.Interaction[Any], str | None], Tournament]


def satellite_target_id(service: TournamentService, guild_id: int, text: str | None) -> int | None:
    """``/tourney create satellite_for:``: a tournament's number, or the exact title of one of this server's
    tournaments that have not started (the service refuses anything else)."""
    if not text:
        return None
    if text.strip().isdigit():
        return int(text.strip())
    found = [
        t.tournament_id
        for t in service.tournaments
        if t.guild_id == guild_id
        and t.status in (Status.ANNOUNCED, Status.REGISTERING)
        and t.config.title.casefold() == text.strip().casefold()
    ]
    if len(found) != 1:
        raise BadOption(TOURNEY_NO_TARGET)
    return found[0]


def satellite_title(service: TournamentService, t: Tournament) -> str | None:
    """A satellite's target, as its title is shown (None: not a satellite)."""
    target = t.config.satellite_for
    if target is None:
        return None
    with contextlib.suppress(NoSuchTournament):
        return tourney_title(service.get(target).config.title, target)
    return tourney_title("", target)


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
