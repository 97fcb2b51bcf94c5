"""Chip leagues: ``/pan stats``, ``/pan standings``; ``/panadmin season start|end|info|roles`` and
``/panadmin flags``; the background task that ends seasons whose length is up. ``/pan leaderboard`` (bank_cog)
reads the league too. Thin: parse, call one :class:`~pancog.services.league.LeagueService` method, present, respond.

A season's role reaches its winners through the durable outbox: the end owes one grant per winner in its own
transaction (``LeagueService.end_season``), the deliverer grants them (``pancog/adapter/effects.py``), and
``/panadmin season end`` / ``season roles`` wait for the outcome and say what was done."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from typing import Any, Literal

import discord
from discord import app_commands

from pancog.adapter import edge
from pancog.adapter.base import PanCog
from pancog.adapter.checks import is_moderator
from pancog.adapter.errors import BadOption, send_ephemeral
from pancog.adapter.groups import IN_ADMIN, IN_ANYWHERE, IN_PAN, IN_SEASON
from pancog.adapter.layouts import card_layout
from pancog.adapter.presenters.admin import NEEDS_MODERATOR
from pancog.adapter.presenters.common import image_name_of, name_of
from pancog.adapter.presenters.league import (
    NO_LEAGUE,
    SERIES_NEEDS_BOTH,
    SERIES_SHOWN,
    WEB_NOT_RUNNING,
    divisions_text,
    excluded_text,
    flag_people,
    included_text,
    league_flags,
    league_settings_text,
    match_history_text,
    no_season_role,
    rating_chart,
    season_people,
    season_roles_report,
    season_standings,
    season_started,
    season_table_closed,
    series_admin_text,
    series_standings_text,
    stats_message,
    stats_rows,
    stats_subtitle,
    versus_text,
    web_off_text,
    web_on_text,
    winner_role_note,
)
from pancog.adapter.runtime import PanRuntime
from pancog.infra.renderq import Priority
from pancog.services.league import WINNER_PLACES, LeagueService, SeasonRow, parse_points
from pancog.services.ledger import BankScope
from pancog.services.tables import CloseReason, NoTableHere
from renderer.chart import chart_text, render_chart_png
from renderer.stats import StatsSnapshot, render_stats_png

__all__ = ["LeagueCog"]

log = logging.getLogger("pan.league")

SEASON_ENDED_EVENT = "season_ended"
"""The cluster event (pancog/infra/coord.py) a season end sends every process: ``{"guild_id", "scope_id"}``."""

DUE_CHECK_SECONDS = 60.0


class LeagueCog(PanCog, name="PanLeague"):
    """Seasons, standings, stats and flags."""

    def __init__(self, runtime: PanRuntime, *, due_check_seconds: float = DUE_CHECK_SECONDS) -> None:
        super().__init__(runtime)
        self.due_check_seconds = due_check_seconds  # PAN_SEASON_CHECK_SECONDS
        self._due_task: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        await super().cog_load()
        # a loop for the cog's life (not work in flight): PAN_SEASON_CHECK_SECONDS
        self._due_task = self.rt.tasks.every(self.due_check_seconds, self.tick, name="league-due-seasons")

    async def cog_unload(self) -> None:
        await self.rt.tasks.cancel(self._due_task)
        self._due_task = None
        await super().cog_unload()

    def league(self) -> LeagueService:
        if self.rt.league is None:
            raise BadOption(NO_LEAGUE)
        return self.rt.league

    async def _moderator(self, interaction: discord.Interaction[Any]) -> int:
        guild_id = interaction.guild_id or 0
        if not is_moderator(interaction, (await self.rt.ledger.settings(guild_id)).moderator_role_id):
            raise BadOption(NEEDS_MODERATOR)
        return guild_id

    # ------------------------------------------------------------------ background

    async def tick(self) -> int:
        """One round of the background loop, every ``PAN_SEASON_CHECK_SECONDS``: bring the league's tables up to
        date (``LeagueService.drain``: the hand results settled since the last drain, into stats and ratings — so a
        later ``/pan stats`` finds little to do), then end each season whose planned end has passed (idempotent: a
        season already ended by a moderator or another process is skipped). Returns how many ended; a failure is
        logged by the loop and the next round retries."""
        if self.rt.league is not None:
            await self.rt.league.drain()
            for guild_id in await self.rt.league.division_guilds():  # roles owed through the outbox
                await self.rt.league.sync_divisions(guild_id)
        return await self.end_due_seasons()

    async def end_due_seasons(self) -> int:
        league = self.rt.league
        if league is None:
            return 0
        ended = 0
        shards = self.rt.store.shards  # None: one process, every guild is ours
        for row in await league.due_seasons():
            if shards is not None and not shards.owns(row.guild_id):
                # In a cluster only the guild's own process ends its season: it holds the season's tables and must
                # close them (stacks back to the season banks) before the banks close.
                continue
            try:
                await self.close_season_tables(row.scope_id)
                await league.end_season(row.guild_id)  # owes the winners' role: the deliverer grants it
                ended += 1
            except Exception:  # one guild's failure must not stop the others; the next tick retries
                log.exception("ending the due season %s of guild %s failed", row.number, row.guild_id)
                continue
            await self.announce_season_end(row.guild_id, row.scope_id if row.mode == "bank" else None)
        return ended

    async def announce_season_end(self, guild_id: int, scope_id: int | None) -> None:
        """Tell every process of a cluster (this one too) that the season of ``guild_id`` ended: each forgets its
        cached season and closes any table it still has on the season's banks (one opened while the season was
        ending). A single process has nobody to tell and does the same at once."""
        member = getattr(self.rt.bot, "member", None)
        data = {"guild_id": guild_id, "scope_id": scope_id}
        if member is None:
            await self.season_ended(data)
            return
        try:
            await member.publish(SEASON_ENDED_EVENT, data)
        except Exception:  # the season has ended; a straggler table is closed by hand or at its idle time
            log.exception("announcing the end of the season of guild %s failed", guild_id)

    async def season_ended(self, data: dict[str, Any]) -> None:
        """The handler of :data:`SEASON_ENDED_EVENT`, in every process."""
        guild_id, scope_id = int(data["guild_id"]), data.get("scope_id")
        if self.rt.league is not None:
            self.rt.league.forget_season(guild_id)
        if scope_id is not None:
            closed = await self.close_season_tables(int(scope_id))
            if closed:
                log.info("closed %d table(s) of the ended season of guild %s", closed, guild_id)

    async def close_season_tables(self, scope_id: int) -> int:
        """Close every open table that plays from the season banks of ``scope_id`` (a bank season about to end), so
        each stack goes back to its season bank before the banks are closed; the table's channel is told. Returns
        how many closed."""
        closed = 0
        season = BankScope.season(scope_id)
        for session in [s for s in self.rt.tables.sessions if s.bank_scope == season]:
            try:
                returned = await self.rt.tables.close_system(session.table_id, reason=CloseReason.SEASON_ENDED)
            except NoTableHere:  # closed meanwhile
                continue
            closed += 1
            channel = self.rt.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
            names = await self.rt.names.fetch(self.rt.guild_of(session), returned)
            with contextlib.suppress(discord.HTTPException):
                await edge.post(self.rt.bot, channel, season_table_closed(returned, names), about=edge.STATIC)
        return closed

    async def roles_report(self, guild: discord.Guild | None, season: SeasonRow, keys: list[str]) -> str | None:
        """Deliver the season's owed role grants now (those refused before are tried again) and say what was done;
        None when the season has no role."""
        if season.role_id is None:
            return None
        items = await self.rt.deliveries.drive(season.guild_id, keys)
        names = await self.rt.names.fetch(season.guild_id, [int(i.payload.get("user_id", 0)) for i in items])
        role = guild.get_role(season.role_id) if guild is not None else None
        return season_roles_report(role.name if role is not None else None, items, names)

    # ------------------------------------------------------------------ /pan

    @app_commands.command(name="stats", description="A player's league stats (image card and text)", extras=IN_PAN)
    @app_commands.describe(player="Whose stats (default: yours)")
    async def stats(self, interaction: discord.Interaction, player: discord.Member | None = None) -> None:
        await self.show_stats(interaction, player or interaction.user)

    @app_commands.command(
        name="stats",
        description="Your Pan stats here (outside servers: your tables outside servers)",
        extras=IN_ANYWHERE,
    )
    async def stats_anywhere(self, interaction: discord.Interaction) -> None:
        await self.show_stats(interaction, interaction.user)

    async def show_stats(self, interaction: discord.Interaction, who: discord.User | discord.Member) -> None:
        """The stats card of ``who`` in the interaction's server; outside every server the bot is in, at the
        tables outside servers (the user-installed practice tables: guild 0)."""
        rt = await self.defer(interaction)  # private: a refusal after a public defer would be public
        guild_id = self.home_guild(interaction)
        card = await self.league().player_card(guild_id, who.id)
        names = await rt.names.fetch(guild_id, [who.id])
        snap = StatsSnapshot(image_name_of(names, who.id), stats_subtitle(card), stats_rows(card))  # drawn as typed
        png = await rt.renders.render(render_stats_png, snap, priority=Priority.URGENT)
        text = stats_message(names, who.id, card, snap.rows)  # the text twin escapes it
        layout = card_layout(text, "stats.png")  # V2: the card's words read with images off, then the card
        await self.respond(
            interaction, None, file=discord.File(io.BytesIO(png), filename="stats.png"), view=layout, ephemeral=True
        )

    @app_commands.command(
        name="rating", description="A player's rating over time and last 20 rated hands", extras=IN_PAN
    )
    @app_commands.describe(player="Whose rating (default: yours)")
    async def rating(self, interaction: discord.Interaction, player: discord.Member | None = None) -> None:
        rt = await self.defer(interaction)
        who = player or interaction.user
        guild_id = interaction.guild_id or 0
        history = await self.league().rating_history(guild_id, who.id)
        names = await rt.names.fetch(guild_id, [who.id])
        snap = rating_chart(history, image_name_of(names, who.id))
        png = await rt.renders.render(render_chart_png, snap, priority=Priority.URGENT)
        text = match_history_text(history.recent, name_of(names, who.id))
        # the chart's figures in words: the image's alt text
        file = discord.File(io.BytesIO(png), filename="rating.png", description=chart_text(snap))
        await self.respond(interaction, text, file=file, ephemeral=True)

    @app_commands.command(
        name="versus", description="Head-to-head with another player: hands together, chips, wins", extras=IN_PAN
    )
    @app_commands.describe(member="The other player", player="Compare this player instead of you")
    async def versus(
        self, interaction: discord.Interaction, member: discord.Member, player: discord.Member | None = None
    ) -> None:
        rt = await self.defer(interaction)
        who = player or interaction.user
        guild_id = interaction.guild_id or 0
        versus = await self.league().versus(guild_id, who.id, member.id)
        names = await rt.names.fetch(guild_id, [who.id, member.id])
        await send_ephemeral(interaction, versus_text(versus, names))

    @app_commands.command(
        name="standings", description="A season's standings (default: the current one)", extras=IN_PAN
    )
    @app_commands.describe(
        season="Season number (past seasons stay viewable)",
        series="A series of tournaments: its points table (best results count)",
    )
    async def standings(
        self,
        interaction: discord.Interaction,
        season: app_commands.Range[int, 1, 100_000] | None = None,
        series: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        rt = await self.defer(interaction)
        if series is not None:
            table = await self.league().series_standings(interaction.guild_id or 0, series)
            names = await rt.names.fetch(table.series.guild_id, [line.user_id for line in table.lines[:SERIES_SHOWN]])
            await send_ephemeral(interaction, series_standings_text(table, names))
            return
        info = await self.league().season_info(interaction.guild_id or 0, season)
        names = await rt.names.fetch(info.season.guild_id, season_people(info))
        await send_ephemeral(interaction, season_standings(info, names, title="Standings"))

    # ------------------------------------------------------------------ /panadmin season

    @app_commands.command(name="start", description="Start a league season", extras=IN_SEASON)
    @app_commands.describe(
        name="The season's name",
        length="Days until it ends by itself (default: until ended)",
        starting_chips="Season bank mode: each player's season bank (default: the server's starting chips)",
        mode="net: standings count chips won with everyone's own bank (default); bank: a season bank for everyone",
        winner_role="A role the top 3 get when the season ends (the bot needs Manage Roles)",
    )
    async def season_start(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, 60],
        length: app_commands.Range[int, 1, 366] | None = None,
        starting_chips: app_commands.Range[int, 0, 1_000_000] | None = None,
        winner_role: discord.Role | None = None,
        mode: Literal["net", "bank"] = "net",
    ) -> None:
        await self.defer(interaction)
        guild_id = await self._moderator(interaction)
        role_id = winner_role.id if winner_role is not None else None
        row = await self.league().start_season(
            guild_id, name, length_days=length, starting_chips=starting_chips, mode=mode, role_id=role_id
        )
        text = season_started(row)
        if winner_role is not None:
            # told once, now: the bot's own permissions as Discord resolved them for this interaction
            can = interaction.app_permissions.manage_roles
            text += "\n" + winner_role_note(winner_role.name, WINNER_PLACES, can_manage=can)
        await send_ephemeral(interaction, text)

    @app_commands.command(name="end", description="End the running season and archive its standings", extras=IN_SEASON)
    async def season_end(self, interaction: discord.Interaction) -> None:
        rt = await self.defer(interaction)
        guild_id = await self._moderator(interaction)
        league = self.league()
        running = await league.active_season(guild_id)
        if running is not None and running.mode == "bank":  # its tables close first: stacks back to the season banks
            await self.close_season_tables(running.scope_id)
        info = await league.end_season(guild_id)  # owes the winners' role, in the same transaction
        await self.announce_season_end(guild_id, info.season.scope_id if info.season.mode == "bank" else None)
        names = await rt.names.fetch(guild_id, season_people(info))
        text = season_standings(info, names, title="Final standings")
        _, keys = await league.season_roles(guild_id, info.season.number)
        report = await self.roles_report(interaction.guild, info.season, keys)
        if report is not None:
            text += "\n" + report
        await send_ephemeral(interaction, text)

    @app_commands.command(
        name="roles",
        description="Give an ended season's role to its winners again, and say who has it",
        extras=IN_SEASON,
    )
    @app_commands.describe(number="Season number (default: the last ended season)")
    async def season_roles(
        self, interaction: discord.Interaction, number: app_commands.Range[int, 1, 100_000] | None = None
    ) -> None:
        await self.defer(interaction)
        guild_id = await self._moderator(interaction)
        season, keys = await self.league().season_roles(guild_id, number)
        report = await self.roles_report(interaction.guild, season, keys)
        await send_ephemeral(interaction, report or no_season_role(season.number))

    @app_commands.command(name="info", description="The running season (or a past one)", extras=IN_SEASON)
    @app_commands.describe(number="Season number (default: the running one)")
    async def season_info(
        self, interaction: discord.Interaction, number: app_commands.Range[int, 1, 100_000] | None = None
    ) -> None:
        rt = await self.defer(interaction)
        guild_id = await self._moderator(interaction)
        info = await self.league().season_info(guild_id, number)
        names = await rt.names.fetch(guild_id, season_people(info))
        await send_ephemeral(interaction, season_standings(info, names, title="Season"))

    # ------------------------------------------------------------------ /panadmin web

    @app_commands.command(
        name="web", description="The league web page: turn it on or off, or give it a new address", extras=IN_ADMIN
    )
    @app_commands.describe(action="on: show the address (made once); off: the address stops working; rotate: new one")
    async def web(self, interaction: discord.Interaction, action: Literal["on", "off", "rotate"]) -> None:
        rt = await self.defer(interaction)
        guild_id = await self._moderator(interaction)
        if rt.web is None or rt.web_address is None:
            raise BadOption(WEB_NOT_RUNNING)
        if action == "off":
            await send_ephemeral(interaction, web_off_text(await rt.web.turn_off(guild_id)))
            return
        if action == "rotate":
            token = await rt.web.rotate(guild_id, interaction.user.id)
        else:
            token = await rt.web.turn_on(guild_id, interaction.user.id)
        await send_ephemeral(interaction, web_on_text(f"{rt.web_address}/g/{token}/"))

    # ------------------------------------------------------------------ /panadmin league

    @app_commands.command(
        name="league",
        description="League settings: when a rating is established, who the season board lists",
        extras=IN_ADMIN,
    )
    @app_commands.describe(
        established="Rated results before a rating is established (shown without '?'; default 30)",
        active_days="The season leaderboard lists players with a result within this many days (default 14)",
    )
    async def league_settings(
        self,
        interaction: discord.Interaction,
        established: app_commands.Range[int, 0, 1000] | None = None,
        active_days: app_commands.Range[int, 1, 366] | None = None,
    ) -> None:
        await self.defer(interaction)
        guild_id = await self._moderator(interaction)
        league = self.league()
        if established is None and active_days is None:
            settings = await league.league_settings(guild_id)
        else:
            settings = await league.configure(guild_id, established=established, active_days=active_days)
        await send_ephemeral(interaction, league_settings_text(settings))

    # ------------------------------------------------------------------ /panadmin series

    @app_commands.command(
        name="series", description="A series of tournaments: make it, set its points, list its events", extras=IN_ADMIN
    )
    @app_commands.describe(
        name="The series' name",
        points="Points of places 1, 2, 3, ... separated by commas (e.g. 25,18,15,12,10)",
        best="How many of a player's best results count (e.g. 8 of 12 events)",
        add_tourney="List this tournament (its number) as an event of the series",
    )
    async def series(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, 40],
        points: app_commands.Range[str, 1, 400] | None = None,
        best: app_commands.Range[int, 1, 200] | None = None,
        add_tourney: app_commands.Range[int, 1, 2**53] | None = None,
    ) -> None:
        rt = await self.defer(interaction)
        guild_id = await self._moderator(interaction)
        league = self.league()
        made = None
        if points is not None or best is not None:
            if points is None or best is None:
                raise BadOption(SERIES_NEEDS_BOTH)
            made = await league.define_series(guild_id, name, parse_points(points), best)
        added = await league.add_to_series(guild_id, name, add_tourney) if add_tourney is not None else None
        table = await league.series_standings(guild_id, name)
        names = await rt.names.fetch(guild_id, [line.user_id for line in table.lines[:SERIES_SHOWN]])
        await send_ephemeral(interaction, series_admin_text(table, names, made=made is not None, added=added))

    # ------------------------------------------------------------------ /panadmin division

    @app_commands.command(
        name="division",
        description="League divisions: a rating band or the top N, with an optional role",
        extras=IN_ADMIN,
    )
    @app_commands.describe(
        name="The division's name (an existing one is replaced)",
        min_rating="A rating band: established players rated at least this",
        top="A top-N split: the N best-rated established players",
        role="A role its players hold while in it (the bot needs Manage Roles)",
        remove="Remove this division",
    )
    async def division(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, 30] | None = None,
        min_rating: app_commands.Range[float, -1000.0, 1000.0] | None = None,
        top: app_commands.Range[int, 1, 10_000] | None = None,
        role: discord.Role | None = None,
        remove: bool = False,
    ) -> None:
        await self.defer(interaction)
        guild_id = await self._moderator(interaction)
        league = self.league()
        if name is None:
            settings = await league.league_settings(guild_id)
        else:
            settings = await league.set_division(
                guild_id,
                name,
                min_rating=min_rating,
                top=top,
                role_id=role.id if role is not None else None,
                remove=remove,
            )
            await league.sync_divisions(guild_id)  # roles follow at once (through the outbox)
        await send_ephemeral(interaction, divisions_text(settings))

    # ------------------------------------------------------------------ /panadmin flags

    @app_commands.command(
        name="flags", description="Chip-dumping and collusion flags; exclude a player", extras=IN_ADMIN
    )
    @app_commands.describe(
        exclude="Leave this player's results out of the running season's standings",
        reason="Why (recorded with the exclusion)",
        include="Lift this player's exclusion",
    )
    async def flags(
        self,
        interaction: discord.Interaction,
        exclude: discord.Member | None = None,
        reason: str | None = None,
        include: discord.Member | None = None,
    ) -> None:
        rt = await self.defer(interaction)
        guild_id = await self._moderator(interaction)
        league = self.league()
        if exclude is not None:
            await league.exclude(guild_id, exclude.id, interaction.user.id, reason or "")
            names = await rt.names.fetch(guild_id, [exclude.id])
            await send_ephemeral(interaction, excluded_text(names, exclude.id))
            return
        if include is not None:
            lifted = await league.include(guild_id, include.id)
            await send_ephemeral(interaction, included_text(lifted))
            return
        flags = await league.flags(guild_id)
        names = await rt.names.fetch(guild_id, flag_people(flags))
        await send_ephemeral(interaction, league_flags(flags, names))
