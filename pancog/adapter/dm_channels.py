"""Each player's DM channel, opened once per process rather than once per DM.

discord.py sends a DM through the DM channel it keeps for that user, and keeps at most **128** of them (its
``ConnectionState._private_channels``, first in first out); for any other user ``Client.create_dm`` asks Discord
again (``POST /users/@me/channels``). A bot whose tables seat more than 128 people who get DMs (every hand is
dealt by DM: a process with 40 tables of 4 already has 160) so made two requests for each DM, and both count
against the **global** 50 requests a second that every process of a cluster shares (an interaction's answer and a
board edit through its token do not). At 150 actions a second over 90 tables (360 players) the re-opened channels
were ~6 of the ~11 counted requests a second (docs/performance.md, "Each player's DM channel opened once").

A user's DM channel with the bot never changes, so :class:`DmChannels` remembers its id (user id -> channel id,
least recently used first out, ``DM_CHANNELS_MAX`` of them: two ints and an ordered-dict entry each, 2.7 MB full by
tracemalloc) and :func:`pancog.adapter.edge.dm` sends through a partial channel of that id (opening a channel stays
in the edge, with every other call to Discord). A channel Discord no longer knows (404) is forgotten and opened
again once. The cache is per process: another process of a cluster, or this one after a restart, opens a
channel once for itself.
"""

from __future__ import annotations

import collections
import weakref

import discord

__all__ = ["DM_CHANNELS_MAX", "DmChannels", "dm_channels"]

DM_CHANNELS_MAX = 16_384
"""DM channel ids kept per process (a user id and a channel id each)."""


class DmChannels:
    """User id -> that user's DM channel id with the bot, the most recently used kept."""

    __slots__ = ("_ids", "limit")

    def __init__(self, limit: int = DM_CHANNELS_MAX) -> None:
        self.limit = limit
        self._ids: collections.OrderedDict[int, int] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._ids)

    def get(self, user_id: int) -> int | None:
        """The user's remembered DM channel id (now the most recently used), or None."""
        channel_id = self._ids.get(user_id)
        if channel_id is not None:
            self._ids.move_to_end(user_id)
        return channel_id

    def remember(self, user_id: int, channel_id: int) -> None:
        self._ids[user_id] = channel_id
        self._ids.move_to_end(user_id)
        while len(self._ids) > self.limit:
            self._ids.popitem(last=False)

    def known(self, user_id: int) -> bool:
        return user_id in self._ids

    def forget(self, client: discord.Client, user_id: int) -> None:
        """Forget the user's channel here and in discord.py's own cache, so that the next DM opens it again."""
        self._ids.pop(user_id, None)
        state = client._connection
        stale = state._get_private_channel_by_user(user_id)
        if stale is not None:
            state._remove_private_channel(stale)


_BY_CLIENT: weakref.WeakKeyDictionary[discord.Client, DmChannels] = weakref.WeakKeyDictionary()


def dm_channels(client: discord.Client) -> DmChannels:
    """The client's DM channels (one cache per client, gone with it)."""
    found = _BY_CLIENT.get(client)
    if found is None:
        found = _BY_CLIENT[client] = DmChannels()
    return found
