"""Every public message the bot posts is Components V2, except the kinds on the documented allowlist
(docs/architecture.md, "Public messages are Components V2").

The fake records the flags each message had when its channel first saw it (``FakeMessage.posted_flags``); every
Pan end-to-end test checks at teardown (``tests/e2e/conftest.py``) that each public message the bot posted was V2
or is one of the :data:`ALLOWLIST` kinds. A DM with the bot is private and not checked."""

from __future__ import annotations

from collections.abc import Callable

from pancog.adapter.presenters.table import turn_ping
from pancog.game.i18n import LANGUAGES, speaking
from tests.fakediscord.models import FakeMessage
from tests.fakediscord.server import FakeDiscord


def ping_line(message: FakeMessage) -> bool:
    """A turn ping: one line of content, as :func:`turn_ping` writes it in any of the bot's languages, that
    notifies exactly the one member it mentions, and nothing else (no components, embeds or files): a line that
    lives until the turn moves on, with nothing to lay out."""
    allowed = message.allowed_mentions or {}
    users = [int(u) for u in allowed.get("users") or []]
    if len(users) != 1 or allowed.get("parse") != [] or "\n" in message.content:
        return False
    if message.components or message.embeds or message.attachments:
        return False
    endings = set()
    for lang in LANGUAGES:
        with speaking(lang):
            endings |= {turn_ping(users[0], "", declaring=declaring) for declaring in (False, True)}
    return any(message.content.endswith(ending) for ending in endings)


ALLOWLIST: dict[str, Callable[[FakeMessage], bool]] = {"turn ping": ping_line}
"""The public messages that stay classic content, and how each is recognised."""


def classic_posts(fake: FakeDiscord) -> list[str]:
    """Each public message the bot posted as classic content that no :data:`ALLOWLIST` kind covers."""
    found = []
    for message in fake.messages.values():
        if message.author_id != fake.bot_user.id or message.posted_flags is None or message.posted_v2:
            continue
        channel = fake.channels.get(message.channel_id)
        if channel is not None and channel.recipient_id is not None:  # the bot's DM with one member: private
            continue
        if any(kind(message) for kind in ALLOWLIST.values()):
            continue
        where = channel.name if channel is not None else message.channel_id
        shape = "embeds" if message.embeds else "content"
        found.append(f"#{where} ({shape}): {message.text[:100]!r}")
    return found
