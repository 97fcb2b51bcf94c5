"""``/pan`` commands for chips and preferences: balance, daily, leaderboard, each player's settings (the
server-admin ones, grant and config, are in ``/panadmin``: :mod:`.admin_cog`). Thin: parse, call one service
method, present, respond."""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands

from pancog.adapter import language as languages
from pancog.adapter.base import PanCog
from pancog.adapter.errors import send_ephemeral
from pancog.adapter.groups import IN_PAN
from pancog.adapter.layouts import card_layout
from pancog.adapter.presenters.bank import balance_text, daily_text, leaderboard_text, season_bank_text
from pancog.adapter.presenters.hand import language_setting, layout_setting, settings_text
from pancog.adapter.presenters.league import BOARD_PAGE, league_board
from pancog.adapter.runtime import PanRuntime
from pancog.adapter.watching import Watching
from pancog.services.prefs import DmMode, Layout, PingMode, SortOrder

__all__ = ["BankCog"]


class BankCog(PanCog, name="PanBank"):
    """Chips in the server's bank, server defaults, and each player's settings."""

    def __init__(self, runtime: PanRuntime, watching: Watching) -> None:
        super().__init__(runtime)
        self.watching = watching  # /pan settings share_hand, stop_sharing

    @app_commands.command(name="balance", description="Your chips in this server", extras=IN_PAN)
    async def balance(self, interaction: discord.Interaction) -> None:
        rt = await self.defer(interaction)
        guild_id, user = interaction.guild_id or 0, interaction.user.id
        await rt.ledger.ensure_player(guild_id, user)
        text = balance_text(await rt.ledger.holding(guild_id, user))  # the bank, and chips at the guild's tables
        league = rt.league
        season = await league.active_season(guild_id) if league is not None else None
        if league is not None and season is not None and season.mode == "bank":  # a bank season: its banks are apart
            await league.season_bank(guild_id, user)  # its starting chips, on first use
            held = await rt.ledger.holding(guild_id, user, scope=season.bank_scope)
            text += "\n" + season_bank_text(season, held)
        await send_ephemeral(interaction, text)

    @app_commands.command(name="daily", description="Claim your daily chips", extras=IN_PAN)
    async def daily(self, interaction: discord.Interaction) -> None:
        rt = await self.defer(interaction)
        claim = await rt.ledger.claim_daily(interaction.guild_id or 0, interaction.user.id)
        hours = int(claim.next_claim_in.total_seconds() // 3600)
        text = daily_text(claimed=claim.claimed, amount=claim.amount, bank=claim.balance, hours_left=hours)
        await send_ephemeral(interaction, text)

    @app_commands.command(
        name="leaderboard", description="The players of this server, 20 a page, and your own rank", extras=IN_PAN
    )
    @app_commands.describe(
        metric="Ranked by (default: chips you have, bank + at tables)",
        period="This season (eligible players) or all time (default: all)",
        page="Page (20 players a page; default 1)",
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction,
        metric: Literal["net", "chips", "rating", "wins"] = "chips",
        period: Literal["season", "all"] = "all",
        page: app_commands.Range[int, 1, 1000] = 1,
    ) -> None:
        # public, except a season board: "no season running" must be a private refusal (a public defer's first
        # followup is public whatever it asks)
        private = period == "season"
        rt = await self.defer(interaction, ephemeral=private)
        guild_id = interaction.guild_id or 0
        if rt.league is None:  # no league service: what players have (bank + chips at tables), the top ten
            held = await rt.ledger.holdings(guild_id, limit=10, caller=interaction.user.id)
            shown_users = [h.user_id for h in held.lines] + ([held.caller.user_id] if held.caller else [])
            names = await rt.names.fetch(guild_id, shown_users)
            await self.respond(interaction, None, view=card_layout(leaderboard_text(held, names)), ephemeral=False)
            return
        board = await rt.league.leaderboard(
            guild_id, metric=metric, period=period, caller=interaction.user.id, limit=BOARD_PAGE, page=page
        )
        shown_users = [line.user_id for line in board.lines] + ([board.caller.user_id] if board.caller else [])
        names = await rt.names.fetch(guild_id, shown_users)
        await self.respond(interaction, None, view=card_layout(league_board(board, names)), ephemeral=private)

    @app_commands.command(
        name="settings",
        description="Your Pan settings: turn pings, hand DMs, sort order, four-colour deck, phone layout, language",
        extras=IN_PAN,
    )
    @app_commands.describe(
        ping="Mention you in the channel when it is your turn (turn), or not (off)",
        dms="DMs: your hand at every change, a note at every turn, your hand at the deal only, or off",
        sort="Sort your hand by suit or by rank",
        four_colour="Four-colour deck (clubs green, diamonds blue)",
        layout="phone: My hand shows the table over your hand in one tall image; wide: the usual images",
        language="The language Pan writes to you in (Tagalog, or your Discord's language)",
        share_hand="Let this member see your cards until this hand ends (announced at the table)",
        stop_sharing="Stop sharing your cards now",
    )
    @app_commands.choices(language=languages.LANGUAGE_CHOICES)
    async def settings(
        self,
        interaction: discord.Interaction,
        ping: Literal["turn", "off"] | None = None,
        dms: Literal["every", "turn", "deal", "off"] | None = None,
        sort: Literal["suit", "rank"] | None = None,
        four_colour: bool | None = None,
        layout: Literal["wide", "phone"] | None = None,
        language: str | None = None,
        share_hand: discord.Member | None = None,  # watching with consent (adapter/watching.py)
        stop_sharing: bool = False,
    ) -> None:
        rt = await self.defer(interaction)
        if share_hand is not None:  # watching with consent
            rt.remember(interaction.guild_id, share_hand)
            await self.watching.share(interaction, self.here(interaction).table_id, share_hand.id)
        elif stop_sharing:
            await self.watching.stop_sharing(interaction, self.here(interaction).table_id)
        if (
            (share_hand is not None or stop_sharing)
            and dms is None
            and sort is None
            and four_colour is None
            and layout is None
            and language is None
        ):
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
        if language is not None:
            changes["language"] = languages.chosen(language)
        prefs = await rt.settings.update(interaction.user.id, **changes)
        lang = await languages.enter(rt, interaction)  # the answer is in the language just chosen
        text = settings_text(
            ping=prefs.ping.value,
            dm_mode=prefs.dm_mode.value,
            dm_closed=prefs.dm_closed,
            sort=prefs.sort.value,
            four_color=prefs.four_color,
        )
        own = language_setting(language=languages.name_of(lang), own=bool(prefs.language))
        await send_ephemeral(interaction, " ".join((text, layout_setting(layout=prefs.layout.value), own)))
