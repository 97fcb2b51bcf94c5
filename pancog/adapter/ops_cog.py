"""Operations adapter (issue 7): the turn clock on Discord, Discord-fault handling, and the admin commands.

Loaded by the extension after ``PanCog``; it hooks the rest of the adapter from outside:

* starts the :class:`~pancog.clock.TurnClock` over the runtime's ``TableService`` (after the tables were replayed),
  shows its countdown on the board (``PanRuntime.clock_line``), posts its warnings and idle closes;
* ``/pan back``, ``/pan status`` and ``/pan audit`` (the last two for moderators) join the ``/pan`` group;
* a board message deleted by a moderator is re-posted; a deleted channel or thread closes its table (stacks back
  to the banks); a failed board update is retried with the latest state (``PanRuntime.on_board_error``, called by
  ``Board``); missing permissions are logged, recorded for ``/pan status`` and told to the host privately;
* every log line carries guild, table, hand and seat (:mod:`pancog.logs`).

Environment (tests and benchmarks): ``PAN_CLOCK_SCALE`` (speed the clock up), ``PAN_TIME_BANK_SECONDS``,
``PAN_IDLE_CLOSE_SECONDS``, ``PAN_LOG_JSON=1`` (one JSON object per log line).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from pancog import logs
from pancog.adapter import presenters
from pancog.adapter.errors import report, send_ephemeral
from pancog.adapter.views import Board, PanRuntime, runtime_of
from pancog.clock import ClockNotice, ClockSettings, TurnClock, unsubscribe
from pancog.game.errors import PanError
from pancog.health import HealthRegistry
from pancog.renderq import Priority
from pancog.tables import Applied, NoTableHere, TableSession

__all__ = ["OPS_ATTR", "OpsCog", "clock_settings_from_env", "ops_of"]

log = logging.getLogger("pan.ops")

OPS_ATTR = "pan_ops"
HOST_NOTICE_INTERVAL = 3600.0  # tell a host about missing permissions at most once an hour per table
MAX_RETRY_DELAY = 30.0


def clock_settings_from_env(env: Mapping[str, str] = os.environ) -> ClockSettings:
    def number(name: str, default: float) -> float:
        text = env.get(name, "").strip()
        return float(text) if text else default

    base = ClockSettings()
    return ClockSettings(
        time_bank_seconds=number("PAN_TIME_BANK_SECONDS", base.time_bank_seconds),
        idle_close_seconds=number("PAN_IDLE_CLOSE_SECONDS", base.idle_close_seconds),
        time_scale=number("PAN_CLOCK_SCALE", base.time_scale),
    )


def ops_of(client: discord.Client) -> OpsCog:
    ops = getattr(client, OPS_ATTR, None)
    if not isinstance(ops, OpsCog):
        raise RuntimeError("the Pan operations cog is not loaded")
    return ops


class OpsCog(commands.Cog, name="PanOps"):
    """Turn clock, fault handling and admin commands; owns no game rules."""

    def __init__(self, bot: commands.Bot, runtime: PanRuntime, settings: ClockSettings | None = None) -> None:
        self.bot = bot
        self.rt = runtime
        self.clock = TurnClock(runtime.tables, settings or clock_settings_from_env())
        self.health = HealthRegistry(runtime.tables, clock=self.clock)
        self._tasks: set[asyncio.Task[None]] = set()
        self._retries: dict[int, int] = {}
        self._host_told: dict[int, float] = {}
        self._commands: list[app_commands.Command[Any, ..., Any]] = []
        self._old_check: Any = None
        self._boards_refreshed = False
        runtime.tables.subscribe(self._on_applied)
        self.clock.observe(self._on_clock)
        # Hooks read by pancog.adapter.views (marked "resilience (issue 7)" there).
        runtime.on_board_error = self.board_failed  # type: ignore[attr-defined]
        runtime.clock_line = self.clock_line  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ lifecycle

    async def cog_load(self) -> None:
        logs.install(json_lines=os.environ.get("PAN_LOG_JSON", "") == "1")
        started = time.perf_counter()
        await self.clock.start()
        self.health.load_seconds = time.perf_counter() - started
        log.info("turn clock started for %d open table(s)", len(self.rt.tables.sessions))
        self._add_commands()
        tree = self.bot.tree
        self._old_check = tree.interaction_check
        tree.interaction_check = self._interaction_check  # type: ignore[method-assign]
        setattr(self.bot, OPS_ATTR, self)

    async def cog_unload(self) -> None:
        tree = self.bot.tree
        if self._old_check is not None:
            tree.interaction_check = self._old_check  # type: ignore[method-assign]
        group = tree.get_command("pan")
        if isinstance(group, app_commands.Group):
            for command in self._commands:
                group.remove_command(command.name)
        unsubscribe(self.rt.tables, self._on_applied)
        await self.clock.stop()
        for task in list(self._tasks):
            task.cancel()
        if getattr(self.bot, OPS_ATTR, None) is self:
            delattr(self.bot, OPS_ATTR)

    def spawn(self, coro: Any, *, name: str) -> None:
        task: asyncio.Task[None] = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def busy(self) -> bool:
        return bool(self._tasks)

    async def _interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Bind guild and table to the log context of this interaction's task, then defer to the old check."""
        session = self.rt.tables.find_in_channel(interaction.channel_id or 0)
        logs.bind(guild=interaction.guild_id, table=session.table_id if session is not None else None)
        result = await self._old_check(interaction)
        return bool(result)

    # ------------------------------------------------------------------ /pan back, status, audit

    def _add_commands(self) -> None:
        group = self.bot.tree.get_command("pan")
        if not isinstance(group, app_commands.Group):
            raise RuntimeError("the /pan group must be loaded before the operations cog")
        commands_: tuple[app_commands.Command[Any, ..., Any], ...] = (_back, _status, _audit)
        for command in commands_:
            if group.get_command(command.name) is None:
                group.add_command(command)
                self._commands.append(command)

    # ------------------------------------------------------------------ the service listener

    def _on_applied(self, applied: Applied) -> None:
        session = applied.session
        seat = session.find_seat(applied.actor) if applied.actor is not None else None
        logs.bind(guild=session.guild_id, table=session.table_id, hand=applied.state.hand_no or None, seat=seat)
        self._retries.pop(session.table_id, None)

    # ------------------------------------------------------------------ the clock on Discord

    def clock_line(self, session: TableSession) -> str:
        """The board's countdown: Discord renders ``<t:..:R>`` live, so no edit is needed while it runs."""
        info = self.clock.turn_info(session.table_id)
        if info is None or info.away:
            return ""
        name = presenters.name_of(self.rt.names, info.player_id)
        return f"\n⏱ {name} to play · time runs out <t:{int(info.deadline)}:R>"

    def _on_clock(self, notice: ClockNotice) -> None:
        with logs.context(table=notice.table_id, seat=notice.seat):
            name = presenters.name_of(self.rt.names, notice.player_id)
            if notice.kind == "warning":
                self._board_line(notice.table_id, f"⏰ {name}: {int(notice.seconds_left)} s left to play.")
            elif notice.kind == "timeout":
                self.health.count("timeouts")
            elif notice.kind == "away":
                self.health.count("players_away")
                if notice.player_id is not None:
                    self.spawn(self._tell_away(notice.table_id, notice.player_id), name="pan-ops-away")
            elif notice.kind == "stood":
                self.health.count("away_stood_up")
            elif notice.kind == "abandoned":
                self.health.count("abandoned_hands_fouled")
            elif notice.kind == "idle_closed":
                self.health.count("idle_closed")
                self.spawn(self._announce_idle_close(notice), name="pan-ops-idle")
            elif notice.kind == "error":
                self.health.record_error(notice.table_id, notice.detail)

    def _board_line(self, table_id: int, line: str) -> None:
        try:
            session = self.rt.tables.get(table_id)
        except NoTableHere:
            return
        board = self.rt.board(session)
        board.lines.append(line)
        board.kick()

    async def _tell_away(self, table_id: int, player_id: int) -> None:
        text = (
            "Your time ran out twice in a row at a Pan table, so you are marked **away**: you will not be dealt in, "
            "and you will be stood up (stack back to your bank) when this hand ends. Use `/pan back` there to stay."
        )
        await self._dm(player_id, text)

    async def _announce_idle_close(self, notice: ClockNotice) -> None:
        channel_id = None
        for board_table, board in list(self.rt.boards.items()):
            if board_table == notice.table_id:
                channel_id = board.session.channel_id
        self.rt.drop_board(notice.table_id)
        if channel_id is None:
            return
        lines = [f"{presenters.name_of(self.rt.names, u)}: {presenters.chips(n)}" for u, n in notice.cashouts]
        text = "This table closed after 30 minutes without a hand. Chips back to the bank:\n" + (
            "\n".join(lines) or "none"
        )
        try:
            await self.bot.get_partial_messageable(channel_id).send(text[:2000])
        except discord.HTTPException as exc:
            log.warning("could not announce the idle close: %s", exc)

    # ------------------------------------------------------------------ Discord faults

    def board_failed(self, board: Board, error: Exception) -> None:
        """Called by ``Board`` when posting/editing failed after discord.py's own retries."""
        session = board.session
        table_id = session.table_id
        with logs.context(guild=session.guild_id, table=table_id):
            if isinstance(error, discord.NotFound) and error.code == 10003:  # Unknown Channel
                self.spawn(self.channel_gone(session.channel_id), name="pan-ops-channel-gone")
                return
            self.health.record_error(table_id, f"board update failed: {error}")
            if isinstance(error, discord.Forbidden):
                self.health.count("board_forbidden")
                log.warning("missing permissions to post the board in channel %s: %s", session.channel_id, error)
                self.spawn(self._tell_host_permissions(session, error), name="pan-ops-perms")
                return
            attempt = self._retries.get(table_id, 0) + 1
            self._retries[table_id] = attempt
            delay = min(MAX_RETRY_DELAY, 0.5 * 2 ** (attempt - 1))
            self.health.count("board_retries")
            log.warning("board update failed (%s); re-rendering the latest state in %.1fs", error, delay)
            self.spawn(self._retry_board(board, delay), name="pan-ops-retry")

    async def _retry_board(self, board: Board, delay: float) -> None:
        await asyncio.sleep(delay)
        if self.rt.boards.get(board.session.table_id) is board:
            board.kick()

    async def _tell_host_permissions(self, session: TableSession, error: Exception) -> None:
        now = time.monotonic()
        last = self._host_told.get(session.table_id)
        if last is not None and now - last < HOST_NOTICE_INTERVAL:
            return
        self._host_told[session.table_id] = now
        channel = self.bot.get_channel(session.channel_id)
        where = f"#{getattr(channel, 'name', None) or session.channel_id}"
        text = (
            f"I can't post the Pan table in {where}: Discord says I am missing permissions ({error}). "
            "Please give me View Channel, Send Messages, Attach Files and Embed Links there "
            "(and Send Messages in Threads for a thread). The game is saved; the board comes back "
            "with the next move once I can post."
        )
        await self._dm(session.host_id, text)

    async def _dm(self, user_id: int, text: str) -> None:
        try:
            dm = await self.bot.create_dm(discord.Object(id=user_id))
            await dm.send(text[:2000])
        except discord.HTTPException as exc:
            log.info("could not DM user %s: %s", user_id, exc)

    async def channel_gone(self, channel_id: int) -> None:
        """The table's channel or thread was deleted: close the table, every stack back to its bank."""
        session = self.rt.tables.find_in_channel(channel_id)
        if session is None:
            return
        with logs.context(guild=session.guild_id, table=session.table_id):
            try:
                returned = await self.rt.tables.close_system(session.table_id)
            except NoTableHere:
                return
            self.rt.drop_board(session.table_id)
            self.health.count("channels_deleted")
            self.health.forget(session.table_id)
            log.warning("channel deleted: table closed, chips returned %s", returned)
            lines = [f"{presenters.name_of(self.rt.names, u)}: {presenters.chips(n)}" for u, n in returned.items()]
            await self._dm(
                session.host_id,
                "Your Pan table's channel was deleted, so the table is closed. Chips back to the bank:\n"
                + ("\n".join(lines) or "none"),
            )

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
            self.health.count("boards_reposted")
            board = self.rt.board(session)
            board.new_post = True
            board.kick()

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        # tables in threads of the deleted channel go with it (Discord sends no THREAD_DELETE for them)
        gone = [channel.id] + [
            s.channel_id
            for s in self.rt.tables.sessions
            if getattr(self.bot.get_channel(s.channel_id), "parent_id", None) == channel.id
        ]
        for channel_id in gone:
            await self.channel_gone(channel_id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.channel_gone(payload.thread_id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """After a start (or restart), re-render every board once: the last committed action may have been
        applied after the previous process's final board edit."""
        if self._boards_refreshed:
            return
        self._boards_refreshed = True
        for session in self.rt.tables.sessions:
            self.rt.board(session).kick(Priority.BACKGROUND)  # behind every render someone is waiting on

    @commands.Cog.listener()
    async def on_resumed(self) -> None:
        self.health.count("gateway_resumed")
        log.info("gateway session resumed")

    @commands.Cog.listener()
    async def on_disconnect(self) -> None:
        self.health.count("gateway_disconnects")


# --------------------------------------------------------------------------------------------- commands


async def _is_admin(interaction: discord.Interaction[Any], rt: PanRuntime) -> bool:
    from pancog.adapter.cog import is_moderator  # the cog's rule for "moderator"; imported late (cog imports views)

    settings = await rt.ledger.settings(interaction.guild_id or 0)
    return is_moderator(interaction, settings.moderator_role_id)


@app_commands.command(name="back", description="Come back to the table after being marked away")
async def _back(interaction: discord.Interaction[Any]) -> None:
    try:
        await interaction.response.defer(ephemeral=True, thinking=True)
        ops = ops_of(interaction.client)
        session = ops.rt.tables.in_channel(interaction.channel_id or 0)
        await ops.clock.back(session.table_id, interaction.user.id)
        await send_ephemeral(interaction, "Welcome back: you will be dealt in from the next hand.")
    except Exception as exc:
        await report(interaction, exc, context="/pan back")


@app_commands.command(name="status", description="Bot status: open tables, players, hands, last errors (moderators)")
async def _status(interaction: discord.Interaction[Any]) -> None:
    try:
        await interaction.response.defer(ephemeral=True, thinking=True)
        ops = ops_of(interaction.client)
        if not await _is_admin(interaction, ops.rt):
            raise PanError("Only server moderators can see the bot status.")
        status = ops.health.report(interaction.guild_id)

        def channel_name(channel_id: int) -> str:
            channel = interaction.client.get_channel(channel_id)
            return f"#{getattr(channel, 'name', None) or channel_id}"

        def name(user_id: int) -> str:
            return presenters.name_of(ops.rt.names, user_id)

        head, _, rest = status.summary(names=name, channel=channel_name).partition("\n")
        renders = ops.rt.renders.figures().line()  # the render scheduler (pancog/renderq.py)
        await send_ephemeral(interaction, "\n".join(p for p in (head, renders, rest) if p)[:2000])
    except Exception as exc:
        await report(interaction, exc, context="/pan status")


@app_commands.command(name="audit", description="Check the chip ledger: every chip accounted for (moderators)")
async def _audit(interaction: discord.Interaction[Any]) -> None:
    try:
        await interaction.response.defer(ephemeral=True, thinking=True)
        ops = ops_of(interaction.client)
        if not await _is_admin(interaction, ops.rt):
            raise PanError("Only server moderators can run the ledger audit.")
        audit = await ops.rt.ledger.audit()
        books: list[str] = []
        for session in ops.rt.tables.sessions:
            if session.guild_id == interaction.guild_id:
                books += [f"table {session.table_id}: {p}" for p in await ops.rt.tables.check_books(session.table_id)]
        if not audit.ok or books:
            log.error("ledger audit failed: %s %s", audit.problems[:5], books[:5])
        text = audit.summary() + ("\n" + "\n".join(books) if books else "")
        await send_ephemeral(interaction, ("Ledger audit: " + text)[:1990])
    except Exception as exc:
        await report(interaction, exc, context="/pan audit")


async def setup_ops(bot: commands.Bot) -> None:
    """Add the operations cog (after the Pan cogs: it needs their runtime and the /pan group).

    Idempotent across an extension reload: a previous instance is removed first (its listeners with it).
    """
    if bot.get_cog("PanOps") is not None:
        await bot.remove_cog("PanOps")
    await bot.add_cog(OpsCog(bot, runtime_of(bot)))
