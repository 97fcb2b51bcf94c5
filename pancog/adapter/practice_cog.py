"""Computer players on Discord (issue 8): ``/pan practice``, ``/pan addbot`` and the top-level ``/hint``.

Loaded by the extension after the operations cog. It owns the :class:`~pancog.bots.BotDriver` (started over the
runtime's ``TableService`` once the tables were replayed, so pending computer turns resume) and exposes it to the
runtime as ``PanRuntime.bots`` (read by ``PanRuntime.busy``/``close``, marked "computer players (issue 8)").

Environment (tests and benchmarks): ``PAN_BOT_DELAY`` (seconds a computer player waits before acting, default
1.5), ``PAN_BOT_NEXT_HAND_DELAY`` (pause before a practice table deals the next hand, default 6; ``off`` to wait
for Start), ``PAN_BOT_HARD_BUDGET_MS``.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from pancog.adapter import presenters
from pancog.adapter.errors import report, send_ephemeral
from pancog.adapter.views import Board, PanRuntime, runtime_of
from pancog.bots import BotDriver, BotSettings, computer_name, hint_allowed, practice_scope, suggest
from pancog.game.errors import PanError
from pancog.tables import BuyInTooSmall, NotHost, TableAlreadyOpen, TableConfig, TableSession, preset_or_default

__all__ = ["PracticeCog", "bots_of", "setup_practice"]

log = logging.getLogger("pan.practice")

BotLevel = Literal["easy", "normal", "hard"]


class HintRefused(PanError):
    code = "hint_refused"

    def __init__(self) -> None:
        super().__init__(presenters.HINT_REFUSED)


def bots_of(client: discord.Client) -> BotDriver:
    driver = getattr(runtime_of(client), "bots", None)
    if not isinstance(driver, BotDriver):
        raise RuntimeError("the computer players are not loaded")
    return driver


class PracticeCog(commands.Cog, name="PanPractice"):
    """Computer players: practice tables, added seats, hints. The game logic lives in :mod:`pancog.bots`."""

    def __init__(self, bot: commands.Bot, runtime: PanRuntime, settings: BotSettings | None = None) -> None:
        self.bot = bot
        self.rt = runtime
        self.driver = BotDriver(runtime.tables, settings or BotSettings.from_env())
        self._commands: list[app_commands.Command[Any, ..., Any]] = []

    async def cog_load(self) -> None:
        self.rt.bots = self.driver  # type: ignore[attr-defined]  # read by PanRuntime.busy / close
        resumed = self.driver.start()
        log.info("computer players started; %d open table(s) looked at", resumed)
        group = self.bot.tree.get_command("pan")
        if not isinstance(group, app_commands.Group):
            raise RuntimeError("the /pan group must be loaded before the practice cog")
        ours: tuple[app_commands.Command[Any, ..., Any], ...] = (_practice, _addbot)
        for command in ours:
            if group.get_command(command.name) is None:
                group.add_command(command)
                self._commands.append(command)

    async def cog_unload(self) -> None:
        group = self.bot.tree.get_command("pan")
        if isinstance(group, app_commands.Group):
            for command in self._commands:
                group.remove_command(command.name)
        await self.driver.stop()
        if getattr(self.rt, "bots", None) is self.driver:
            self.rt.bots = None  # type: ignore[attr-defined]

    @app_commands.command(name="hint", description="Practice tables: the suggested play, explained in one sentence")
    @app_commands.guild_only()
    async def hint(self, interaction: discord.Interaction) -> None:
        session = self.rt.tables.in_channel(interaction.channel_id or 0)
        seat = session.seat_of(interaction.user.id)
        if not hint_allowed(session, interaction.user.id):
            raise HintRefused
        found = suggest(session.state, seat)
        if found is None:
            text = presenters.HINT_NO_HAND if session.state.hand is None else presenters.HINT_NOT_YOUR_MOVE
        else:
            text = presenters.hint_text(found[1])
        await interaction.response.send_message(text, ephemeral=True)


# --------------------------------------------------------------------------------------------- /pan commands


def _hold_board(rt: PanRuntime, session: TableSession) -> Board:
    """A stopped board for a table being filled: it collects the lines of the seating and the deal, posts nothing.

    Otherwise the first sit-down kicks a "waiting to deal" board (with a Join button) and the deal, moments later,
    posts the hand's board: two boards for one hand.
    """
    held = rt.board(session)
    held.stop()
    return held


def _release_board(rt: PanRuntime, session: TableSession, held: Board) -> None:
    """Swap the held board for a live one with its lines; it posts the hand's one board. Synchronous on purpose:
    no computer player can act between the deal and the swap."""
    if rt.boards.get(session.table_id) is not held or rt.tables.find_in_channel(session.channel_id) is not session:
        return  # dropped (the table closed on a refusal)
    rt.drop_board(session.table_id)
    board = rt.board(session)
    board.lines.extend(held.lines)
    board.summaries.extend(held.summaries)
    board.new_post = True
    board.kick()


@app_commands.command(name="practice", description="Practice against computer players (practice chips by default)")
@app_commands.describe(
    opponents="How many computer opponents (1-7)",
    level="How well they play",
    real_chips="Play with chips from your bank instead of practice chips",
)
@app_commands.guild_only()
async def _practice(
    interaction: discord.Interaction[Any],
    opponents: app_commands.Range[int, 1, 7] = 3,
    level: BotLevel = "normal",
    real_chips: bool = False,
) -> None:
    try:
        rt = runtime_of(interaction.client)
        driver = bots_of(interaction.client)
        channel_id = interaction.channel_id or 0
        guild_id = interaction.guild_id or 0
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
            title=presenters.practice_title(interaction.user.display_name),
            practice=True,
        )
        # Private answer: the board is posted by the usual path (the first deal posts it), and the interaction is
        # answered only once everyone is seated and the first hand dealt.
        await interaction.response.defer(ephemeral=True, thinking=True)
        rt.remember(interaction.user)
        await rt.settings.get(interaction.user.id)
        session = await rt.tables.open_table(
            interaction.id,
            guild_id=guild_id if real_chips else practice_scope(guild_id),
            channel_id=channel_id,
            host_id=interaction.user.id,
            config=config,
        )
        held = _hold_board(rt, session)  # nothing is posted while the table fills: the first deal posts one board
        try:
            await driver.fill_practice(session.table_id, interaction.user.id, opponents=opponents, level=level)
        except PanError:
            with contextlib.suppress(PanError):
                await rt.tables.close_system(session.table_id)
            rt.drop_board(session.table_id)
            raise
        finally:
            _release_board(rt, session, held)
        await rt.save_names(session)
        text = presenters.practice_opened(
            opponents=opponents, level=level, real_chips=real_chips, next_hand_delay=driver.settings.next_hand_delay
        )
        await send_ephemeral(interaction, text)
    except Exception as exc:
        await report(interaction, exc, context="/pan practice")


@app_commands.command(name="addbot", description="Seat a computer player at this table (host or moderator)")
@app_commands.describe(level="How well it plays")
@app_commands.guild_only()
async def _addbot(interaction: discord.Interaction[Any], level: BotLevel = "normal") -> None:
    try:
        from pancog.adapter.cog import is_moderator  # the cog's rule for "moderator"; imported late (cog imports this)

        rt = runtime_of(interaction.client)
        driver = bots_of(interaction.client)
        session = rt.tables.in_channel(interaction.channel_id or 0)
        if interaction.user.id != session.host_id:
            settings = await rt.ledger.settings(interaction.guild_id or 0)
            if not is_moderator(interaction, settings.moderator_role_id):
                raise NotHost
        await interaction.response.defer(ephemeral=True, thinking=True)
        player_id = await driver.seat_computer(session.table_id, level)
        seat = session.state.seat(session.seat_of(player_id))
        text = presenters.computer_seated(computer_name(player_id), seat.stack if seat else 0)
        await send_ephemeral(interaction, text)
    except Exception as exc:
        await report(interaction, exc, context="/pan addbot")


async def setup_practice(bot: commands.Bot) -> None:
    """Add the practice cog (after the Pan cogs: it needs their runtime and the /pan group). Idempotent."""
    if bot.get_cog("PanPractice") is not None:
        await bot.remove_cog("PanPractice")
    await bot.add_cog(PracticeCog(bot, runtime_of(bot)))
