"""The built-in kinds of outbox item and their idempotent handlers (see :mod:`pancog.adapter.deliveries`).

==========================  ============================================  ======================================
kind                        payload                                       result
==========================  ============================================  ======================================
``role.grant``              ``role_id``, ``user_id``, ``reason``          ``granted`` / ``had it`` / ``left``
``role.remove``             ``role_id``, ``user_id``, ``reason``          ``removed`` / ``had not`` / ``left``
``message.post``            ``channel_id``, ``content``, ``ping`` (ids)   the posted (V2) message's id
``message.dm``              ``user_id``, ``content``                      the DM's message id
``tourney.event``           ``tournament_id``, ``schedule_id``            the Scheduled Event's id
``tourney.event_status``    ``tournament_id``, ``status`` (2, 3, 4)       the event's status after the move
==========================  ============================================  ======================================

Each handler is safe to run twice for one item (a crash between Discord acting and the item being marked done
delivers it again):

* a role grant reads the member first (``GET /guilds/{g}/members/{u}``, not the cache, which a restart may not
  have filled) and does nothing for a member who has the role already (a removal: who has it not);
* a message carries a nonce derived from the item's key with ``enforce_nonce`` (discord.py sends it whenever
  ``nonce=`` is passed): Discord answers a repeated nonce within a few minutes with the message it created the
  first time, so a retried post is not posted twice. Its id is the item's result.

A service that needs one of these enqueues it (``Outbox.enqueue(tx, key=…, guild_id=…, kind=ROLE_GRANT,
payload=…)``); a new kind registers its handler in :func:`register_builtin`'s style with
``Deliveries.register(kind, handler)``.
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import time
from collections.abc import Callable
from typing import Any

import discord

from pancog.adapter import edge
from pancog.adapter.deliveries import Deliveries, Permanent
from pancog.adapter.errors import pings
from pancog.adapter.layouts import notice
from pancog.adapter.presenters.admin import (
    EFFECT_CANNOT_DM,
    EFFECT_CANNOT_GIVE_ROLE,
    EFFECT_CANNOT_POST,
    EFFECT_NO_EVENTS,
    EFFECT_NO_SERVER,
    EFFECT_NO_SUCH_CHANNEL,
    EFFECT_NO_SUCH_ROLE,
)
from pancog.adapter.presenters.common import WITHHELD
from pancog.adapter.presenters.tournament import tourney_plain_title
from pancog.adapter.presenters.tourney_schedule import event_description, events_refused_notice
from pancog.game import i18n
from pancog.services.outbox import OutboxItem
from pancog.services.tournaments.errors import NoSuchTournament
from pancog.services.tournaments.model import Status, Tournament
from pancog.services.tournaments.schedules import (
    EVENT,
    EVENT_CANCELED,
    EVENT_COMPLETED,
    EVENT_STATUS,
    estimated_end_ms,
)
from pancog.services.tournaments.service import TournamentService

__all__ = [
    "GRANTED",
    "HAD_IT",
    "LEFT",
    "MESSAGE_DM",
    "MESSAGE_POST",
    "ROLE_GRANT",
    "ROLE_REMOVE",
    "nonce_of",
    "register_builtin",
    "register_tourney_events",
    "send_once",
]

log = logging.getLogger("pan.outbox")

ROLE_GRANT = "role.grant"
ROLE_REMOVE = "role.remove"
MESSAGE_POST = "message.post"
MESSAGE_DM = "message.dm"

GRANTED = "granted"
HAD_IT = "had it"
REMOVED = "removed"
HAD_NOT = "had not"
LEFT = "left"

UNKNOWN_MEMBER = 10007
UNKNOWN_ROLE = 10011
UNKNOWN_CHANNEL = 10003
CANNOT_DM = 50007


def nonce_of(key: str) -> str:
    """The message nonce of an outbox key: 20 hex digits of its BLAKE2b hash (Discord allows 25 characters)."""
    return hashlib.blake2b(key.encode(), digest_size=10).hexdigest()


async def send_once(
    client: discord.Client, target: discord.abc.Messageable | int, key: str, content: str | None, **kwargs: Any
) -> discord.Message:
    """Send ``content`` (None: a Components V2 ``view`` carries the words) through the edge (fitted to Discord's
    limits, checked like every payload) to a channel, or to a user's DMs when ``target`` is a user id, so that
    sending it again with the same ``key`` returns the first message instead of posting another (Discord's nonce,
    enforced). For handlers of new kinds that post.

    An outbox message is bot-written text about no table's hands (a season's roles, an announcement)."""
    if isinstance(target, int):
        message = await edge.dm(client, target, content, about=edge.STATIC, nonce=nonce_of(key), **kwargs)
    else:
        message = await edge.post(client, target, content, about=edge.STATIC, nonce=nonce_of(key), **kwargs)
    if message is None:  # withheld by the edge (logged there): sending it again would not change that
        raise Permanent(WITHHELD)
    return message


def _int(payload: Any, name: str) -> int:
    return int(payload[name])


class _Handlers:
    def __init__(self, client: discord.Client) -> None:
        self.client = client

    def _guild(self, item: OutboxItem) -> discord.Guild:
        guild = self.client.get_guild(item.guild_id)
        if guild is None:
            raise Permanent(EFFECT_NO_SERVER, group=f"guild:{item.guild_id}")
        return guild

    @staticmethod
    def role_group(item: OutboxItem) -> str:
        return f"role:{item.guild_id}:{item.payload.get('role_id')}"

    async def grant_role(self, item: OutboxItem) -> str:
        return await self._change_role(item, give=True)

    async def remove_role(self, item: OutboxItem) -> str:
        return await self._change_role(item, give=False)

    async def _change_role(self, item: OutboxItem, *, give: bool) -> str:
        """Give (or take away) the item's role, reading the member first: nothing to do is a result, not a call."""
        guild = self._guild(item)
        role_id, user_id = _int(item.payload, "role_id"), _int(item.payload, "user_id")
        group = self.role_group(item)
        try:
            member = await guild.fetch_member(user_id)  # fresh: a cached member may predate the last change
        except discord.NotFound:
            return LEFT
        has = any(role.id == role_id for role in member.roles) or role_id in getattr(member, "_roles", ())
        if has == give:
            return HAD_IT if give else HAD_NOT
        reason = str(item.payload.get("reason") or "") or None
        try:
            if give:
                await member.add_roles(discord.Object(role_id), reason=reason)
            else:
                await member.remove_roles(discord.Object(role_id), reason=reason)
        except discord.Forbidden as exc:
            raise Permanent(EFFECT_CANNOT_GIVE_ROLE, group=group) from exc
        except discord.NotFound as exc:
            if exc.code == UNKNOWN_MEMBER:
                return LEFT
            raise Permanent(EFFECT_NO_SUCH_ROLE, group=group) from exc
        return GRANTED if give else REMOVED

    async def post(self, item: OutboxItem) -> str:
        channel_id = _int(item.payload, "channel_id")
        channel = self.client.get_partial_messageable(channel_id, guild_id=item.guild_id)
        ping = [int(u) for u in item.payload.get("ping") or ()]
        try:
            view = notice(str(item.payload.get("content") or ""))  # public: Components V2, like every post
            message = await send_once(self.client, channel, item.key, None, view=view, allowed_mentions=pings(ping))
        except discord.Forbidden as exc:
            raise Permanent(EFFECT_CANNOT_POST.format(channel=channel_id), group=f"channel:{channel_id}") from exc
        except discord.NotFound as exc:
            raise Permanent(EFFECT_NO_SUCH_CHANNEL.format(channel=channel_id), group=f"channel:{channel_id}") from exc
        return str(message.id)

    async def dm(self, item: OutboxItem) -> str:
        user_id = _int(item.payload, "user_id")
        try:
            message = await send_once(self.client, user_id, item.key, str(item.payload.get("content") or ""))
        except (discord.Forbidden, discord.NotFound) as exc:  # 50007: the member takes no DMs from the bot
            raise Permanent(EFFECT_CANNOT_DM) from exc
        return str(message.id)


