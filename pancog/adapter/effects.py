"""The built-in kinds of outbox item and their idempotent handlers (see :mod:`pancog.adapter.deliveries`).

==================  ============================================  ==============================================
kind                payload                                       result
==================  ============================================  ==============================================
``role.grant``      ``role_id``, ``user_id``, ``reason``          ``granted`` / ``had it`` / ``left``
``role.remove``     ``role_id``, ``user_id``, ``reason``          ``removed`` / ``had not`` / ``left``
``message.post``    ``channel_id``, ``content``, ``ping`` (ids)   the posted (V2) message's id
``message.dm``      ``user_id``, ``content``                      the DM's message id
==================  ============================================  ==============================================

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

import hashlib
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
    EFFECT_NO_SERVER,
    EFFECT_NO_SUCH_CHANNEL,
    EFFECT_NO_SUCH_ROLE,
)
from pancog.adapter.presenters.common import WITHHELD
from pancog.services.outbox import OutboxItem

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
    "send_once",
]

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
