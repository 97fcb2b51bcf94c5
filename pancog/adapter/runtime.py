"""The typed container every part of the adapter shares, built once by the composition root (``setup``).

It holds the services (storage, ledger, table store, tables, player settings, health, and the optional turn
clock and computer players), the render queue, the display names the bot has seen, the ``/pan`` command group,
the open boards, and the handlers of the buttons and selects (verb -> the cog method its slash command calls
too). Nothing is added to it at run time: every field is declared here, so mypy checks each use.

The board (:mod:`.board`) and the hand panel (:mod:`.hand`) sit above this module and take the runtime; the
buttons and selects find it again from ``interaction.client`` with :func:`runtime_of`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

import discord
from discord import app_commands

from pancog.adapter.errors import guarded
from pancog.game.errors import PanError
from pancog.infra.renderq import RenderQueue
from pancog.infra.storage.base import Storage
from pancog.services.bots import BotDriver
from pancog.services.clock import TurnClock
from pancog.services.coach import CoachService
from pancog.services.health import HealthRegistry
from pancog.services.league import LeagueService
from pancog.services.ledger import ChipLedger
from pancog.services.prefs import GuildChannels, GuildDisplaySettings, PlayerSettings
from pancog.services.replay import ReplayService
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
    """What the runtime needs of a board (:class:`pancog.adapter.board.Board`): is an edit on its way, stop it."""

    @property
    def pending(self) -> bool: ...

    def stop(self) -> None: ...


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
    group: app_commands.Group
    clock: TurnClock | None = None
    bots: BotDriver | None = None
    channels: GuildChannels = field(default_factory=GuildChannels)  # /panadmin channels
    display: GuildDisplaySettings = field(default_factory=GuildDisplaySettings)  # /panadmin config four_colour
    replays: ReplayService | None = None  # hand history and replays
    coach: CoachService | None = None  # practice tables: what the person missed in each hand
    watch: WatchService | None = None  # watching a hand with consent
    league: LeagueService | None = None  # seasons, standings, ratings, stats, flags
    tournaments: TournamentService | None = None  # community tournaments
    web: WebAccess | None = None  # the guilds' league web addresses and the hands players shared
    web_address: str | None = None  # pan-web's public base address (PAN_WEB_URL / PAN_WEB_PORT); None: not running
    names: dict[int, str] = field(default_factory=dict)
    boards: dict[int, OpenBoard] = field(default_factory=dict)
    handlers: dict[str, Handler] = field(default_factory=dict)
    edit_interval: float = BOARD_EDIT_INTERVAL
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    # -- names
    def remember(self, user: discord.abc.User) -> None:
        self.names[user.id] = user.display_name

    async def save_names(self, session: TableSession) -> None:
        ids = session.player_ids()
        names = {str(i): self.names[i] for i in ids if i in self.names}
        with contextlib.suppress(PanError):
            await self.store.merge_meta(session.table_id, "names", names)

    def load_names(self, meta: str) -> None:
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            for key, value in dict(json.loads(meta).get("names", {})).items():
                self.names.setdefault(int(key), str(value))

    # -- buttons and selects
    async def dispatch(
        self, interaction: discord.Interaction[Any], table_id: int, verb: str, values: tuple[str, ...]
    ) -> None:
        """Run the handler of a button or select; every error becomes one private reply."""

        async def run() -> None:
            handler = self.handlers.get(verb)
            if handler is None:
                raise RuntimeError("no handler for the component verb " + repr(verb))
            await handler(interaction, table_id, values)

        await guarded(interaction, run, context=f"table {table_id} component {verb}")

    # -- background work
    def spawn(self, coro: Coroutine[Any, Any, None], *, name: str) -> None:
        task: asyncio.Task[None] = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def in_flight(self) -> dict[str, int]:
        """The bot's in-flight work beyond the handlers discord.py runs, by kind: background tasks (DMs, retries,
        notices), boards with unsent changes, computer players thinking or acting, renders queued or running.
        The e2e harness waits until each is 0 (and names the ones that are not); nothing is inferred from
        silence."""
        bots = self.bots
        return {
            "tasks": len(self._tasks),
            "boards": sum(1 for b in self.boards.values() if b.pending),
            "bots": int(bots is not None and bots.busy()),
            "renders": 0 if self.renders.idle() else 1,
            "tournaments": int(self.tournaments is not None and self.tournaments.busy()),
        }

    def busy(self) -> bool:
        """True while any :meth:`in_flight` work remains (tests and the benchmarks wait on it)."""
        return any(self.in_flight().values())

    async def close(self) -> None:
        """Stop the computer players, the clock and tournament steps, the boards and background tasks, the renders, then
        storage."""
        if self.bots is not None:
            await self.bots.stop()
        if self.clock is not None:
            await self.clock.stop()
        if self.tournaments is not None:  # its steps write tables and the ledger: stop them before storage closes
            await self.tournaments.stop()
        for board in self.boards.values():
            board.stop()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.renders.shutdown()
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
