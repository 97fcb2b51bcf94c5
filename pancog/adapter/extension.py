"""The discord.py extension and the adapter's one composition root.

``setup(bot)`` opens the storage, builds the services and the :class:`~pancog.adapter.runtime.PanRuntime`, the
hand side and the board (each a table-service listener), the ``/pan`` group and every cog, starts the turn
clock and the computer players, and registers the buttons and selects so old messages keep working.
The configuration comes from the bot (``bot.config``, read once by bot.py): nothing here reads the environment.
``teardown(bot)`` undoes it. To add a cog: write it (a :class:`~pancog.adapter.base.PanCog`) and add one line
to :func:`cogs` below.

bot.py loads this module, not the package: unloading an extension purges its submodules from ``sys.modules``,
and the engine, services and adapter classes must keep one identity across a reload or restart.
"""

from __future__ import annotations

import logging
import os
import socket
import time

from discord import app_commands
from discord.ext import commands

from pancog.adapter.admin_cog import AdminCog
from pancog.adapter.bank_cog import BankCog
from pancog.adapter.base import PanCog
from pancog.adapter.board import BoardButton, Boards
from pancog.adapter.deliveries import Deliveries
from pancog.adapter.effects import register_builtin
from pancog.adapter.hand import Hands, PlaySelect
from pancog.adapter.league_cog import LeagueCog
from pancog.adapter.ops_cog import OpsCog
from pancog.adapter.play_cog import PlayCog
from pancog.adapter.practice_cog import PracticeCog
from pancog.adapter.replay_cog import REPLAY_ITEMS, ReplayCog
from pancog.adapter.runtime import PanRuntime, attach, runtime_of
from pancog.adapter.table_cog import ConfirmButton, GuideSelect, TableCog
from pancog.adapter.tourney_cog import TourneyButton, TourneyCog
from pancog.infra import logs
from pancog.infra.config import Config
from pancog.infra.renderq import RenderQueue, resolve_mode
from pancog.infra.storage import ShardSet, storage_for
from pancog.services.bots import BotDriver, BotSettings
from pancog.services.clock import ClockSettings, TurnClock
from pancog.services.coach import CoachService
from pancog.services.health import HealthRegistry
from pancog.services.league import LeagueService
from pancog.services.ledger import ChipLedger
from pancog.services.names import Names
from pancog.services.outbox import Outbox
from pancog.services.prefs import GuildChannels, GuildDisplaySettings, GuildPrefsKV, PlayerSettings, StoragePrefsStore
from pancog.services.replay import ReplayService
from pancog.services.store import TableStore
from pancog.services.tables import TableService, random_deal, seeded_deals
from pancog.services.tournaments.service import TournamentService
from pancog.services.watch import WatchService
from pancog.services.web_access import WebAccess

__all__ = ["cogs", "config_of", "open_runtime", "setup", "teardown"]

log = logging.getLogger("pan.cog")


def config_of(bot: commands.Bot) -> Config:
    """The configuration the bot was built with (bot.py's PanBot carries it)."""
    config = getattr(bot, "config", None)
    if not isinstance(config, Config):
        raise TypeError("the Pan extension needs a bot built with a pancog.infra.config.Config (bot.py's PanBot)")
    return config


def cogs(
    rt: PanRuntime, boards: Boards, hands: Hands, clock: TurnClock, driver: BotDriver, config: Config
) -> list[PanCog]:
    """Every cog of the adapter, in load order. A new feature's cog is one more line here."""
    found: list[PanCog] = [
        TableCog(rt, boards),
        BankCog(rt),
        PlayCog(rt, hands, boards),
        OpsCog(rt, boards, clock),
        PracticeCog(rt, boards, driver),
        AdminCog(rt, boards),
        ReplayCog(rt),
        LeagueCog(rt, boards, due_check_seconds=config.season_check_seconds),
    ]
    if rt.tournaments is not None:
        found.append(TourneyCog(rt, rt.tournaments, tick_seconds=config.tourney_tick_seconds))
    return found


