"""``/pan`` commands and board buttons for a table's life: open, join, leave, rebuy, start, close, the board
again and its rules (its history and replays: replay_cog.py). Thin: parse, call one service method, present, respond."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

from pancog.adapter import presenters
from pancog.adapter.base import IN_PAN, PRESET_CHOICES, PanCog
from pancog.adapter.board import Boards
from pancog.adapter.checks import refuse_at_tournament_table, require_host_or_moderator
from pancog.adapter.errors import deliver, reusable_file, send_ephemeral
from pancog.adapter.runtime import Handler, PanRuntime
from pancog.game.errors import PanError
from pancog.game.rules import describe_rules
from pancog.tables import NoTableHere, TableAlreadyOpen, TableConfig, TableSession, preset_or_default

__all__ = ["TableCog"]


class TableCog(PanCog, name="PanTables"):
    """Opening, joining, leaving, dealing and closing tables."""

    def __init__(self, runtime: PanRuntime, boards: Boards) -> None:
        super().__init__(runtime)
        self.boards = boards

    def handlers(self) -> Mapping[str, Handler]:
        return {
            "join": self.button(lambda i, session: self.join_table(i, session, bank=False)),
            "leave": self.button(self.leave_table),
            "start": self.button(self.start_hand),
        }

    @app_commands.command(name="help", description="How to play Pan, in short", extras=IN_PAN)
    async def help_(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(presenters.HOW_TO_PLAY, ephemeral=True)

    @app_commands.command(name="open", description="Open a Pan table in this channel or thread", extras=IN_PAN)
    @app_commands.describe(
        preset="Rules preset (default: the server's)",
        stakes="Chips per unit: the ante and every pay (buy-in is 20 units)",
        seats="Most players at the table (2-15)",
        turn_seconds="Seconds per turn",
        away_bot="A computer player (normal level) plays the seat of a player marked away",  # issue 8
    )
    @app_commands.choices(preset=PRESET_CHOICES)
    async def open_(
        self,
        interaction: discord.Interaction,
        preset: str | None = None,
        stakes: app_commands.Range[int, 1, 100] | None = None,
        seats: app_commands.Range[int, 2, 15] | None = None,
        turn_seconds: app_commands.Range[int, 10, 600] | None = None,
        away_bot: bool = False,  # computer players (issue 8)
    ) -> None:
        rt = self.rt
        guild_id = interaction.guild_id or 0
        if rt.tables.find_in_channel(interaction.channel_id or 0) is not None:
            raise TableAlreadyOpen  # checked before the public defer, so the refusal stays private
        default = preset_or_default((await rt.ledger.settings(guild_id)).preset)
        config = TableConfig.build(
            preset or default, stakes=stakes, seats=seats, turn_seconds=turn_seconds, away_bot=away_bot
        )  # computer players (issue 8): away_bot
        await self.defer(interaction, ephemeral=False)
        session = await rt.tables.open_table(
            interaction.id,
            guild_id=guild_id,
            channel_id=interaction.channel_id or 0,
            host_id=interaction.user.id,
            config=config,
        )
        board = self.boards.get(session)
        board.new_post = False
        content, file, view = await self.boards.payload(session, [])
        fresh = reusable_file(file)  # app-level retry of the first board (pancog/adapter/errors.py deliver)
        message = await deliver(lambda: interaction.followup.send(content, file=fresh(), view=view, wait=True))
        await rt.tables.set_board_message(session.table_id, message.id)
        try:  # the host sits down at once; the board is edited by the usual path
            await rt.tables.join(session.table_id, interaction.user.id)
            await rt.save_names(session)
        except PanError as exc:
            await send_ephemeral(interaction, presenters.could_not_sit(exc.message))

    @app_commands.command(name="join", description="Sit down at this table (chips come from your bank)", extras=IN_PAN)
    @app_commands.describe(doubles="Play doubles (needs twice the buy-in)", chips="Chips to bring (default: 5 buy-ins)")
    async def join(
        self, interaction: discord.Interaction, doubles: bool = False, chips: app_commands.Range[int, 1] | None = None
    ) -> None:
        await self.defer(interaction)
        await self.join_table(interaction, self.here(interaction), doubles=doubles, buy_in=chips)

    async def join_table(
        self,
        interaction: discord.Interaction[Any],
        session: TableSession,
        *,
        doubles: bool = False,
        buy_in: int | None = None,
        bank: bool = True,
    ) -> None:
        """/pan join and the Join button."""
        rt = self.rt
        refuse_at_tournament_table(rt, session.table_id)
        applied = await rt.tables.join(session.table_id, interaction.user.id, doubles=doubles, buy_in=buy_in)
        await rt.save_names(session)
        seat = applied.state.seat(session.seat_of(interaction.user.id))
        chips = await rt.ledger.balance(session.guild_id, interaction.user.id) if bank else None
        await send_ephemeral(interaction, presenters.sat_down(seat.stack if seat else 0, doubles=doubles, bank=chips))

    @app_commands.command(
        name="leave", description="Leave the table (mid-hand: you still pay to its end)", extras=IN_PAN
    )
    async def leave(self, interaction: discord.Interaction) -> None:
        await self.defer(interaction)
        await self.leave_table(interaction, self.here(interaction))

    async def leave_table(self, interaction: discord.Interaction[Any], session: TableSession) -> None:
        """/pan leave and the Leave button."""
        refuse_at_tournament_table(self.rt, session.table_id)
        await self.rt.tables.leave(session.table_id, interaction.user.id)
        gone = session.find_seat(interaction.user.id) is None
        await send_ephemeral(interaction, presenters.left_table(gone))

    @app_commands.command(name="rebuy", description="Bring more chips from your bank (between hands)", extras=IN_PAN)
    @app_commands.describe(chips="How many chips to add to your stack")
    async def rebuy(self, interaction: discord.Interaction, chips: app_commands.Range[int, 1]) -> None:
        rt = await self.defer(interaction)
        session = self.here(interaction)
        refuse_at_tournament_table(rt, session.table_id)
        applied = await rt.tables.rebuy(session.table_id, interaction.user.id, chips)
        seat = applied.state.seat(session.seat_of(interaction.user.id))
        bank = await rt.ledger.balance(session.guild_id, interaction.user.id)
        await send_ephemeral(interaction, presenters.rebought(chips, seat.stack if seat else 0, bank))

    @app_commands.command(name="start", description="Deal the next hand", extras=IN_PAN)
    async def start(self, interaction: discord.Interaction) -> None:
        await self.defer(interaction)
        await self.start_hand(interaction, self.here(interaction))

    async def start_hand(self, interaction: discord.Interaction[Any], session: TableSession) -> None:
        """/pan start and the Start button."""
        applied = await self.rt.tables.start_hand(session.table_id, interaction.user.id)
        await send_ephemeral(interaction, presenters.hand_dealt(applied.state.hand_no))

    @app_commands.command(
        name="close", description="Close this table and return every stack (host or moderator)", extras=IN_PAN
    )
    async def close(self, interaction: discord.Interaction) -> None:
        rt = self.rt
        session = self.here(interaction)
        moderator = await require_host_or_moderator(rt.ledger, interaction, session)  # before the public defer
        await self.defer(interaction, ephemeral=False)
        returned = await rt.tables.close(session.table_id, interaction.user.id, moderator=moderator)
        self.boards.drop(session.table_id)
        await deliver(lambda: interaction.followup.send(presenters.table_closed(returned, rt.names)))

    @app_commands.command(name="table", description="Post the table again (the board)", extras=IN_PAN)
    async def table(self, interaction: discord.Interaction) -> None:
        await self.defer(interaction)
        self.boards.repost(self.here(interaction))
        await send_ephemeral(interaction, presenters.BOARD_REPOSTED)

    @app_commands.command(name="rules", description="This table's house rules in plain words", extras=IN_PAN)
    async def rules(self, interaction: discord.Interaction) -> None:
        session = self.rt.tables.find_in_channel(interaction.channel_id or 0)
        if session is None:
            raise NoTableHere
        text = presenters.rules_text(session.config.preset, describe_rules(session.rules))
        await interaction.response.send_message(text, ephemeral=True)
