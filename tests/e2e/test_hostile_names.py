"""Issue 19: names and typed text are shown, never obeyed (mentions, Markdown, control characters).

Four members with hostile display names sit at a table and play; every message the bot sent is checked:
its ``allowed_mentions`` is none or the explicit list of users it names, and the names read exactly as typed
(once Discord's backslash escapes are read) with no mention or Markdown syntax left for Discord to act on.
"""

from __future__ import annotations

import re

import pytest

from pancog.adapter.presenters.table import table_snapshot
from pancog.adapter.safety import code_block, shown, unescaped
from renderer import render_table
from tests.e2e.conftest import Pan, PanFactory
from tests.fakediscord.models import FakeMessage
from tests.renderer.test_image_text import assert_all_drawable, drawn_texts

MARKUP = "<@&1> **x** ||y|| @everyone"
RTL = "\u202e" + "Evil name reads backwards here!"  # 32 characters, the first a right-to-left override
ZERO_WIDTH = "\u200b\u200c\u200d\u2060"
EMOJI = "🂡🃏😀"

UNESCAPED_SYNTAX = re.compile(r"(?<!\\)(<[@#]|@everyone|@here|\*\*x|\|\|y)")
"""User, role and channel mentions, @everyone/@here, and the hostile name's Markdown, not escaped by a
backslash (the bot's own bold, ``**Start**``, and its timestamps are allowed)."""


def bot_messages(pan: Pan) -> list[FakeMessage]:
    bot_id = pan.h.fake.bot_user.id
    return [m for m in pan.h.fake.messages.values() if m.author_id == bot_id and not m.deleted]


def mentions_are_explicit(message: FakeMessage) -> bool:
    """allowed_mentions was sent, parses nothing, and at most lists users (never roles)."""
    allowed = message.allowed_mentions
    return (
        allowed is not None
        and allowed.get("parse", []) == []
        and not allowed.get("roles")
        and all(str(u).isdigit() for u in allowed.get("users", []))
    )


@pytest.fixture
async def hostile(pan_factory: PanFactory) -> Pan:
    pan = await pan_factory()
    for user, name in zip(pan.users, (MARKUP, RTL, ZERO_WIDTH, EMOJI), strict=True):
        user.name = name
    return pan


async def test_hostile_names_are_shown_not_obeyed(hostile: Pan) -> None:
    pan = hostile
    assert len(RTL) == 32
    players = await pan.seat(4)
    await pan.slash(players[0], "pan start")
    for user in players:
        await pan.slash(user, "knock")
    await pan.slash(players[0], "draw")
    await pan.slash(players[0], "pan leaderboard")
    await pan.slash(players[1], "outs", player=players[0])
    await pan.slash(players[2], "force", player=pan.h.moderator)  # "… is not seated" names the member

    messages = bot_messages(pan)
    assert len(messages) >= 10
    not_explicit = [(m.text[:60], m.allowed_mentions) for m in messages if not mentions_are_explicit(m)]
    assert not_explicit == [], not_explicit
    for message in messages:
        parts = message.content.split("```")  # outside code blocks: escaped; inside: shown literally by Discord
        assert len(parts) % 2 == 1, f"a name closed a code block early: {message.content}"
        allowed = (message.allowed_mentions or {}).get("users") or []
        for outside in parts[::2]:
            for user_id in allowed:  # the one member a turn ping names, and may notify, is the bot's own mention
                outside = outside.replace(f"<@{user_id}>", "")
            assert not UNESCAPED_SYNTAX.search(outside), message.content
            assert "\u202e" not in outside and "\u200b" not in outside
        assert "\u202e" not in message.content

    board = pan.board().content
    # the board's one line names the players who act; every seat's name is in the image's alt text (plain text)
    read = unescaped(board) + "\n" + "\n".join(a.description for a in pan.board().attachments)
    assert MARKUP in read  # renders as typed
    assert RTL[1:] in read  # the override is dropped, the text kept in order
    assert EMOJI in read
    zero_width_id = players[2].id
    assert f"Player {zero_width_id % 10000}" in read  # nothing visible: the name falls back to a readable one
    leaderboard = next(m for m in messages if m.content.startswith("**Leaderboard"))
    assert MARKUP in unescaped(leaderboard.content) and shown(MARKUP) in leaderboard.content

    # the board image: the names as typed (override dropped, text in stored order), every glyph in the font
    session = pan.session()
    names = pan.rt.names_of(session.guild_id)
    snap = table_snapshot(session.state, names, title=names[players[0].id], notes=[])
    assert [seat.name for seat in snap.seats] == [MARKUP, RTL[1:], f"Player {zero_width_id % 10000}", EMOJI]
    with drawn_texts() as seen:
        render_table(snap)
    assert_all_drawable(seen)
    assert not any("\u202e" in text or "\u200b" in text for text, _, _ in seen)


async def test_safety_function_contract() -> None:
    """shown(): escapes every Markdown and mention character, drops control/bidi characters, caps the length."""
    assert unescaped(shown(MARKUP)) == MARKUP
    assert not UNESCAPED_SYNTAX.search(shown(MARKUP))
    assert UNESCAPED_SYNTAX.search(MARKUP)  # the check can fail
    assert shown(RTL) == shown(RTL[1:])
    assert shown(ZERO_WIDTH, fallback="Player 1") == "Player 1"
    assert shown(EMOJI) == EMOJI
    assert shown("a\nb\r\n# c") == "a b \\# c"
    assert code_block("x ``` y ```` z").count("```") == 2  # only its own fences
    long = shown("n" * 100)
    assert len(long) == 32 and long.endswith("…")
    for typed in ("> quote", "-# small", "[link](https://x.y)", "<t:0:R>", "</pan open:1>", "<:e:1>", "`code`"):
        assert unescaped(shown(typed, limit=100)) == typed
        assert not shown(typed, limit=100)[0].isalnum()  # the first syntax character is escaped
