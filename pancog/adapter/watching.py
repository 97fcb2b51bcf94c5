"""Watching with consent on Discord: a player shares their cards with one named member for the hand in progress.

- ``/pan settings share_hand:@member`` (or ``stop_sharing:True``) is :class:`~pancog.adapter.bank_cog.BankCog`'s
  command; it calls :meth:`Watching.share` (or :meth:`Watching.stop_sharing`).
- The grant is announced at the table with a button (``pan:w:<table>:<player>``, a :class:`WatchButton`) that shows
  the player's cards to the member named, read-only, while the grant lasts (``pancog/services/watch.py``), and
  refuses anyone else privately. My hand shows a watcher with no seat at the table the same view
  (:meth:`Watching.show`, called by :class:`~pancog.adapter.play_cog.PlayCog`).

Built by the composition root and handed to the cogs that need it, typed; its button's verb is in the verb table the
root builds (:meth:`Watching.handlers`).
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import Any

import discord

from pancog.adapter import edge, language
from pancog.adapter.base import acknowledge
from pancog.adapter.errors import answer, deliver, send_ephemeral
from pancog.adapter.layouts import notice
from pancog.adapter.presenters.common import name_of
from pancog.adapter.presenters.replay import (
    WATCH_BUTTON,
    WATCH_STOPPED_PRIVATE,
    watch_announcement,
    watch_granted,
    watch_stopped,
    watched_hand_text,
)
from pancog.adapter.runtime import Handler, PanRuntime, runtime_of
from pancog.game import i18n
from pancog.game.i18n import tr
from pancog.infra.renderq import Priority
from pancog.services.watch import WatchService
from renderer import HandSnapshot, render_hand_png

__all__ = ["WatchButton", "Watching"]


class Watching:
    """The Discord side of :class:`~pancog.services.watch.WatchService`: granting, revoking, the watcher's view."""

    def __init__(self, runtime: PanRuntime, watch: WatchService) -> None:
        self.rt = runtime
        self.watch = watch

    def handlers(self) -> Mapping[str, Handler]:
        """The verb of :class:`WatchButton` (``values``: the sharing player's id)."""

        async def clicked(interaction: discord.Interaction[Any], table_id: int, values: tuple[str, ...]) -> None:
            await self.show(interaction, table_id, int(values[0]))

        return {"watch": clicked}

    async def share(self, interaction: discord.Interaction[Any], table_id: int, watcher: int) -> None:
        """``/pan settings share_hand:@member``: ``watcher`` sees the caller's cards until this hand ends; announced
        at the table with the watcher's button."""
        rt = self.rt
        player = interaction.user.id
        self.watch.grant(table_id, player, watcher)
        with i18n.speaking(language.for_guild(rt, interaction.guild_id)):  # a public post: the server's language
            text = watch_announcement(name_of(rt.names_of(interaction.guild_id or 0), player), f"<@{watcher}>")
            view = notice(text, buttons=[WatchButton(table_id, player)])  # the button opens the watcher's view
        channel = interaction.channel
        if isinstance(channel, discord.abc.Messageable):
            mentions = discord.AllowedMentions(users=[discord.Object(id=watcher)], everyone=False, roles=False)
            await deliver(lambda: edge.post(rt.bot, channel, about=edge.STATIC, view=view, allowed_mentions=mentions))
        view.stop()
        await send_ephemeral(interaction, watch_granted(f"<@{watcher}>"))

    async def stop_sharing(self, interaction: discord.Interaction[Any], table_id: int) -> None:
        """``/pan settings stop_sharing:True``: the caller's grant at this table ends, and the table is told."""
        rt = self.rt
        player = interaction.user.id
        grant = self.watch.revoke(table_id, player)
        with i18n.speaking(language.for_guild(rt, interaction.guild_id)):  # a public post: the server's language
            text = watch_stopped(name_of(rt.names_of(interaction.guild_id or 0), player), f"<@{grant.watcher_id}>")
            view = notice(text)
        channel = interaction.channel
        if isinstance(channel, discord.abc.Messageable):
            none = discord.AllowedMentions.none()
            await deliver(lambda: edge.post(rt.bot, channel, about=edge.STATIC, view=view, allowed_mentions=none))
        await send_ephemeral(interaction, WATCH_STOPPED_PRIVATE)

    async def show(self, interaction: discord.Interaction[Any], table_id: int, player_id: int) -> None:
        """The watcher's read-only view of ``player_id``'s hand shared with them (anyone else: a private refusal);
        also what My hand shows a watcher who has no seat here."""
        if not interaction.response.is_done():
            await acknowledge(self.rt, interaction)
        session = self.rt.tables.get(table_id)
        watched = self.watch.watched_hand(table_id, interaction.user.id, player_id)
        prefs = await self.rt.settings.get(interaction.user.id)
        snap = HandSnapshot(
            cards=watched.cards,
            drawn=watched.drawn,
            sort="rank" if prefs.sort.value == "rank" else "suit",
            four_color=prefs.four_color,
        )
        png = await self.rt.renders.render_once(render_hand_png, snap, priority=Priority.URGENT)
        names = await self.rt.names.fetch(interaction.guild_id or 0, [watched.grant.player_id])
        text = watched_hand_text(name_of(names, watched.grant.player_id), snap)
        file = discord.File(io.BytesIO(png), filename="watched.png")
        await answer(interaction, text, about=edge.about(session), file=file)


class WatchButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pan:w:(?P<table>\d+):(?P<player>\d+)",
):
    """Under a share's announcement: the named member's read-only view of the player's cards."""

    def __init__(self, table_id: int, player_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=tr(WATCH_BUTTON),
                style=discord.ButtonStyle.secondary,
                custom_id=f"pan:w:{table_id}:{player_id}",
            )
        )
        self.table_id, self.player_id = table_id, player_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> WatchButton:
        return cls(int(match["table"]), int(match["player"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await runtime_of(interaction.client).dispatch(
            interaction, self.table_id, "watch", (str(self.player_id),), item=self
        )
