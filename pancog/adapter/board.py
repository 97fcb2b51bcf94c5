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
import functools
import io
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

from pancog.adapter import ack
from pancog.adapter.errors import PanView, deliver, reusable_file, send_dm
from pancog.adapter.presenters.admin import board_failed
from pancog.adapter.presenters.common import name_of
from pancog.adapter.presenters.hand import DONT_DRAW_AGAIN
from pancog.adapter.presenters.table import (
    board_in_words,
    board_text,
    channel_deleted,
    countdown_line,
    describe_events,
    end_text,
    hand_nets,
    hand_over_title,
    headline,
    missing_permissions,
    nets_text,
    outcome_snapshot,
    table_snapshot,
    table_title,
    turn_dm,
    turn_ping,
)
from pancog.adapter.runtime import PanRuntime, runtime_of
from pancog.game import engine
from pancog.game.actions import AcceptSplit, Force, FoulCall, OfferSplit
from pancog.game.events import HandEnded, HandStarted
from pancog.game.state import Phase
from pancog.infra import logs
from pancog.infra.renderq import Priority, RenderJob, RenderQueueClosed
from pancog.services.prefs import DmMode, PingMode
from pancog.services.tables import Applied, NoTableHere, TableSession
from renderer import outcome_text, render_outcome_png, render_table_png, table_text

__all__ = [
    "Board",
    "BoardButton",
    "Boards",
    "Carrier",
    "PostedPing",
    "TableView",
    "TurnPing",
    "board_verbs",
    "mention_only",
]

log = logging.getLogger("pan.views")

PING_CLAIM_WAIT = 1.0  # how long a turn ping waits for the acting player's interaction to carry it
TOKEN_LIFE = 14 * 60.0  # an interaction token works for 15 minutes; delete through it until shortly before
HOST_NOTICE_INTERVAL = 3600.0  # tell a host about missing permissions at most once an hour per table
ALT_TEXT_LIMIT = 1024  # an attachment's description (alt text), as Discord limits it
MAX_RETRY_DELAY = 30.0

# The board's buttons: label and style by verb. What each does is the handler a cog registers for the verb.
BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "join": ("Join", discord.ButtonStyle.success),
    "leave": ("Leave", discord.ButtonStyle.secondary),
    "start": ("Start", discord.ButtonStyle.primary),
    "knock": ("Knock", discord.ButtonStyle.success),
    "sluff": ("Sluff", discord.ButtonStyle.secondary),
    "draw": ("Draw", discord.ButtonStyle.primary),
    "nodraw": (DONT_DRAW_AGAIN, discord.ButtonStyle.secondary),  # in My hand, on the double draw
    "take": ("Take", discord.ButtonStyle.success),
    "hand": ("My hand", discord.ButtonStyle.primary),
    "force": ("Force", discord.ButtonStyle.danger),
    "foul": ("Foul", discord.ButtonStyle.danger),
    "split": ("Split", discord.ButtonStyle.secondary),
    "text": ("Text view", discord.ButtonStyle.secondary),  # the board in words, privately (issue #14.4)
    "rules": ("All rules", discord.ButtonStyle.secondary),  # under /pan rules, not on the board (issue #14.6)
}


def board_verbs(session: TableSession) -> list[str]:
    """The buttons that fit the moment (from the engine's legal actions, never re-deriving the rules)."""
    state = session.state
    hand = state.hand
    if hand is None:
        if session.config.practice:  # issue #14.8: only the practice player sits here; nobody else can join
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
    verbs += ["leave", "text"]
    return verbs


class TableView(PanView):
    """The board's buttons (dynamic items only: a click finds its handler again from the custom_id)."""

    def __init__(self, session: TableSession) -> None:
        super().__init__()
        for verb in board_verbs(session):
            self.add_item(BoardButton(session.table_id, verb))


class BoardButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pan:t:(?P<table>\d+):(?P<verb>" + "|".join(BUTTONS) + ")",
):
    def __init__(self, table_id: int, verb: str) -> None:
        label, style = BUTTONS[verb]
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=f"pan:t:{table_id}:{verb}"))
        self.table_id = table_id
        self.verb = verb

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> BoardButton:
        return cls(int(match["table"]), match["verb"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await runtime_of(interaction.client).dispatch(interaction, self.table_id, self.verb, ())


# --------------------------------------------------------------------------------------------- turn pings


def mention_only(user_id: int) -> discord.AllowedMentions:
    """Notify exactly this member (nobody else, no role, no @everyone), whatever the message says."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=[discord.Object(user_id)])


@dataclass(eq=False, slots=True)
class TurnPing:
    """A turn moved to a person: the short public line that mentions them (issue #14.1).

    With the server's ``ping_after`` grace (default 5 s) it waits: if the player acts first, it is dropped
    unsent (no call at all); else it goes out as a public followup on the freshest interaction token at the
    table (:class:`Carrier`, not counted), or to the channel (counted) when no token is valid. With
    ``ping_after`` 0 it is carried by the acting player's own answer (``Boards.claim_ping``), or sent after
    ``PING_CLAIM_WAIT``. Adaptive: a person pinged after the grace is pinged at once (as with 0) at his next
    turns, until he acts within the grace of such a ping."""

    table_id: int
    channel_id: int
    guild_id: int
    user_id: int
    text: str
    applied: Applied
    grace: float = 0.0
    started: float = 0.0  # Boards.now() when the turn came to the player
    timer: asyncio.TimerHandle | None = None


@dataclass(eq=False, slots=True)
class PostedPing:
    """A ping in the channel, deleted when the turn moves on: through the interaction token that posted it
    while the token is valid (not counted against the global limit), else by a channel delete."""

    channel_id: int
    message_id: int
    delete_by_token: Callable[[], Awaitable[None]] | None = None
    token_expires: float = 0.0


@dataclass(eq=False, slots=True)
class Carrier:
    """A person's answered interaction at a table, in the table's channel: its token can post public followups
    there (turn pings, the end-of-hand embed, a board no Start carries) for ``expires`` (monotonic), outside the
    global limit."""

    interaction: discord.Interaction[Any]
    applied: Applied | None
    expires: float

    @property
    def valid(self) -> bool:
        return time.monotonic() < self.expires


# --------------------------------------------------------------------------------------------- the boards


class Boards:
    """Every open table's board: the table-service listener for the public side, renders, and Discord faults."""

    def __init__(self, runtime: PanRuntime) -> None:
        self.rt = runtime
        self._retries: dict[int, int] = {}
        self._host_told: dict[int, float] = {}
        self._pings: dict[int, TurnPing] = {}  # table -> the ping waiting for a carrier
        self._posted: dict[int, PostedPing] = {}  # table -> the ping in the channel now
        self._carriers: dict[int, Carrier] = {}  # table -> the freshest answered interaction there
        self._slow: set[tuple[int, int]] = set()  # (table, person) pinged after the grace: pinged at once next turn
        self._at_once: dict[int, TurnPing] = {}  # table -> a slow person's at-once ping: is he back?
        self.now: Callable[[], float] = time.monotonic  # the pace clock (injectable: tests)
        self._carrier_added: dict[int, asyncio.Event] = {}
        runtime.tables.subscribe(self.on_applied)

    def get(self, session: TableSession) -> Board:
        board = self.rt.boards.get(session.table_id)
        if isinstance(board, Board) and board.session is session:
            return board
        board = Board(self, session)
        self.rt.boards[session.table_id] = board
        return board

    def channel_of(self, table_id: int) -> int | None:
        """The channel of the table's board (None: no board)."""
        board = self.rt.boards.get(table_id)
        return board.session.channel_id if isinstance(board, Board) else None

    def drop(self, table_id: int) -> None:
        board = self.rt.boards.pop(table_id, None)
        if board is not None:
            board.stop()
        session = board.session if isinstance(board, Board) else None
        if session is None or self.rt.tables.find_in_channel(session.channel_id) is not session:
            self._drop_pending(table_id)  # the table closed: its ping goes too
            self.retire_ping(table_id)
            self._carriers.pop(table_id, None)
            self._carrier_added.pop(table_id, None)
            self._at_once.pop(table_id, None)
            self._slow = {key for key in self._slow if key[0] != table_id}

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
        board.lines.extend(describe_events(applied.before, applied.state, self.rt.names, events))
        if any(isinstance(e, HandEnded) for e in events):
            board.summaries.append(applied)
        board.kick()
        self._turn_moved(applied)

    # -- turn pings (issue #14.1): one short message per turn, mentioning the person to act
    def grace(self, session: TableSession) -> float:
        """Seconds the person to act may take before the ping goes out (the server's ``ping_after``)."""
        return self.rt.display.cached(abs(session.guild_id)).ping_after

    def _turn_moved(self, applied: Applied) -> None:
        before, after = applied.before, applied.state
        started = any(isinstance(e, HandStarted) for e in applied.events)
        old = engine.to_act(before)
        new = engine.to_act(after)
        session = applied.session
        self._watch_pace(applied)
        if not started and old == new and before.hand_no == after.hand_no:
            pending = self._pings.get(session.table_id)
            if pending is not None and pending.grace > 0 and pending.user_id == applied.actor:
                self._drop_pending(session.table_id)  # he is playing his turn (a draw): he is here
            return
        self._drop_pending(session.table_id)  # the player acted in time: his ping is never sent
        self._at_once.pop(session.table_id, None)
        self.retire_ping(session.table_id)
        if new is None or after.hand is None:
            return
        seat = after.seat(new)
        if seat is None or seat.player_id <= 0 or seat.away:
            return  # a computer player (or an away seat played by one) needs no notification
        what = describe_events(before, after, self.rt.names, applied.events)
        declaring = after.hand.phase is Phase.DECLARING
        server_grace = self.grace(session)
        slow = (session.table_id, seat.player_id) in self._slow
        grace = 0.0 if slow else server_grace
        ping = TurnPing(
            session.table_id,
            session.channel_id,
            session.guild_id,
            seat.player_id,
            turn_ping(seat.player_id, headline(what), declaring=declaring),
            applied,
            grace,
            self.now(),
        )
        self._pings[session.table_id] = ping
        if slow and server_grace > 0:
            self._at_once[session.table_id] = ping
        if grace > 0:  # a timer, not a task: a turn that is still running is not work in flight
            ping.timer = asyncio.get_running_loop().call_later(grace, self._due, ping)
            return
        human_actor = applied.actor is not None and applied.actor > 0
        self.rt.spawn(self._unclaimed(ping, PING_CLAIM_WAIT if human_actor else 0.0), name="pan-ping")
        self.rt.spawn(self._turn_dm(ping), name="pan-turn-dm")

    def _watch_pace(self, applied: Applied) -> None:
        """A slow person's ping goes at once (the acting player's answer carries it: no call of its own); once he
        acts within the grace of such a ping he is attentive again, and the next ones wait for the grace."""
        table_id = applied.session.table_id
        ping = self._at_once.get(table_id)
        if ping is None or applied.actor != ping.user_id:
            return
        del self._at_once[table_id]
        if self.now() - ping.started < self.grace(applied.session):
            self._slow.discard((table_id, ping.user_id))

    def _drop_pending(self, table_id: int) -> None:
        ping = self._pings.pop(table_id, None)
        if ping is not None and ping.timer is not None:
            ping.timer.cancel()
            self.rt.health.count("turn_pings_unneeded")  # acted within the grace: nothing sent, nothing to delete

    def _due(self, ping: TurnPing) -> None:
        """The grace is over and the player has not acted: notify him now; his next pings go at once."""
        if self._pings.get(ping.table_id) is not ping:
            return
        del self._pings[ping.table_id]
        self._slow.add((ping.table_id, ping.user_id))
        self.rt.spawn(self._send_ping(ping), name="pan-ping")
        self.rt.spawn(self._turn_dm(ping), name="pan-turn-dm")

    def pending_pings(self) -> list[TurnPing]:
        """The pings waiting for their grace to end (tests and the bench read it)."""
        return [p for p in self._pings.values() if p.timer is not None]

    def end_graces(self) -> int:
        """End every running grace now, as if its time had passed (the injectable clock of the tests: no test
        sleeps through a grace). Returns how many pings this sent."""
        due = self.pending_pings()
        for ping in due:
            if ping.timer is not None:
                ping.timer.cancel()
            self._due(ping)
        return len(due)

    def claim_ping(self, applied: Applied) -> TurnPing | None:
        """The ping ``applied`` caused, for the acting player's interaction to carry (None: no ping, taken, or
        one that waits for its grace)."""
        ping = self._pings.get(applied.session.table_id)
        if ping is None or ping.applied is not applied or ping.grace > 0:
            return None
        del self._pings[applied.session.table_id]
        return ping

    async def reply(
        self,
        interaction: discord.Interaction[Any],
        applied: Applied,
        private: Callable[[], Awaitable[None]],
        *,
        keep_private: bool = False,
    ) -> None:
        """Answer the acting player; his answered interaction then becomes the table's :class:`Carrier`.

        With a grace (``ping_after`` > 0) the answer is ``private`` alone: the ping, if the next player is slow,
        goes out later on the freshest carrier. With ``ping_after`` 0 the ping his action caused rides on his
        interaction (issue #14.1 with #17 part 4: interaction calls are not counted against the global limit):
        the public response itself when the private answer can be left out (a discard, a declaration: the
        public line says it all), else a public followup after ``private`` (or when a slow answer was already
        deferred privately). No ping (or one for the actor himself, or for a player who turned pings off):
        just ``private``."""
        try:
            ping = self.claim_ping(applied)
            if ping is None or ping.user_id == interaction.user.id or not await self.wanted(ping):
                await private()
                return
            await ack.settle(interaction)
            if keep_private or interaction.response.is_done():
                await private()
            await self.carry(interaction, ping)
        finally:
            self.remember_carrier(interaction, applied.session, applied)

    def remember_carrier(
        self, interaction: discord.Interaction[Any], session: TableSession, applied: Applied | None = None
    ) -> None:
        """``interaction`` (by a person at the table, making ``applied``) was answered in the table's channel: its
        token is the freshest there."""
        if not interaction.response.is_done() or interaction.channel_id != session.channel_id:
            return  # unanswered (its followups would fail), or elsewhere (a DM's hand panel): not a carrier
        if self.rt.tables.find_in_channel(session.channel_id) is not session:
            return
        self._carriers[session.table_id] = Carrier(interaction, applied, time.monotonic() + TOKEN_LIFE)
        event = self._carrier_added.pop(session.table_id, None)
        if event is not None:
            event.set()

    async def carrier(self, table_id: int, *, applied: Applied | None = None, wait: float = 0.0) -> Carrier | None:
        """The freshest valid token at the table; with ``applied`` (a person's action), first wait up to ``wait``
        seconds for the interaction that made it to be answered, so that it carries what it caused."""
        deadline = time.monotonic() + wait
        while applied is not None and applied.actor is not None and applied.actor > 0:
            found = self._carriers.get(table_id)
            left = deadline - time.monotonic()
            if (found is not None and found.applied is applied) or left <= 0:
                break
            event = self._carrier_added.setdefault(table_id, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), left)
        found = self._carriers.get(table_id)
        if found is None or not found.valid or found.interaction.is_expired():
            return None
        return found

    async def carry(self, interaction: discord.Interaction[Any], ping: TurnPing) -> None:
        """Post ``ping`` publicly through ``interaction`` (the response if unanswered, else a followup)."""
        allowed = mention_only(ping.user_id)

        async def send() -> PostedPing:
            await ack.settle(interaction)
            expires = time.monotonic() + TOKEN_LIFE
            if interaction.response.is_done():
                message = await interaction.followup.send(ping.text, wait=True, allowed_mentions=allowed)
                return PostedPing(
                    ping.channel_id, message.id, lambda: interaction.followup.delete_message(message.id), expires
                )
            callback = await interaction.response.send_message(ping.text, allowed_mentions=allowed)
            return PostedPing(ping.channel_id, callback.message_id or 0, interaction.delete_original_response, expires)

        self.posted(ping, await deliver(send, what=f"turn ping on interaction {interaction.id}"))

    async def wanted(self, ping: TurnPing) -> bool:
        """Whether the player wants channel pings (``/pan settings ping``)."""
        return (await self.rt.settings.get(ping.user_id)).ping is PingMode.TURN

    def posted(self, ping: TurnPing, message: PostedPing) -> None:
        """A ping was posted: it replaces the previous one (deleted)."""
        self.retire_ping(ping.table_id)
        if self.rt.tables.find_in_channel(ping.channel_id) is None:
            self._delete_later(message)  # the table closed meanwhile
            return
        self._posted[ping.table_id] = message

    def retire_ping(self, table_id: int) -> None:
        """Delete the table's ping in the channel (the turn moved on)."""
        old = self._posted.pop(table_id, None)
        if old is not None:
            self._delete_later(old)

    def _delete_later(self, ping: PostedPing) -> None:
        async def delete() -> None:
            try:
                if ping.delete_by_token is not None and time.monotonic() < ping.token_expires:
                    await ping.delete_by_token()
                else:
                    channel = self.rt.bot.get_partial_messageable(ping.channel_id)
                    await channel.get_partial_message(ping.message_id).delete()
            except discord.NotFound:
                pass
            except discord.HTTPException as exc:
                log.info("could not delete a turn ping: %s", exc)

        self.rt.spawn(delete(), name="pan-ping-delete")

    async def _unclaimed(self, ping: TurnPing, wait: float) -> None:
        """No interaction carried the ping at once (the clock, a computer player, a command that does not carry
        it): send it after ``wait``."""
        if wait:
            await asyncio.sleep(wait)
        if self._pings.get(ping.table_id) is not ping:
            return
        del self._pings[ping.table_id]
        await self._send_ping(ping)

    async def _send_ping(self, ping: TurnPing) -> None:
        """Post the ping as a public followup on the table's freshest token (not counted), else to the channel
        (counted). Either way it mentions only the player."""
        if not await self.wanted(ping):
            return
        self.rt.health.count("turn_pings_sent")
        allowed = mention_only(ping.user_id)
        carrier = await self.carrier(ping.table_id)
        if carrier is not None:
            followup = carrier.interaction.followup
            try:
                followed = await followup.send(ping.text, wait=True, allowed_mentions=allowed)
            except discord.HTTPException as exc:
                log.info("could not post a turn ping on interaction %s: %s", carrier.interaction.id, exc)
            else:
                delete = functools.partial(followup.delete_message, followed.id)
                self.posted(ping, PostedPing(ping.channel_id, followed.id, delete, carrier.expires))
                return
        channel = self.rt.bot.get_partial_messageable(ping.channel_id, guild_id=ping.guild_id)
        try:
            message = await channel.send(ping.text, allowed_mentions=allowed)
        except discord.HTTPException as exc:
            log.info("could not post a turn ping: %s", exc)
            return
        self.posted(ping, PostedPing(ping.channel_id, message.id))

    async def _turn_dm(self, ping: TurnPing) -> None:
        prefs = await self.rt.settings.get(ping.user_id)
        if prefs.dm_mode is DmMode.TURN and not prefs.dm_closed:
            channel = self.rt.bot.get_channel(ping.channel_id)
            await send_dm(self.rt.bot, ping.user_id, turn_dm(getattr(channel, "name", None)))

    # -- renders
    def title(self, session: TableSession) -> str:
        channel = self.rt.bot.get_channel(session.channel_id)
        name = getattr(channel, "name", None)
        return session.config.title or table_title(name)

    def clock_line(self, session: TableSession) -> str:
        """The board's countdown: Discord renders ``<t:..:R>`` live, so no edit is needed while it runs."""
        clock = self.rt.clock
        info = clock.turn_info(session.table_id) if clock is not None else None
        if info is None or info.away:
            return ""
        return countdown_line(name_of(self.rt.names, info.player_id), int(info.deadline))

    async def payload(
        self, session: TableSession, lines: list[str], *, priority: Priority = Priority.URGENT
    ) -> tuple[str, discord.File, TableView]:
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
    ) -> tuple[str, discord.File, TableView]:
        """Render the board through the scheduler. The state, lines and text are captured when the job starts
        (``on_capture`` runs then), so a board that waited in the queue shows the latest state."""
        captured: dict[str, Any] = {}
        rt = self.rt

        def capture() -> Any:
            if on_capture is not None:
                on_capture()
            state, notes = session.state, lines()
            title = self.title(session)
            four_color = rt.display.cached(abs(session.guild_id)).four_color  # the server's choice (#14.9)
            snap = table_snapshot(state, rt.names, title=title, notes=notes[-3:], four_color=four_color)
            text = board_text(
                state,
                rt.names,
                title=title,
                lines=notes,
                host_id=session.host_id,
                practice=session.config.practice,
            )
            captured.update(snap=snap, text=text + self.clock_line(session), view=TableView(session))
            return snap

        job = rt.renders.submit(render_table_png, capture, priority=priority)
        if on_queued is not None:
            on_queued(job)
        png = await job
        twin = table_text(captured["snap"])  # the alt text screen readers read; all of it behind Text view
        file = discord.File(io.BytesIO(png), filename="table.png", description=twin[:ALT_TEXT_LIMIT])
        return captured["text"][:2000], file, captured["view"]

    def text_view(self, session: TableSession) -> str:
        """PRIVATE: the board in words (the Text view button): recent events and the image's text twin."""
        board = self.rt.boards.get(session.table_id)
        lines = list(board.lines) if isinstance(board, Board) else []
        snap = table_snapshot(session.state, self.rt.names, title=self.title(session), notes=lines[-3:])
        return board_in_words(lines, table_text(snap))

    # -- Discord faults
    def failed(self, board: Board, error: Exception) -> None:
        """Posting/editing failed after discord.py's own retries: retry, tell the host, or close the table."""
        session = board.session
        table_id = session.table_id
        health = self.rt.health
        with logs.context(guild=session.guild_id, table=table_id):
            if isinstance(error, discord.NotFound) and error.code == 10003:  # Unknown Channel
                self.rt.spawn(self.channel_gone(session.channel_id), name="pan-ops-channel-gone")
                return
            health.record_error(table_id, board_failed(str(error)))
            if isinstance(error, discord.Forbidden):
                health.count("board_forbidden")
                log.warning("missing permissions to post the board in channel %s: %s", session.channel_id, error)
                self.rt.spawn(self._tell_host_permissions(session, error), name="pan-ops-perms")
                return
            attempt = self._retries.get(table_id, 0) + 1
            self._retries[table_id] = attempt
            delay = min(MAX_RETRY_DELAY, 0.5 * 2 ** (attempt - 1))
            health.count("board_retries")
            log.warning("board update failed (%s); re-rendering the latest state in %.1fs", error, delay)
            self.rt.spawn(self._retry(board, delay), name="pan-ops-retry")

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
                returned = await rt.tables.close_system(session.table_id)
            except NoTableHere:
                return
            self.drop(session.table_id)
            rt.health.count("channels_deleted")
            rt.health.forget(session.table_id)
            log.warning("channel deleted: table closed, chips returned %s", returned)
            await send_dm(rt.bot, session.host_id, channel_deleted(returned, rt.names))


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
        self._priority: Priority | None = None  # the most urgent priority asked for since the last capture
        self._job: RenderJob[bytes] | None = None  # this board's render while it waits in the queue
        self._carrier: discord.Interaction[Any] | None = None  # a Start whose token may carry the next new board
        self._carrier_ready = asyncio.Event()
        self._token: tuple[discord.Interaction[Any], int, float] | None = None  # (token, its board, expiry)

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

    async def flush(self) -> None:
        rt = self.runtime
        channel = rt.bot.get_partial_messageable(self.session.channel_id, guild_id=self.session.guild_id)
        summaries, self.summaries = self.summaries, []
        for applied in summaries:
            await self._post_summary(channel, applied)
        if self._closed():
            return
        content, file, view = await self.boards.render(
            self.session,
            lambda: list(self.lines),
            priority=self._priority or Priority.BOARD,
            on_capture=self._captured,
            on_queued=self._queued,
        )
        message_id = self.session.board_message_id
        if self.new_post or message_id is None:
            old_token = self._token_for(message_id)
            message = await self._post_new(channel, content, file, view)
            self.new_post = False
            if self._closed():  # the table closed while this board was drawn and posted: nothing to remember
                return
            await rt.tables.set_board_message(self.session.table_id, message.id)
            if message_id is not None and message_id != message.id:
                await self._strip(channel, message_id, old_token)
        else:
            token = self._token_for(message_id)
            try:
                if token is not None:  # through the token that posted it: not counted against the global limit
                    await token.followup.edit_message(message_id, content=content, attachments=[file], view=view)
                else:
                    await channel.get_partial_message(message_id).edit(content=content, attachments=[file], view=view)
            except discord.NotFound:  # deleted by a moderator: post it again
                message = await channel.send(content, file=file, view=view)
                if not self._closed():
                    await rt.tables.set_board_message(self.session.table_id, message.id)

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

    # -- the board on an interaction's token (#17 part 4): posted by a person's Start, edited through that token
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
        self._token = (interaction, message_id, time.monotonic() + TOKEN_LIFE if expires is None else expires)

    def _token_for(self, message_id: int | None) -> discord.Interaction[Any] | None:
        token = self._token
        if token is None or message_id is None or token[1] != message_id or time.monotonic() >= token[2]:
            return None
        return token[0]

    async def _post_new(
        self, channel: discord.PartialMessageable, content: str, file: discord.File, view: TableView
    ) -> discord.Message:
        carrier = self._carrier
        if carrier is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._carrier_ready.wait(), PING_CLAIM_WAIT)
            carrier, self._carrier = self._carrier, None
        expires: float | None = None
        if carrier is None:  # a deal no Start asked for (a practice table's next hand): the freshest token there
            found = await self.boards.carrier(self.session.table_id)
            carrier, expires = (found.interaction, found.expires) if found is not None else (None, None)
        if carrier is not None and carrier.response.is_done() and not carrier.is_expired():
            fresh = reusable_file(file)
            try:
                message = await carrier.followup.send(content, file=fresh(), view=view, wait=True)
            except discord.HTTPException as exc:
                log.info("could not post the board on interaction %s: %s", carrier.id, exc)
                file = fresh()
            else:
                self.adopt(carrier, message.id, expires)
                return message
        return await channel.send(content, file=file, view=view)

    async def _strip(
        self, channel: discord.PartialMessageable, message_id: int, token: discord.Interaction[Any] | None
    ) -> None:
        """An old board loses its buttons once a new one is posted (issue #14.4): one board to click."""
        try:
            if token is not None:
                await token.followup.edit_message(message_id, view=None)
            else:
                await channel.get_partial_message(message_id).edit(view=None)
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
        """One embed per hand's end (issue #14.4): how it ended, each player's net for the hand, the outcome image
        (its text twin as the alt text)."""
        rt = self.runtime
        ended = next(e for e in applied.events if isinstance(e, HandEnded))
        title = end_text(applied.before if applied.before.hand is not None else applied.state, rt.names, ended)
        embed = discord.Embed(title=hand_over_title(title), colour=discord.Colour.dark_green())
        nets = hand_nets(applied.state, applied.events)  # the outcome image's figures, from the engine
        embed.description = nets_text(applied.state, rt.names, nets)
        snap = outcome_snapshot(
            applied.before,
            applied.state,
            rt.names,
            applied.events,
            title=self.boards.title(self.session),
            four_color=rt.display.cached(abs(self.session.guild_id)).four_color,
        )
        files: list[discord.File] = []
        if snap is not None:
            png = await rt.renders.render(render_outcome_png, snap, priority=Priority.BOARD)
            alt = outcome_text(snap)[:ALT_TEXT_LIMIT]
            embed.set_image(url="attachment://outcome.png")
            files.append(discord.File(io.BytesIO(png), filename="outcome.png", description=alt))
        fresh = [reusable_file(f) for f in files]

        def attached() -> dict[str, Any]:
            return {"files": [f() for f in fresh]} if fresh else {}

        # on the going-out player's token (answered within a moment), else the table's freshest: not counted
        carrier = await self.boards.carrier(self.session.table_id, applied=applied, wait=PING_CLAIM_WAIT)
        if carrier is not None:
            try:
                await carrier.interaction.followup.send(embed=embed, wait=True, **attached())
            except discord.HTTPException as exc:
                log.info("could not post the hand's result on interaction %s: %s", carrier.interaction.id, exc)
            else:
                return
        await channel.send(embed=embed, **attached())
