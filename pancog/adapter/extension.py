"""The discord.py extension and the adapter's one composition root.

``setup(bot)`` opens the storage, builds the services and the :class:`~pancog.adapter.runtime.PanRuntime`, wires
the services to each other (:func:`open_runtime`: every registration method of a service is called here and nowhere
else), builds the hand side and the board (each a table-service listener), the ``/pan`` group and every cog, wires
the table-closed listeners (:func:`on_table_closed`) and the verb table of the buttons and selects
(:func:`verb_table`), starts the turn clock and the computer players, and registers the buttons and selects so old
messages keep working. The configuration comes from the bot (``bot.config``, read once by bot.py): nothing here
reads the environment. ``teardown(bot)`` undoes it. To add a cog: write it (a
:class:`~pancog.adapter.base.PanCog`) and add one line to :func:`cogs` below.

bot.py loads this module, not the package: unloading an extension purges its submodules from ``sys.modules``,
and the engine, services and adapter classes must keep one identity across a reload or restart.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from discord.ext import commands

from pancog.adapter import edge, language
from pancog.adapter.admin_cog import AdminCog
from pancog.adapter.bank_cog import BankCog
from pancog.adapter.base import PanCog
from pancog.adapter.board import BoardButton, Boards
from pancog.adapter.deliveries import Deliveries
from pancog.adapter.effects import register_builtin, register_tourney_events
from pancog.adapter.groups import CommandGroups
from pancog.adapter.hand import Hands, PlaySelect
from pancog.adapter.league_cog import SEASON_ENDED_EVENT, LeagueCog
from pancog.adapter.observe import open_budget, open_metrics
from pancog.adapter.ops_cog import OpsCog
from pancog.adapter.play_cog import PlayCog
from pancog.adapter.practice_cog import PracticeCog
from pancog.adapter.replay_cog import REPLAY_ITEMS, ReplayCog
from pancog.adapter.runtime import Handler, PanRuntime, attach, runtime_of
from pancog.adapter.table_cog import ConfirmButton, GuideSelect, TableCog
from pancog.adapter.tourney_buttons import CheckInButton
from pancog.adapter.tourney_cog import TourneyCog
from pancog.adapter.tourney_parts import TourneyButton, TourneyThreads
from pancog.adapter.tourney_play_cog import DealButton, TourneyPlayCog
from pancog.adapter.tourney_purse_cog import TourneyPurseCog
from pancog.adapter.tourney_schedule_cog import TourneyScheduleCog
from pancog.adapter.watching import WatchButton, Watching
from pancog.infra import logs
from pancog.infra.config import Config
from pancog.infra.renderq import RenderQueue, resolve_mode
from pancog.infra.storage import ShardSet, storage_for
from pancog.services.bots import BotDriver, BotSettings, verify_seat
from pancog.services.clock import ClockSettings, TurnClock
from pancog.services.coach import CoachService
from pancog.services.health import HealthRegistry
from pancog.services.knowledge import KnowledgeService
from pancog.services.league import LeagueService
from pancog.services.ledger import ChipLedger
from pancog.services.names import Names
from pancog.services.outbox import Outbox
from pancog.services.prefs import GuildChannels, GuildDisplaySettings, GuildPrefsKV, PlayerSettings, StoragePrefsStore
from pancog.services.replay import ReplayService
from pancog.services.reveals import RevealService
from pancog.services.store import TableStore
from pancog.services.tables import TableService, TableSession, random_deal, seeded_deals
from pancog.services.tournaments.schedules import ANNOUNCE
from pancog.services.tournaments.service import RESULTS_POST, TournamentService
from pancog.services.watch import WatchService
from pancog.services.web_access import WebAccess
from renderer import render_hand_png
from renderer.hand import warm_up as warm_hand_strip

__all__ = ["Parts", "cogs", "config_of", "on_table_closed", "open_runtime", "setup", "teardown", "verb_table"]

log = logging.getLogger("pan.cog")


def config_of(bot: commands.Bot) -> Config:
    """The configuration the bot was built with (bot.py's PanBot carries it)."""
    config = getattr(bot, "config", None)
    if not isinstance(config, Config):
        raise TypeError("the Pan extension needs a bot built with a pancog.infra.config.Config (bot.py's PanBot)")
    return config


@dataclass(frozen=True, slots=True)
class Parts:
    """What :func:`open_runtime` builds for the rest of the root: the runtime and the parts its cogs are given."""

    rt: PanRuntime
    clock: TurnClock
    driver: BotDriver
    watch: WatchService
    threads: TourneyThreads  # the tournament tables' threads: the tournament service's channel factory


class AnswersComponents(Protocol):
    """A part that answers buttons or selects: verb -> handler."""

    def handlers(self) -> Mapping[str, Handler]: ...


def cogs(parts: Parts, boards: Boards, hands: Hands, watching: Watching, config: Config) -> list[PanCog]:
    """Every cog of the adapter, in load order. A new feature's cog is one more line here."""
    rt, clock, driver = parts.rt, parts.clock, parts.driver
    found: list[PanCog] = [
        TableCog(rt, boards),
        BankCog(rt, watching),
        PlayCog(rt, hands, boards, watching),
        OpsCog(rt, boards, clock),
        PracticeCog(rt, boards, driver),
        AdminCog(rt, boards),
        ReplayCog(rt),
        LeagueCog(rt, due_check_seconds=config.season_check_seconds),
    ]
    if rt.tournaments is not None:
        tourney = TourneyCog(rt, rt.tournaments, parts.threads, tick_seconds=config.tourney_tick_seconds)
        found += [
            tourney,
            TourneyPlayCog(rt, rt.tournaments, tourney),
            TourneyPurseCog(rt, rt.tournaments, tourney.pick),
            TourneyScheduleCog(rt, tourney),
        ]
    return found


def verb_table(*parts: AnswersComponents) -> dict[str, Handler]:
    """The one verb table of the buttons and selects (their custom_id carries the verb): every part's handlers,
    each verb answered by exactly one part."""
    table: dict[str, Handler] = {}
    for part in parts:
        for verb, handler in part.handlers().items():
            if verb in table:
                raise RuntimeError("two handlers for the component verb " + repr(verb))
            table[verb] = handler
    return table


async def open_runtime(bot: commands.Bot, config: Config) -> Parts:
    """Open the storage, build the services and wire them to each other: the runtime, its turn clock, its computer
    players, and the tournament tables' threads."""
    storage = storage_for(config.database)  # a SQLite path or a DATABASE_URL
    await storage.open()
    ledger = ChipLedger(storage)
    store = TableStore(storage)
    seed = config.deal_seed  # reproducible deals (tests, benchmarks) when set
    tables = TableService(ledger, store, dealer=seeded_deals(seed) if seed is not None else random_deal)
    clock_settings = ClockSettings(
        time_bank_seconds=config.time_bank_seconds,
        idle_close_seconds=config.idle_close_seconds,
        time_scale=config.clock_scale,
    )
    clock = TurnClock(tables, clock_settings)
    bot_settings = BotSettings(
        delay=config.bot_delay, next_hand_delay=config.bot_next_hand_delay, hard_budget_ms=config.bot_hard_budget_ms
    )
    driver = BotDriver(tables, bot_settings)
    outbox = Outbox(storage)
    league = LeagueService(storage, ledger, outbox=outbox)
    # chip leagues: every hand is followed, and its result recorded on its settlement's journal row (drained into
    # the stats), in the settlement's transaction
    tables.subscribe(league.on_applied)
    tables.set_settlement_hook(league.settlement_note)
    # computer players: who may sit at a practice table (its host and computer players only), and an away person's
    # seat on an away_bot table played by the normal level
    tables.add_seat_guard(verify_seat)
    tables.set_stand_in(driver.stand_in)
    watch = WatchService(tables)
    tables.add_seat_guard(watch.verify_seat)  # a member watching a hand at a table may not sit there
    threads = TourneyThreads(bot)  # a tournament's tables get threads of its channel
    tournaments = TournamentService(
        tables, channel_factory=threads.create, outbox=outbox
    )  # its listener runs after the league's
    # a finished tournament's result rides on its prizes' journal row (the league drains it into stats, ratings, series)
    tournaments.set_finish_hook(league.tournament_note)
    clock.keep_seats_of(tournaments)  # a tournament's seats are its own: never stood up, its tables never idle-closed
    replays = ReplayService(store)
    reveals = RevealService(store, replays)
    rt = PanRuntime(
        bot=bot,
        storage=storage,
        ledger=ledger,
        store=store,
        tables=tables,
        settings=PlayerSettings(StoragePrefsStore(storage)),
        channels=GuildChannels(GuildPrefsKV(StoragePrefsStore(storage))),
        display=GuildDisplaySettings(GuildPrefsKV(StoragePrefsStore(storage))),
        # every PNG goes through this (pancog/infra/renderq/): worker processes forked from a server that has the
        # renderer loaded and every sprite drawn (renderer/preload.py), or threads (PAN_RENDER_MODE=thread)
        renders=RenderQueue(
            config.render_threads,
            mode=resolve_mode(config.render_mode),
            preload=("renderer.preload",),
            nice=config.render_nice,
            # the hand strip (~0.3 ms, cards and fixed words only) drawn on the event loop: a worker's round
            # trip and its cold start after an idle wait cost more than the drawing (PAN_RENDER_HANDS_INLINE)
            inline=(render_hand_png,) if config.render_hands_inline else (),
        ),
        health=HealthRegistry(tables, clock=clock),
        outbox=outbox,
        deliveries=Deliveries(outbox, bot, poll_seconds=config.outbox_poll_seconds),
        names=Names(storage),
        groups=CommandGroups(bot.tree),  # /pan, /panadmin, /panadmin season, /tourney: declared in groups.py
        clock=clock,
        bots=driver,
        replays=replays,
        coach=CoachService(replays),  # practice hands reviewed from their log, through the replays' cache
        watch=watch,
        reveals=reveals,
        knowledge=knowledge_service(watch, reveals, replays),  # what each audience may know: the edge asks it
        league=league,
        tournaments=tournaments,
        web=WebAccess(storage),
        web_address=config.web_address,
        edit_interval=config.board_interval,  # PAN_BOARD_INTERVAL: how often a board may be edited
    )
    register_builtin(rt.deliveries)  # role grants, channel posts, DMs (pancog/adapter/effects.py)
    return Parts(rt, clock, driver, watch, threads)


def on_table_closed(parts: Parts, boards: Boards) -> None:
    """Whatever keeps something per table lets it go when the table closes, for any reason (host, moderator, idle,
    deleted channel, season end, tournament): one event, ``TableService.on_close``, in this order."""
    rt = parts.rt
    tables = rt.tables
    tables.on_close(boards.table_closed)  # the board (after the summaries it owes) and the turn ping
    tables.on_close(parts.clock.table_closed)
    tables.on_close(parts.driver.table_closed)
    tables.on_close(rt.health.table_closed)
    tables.on_close(parts.watch.table_closed)  # its grants end
    for service in (rt.replays, rt.league):  # its replayed log, the tally of a hand it never finished
        if service is not None:
            tables.on_close(service.table_closed)
    if rt.coach is not None:
        tables.on_close(rt.coach.table_closed)  # its players' last reviews


async def setup(bot: commands.Bot) -> None:
    """The extension entry point (``bot.load_extension("pancog.adapter.extension")``)."""
    config = config_of(bot)
    logs.install(json_lines=config.log_json)
    parts = await open_runtime(bot, config)
    rt, clock, driver = parts.rt, parts.clock, parts.driver
    hands = Hands(rt)  # listeners, in this order: hand DMs, the board, then the clock and the computer players
    boards = Boards(rt)
    hands.use_boards(boards)  # a phone player's My hand shows the table over his hand
    on_table_closed(parts, boards)
    watching = Watching(rt, parts.watch)
    shards = shard_set_of(bot)
    if shards is not None:  # one process of a cluster: fence off the previous owner, then load only our guilds
        member = getattr(bot, "member", None)  # bot.py --cluster on PostgreSQL claimed them already (waiting its turn)
        if member is not None and member.epochs:
            epochs = dict(member.epochs)
            rt.store.use_leases(shards, epochs)
        else:
            epochs = await rt.store.take_leases(shards, holder=f"{socket.gethostname()}:{os.getpid()}")
        log.info("shard leases taken: %s of %d", epochs, shards.count)
        rt.outbox.set_owner(shards.owns)  # this process delivers the side effects of its own guilds only
    await rt.tables.load()
    tournaments = await rt.tournaments.load() if rt.tournaments is not None else 0
    for session in rt.tables.sessions:  # the boards render from the caches (display settings, names)
        await rt.display.get(session.guild_id)
        await rt.names.fetch(rt.guild_of(session), session.player_ids())
    if rt.tournaments is not None:
        for t in rt.tournaments.tournaments:  # seats and results name their players
            await rt.names.fetch(t.guild_id, (e.player_id for e in t.entries.values()))
    attach(bot, rt)
    await bot.tree.set_translator(language.CommandTranslator())  # descriptions in Discord's Spanish locales
    found = cogs(parts, boards, hands, watching, config)
    rt.handlers.update(verb_table(*found, watching))  # the buttons' and selects' verbs, each to its one handler

    def names_at(session: TableSession | None, guild_id: int | None) -> Mapping[int, str]:
        return rt.names_at(session) if session is not None else rt.names_of(guild_id or 0)

    edge.attach(bot, edge.Guard(rt.knowledge, rt.tables, names_at))  # every payload is checked from here on
    tourney: TourneyCog | None = None
    schedule: TourneyScheduleCog | None = None
    member = getattr(bot, "member", None)  # a cluster process: events from the others (pancog/infra/coord.py)
    for cog in found:
        await bot.add_cog(cog)
        if isinstance(cog, TourneyCog):
            tourney = cog
        if isinstance(cog, TourneyScheduleCog):
            schedule = cog
        if isinstance(cog, LeagueCog) and member is not None:
            member.subscribe(SEASON_ENDED_EVENT, cog.season_ended)
    parts.watch.start()  # hand ends and players leaving end grants
    started = time.perf_counter()
    await clock.start()
    rt.health.loaded(time.perf_counter() - started)
    log.info("turn clock started for %d open table(s)", len(rt.tables.sessions))
    resumed = driver.start()
    log.info("computer players started; %d open table(s) looked at", resumed)
    if tourney is not None:  # the results post a finish owes (in its transaction), delivered once the client is ready
        rt.deliveries.register(RESULTS_POST, tourney.deliver_results, group=lambda i: f"tourney:{i.guild_id}")
        register_tourney_events(rt.deliveries, tourney.service, lambda guild_id: language.for_guild(rt, guild_id))
    if schedule is not None:  # a weekly occurrence's announcement, owed with its creation
        rt.deliveries.register(ANNOUNCE, schedule.deliver_announcement)
    if tourney is not None:  # resume after a restart: seats, moves and deals re-derived from the stored rows
        await tourney.resume_all()
        log.info("tournaments resumed: %d", tournaments)
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
    rt.tasks.spawn(rt.renders.start_workers(), name="render-workers")  # fork the render workers now, not at 1st image
    if render_hand_png in rt.renders.inline:  # hands are drawn on the loop: their fonts and sprites loaded now, off it
        rt.tasks.spawn(asyncio.to_thread(warm_hand_strip), name="warm-hands")
    rt.deliveries.start()  # what a crash left owed is delivered once the client is ready
    rt.budget = await open_budget(bot, config, rt.storage)
    rt.observability = await open_metrics(
        bot, config, storage=rt.storage, store=rt.store, tables=rt.tables, renders=rt.renders, bucket=rt.budget
    )


def knowledge_service(watch: WatchService, reveals: RevealService, replays: ReplayService) -> KnowledgeService:
    """What each audience may know, from the watch grants, the reveal consents and the replayed logs."""

    def watching(table_id: int, user_id: int) -> tuple[int, ...]:
        return tuple(g.player_id for g in watch.watching(table_id, user_id))

    return KnowledgeService(watching=watching, revealed=reveals.revealed_to, past=replays.past_hands)


DYNAMIC_ITEMS = (
    BoardButton,
    PlaySelect,
    ConfirmButton,
    GuideSelect,
    TourneyButton,
    DealButton,
    CheckInButton,
    WatchButton,
    *REPLAY_ITEMS,
)
"""The buttons and selects found again from their custom_id (old messages keep working after a restart)."""


def shard_set_of(bot: commands.Bot) -> ShardSet | None:
    """The shards this process runs (an AutoShardedBot's ``shard_ids`` of ``shard_count``), None when unsharded."""
    count = getattr(bot, "shard_count", None)
    ids = getattr(bot, "shard_ids", None)
    if not count or not ids or (count <= 1 and list(ids) == [0]):
        return None
    return ShardSet(int(count), tuple(int(i) for i in ids))


async def teardown(bot: commands.Bot) -> None:
    """Remove the cogs (each takes its commands out of their groups), the groups and the buttons, then close the
    runtime (services, storage)."""
    rt = runtime_of(bot)
    for name, cog in list(bot.cogs.items()):
        if isinstance(cog, PanCog):
            await bot.remove_cog(name)
    rt.groups.detach()
    await bot.tree.set_translator(None)
    bot.remove_dynamic_items(*DYNAMIC_ITEMS)
    rt.handlers.clear()
    attach(bot, None)
    edge.attach(bot, None)
    await rt.close()
