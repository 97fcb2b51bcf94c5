"""The base of every Pan cog: the one way to register a command, a button or a select, and the one error path.

* A command is a method decorated with ``@app_commands.command``. Pass ``extras=IN_PAN`` (or another group's,
  :mod:`pancog.adapter.groups`: ``IN_ADMIN``, ``IN_SEASON``, ``IN_TOURNEY``) to put it in that group, declared once
  and shared by every cog; without ``extras`` the command is top level.
* A board button or a hand-panel select is answered by a handler this cog lists in :meth:`PanCog.handlers`
  (verb -> method); the verb's slash command calls the same method.
* Errors of every command go to :meth:`PanCog.cog_app_command_error` (a PanError's message privately, anything
  else logged + a safe sentence); buttons and selects go through ``PanRuntime.dispatch`` to the same
  :func:`~pancog.adapter.errors.report`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from pancog.adapter import ack, edge, language
from pancog.adapter.errors import deliver, report, reusable_file
from pancog.adapter.presenters.admin import pan_not_here
from pancog.adapter.runtime import Handler, PanRuntime
from pancog.game.rules import PRESETS
from pancog.infra import logs
from pancog.services.tables import TableSession

__all__ = ["PRESET_CHOICES", "PanCog", "acknowledge"]

PRESET_CHOICES = [app_commands.Choice(name=name, value=name) for name in PRESETS]
"""The rules presets as the choices of a ``preset`` option."""


async def acknowledge(rt: PanRuntime, interaction: discord.Interaction[Any], *, ephemeral: bool = True) -> PanRuntime:
    """Make sure the interaction is acknowledged in time (a defer is scheduled, and sent only if the answer is not
    ready in ``ack.ACK_AFTER`` s: :mod:`pancog.adapter.ack`), remember the user's name, load their preferences (DM
    mode, pings) into the cache."""
    ack.later(rt.tasks, interaction, ephemeral=ephemeral)
    rt.seen(interaction)  # the user and the members its options name
    await rt.settings.get(interaction.user.id)
    return rt


class PanCog(commands.Cog):
    """Holds the runtime; puts its commands that name a group (``extras``) in that group while it is loaded; lists
    the verbs of the buttons and selects it answers."""

    def __init__(self, runtime: PanRuntime) -> None:
        self.rt = runtime
        mine = self.__cog_app_commands__
        self._grouped = [c for c in mine if isinstance(c, app_commands.Command) and "group" in c.extras]
        self.__cog_app_commands__ = [c for c in mine if c not in self._grouped]  # the rest is top level

    def handlers(self) -> Mapping[str, Handler]:
        """The buttons and selects this cog answers: verb -> handler (none by default). The composition root puts
        them in the runtime's one verb table (``extension.verb_table``)."""
        return {}

    async def cog_load(self) -> None:
        for command in self._grouped:
            self.rt.groups.add(command)

    async def cog_unload(self) -> None:
        for command in self._grouped:
            self.rt.groups.remove(command)

    # -- helpers of every command
    async def defer(self, interaction: discord.Interaction[Any], *, ephemeral: bool = True) -> PanRuntime:
        """:func:`acknowledge` the interaction; returns the runtime."""
        return await acknowledge(self.rt, interaction, ephemeral=ephemeral)

    async def respond(
        self,
        interaction: discord.Interaction[Any],
        content: str | None,
        *,
        ephemeral: bool = True,
        about: edge.About | None = None,
        **kwargs: Any,
    ) -> discord.abc.Snowflake | None:
        """Answer once, through the edge: the initial response when not yet acknowledged, else the followup
        (retried; a ``file`` is resent fresh). Returns the message, or its id (None if Discord did not say).
        ``about``: what it shows (default: the table of the interaction's channel)."""
        file = kwargs.pop("file", None)
        fresh = reusable_file(file) if file is not None else None

        async def send() -> discord.abc.Snowflake | None:
            extra = dict(kwargs, file=fresh()) if fresh is not None else kwargs
            await ack.settle(interaction)
            return await edge.respond(interaction, content, ephemeral=ephemeral, about=about, **extra)

        return await deliver(send, what=f"answer to interaction {interaction.id}")

    def button(self, act: Callable[[discord.Interaction[Any], TableSession], Awaitable[None]]) -> Handler:
        """A board button's handler: acknowledge privately, find the table, then ``act`` (what the slash command
        does after its own ``defer`` and ``here``)."""

        async def run(interaction: discord.Interaction[Any], table_id: int, _values: tuple[str, ...]) -> None:
            await self.defer(interaction)
            await act(interaction, self.rt.tables.get(table_id))

        return run

    def home_guild(self, interaction: discord.Interaction[Any]) -> int:
        """The server the interaction belongs to for Pan: its guild when the bot is in it, else 0 (the bot's DM, a
        private channel, or a server where only the user installed the app: no server's chips or settings)."""
        guild_id = interaction.guild_id
        if guild_id is None or self.rt.bot.get_guild(guild_id) is None:
            return 0
        return guild_id

    def here(self, interaction: discord.Interaction[Any]) -> TableSession:
        """The table of the channel the command was used in (a private error if there is none)."""
        return self.rt.tables.in_channel(interaction.channel_id or 0)

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        """Bind guild and table to the log context of this command's task (every log line carries them); refuse
        privately outside the channels the server allows Pan in (``/panadmin channels``), except at a table
        already open there and for ``/panadmin`` itself."""
        session = self.rt.tables.find_in_channel(interaction.channel_id or 0)
        logs.bind(guild=interaction.guild_id, table=session.table_id if session is not None else None)
        self.rt.seen(interaction)  # the user's and the resolved members' display names, kept across restarts
        await language.enter(self.rt, interaction)  # answers in the caller's language
        guild_id = self.home_guild(interaction)  # a server without the bot has no Pan settings of its own
        if guild_id:
            await self.rt.display.get(guild_id)  # the server's image settings, cached for the boards
        command = interaction.command
        admin = command is not None and command.qualified_name.startswith("panadmin")
        if session is None and not admin and guild_id:
            parent = getattr(interaction.channel, "parent_id", None)
            if not await self.rt.channels.permits(guild_id, interaction.channel_id, parent):
                allowed = await self.rt.channels.allowed(guild_id)
                raise app_commands.CheckFailure(pan_not_here(sorted(allowed)))
        return True

    async def cog_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        command = interaction.command.qualified_name if interaction.command else "?"
        await report(interaction, error, context=f"/{command} channel={interaction.channel_id}")
