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
from pancog.services.league import HandDigest, PlayerLine
from renderer import render_table
from tests.e2e.conftest import Pan, PanFactory
from tests.e2e.test_table_commands import play_two
from tests.fakediscord.harness import Reply
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

    board = pan.board().seen().text
    # the board's one line names the players who act; every seat's name is in the image's alt text (plain text)
    read = unescaped(board) + "\n" + "\n".join(a.description for a in pan.board().attachments)
    assert MARKUP in read  # renders as typed
    assert RTL[1:] in read  # the override is dropped, the text kept in order
    assert EMOJI in read
    zero_width_id = players[2].id
    assert f"Player {zero_width_id % 10000}" in read  # nothing visible: the name falls back to a readable one
    leaderboard = next(m for m in messages if m.text.startswith("**Leaderboard"))  # V2: its words are text
    assert MARKUP in unescaped(leaderboard.text) and shown(MARKUP) in leaderboard.text

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


MOD_MARKUP = "<@&2> __u__ ~~s~~ @here"
HOSTILE_TEXT = "**why** <@&4> ||x|| @everyone"


def read_as_shown(reply: Reply) -> str:
    """A reply's text as a reader sees it (Discord's backslash escapes read)."""
    return unescaped(reply.text)


def assert_nothing_obeyed(messages: list[FakeMessage]) -> None:
    """The invariant of every message the bot sent: no mention or Markdown of a name left live, outside code blocks
    (the users a message may notify are its own ``<@id>`` mentions), no bidirectional override."""
    for message in messages:
        parts = message.content.split("```")
        assert len(parts) % 2 == 1, f"a name closed a code block early: {message.content}"
        allowed = (message.allowed_mentions or {}).get("users") or []
        texts = [*parts[::2], *(e.get("description") or "" for e in message.embeds)]
        texts += [e.get("title") or "" for e in message.embeds]
        if message.v2:  # Components V2: the words are in text displays (outside code blocks, like content)
            texts += [t for shown_text in message.seen().texts for t in shown_text.split("```")[::2]]
        for outside in texts:
            for user_id in allowed:
                outside = outside.replace(f"<@{user_id}>", "")
            outside = re.sub(r"(?<!\\)<@\d+>", "", outside)  # the bot's own user mentions (notifying no one)
            assert not UNESCAPED_SYNTAX.search(outside), message.content
            assert not re.search(r"(?<!\\)__u__|(?<!\\)~~s~~|(?<!\\)\*\*why", outside), message.content
            assert "\u202e" not in outside


def flow_hand(payer: int, payee: int, chips: int) -> HandDigest:
    players = [
        PlayerLine(user_id=payee, played=True, won=True, net=chips, biggest=chips),
        PlayerLine(user_id=payer, played=True, net=-chips),
    ]
    return HandDigest(
        table_id=77,
        hand_no=next(_flow_hands),
        reason="out",
        winner=payee,
        players=players,
        flows={(payer, payee): chips},
    )


_flow_hands = iter(range(1, 10**6))


async def test_every_command_that_shows_a_name_escapes_it(hostile: Pan) -> None:
    """A hostile nickname through every command and image that names people: standings, leaderboard, stats (text and
    card), flags and the exclusion's confirmation, the season's start, info, end (champion, roles) and roles retry,
    history, replay, watching, outs, grant, status, close, tournament info (text and standings image). Each answer
    names the player as typed once Discord's escapes are read, and no message leaves a mention or Markdown live."""
    pan = hostile
    a, b = pan.users[:2]
    mod = pan.h.moderator
    mod.name = MOD_MARKUP
    league = pan.rt.league
    assert league is not None
    guild = pan.h.guild.id
    named: dict[str, Reply] = {}  # command -> the answer that must name ``a`` (MARKUP)

    started = await pan.slash(mod, "panadmin season start", name=HOSTILE_TEXT[:60], winner_role=(777, MOD_MARKUP))
    assert shown(MOD_MARKUP, limit=100) in started.text and "**why**" not in started.text.replace("\\*", "")
    await pan.seat(2)
    await play_two(pan)  # a goes out
    for _ in range(40):  # b pays a hand after hand: a one-sided flow the flags name
        await league.record_hand(guild, flow_hand(b.id, a.id, 10))

    named["pan standings"] = await pan.slash(b, "pan standings")
    named["pan leaderboard"] = await pan.slash(b, "pan leaderboard", metric="net", period="season")
    with drawn_texts() as stats_drawn:
        named["pan stats player"] = await pan.slash(b, "pan stats", player=a)
    assert any(text == MARKUP for text, _, _ in stats_drawn), [t for t, _, _ in stats_drawn]
    named["pan stats"] = await pan.slash(a, "pan stats")
    named["panadmin flags"] = await pan.slash(mod, "panadmin flags")
    assert "one-sided chip flow" in named["panadmin flags"].text
    named["panadmin flags exclude"] = await pan.slash(mod, "panadmin flags", exclude=a, reason=HOSTILE_TEXT)
    info = await pan.slash(mod, "panadmin season info")
    named["panadmin season info"] = info
    assert unescaped(shown(MOD_MARKUP)) in read_as_shown(info) and HOSTILE_TEXT in read_as_shown(info)
    named["pan history"] = await pan.slash(a, "pan history")
    named["pan replay"] = await pan.slash(a, "pan replay", hand=1)
    named["panadmin grant"] = await pan.slash(mod, "panadmin grant", user=a, amount=5, reason=HOSTILE_TEXT)

    await pan.slash(a, "pan start")  # hand 2: sharing and the status's "waiting on"
    await pan.slash(a, "pan settings", share_hand=pan.users[2])  # announced at the table, naming a
    announcement = pan.h.last_message()
    assert announcement is not None and MARKUP in unescaped(announcement.content), announcement
    await pan.slash(a, "pan settings", stop_sharing=True)
    named["outs"] = await pan.slash(b, "outs", player=a)
    status = await pan.slash(mod, "panadmin status")
    assert "waiting on" in status.text
    await pan.slash(mod, "panadmin flags", include=a)
    ended = await pan.slash(mod, "panadmin season end")
    named["panadmin season end"] = ended
    assert f"Champion: {shown(MARKUP)}" in ended.text and "Roles: " in ended.text
    named["panadmin season roles"] = await pan.slash(mod, "panadmin season roles")
    closed = await pan.close(a)
    named["pan close"] = closed

    reply = await pan.slash(a, "tourney create", seats=2, buy_in=10, starting_stack=100, level_minutes=60.0)
    assert "tournament" in reply.text.lower()
    await pan.slash(a, "tourney register")
    with drawn_texts() as standings_drawn:
        await pan.slash(b, "tourney register")  # the table is full: it starts
        named["tourney info"] = await pan.slash(b, "tourney info")
    drawn = "|".join(t for t, _, _ in standings_drawn)
    assert "<@&1> **x** ||y||" in drawn, drawn  # the standings image: the name as typed (cut to fit its column)
    assert "Player " not in drawn, drawn  # and the table's board names its players
    assert "\\" not in drawn  # not its escaped form
    image = named["tourney info"].message.attachments[0]
    assert MARKUP in image.description  # the alt text reads it as typed too

    for command, reply in named.items():
        assert MARKUP in read_as_shown(reply), (command, reply.text)
    assert_nothing_obeyed(bot_messages(pan))
