"""Chip leagues: ``/pan stats``, ``/pan standings``; ``/panadmin season start|end|info`` and
``/panadmin flags``; the background task that ends seasons whose length is up. ``/pan leaderboard`` (bank_cog)
reads the league too. Thin: parse, call one :class:`~pancog.services.league.LeagueService` method, present, respond."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from typing import Any, Literal

import discord
from discord import app_commands

from pancog.adapter.admin import season
from pancog.adapter.base import IN_PAN, PanCog
from pancog.adapter.board import Boards
from pancog.adapter.checks import is_moderator
from pancog.adapter.errors import BadOption, send_ephemeral
from pancog.adapter.presenters.admin import NEEDS_MODERATOR
from pancog.adapter.presenters.common import image_name_of, name_of
from pancog.adapter.presenters.league import (
    NO_LEAGUE,
    WEB_NOT_RUNNING,
    excluded_text,
    included_text,
    league_flags,
    match_history_text,
    rating_chart,
    season_standings,
    season_started,
    season_table_closed,
    stats_rows,
    versus_text,
    web_off_text,
    web_on_text,
    winner_role_note,
    winner_role_reason,
    winner_roles_failed,
    winner_roles_given,
)
from pancog.adapter.roles import give_role
from pancog.adapter.runtime import PanRuntime
from pancog.infra.renderq import Priority
from pancog.services.league import LeagueService, SeasonInfo, display
from pancog.services.ledger import BankScope
from pancog.services.tables import NoTableHere
from renderer.chart import chart_text, render_chart_png
from renderer.stats import StatsSnapshot, render_stats_png, stats_text

__all__ = ["LeagueCog"]

log = logging.getLogger("pan.league")

IN_SEASON: dict[str, Any] = {"group": "panadmin season"}
IN_ADMIN: dict[str, Any] = {"group": "panadmin"}
WINNER_PLACES = 3  # the season's role goes to places 1..3
DUE_CHECK_SECONDS = 60.0


class LeagueCog(PanCog, name="PanLeague"):
    """Seasons, standings, stats and flags."""

    def __init__(self, runtime: PanRuntime, boards: Boards, *, due_check_seconds: float = DUE_CHECK_SECONDS) -> None:
        super().__init__(runtime)
        self.boards = boards  # a bank season's tables close when it ends
        self.due_check_seconds = due_check_seconds  # PAN_SEASON_CHECK_SECONDS
        mine = self.__cog_app_commands__
        self._admin = [c for c in mine if isinstance(c, app_commands.Command) and "group" in c.extras]
        self.__cog_app_commands__ = [c for c in mine if c not in self._admin]
        self._due_task: asyncio.Task[None] | None = None

    def _panadmin(self) -> app_commands.Group | None:
        """The ``/panadmin`` group on the tree (AdminCog's, loaded before this cog)."""
        tree = self.rt.bot.tree if isinstance(self.rt.bot, discord.ext.commands.Bot) else None
        group = tree.get_command("panadmin") if tree is not None else None
        return group if isinstance(group, app_commands.Group) else None

    async def cog_load(self) -> None:
        await super().cog_load()
        panadmin = self._panadmin()
        if panadmin is None:
            raise RuntimeError("the league cog needs /panadmin (AdminCog) loaded first")
        if panadmin.get_command(season.name) is None:
            panadmin.add_command(season)
        for command in self._admin:
            (season if command.extras["group"] == IN_SEASON["group"] else panadmin).add_command(command)
        # not rt.spawn: that set is "work in flight" (rt.busy); this loop runs for the bot's life
        self._due_task = asyncio.create_task(self._end_due_seasons(), name="league-due-seasons")

    async def cog_unload(self) -> None:
        if self._due_task is not None:
            self._due_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._due_task
            self._due_task = None
        await super().cog_unload()
        panadmin = self._panadmin()
        for command in self._admin:
            group = season if command.extras["group"] == IN_SEASON["group"] else panadmin
            if group is not None:
                group.remove_command(command.name)
        if panadmin is not None:
            panadmin.remove_command(season.name)

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

    async def _end_due_seasons(self) -> None:
        """Every ``PAN_SEASON_CHECK_SECONDS``: bring the league's tables up to date (``LeagueService.drain``: the hand
        results settled since the last drain, into stats and ratings — so a later ``/pan stats`` finds little to do)
        and end each season whose planned end has passed (idempotent: a season already ended by a moderator or
        another process is skipped)."""
        while True:
            await asyncio.sleep(self.due_check_seconds)
            try:
                await self.tick()
            except Exception:  # the next tick retries; the loop lives as long as the bot
                log.exception("the league's background tick failed")

    async def tick(self) -> int:
        """One round of the background loop: drain the league, then end the due seasons (returns how many)."""
        if self.rt.league is not None:
            await self.rt.league.drain()
        return await self.end_due_seasons()

    async def end_due_seasons(self) -> int:
        league = self.rt.league
        if league is None:
            return 0
        ended = 0
        for row in await league.due_seasons():
            try:
                await self.close_season_tables(row.scope_id)
                info = await league.end_season(row.guild_id)
                ended += 1
                note = await self.grant_winner_roles(info)
                if note is not None:
                    log.warning("season %s of guild %s: %s", row.number, row.guild_id, note)
            except Exception:  # one guild's failure must not stop the others; the next tick retries
                log.exception("ending the due season %s of guild %s failed", row.number, row.guild_id)
        return ended

    async def close_season_tables(self, scope_id: int) -> int:
        """Close every open table that plays from the season banks of ``scope_id`` (a bank season about to end), so
        each stack goes back to its season bank before the banks are closed; the table's channel is told. Returns
        how many closed."""
        closed = 0
        season = BankScope.season(scope_id)
        for session in [s for s in self.rt.tables.sessions if s.bank_scope == season]:
            try:
                returned = await self.rt.tables.close_system(session.table_id)
            except NoTableHere:  # closed meanwhile
                continue
            closed += 1
            self.boards.drop(session.table_id)
            self.rt.health.forget(session.table_id)
            channel = self.rt.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
            with contextlib.suppress(discord.HTTPException):
                await channel.send(season_table_closed(returned, self.rt.names))
        return closed

    async def grant_winner_roles(self, info: SeasonInfo) -> str | None:
        """Give the season's role (if it has one) to its top finishers; a sentence for the admin, None if no role.

        Without Manage Roles (or with the role above the bot's) Discord answers 403: the admin is told, once, and
        no further member is tried."""
        role_id = info.season.role_id
        if role_id is None:
            return None
        winners = [row.user_id for row in info.standings if row.place <= WINNER_PLACES and row.user_id >= 0]
        reason = winner_role_reason(info.season.number)
        given = await give_role(self.rt.bot, info.season.guild_id, role_id, winners, reason=reason)
        if given is None:
            return winner_roles_failed()
        return winner_roles_given(given)

    # ------------------------------------------------------------------ /pan

    @app_commands.command(name="stats", description="A player's league stats (image card and text)", extras=IN_PAN)
    @app_commands.describe(player="Whose stats (default: yours)")
    async def stats(self, interaction: discord.Interaction, player: discord.Member | None = None) -> None:
        rt = await self.defer(interaction)  # private: a refusal after a public defer would be public
        who = player or interaction.user
        rt.remember(who)
        card = await self.league().player_card(interaction.guild_id or 0, who.id)
        rating = card.rating
        subtitle = f"rating {display(rating.score, rating.rated)}"
        if card.season is not None:
            subtitle = f"season {card.season.number} ({card.season.name}) · " + subtitle
        snap = StatsSnapshot(who.display_name, subtitle, stats_rows(card))
        png = await rt.renders.render(render_stats_png, snap, priority=Priority.URGENT)
        text = stats_text(snap)
        await self.respond(interaction, text, file=discord.File(io.BytesIO(png), filename="stats.png"), ephemeral=True)

    @app_commands.command(
        name="rating", description="A player's rating over time and last 20 rated hands", extras=IN_PAN
    )
    @app_commands.describe(player="Whose rating (default: yours)")
    async def rating(self, interaction: discord.Interaction, player: discord.Member | None = None) -> None:
        rt = await self.defer(interaction)
        who = player or interaction.user
        rt.remember(who)
        history = await self.league().rating_history(interaction.guild_id or 0, who.id)
        snap = rating_chart(history, image_name_of(rt.names, who.id))
        png = await rt.renders.render(render_chart_png, snap, priority=Priority.URGENT)
        text = match_history_text(history.recent, name_of(rt.names, who.id))
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
        rt.remember(who)
        rt.remember(member)
        versus = await self.league().versus(interaction.guild_id or 0, who.id, member.id)
        await send_ephemeral(interaction, versus_text(versus, rt.names))

    @app_commands.command(
        name="standings", description="A season's standings (default: the current one)", extras=IN_PAN
    )
    @app_commands.describe(season="Season number (past seasons stay viewable)")
    async def standings(
        self, interaction: discord.Interaction, season: app_commands.Range[int, 1, 100_000] | None = None
    ) -> None:
        rt = await self.defer(interaction)
        info = await self.league().season_info(interaction.guild_id or 0, season)
        text = season_standings(info, rt.names, title="Standings")
        await send_ephemeral(interaction, text)

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
        info = await league.end_season(guild_id)
        text = season_standings(info, rt.names, title="Final standings")
        granted = await self.grant_winner_roles(info)
        if granted is not None:
            text += "\n" + granted
        await send_ephemeral(interaction, text)

    @app_commands.command(name="info", description="The running season (or a past one)", extras=IN_SEASON)
    @app_commands.describe(number="Season number (default: the running one)")
    async def season_info(
        self, interaction: discord.Interaction, number: app_commands.Range[int, 1, 100_000] | None = None
    ) -> None:
        rt = await self.defer(interaction)
        guild_id = await self._moderator(interaction)
        info = await self.league().season_info(guild_id, number)
        await send_ephemeral(interaction, season_standings(info, rt.names, title="Season"))

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
            rt.remember(exclude)
            await league.exclude(guild_id, exclude.id, interaction.user.id, reason or "")
            await send_ephemeral(interaction, excluded_text(exclude.display_name))
            return
        if include is not None:
            lifted = await league.include(guild_id, include.id)
            await send_ephemeral(interaction, included_text(lifted))
            return
        await send_ephemeral(interaction, league_flags(await league.flags(guild_id), rt.names))
