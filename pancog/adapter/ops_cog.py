"""Operations on Discord: the turn clock's notices, Discord events about deleted messages and channels,
gateway health, and ``/pan back`` (``/panadmin status`` and ``audit`` are in :mod:`.admin_cog`).

The clock itself (:class:`~pancog.services.clock.TurnClock`) and the health registry are services on the runtime; the
board shows the countdown (:meth:`pancog.adapter.board.Boards.clock_line`) and handles its own failed updates.

Environment (tests and benchmarks): ``PAN_CLOCK_SCALE`` (speed the clock up), ``PAN_TIME_BANK_SECONDS``,
``PAN_IDLE_CLOSE_SECONDS``, ``PAN_LOG_JSON=1`` (one JSON object per log line).
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from pancog.adapter import edge, layouts
from pancog.adapter.base import PanCog
from pancog.adapter.board import Boards
from pancog.adapter.errors import send_dm, send_ephemeral
from pancog.adapter.groups import IN_PAN
from pancog.adapter.presenters.common import name_of
from pancog.adapter.presenters.table import MARKED_AWAY, WELCOME_BACK, idle_closed, time_warning
from pancog.adapter.presenters.tournament import TOURNEY_WELCOME_BACK
from pancog.adapter.runtime import PanRuntime
from pancog.infra import logs
from pancog.infra.renderq import Priority
from pancog.services.clock import ClockNotice, NotAway, TurnClock
from pancog.services.tables import Applied

__all__ = ["OpsCog"]

log = logging.getLogger("pan.ops")


class OpsCog(PanCog, name="PanOps"):
    """The turn clock's notices, Discord faults and admin commands; owns no game rules."""

    def __init__(self, runtime: PanRuntime, boards: Boards, clock: TurnClock) -> None:
        super().__init__(runtime)
        self.boards = boards
        self.clock = clock
        self._boards_refreshed = False
        runtime.tables.subscribe(self._on_applied)
        clock.observe(self._on_clock)

    async def cog_unload(self) -> None:
        self.rt.tables.unsubscribe(self._on_applied)
        await super().cog_unload()

    def _on_applied(self, applied: Applied) -> None:
        """Every log line of the acting task carries guild, table, hand and seat (pancog/infra/logs.py)."""
        session = applied.session
        seat = session.find_seat(applied.actor) if applied.actor is not None else None
        logs.bind(guild=session.guild_id, table=session.table_id, hand=applied.state.hand_no or None, seat=seat)

    # ------------------------------------------------------------------ /pan back, status, audit

    @app_commands.command(name="back", description="Come back to the table after being marked away", extras=IN_PAN)
    async def back(self, interaction: discord.Interaction) -> None:
        await self.defer(interaction)
        session = self.here(interaction)
        tournaments = self.rt.tournaments
        try:
            await self.clock.back(session.table_id, interaction.user.id)
        except NotAway:  # at a tournament table the seat is dealt in while away: the entry is what was away
            if tournaments is None or not await tournaments.back(session.table_id, interaction.user.id):
                raise
        in_tournament = tournaments is not None and tournaments.owns_table(session.table_id)
        await send_ephemeral(interaction, TOURNEY_WELCOME_BACK if in_tournament else WELCOME_BACK)

    # ------------------------------------------------------------------ the clock on Discord

    def _on_clock(self, notice: ClockNotice) -> None:
        health = self.rt.health
        with logs.context(table=notice.table_id, seat=notice.seat):
            name = name_of(self.boards.names_at(notice.table_id), notice.player_id)
            if notice.kind == "warning":
                self.boards.add_line(notice.table_id, time_warning(name, notice.seconds_left))
            elif notice.kind == "timeout":
                health.count("timeouts")
            elif notice.kind == "away":
                health.count("players_away")
                if notice.player_id is not None:
                    self.rt.tasks.spawn(send_dm(self.rt.bot, notice.player_id, MARKED_AWAY), name="pan-ops-away")
            elif notice.kind == "stood":
                health.count("away_stood_up")
            elif notice.kind == "abandoned":
                health.count("abandoned_hands_fouled")
            elif notice.kind == "idle_closed":
                health.count("idle_closed")
                self.rt.tasks.spawn(self._announce_idle_close(notice), name="pan-ops-idle")
            elif notice.kind == "error":
                health.record_error(notice.table_id, notice.detail)

    async def _announce_idle_close(self, notice: ClockNotice) -> None:
        channel_id = notice.channel_id  # the table (and its board) is gone: the notice says where it was
        if channel_id is None:
            return
        names = await self.rt.names.fetch(abs(notice.guild_id), (user for user, _ in notice.cashouts))
        view = layouts.notice(idle_closed(notice.cashouts, names))
        try:
            await edge.post(self.rt.bot, self.rt.bot.get_partial_messageable(channel_id), about=edge.STATIC, view=view)
        except discord.HTTPException as exc:
            log.warning("could not announce the idle close: %s", exc)

    # ------------------------------------------------------------------ Discord events

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        self._board_deleted(payload.channel_id, {payload.message_id})

    @commands.Cog.listener()
    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        self._board_deleted(payload.channel_id, set(payload.message_ids))

    def _board_deleted(self, channel_id: int, message_ids: set[int]) -> None:
        session = self.rt.tables.find_in_channel(channel_id)
        if session is None or session.board_message_id not in message_ids:
            return
        with logs.context(guild=session.guild_id, table=session.table_id):
            log.warning("board message %s was deleted; posting it again", session.board_message_id)
            self.rt.health.count("boards_reposted")
            self.boards.repost(session)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        # tables in threads of the deleted channel go with it (Discord sends no THREAD_DELETE for them)
        bot = self.rt.bot
        gone = [channel.id] + [
            s.channel_id
            for s in self.rt.tables.sessions
            if getattr(bot.get_channel(s.channel_id), "parent_id", None) == channel.id
        ]
        for channel_id in gone:
            await self.boards.channel_gone(channel_id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.boards.channel_gone(payload.thread_id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """After a start (or restart), re-render every board once: the last committed action may have been
        applied after the previous process's final board edit."""
        if self._boards_refreshed:
            return
        self._boards_refreshed = True
        for session in self.rt.tables.sessions:
            self.boards.get(session).kick(Priority.BACKGROUND)  # behind every render someone is waiting on

    @commands.Cog.listener()
    async def on_resumed(self) -> None:
        self.rt.health.count("gateway_resumed")
        log.info("gateway session resumed")

    @commands.Cog.listener()
    async def on_disconnect(self) -> None:
        self.rt.health.count("gateway_disconnects")
