"""The public board: one message per table and hand, its buttons, and what happens when Discord refuses it.

- :class:`Boards` subscribes to the table service: every committed action (by a command, a button, a select, the
  clock or a computer player) adds its lines to the table's :class:`Board` and marks it out of date.
- A ``Board`` is edited in place by a per-table task at most once per ``edit_interval`` seconds (coalesced), and
  re-posted for each new hand; an end-of-hand summary message is posted when a hand ends.
- Its buttons are ``DynamicItem``s whose custom_id carries the table (``pan:t:<table>:<verb>``), so they keep
  working after a restart. A click runs the handler the cogs registered for the verb (``PanRuntime.handlers``):
  the same method the verb's slash command calls.
- A failed update is retried with the latest state; missing permissions are told to the host; a deleted channel
  closes its table (stacks back to the banks).
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
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import discord

from pancog.adapter import edge, language, pings
from pancog.adapter.errors import report, reusable_file, send_dm
from pancog.adapter.pings import Pings
from pancog.adapter.presenters.admin import board_failed
from pancog.adapter.presenters.common import name_of
from pancog.adapter.presenters.hand import DONT_DRAW_AGAIN
from pancog.adapter.presenters.table import (
    OLD_BOARD,
    board_in_words,
    board_text,
    channel_deleted,
    countdown_line,
    hand_over_title,
    live_outcome,
    missing_permissions,
    nets_text,
    table_snapshot,
    table_title,
)
from pancog.adapter.presenters.table_events import describe_events, end_text
from pancog.adapter.presenters.tournament import tourney_board_line
from pancog.adapter.presenters.tourney_play import hand_for_hand_line
from pancog.adapter.runtime import PanRuntime, runtime_of
from pancog.game import engine, i18n
from pancog.game.actions import AcceptSplit, Force, FoulCall, OfferSplit
from pancog.game.events import HandEnded, HandStarted
from pancog.game.i18n import N_, tr
from pancog.game.state import Phase, TableState
from pancog.infra import logs
from pancog.infra.renderq import Priority, RenderJob, RenderQueueClosed
from pancog.infra.storage.base import ScopeKind
from pancog.services.tables import Applied, CloseReason, NoTableHere, TableClosed, TableSession
from renderer import TableSnapshot, outcome_text, render_outcome_png, render_table_png, table_text

__all__ = [
    "Board",
    "BoardButton",
    "Boards",
    "TableView",
    "board_verbs",
]

log = logging.getLogger("pan.views")

HOST_NOTICE_INTERVAL = 3600.0  # tell a host about missing permissions at most once an hour per table
ALT_TEXT_LIMIT = 1024  # an attachment's description (alt text), as Discord limits it
BOARD_TEXT_LIMIT = 2000  # the board's words (a V2 message allows 4,000 characters of text displays in all)
MAX_RETRY_DELAY = 30.0
ROW_SIZE = 5  # buttons in an action row, as Discord allows

# The board's buttons: label and style by verb. What each does is the handler a cog registers for the verb.
BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "join": (N_("Join"), discord.ButtonStyle.success),
    "leave": (N_("Leave"), discord.ButtonStyle.secondary),
    "start": (N_("Start"), discord.ButtonStyle.primary),
    "knock": (N_("Knock"), discord.ButtonStyle.success),
    "sluff": (N_("Sluff"), discord.ButtonStyle.secondary),
    "draw": (N_("Draw"), discord.ButtonStyle.primary),
    "nodraw": (DONT_DRAW_AGAIN, discord.ButtonStyle.secondary),  # in My hand, on the double draw
    "take": (N_("Take"), discord.ButtonStyle.success),
    "hand": (N_("My hand"), discord.ButtonStyle.primary),
    "force": (N_("Force"), discord.ButtonStyle.danger),
    "foul": (N_("Foul"), discord.ButtonStyle.danger),
    "split": (N_("Split"), discord.ButtonStyle.secondary),
    "text": (N_("Text view"), discord.ButtonStyle.secondary),  # the board in words, privately
    "rules": (N_("All rules"), discord.ButtonStyle.secondary),  # under /pan rules, not on the board
}


def board_verbs(session: TableSession) -> list[str]:
    """The buttons that fit the moment (from the engine's legal actions, never re-deriving the rules)."""
    state = session.state
    hand = state.hand
    tournament = session.bank_scope.kind is ScopeKind.TOURNAMENT  # seats and deals belong to the tournament
    if hand is None:
        if tournament:
            return ["text"]
        if session.config.practice:  # only the practice player sits here; nobody else can join
            return ["start", "leave", "text"]
        return ["join", "leave", "start", "text"]
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
    verbs += ["text"] if tournament else ["leave", "text"]
    return verbs


class BoardPost(NamedTuple):
    """A board ready to post: its words, its image (the text twin as alt text), the Components V2 layout that shows
    both with the buttons, and the table as it was drawn. Sent with ``content=None``: a V2 message has no content."""

    text: str
    file: discord.File
    view: TableView
    state: TableState


class TableView(discord.ui.LayoutView):
    """The board as one Components V2 message: a container with the board's words (whose turn, the clock, the
    latest lines) as a text display, readable with images and embeds turned off, the table image (its text twin as
    alt text) and the buttons (dynamic items only: a click finds its handler again from the custom_id).
    No ``verbs``: an old board, kept readable but with nothing to click."""

    def __init__(self, table_id: int, verbs: list[str], text: str, alt: str) -> None:
        super().__init__(timeout=None)
        self.alt = alt
        box: discord.ui.Container[TableView] = discord.ui.Container(accent_colour=discord.Colour.dark_green())
        box.add_item(discord.ui.TextDisplay(text))
        image = discord.MediaGalleryItem("attachment://table.png", description=alt or None)
        box.add_item(discord.ui.MediaGallery(image))
        for start in range(0, len(verbs), ROW_SIZE):
            row: discord.ui.ActionRow[TableView] = discord.ui.ActionRow()
            for verb in verbs[start : start + ROW_SIZE]:
                row.add_item(BoardButton(table_id, verb))
            box.add_item(row)
        self.add_item(box)

    async def on_error(self, interaction: discord.Interaction[Any], error: Exception, item: Any) -> None:
        await report(interaction, error, context=f"board item {getattr(item, 'custom_id', item)}")


class ResultView(discord.ui.LayoutView):
    """A hand's result as a Components V2 message: how it ended (a heading), each player's net for the hand, and
    the outcome image with its text twin as alt text (no image when nobody played)."""

    def __init__(self, title: str, nets: str | None, alt: str | None) -> None:
        super().__init__(timeout=None)
        box: discord.ui.Container[ResultView] = discord.ui.Container(accent_colour=discord.Colour.dark_green())
        box.add_item(discord.ui.TextDisplay("### " + title))
        if nets:
            box.add_item(discord.ui.TextDisplay(nets))
        if alt is not None:
            box.add_item(discord.ui.MediaGallery(discord.MediaGalleryItem("attachment://outcome.png", description=alt)))
        self.add_item(box)


class BoardButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pan:t:(?P<table>\d+):(?P<verb>" + "|".join(BUTTONS) + ")",
):
    def __init__(self, table_id: int, verb: str) -> None:
        label, style = BUTTONS[verb]
        super().__init__(discord.ui.Button(label=tr(label), style=style, custom_id=f"pan:t:{table_id}:{verb}"))
        self.table_id = table_id
        self.verb = verb

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> BoardButton:
        return cls(int(match["table"]), match["verb"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await runtime_of(interaction.client).dispatch(interaction, self.table_id, self.verb, (), item=self)


# --------------------------------------------------------------------------------------------- the boards


class Boards:
    """Every open table's board: the table-service listener for the public side, renders, and Discord faults."""

    def __init__(self, runtime: PanRuntime) -> None:
        self.rt = runtime
        self._retries: dict[int, int] = {}
        self._host_told: dict[int, float] = {}
        self.pings = Pings(runtime)
        runtime.tables.subscribe(self.on_applied)

    def get(self, session: TableSession) -> Board:
        board = self.rt.boards.get(session.table_id)
        if isinstance(board, Board) and board.session is session:
            return board
        board = Board(self, session)
        self.rt.boards[session.table_id] = board
        return board

    def names_at(self, table_id: int) -> Mapping[int, str]:
        """The names of the guild of a table's board (empty when it has no board any more)."""
        board = self.rt.boards.get(table_id)
        return self.rt.names_at(board.session) if isinstance(board, Board) else {}

    def drop(self, table_id: int) -> None:
        """Stop the table's board and forget it (the next :meth:`get` makes a new one)."""
        board = self.rt.boards.pop(table_id, None)
        if board is not None:
            board.stop()

    def table_closed(self, closed: TableClosed) -> None:
        """A table closed, for any reason (``TableService.on_close``): its board stops once it has posted the hand
        summaries it still owes (a tournament table closes right after its last hand; nothing can be posted in a
        deleted channel), and its turn ping, carriers and players' pace go."""
        board = self.rt.boards.get(closed.table_id)
        owes = isinstance(board, Board) and closed.reason is not CloseReason.CHANNEL_DELETED and board.retire()
        if not owes:
            self.drop(closed.table_id)
        self.pings.forget(closed.table_id)
        self._retries.pop(closed.table_id, None)
        self._host_told.pop(closed.table_id, None)

    def repost(self, session: TableSession, priority: Priority = Priority.BOARD) -> None:
        board = self.get(session)
        board.new_post = True
        board.kick(priority)

    def add_line(self, table_id: int, line: str) -> None:
        try:
            session = self.rt.tables.get(table_id)
        except NoTableHere:
            return
        board = self.get(session)
        board.lines.append(line)
        board.kick()

    # -- the service listener (synchronous, inside the table lock)
    def on_applied(self, applied: Applied) -> None:
        board = self.get(applied.session)
        events = applied.events
        self._retries.pop(applied.session.table_id, None)
        if any(isinstance(e, HandStarted) for e in events):
            board.lines.clear()
            board.new_post = True
        names = self.rt.names_at(applied.session)
        tournament = applied.session.bank_scope.kind is ScopeKind.TOURNAMENT
        with i18n.speaking(language.for_guild(self.rt, applied.session.guild_id)):  # public lines: the server's
            board.lines.extend(describe_events(applied.before, applied.state, names, events, tournament=tournament))
            if any(isinstance(e, HandEnded) for e in events):
                board.summaries.append(applied)
            board.kick()
            self.pings.turn_moved(applied)

    # -- renders
    def title(self, session: TableSession) -> str:
        channel = self.rt.bot.get_channel(session.channel_id)
        name = getattr(channel, "name", None)
        return session.config.title or table_title(name)

    def tournament_line(self, session: TableSession) -> str | None:
        """A tournament table's line: its level, ante, time to the next level, players left and average stack
        (None at any other table)."""
        service = self.rt.tournaments
        if session.bank_scope.kind is not ScopeKind.TOURNAMENT or service is None:
            return None
        tid = service.tournament_of_table(session.table_id)
        if tid is None:
            return None
        info = service.info(tid)
        next_at = (
            None if info.paused or info.status.value != "running" else int(time.time() + info.seconds_to_next_level)
        )
        total = sum(c for _, c, _ in info.chips)
        line = tourney_board_line(info.level, info.ante, next_at, info.on_break, info.alive, total)
        if info.hand_for_hand is not None:  # on the bubble: which other tables this one waits for
            own = {tt.table_no for tt in service.get(tid).tables.values() if tt.table_id == session.table_id}
            line += "\n" + hand_for_hand_line([n for n in info.hand_for_hand if n not in own])
        return line

    def clock_line(self, session: TableSession) -> str:
        """The board's countdown: Discord renders ``<t:..:R>`` live, so no edit is needed while it runs."""
        clock = self.rt.clock
        info = clock.turn_info(session.table_id) if clock is not None else None
        if info is None or info.away:
            return ""
        return countdown_line(name_of(self.rt.names_at(session), info.player_id), int(info.deadline))

    async def payload(
        self, session: TableSession, lines: list[str], *, priority: Priority = Priority.URGENT
    ) -> BoardPost:
        """The board (text, image, buttons) of the table as it is when a render worker takes the job."""
        return await self.render(session, lambda: lines, priority=priority)

    async def render(
        self,
        session: TableSession,
        lines: Callable[[], list[str]],
        *,
        priority: Priority,
        on_capture: Callable[[], None] | None = None,
        on_queued: Callable[[RenderJob[bytes]], None] | None = None,
    ) -> BoardPost:
        """Render the board through the scheduler. The state, lines and text are captured when the job starts
        (``on_capture`` runs then), so a board that waited in the queue shows the latest state; the captured state
        comes back with the board (the edge checks the board against it)."""
        captured: dict[str, Any] = {}
        rt = self.rt

        def capture() -> Any:
            with i18n.speaking(language.for_guild(rt, session.guild_id)):  # a public post: the server's language
                return _capture()

        def _capture() -> Any:
            if on_capture is not None:
                on_capture()
            state, notes = session.state, lines()
            title = self.title(session)
            display = rt.display.cached(session.guild_id)  # the server's choices: colours, layout
            names = rt.names_at(session)  # its players' names were fetched when they sat down
            snap = table_snapshot(state, names, title=title, notes=notes[-3:], four_color=display.four_color)
            snap = dataclasses.replace(snap, layout=display.board_layout.renderer_layout)
            text = board_text(
                state,
                names,
                title=title,
                lines=notes,
                host_id=session.host_id,
                practice=session.config.practice,
                tournament=self.tournament_line(session),
            )
            verbs = board_verbs(session)
            captured.update(snap=snap, text=text + self.clock_line(session), verbs=verbs, state=state)
            return snap

        job = rt.renders.submit(render_table_png, capture, priority=priority)
        if on_queued is not None:
            on_queued(job)
        png = await job
        text = captured["text"][:BOARD_TEXT_LIMIT]
        with i18n.speaking(language.for_guild(rt, session.guild_id)):  # the alt text and buttons of a public post
            twin = table_text(captured["snap"])[:ALT_TEXT_LIMIT]  # what screen readers read; all behind Text view
            view = TableView(session.table_id, captured["verbs"], text, twin)
        file = discord.File(io.BytesIO(png), filename="table.png", description=twin)
        return BoardPost(text, file, view, captured["state"])

    def table_for(self, session: TableSession, *, four_color: bool) -> TableSnapshot:
        """The board as it is now (its latest lines for notes), for one player's private image (the phone panel):
        in that player's colours."""
        board = self.rt.boards.get(session.table_id)
        lines = list(board.lines) if isinstance(board, Board) else []
        title = self.title(session)
        names = self.rt.names_at(session)
        return table_snapshot(session.state, names, title=title, notes=lines[-3:], four_color=four_color)

    def text_view(self, session: TableSession) -> str:
        """PRIVATE: the board in words (the Text view button): recent events and the image's text twin."""
        board = self.rt.boards.get(session.table_id)
        lines = list(board.lines) if isinstance(board, Board) else []
        names = self.rt.names_at(session)
        snap = table_snapshot(session.state, names, title=self.title(session), notes=lines[-3:])
        return board_in_words(lines, table_text(snap))

    # -- Discord faults
    def failed(self, board: Board, error: Exception) -> None:
        """Posting/editing failed after discord.py's own retries: retry, tell the host, or close the table."""
        session = board.session
        table_id = session.table_id
        health = self.rt.health
        with logs.context(guild=session.guild_id, table=table_id):
            if isinstance(error, discord.NotFound) and error.code == 10003:  # Unknown Channel
                self.rt.tasks.spawn(self.channel_gone(session.channel_id), name="pan-ops-channel-gone")
                return
            health.record_error(table_id, board_failed(str(error)))
            if isinstance(error, discord.Forbidden):
                health.count("board_forbidden")
                log.warning("missing permissions to post the board in channel %s: %s", session.channel_id, error)
                self.rt.tasks.spawn(self._tell_host_permissions(session, error), name="pan-ops-perms")
                return
            attempt = self._retries.get(table_id, 0) + 1
            self._retries[table_id] = attempt
            delay = min(MAX_RETRY_DELAY, 0.5 * 2 ** (attempt - 1))
            health.count("board_retries")
            log.warning("board update failed (%s); re-rendering the latest state in %.1fs", error, delay)
            self.rt.tasks.spawn(self._retry(board, delay), name="pan-ops-retry")

    async def _retry(self, board: Board, delay: float) -> None:
        await asyncio.sleep(delay)
        if self.rt.boards.get(board.session.table_id) is board:
            board.kick()

    async def _tell_host_permissions(self, session: TableSession, error: Exception) -> None:
        now = time.monotonic()
        last = self._host_told.get(session.table_id)
        if last is not None and now - last < HOST_NOTICE_INTERVAL:
            return
        self._host_told[session.table_id] = now
        channel = self.rt.bot.get_channel(session.channel_id)
        where = f"#{getattr(channel, 'name', None) or session.channel_id}"
        await send_dm(self.rt.bot, session.host_id, missing_permissions(where, str(error)))

    async def channel_gone(self, channel_id: int) -> None:
        """The table's channel or thread was deleted: close the table, every stack back to its bank."""
        rt = self.rt
        session = rt.tables.find_in_channel(channel_id)
        if session is None:
            return
        with logs.context(guild=session.guild_id, table=session.table_id):
            try:
                returned = await rt.tables.close_system(session.table_id, reason=CloseReason.CHANNEL_DELETED)
            except NoTableHere:
                return
            rt.health.count("channels_deleted")
            log.warning("channel deleted: table closed, chips returned %s", returned)
            names = await rt.names.fetch(rt.guild_of(session), returned)
            await send_dm(rt.bot, session.host_id, channel_deleted(returned, names))


class Board:
    """One table's public message: posted per hand, edited in place (coalesced), summaries at hand end.

    Coalescing: at most one edit per ``edit_interval``, and at most one render job per board. The job captures
    the table when a render worker takes it, so kicks that arrive while it waits in the (possibly deep) queue are
    absorbed into it; under load a board simply shows a later state less often.
    """

    def __init__(self, boards: Boards, session: TableSession) -> None:
        self.boards = boards
        self.runtime = boards.rt
        self.session = session
        self.lines: collections.deque[str] = collections.deque(maxlen=12)
        self.summaries: list[Applied] = []
        self.new_post = session.board_message_id is None
        self._dirty = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._flushing = False
        self._last_edit = 0.0
        self._stopped = False
        self._retired = False  # its table closed: it stops once the summaries it owes are posted
        self._priority: Priority | None = None  # the most urgent priority asked for since the last capture
        self._job: RenderJob[bytes] | None = None  # this board's render while it waits in the queue
        self._carrier: discord.Interaction[Any] | None = None  # a Start whose token may carry the next new board
        self._carrier_ready = asyncio.Event()
        self._token: tuple[discord.Interaction[Any], int, float] | None = None  # (token, its board, expiry)
        self._shown: tuple[str, TableView, TableState] | None = None  # the last board sent: words, layout, table

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
            # its editor waits for changes as long as the board lives: a long-lived task, not work in flight
            self._task = self.runtime.tasks.start(self._run(), name=f"pan-board-{self.session.table_id}")

    def stop(self) -> None:
        self._stopped = True
        if self._task is not None:
            self._task.cancel()

    def retire(self) -> bool:
        """Its table closed. True if it still owes a hand's summary (or is posting one): it posts it, then stops and
        leaves the runtime's boards by itself; False if it owes nothing (the caller drops it)."""
        if self._stopped or not (self.summaries or self._flushing):
            return False
        self._retired = True
        self.kick()
        return True

    async def finished(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until a retired board has posted what it owed and stopped: a closed
        tournament table's thread is archived only after its last hand's summary is in it (a post into an archived
        thread reopens it)."""
        task = self._task
        if task is not None and not task.done() and self._retired:
            await asyncio.wait({task}, timeout=timeout)

    async def _run(self) -> None:
        while not self._stopped:
            await self._dirty.wait()
            # coalesce: at most one edit per interval, widened under a render backlog (renderq.board_interval)
            wait = self.runtime.renders.board_interval(self.runtime.edit_interval) - (
                time.monotonic() - self._last_edit
            )
            if wait > 0:
                await asyncio.sleep(wait)
            self._dirty.clear()
            self._flushing = True
            try:
                await self.flush()
            except discord.HTTPException as exc:
                log.warning("table %s: board update failed: %s", self.session.table_id, exc)
                self.boards.failed(self, exc)
            except RenderQueueClosed:
                return  # the bot is stopping
            except Exception:
                log.exception("table %s: board update crashed", self.session.table_id)
            finally:
                self._flushing = False
                self._job = None
                self._last_edit = time.monotonic()
            if self._retired and not self.summaries:
                self._stopped = True
                if self.runtime.boards.get(self.session.table_id) is self:
                    del self.runtime.boards[self.session.table_id]
                return

    async def flush(self) -> None:
        rt = self.runtime
        channel = rt.bot.get_partial_messageable(self.session.channel_id, guild_id=self.session.guild_id)
        summaries, self.summaries = self.summaries, []
        for applied in summaries:
            await self._post_summary(channel, applied)
        if self._closed():
            return
        content, file, view, shown = await self.boards.render(
            self.session,
            lambda: list(self.lines),
            priority=self._priority or Priority.BOARD,
            on_capture=self._captured,
            on_queued=self._queued,
        )
        message_id = self.session.board_message_id
        about = edge.about(self.session, state=shown)
        previous, self._shown = self._shown, (content, view, shown)
        if self.new_post or message_id is None:
            old_token = self._token_for(message_id)
            message = await self._post_new(channel, file, view, about)
            if message is None:  # withheld by the edge (logged there): nothing was posted
                return
            self.new_post = False
            if self._closed():  # the table closed while this board was drawn and posted: nothing to remember
                return
            await rt.tables.set_board_message(self.session.table_id, message.id)
            if message_id is not None and message_id != message.id:
                await self._strip(channel, message_id, old_token, previous)
        else:
            token = self._token_for(message_id)
            try:
                # content None: a board posted as a classic message (before V2) becomes V2 only with it cleared
                if token is not None:  # through the token that posted it: not counted against the global limit
                    await edge.edit_followup(
                        token, message_id, about=about, content=None, attachments=[file], view=view
                    )
                else:
                    message_to_edit = channel.get_partial_message(message_id)
                    await edge.edit(rt.bot, message_to_edit, about=about, content=None, attachments=[file], view=view)
            except discord.NotFound:  # deleted by a moderator: post it again
                reposted = await edge.post(rt.bot, channel, about=about, file=file, view=view)
                if reposted is not None and not self._closed():
                    await rt.tables.set_board_message(self.session.table_id, reposted.id)

    def _closed(self) -> bool:
        """True (and this board stops) once its table has closed: a board outlives its table only until its flush
        notices, which may be after an await (a tournament table closes when its last hand ends)."""
        rt = self.runtime
        if rt.tables.find_in_channel(self.session.channel_id) is self.session:
            return False
        self._stopped = True
        if rt.boards.get(self.session.table_id) is self:
            del rt.boards[self.session.table_id]
        return True

    # -- the board on an interaction's token: posted by a person's Start, edited through that token
    def carried_by(self, interaction: discord.Interaction[Any]) -> None:
        """The next new board (a deal this interaction asks for) may go out on its token; ``ready()`` once its
        own answer is sent."""
        self._carrier = interaction
        self._carrier_ready.clear()

    def ready(self, *, failed: bool = False) -> None:
        if failed:
            self._carrier = None
        self._carrier_ready.set()

    def adopt(self, interaction: discord.Interaction[Any], message_id: int, expires: float | None = None) -> None:
        """The board ``message_id`` was posted on ``interaction``: edit it through that token while it is valid
        (until ``expires``, monotonic; default: a token answered just now)."""
        self._token = (interaction, message_id, time.monotonic() + pings.TOKEN_LIFE if expires is None else expires)

    def _token_for(self, message_id: int | None) -> discord.Interaction[Any] | None:
        token = self._token
        if token is None or message_id is None or token[1] != message_id or time.monotonic() >= token[2]:
            return None
        return token[0]

    async def _post_new(
        self, channel: discord.PartialMessageable, file: discord.File, view: TableView, about: edge.About
    ) -> discord.Message | None:
        carrier = self._carrier
        if carrier is not None:
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: wait_for can drop a cancel on 3.11
                async with asyncio.timeout(pings.PING_CLAIM_WAIT):
                    await self._carrier_ready.wait()
            carrier, self._carrier = self._carrier, None
        expires: float | None = None
        if carrier is None:  # a deal no Start asked for (a practice table's next hand): the freshest token there
            found = await self.boards.pings.carrier(self.session.table_id)
            carrier, expires = (found.interaction, found.expires) if found is not None else (None, None)
        if carrier is not None and carrier.response.is_done() and not carrier.is_expired():
            fresh = reusable_file(file)
            try:
                message = await edge.followup(carrier, about=about, file=fresh(), view=view)
            except discord.HTTPException as exc:
                log.info("could not post the board on interaction %s: %s", carrier.id, exc)
                file = fresh()
            else:
                if message is not None:
                    self.adopt(carrier, message.id, expires)
                return message
        return await edge.post(self.runtime.bot, channel, about=about, file=file, view=view)

    async def _strip(
        self,
        channel: discord.PartialMessageable,
        message_id: int,
        token: discord.Interaction[Any] | None,
        shown: tuple[str, TableView, TableState] | None,
    ) -> None:
        """An old board loses its buttons once a new one is posted: one board to click. A V2 message keeps its
        words and image (its layout again, without the buttons); a board this process did not post (before a
        restart) is told apart by a line of its own (its words are not known here)."""
        # checked against the table as that board was drawn (its words and alt text are of that moment)
        about = edge.about(self.session, state=shown[2]) if shown is not None else edge.about(self.session)
        with i18n.speaking(language.for_guild(self.runtime, self.session.guild_id)):  # public: the server's
            text, alt = (shown[0], shown[1].alt) if shown is not None else (i18n.tr(OLD_BOARD), "")
        view = TableView(self.session.table_id, [], text, alt)
        try:
            if token is not None:
                await edge.edit_followup(token, message_id, about=about, content=None, view=view)
            else:
                old = channel.get_partial_message(message_id)
                await edge.edit(self.runtime.bot, old, about=about, content=None, view=view)
        except discord.HTTPException as exc:  # deleted meanwhile, or too old to edit: nothing to click anyway
            log.info("could not strip the old board %s: %s", message_id, exc)

    def _queued(self, job: RenderJob[bytes]) -> None:
        self._job = job if job.queued else None

    def _captured(self) -> None:
        """A render worker took this board's job: every change so far is in it."""
        self._job = None
        self._priority = None
        if not self.summaries:  # a hand that ended meanwhile still needs its summary posted by the next flush
            self._dirty.clear()

    async def _post_summary(self, channel: discord.PartialMessageable, applied: Applied) -> None:
        with i18n.speaking(language.for_guild(self.runtime, self.session.guild_id)):  # public: the server's language
            await self._summary(channel, applied)

    async def _summary(self, channel: discord.PartialMessageable, applied: Applied) -> None:
        """One Components V2 message per hand's end: how it ended, each player's net for the hand, the outcome
        image (its text twin as the alt text)."""
        rt = self.runtime
        ended = next(e for e in applied.events if isinstance(e, HandEnded))
        names = rt.names_at(self.session)
        title = end_text(applied.before if applied.before.hand is not None else applied.state, names, ended)
        result = applied.result  # the hand's chips, from the postings just committed for it
        if result is None and rt.replays is not None:  # a hand dealt before this process started: from the log
            result = await rt.replays.result(self.session.table_id, ended.hand_no)
        nets = nets_text(result, names) if result is not None else None
        snap = None
        if result is not None:
            snap = live_outcome(
                result,
                applied.state,
                applied.events,
                names,
                title=self.boards.title(self.session),
                four_color=rt.display.cached(self.session.guild_id).four_color,
            )
        files: list[discord.File] = []
        alt: str | None = None
        if snap is not None:
            png = await rt.renders.render(render_outcome_png, snap, priority=Priority.BOARD)
            alt = outcome_text(snap)[:ALT_TEXT_LIMIT]
            files.append(discord.File(io.BytesIO(png), filename="outcome.png", description=alt))
        view = ResultView(hand_over_title(title), nets, alt)
        fresh = [reusable_file(f) for f in files]

        def attached() -> dict[str, Any]:
            return {"files": [f() for f in fresh]} if fresh else {}

        # on the going-out player's token (answered within a moment), else the table's freshest: not counted
        carrier = await self.boards.pings.carrier(self.session.table_id, applied=applied, wait=pings.PING_CLAIM_WAIT)
        about = edge.about(self.session, state=applied.state)  # the hand as it ended (the next may be dealt by now)
        if carrier is not None:
            try:
                await edge.followup(carrier.interaction, about=about, view=view, **attached())
            except discord.HTTPException as exc:
                log.info("could not post the hand's result on interaction %s: %s", carrier.interaction.id, exc)
            else:
                return
        await edge.post(rt.bot, channel, about=about, view=view, **attached())