def register_builtin(deliveries: Deliveries) -> None:
    """Register the handlers of :data:`ROLE_GRANT`, :data:`ROLE_REMOVE`, :data:`MESSAGE_POST` and
    :data:`MESSAGE_DM`."""
    handlers = _Handlers(deliveries.client)
    deliveries.register(ROLE_GRANT, handlers.grant_role, group=handlers.role_group)
    deliveries.register(ROLE_REMOVE, handlers.remove_role, group=handlers.role_group)
    deliveries.register(MESSAGE_POST, handlers.post, group=lambda i: f"channel:{i.payload.get('channel_id')}")
    deliveries.register(MESSAGE_DM, handlers.dm)


# ---------------------------------------------------------------------- Discord Scheduled Events of tournaments

EVENT_MARK = "#{tid}"
"""The last line of an event's description: finds the event again after a kill between Discord creating it and its
id being stored (the list of the guild's events is read before a second creation)."""
LOCATION_MAX = 100  # an external event's location (the link): Discord's limit


def jump_url(guild_id: int, channel_id: int, message_id: int | None = None) -> str:
    """The link to the announcement (or, before it exists, to its channel)."""
    url = f"https://discord.com/channels/{guild_id}/{channel_id}"
    return url if message_id is None else f"{url}/{message_id}"


