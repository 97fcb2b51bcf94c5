"""``/pan`` commands for chips and preferences: balance, daily, leaderboard, each player's settings (the
server-admin ones, grant and config, are in ``/panadmin``: :mod:`.admin_cog`). Thin: parse, call one service
method, present, respond."""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands

from pancog.adapter.base import IN_PAN, PanCog
from pancog.adapter.errors import send_ephemeral
from pancog.adapter.presenters.bank import balance_text, daily_text, leaderboard_text, season_bank_text
from pancog.adapter.presenters.hand import layout_setting, settings_text
from pancog.adapter.presenters.league import league_board
from pancog.services.prefs import DmMode, Layout, PingMode, SortOrder

__all__ = ["BankCog"]


class BankCog(PanCog, name="PanBank"):
    """Chips in the server's bank, server defaults, and each player's settings."""

    @app_commands.command(name="balance", description="Your chips in this server", extras=IN_PAN)
    async def balance(self, interaction: discord.Interaction) -> None:
        rt = await self.defer(interaction)
        guild_id = interaction.guild_id or 0
        bank = await rt.ledger.ensure_player(guild_id, interaction.user.id)
        stacks: dict[int, int] = {}  # bank scope -> chips on its tables (the guild's, or a bank season's)
        for s in rt.tables.tables_of(interaction.user.id):
            if s.guild_id == guild_id:
                seat = s.state.seat(s.seat_of(interaction.user.id))
                stacks[s.bank_scope] = stacks.get(s.bank_scope, 0) + (seat.stack if seat is not None else 0)
        text = balance_text(bank, stacks.get(guild_id, 0))
        league = rt.league
        season = await league.active_season(guild_id) if league is not None else None
        if league is not None and season is not None and season.mode == "bank":  # a bank season: its banks are apart
            held = await league.season_bank(guild_id, interaction.user.id)
            text += "\n" + season_bank_text(season, held, stacks.get(season.scope_id, 0))
        await send_ephemeral(interaction, text)

    @app_commands.command(name="daily", description="Claim your daily chips", extras=IN_PAN)
    async def daily(self, interaction: discord.Interaction) -> None:
        rt = await self.defer(interaction)
        claim = await rt.ledger.claim_daily(interaction.guild_id or 0, interaction.user.id)
        hours = int(claim.next_claim_in.total_seconds() // 3600)
        text = daily_text(claimed=claim.claimed, amount=claim.amount, bank=claim.balance, hours_left=hours)
        await send_ephemeral(interaction, text)

    @app_commands.command(name="leaderboard", description="Top ten of this server, and your own rank", extras=IN_PAN)
    @app_commands.describe(metric="Ranked by (default: chips)", period="This season or all time (default: all)")
    async def leaderboard(
        self,
        interaction: discord.Interaction,
        metric: Literal["net", "chips", "rating", "wins"] = "chips",
        period: Literal["season", "all"] = "all",
    ) -> None:
        # public, except a season board: "no season running" must be a private refusal (a public defer's first
        # followup is public whatever it asks)
        private = period == "season"
        rt = await self.defer(interaction, ephemeral=private)
        guild_id = interaction.guild_id or 0
        if rt.league is None:  # no league service: the bank's top ten
            rows = await rt.ledger.leaderboard(guild_id, 10)
            names = await rt.names.fetch(guild_id, (user for user, _ in rows))
            await self.respond(interaction, leaderboard_text(rows, names), ephemeral=False)
            return
        board = await rt.league.leaderboard(guild_id, metric=metric, period=period, caller=interaction.user.id)
        names = await rt.names.fetch(guild_id, (line.user_id for line in board.lines))
        await self.respond(interaction, league_board(board, names), ephemeral=private)

    @app_commands.command(
        name="settings",
        description="Your Pan settings: turn pings, hand DMs, sort order, four-colour deck, phone layout",
        extras=IN_PAN,
    )
    @app_commands.describe(
        ping="Mention you in the channel when it is your turn (turn), or not (off)",
        dms="DMs: your hand at every change, a note at every turn, your hand at the deal only, or off",
        sort="Sort your hand by suit or by rank",
        four_colour="Four-colour deck (clubs green, diamonds blue)",
        layout="phone: My hand shows the table over your hand in one tall image; wide: the usual images",
        share_hand="Let this member see your cards until this hand ends (announced at the table)",
        stop_sharing="Stop sharing your cards now",
    )
    async def settings(
        self,
        interaction: discord.Interaction,
        ping: Literal["turn", "off"] | None = None,
        dms: Literal["every", "turn", "deal", "off"] | None = None,
        sort: Literal["suit", "rank"] | None = None,
        four_colour: bool | None = None,
        layout: Literal["wide", "phone"] | None = None,
        share_hand: discord.Member | None = None,  # watching with consent: replay_cog.share_hand
        stop_sharing: bool = False,
    ) -> None:
        rt = await self.defer(interaction)
        if share_hand is not None or stop_sharing:  # watching with consent
            if share_hand is not None:
                rt.remember(interaction.guild_id, share_hand)
            values = (str(share_hand.id),) if share_hand is not None else ()
            await rt.handlers["share_hand"](interaction, self.here(interaction).table_id, values)
            if dms is None and sort is None and four_colour is None and layout is None:
                return
        changes: dict[str, object] = {}
        if ping is not None:
            changes["ping"] = PingMode(ping)
        if dms is not None:
            changes["dm_mode"] = DmMode(dms)
        if sort is not None:
            changes["sort"] = SortOrder(sort)
        if four_colour is not None:
            changes["four_color"] = four_colour
        if layout is not None:
            changes["layout"] = Layout(layout)
        prefs = await rt.settings.update(interaction.user.id, **changes)
        text = settings_text(
            ping=prefs.ping.value,
            dm_mode=prefs.dm_mode.value,
            dm_closed=prefs.dm_closed,
            sort=prefs.sort.value,
            four_color=prefs.four_color,
        )
        await send_ephemeral(interaction, " ".join((text, layout_setting(layout=prefs.layout.value))))
