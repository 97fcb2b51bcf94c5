"""``/tourney template save|delete``, ``/tourney templates`` and ``/tourney schedule weekly|list|stop``: a host saves
a scheduled tournament's settings under a name and runs them every week. One service call per command
(:class:`pancog.services.tournaments.schedules.Schedules`, ``TournamentService.schedules``); every refusal is a
private ``PanError`` and stores nothing.

The occurrences are created by the tournament clock's tick and announced through the outbox: this cog also delivers
the announcement item (:data:`~pancog.services.tournaments.schedules.ANNOUNCE`), posting the same announcement as
``/tourney create`` once (its key's nonce) and storing it; the Scheduled Event's handlers are in
:mod:`pancog.adapter.effects`.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import discord
from discord import app_commands

from pancog.adapter import edge
from pancog.adapter.base import PanCog
from pancog.adapter.deliveries import Permanent
from pancog.adapter.effects import send_once
from pancog.adapter.errors import BadOption, send_ephemeral
from pancog.adapter.groups import IN_SCHEDULE, IN_TEMPLATE, IN_TOURNEY
from pancog.adapter.presenters.tourney_schedule import (
    SCHEDULE_BAD_NUMBER,
    schedule_list_text,
    schedule_made,
    schedule_stopped,
    template_deleted,
    template_list_text,
    template_saved,
)
from pancog.adapter.runtime import PanRuntime
from pancog.adapter.tourney_cog import TourneyCog
from pancog.adapter.tourney_parts import parse_start
from pancog.services.outbox import OutboxItem
from pancog.services.tournaments.errors import NoSuchTournament
from pancog.services.tournaments.model import Format, Status
from pancog.services.tournaments.schedules import ANNOUNCE_HOURS, MAX_ANNOUNCE_HOURS, MAX_WEEKS

__all__ = ["TourneyScheduleCog"]

log = logging.getLogger("pan.tourney")


class TourneyScheduleCog(PanCog):
    """Templates and weekly schedules; the occurrences' announcements."""

    def __init__(self, runtime: PanRuntime, tourney: TourneyCog) -> None:
        super().__init__(runtime)
        self.tourney = tourney
        self.service = tourney.service
        self.schedules = tourney.service.schedules

    async def _is_mod(self, interaction: discord.Interaction[Any]) -> bool:
        return await self.tourney._is_mod(interaction)

    # -- templates
    @app_commands.command(
        name="save", description="Save a scheduled tournament's settings as a template (host)", extras=IN_TEMPLATE
    )
    @app_commands.describe(
        name="The template's name (also the title of each scheduled tournament)",
        tournament="The tournament whose settings to copy (all but its start and title)",
    )
    async def template_save(
        self, interaction: discord.Interaction, name: app_commands.Range[str, 1, 60], tournament: str
    ) -> None:
        t = self.tourney.pick(interaction, tournament)
        is_mod = await self._is_mod(interaction)
        await self.defer(interaction)
        await self.schedules.save_template(interaction.guild_id or 0, name, t, interaction.user.id, moderator=is_mod)
        await send_ephemeral(interaction, template_saved(name, self.tourney._title(t)))

    @template_save.autocomplete("tournament")
    async def tournament_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            wanted = current.strip().casefold()
            found = [
                app_commands.Choice(name=self.tourney._title(t)[:100], value=str(t.tournament_id))
                for t in self.service.tournaments
                if t.guild_id == interaction.guild_id
                and t.config.format is Format.SCHEDULED
                and t.status not in (Status.CANCELLED,)
                and (wanted in t.config.title.casefold() or wanted in str(t.tournament_id))
            ]
            return edge.choices(interaction, found[:25])
        except Exception:
            log.warning("tournament autocomplete failed", exc_info=True)
            return []

    @app_commands.command(
        name="delete", description="Delete a template (whoever saved it, or a moderator)", extras=IN_TEMPLATE
    )
    @app_commands.describe(name="The template's name")
    async def template_delete(self, interaction: discord.Interaction, name: app_commands.Range[str, 1, 60]) -> None:
        is_mod = await self._is_mod(interaction)
        await self.defer(interaction)
        found = await self.schedules.delete_template(
            interaction.guild_id or 0, name, interaction.user.id, moderator=is_mod
        )
        await send_ephemeral(interaction, template_deleted(found.name))

    @app_commands.command(name="templates", description="This server's tournament templates", extras=IN_TOURNEY)
    async def templates(self, interaction: discord.Interaction) -> None:
        await self.defer(interaction)
        found = await self.schedules.templates(interaction.guild_id or 0)
        rows = [(tpl, tpl.for_start(int(time.time() * 1000) + 3_600_000)) for tpl in found]
        await send_ephemeral(interaction, template_list_text(rows))

    @template_delete.autocomplete("name")
    async def template_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._template_choices(interaction, current)

    async def _template_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            found = await self.schedules.templates(interaction.guild_id or 0)
            wanted = current.strip().casefold()
            names = [t.name for t in found if wanted in t.name.casefold()][:25]
            return edge.choices(interaction, (app_commands.Choice(name=n, value=n) for n in names))
        except Exception:
            log.warning("template autocomplete failed", exc_info=True)
            return []

    # -- schedules
    @app_commands.command(
        name="weekly", description="Run a template every week, announced here ahead of each start", extras=IN_SCHEDULE
    )
    @app_commands.describe(
        template="The template to run (see /tourney templates)",
        start="The first start: YYYY-MM-DD HH:MM (UTC), a Unix time, or +minutes",
        weeks="How many weeks (1-52; default: until stopped)",
        announce_hours="Hours before each start it is announced and registration opens (default 24)",
    )
    async def weekly(
        self,
        interaction: discord.Interaction,
        template: app_commands.Range[str, 1, 60],
        start: app_commands.Range[str, 1, 40],
        weeks: app_commands.Range[int, 1, MAX_WEEKS] | None = None,
        announce_hours: app_commands.Range[int, 1, MAX_ANNOUNCE_HOURS] = ANNOUNCE_HOURS,
    ) -> None:
        first = parse_start(start, time.time())  # a malformed or past time: a private refusal, nothing stored
        is_mod = await self._is_mod(interaction)
        await self.defer(interaction)
        s = await self.schedules.weekly(
            interaction.id,
            guild_id=interaction.guild_id or 0,
            channel_id=interaction.channel_id or 0,
            host_id=interaction.user.id,
            template=template,
            first_start_ms=first or 0,
            weeks=weeks,
            announce_hours=announce_hours,
            moderator=is_mod,
        )
        await send_ephemeral(interaction, schedule_made(s, s.channel_id))
        await self.schedules.tick()  # an occurrence already inside its window is announced now, not at the next tick

    @weekly.autocomplete("template")
    async def weekly_template_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._template_choices(interaction, current)

    @app_commands.command(name="list", description="This server's weekly tournament schedules", extras=IN_SCHEDULE)
    async def schedule_list(self, interaction: discord.Interaction) -> None:
        await self.defer(interaction)
        await send_ephemeral(interaction, schedule_list_text(self.schedules.of_guild(interaction.guild_id or 0)))

    @app_commands.command(
        name="stop", description="Stop a weekly schedule (its host or a moderator)", extras=IN_SCHEDULE
    )
    @app_commands.describe(schedule="The schedule's number (see /tourney schedule list)")
    async def schedule_stop(self, interaction: discord.Interaction, schedule: app_commands.Range[str, 1, 24]) -> None:
        if not schedule.strip().isdigit():
            raise BadOption(SCHEDULE_BAD_NUMBER)
        is_mod = await self._is_mod(interaction)
        await self.defer(interaction)
        s = await self.schedules.stop(interaction.guild_id or 0, int(schedule), interaction.user.id, moderator=is_mod)
        await send_ephemeral(interaction, schedule_stopped(s))

    @schedule_stop.autocomplete("schedule")
    async def schedule_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            wanted = current.strip().casefold()
            choices = [
                app_commands.Choice(name=f"{s.schedule_id} {s.name}"[:100], value=str(s.schedule_id))
                for s in self.schedules.of_guild(interaction.guild_id or 0)
                if wanted in s.name.casefold() or wanted in str(s.schedule_id)
            ]
            return edge.choices(interaction, choices[:25])
        except Exception:
            log.warning("schedule autocomplete failed", exc_info=True)
            return []

    # -- the outbox: an occurrence's announcement
    async def deliver_announcement(self, item: OutboxItem) -> str:
        """Post an occurrence's announcement (as /tourney create does) once, and store it so it is kept current."""
        try:
            t = await self.service.finished(int(item.payload["tournament_id"]))
        except NoSuchTournament as exc:
            raise Permanent(str(exc)) from exc
        if t.announcement is not None:
            return str(t.announcement[1])
        _text, view = self.tourney._announcement(t)
        channel = self.rt.bot.get_partial_messageable(t.channel_id, guild_id=t.guild_id)
        try:
            message = await send_once(
                self.rt.bot, channel, item.key, None, view=view, allowed_mentions=discord.AllowedMentions.none()
            )
        except (discord.Forbidden, discord.NotFound) as exc:
            raise Permanent(str(exc), group=f"channel:{t.channel_id}") from exc
        await self.service.remember_announcement(t.tournament_id, message.channel.id, message.id)
        return str(message.id)
