"""The docs name only what the bot registers, and the invite asks for what its features use.

Every command the docs (``docs/**/*.md`` and ``README.md``) name — a code span such as ```/pan open [stakes]```,
```/panadmin season start name [length]```, ```/meld cards: 5S 5S```, ```/pan settings ping:off```, or a ``/knock``
in the prose — is walked through the command tree the real bot synced to the fake Discord (the ``PUT`` of its
commands): the command, every subcommand, every option name (``name:``, ``[name]`` or a bare word of a signature) and
every choice written as a value (``ping:off``) must exist there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import discord as discord_py
import pytest

from pancog.adapter.invite import INVITE_PERMISSIONS, invite_url
from tests.fakediscord.harness import Harness

ROOT = Path(__file__).resolve().parents[2]
DOCS = (*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md")
# file-system and HTTP paths, and words after a slash
NOT_COMMANDS = {"proc", "tmp", "api", "identity", "constructors", "metrics", "healthz"}
ELLIPSIS = {"…", "..."}
SPAN = re.compile(r"`([^`\n]+(?:\n[^`\n]+)?)`")  # a code span (it may wrap onto a second line)
FENCE = re.compile(r"```.*?```", re.S)
PROSE = re.compile(r"(?<![\w/.:~\\-])/([a-z][a-z_]*)(?![\w/.-])")
OPTION = re.compile(r"([a-z_0-9]+):(.*)")
WORD = re.compile(r"[a-z_]+")
SUBCOMMAND, GROUP = 1, 2

Command = Mapping[str, Any]


def mentions(text: str) -> Iterator[tuple[str, bool]]:
    """(mention, whole span?) for every command named in a Markdown text: code spans that start with ``/word``
    (``True``: checked whole), and ``/word`` in the prose (``False``: only the command's name is checked, the next
    word being English)."""
    unfenced = FENCE.sub(" ", text)
    for match in SPAN.finditer(unfenced):
        span = " ".join(match.group(1).split())
        head = span.split(" ", 1)[0]
        if re.fullmatch(r"/[a-z][a-z_]*", head) and head[1:] not in NOT_COMMANDS:
            yield span, True
    for match in PROSE.finditer(SPAN.sub(" ", unfenced)):
        if match.group(1) not in NOT_COMMANDS:
            yield match.group(0), False
    for block in FENCE.findall(text):  # a command typed on a line of its own
        for line in block.splitlines():
            if re.match(r"\s*/[a-z][a-z_]*(\s|$)", line) and line.split()[0][1:] not in NOT_COMMANDS:
                yield line.strip(), True


def problems(span: str, commands: Mapping[str, Command], *, whole: bool = True) -> list[str]:
    """What in ``span`` the synced tree does not have (empty: everything it names is registered)."""
    tokens = span.split()
    name = tokens[0][1:]
    command = commands.get(name)
    if command is None:
        return [f"/{name} is not a registered command"]
    if not whole:
        return []
    rest = tokens[1:]
    path = f"/{name}"
    while rest and any(o["type"] in (SUBCOMMAND, GROUP) for o in command.get("options", ())):
        word = rest[0].strip("[]")
        if word in ELLIPSIS:
            return []  # "/pan …": any subcommand
        sub = next((o for o in command["options"] if o["name"] == word and o["type"] in (SUBCOMMAND, GROUP)), None)
        if sub is None:
            return [f"{path} has no subcommand {word!r}"]
        command, rest, path = sub, rest[1:], f"{path} {word}"
    options = {o["name"]: o for o in command.get("options", ()) if o["type"] not in (SUBCOMMAND, GROUP)}
    choices = {str(c["value"]) for o in options.values() for c in o.get("choices", ())}
    found: list[str] = []
    awaiting_value = False  # after "cards:" the next words are its value (5S 5S)
    for raw in rest:
        bracketed = raw.startswith("[") or raw.endswith("]")  # "[name]" / "[exclude reason]": option names
        for token in raw.strip("[]").split("]["):
            if token in ELLIPSIS or not token:
                awaiting_value = False
                continue
            option = OPTION.fullmatch(token)
            if option and WORD.fullmatch(option.group(1)):
                key, value = option.groups()
                if key not in options:
                    found.append(f"{path} has no option {key!r}")
                elif value and WORD.fullmatch(value) and options[key].get("choices"):
                    allowed = {str(c["value"]) for c in options[key]["choices"]}
                    if value not in allowed:
                        found.append(f"{path} {key}: has no choice {value!r} (only {sorted(allowed)})")
                awaiting_value = not value
                continue
            if bracketed and WORD.fullmatch(token) and token not in options:
                found.append(f"{path} has no option {token!r}")
            elif WORD.fullmatch(token) and not awaiting_value and token not in options and token not in choices:
                found.append(f"{path} has no option or choice {token!r}")
    return found


def synced_tree(h: Harness) -> dict[str, Command]:
    """The commands as the bot last PUT them to the fake Discord (what the fake stored from the request, as Discord
    would show them; the bot syncs to its test guild)."""
    puts = [c for c in h.fake.calls if c.method == "PUT" and c.route.endswith("/commands")]
    assert puts, "the bot synced no command tree"
    body = h.fake.guild_commands.get(h.guild.id) or h.fake.global_commands
    assert body
    return {c["name"]: c for c in body}


async def test_every_command_the_docs_name_is_registered(discord: Harness) -> None:
    commands = synced_tree(discord)
    checked: list[str] = []
    wrong: list[str] = []
    for path in DOCS:
        for span, whole in mentions(path.read_text(encoding="utf-8")):
            checked.append(span)
            wrong += [f"{path.relative_to(ROOT)}: `{span}`: {p}" for p in problems(span, commands, whole=whole)]
    assert not wrong, "\n".join(wrong)
    assert len(checked) > 150  # the parser found the docs' commands (not a vacuous pass)
    named = {span.split()[0][1:] for span in checked}
    assert named >= {"pan", "panadmin", "tourney", "knock", "meld", "outs"}


def test_the_checker_finds_what_is_not_registered() -> None:
    """The checker itself, on a small tree: a wrong command, subcommand, option or choice is found; a signature, an
    option's value and an ellipsis are not mistaken for one."""
    tree: dict[str, Command] = {
        "pan": {
            "name": "pan",
            "options": [
                {
                    "type": SUBCOMMAND,
                    "name": "settings",
                    "options": [{"type": 3, "name": "ping", "choices": [{"name": "on turn", "value": "turn"}]}],
                },
                {
                    "type": GROUP,
                    "name": "season",
                    "options": [{"type": SUBCOMMAND, "name": "start", "options": [{"type": 3, "name": "name"}]}],
                },
            ],
        },
        "meld": {"name": "meld", "options": [{"type": 3, "name": "cards"}]},
    }
    fine = ["/pan", "/pan …", "/pan settings ping:turn", "/pan settings [ping]", "/pan season start name", "/meld"]
    fine += ["/meld cards: 5S 5S", "/pan season", "/pan settings ping:"]
    for span in fine:
        assert problems(span, tree) == [], span
    assert problems("/hand", tree) == ["/hand is not a registered command"]
    assert problems("/pan config", tree) == ["/pan has no subcommand 'config'"]
    assert problems("/pan settings [sort]", tree) == ["/pan settings has no option 'sort'"]
    assert problems("/pan settings ping:off", tree) == ["/pan settings ping: has no choice 'off' (only ['turn'])"]
    assert problems("/pan season start name length", tree) == ["/pan season start has no option or choice 'length'"]
    assert problems("/pan config", tree, whole=False) == []  # prose: the command's name only
    text = "Use `/pan settings\n  ping:turn` or /meld; files live in /tmp/pan and `/proc/1/status`, and/or 50/s."
    assert list(mentions(text)) == [("/pan settings ping:turn", True), ("/meld", False)]


