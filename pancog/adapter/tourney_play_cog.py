"""Final-table deals on Discord: ``/tourney deal``, the proposal with its Accept / Decline buttons in the final table's
thread, and the lines that follow (accepted, declined, made). The service is
:class:`pancog.services.tournaments.service.TournamentService` (``propose_deal``, ``accept_deal``, ``decline_deal``);
this cog only parses, calls it, and posts what its events say.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Mapping
from typing import Any, Literal

import discord
from discord import app_commands

from pancog.adapter import edge, language
from pancog.adapter.base import PanCog
from pancog.adapter.errors import send_ephemeral
from pancog.adapter.groups import IN_TOURNEY
from pancog.adapter.layouts import notice
from pancog.adapter.presenters.common import name_of
from pancog.adapter.presenters.tourney_play import (
    DEAL_ACCEPT,
    DEAL_DECLINE,
    checked_in_now,
    deal_accepted,
    deal_asked,
    deal_declined,
    deal_done,
    deal_proposed,
    deal_you_accepted,
    deal_you_declined,
)
from pancog.adapter.runtime import Handler, PanRuntime, runtime_of
from pancog.adapter.tourney_cog import TourneyCog
from pancog.game import i18n
from pancog.services.tables import NoTableHere
from pancog.services.tournaments.deal_events import DealAccepted, DealDeclined, DealDone, DealProposed
from pancog.services.tournaments.errors import NoSuchTournament
from pancog.services.tournaments.model import Tournament
from pancog.services.tournaments.service import TournamentEvent, TournamentService

__all__ = ["DealButton", "TourneyPlayCog"]

log = logging.getLogger("pan.tourney")


class DealButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pan:tnd:(?P<tid>\d+):(?P<verb>accept|decline)",
):
    """Accept / Decline under a deal proposal (dynamic: works on the message after a restart)."""

    def __init__(self, tournament_id: int, verb: str) -> None:
        accept = verb == "accept"
        super().__init__(
            discord.ui.Button(
                label=i18n.tr(DEAL_ACCEPT if accept else DEAL_DECLINE),
                style=discord.ButtonStyle.success if accept else discord.ButtonStyle.secondary,
                custom_id=f"pan:tnd:{tournament_id}:{verb}",
            )
        )
        self.tournament_id = tournament_id
        self.verb = verb

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> DealButton:
        return cls(int(match["tid"]), match["verb"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await runtime_of(interaction.client).dispatch(
            interaction, self.tournament_id, "tnd_" + self.verb, (), item=self
        )


class TourneyPlayCog(PanCog, name="PanTourneyPlay"):
    """``/tourney deal`` and the deal's buttons and posts."""

    def __init__(self, runtime: PanRuntime, service: TournamentService, tourney: TourneyCog) -> None:
        super().__init__(runtime)
        self.service = service
        self.tourney = tourney  # which tournament a command means, titles, mentions, where a table's thread is
        service.subscribe(self.on_event)

    def handlers(self) -> Mapping[str, Handler]:
        async def accept(interaction: discord.Interaction[Any], tid: int, _values: tuple[str, ...]) -> None:
            await self.defer(interaction)
            await self.service.accept_deal(tid, interaction.user.id)
            await send_ephemeral(interaction, deal_you_accepted())

        async def decline(interaction: discord.Interaction[Any], tid: int, _values: tuple[str, ...]) -> None:
            await self.defer(interaction)
            moderator = await self.tourney._is_mod(interaction)
            await self.service.decline_deal(tid, interaction.user.id, moderator=moderator)
            await send_ephemeral(interaction, deal_you_declined())

        async def checkin(interaction: discord.Interaction[Any], tid: int, _values: tuple[str, ...]) -> None:
            await self.defer(interaction)
            await self._check_in(interaction, tid)

        return {"tnd_accept": accept, "tnd_decline": decline, "tnc_checkin": checkin}

    async def _check_in(self, interaction: discord.Interaction[Any], tid: int) -> None:
        await self.service.check_in(tid, interaction.user.id)
        await send_ephemeral(interaction, checked_in_now(self.tourney._title(self.service.get(tid))))

    @app_commands.command(
        name="checkin",
        description="Check in for a scheduled tournament (its last minutes before the start)",
        extras=IN_TOURNEY,
    )
    @app_commands.describe(tournament="Which tournament (default: the one in this channel)")
    async def checkin(self, interaction: discord.Interaction, tournament: str | None = None) -> None:
        t = self.tourney.pick(interaction, tournament)
        await self.defer(interaction)
        await self._check_in(interaction, t.tournament_id)

    @app_commands.command(
        name="deal",
        description="At the final table: propose a chip chop or an ICM split of the prizes left",
        extras=IN_TOURNEY,
    )
    @app_commands.describe(
        kind="chip: the next prize each, the rest by chips; icm: by the Malmuth-Harville model",
        keep="Bank chips left to play for (at most first prize minus second); the winner takes them",
        tournament="Which tournament (default: the one in this channel)",
    )
    async def deal(
        self,
        interaction: discord.Interaction,
        kind: Literal["chip", "icm"],
        keep: app_commands.Range[int, 0] = 0,
        tournament: str | None = None,
    ) -> None:
        t = self.tourney.pick(interaction, tournament)
        moderator = await self.tourney._is_mod(interaction)
        await self.defer(interaction)
        deal = await self.service.propose_deal(t.tournament_id, interaction.user.id, kind, keep, moderator=moderator)
        await send_ephemeral(interaction, deal_asked(deal.status != "asked"))

    # -- service events
    def on_event(self, event: TournamentEvent) -> None:
        if isinstance(event, DealProposed | DealAccepted | DealDeclined | DealDone):
            self.rt.tasks.spawn(self._handle(event), name=f"tourney-{type(event).__name__}")

    def _thread(self, t: Tournament) -> int:
        """The final table's thread (else the tournament's channel)."""
        for tt in t.open_tables():
            with contextlib.suppress(NoTableHere):
                return self.rt.tables.get(tt.table_id).channel_id
            if tt.channel_id is not None:
                return tt.channel_id
        return t.channel_id

    async def _handle(self, event: DealProposed | DealAccepted | DealDeclined | DealDone) -> None:
        try:
            t = self.service.get(event.tournament_id)
        except NoSuchTournament:
            return
        names = await self.rt.names.fetch(t.guild_id, (e.player_id for e in t.entries.values()))

        def name(player: int) -> str:
            return name_of(names, player)

        title = self.tourney._title(t)
        with i18n.speaking(language.for_guild(self.rt, t.guild_id)):  # public posts: the server's language
            buttons: list[discord.ui.Item[Any]] = []
            pinged: list[int] = []
            where = self._thread(t)
            if isinstance(event, DealProposed):
                rows = [(name(p), stack, amount) for p, stack, amount in event.shares]
                text = deal_proposed(
                    title, event.kind, event.keep, rows, [self.tourney._mention(t, p) for p in event.waiting]
                )
                pinged = [p for p in event.waiting if p > 0]
                buttons = [DealButton(t.tournament_id, "accept"), DealButton(t.tournament_id, "decline")]
            elif isinstance(event, DealAccepted):
                text = deal_accepted(name(event.player_id), [name(p) for p in event.waiting])
            elif isinstance(event, DealDeclined):
                text = deal_declined(name(event.player_id))
            else:
                text = deal_done(title, [(name(p), amount) for p, amount in event.paid], event.keep)
                where = t.channel_id  # the whole field hears of it (the final table's thread may be archived)
            channel = self.rt.bot.get_partial_messageable(where, guild_id=t.guild_id)
            mentions = discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(u) for u in pinged])
            view = notice(text, buttons=buttons)  # public posts are Components V2; its mentions notify as in content
            try:
                await edge.post(self.rt.bot, channel, about=edge.STATIC, view=view, allowed_mentions=mentions)
            except discord.HTTPException as exc:
                log.warning("tournament %s: deal message failed: %s", t.tournament_id, exc)
