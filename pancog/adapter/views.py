"""The Discord side of a table: the runtime (services + boards + DMs), the board message, buttons and selects.

- ``PanRuntime`` is created once per bot; it subscribes to :class:`~pancog.tables.TableService` so every
  committed action — by a command, a button, a select or the system — updates the board and sends DMs.
- ``Board``: one message per hand, edited in place by a per-table task at most once per ``edit_interval``
  seconds (coalesced), re-posted for each new hand; an end-of-hand summary message is posted when a hand ends.
- Buttons and selects are ``DynamicItem``s whose custom_id carries the table (``pan:t:<table>:<verb>``), so
  they keep working after a restart. Their callbacks map every error to one private reply.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import io
import logging
import re
import time
from collections.abc import Callable
from typing import Any

import discord

from pancog.adapter import presenters
from pancog.adapter.errors import answer, deliver, guarded, reusable_file, send_ephemeral
from pancog.bots import ordered_plays  # computer players (issue 8)
from pancog.game import engine
from pancog.game.actions import (
    AcceptSplit,
    Action,
    Discard,
    Force,
    FoulCall,
    GoOnTop,
    Knock,
    OfferSplit,
    Pluck,
    TakeOption,
)
from pancog.game.errors import PanError
from pancog.game.events import CardsDealt, Discarded, HandEnded, HandStarted, Melded, OptionTaken
from pancog.game.notation import format_action, parse_action
from pancog.game.state import Phase, TableState
from pancog.ledger import ChipLedger
from pancog.renderq import Priority, RenderJob, RenderQueue, RenderQueueClosed, threads_from_env
from pancog.settings import DmMode, PlayerSettings
from pancog.storage.base import Storage
from pancog.store import TableStore
from pancog.tables import Applied, TableService, TableSession
from renderer import hand_text, outcome_text, render_hand_png, render_outcome_png, render_table_png, table_text

log = logging.getLogger("pan.views")

RUNTIME_ATTR = "pan"
BOARD_EDIT_INTERVAL = 1.0
VERBS = ("join", "leave", "start", "knock", "sluff", "draw", "take", "hand", "force", "foul", "split")
LABELS = {
    "join": "Join",
    "leave": "Leave",
    "start": "Start",
    "knock": "Knock",
    "sluff": "Sluff",
    "draw": "Draw",
    "take": "Take",
    "hand": "My hand",
    "force": "Force",
    "foul": "Foul",
    "split": "Split",
}
STYLES = {
    "join": discord.ButtonStyle.success,
    "leave": discord.ButtonStyle.secondary,
    "start": discord.ButtonStyle.primary,
    "knock": discord.ButtonStyle.success,
    "sluff": discord.ButtonStyle.secondary,
    "draw": discord.ButtonStyle.primary,
    "take": discord.ButtonStyle.success,
    "hand": discord.ButtonStyle.primary,
    "force": discord.ButtonStyle.danger,
    "foul": discord.ButtonStyle.danger,
    "split": discord.ButtonStyle.secondary,
}


def runtime_of(client: discord.Client) -> PanRuntime:
    rt = getattr(client, RUNTIME_ATTR, None)
    if not isinstance(rt, PanRuntime):
        raise RuntimeError("the Pan cog is not loaded")
    return rt


# --------------------------------------------------------------------------------------------- runtime


class PanRuntime:
    """Everything the adapter shares: services, names, boards, background DM tasks."""

    def __init__(
        self,
        bot: discord.Client,
        storage: Storage,
        ledger: ChipLedger,
        store: TableStore,
        tables: TableService,
        settings: PlayerSettings,
    ) -> None:
        self.bot = bot
        self.storage = storage
        self.ledger = ledger
        self.store = store
        self.tables = tables
        self.settings = settings
        self.names: dict[int, str] = {}
        self.boards: dict[int, Board] = {}
        self.edit_interval = BOARD_EDIT_INTERVAL
        self.renders = RenderQueue(threads_from_env())  # every PNG goes through this (pancog/renderq.py)
        self._tasks: set[asyncio.Task[None]] = set()
        tables.subscribe(self.on_applied)

    # -- names
    def remember(self, user: discord.abc.User) -> None:
        self.names[user.id] = user.display_name

    async def save_names(self, session: TableSession) -> None:
        ids = session.player_ids()
        names = {str(i): self.names[i] for i in ids if i in self.names}
        with contextlib.suppress(PanError):
            await self.store.merge_meta(session.table_id, "names", names)

    def load_names(self, meta: str) -> None:
        import json

        with contextlib.suppress(ValueError, TypeError, AttributeError):
            for key, value in dict(json.loads(meta).get("names", {})).items():
                self.names.setdefault(int(key), str(value))

    # -- background work
    def spawn(self, coro: Any, *, name: str) -> None:
        task: asyncio.Task[None] = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def busy(self) -> bool:
        """True while a board has unsent changes or a DM is on its way (tests and the benchmark wait on it)."""
        bots = getattr(self, "bots", None)  # computer players (issue 8): a computer player thinking or acting
        return bool(self._tasks) or any(b.pending for b in self.boards.values()) or bool(bots and bots.busy())

    async def close(self) -> None:
        bots = getattr(self, "bots", None)  # computer players (issue 8): stop them before the storage closes
        if bots is not None:
            await bots.stop()
        for board in self.boards.values():
            board.stop()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.renders.shutdown()

    # -- boards
    def board(self, session: TableSession) -> Board:
        board = self.boards.get(session.table_id)
        if board is None or board.session is not session:
            board = Board(self, session)
            self.boards[session.table_id] = board
        return board

    def drop_board(self, table_id: int) -> None:
        board = self.boards.pop(table_id, None)
        if board is not None:
            board.stop()

    # -- the service listener (synchronous, inside the table lock)
    def on_applied(self, applied: Applied) -> None:
        session = applied.session
        board = self.board(session)
        events = applied.events
        started = any(isinstance(e, HandStarted) for e in events)
        if started:
            board.lines.clear()
            board.new_post = True
        board.lines.extend(presenters.describe_events(applied.before, applied.state, self.names, events))
        if any(isinstance(e, HandEnded) for e in events):
            board.summaries.append(applied)
        for e in events:
            if isinstance(e, CardsDealt):
                seat = applied.state.seat(e.seat)
                if seat is not None:
                    self.send_hand_dm(session, seat.player_id, e.seat, applied.state, deal=True)
        if not started and applied.actor is not None:
            self._dm_changes(applied)
        board.kick()

    def _dm_changes(self, applied: Applied) -> None:
        session = applied.session
        seat = session.find_seat(applied.actor) if applied.actor is not None else None
        if seat is None or applied.state.hand is None:
            return
        changed = any(
            isinstance(e, Melded | Discarded | OptionTaken) and getattr(e, "seat", None) == seat for e in applied.events
        )
        if changed and self.settings.cached(applied.actor or 0).dm_mode is DmMode.EVERY:
            self.send_hand_dm(session, applied.actor or 0, seat, applied.state, deal=False)

    # -- DMs
    def send_hand_dm(self, session: TableSession, player_id: int, seat: int, state: TableState, *, deal: bool) -> None:
        if player_id < 0:
            return
        prefs = self.settings.cached(player_id)
        if prefs.dm_closed or prefs.dm_mode is DmMode.OFF:
            return
        self.spawn(self._send_hand_dm(session, player_id, seat, state, deal), name=f"pan-dm-{player_id}")

    async def _send_hand_dm(
        self, session: TableSession, player_id: int, seat: int, state: TableState, deal: bool
    ) -> None:
        prefs = await self.settings.get(player_id)
        if prefs.dm_closed or prefs.dm_mode is DmMode.OFF:
            return
        snap = presenters.hand_snapshot(state, seat, sort=prefs.sort.value, four_color=prefs.four_color)
        try:
            png = await self.renders.render(render_hand_png, snap, priority=Priority.DM)
        except RenderQueueClosed:
            return  # the bot is stopping
        guild = self.bot.get_guild(abs(session.guild_id))  # computer players (issue 8): practice tables store -G
        channel = self.bot.get_channel(session.channel_id)
        text = presenters.hand_dm_text(
            guild.name if guild else "your server",
            getattr(channel, "name", None) or "the table",
            state.hand_no,
            hand_text(snap) if deal else "Your hand now: " + hand_text(snap),
        )
        try:
            dm = await self.bot.create_dm(discord.Object(id=player_id))
            await dm.send(text, file=discord.File(io.BytesIO(png), filename="hand.png"))
        except discord.Forbidden as exc:
            log.info("DMs closed for user %s (code %s); not retrying", player_id, exc.code)
            await self.settings.dm_refused(player_id)
        except discord.HTTPException as exc:
            log.warning("hand DM to %s failed: %s", player_id, exc)

    async def notice_prefix(self, user_id: int) -> str:
        """The one-time private notice after a refused DM ('' otherwise)."""
        if await self.settings.take_notice(user_id):
            return presenters.DM_CLOSED_NOTICE + "\n"
        return ""

    # -- renders
    def title(self, session: TableSession) -> str:
        channel = self.bot.get_channel(session.channel_id)
        name = getattr(channel, "name", None)
        return session.config.title or (f"Pan at #{name}" if name else "Pan table")

    async def board_payload(
        self, session: TableSession, lines: list[str], *, priority: Priority = Priority.URGENT
    ) -> tuple[str, discord.File, TableView]:
        """The board (text, image, buttons) of the table as it is when a render worker takes the job."""
        return await self.board_render(session, lambda: lines, priority=priority)

    async def board_render(
        self,
        session: TableSession,
        lines: Callable[[], list[str]],
        *,
        priority: Priority,
        on_capture: Callable[[], None] | None = None,
        on_queued: Callable[[RenderJob[bytes]], None] | None = None,
    ) -> tuple[str, discord.File, TableView]:
        """Render the board through the scheduler. The state, lines and text are captured when the job starts
        (``on_capture`` runs then), so a board that waited in the queue shows the latest state."""
        captured: dict[str, Any] = {}

        def capture() -> Any:
            if on_capture is not None:
                on_capture()
            state, notes = session.state, lines()
            snap = presenters.table_snapshot(state, self.names, title=self.title(session), notes=notes[-3:])
            text = presenters.board_text(
                state, self.names, title=self.title(session), lines=notes, host_id=session.host_id
            )
            clock_line = getattr(self, "clock_line", None)  # resilience (issue 7): the turn clock (ops_cog)
            if clock_line is not None:
                text += clock_line(session)
            captured.update(snap=snap, text=text, view=TableView(session))
            return snap

        job = self.renders.submit(render_table_png, capture, priority=priority)
        if on_queued is not None:
            on_queued(job)
        png = await job
        text, twin = captured["text"], table_text(captured["snap"])
        content = text if len(text) + len(twin) > 1900 else f"{text}\n```\n{twin}\n```"
        return content[:2000], discord.File(io.BytesIO(png), filename="table.png"), captured["view"]

    async def hand_panel(self, session: TableSession, user_id: int) -> tuple[str, discord.File | None, HandView]:
        """PRIVATE: the player's hand image, its text twin, and selects of every legal play."""
        seat = session.seat_of(user_id)
        state = session.state
        prefs = await self.settings.get(user_id)
        notice = await self.notice_prefix(user_id)
        view = HandView(session, state, seat)
        if state.hand is None or state.hand.players[seat] is None:
            text = "You are not in a hand right now." + (
                " Press Start on the board to deal." if state.hand is None else " Wait for the next deal."
            )
            return notice + text, None, view
        snap = presenters.hand_snapshot(
            state, seat, sort=prefs.sort.value, four_color=prefs.four_color, plays=view.plays
        )
        png = await self.renders.render(render_hand_png, snap, priority=Priority.URGENT)
        step = presenters.next_step(state, seat)
        content = f"{notice}Hand {state.hand_no}. {hand_text(snap)}" + (f"\n{step}" if step else "")
        return content[:2000], discord.File(io.BytesIO(png), filename="hand.png"), view


