"""``/panadmin``: the server-admin commands in their own top-level group.

Discord applies ``default_permissions`` to top-level commands only, so these live in a group of their own
(:data:`pancog.adapter.groups.PANADMIN`) that server members without Manage Server do not see; the runtime check
(Manage Server in the channel, or the server's moderator role) stays, because admins can override command
permissions. Other features add their admin subcommands the same way, from their own cog: a command with
``extras=IN_ADMIN`` (e.g. the league's ``flags``) or in a subgroup declared in groups.py (``IN_SEASON``); the group
holds at most 25.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import discord
from discord import app_commands

from pancog.adapter import language as languages
from pancog.adapter.base import PRESET_CHOICES, PanCog
from pancog.adapter.board import Boards
from pancog.adapter.checks import is_moderator, moderator
from pancog.adapter.errors import BadOption
from pancog.adapter.groups import IN_ADMIN
from pancog.adapter.presenters.admin import (
    AUDIT_FOR_MODERATORS,
    CHANNEL_NEEDED,
    NEEDS_MODERATOR,
    PING_AFTER_RANGE,
    STATUS_FOR_MODERATORS,
    audit_text,
    board_layout_setting,
    channels_text,
    owed_line,
    server_config_text,
    server_language_setting,
)
from pancog.adapter.presenters.bank import AMOUNT_NOT_ZERO, granted
from pancog.adapter.presenters.common import name_of
from pancog.adapter.runtime import PanRuntime
from pancog.services.prefs import PING_AFTER_MAX, Layout
from pancog.services.tables import preset_or_default

__all__ = ["AdminCog"]

log = logging.getLogger("pan.ops")


class AdminCog(PanCog, name="PanAdmin"):
    """Server defaults, chips by hand, bot status, the ledger audit, and the channels Pan may be used in."""

    def __init__(self, runtime: PanRuntime, boards: Boards) -> None:
        super().__init__(runtime)
        self.boards = boards

    async def _require_moderator(self, interaction: discord.Interaction[Any], refusal: str) -> None:
        self.rt.remember(interaction.guild_id, interaction.user)
        if not await moderator(self.rt.ledger, interaction):
            raise BadOption(refusal)

    @app_commands.command(
        name="config",
        description="Pan server defaults: rules preset, starting chips, daily chips, role",
        extras=IN_ADMIN,
    )
    @app_commands.describe(
        preset="Rules preset for new tables",
        starting_chips="Chips a new player starts with",
        daily_amount="Chips per /pan daily",
        moderator_role="Role that may close tables and grant chips",
        four_colour="Four-colour deck (clubs green, diamonds blue) on the public board and end-of-hand image",
        ping_after="Seconds a player may take to act before the turn ping mentions them (0: ping at once)",
        board_layout="The public board: wide (default) or phone (tall, one column, for servers playing on phones)",
        language="The language of public posts and of players who chose none (Tagalog, or the server's locale)",
    )
    @app_commands.choices(preset=PRESET_CHOICES, language=languages.LANGUAGE_CHOICES)
    async def config(
        self,
        interaction: discord.Interaction,
        preset: str | None = None,
        starting_chips: app_commands.Range[int, 0, 1_000_000] | None = None,
        daily_amount: app_commands.Range[int, 0, 1_000_000] | None = None,
        moderator_role: discord.Role | None = None,
        four_colour: bool | None = None,
        ping_after: app_commands.Range[float, 0.0, PING_AFTER_MAX] | None = None,
        board_layout: Literal["wide", "phone"] | None = None,
        language: str | None = None,
    ) -> None:
        rt = await self.defer(interaction)
        guild_id = interaction.guild_id or 0
        current = await rt.ledger.settings(guild_id)
        if not is_moderator(interaction, current.moderator_role_id):
            raise BadOption(NEEDS_MODERATOR)
        if ping_after is not None and not 0 <= ping_after <= PING_AFTER_MAX:  # Discord enforces it; refuse forgeries
            raise BadOption(PING_AFTER_RANGE)  # before anything changes
        changes: dict[str, Any] = {}
        for key, value in (("preset", preset), ("starting_chips", starting_chips), ("daily_amount", daily_amount)):
            if value is not None:
                changes[key] = value
        if moderator_role is not None:
            changes["moderator_role_id"] = moderator_role.id
        new = await rt.ledger.update_settings(guild_id, **changes) if changes else current
        display = await rt.display.get(guild_id)
        if four_colour is not None:
            display = await rt.display.set_four_color(guild_id, four_colour)
        if board_layout is not None:
            display = await rt.display.set_board_layout(guild_id, Layout(board_layout))
        if language is not None:
            display = await rt.display.set_language(guild_id, languages.chosen(language))
            await languages.enter(rt, interaction)  # the answer too, unless the moderator chose his own
        if four_colour is not None or board_layout is not None or language is not None:
            for session in rt.tables.sessions:  # the boards show it from their next edit
                if session.guild_id == guild_id:
                    self.boards.get(session).kick()
        if ping_after is not None:  # from the next turn on
            display = await rt.display.set_ping_after(guild_id, ping_after)
        text = server_config_text(
            preset_or_default(new.preset),
            new.starting_chips,
            new.daily_amount,
            new.moderator_role_id,
            four_color=display.four_color,
            ping_after=display.ping_after,
        )
        lang = languages.name_of(languages.for_guild(rt, guild_id))
        own = server_language_setting(language=lang, own=bool(display.language))
        await self.respond(interaction, " ".join((text, board_layout_setting(layout=display.board_layout.value), own)))

    @app_commands.command(
        name="grant",
        description="Pan chips: give (or take, if negative) a member's chips, with a reason",
        extras=IN_ADMIN,
    )
    @app_commands.describe(user="Who", amount="Chips (negative takes)", reason="Why (kept in the ledger)")
    async def grant(self, interaction: discord.Interaction, user: discord.Member, amount: int, reason: str) -> None:
        rt = await self.defer(interaction)
        guild_id = interaction.guild_id or 0
        await self._require_moderator(interaction, NEEDS_MODERATOR)
        if amount == 0:
            raise BadOption(AMOUNT_NOT_ZERO)
        rt.remember(interaction.guild_id, user)
        await rt.ledger.ensure_player(guild_id, user.id)
        if amount > 0:
            await rt.ledger.grant(guild_id, user.id, amount, actor=interaction.user.id, reason=reason)
        else:
            await rt.ledger.take(guild_id, user.id, -amount, actor=interaction.user.id, reason=reason)
        bank = await rt.ledger.balance(guild_id, user.id)
        await self.respond(interaction, granted(amount, user.display_name, bank))

    @app_commands.command(
        name="status", description="Pan bot status: open tables, players, hands, renders, last errors", extras=IN_ADMIN
    )
    async def status(self, interaction: discord.Interaction) -> None:
        rt = await self.defer(interaction)
        await self._require_moderator(interaction, STATUS_FOR_MODERATORS)
        status = rt.health.report(interaction.guild_id)
        names = await rt.names.fetch(interaction.guild_id or 0, status.people())

        def channel_name(channel_id: int) -> str:
            channel = interaction.client.get_channel(channel_id)
            return f"#{getattr(channel, 'name', None) or channel_id}"

        def name(user_id: int) -> str:
            return name_of(names, user_id)

        head, _, rest = status.summary(names=name, channel=channel_name).partition("\n")
        renders = rt.renders.figures().line()  # the render scheduler (pancog/infra/renderq/)
        owed = owed_line(await rt.outbox.counts(interaction.guild_id or 0))  # the durable outbox: side effects owed
        await self.respond(interaction, "\n".join(p for p in (head, renders, owed, rest) if p)[:2000])

    @app_commands.command(name="audit", description="Pan chip ledger audit: every chip accounted for", extras=IN_ADMIN)
    async def audit(self, interaction: discord.Interaction) -> None:
        rt = await self.defer(interaction)
        await self._require_moderator(interaction, AUDIT_FOR_MODERATORS)
        audit = await rt.ledger.audit()
        books: list[str] = []
        for session in rt.tables.sessions:
            if session.guild_id == interaction.guild_id:
                books += [f"table {session.table_id}: {p}" for p in await rt.tables.check_books(session.table_id)]
        if not audit.ok or books:
            log.error("ledger audit failed: %s %s", audit.problems[:5], books[:5])
        await self.respond(interaction, audit_text(audit.summary(), books)[:1990])

    @app_commands.command(
        name="channels", description="Pan channels: allow Pan only in the channels you pick", extras=IN_ADMIN
    )
    @app_commands.describe(
        action="add or remove a channel, list them, or clear the list (Pan anywhere)",
        where="The channel (for add and remove)",
    )
    async def channels(
        self,
        interaction: discord.Interaction,
        action: Literal["add", "remove", "list", "clear"],
        where: discord.TextChannel | discord.Thread | None = None,
    ) -> None:
        rt = await self.defer(interaction)
        guild_id = interaction.guild_id or 0
        await self._require_moderator(interaction, NEEDS_MODERATOR)
        if action in ("add", "remove") and where is None:
            raise BadOption(CHANNEL_NEEDED)
        if action == "add" and where is not None:
            allowed = await rt.channels.add(guild_id, where.id)
        elif action == "remove" and where is not None:
            allowed = await rt.channels.remove(guild_id, where.id)
        elif action == "clear":
            allowed = await rt.channels.clear(guild_id)
        else:
            allowed = await rt.channels.allowed(guild_id)
        await self.respond(interaction, channels_text(sorted(allowed)))
