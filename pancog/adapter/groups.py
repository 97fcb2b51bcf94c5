"""Every command group of the bot, declared once: ``/pan``, ``/panadmin`` (with ``/panadmin season``),
``/tourney`` and ``/mypan``.

The one way to register a command, wherever it lives: a method of a :class:`~pancog.adapter.base.PanCog` decorated
with ``@app_commands.command``. Without ``extras`` it is a top-level command; with ``extras=IN_PAN`` (``IN_ADMIN``,
``IN_SEASON``, ``IN_TOURNEY``) the cog puts it in that group when it loads and takes it out when it unloads, so any
cog can contribute to any group (the league cog adds ``/panadmin season …`` and ``/panadmin flags``). A new group is
one more :class:`GroupSpec` here, in :data:`GROUPS`.

Discord allows 25 subcommands in a group (``/pan`` has 20): a feature with several subcommands gets its own group.
``default_permissions`` applies to top-level commands only, so the admin commands form a top-level group of their
own that members without Manage Server do not see (the commands keep their runtime check).

Discord takes where a command may be used (``contexts``) and through which installation (``integration_types``)
from the top-level command only. ``/pan`` is for servers (its tables, banks and channels belong to one): a
subcommand of it cannot be offered in a DM. So what a person can do alone, anywhere — practice against the
computer, their stats, a replay, the rules guide — is a group of its own, ``/mypan``, installable by a user as well as
by a server and usable in servers, the bot's DM and private channels (``anywhere=True``). Its commands call the same
code as their ``/pan`` twins, which keep working.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands

__all__ = [
    "ANYWHERE",
    "GROUPS",
    "IN_ADMIN",
    "IN_ANYWHERE",
    "IN_PAN",
    "IN_SCHEDULE",
    "IN_SEASON",
    "IN_TEMPLATE",
    "IN_TOURNEY",
    "PAN",
    "PANADMIN",
    "SCHEDULE",
    "SEASON",
    "TEMPLATE",
    "TOURNEY",
    "CommandGroups",
    "GroupSpec",
    "in_group",
]


@dataclass(frozen=True, slots=True)
class GroupSpec:
    """A command group: its qualified name (``"panadmin season"``: a subgroup of ``/panadmin``) and description;
    ``admin``: hidden from members without Manage Server by default (top-level groups only); ``anywhere``: installable
    by users too and usable in DMs and private channels (top-level groups only)."""

    name: str
    description: str
    admin: bool = False
    anywhere: bool = False

    @property
    def parent(self) -> str | None:
        head, _, _ = self.name.rpartition(" ")
        return head or None

    @property
    def leaf(self) -> str:
        return self.name.rpartition(" ")[2]

    def build(self) -> app_commands.Group:
        if self.parent is not None:  # Discord takes guild_only and default permissions from the top-level command
            return app_commands.Group(name=self.leaf, description=self.description)
        permissions = discord.Permissions(manage_guild=True) if self.admin else None
        if self.anywhere:
            return app_commands.Group(
                name=self.name,
                description=self.description,
                allowed_installs=app_commands.AppInstallationType(guild=True, user=True),
                allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=True, private_channel=True),
                default_permissions=permissions,
            )
        return app_commands.Group(
            name=self.name, description=self.description, guild_only=True, default_permissions=permissions
        )


PAN = GroupSpec("pan", "Panguingue card tables")
PANADMIN = GroupSpec("panadmin", "Pan card tables: server admin (defaults, chips, status, audit, channels)", admin=True)
SEASON = GroupSpec("panadmin season", "League seasons: start, end, roles, info")
TOURNEY = GroupSpec("tourney", "Community tournaments")
TEMPLATE = GroupSpec("tourney template", "Tournament templates: save a tournament's settings, delete one")
SCHEDULE = GroupSpec("tourney schedule", "Weekly tournaments from a template, published as Discord events")
ANYWHERE = GroupSpec(
    "mypan", "Pan anywhere, also in DMs: practice against the computer, your stats, replays, rules", anywhere=True
)
GROUPS: tuple[GroupSpec, ...] = (PAN, PANADMIN, SEASON, TOURNEY, TEMPLATE, SCHEDULE, ANYWHERE)
"""Every group of the bot."""


def in_group(spec: GroupSpec) -> dict[str, Any]:
    """``@app_commands.command(..., extras=in_group(X))``: a subcommand of group ``X``."""
    return {"group": spec.name}


IN_PAN = in_group(PAN)
IN_ADMIN = in_group(PANADMIN)
IN_SEASON = in_group(SEASON)
IN_TOURNEY = in_group(TOURNEY)
IN_TEMPLATE = in_group(TEMPLATE)
IN_SCHEDULE = in_group(SCHEDULE)
IN_ANYWHERE = in_group(ANYWHERE)


class CommandGroups:
    """The ``app_commands.Group`` of every declared group, made once by the composition root.

    A group joins the command tree (a subgroup: its parent group) with its first command, so the order Discord is
    sent follows the order the cogs load; :meth:`detach` takes the top-level groups off the tree again."""

    def __init__(self, tree: app_commands.CommandTree[Any], specs: tuple[GroupSpec, ...] = GROUPS) -> None:
        self.tree = tree
        self._specs: Mapping[str, GroupSpec] = {spec.name: spec for spec in specs}
        self._groups = {spec.name: spec.build() for spec in specs}
        self._attached: dict[str, None] = {}  # the groups on the tree, in the order they joined

    def group(self, name: str) -> app_commands.Group:
        """The group of that qualified name (``"pan"``, ``"panadmin season"``)."""
        found = self._groups.get(name)
        if found is None:
            raise LookupError("no command group is declared as " + repr(name) + " (pancog/adapter/groups.py)")
        return found

    def add(self, command: app_commands.Command[Any, ..., Any]) -> None:
        """Put ``command`` in the group its ``extras`` names."""
        name = str(command.extras["group"])
        group = self.group(name)
        group.add_command(command)
        self._attach(name)

    def remove(self, command: app_commands.Command[Any, ..., Any]) -> None:
        self.group(str(command.extras["group"])).remove_command(command.name)

    def _attach(self, name: str) -> None:
        if name in self._attached:
            return
        spec = self._specs[name]
        if spec.parent is None:
            self.tree.add_command(self._groups[name])
        else:
            self._attach(spec.parent)
            self._groups[spec.parent].add_command(self._groups[name])
        self._attached[name] = None

    def attached(self) -> tuple[app_commands.Group, ...]:
        """The groups on the tree (top-level and nested), in the order they joined."""
        return tuple(self._groups[name] for name in self._attached)

    def detach(self) -> None:
        """Take every top-level group off the tree (at teardown, after the cogs took their commands out)."""
        for name in list(self._attached):
            if self._specs[name].parent is None:
                self.tree.remove_command(name)
        self._attached.clear()
