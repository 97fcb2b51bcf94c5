"""Community tournaments on Discord: the top-level ``/tourney`` group, the announcement with its
Register / Unregister buttons, table threads, mentions and the results message.

The service is :class:`pancog.services.tournaments.service.TournamentService` (``PanRuntime.tournaments``, no discord):
this cog parses options, calls one service method per command, and turns the service's events into messages.
:class:`TourneyThreads` is the service's channel factory (given to it by the composition root): a table's board
lives in a public thread of the tournament's channel, created by the bot and archived when the table closes or the
tournament ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections.abc import Mapping
from typing import Any, Literal

import discord
from discord import app_commands

from pancog.adapter import edge, language
from pancog.adapter.base import PanCog
from pancog.adapter.checks import moderator
from pancog.adapter.deliveries import Permanent
from pancog.adapter.effects import send_once
from pancog.adapter.errors import BadOption, send_ephemeral
from pancog.adapter.forms import TourneyForm, TourneyValues
from pancog.adapter.groups import IN_TOURNEY
from pancog.adapter.layouts import card_layout, notice
from pancog.adapter.presenters.common import image_name_of, name_of
from pancog.adapter.presenters.league import NO_LEAGUE
from pancog.adapter.presenters.tournament import (
    TOURNEY_BOTS_NOT_ALLOWED,
    TOURNEY_NONE_HERE,
    TOURNEY_PAUSED,
    TOURNEY_RESUMED,
    TOURNEY_SERIES_MODS,
    TOURNEY_STARTED,
    TOURNEY_WHICH,
    TOURNEY_WINNER_ROLE_MODS,
    tourney_announcement,
    tourney_bots_added,
    tourney_cancelled,
    tourney_created,
    tourney_final_table,
    tourney_in_series,
    tourney_info_text,
    tourney_knockout,
    tourney_list_text,
    tourney_plain_title,
    tourney_registered,
    tourney_results,
    tourney_seated,
    tourney_standings,
    tourney_table_starts,
    tourney_title,
    tourney_unregistered,
    tourney_winner_role_failed,
    tourney_winner_role_note,
    tourney_winner_role_reason,
)
from pancog.adapter.presenters.tourney_play import checkin_line
from pancog.adapter.presenters.tourney_purse import (
    TOURNEY_GUARANTEE_MODS,
    tourney_bounty_line,
    tourney_purse_lines,
    tourney_terms,
)
from pancog.adapter.roles import give_role
from pancog.adapter.runtime import Handler, PanRuntime
from pancog.adapter.safety import shown
from pancog.adapter.tourney_parts import (
    TourneyThreads,
    announcement_view,
    parse_bounty,
    parse_numbers,
    parse_start,
)
from pancog.adapter.tourney_purse_cog import satellite_target_id, satellite_title
from pancog.ai import Level
from pancog.game import i18n
from pancog.game.errors import PanError
from pancog.infra.renderq import Priority
from pancog.services.bots import computer_id
from pancog.services.outbox import OutboxItem
from pancog.services.tables import NoTableHere, NotHost
from pancog.services.tournaments.errors import BadTournamentOption, NoSuchTournament
from pancog.services.tournaments.model import Format, Status, Tournament, TournamentConfig
from pancog.services.tournaments.service import (
    LevelUp,
    PlayerOut,
    PlayerSeated,
    TableOpened,
    TournamentCancelled,
    TournamentEvent,
    TournamentFinished,
    TournamentService,
    TournamentStarted,
)
from renderer.standings import render_standings_png, standings_text

__all__ = ["TICK_SECONDS", "TourneyCog"]

log = logging.getLogger("pan.tourney")

TICK_SECONDS = 5.0
"""How often the background task advances every tournament's clock (levels, scheduled starts, breaks)."""

_LEVELS = {"easy": Level.EASY, "normal": Level.NORMAL, "hard": Level.HARD}


