"""Gateway events the bot receives and never reads, not parsed.

Every board edit comes back over the gateway as a ``MESSAGE_UPDATE`` (the Guild Messages intent, which the bot needs
for ``MESSAGE_DELETE``: a deleted board is posted again). discord.py builds a whole ``Message`` from each one (author,
embeds, components, attachments) to dispatch ``raw_message_edit``, which nothing in the bot listens for: 2.0 % of
the main process's CPU samples at 150 actions a second, 0.24 % with this (docs/performance.md, "discord.py's
multipart requests in one piece").

:func:`lean_message_updates` puts a parser in front of discord.py's: while no listener, ``wait_for`` or message
cache would see the edit, it does only the part of discord.py's parser that has an effect without one — a view
tracked for that message takes the message's components, as discord.py does — and otherwise hands the event to
discord.py's parser unchanged. A cog that adds ``on_raw_message_edit`` or ``on_message_edit`` gets its events as
before, with no setting to remember.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
from discord.ext import commands

__all__ = ["lean_message_updates"]

_EVENTS = ("raw_message_edit", "message_edit")


def _listened(client: discord.Client) -> bool:
    """Would discord.py's parser do anything visible beyond the view store: a message cache to keep current, or a
    listener (an ``on_`` method, a cog's listener, a ``wait_for``) for either edit event."""
    if getattr(client._connection, "_messages", None) is not None:
        return True
    for event in _EVENTS:
        if client._listeners.get(event) or hasattr(client, "on_" + event):
            return True
        if isinstance(client, commands.Bot) and client.extra_events.get("on_" + event):
            return True
    return False


def lean_message_updates(client: discord.Client) -> bool:
    """Parse ``MESSAGE_UPDATE`` for ``client`` as described above; True if it was put in place."""
    state = client._connection
    parsers: dict[str, Callable[[Any], None]] = state.parsers
    original = parsers.get("MESSAGE_UPDATE")
    if original is None or getattr(original, "lean", False):
        return False

    def message_update(data: Any) -> None:
        if _listened(client):
            original(data)
            return
        if "components" in data:  # as discord.py's parse_message_update, without building the Message
            try:
                entity_id = int(data["interaction"]["id"])
            except (KeyError, ValueError, TypeError):
                entity_id = int(data["id"])
            store = state._view_store
            if store.is_message_tracked(entity_id):
                store.update_from_message(entity_id, data["components"])

    message_update.lean = True  # type: ignore[attr-defined]
    parsers["MESSAGE_UPDATE"] = message_update
    return True
