"""Turn pings, and the interaction tokens that carry them.

When the turn moves to a person, one short public line mentions them (and only them). With the server's
``ping_after`` grace it waits and is dropped unsent if they act first. A ping goes out, in order of preference, on
the acting player's own answer, as a followup on the freshest answered interaction at the table (a
:class:`Carrier`: interaction calls are not counted against Discord's global limit), or to the channel. The
ping in the channel is deleted when the turn moves on. :class:`Pings` is driven by the board's table-service
listener (:meth:`pancog.adapter.board.Boards.on_applied`); the boards borrow its carriers for their own posts.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

from pancog.adapter import ack, edge
from pancog.adapter.errors import deliver, send_dm
from pancog.adapter.presenters.table import headline, turn_dm, turn_ping
from pancog.adapter.presenters.table_events import describe_events
from pancog.adapter.runtime import PanRuntime
from pancog.game import engine
from pancog.game.events import HandStarted
from pancog.game.state import Phase
from pancog.services.prefs import DmMode, PingMode
from pancog.services.tables import Applied, TableSession

__all__ = ["PING_CLAIM_WAIT", "TOKEN_LIFE", "Carrier", "Pings", "PostedPing", "TurnPing", "mention_only"]

log = logging.getLogger("pan.views")

PING_CLAIM_WAIT = 1.0  # how long a turn ping waits for the acting player's interaction to carry it
TOKEN_LIFE = 14 * 60.0  # an interaction token works for 15 minutes; delete through it until shortly before


def mention_only(user_id: int) -> discord.AllowedMentions:
    """Notify exactly this member (nobody else, no role, no @everyone), whatever the message says."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=[discord.Object(user_id)])


@dataclass(eq=False, slots=True)
class TurnPing:
    """A turn moved to a person: the short public line that mentions them.

    With the server's ``ping_after`` grace (default 5 s) it waits: if the player acts first, it is dropped
    unsent (no call at all); else it goes out as a public followup on the freshest interaction token at the
    table (:class:`Carrier`, not counted), or to the channel (counted) when no token is valid. With
    ``ping_after`` 0 it is carried by the acting player's own answer (``Pings.claim_ping``), or sent after
    ``PING_CLAIM_WAIT``. Adaptive: a person pinged after the grace is pinged at once (as with 0) at his next
    turns, until he acts within the grace of such a ping."""

    table_id: int
    channel_id: int
    guild_id: int
    user_id: int
    text: str
    applied: Applied
    grace: float = 0.0
    started: float = 0.0  # Pings.now() when the turn came to the player
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