# --------------------------------------------------------------------------------------------- the board


class Board:
    """One table's public message: posted per hand, edited in place (coalesced), summaries at hand end.

    Coalescing: at most one edit per ``edit_interval``, and at most one render job per board. The job captures
    the table when a render worker takes it, so kicks that arrive while it waits in the (possibly deep) queue are
    absorbed into it; under load a board simply shows a later state less often.
    """

    def __init__(self, runtime: PanRuntime, session: TableSession) -> None:
        self.runtime = runtime
        self.session = session
        self.lines: collections.deque[str] = collections.deque(maxlen=12)
        self.summaries: list[Applied] = []
        self.new_post = session.board_message_id is None
        self._dirty = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._flushing = False
        self._last_edit = 0.0
        self._stopped = False
        self._priority: Priority | None = None  # the most urgent priority asked for since the last capture
        self._job: RenderJob[bytes] | None = None  # this board's render while it waits in the queue

    @property
    def pending(self) -> bool:
        return self._dirty.is_set() or self._flushing

    def kick(self, priority: Priority = Priority.BOARD) -> None:
        """Mark the board out of date. ``BACKGROUND`` for refreshes nobody is waiting on (after a restart)."""
        if self._stopped:
            return
        if self._priority is None or priority < self._priority:
            self._priority = priority
        job = self._job
        if job is not None:  # a render is already queued: it will show this change; only hurry it if asked
            self.runtime.renders.promote(job, priority)
        self._dirty.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name=f"pan-board-{self.session.table_id}")

    def stop(self) -> None:
        self._stopped = True
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        while not self._stopped:
            await self._dirty.wait()
            wait = self.runtime.edit_interval - (time.monotonic() - self._last_edit)
            if wait > 0:
                await asyncio.sleep(wait)  # coalesce: at most one edit per interval
            self._dirty.clear()
            self._flushing = True
            try:
                await self.flush()
            except discord.HTTPException as exc:
                log.warning("table %s: board update failed: %s", self.session.table_id, exc)
                # resilience (issue 7): retry with the latest state / tell the host about permissions (ops_cog)
                on_error = getattr(self.runtime, "on_board_error", None)
                if on_error is not None:
                    on_error(self, exc)
            except RenderQueueClosed:
                return  # the bot is stopping
            except Exception:
                log.exception("table %s: board update crashed", self.session.table_id)
            finally:
                self._flushing = False
                self._job = None
                self._last_edit = time.monotonic()

    async def flush(self) -> None:
        rt = self.runtime
        channel = rt.bot.get_partial_messageable(self.session.channel_id, guild_id=self.session.guild_id)
        summaries, self.summaries = self.summaries, []
        for applied in summaries:
            await self._post_summary(channel, applied)
        if rt.tables.find_in_channel(self.session.channel_id) is not self.session:
            self._stopped = True  # the table closed meanwhile: this board is done
            if rt.boards.get(self.session.table_id) is self:
                del rt.boards[self.session.table_id]
            return
        content, file, view = await rt.board_render(
            self.session,
            lambda: list(self.lines),
            priority=self._priority or Priority.BOARD,
            on_capture=self._captured,
            on_queued=self._queued,
        )
        message_id = self.session.board_message_id
        if self.new_post or message_id is None:
            message = await channel.send(content, file=file, view=view)
            self.new_post = False
            await rt.tables.set_board_message(self.session.table_id, message.id)
        else:
            try:
                await channel.get_partial_message(message_id).edit(content=content, attachments=[file], view=view)
            except discord.NotFound:  # deleted by a moderator: post it again
                message = await channel.send(content, file=file, view=view)
                await rt.tables.set_board_message(self.session.table_id, message.id)

    def _queued(self, job: RenderJob[bytes]) -> None:
        self._job = job if job.queued else None

    def _captured(self) -> None:
        """A render worker took this board's job: every change so far is in it."""
        self._job = None
        self._priority = None
        if not self.summaries:  # a hand that ended meanwhile still needs its summary posted by the next flush
            self._dirty.clear()

    async def _post_summary(self, channel: discord.PartialMessageable, applied: Applied) -> None:
        rt = self.runtime
        lines = presenters.describe_events(applied.before, applied.state, rt.names, applied.events)
        snap = presenters.outcome_snapshot(
            applied.before, applied.state, rt.names, applied.events, title=rt.title(self.session)
        )
        text = "\n".join(lines)
        if snap is None:
            await channel.send(text[:2000])
            return
        png = await rt.renders.render(render_outcome_png, snap, priority=Priority.BOARD)
        body = f"{text}\n```\n{outcome_text(snap)}\n```"
        if len(body) > 2000:
            body = text[:2000]
        await channel.send(body, file=discord.File(io.BytesIO(png), filename="outcome.png"))