async def open_runtime(bot: commands.Bot, config: Config) -> tuple[PanRuntime, TurnClock, BotDriver]:
    """Open the storage and build the services: the runtime, its turn clock and its computer players."""
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
    league.attach(tables)  # a hand's result is recorded on its settlement's journal row (drained into the stats)
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
        ),
        health=HealthRegistry(tables, clock=clock),
        group=app_commands.Group(name="pan", description="Panguingue card tables", guild_only=True),
        outbox=outbox,
        deliveries=Deliveries(outbox, bot, poll_seconds=config.outbox_poll_seconds),
        names=Names(storage),
        clock=clock,
        bots=driver,
        replays=(replays := ReplayService(store)),
        coach=CoachService(replays),  # practice hands reviewed from their log, through the replays' cache
        watch=WatchService(tables),
        league=league,
        tournaments=TournamentService(tables),  # after the bots' driver: its listener runs after theirs
        web=WebAccess(storage),
        web_address=config.web_address,
    )
    register_builtin(rt.deliveries)  # role grants, channel posts, DMs (pancog/adapter/effects.py)
    if rt.tournaments is not None:  # a tournament's seats are its own: the clock never stands them up nor closes
        clock.keeps_seats = rt.tournaments.owns_table
        clock.plays_for = rt.tournaments.plays_for  # its sluffs of away entries are not their clock expiries
    return rt, clock, driver


async def setup(bot: commands.Bot) -> None:
    """The extension entry point (``bot.load_extension("pancog.adapter.extension")``)."""
    config = config_of(bot)
    logs.install(json_lines=config.log_json)
    rt, clock, driver = await open_runtime(bot, config)
    hands = Hands(rt)  # listeners, in this order: hand DMs, the board, then the clock and the computer players
    boards = Boards(rt)
    hands.use_boards(boards)  # a phone player's My hand shows the table over his hand
    shards = shard_set_of(bot)
    if shards is not None:  # one process of a cluster: fence off the previous owner, then load only our guilds
        epochs = await rt.store.take_leases(shards, holder=f"{socket.gethostname()}:{os.getpid()}")
        log.info("shard leases taken: %s of %d", epochs, shards.count)
        rt.outbox.set_owner(shards.owns)  # this process delivers the side effects of its own guilds only
    await rt.tables.load()
    tournaments = await rt.tournaments.load() if rt.tournaments is not None else 0
    for session in rt.tables.sessions:  # the boards render from the caches (display settings, names)
        await rt.display.get(abs(session.guild_id))
        await rt.names.fetch(rt.guild_of(session), session.player_ids())
    if rt.tournaments is not None:
        for t in rt.tournaments.tournaments:  # seats and results name their players
            await rt.names.fetch(t.guild_id, (e.player_id for e in t.entries.values()))
    attach(bot, rt)
    bot.tree.add_command(rt.group)
    tourney: TourneyCog | None = None
    for cog in cogs(rt, boards, hands, clock, driver, config):
        await bot.add_cog(cog)
        if isinstance(cog, TourneyCog):
            tourney = cog
    started = time.perf_counter()
    await clock.start()
    rt.health.load_seconds = time.perf_counter() - started
    log.info("turn clock started for %d open table(s)", len(rt.tables.sessions))
    resumed = driver.start()
    log.info("computer players started; %d open table(s) looked at", resumed)
    if tourney is not None:  # resume after a restart: seats, moves and deals re-derived from the stored rows
        await tourney.resume_all()
        log.info("tournaments resumed: %d", tournaments)
    bot.add_dynamic_items(BoardButton, PlaySelect, ConfirmButton, GuideSelect, TourneyButton, *REPLAY_ITEMS)
    rt.spawn(rt.renders.start_workers(), name="render-workers")  # fork the render workers now, not at 1st image
    rt.deliveries.start()  # what a crash left owed is delivered once the client is ready


def shard_set_of(bot: commands.Bot) -> ShardSet | None:
    """The shards this process runs (an AutoShardedBot's ``shard_ids`` of ``shard_count``), None when unsharded."""
    count = getattr(bot, "shard_count", None)
    ids = getattr(bot, "shard_ids", None)
    if not count or not ids or (count <= 1 and list(ids) == [0]):
        return None
    return ShardSet(int(count), tuple(int(i) for i in ids))


async def teardown(bot: commands.Bot) -> None:
    """Remove the cogs, the /pan group and the buttons, then close the runtime (services, storage)."""
    rt = runtime_of(bot)
    for name, cog in list(bot.cogs.items()):
        if isinstance(cog, PanCog):
            await bot.remove_cog(name)
    bot.tree.remove_command(rt.group.name)
    bot.remove_dynamic_items(BoardButton, PlaySelect, ConfirmButton, GuideSelect, TourneyButton, *REPLAY_ITEMS)
    attach(bot, None)
    await rt.close()