class Pings:
    """Every open table's turn ping (waiting for its grace, or posted in the channel) and its carriers."""

    def __init__(self, runtime: PanRuntime) -> None:
        self.rt = runtime
        self._pings: dict[int, TurnPing] = {}  # table -> the ping waiting for a carrier
        self._posted: dict[int, PostedPing] = {}  # table -> the ping in the channel now
        self._carriers: dict[int, Carrier] = {}  # table -> the freshest answered interaction there
        self._slow: set[tuple[int, int]] = set()  # (table, person) pinged after the grace: pinged at once next turn
        self._at_once: dict[int, TurnPing] = {}  # table -> a slow person's at-once ping: is he back?
        self.now: Callable[[], float] = time.monotonic  # the pace clock (injectable: tests)
        self._carrier_added: dict[int, asyncio.Event] = {}

    def forget(self, table_id: int) -> None:
        """The table closed: its ping goes too, with its carriers and the pace of its players."""
        self._drop_pending(table_id)
        self.retire_ping(table_id)
        self._carriers.pop(table_id, None)
        self._carrier_added.pop(table_id, None)
        self._at_once.pop(table_id, None)
        self._slow = {key for key in self._slow if key[0] != table_id}

    def grace(self, session: TableSession) -> float:
        """Seconds the person to act may take before the ping goes out (the server's ``ping_after``)."""
        return self.rt.display.cached(session.guild_id).ping_after

    def turn_moved(self, applied: Applied) -> None:
        """The table service committed ``applied``: if the turn moved to a person, that person's ping is due."""
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
        what = describe_events(before, after, self.rt.names_at(applied.session), applied.events)
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
        self.rt.tasks.spawn(self._unclaimed(ping, PING_CLAIM_WAIT if human_actor else 0.0), name="pan-ping")
        self.rt.tasks.spawn(self._turn_dm(ping), name="pan-turn-dm")

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
        self.rt.tasks.spawn(self._send_ping(ping), name="pan-ping")
        self.rt.tasks.spawn(self._turn_dm(ping), name="pan-turn-dm")

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

    async def answer(
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
        interaction (interaction calls are not counted against the global limit):
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
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: wait_for can drop a cancel on 3.11
                async with asyncio.timeout(left):
                    await event.wait()
        found = self._carriers.get(table_id)
        if found is None or not found.valid or found.interaction.is_expired():
            return None
        return found

    async def carry(self, interaction: discord.Interaction[Any], ping: TurnPing) -> None:
        """Post ``ping`` publicly through ``interaction`` (the response if unanswered, else a followup)."""
        allowed = mention_only(ping.user_id)

        about = self._about(ping)

        async def send() -> PostedPing | None:
            await ack.settle(interaction)
            expires = time.monotonic() + TOKEN_LIFE
            if interaction.response.is_done():
                message = await edge.followup(interaction, ping.text, about=about, allowed_mentions=allowed)
                if message is None:  # withheld by the edge (logged there)
                    return None
                return PostedPing(
                    ping.channel_id,
                    message.id,
                    functools.partial(edge.delete_followup, interaction, message.id),
                    expires,
                )
            answered = await edge.respond(
                interaction, ping.text, ephemeral=False, about=about, allowed_mentions=allowed
            )
            message_id = answered.id if answered is not None else 0
            return PostedPing(
                ping.channel_id, message_id, functools.partial(edge.delete_original, interaction), expires
            )

        posted = await deliver(send, what=f"turn ping on interaction {interaction.id}")
        if posted is not None:
            self.posted(ping, posted)

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
                    await edge.delete(channel.get_partial_message(ping.message_id))
            except discord.NotFound:
                pass
            except discord.HTTPException as exc:
                log.info("could not delete a turn ping: %s", exc)

        self.rt.tasks.spawn(delete(), name="pan-ping-delete")

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
        about = self._about(ping)
        if carrier is not None:
            token = carrier.interaction
            try:
                followed = await edge.followup(token, ping.text, about=about, allowed_mentions=allowed)
            except discord.HTTPException as exc:
                log.info("could not post a turn ping on interaction %s: %s", token.id, exc)
            else:
                if followed is not None:
                    delete = functools.partial(edge.delete_followup, token, followed.id)
                    self.posted(ping, PostedPing(ping.channel_id, followed.id, delete, carrier.expires))
                return
        channel = self.rt.bot.get_partial_messageable(ping.channel_id, guild_id=ping.guild_id)
        try:
            message = await edge.post(self.rt.bot, channel, ping.text, about=about, allowed_mentions=allowed)
        except discord.HTTPException as exc:
            log.info("could not post a turn ping: %s", exc)
            return
        if message is not None:
            self.posted(ping, PostedPing(ping.channel_id, message.id))

    def _about(self, ping: TurnPing) -> edge.About:
        """A ping is about its table as the play it names left it."""
        return edge.about(ping.applied.session, state=ping.applied.state)

    async def _turn_dm(self, ping: TurnPing) -> None:
        prefs = await self.rt.settings.get(ping.user_id)
        if prefs.dm_mode is DmMode.TURN and not prefs.dm_closed:
            channel = self.rt.bot.get_channel(ping.channel_id)
            await send_dm(self.rt.bot, ping.user_id, turn_dm(getattr(channel, "name", None)))