class TourneyCog(PanCog, name="PanTourney"):
    """``/tourney create register unregister info list start pause resume cancel addbots``."""

    def __init__(
        self,
        runtime: PanRuntime,
        service: TournamentService,
        threads: TourneyThreads,
        *,
        tick_seconds: float = TICK_SECONDS,
    ) -> None:
        """``threads``: the tables' threads, which the composition root made the service's channel factory."""
        super().__init__(runtime)
        self.service = service
        self.tick_seconds = tick_seconds  # how often every tournament's clock advances (PAN_TOURNEY_TICK)
        self.threads = threads
        self._ticker: asyncio.Task[None] | None = None
        service.subscribe(self.on_event)

    def handlers(self) -> Mapping[str, Handler]:
        async def register(interaction: discord.Interaction[Any], tid: int, _values: tuple[str, ...]) -> None:
            await self.defer(interaction)
            await self._register(interaction, tid)

        async def unregister(interaction: discord.Interaction[Any], tid: int, _values: tuple[str, ...]) -> None:
            await self.defer(interaction)
            await self._unregister(interaction, tid)

        return {"tny_register": register, "tny_unregister": unregister}

    async def resume_all(self) -> None:
        """At setup, after the tables, the tournaments and the computer players were loaded: remember the threads
        of open tables, re-derive every running tournament's next steps, and start the clock task."""
        for t in self.service.tournaments:
            for tt in t.tables.values():
                if tt.channel_id is not None:
                    self.threads.remember(tt.table_id, tt.channel_id)
                with contextlib.suppress(NoTableHere):
                    self.threads.remember(tt.table_id, self.rt.tables.get(tt.table_id).channel_id)
        await self.service.kick()
        # every tournament's clock (levels, scheduled starts, breaks) advances: a loop until the cog unloads
        self._ticker = self.rt.tasks.every(self.tick_seconds, self.service.tick, name="tournament-clock")

    async def cog_unload(self) -> None:
        await self.rt.tasks.cancel(self._ticker)
        self._ticker = None
        await super().cog_unload()

    # -- helpers
    def _title(self, t: Tournament) -> str:
        return tourney_title(t.config.title, t.tournament_id)

    def pick(self, interaction: discord.Interaction[Any], tournament: str | None) -> Tournament:
        """The tournament named by the option, else the one active in this channel (or thread of it)."""
        if tournament:
            try:
                t = self.service.get(int(tournament))
            except (ValueError, NoSuchTournament):
                raise NoSuchTournament from None
            if t.guild_id != interaction.guild_id:
                raise NoSuchTournament
            return t
        channel = interaction.channel_id or 0
        parent = getattr(interaction.channel, "parent_id", None)
        here = [
            t
            for t in self.service.tournaments
            if t.guild_id == interaction.guild_id
            and t.channel_id in (channel, parent)
            and t.status not in (Status.FINISHED, Status.CANCELLED)
        ]
        if not here:
            session = self.rt.tables.find_in_channel(channel)
            tid = self.service.tournament_of_table(session.table_id) if session is not None else None
            if tid is not None:
                return self.service.get(tid)
            raise PanError(TOURNEY_NONE_HERE)
        if len(here) > 1:
            raise PanError(TOURNEY_WHICH)
        return here[0]

    def _target_id(self, interaction: discord.Interaction[Any], text: str | None) -> int | None:
        return satellite_target_id(self.service, interaction.guild_id or 0, text)

    def _target(self, t: Tournament) -> str | None:
        return satellite_title(self.service, t)

    async def _is_mod(self, interaction: discord.Interaction[Any]) -> bool:
        return await moderator(self.rt.ledger, interaction)

    def _announcement(self, t: Tournament) -> tuple[str, discord.ui.LayoutView]:
        with i18n.speaking(language.for_guild(self.rt, t.guild_id)):  # a public post: the server's language
            return self._announcement_words(t)

    def _announcement_words(self, t: Tournament) -> tuple[str, discord.ui.LayoutView]:
        cfg = t.config
        host = f"<@{t.host_id}>"
        text = tourney_announcement(
            self._title(t),
            cfg.format.value,
            cfg.buy_in,
            cfg.fee,
            cfg.seats,
            t.paid_entries if t.status is not Status.REGISTERING else self._registered(t),
            cfg.field_limit if cfg.field_limit < 10**6 else 0,
            cfg.start_at_ms // 1000 if cfg.start_at_ms else None,
            t.status.value,
            host,
        )
        terms = tourney_terms(cfg, self._target(t))
        if terms:
            text += "\n" + terms
        window = self.service.checkin_window(t.tournament_id) if t.status is Status.REGISTERING else None
        if window is not None:  # check-in: its line and its button (a click before it opens is refused privately)
            text += "\n" + checkin_line(window[0] // 1000)
        view = announcement_view(t.tournament_id, self.service.registration_open(t), text, checkin=window is not None)
        return text, view

    @staticmethod
    def _registered(t: Tournament) -> int:
        return sum(1 for e in t.entries.values() if e.status.value in ("registered", "alive"))

    async def refresh_announcement(self, t: Tournament) -> None:
        if t.announcement is None:  # stored (migration V7): found again after a restart
            return
        channel_id, message_id = t.announcement
        _text, view = self._announcement(t)  # the words are in the V2 layout
        channel = self.rt.bot.get_partial_messageable(channel_id, guild_id=t.guild_id)
        try:
            message = channel.get_partial_message(message_id)
            none = discord.AllowedMentions.none()
            await edge.edit(self.rt.bot, message, about=edge.STATIC, content=None, view=view, allowed_mentions=none)
        except discord.HTTPException as exc:
            log.warning("tournament %s: announcement edit failed: %s", t.tournament_id, exc)

    # -- commands
    @app_commands.command(
        name="create", description="Announce a tournament in this channel (you host it)", extras=IN_TOURNEY
    )
    @app_commands.describe(
        format="Sit & Go (starts when full) or scheduled (multi-table, at a start time)",
        buy_in="Bank chips per entry",
        seats="Players per table (Sit & Go: 2-8; scheduled: 4-8)",
        start="Scheduled: +minutes, a Unix time, or YYYY-MM-DD HH:MM (UTC)",
        antes="Ante per level, increasing, e.g. 10,15,20,30,40 (default: the published schedule)",
        level_minutes="Minutes per level (default 6 for a Sit & Go, 10 scheduled)",
        payouts="Prize shares by place, e.g. 65,35 (default: the published table)",
        reentries="Re-entries allowed per player (scheduled; 0 = freezeout)",
        late_levels="Registration stays open during this many levels (scheduled)",
        computers="Computer players may register",
        min_entries="Scheduled: cancelled and refunded below this many entries",
        fee="Part of the buy-in that goes to the house",
        title="A name for the tournament",
        starting_stack="Tournament chips each entry starts with",
        winner_role="Moderators: a role the winner gets when it ends (the bot needs Manage Roles)",
        checkin="Scheduled: players check in during this many minutes before the start; no-shows are refunded",
        rebuy_levels="Rebuys allowed during this many levels (0 = none)",
        rebuy_stack="A rebuy when at or below this many chips (default: the starting stack)",
        max_rebuys="Rebuys per entry (0 = no limit during the period)",
        addon="One add-on at the end of the rebuy period",
        bounty="Part of the buy-in paid for each knock-out, e.g. 25 (25p: progressive, half onto the eliminator)",
        guarantee="Moderators: a guaranteed prize pool (the house pays the overlay)",
        satellite_for="A satellite: its prizes are seats in this tournament (its exact title or number)",
        form="Fill in a form instead (format, buy-in, seats, start, name; the rest as published)",
        series="Moderators: list it as an event of this league series (/panadmin series)",
    )
    async def create(
        self,
        interaction: discord.Interaction,
        format: Literal["sng", "scheduled"] = "sng",
        buy_in: app_commands.Range[int, 0] = 100,
        seats: app_commands.Range[int, 2, 8] = 7,
        start: str | None = None,
        antes: str | None = None,
        level_minutes: app_commands.Range[float, 0.1, 120.0] | None = None,
        payouts: str | None = None,
        reentries: app_commands.Range[int, 0, 20] = 0,
        late_levels: app_commands.Range[int, 0, 30] = 0,
        computers: bool = True,
        min_entries: app_commands.Range[int, 2, 1000] = 2,
        fee: app_commands.Range[int, 0] = 0,
        title: app_commands.Range[str, 1, 60] | None = None,
        starting_stack: app_commands.Range[int, 1] | None = None,
        winner_role: discord.Role | None = None,
        rebuy_levels: app_commands.Range[int, 0, 30] = 0,
        rebuy_stack: app_commands.Range[int, 0] = 0,
        max_rebuys: app_commands.Range[int, 0, 50] = 0,
        addon: bool = False,
        bounty: app_commands.Range[str, 1, 12] | None = None,
        guarantee: app_commands.Range[int, 0] = 0,
        satellite_for: str | None = None,
        form: bool = False,
        checkin: app_commands.Range[int, 0, 1440] = 0,
        series: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        if form:  # the modal is the answer; its submit creates the tournament as these options would
            await edge.modal(interaction, TourneyForm(self._create_from_form), about=edge.STATIC)
            return
        await self.create_here(
            interaction, format, buy_in, seats, start, antes, level_minutes, payouts, reentries, late_levels,
            computers, min_entries, fee, title, starting_stack, winner_role, checkin, series,
            purse={
                "rebuy_levels": rebuy_levels, "rebuy_stack": rebuy_stack, "max_rebuys": max_rebuys, "addon": addon,
                **parse_bounty(bounty), "guarantee": guarantee,
                "satellite_for": self._target_id(interaction, satellite_for),
            },
        )  # fmt: skip

    async def _create_from_form(self, interaction: discord.Interaction[Any], values: TourneyValues) -> None:
        await self.create_here(
            interaction, values.format, values.buy_in, values.seats, values.start, title=values.title
        )

    async def create_here(
        self,
        interaction: discord.Interaction[Any],
        format: Literal["sng", "scheduled"] = "sng",
        buy_in: int = 100,
        seats: int = 7,
        start: str | None = None,
        antes: str | None = None,
        level_minutes: float | None = None,
        payouts: str | None = None,
        reentries: int = 0,
        late_levels: int = 0,
        computers: bool = True,
        min_entries: int = 2,
        fee: int = 0,
        title: str | None = None,
        starting_stack: int | None = None,
        winner_role: discord.Role | None = None,
        checkin: int = 0,
        series: str | None = None,
        *,
        purse: dict[str, Any] | None = None,
    ) -> None:
        # Everything is validated before the (private) defer's work, so a refusal changes nothing.
        options: dict[str, Any] = {
            "format": Format(format),
            "title": title or "",
            "buy_in": buy_in,
            "fee": fee,
            "seats": seats,
            "level_minutes": level_minutes,
            "start_at_ms": parse_start(start, time.time()),
            "min_entries": min_entries,
            "late_levels": late_levels,
            "max_entries": reentries + 1 if reentries else 1,
            "payouts": parse_numbers(payouts),
            "computers": computers,
            "checkin_minutes": checkin,
            **(purse or {}),  # rebuys, the add-on, bounties, a guarantee, a satellite's target
        }
        if antes:
            options["antes"] = parse_numbers(antes)
        if starting_stack is not None:
            options["starting_stack"] = starting_stack
        if winner_role is not None:
            options["winner_role_id"] = winner_role.id
        config = TournamentConfig(**options)  # BadTournamentOption / BadSchedule: a private refusal
        await self.defer(interaction)
        if winner_role is not None and not await self._is_mod(interaction):  # a role is a server-wide privilege
            raise BadOption(TOURNEY_WINNER_ROLE_MODS)
        listing = None
        if series is not None:  # a league's points: the moderators' to give, as the series itself is
            if not await self._is_mod(interaction):
                raise BadOption(TOURNEY_SERIES_MODS)
            if self.rt.league is None:
                raise BadOption(NO_LEAGUE)
            listing = self.rt.league.series_listing(interaction.guild_id or 0, series)
        if config.guarantee and not await self._is_mod(interaction):  # the house pays an overlay
            raise BadOption(TOURNEY_GUARANTEE_MODS)
        t = await self.service.create(
            interaction.id,
            guild_id=interaction.guild_id or 0,
            channel_id=interaction.channel_id or 0,
            host_id=interaction.user.id,
            config=config,
            also=listing,  # listed in the same transaction; NoSeries refuses it and nothing is stored
        )
        _text, view = self._announcement(t)  # the words are in the V2 layout
        channel = self.rt.bot.get_partial_messageable(t.channel_id, guild_id=t.guild_id)
        none = discord.AllowedMentions.none()
        message = await edge.post(self.rt.bot, channel, about=edge.STATIC, view=view, allowed_mentions=none)
        if message is not None:
            await self.service.remember_announcement(t.tournament_id, message.channel.id, message.id)
        text = tourney_created(self._title(t))
        if series is not None:
            text += "\n" + tourney_in_series(shown(" ".join(series.split()), limit=40))
        if winner_role is not None:  # told once, now: the bot's permissions as Discord resolved them here
            can = interaction.app_permissions.manage_roles
            text += "\n" + tourney_winner_role_note(winner_role.name, can_manage=can)
        await send_ephemeral(interaction, text)

    @app_commands.command(
        name="register", description="Buy in to a tournament (or re-enter, or register late)", extras=IN_TOURNEY
    )
    @app_commands.describe(tournament="Which tournament (default: the one in this channel)")
    async def register(self, interaction: discord.Interaction, tournament: str | None = None) -> None:
        t = self.pick(interaction, tournament)
        await self.defer(interaction)
        await self._register(interaction, t.tournament_id)

    async def _register(self, interaction: discord.Interaction[Any], tid: int) -> None:
        t = self.service.get(tid)
        running = t.status is Status.RUNNING
        await self.service.register(tid, interaction.user.id)
        bank = await self.rt.ledger.balance(t.guild_id, interaction.user.id)
        await send_ephemeral(interaction, tourney_registered(self._title(t), t.config.buy_in, bank, running))
        await self.refresh_announcement(t)

    @app_commands.command(
        name="unregister", description="Take your registration back (before the start)", extras=IN_TOURNEY
    )
    @app_commands.describe(tournament="Which tournament (default: the one in this channel)")
    async def unregister(self, interaction: discord.Interaction, tournament: str | None = None) -> None:
        t = self.pick(interaction, tournament)
        await self.defer(interaction)
        await self._unregister(interaction, t.tournament_id)

    async def _unregister(self, interaction: discord.Interaction[Any], tid: int) -> None:
        t = self.service.get(tid)
        refund = await self.service.unregister(tid, interaction.user.id)
        await send_ephemeral(interaction, tourney_unregistered(self._title(t), refund))
        await self.refresh_announcement(t)

    @app_commands.command(
        name="addbots", description="Register computer players (host or moderator)", extras=IN_TOURNEY
    )
    @app_commands.describe(count="How many", level="How well they play")
    async def addbots(
        self,
        interaction: discord.Interaction,
        count: app_commands.Range[int, 1, 50] = 1,
        level: Literal["easy", "normal", "hard"] = "normal",
        tournament: str | None = None,
    ) -> None:
        t = self.pick(interaction, tournament)
        is_mod = await self._is_mod(interaction)
        if interaction.user.id != t.host_id and not is_mod:
            raise NotHost
        if not t.config.computers:
            raise BadTournamentOption(TOURNEY_BOTS_NOT_ALLOWED)
        await self.defer(interaction)
        taken = {e.player_id for e in t.entries.values()}
        added = 0
        n = 1
        while added < count:
            player = computer_id(_LEVELS[level], n)
            n += 1
            if player in taken:
                continue
            if t.status is not Status.REGISTERING and not self.service.registration_open(t):
                break
            await self.service.register(t.tournament_id, player)
            added += 1
        await send_ephemeral(interaction, tourney_bots_added(added, self._title(t)))
        await self.refresh_announcement(t)

    @app_commands.command(
        name="info", description="Standings: places, stacks, level, time to the next level, tables", extras=IN_TOURNEY
    )
    @app_commands.describe(tournament="Which tournament (default: the one in this channel)")
    async def info(self, interaction: discord.Interaction, tournament: str | None = None) -> None:
        t = self.pick(interaction, tournament)
        await self.defer(interaction)
        names = await self.names_of(t)
        with i18n.speaking(language.for_guild(self.rt, t.guild_id)):  # a public answer: the server's language
            file = await self.standings_image(t.tournament_id, Priority.URGENT, names)
            layout = card_layout(self.standings_text(t.tournament_id, names), "standings.png")  # V2: words, image
        await self.respond(interaction, None, file=file, view=layout)

    async def names_of(self, t: Tournament) -> dict[int, str]:
        """The names of every entry of ``t`` (stored names: they survive a restart)."""
        return await self.rt.names.fetch(t.guild_id, (e.player_id for e in t.entries.values()))

    async def standings_image(self, tid: int, priority: Priority, names: Mapping[int, str]) -> discord.File:
        """The standings PNG (rendered on the render queue) with its text twin as the alt text."""
        t = self.service.get(tid)
        snap = tourney_standings(
            self.service.info(tid), lambda p: image_name_of(names, p), tourney_plain_title(t.config.title, tid)
        )
        png = await self.rt.renders.render(render_standings_png, snap, priority=priority)
        return discord.File(io.BytesIO(png), filename="standings.png", description=standings_text(snap))

    def standings_text(self, tid: int, names: Mapping[int, str]) -> str:
        info = self.service.info(tid)

        def name(player: int) -> str:
            return name_of(names, player)

        return tourney_info_text(
            tourney_title(info.title, tid),
            info.status.value,
            info.level,
            info.ante,
            info.on_break,
            info.paused,
            info.seconds_to_next_level,
            info.entries,
            info.alive,
            info.prize_pool,
            info.prizes,
            [(name(p), c, tab) for p, c, tab in info.chips],
            [(no, [name(p) for p in players]) for no, players in info.tables],
            [(name(p), place, prize) for p, place, prize in info.results],
            tourney_purse_lines(info, name, self._target(self.service.get(tid))),
        )

    @app_commands.command(name="list", description="This server's tournaments", extras=IN_TOURNEY)
    async def list_(self, interaction: discord.Interaction) -> None:
        await self.defer(interaction)
        rows = [
            (self._title(t), t.status.value, self._registered(t) or t.paid_entries, f"<#{t.channel_id}>")
            for t in self.service.tournaments
            if t.guild_id == interaction.guild_id and t.status not in (Status.FINISHED, Status.CANCELLED)
        ]
        await send_ephemeral(interaction, tourney_list_text(rows))

    async def _control(self, interaction: discord.Interaction[Any], tournament: str | None, verb: str) -> Tournament:
        t = self.pick(interaction, tournament)
        is_mod = await self._is_mod(interaction)
        await self.defer(interaction)
        method = getattr(self.service, verb)
        result = await method(t.tournament_id, interaction.user.id, moderator=is_mod)
        if verb == "cancel":
            await send_ephemeral(interaction, tourney_cancelled(self._title(t), len(result)))
        else:
            done = {
                "start": TOURNEY_STARTED,
                "pause": TOURNEY_PAUSED,
                "resume": TOURNEY_RESUMED,
            }
            await send_ephemeral(interaction, done[verb])
        await self.refresh_announcement(t)
        return t

    @app_commands.command(
        name="start", description="Start now if the minimum field is met (host or moderator)", extras=IN_TOURNEY
    )
    async def start(self, interaction: discord.Interaction, tournament: str | None = None) -> None:
        await self._control(interaction, tournament, "start")

    @app_commands.command(name="pause", description="Pause the level clock (host or moderator)", extras=IN_TOURNEY)
    async def pause(self, interaction: discord.Interaction, tournament: str | None = None) -> None:
        await self._control(interaction, tournament, "pause")

    @app_commands.command(name="resume", description="Resume the level clock (host or moderator)", extras=IN_TOURNEY)
    async def resume(self, interaction: discord.Interaction, tournament: str | None = None) -> None:
        await self._control(interaction, tournament, "resume")

    @app_commands.command(
        name="cancel", description="Cancel and refund every entry (host or moderator)", extras=IN_TOURNEY
    )
    async def cancel(self, interaction: discord.Interaction, tournament: str | None = None) -> None:
        await self._control(interaction, tournament, "cancel")

    # -- service events (synchronous; the messages go out on background tasks)
    def on_event(self, event: TournamentEvent) -> None:
        self.rt.tasks.spawn(self._handle(event), name=f"tourney-{type(event).__name__}")

    async def _handle(self, event: TournamentEvent) -> None:
        try:
            t = self.service.get(event.tournament_id)
        except NoSuchTournament:
            return
        i18n.speak(language.for_guild(self.rt, t.guild_id))  # its own task: every post is public, the server's
        try:
            if isinstance(event, TableOpened):
                await self._table_opened(t, event)
            elif isinstance(event, PlayerSeated):
                await self._seated(t, event)
            elif isinstance(event, PlayerOut):
                await self._knocked_out(t, event)
            elif isinstance(event, LevelUp | TournamentFinished | TournamentStarted | TournamentCancelled):
                await self.refresh_announcement(t)  # a level up may close late registration: Register goes
                if isinstance(event, TournamentFinished) and t.config.satellite_for is not None:
                    with contextlib.suppress(NoSuchTournament):  # its seats were registered in the target
                        await self.refresh_announcement(self.service.get(t.config.satellite_for))
            await self.threads.archive_closed(t, self.rt)
        except discord.HTTPException as exc:
            log.warning("tournament %s: %s message failed: %s", t.tournament_id, type(event).__name__, exc)

    def _channel_of_table(self, t: Tournament, table_no: int) -> int:
        tt = t.tables.get(table_no)
        if tt is not None:
            with contextlib.suppress(NoTableHere):
                return self.rt.tables.get(tt.table_id).channel_id
            if tt.table_id in self.threads.threads:
                return self.threads.threads[tt.table_id]
        return t.channel_id

    async def _send(
        self, channel_id: int, guild_id: int, text: str, users: list[int], file: discord.File | None = None
    ) -> None:
        channel = self.rt.bot.get_partial_messageable(channel_id, guild_id=guild_id)
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(u) for u in users])
        extra: dict[str, Any] = {"file": file} if file is not None else {}
        view = notice(text, file)  # the mentions in its text display notify, as in content
        await edge.post(self.rt.bot, channel, about=edge.STATIC, view=view, allowed_mentions=mentions, **extra)

    async def _table_opened(self, t: Tournament, event: TableOpened) -> None:
        humans = [p for p in event.player_ids if p > 0]
        mentions = [f"<@{p}>" if p > 0 else name_of(self.rt.names_of(t.guild_id), p) for p in event.player_ids]
        text = tourney_table_starts(self._title(t), event.table_no, mentions, event.final)
        await self._send(self._channel_of_table(t, event.table_no), t.guild_id, text, humans)
        if event.final:  # the whole field hears of it, in the tournament's channel (nobody pinged there)
            await self._send(t.channel_id, t.guild_id, tourney_final_table(self._title(t), mentions), [])

    def _mention(self, t: Tournament, player_id: int, *, ping: bool = True) -> str:
        if ping and player_id > 0:
            return f"<@{player_id}>"
        return name_of(self.rt.names_of(t.guild_id), player_id)

    async def _seated(self, t: Tournament, event: PlayerSeated) -> None:
        """Every late seat and every move: the player is told (and pinged) where they sit, in that table's thread."""
        tt = t.tables.get(event.table_no)
        final = tt.final if tt is not None else False
        text = tourney_seated(self._mention(t, event.player_id), event.table_no, event.seat, final, event.moved)
        users = [event.player_id] if event.player_id > 0 else []
        await self._send(self._channel_of_table(t, event.table_no), t.guild_id, text, users)

    async def _knocked_out(self, t: Tournament, event: PlayerOut) -> None:
        """The knock-out line, in the player's table thread and the tournament's channel, pinging only that player."""
        entry = t.entries.get(event.entry_id)
        text = tourney_knockout(
            self._mention(t, event.player_id), self._title(t), event.place, event.prize, event.can_reenter
        )
        if event.bounty and event.bounty_to is not None:  # the eliminator is named, never pinged
            text += "\n" + tourney_bounty_line(self._mention(t, event.bounty_to, ping=False), event.bounty)
        users = [event.player_id] if event.player_id > 0 else []
        table_no = entry.table_no if entry is not None else None
        where = self._channel_of_table(t, table_no) if table_no is not None else t.channel_id
        if where != t.channel_id and where not in self.threads.archived:
            await self._send(where, t.guild_id, text, users)
        await self._send(t.channel_id, t.guild_id, text, users)

    async def deliver_results(self, item: OutboxItem) -> str:
        """The outbox handler of a finished tournament's results post (owed in the commit that paid the prizes): the
        winner role, then the results with the final standings image, posted once (the key's nonce). After a restart
        the finished tournament is read from storage."""
        try:
            t = await self.service.finished(int(item.payload["tournament_id"]))
        except NoSuchTournament as exc:
            raise Permanent(str(exc)) from exc
        return str(await self._finished(t, item.key))

    async def _finished(self, t: Tournament, key: str) -> int:
        with i18n.speaking(language.for_guild(self.rt, t.guild_id)):  # a public post: the server's language
            return await self._post_results(t, key)

    async def _post_results(self, t: Tournament, key: str) -> int:
        info = self.service.info(t.tournament_id)
        winner = next((p for p, place, _ in info.results if place == 1), None)
        names = await self.names_of(t)
        mention = f"<@{winner}>" if winner is not None and winner > 0 else name_of(names, winner)
        text = tourney_results(self._title(t), mention, self.standings_text(t.tournament_id, names))
        role_id = t.config.winner_role_id
        if role_id is not None:
            winners = [p for p, place, _ in info.results if place == 1]
            reason = tourney_winner_role_reason(tourney_plain_title(t.config.title, t.tournament_id))
            if await give_role(self.rt.bot, t.guild_id, role_id, winners, reason=reason) is None:
                log.warning("tournament %s: the winner role %s could not be given", t.tournament_id, role_id)
                text = tourney_winner_role_failed(role_id) + "\n" + text
        file = await self.standings_image(t.tournament_id, Priority.BOARD, names)
        channel = self.rt.bot.get_partial_messageable(t.channel_id, guild_id=t.guild_id)
        users = [winner] if winner and winner > 0 else []
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(u) for u in users])
        try:
            view = notice(text, file)  # the standings image under the words
            message = await send_once(self.rt.bot, channel, key, None, view=view, allowed_mentions=mentions, file=file)
        except (discord.Forbidden, discord.NotFound) as exc:
            raise Permanent(str(exc)) from exc
        return message.id
