"""The command tree the real bot syncs: exactly the recorded snapshot (names, options, descriptions, permissions,
contexts), so a change of how commands are registered can never change what Discord shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakediscord.harness import Harness

SNAPSHOT = Path(__file__).with_name("command_tree.json")
VOLATILE = ("id", "application_id", "version", "guild_id")  # what the fake (Discord) adds to each synced command


def synced_tree(h: Harness) -> list[dict[str, Any]]:
    """Every command the bot synced (global, then the test guild's), as it sent them: the fake's volatile keys
    dropped."""
    found = [*h.fake.global_commands, *h.fake.guild_commands.get(h.guild.id, [])]
    return [{k: v for k, v in command.items() if k not in VOLATILE} for command in found]


async def test_the_synced_command_tree_is_the_snapshot(harness: Harness) -> None:
    """The tree the bot PUTs to the fake equals tests/e2e/command_tree.json, order included."""
    tree = synced_tree(harness)
    assert tree, "the bot synced no command"
    if not SNAPSHOT.exists():  # a deliberate change of the commands: record it, review the diff, commit it
        SNAPSHOT.write_text(json.dumps(tree, indent=1, sort_keys=True) + "\n")
        pytest.fail(f"recorded the synced command tree in {SNAPSHOT.name}: review the diff and commit it")
    assert tree == json.loads(SNAPSHOT.read_text())


async def test_every_command_is_a_cog_method_in_a_declared_group(harness: Harness) -> None:
    """The one registration style, as the bot runs: every command on the tree is a method of one of the declared
    cogs (``extension.cogs()``), in the group its ``extras`` names (or top level without one); every group is one
    declared in pancog/adapter/groups.py, made once by the composition root."""
    from discord import app_commands

    from pancog.adapter.base import PanCog
    from pancog.adapter.groups import GROUPS
    from pancog.adapter.runtime import runtime_of

    bot = harness.bot
    rt = runtime_of(bot)
    leaves: list[app_commands.Command[Any, ..., Any]] = []
    groups: list[app_commands.Group] = []
    for command in bot.tree.walk_commands():
        (groups if isinstance(command, app_commands.Group) else leaves).append(command)  # type: ignore[arg-type]
    assert {g.qualified_name for g in groups} == {spec.name for spec in GROUPS}
    assert {id(g) for g in groups} == {id(g) for g in rt.groups.attached()}  # the root's, not a cog's own
    for command in leaves:
        assert isinstance(command.binding, PanCog), command.qualified_name
        assert command.module is not None and command.module.startswith("pancog.adapter."), command.qualified_name
        group = command.extras.get("group")
        assert (command.parent.qualified_name if command.parent else None) == group, command.qualified_name
    by_cog = {type(c.binding).__name__ for c in leaves}
    assert by_cog == {
        "TableCog",
        "BankCog",
        "PlayCog",
        "OpsCog",
        "PracticeCog",
        "AdminCog",
        "ReplayCog",
        "LeagueCog",
        "TourneyCog",
        "TourneyPlayCog",
        "TourneyPurseCog",
        "TourneyScheduleCog",
    }
    synced = synced_tree(harness)
    assert {c["name"] for c in synced} == {c.name for c in bot.tree.get_commands()}
    assert len(leaves) == sum(map(leaf_count, synced))  # every synced command is one of these


def leaf_count(command: dict[str, Any]) -> int:
    """How many commands a synced command holds (a group: its subcommands, at any depth)."""
    subs = [o for o in command.get("options", []) if o.get("type") in (1, 2)]  # subcommand, subcommand group
    return sum(map(leaf_count, subs)) if subs else 1


async def test_every_component_verb_has_its_one_handler(harness: Harness) -> None:
    """The verb table the root builds answers exactly the verbs the buttons and selects carry in their custom_id."""
    from pancog.adapter.board import BUTTONS
    from pancog.adapter.runtime import runtime_of

    carried = {*BUTTONS, "play", "discard"}  # the board's buttons and My hand's selects (pan:t:<table>:<verb>)
    carried |= {f"{verb}!{choice}" for verb in ("leave", "close") for choice in ("yes", "no")}  # confirmations
    carried |= {"replay", "watch", "tny_register", "tny_unregister"}  # replays, a shared hand, tournaments
    carried |= {"tnd_accept", "tnd_decline", "tnc_checkin"}  # a tournament's deal and check-in
    assert set(runtime_of(harness.bot).handlers) == carried