class _EventHandlers:
    """Create a tournament's Scheduled Event (external: a link to its announcement) and move its status."""

    def __init__(self, deliveries: Deliveries, service: TournamentService, language: Callable[[int], str]) -> None:
        self.client = deliveries.client
        self.outbox = deliveries.outbox
        self.service = service
        self.schedules = service.schedules
        self.language = language  # a guild's public language

    async def _tournament(self, item: OutboxItem) -> Tournament:
        try:
            return await self.service.finished(_int(item.payload, "tournament_id"))
        except NoSuchTournament as exc:
            raise Permanent(str(exc)) from exc

    async def create(self, item: OutboxItem) -> str:
        tid = _int(item.payload, "tournament_id")
        stored, _ = await self.schedules.event_of(tid)
        if stored is not None:  # created and stored: never a second one
            return str(stored)
        t = await self._tournament(item)
        start = t.config.start_at_ms or 0
        if t.status not in (Status.ANNOUNCED, Status.REGISTERING) or start <= time.time() * 1000 + 5_000:
            return TOO_LATE  # Discord refuses an event that starts in the past
        guild = self._guild(item)
        mark = EVENT_MARK.format(tid=tid)
        for found in await guild.fetch_scheduled_events(with_counts=False):  # a kill after Discord created it
            if found.creator_id == self.client.user.id and (found.description or "").endswith(mark):  # type: ignore[union-attr]
                await self.schedules.remember_event(tid, found.id)
                return str(found.id)
        link = jump_url(t.guild_id, *(t.announcement or (t.channel_id, None)))
        if len(link) > LOCATION_MAX:
            link = jump_url(t.guild_id, t.channel_id)
        with i18n.speaking(self.language(t.guild_id)):  # what members read: the server's language
            description = event_description(t.config, link)[: 990 - len(mark)] + "\n" + mark
            name = tourney_plain_title(t.config.title, tid)
        try:
            event = await guild.create_scheduled_event(
                name=name,
                description=description,
                start_time=datetime.datetime.fromtimestamp(start / 1000, datetime.UTC),
                end_time=datetime.datetime.fromtimestamp(estimated_end_ms(t.config) / 1000, datetime.UTC),
                entity_type=discord.EntityType.external,
                privacy_level=discord.PrivacyLevel.guild_only,
                location=link,
            )
        except discord.Forbidden as exc:  # no Manage Events: the tournament goes on; the host is told once
            await self._refused(item, t)
            raise Permanent(EFFECT_NO_EVENTS, group=f"events:{item.guild_id}") from exc
        await self.schedules.remember_event(tid, event.id)
        return str(event.id)

    async def _refused(self, item: OutboxItem, t: Tournament) -> None:
        schedule_id = int(item.payload.get("schedule_id") or 0)
        if not await self.schedules.refused_first(schedule_id):
            return
        channel = self.client.get_partial_messageable(t.channel_id, guild_id=t.guild_id)
        with i18n.speaking(self.language(t.guild_id)):
            view = notice(events_refused_notice(t.host_id))
        try:
            await send_once(
                self.client, channel, item.key + ":refused", None, view=view, allowed_mentions=pings([t.host_id])
            )
        except discord.HTTPException:
            log.warning("tournament %s: the Manage Events notice could not be posted", t.tournament_id)

    async def status(self, item: OutboxItem) -> str:
        tid, wanted = _int(item.payload, "tournament_id"), _int(item.payload, "status")
        event_id, _ = await self.schedules.event_of(tid)
        if event_id is None:
            creations = await self.outbox.items(item.guild_id, prefix="sched:", kind=EVENT)
            if any(c.status == "owed" and c.payload.get("tournament_id") == tid for c in creations):
                raise RuntimeError("the event is not created yet")  # transient: retried after its creation
            return NO_EVENT
        guild = self._guild(item)
        try:
            event = await guild.fetch_scheduled_event(event_id)
        except discord.NotFound:
            return NO_EVENT  # deleted by a moderator
        try:
            return await _move(event, wanted)
        except discord.Forbidden as exc:
            raise Permanent(EFFECT_NO_EVENTS, group=f"events:{item.guild_id}") from exc

    def _guild(self, item: OutboxItem) -> discord.Guild:
        guild = self.client.get_guild(item.guild_id)
        if guild is None:
            raise Permanent(EFFECT_NO_SERVER, group=f"guild:{item.guild_id}")
        return guild


TOO_LATE = "too late"
NO_EVENT = "no event"


async def _move(event: discord.ScheduledEvent, wanted: int) -> str:
    """Discord's order: scheduled -> active -> completed, or scheduled -> canceled (a started event cannot be
    canceled: it is completed)."""
    status = event.status
    if status in (discord.EventStatus.completed, discord.EventStatus.cancelled):
        return str(status.value)
    if wanted == EVENT_CANCELED and status is discord.EventStatus.scheduled:
        event = await event.cancel()
    else:
        if status is discord.EventStatus.scheduled:
            event = await event.start()
        if wanted in (EVENT_COMPLETED, EVENT_CANCELED):
            event = await event.end()
    return str(event.status.value)


def register_tourney_events(deliveries: Deliveries, service: TournamentService, language: Callable[[int], str]) -> None:
    """Register the handlers of :data:`~pancog.services.tournaments.schedules.EVENT` and
    :data:`~pancog.services.tournaments.schedules.EVENT_STATUS` (``language(guild_id)``: the server's language)."""
    handlers = _EventHandlers(deliveries, service, language)
    deliveries.register(EVENT, handlers.create)
    deliveries.register(EVENT_STATUS, handlers.status)