# --------------------------------------------------------------------------------------------- views


class PanView(discord.ui.View):
    """Base of every Pan view: errors become one private reply (View errors never reach the tree handler)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    async def on_error(self, interaction: discord.Interaction[Any], error: Exception, item: Any) -> None:
        from pancog.adapter.errors import report

        await report(interaction, error, context=f"view item {getattr(item, 'custom_id', item)}")


def board_verbs(state: TableState) -> list[str]:
    """The buttons that fit the moment (from the engine's legal actions, never re-deriving the rules)."""
    hand = state.hand
    if hand is None:
        return ["join", "leave", "start"]
    verbs: list[str] = []
    if hand.phase is Phase.DECLARING:
        verbs += ["knock", "sluff"]
    else:
        verbs.append("draw")
        if hand.option is not None:
            verbs.append("take")
    verbs.append("hand")
    actor = engine.to_act(state)
    extra: set[str] = set()
    if hand.phase is Phase.PLAYING:
        for seat in hand.in_action():
            if seat == actor:
                continue  # the player in turn cannot force or call fouls on himself; avoids enumerating melds
            for action in engine.legal_actions(state, seat):
                if isinstance(action, Force):
                    extra.add("force")
                elif isinstance(action, FoulCall):
                    extra.add("foul")
                elif isinstance(action, OfferSplit | AcceptSplit):
                    extra.add("split")
    verbs += [v for v in ("force", "foul", "split") if v in extra]
    if len(hand.in_action()) == 2 and "split" not in verbs and state.rules.split_tops and hand.phase is Phase.PLAYING:
        verbs.append("split")
    verbs.append("leave")
    return verbs


class TableView(PanView):
    def __init__(self, session: TableSession) -> None:
        super().__init__()
        for verb in board_verbs(session.state):
            self.add_item(BoardButton(session.table_id, verb))


class BoardButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pan:t:(?P<table>\d+):(?P<verb>join|leave|start|knock|sluff|draw|take|hand|force|foul|split)",
):
    def __init__(self, table_id: int, verb: str) -> None:
        super().__init__(
            discord.ui.Button(label=LABELS[verb], style=STYLES[verb], custom_id=f"pan:t:{table_id}:{verb}")
        )
        self.table_id = table_id
        self.verb = verb

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> BoardButton:
        return cls(int(match["table"]), match["verb"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await guarded(
            interaction,
            lambda: on_board_click(interaction, self.table_id, self.verb),
            context=f"table {self.table_id} button {self.verb}",
        )


SIMPLE_ACTIONS: dict[str, Callable[[int], Action]] = {
    "knock": lambda s: Knock(seat=s),
    "sluff": lambda s: GoOnTop(seat=s),
    "draw": lambda s: Pluck(seat=s),
    "take": lambda s: TakeOption(seat=s),
}


async def on_board_click(interaction: discord.Interaction[Any], table_id: int, verb: str) -> None:
    rt = runtime_of(interaction.client)
    rt.remember(interaction.user)
    await interaction.response.defer(ephemeral=True, thinking=True)
    user_id = interaction.user.id
    await rt.settings.get(user_id)  # load the player's preferences (DM mode) into the cache
    tables = rt.tables
    session = tables.get(table_id)
    if verb == "join":
        applied = await tables.join(table_id, user_id)
        await rt.save_names(session)
        seat = applied.state.seat(session.seat_of(user_id))
        await send_ephemeral(interaction, presenters.sat_down(seat.stack if seat else 0))
        return
    if verb == "leave":
        applied = await tables.leave(table_id, user_id)
        left = session.find_seat(user_id) is None
        await send_ephemeral(interaction, presenters.left_table(left))
        return
    if verb == "start":
        applied = await tables.start_hand(table_id, user_id)
        await send_ephemeral(interaction, presenters.hand_dealt(applied.state.hand_no))
        return
    if verb == "hand":
        await send_hand_panel(interaction, session, user_id)
        return
    if verb in SIMPLE_ACTIONS:
        applied = await tables.act(table_id, user_id, SIMPLE_ACTIONS[verb])
    elif verb == "force":
        applied = await tables.act(table_id, user_id, lambda s: first_legal(session.state, s, Force))
    elif verb == "foul":
        applied = await tables.act(table_id, user_id, lambda s: first_legal(session.state, s, FoulCall))
    else:  # split
        applied = await tables.act(table_id, user_id, lambda s: split_action(session.state, s))
    await send_result(interaction, applied, user_id, with_hand=verb in ("draw", "take"))


def first_legal(state: TableState, seat: int, kind: type) -> Action:
    for action in engine.legal_actions(state, seat):
        if isinstance(action, kind):
            return action
    what = {Force: "force", FoulCall: "call foul"}.get(kind, "do that")
    raise PanError(f"There is nothing you can {what} now.")


def split_action(state: TableState, seat: int) -> Action:
    hand = state.hand
    if hand is not None and hand.split_offer is not None and hand.split_offer != seat:
        return AcceptSplit(seat=seat)
    return OfferSplit(seat=seat)


async def send_result(
    interaction: discord.Interaction[Any], applied: Applied, user_id: int, *, with_hand: bool = False
) -> None:
    """PRIVATE reply after the player's own action (optionally with his hand panel to keep playing)."""
    rt = runtime_of(interaction.client)
    session = applied.session
    seat = session.find_seat(user_id)
    text = presenters.private_result(applied.before, applied.state, seat, applied.events) if seat is not None else ""
    if with_hand and seat is not None and session.state.hand is not None:
        content, file, view = await rt.hand_panel(session, user_id)
        content = f"{text}\n{content}" if text else content
        await answer(interaction, content[:2000], view=view, file=file)
        view.stop()
        return
    notice = await rt.notice_prefix(user_id)
    await send_ephemeral(interaction, (notice + (text or "Done."))[:2000])


async def send_hand_panel(interaction: discord.Interaction[Any], session: TableSession, user_id: int) -> None:
    rt = runtime_of(interaction.client)
    content, file, view = await rt.hand_panel(session, user_id)
    await answer(interaction, content, view=view, file=file)
    view.stop()


class HandView(PanView):
    """PRIVATE: selects of every legal play (best first, with what each pays) and of the discards.

    Made only of dynamic items, so nothing needs the view object once its message is sent: callers ``stop()``
    it right away. Otherwise discord.py gives a view on an ephemeral message a 15-minute timeout whose timer
    keeps the view (selects, options, the state's plays) alive: about 5.5 KiB per panel shown (docs/perf/soak.md).
    """

    def __init__(self, session: TableSession, state: TableState, seat: int) -> None:
        super().__init__()
        plays: list[discord.SelectOption] = []
        discards: list[discord.SelectOption] = []
        self.plays = ordered_plays(state, seat, engine.plays(state, seat))  # computer players (issue 8): best first
        seen: set[str] = set()
        for action, pays in self.plays:
            value = format_action(action)
            if value in seen or len(value) > 100:  # option values are unique and at most 100 characters
                continue
            seen.add(value)
            option = discord.SelectOption(label=presenters.action_label(action, pays), value=value)
            (discards if isinstance(action, Discard) else plays).append(option)
        if plays:
            self.add_item(PlaySelect(session.table_id, "play", plays[:25]))
        if discards:
            self.add_item(PlaySelect(session.table_id, "discard", discards[:25]))


class PlaySelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"pan:t:(?P<table>\d+):(?P<kind>play|discard)",
):
    def __init__(self, table_id: int, kind: str, options: list[discord.SelectOption] | None = None) -> None:
        placeholder = "Play: meld, draw, declare…" if kind == "play" else "Discard a card"
        super().__init__(
            discord.ui.Select(
                custom_id=f"pan:t:{table_id}:{kind}",
                placeholder=placeholder,
                options=options or [discord.SelectOption(label="-", value="-")],
            )
        )
        self.table_id = table_id
        self.kind = kind

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PlaySelect:
        return cls(int(match["table"]), match["kind"], list(getattr(item, "options", [])))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await guarded(
            interaction,
            lambda: on_play_selected(interaction, self.table_id, list(self.item.values)),
            context=f"table {self.table_id} select {self.kind}",
        )


async def on_play_selected(interaction: discord.Interaction[Any], table_id: int, values: list[str]) -> None:
    rt = runtime_of(interaction.client)
    rt.remember(interaction.user)
    await interaction.response.defer()  # type 6: the private panel is edited in place below
    if not values:
        raise PanError("Choose a play.")
    chosen = parse_action(values[0])
    user_id = interaction.user.id
    session = rt.tables.get(table_id)

    def make(seat: int) -> Action:
        if getattr(chosen, "seat", None) != seat:
            raise PanError("That panel is out of date: open My hand again.")
        template: Any = chosen
        replaced: Action = dataclasses.replace(template, seat=seat)
        return replaced

    applied = await rt.tables.act(table_id, user_id, make)
    seat = session.find_seat(user_id)
    result = presenters.private_result(applied.before, applied.state, seat, applied.events) if seat is not None else ""
    content, file, view = await rt.hand_panel(session, user_id)
    content = f"{result}\n{content}" if result else content
    fresh = reusable_file(file) if file is not None else None
    await deliver(
        lambda: interaction.edit_original_response(
            content=content[:2000], attachments=[fresh()] if fresh else [], view=view
        ),
        what=f"hand panel edit for interaction {interaction.id}",
    )
    view.stop()


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (BoardButton, PlaySelect)
