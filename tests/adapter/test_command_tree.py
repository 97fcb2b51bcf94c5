"""The command tree the real bot syncs: exactly the recorded snapshot (names, options, descriptions, permissions,
contexts), so a change of how commands are registered can never change what Discord shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakediscord.harness import Harness

SNAPSHOT = Path(__file__).with_name("command_tree.json")
VOLATILE = ("id", "application_id", "version", "guild_id")  # what the fake (Discord) adds to each synced command


def synced_tree(h: Harness) -> list[dict[str, Any]]:
    """Every command the bot synced (global, then the test guild's), as it sent them: the fake's volatile keys
    dropped."""
    found = [*h.fake.global_commands, *h.fake.guild_commands.get(h.guild.id, [])]
    return [{k: v for k, v in command.items() if k not in VOLATILE} for command in found]


async def test_the_synced_command_tree_is_the_snapshot(harness: Harness) -> None:
    """The tree the bot PUTs to the fake equals tests/adapter/command_tree.json, order included."""
    tree = synced_tree(harness)
    assert tree, "the bot synced no command"
    if not SNAPSHOT.exists():  # the first run records it (then it is checked in and compared)
        SNAPSHOT.write_text(json.dumps(tree, indent=1, sort_keys=True) + "\n")
    assert tree == json.loads(SNAPSHOT.read_text())
