"""Computer players on Discord: ``/pan practice``, ``/pan addbot`` and the top-level ``/hint``.

The :class:`~pancog.services.bots.BotDriver` is a service on the runtime (``PanRuntime.bots``), built and started by the
composition root once the tables were replayed, so pending computer turns resume.

Environment (tests and benchmarks): ``PAN_BOT_DELAY`` (seconds a computer player waits before acting, default
1.5), ``PAN_BOT_NEXT_HAND_DELAY`` (pause before a practice table deals the next hand, default 6; ``off`` to wait
for Start), ``PAN_BOT_HARD_BUDGET_MS``.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Literal

import discord
from discord import app_commands

from pancog.adapter.base import PanCog
from pancog.adapter.board import Board, Boards
from pancog.adapter.checks import moderator
from pancog.adapter.errors import answer, send_ephemeral
from pancog.adapter.groups import IN_ANYWHERE, IN_PAN
from pancog.adapter.presenters.hand import HINT_NO_HAND, HINT_NOT_YOUR_MOVE, HINT_REFUSED, hint_text
from pancog.adapter.presenters.table import computer_seated, practice_opened, practice_title
from pancog.adapter.runtime import PanRuntime
from pancog.game.errors import PanError
from pancog.services.bots import BotDriver, computer_name, hint_allowed, practice_scope, suggest
from pancog.services.tables import (
    BuyInTooSmall,
    CloseReason,
    NotHost,
    TableAlreadyOpen,
    TableConfig,
    TableSession,
    preset_or_default,
)

__all__ = ["HintRefused", "PracticeCog"]

log = logging.getLogger("pan.practice")

BotLevel = Literal["easy", "normal", "hard"]


class HintRefused(PanError):
    code = "hint_refused"

    def __init__(self) -> None:
        super().__init__(HINT_REFUSED)


class PracticeCog(PanCog, name="PanPractice"):
    """Computer players: practice tables, added seats, hints. The game logic lives in :mod:`pancog.services.bots`."""

    def __init__(self, runtime: PanRuntime, boards: Boards, driver: BotDriver) -> None:
        super().__init__(runtime)
        self.boards = boards
        self.driver = driver

    @app_commands.command(
        name="hint", description="Pan card game, practice tables: the suggested play, in one sentence"
    )
    @app_commands.guild_only()
    async def hint(self, interaction: discord.Interaction) -> None:
        session = self.here(interaction)
        seat = session.seat_of(interaction.user.id)
        if not hint_allowed(session, interaction.user.id):
            raise HintRefused
        found = suggest(session.state, seat)
        if found is None:
            text = HINT_NO_HAND if session.state.hand is None else HINT_NOT_YOUR_MOVE
        else:
            text = hint_text(found[1])
        await answer(interaction, text)

    @app_commands.command(
        name="practice",
        description="Practice against computer players (practice chips by default)",
        extras=IN_PAN,
    )
    @app_commands.describe(
        opponents="How many computer opponents (1-7)",
        level="How well they play",
        real_chips="Play with chips from your bank instead of practice chips",
    )
    async def practice(
        self,
        interaction: discord.Interaction,
        opponents: app_commands.Range[int, 1, 7] = 3,
        level: BotLevel = "normal",
        real_chips: bool = False,
    ) -> None:
        await self.open_practice(interaction, opponents, level, real_chips)

    @app_commands.command(
        name="practice",
        description="Practice against computer players, anywhere (DMs too), with practice chips",
        extras=IN_ANYWHERE,
    )
    @app_commands.describe(opponents="How many computer opponents (1-7)", level="How well they play")
    async def practice_anywhere(
        self,
        interaction: discord.Interaction,
        opponents: app_commands.Range[int, 1, 7] = 3,
        level: BotLevel = "normal",
    ) -> None:
        await self.open_practice(interaction, opponents, level, real_chips=False)

    async def open_practice(
        self, interaction: discord.Interaction, opponents: int, level: BotLevel, real_chips: bool
    ) -> None:  # real_chips only from /pan practice, which Discord offers only in the bot's servers
        """A practice table in the interaction's channel. Outside every server the bot is in (the bot's DM, a
        private channel, a server that only the player installed it in) the table belongs to no server
        (``guild_id`` 0): its chips are ``BankScope.practice()`` (id 0), never a server's, and it talks only
        through the interactions' tokens (the bot cannot post there)."""
        rt = self.rt
        channel_id = interaction.channel_id or 0
        guild_id = self.home_guild(interaction)
        if rt.tables.find_in_channel(channel_id) is not None:
            raise TableAlreadyOpen  # before the public defer, so the refusal stays private
        preset = preset_or_default((await rt.ledger.settings(guild_id)).preset)
        rules = TableConfig.build(preset).rules()
        if real_chips:
            bank = await rt.ledger.ensure_player(guild_id, interaction.user.id)
            if bank < rules.min_buyin_chips:
                raise BuyInTooSmall(rules.min_buyin_chips, bank, False)
        config = TableConfig.build(
            preset,
            seats=opponents + 1 if rules.max_players < opponents + 1 else None,
            title=practice_title(interaction.user.display_name),
            practice=True,
        )
        # Private answer: the board is posted by the usual path (the first deal posts it), and the interaction is
        # answered only once everyone is seated and the first hand dealt.
        await self.defer(interaction)
        session = await rt.tables.open_table(
            interaction.id,
            guild_id=guild_id,  # the table is the guild's (settings, names, shard); only its chips are practice chips
            channel_id=channel_id,
            host_id=interaction.user.id,
            config=config,
            scope=None if real_chips else practice_scope(guild_id),
        )
        held = self._hold_board(session)  # nothing is posted while the table fills: the first deal posts one board
        try:
            await self.driver.fill_practice(session.table_id, interaction.user.id, opponents=opponents, level=level)
        except PanError:
            with contextlib.suppress(PanError):
                await rt.tables.close_system(session.table_id, reason=CloseReason.REFUSED)
            raise
        finally:
            self._release_board(session, held)
        board = self.boards.get(session)
        board.carried_by(interaction)  # the first board goes out on this token (not counted) once answered
        try:
            text = practice_opened(
                opponents=opponents,
                level=level,
                real_chips=real_chips,
                next_hand_delay=self.driver.settings.next_hand_delay,
            )
            await send_ephemeral(interaction, text)
        except BaseException:
            board.ready(failed=True)
            raise
        board.ready()
        self.boards.pings.remember_carrier(interaction, session)  # its token may carry the first turn ping too

    @app_commands.command(
        name="addbot", description="Seat a computer player at this table (host or moderator)", extras=IN_PAN
    )
    @app_commands.describe(level="How well it plays")
    async def addbot(self, interaction: discord.Interaction, level: BotLevel = "normal") -> None:
        session = self.here(interaction)
        if interaction.user.id != session.host_id and not await moderator(self.rt.ledger, interaction):
            raise NotHost
        await self.defer(interaction)
        player_id = await self.driver.seat_computer(session.table_id, level)
        seat = session.state.seat(session.seat_of(player_id))
        text = computer_seated(computer_name(player_id), seat.stack if seat else 0)
        await send_ephemeral(interaction, text)

    def _hold_board(self, session: TableSession) -> Board:
        """A stopped board for a table being filled: it collects the lines of the seating and the deal, posts
        nothing. Otherwise the first sit-down kicks a "waiting to deal" board (with a Join button) and the deal,
        moments later, posts the hand's board: two boards for one hand."""
        held = self.boards.get(session)
        held.stop()
        return held

    def _release_board(self, session: TableSession, held: Board) -> None:
        """Swap the held board for a live one with its lines; it posts the hand's one board. Synchronous on
        purpose: no computer player can act between the deal and the swap."""
        rt = self.rt
        if rt.boards.get(session.table_id) is not held or rt.tables.find_in_channel(session.channel_id) is not session:
            return  # dropped (the table closed on a refusal)
        self.boards.drop(session.table_id)
        board = self.boards.get(session)
        board.lines.extend(held.lines)
        board.summaries.extend(held.summaries)
        board.new_post = True
        board.kick()