# -- the invite


FEATURES_NEED = {
    "view_channel": "see the table's channel",
    "send_messages": "the board, the end-of-hand summary, turn pings",
    "send_messages_in_threads": "tables in threads, tournament tables",
    "create_public_threads": "a thread per tournament table",
    "manage_threads": "archive and lock a tournament's table threads",
    "embed_links": "the end-of-hand embed, the guide",
    "attach_files": "table, hand, replay and standings images",
    "read_message_history": "edit its board in place",
    "manage_roles": "season and tournament winner roles",
    "manage_events": "scheduled tournaments published as Discord events",
}


def test_the_invite_asks_for_what_the_features_use() -> None:
    assert discord_py.Permissions(**dict.fromkeys(FEATURES_NEED, True)) == INVITE_PERMISSIONS
    assert not INVITE_PERMISSIONS.mention_everyone and not INVITE_PERMISSIONS.administrator
    url = urlparse(invite_url(1234))
    query = parse_qs(url.query)
    assert query["client_id"] == ["1234"] and set(query["scope"][0].split()) == {"bot", "applications.commands"}
    assert query["permissions"] == [str(INVITE_PERMISSIONS.value)]


def test_the_admin_guide_gives_the_same_invite() -> None:
    """docs/admin.md: the permissions number is the bot's, every permission is listed, the Application ID explained."""
    admin = (ROOT / "docs" / "admin.md").read_text(encoding="utf-8")
    assert f"permissions={INVITE_PERMISSIONS.value}" in admin
    for name in FEATURES_NEED:
        label = name.replace("_", " ").title().replace("In Threads", "in Threads")
        assert label in admin, label
    assert "Application ID" in admin


async def test_the_bot_prints_its_invite(discord: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """At start-up the bot logs its own invite link, with its Application ID filled in."""
    caplog.set_level("INFO", logger="pan.bot")
    await discord.restart()
    app_id = discord.bot.application_id
    assert app_id == discord.fake.application_id
    printed = [r.getMessage() for r in caplog.records if "oauth2/authorize" in r.getMessage()]
    assert printed and invite_url(app_id) in printed[-1]
    assert f"client_id={app_id}" in printed[-1]
