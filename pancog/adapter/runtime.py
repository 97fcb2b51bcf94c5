"""The typed container every part of the adapter shares, built once by the composition root (``setup``).

It holds the services (storage, ledger, table store, tables, player settings, health, the outbox and its
deliverer, the display names the bot has seen, and the optional turn clock and computer players), the render queue,
the command groups, the open boards, and the handlers of the buttons and selects (verb -> the cog method its slash
command calls too). Nothing is added to it at run time: every field is declared here, so mypy checks each use.

The board (:mod:`.board`) and the hand panel (:mod:`.hand`) sit above this module and take the runtime; the
buttons and selects find it again from ``interaction.client`` with :func:`runtime_of`.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import discord

from pancog.adapter import edge, language
from pancog.adapter.deliveries import Deliveries
from pancog.adapter.errors import guarded
from pancog.adapter.groups import CommandGroups
from pancog.adapter.observe import Observability
from pancog.infra.ratelimit import GlobalBucket
from pancog.infra.renderq import RenderQueue
from pancog.infra.storage.base import Storage
from pancog.infra.tasks import Tasks
from pancog.services.bots import BotDriver
from pancog.services.clock import TurnClock
from pancog.services.coach import CoachService
from pancog.services.health import HealthRegistry
from pancog.services.knowledge import KnowledgeService
from pancog.services.league import LeagueService
from pancog.services.ledger import ChipLedger
from pancog.services.names import GuildNames, Names
from pancog.services.outbox import Outbox
from pancog.services.prefs import GuildChannels, GuildDisplaySettings, PlayerSettings
from pancog.services.replay import ReplayService
from pancog.services.reveals import RevealService
from pancog.services.store import TableStore
from pancog.services.tables import TableService, TableSession
from pancog.services.tournaments.service import TournamentService
from pancog.services.watch import WatchService
from pancog.services.web_access import WebAccess

__all__ = ["BOARD_EDIT_INTERVAL", "Handler", "OpenBoard", "PanRuntime", "attach", "runtime_of"]

log = logging.getLogger("pan.runtime")

BOARD_EDIT_INTERVAL = 1.0

Handler = Callable[[discord.Interaction[Any], int, tuple[str, ...]], Awaitable[None]]
"""A button or select handler: (interaction, the table id its custom_id names, the select's values or ())."""


class OpenBoard(Protocol):
    """What the runtime needs of a board (:class:`pancog.adapter.board.Board`): is an edit on its way, stop it, wait
    for a retired one to post what it owes."""

    @property
    def pending(self) -> bool: ...

    def stop(self) -> None: ...

    async def finished(self, timeout: float) -> None: ...


@dataclass(eq=False, kw_only=True)
class PanRuntime:
    """Everything the adapter shares. Built by :func:`pancog.adapter.setup`; closed by its ``teardown``."""

    bot: discord.Client
    storage: Storage
    ledger: ChipLedger
    store: TableStore
    tables: TableService
    settings: PlayerSettings
    renders: RenderQueue
    health: HealthRegistry
    outbox: Outbox  # Discord side effects owed after a commit (pancog/services/outbox.py)
    deliveries: Deliveries  # ... and their deliverer (pancog/adapter/deliveries.py, kinds in effects.py)
    names: Names  # the display names of the members the bot has seen, per guild (kept across restarts)
    groups: CommandGroups  # every command group, declared once (groups.py); a cog's commands join theirs at load
    clock: TurnClock | None = None
    bots: BotDriver | None = None
    channels: GuildChannels = field(default_factory=GuildChannels)  # /panadmin channels
    display: GuildDisplaySettings = field(default_factory=GuildDisplaySettings)  # /panadmin config four_colour
    replays: ReplayService | None = None  # hand history and replays
    coach: CoachService | None = None  # practice tables: what the person missed in each hand
    watch: WatchService | None = None  # watching a hand with consent
    reveals: RevealService | None = None  # consents to reveal a finished hand's whole deal to its players
    knowledge: KnowledgeService = field(default_factory=KnowledgeService)  # what an audience may know (the edge)
    league: LeagueService | None = None  # seasons, standings, ratings, stats, flags
    tournaments: TournamentService | None = None  # community tournaments
    budget: GlobalBucket | None = None  # Discord's global limit shared through PostgreSQL (observe.open_budget)
    observability: Observability | None = None  # /metrics and /healthz (observe.open_metrics)
    web: WebAccess | None = None  # the guilds' league web addresses and the hands players shared
    web_address: str | None = None  # pan-web's public base address (PAN_WEB_URL / PAN_WEB_PORT); None: not running
    boards: dict[int, OpenBoard] = field(default_factory=dict)
    handlers: dict[str, Handler] = field(default_factory=dict)
    edit_interval: float = BOARD_EDIT_INTERVAL
    tasks: Tasks = field(default_factory=lambda: Tasks("adapter", logger=log))  # every task of the adapter ring

    # -- names
    def remember(self, guild_id: int | None, user: discord.abc.User) -> None:
        """``user`` was seen in ``guild_id``: their display name there is stored (in a batch, only if it changed);
        0 or None: outside the bot's servers (the names at tables of no server)."""
        self.names.seen(guild_id or 0, user.id, user.display_name)

    def seen(self, interaction: discord.Interaction[Any]) -> None:
        """Remember who used an interaction and the members its options resolved (``/pan outs player:``, ...)."""
        guild_id = interaction.guild_id
        if not guild_id or self.bot.get_guild(guild_id) is None:
            guild_id = 0  # outside the bot's servers: the names of the tables of no server (user-installed practice)
        self.remember(guild_id, interaction.user)
        namespace = interaction.namespace if interaction.type is discord.InteractionType.application_command else None
        for value in vars(namespace).values() if namespace is not None else ():
            if isinstance(value, discord.Member | discord.User):
                self.remember(guild_id, value)

    def names_of(self, guild_id: int) -> GuildNames:
        """The names the cache holds for one guild: for code that cannot await a fetch."""
        return self.names.of(guild_id)

    def guild_of(self, session: TableSession) -> int:
        """The Discord server a table belongs to: its ``guild_id``, whatever its bank scope (practice chips, a
        tournament's)."""
        return session.guild_id

    def names_at(self, session: TableSession) -> GuildNames:
        """The names of a table's server (a board, a ping): its players' were fetched when the table was loaded or
        seen when they sat down."""
        return self.names.of(self.guild_of(session))

    # -- buttons and selects
    async def dispatch(
        self,
        interaction: discord.Interaction[Any],
        table_id: int,
        verb: str,
        values: tuple[str, ...],
        *,
        item: discord.ui.Item[Any] | None = None,
    ) -> None:
        """Run the handler of a button or select; every error becomes one private reply. ``item``: the dynamic
        item clicked, whose view (rebuilt by discord.py from the clicked message) nothing uses once this ends: its
        links are broken then (``edge.release``), so it is freed at once and not left to the garbage collector."""

        async def run() -> None:
            await language.enter(self, interaction)  # answers in the clicker's language
            handler = self.handlers.get(verb)
            if handler is None:
                raise RuntimeError("no handler for the component verb " + repr(verb))
            await handler(interaction, table_id, values)

        self.seen(interaction)
        try:
            await guarded(interaction, run, context=f"table {table_id} component {verb}")
        finally:
            if item is not None:
                edge.release(item.view)

    # -- background work (``tasks``: DMs, retries, notices, board editors, scheduled defers, the adapter's loops)
    def in_flight(self) -> dict[str, int]:
        """The bot's in-flight work beyond the handlers discord.py runs, by kind: background tasks (DMs, retries,
        notices), boards with unsent changes, computer players thinking or acting, renders queued or running.
        The e2e harness waits until each is 0 (and names the ones that are not); nothing is inferred from
        silence."""
        bots = self.bots
        return {
            "tasks": self.tasks.pending,
            "boards": sum(1 for b in self.boards.values() if b.pending),
            "bots": int(bots is not None and bots.busy()),
            "renders": 0 if self.renders.idle() else 1,
            "tournaments": int(self.tournaments is not None and self.tournaments.busy()),
            "outbox": int(self.deliveries.busy()),
        }

    def busy(self) -> bool:
        """True while any :meth:`in_flight` work remains (tests and the benchmarks wait on it)."""
        return any(self.in_flight().values())

    async def close(self) -> None:
        """Stop the computer players, the clock and tournament steps, the outbox's deliveries, the boards and every
        background task (each cancelled and awaited), the renders; write the names seen; then close storage."""
        if self.bots is not None:
            await self.bots.stop()
        if self.clock is not None:
            await self.clock.stop()
        if self.tournaments is not None:  # its steps write tables and the ledger: stop them before storage closes
            await self.tournaments.stop()
        await self.deliveries.stop()  # an item it was delivering stays owed: the next process delivers it
        if self.watch is not None:
            self.watch.stop()
        for board in self.boards.values():
            board.stop()
        await self.tasks.close(final=True)  # an interaction handler finishing after this starts nothing more
        await self.renders.close()
        if self.observability is not None:
            await self.observability.close()
        if self.budget is not None:
            await self.budget.close()
        try:
            await self.names.close()
        except Exception:  # the names are a convenience: a failed last write must not keep storage open
            log.exception("storing the display names at shutdown failed")
        await self.storage.close()


_RUNTIMES: weakref.WeakKeyDictionary[discord.Client, PanRuntime] = weakref.WeakKeyDictionary()


def attach(client: discord.Client, runtime: PanRuntime | None) -> None:
    """Make ``runtime`` the one :func:`runtime_of` finds for ``client`` (None: forget it). The composition root
    calls this; nothing else does."""
    if runtime is None:
        _RUNTIMES.pop(client, None)
    else:
        _RUNTIMES[client] = runtime


def runtime_of(client: discord.Client) -> PanRuntime:
    """The runtime of ``client`` (raises if the Pan extension is not loaded)."""
    found = _RUNTIMES.get(client)
    if found is None:
        raise RuntimeError("the Pan extension is not loaded")
    return found
