"""TournamentService: runs Sit & Gos and scheduled multi-table events on the TableService (no discord import).

The service is the one door the adapter uses; behind it each room has one job:

* :mod:`.registry` — tournaments and entries: create, register, refunds, cancel, away players;
* :mod:`.floor` — the tables of a running tournament: seat, balance, break, eliminate, final table, finish;
* :mod:`.clock` — levels, breaks, pauses, late registration, scheduled starts;
* :mod:`.rules` (pure) with :mod:`.levels`, :mod:`.balancer`, :mod:`.payouts`, :mod:`.ranking` — what may happen and
  what it posts;
* :mod:`.core` — the tournaments in memory, their locks, and the commit path: compute on a draft, commit it with its
  postings in one transaction, then swap it into memory (a failed write changes nothing in memory).

Chips (see :mod:`.rules`): buy-ins in escrow, tournament chips in the tournament's own bank scope
(``BankScope.tournament(T)``), prizes from escrow. A tournament's tables are its guild's tables (``guild_id`` is the
guild: settings, names, shard) that buy in from the tournament's scope. Every movement has a key ``tny:<T>:...``; every
step writes its tournament rows in the same transaction as its postings, and every table step is re-derived from
the stored state (:meth:`TournamentService.load` then :meth:`TournamentService.kick`), so a SIGKILL anywhere resumes
exactly.

In a cluster a tournament lives on the process that owns its guild's shard: only those are loaded, every write is
fenced by the shard lease, and a tournament whose guild is not (or no longer) this process's is skipped with a log
line, never an exception out of start-up or the clock.

Events for an adapter (:meth:`subscribe`): :class:`TableOpened`, :class:`PlayerMoved`, :class:`PlayerOut`,
:class:`LevelUp`, :class:`TournamentStarted`, :class:`TournamentFinished`, :class:`TournamentCancelled`.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from pancog.game.actions import SetAway
from pancog.game.events import HandEnded
from pancog.game.i18n import N_
from pancog.infra.storage.base import Account, AccountKind, ShardLeaseLost
from pancog.services.outbox import Outbox
from pancog.services.tables import Applied, NoTableHere, NotHost, TableService

from . import purse, rules
from .checkin import CheckIn
from .clock import Clock
from .core import RESULTS_POST, Also, ChannelFactory, Core, FinishHook
from .deal import Deal, DealDesk
from .errors import NoSuchTournament, TournamentStateError
from .events import (
    LevelUp,
    PlayerMoved,
    PlayerOut,
    PlayerSeated,
    TableOpened,
    TournamentCancelled,
    TournamentEvent,
    TournamentFinished,
    TournamentInfo,
    TournamentStarted,
)
from .floor import Floor, NotServedHere
from .model import Entry, EntryStatus, Status, Tournament, TournamentConfig
from .payouts import prizes
from .purse import purse_audit
from .registry import Registry
from .repository import TournamentRepository
from .schedules import Schedules

__all__ = [
    "RESULTS_POST",
    "ChannelFactory",
    "LevelUp",
    "PlayerMoved",
    "PlayerOut",
    "PlayerSeated",
    "TableOpened",
    "TournamentCancelled",
    "TournamentEvent",
    "TournamentFinished",
    "TournamentInfo",
    "TournamentService",
    "TournamentStarted",
]

log = logging.getLogger("pan.tournaments")


class TournamentService:
    """Every tournament of the guilds this process serves; the adapter calls these methods and listens to the
    events."""

    def __init__(
        self,
        tables: TableService,
        *,
        repository: TournamentRepository | None = None,
        clock: Callable[[], float] = time.time,
        channel_factory: ChannelFactory | None = None,
        outbox: Outbox | None = None,
    ) -> None:
        """``channel_factory(t, table_no)`` creates the channel a new table is played in (the adapter: a thread of the
        tournament's channel, given by the composition root) and returns its id; without one a table's channel is
        its own id (tests). ``outbox``: where the results post is owed, in the transaction that pays the prizes
        (kind :data:`RESULTS_POST`); without one nothing is owed (service tests)."""
        self.tables = tables
        self.ledger = tables.ledger
        self.repo = repository or TournamentRepository()
        self._core = Core(tables, self.repo, clock, outbox=outbox)
        self._clock = Clock(self._core)
        self._floor = Floor(self._core, self._clock, channel_factory)
        self._registry = Registry(self._core, self._clock, self._floor)
        self._desk = DealDesk(self._core, self._floor)
        self._checkin = CheckIn(self._core)
        self.schedules = Schedules(self._core, self._registry)  # templates, weekly schedules, Scheduled Events
        self._floor.keep_deals(self._desk)
        tables.subscribe(self._on_applied)

    # ------------------------------------------------------------------ listeners and the clock

    def set_finish_hook(self, hook: FinishHook) -> None:
        """Record each finished tournament's result with its prizes, in the same transaction (the chip leagues: the
        composition root registers ``LeagueService.tournament_note``). One hook: the journal row has one result."""
        self._core.use_finish_hook(hook)

    def subscribe(self, listener: Callable[[TournamentEvent], None]) -> None:
        self._core.subscribe(listener)

    def use_clock(self, clock: Callable[[], float]) -> None:
        """Replace the clock the levels run on (``bench/tournament.py``: a clock that advances with the hands played,
        as the tournament simulation's does). Call before the first tournament is created."""
        self._core.use_clock(clock)

    # ------------------------------------------------------------------ what the turn clock asks

    def tournament_of_table(self, table_id: int) -> int | None:
        """The tournament a TableService table belongs to (None for a cash table). The adapter refuses /pan join,
        rebuy and leave there: seats, chips and moves are the tournament's."""
        return self._core.by_table.get(table_id)

    def owns_table(self, table_id: int) -> bool:
        """True for a tournament's table (the turn clock leaves its seats and its life to this service)."""
        return table_id in self._core.by_table

    def plays_for(self, table_id: int, player_id: int) -> bool:
        """True when ``player_id`` is away in the tournament at ``table_id``: the service sluffs his turns itself (its
        Timeouts are not his clock expiries)."""
        tid = self._core.by_table.get(table_id)
        t = self._core.tournaments.get(tid) if tid is not None else None
        return t is not None and player_id in self._floor.away(t)

    # ------------------------------------------------------------------ reads

    def get(self, tournament_id: int) -> Tournament:
        return self._core.get(tournament_id)

    @property
    def tournaments(self) -> tuple[Tournament, ...]:
        return tuple(self._core.tournaments.values())

    def level(self, t: Tournament) -> tuple[int, int, bool, float]:
        """(0-based level, ante, on break, seconds to the next change) by the tournament's running clock."""
        now = self._clock.now(t)
        return now.level, now.ante, now.on_break, now.seconds_left

    def registration_open(self, t: Tournament) -> bool:
        return self._clock.registration_open(t)

    def hand_for_hand(self, tournament_id: int) -> tuple[int, ...] | None:
        """None unless the tournament plays hand-for-hand on the bubble; else the tables (numbers) still playing the
        round's hand, which every other table waits for (empty: the next round is about to be dealt)."""
        return self._floor.hand_for_hand(self.get(tournament_id))

    # ------------------------------------------------------------------ life cycle

    async def load(self) -> int:
        """Read every tournament that is not over (after ``TableService.load``) — in a cluster only those of the
        guilds on this process's shards — then call :meth:`kick`."""
        found = await self._registry.load(self.tables.store.shards)
        await self.schedules.load(self.tables.store.shards)
        async with self.ledger.storage.transaction(write=False) as tx:
            await self._desk.load(tx, list(self._core.tournaments))
            await self._checkin.load(tx, list(self._core.tournaments))
        return found

    async def finished(self, tournament_id: int) -> Tournament:
        """A tournament, read from storage if it is not in memory (a finished one is not loaded at start-up: the
        results post a restart still owes reads it here)."""
        with contextlib.suppress(NoSuchTournament):
            return self._core.get(tournament_id)
        async with self.ledger.storage.transaction(write=False) as tx:
            found = await self.repo.load(tx, active_only=False, tournament_id=tournament_id)
        if not found:
            raise NoSuchTournament
        (t,) = found
        if t.tournament_id not in self._core.tournaments:
            self._core.add(t)
        return self._core.get(tournament_id)

    async def kick(self) -> None:
        """Resume: re-derive every running tournament's next steps (seats, moves, deals) and start due ones. A
        tournament that cannot be resumed here is logged and skipped; the others go on."""
        for t in list(self._core.tournaments.values()):
            if t.status is Status.RUNNING:
                await self._step(t, self._floor.between_hands)
                for tt in t.open_tables():  # an away player's pending turn
                    with contextlib.suppress(NoTableHere):
                        self._floor.play_away(self.tables.get(tt.table_id), t)
        await self.tick()

    async def tick(self) -> None:
        """Periodic work (every few seconds): scheduled starts and cancellations, deals after breaks and pauses. One
        tournament's failure is logged and never stops the others."""
        for t in list(self._core.tournaments.values()):
            await self._step(t, self._tick_one)
        await self.schedules.tick()  # occurrences due to be announced; the Scheduled Events' status changes

    async def _tick_one(self, t: Tournament) -> None:
        if self._clock.due(t) is not None:  # the start time: who did not check in is refunded first
            await self._checkin.drop_no_shows(t)
        due = self._clock.due(t)
        if due == "start":
            await self._floor.start(t)
        elif due == "cancel":
            await self._registry.cancel(t)
        elif t.status is Status.RUNNING:
            await self._floor.between_hands(t)

    async def _step(self, t: Tournament, step: Callable[[Tournament], Awaitable[None]]) -> None:
        """Run a clock or start-up step of ``t`` under its lock; its failure is logged (a tournament this process no
        longer serves is dropped from memory), never raised."""
        try:
            async with self._core.lock(t.tournament_id):
                if self._core.tournaments.get(t.tournament_id) is t:
                    await step(t)
        except ShardLeaseLost as exc:
            log.error("tournament %s: %s; this process no longer serves its guild: dropped", t.tournament_id, exc)
            self._core.forget(t)
        except NotServedHere as exc:
            log.warning("%s: skipped", exc)
        except Exception:
            log.exception("tournament %s: step failed; retried at the next tick", t.tournament_id)

    async def create(
        self,
        tournament_id: int,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        config: TournamentConfig,
        announce_only: bool = False,
        also: Also | None = None,
    ) -> Tournament:
        """A new tournament (``tournament_id``: a fresh snowflake; also the bank scope of its chips). ``also(tx,
        tournament_id)``: stored with it in the same transaction (the league listing it in a series); what it raises
        refuses the creation, and nothing is stored."""
        return await self._registry.create(
            tournament_id,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            config=config,
            announce_only=announce_only,
            also=also,
        )

    async def open_registration(self, tournament_id: int, user_id: int, *, moderator: bool = False) -> None:
        t = self._host(tournament_id, user_id, moderator)
        async with self._core.lock(tournament_id):
            await self._registry.open_registration(t)

    def _host(self, tournament_id: int, user_id: int, moderator: bool) -> Tournament:
        t = self.get(tournament_id)
        if user_id != t.host_id and not moderator:
            raise NotHost
        return t

    async def register(self, tournament_id: int, player_id: int) -> Entry:
        """Buy in (or re-enter, or register late).

        Raises:
            RegistrationClosed, AlreadyRegistered, TournamentFull, BadTournamentOption (computer players not allowed),
            pancog.services.ledger.InsufficientChips (the bank is short; nothing changed).
        """
        t = self.get(tournament_id)
        async with self._core.lock(tournament_id):
            return await self._registry.register(t, player_id)

    async def unregister(self, tournament_id: int, player_id: int) -> int:
        """Refund a registration before the start; returns the chips refunded. Raises NotRegistered, ..."""
        t = self.get(tournament_id)
        async with self._core.lock(tournament_id):
            return await self._registry.unregister(t, player_id)

    async def start(self, tournament_id: int, user_id: int, *, moderator: bool = False) -> None:
        """Start now (host or moderator) if the minimum field is met."""
        t = self._host(tournament_id, user_id, moderator)
        async with self._core.lock(tournament_id):
            if t.status is not Status.REGISTERING:
                raise TournamentStateError(N_("Only a tournament taking registrations can start."))
            if len([e for e in t.entries.values() if e.status is EntryStatus.REGISTERED]) < t.config.min_entries:
                raise TournamentStateError(N_("At least {n} entries are needed to start."), n=t.config.min_entries)
            await self._checkin.drop_no_shows(t)
            if len([e for e in t.entries.values() if e.status is EntryStatus.REGISTERED]) < 2:
                raise TournamentStateError(N_("Fewer than two players checked in: the tournament cannot start."))
            await self._floor.start(t)

    async def pause(self, tournament_id: int, user_id: int, *, moderator: bool = False) -> None:
        """Stop the clock: hands in progress finish, no new hand is dealt."""
        t = self._host(tournament_id, user_id, moderator)
        async with self._core.lock(tournament_id):
            await self._clock.pause(t)

    async def resume(self, tournament_id: int, user_id: int, *, moderator: bool = False) -> None:
        t = self._host(tournament_id, user_id, moderator)
        async with self._core.lock(tournament_id):
            await self._clock.resume(t)
            await self._floor.between_hands(t)

    async def cancel(self, tournament_id: int, user_id: int, *, moderator: bool = False) -> dict[int, int]:
        """Cancel: every entry is refunded its whole buy-in (fee included); tables close."""
        t = self._host(tournament_id, user_id, moderator)
        async with self._core.lock(tournament_id):
            return await self._registry.cancel(t)

    async def rebuy(self, tournament_id: int, player_id: int) -> Entry:
        """Buy a starting stack again during the rebuy period, when at or below the rebuy limit (one journal: the
        buy-in into the prize pool, the chips into the player's tournament bank, at the table between hands).

        Raises:
            TournamentNotRunning, NotRegistered, RebuyRefused, InsufficientChips (nothing changed).
        """
        t = self.get(tournament_id)
        async with self._core.lock(tournament_id):
            entry = await self._floor.cashier.rebuy(t, player_id, addon=False)
        self._core.spawn(self._floor.after_hand(t))  # the chips to the table between hands (steps coalesce)
        return entry

    async def addon(self, tournament_id: int, player_id: int) -> Entry:
        """The one add-on at the end of the rebuy period (any stack). Raises as :meth:`rebuy`."""
        t = self.get(tournament_id)
        async with self._core.lock(tournament_id):
            entry = await self._floor.cashier.rebuy(t, player_id, addon=True)
        self._core.spawn(self._floor.after_hand(t))
        return entry

    async def remember_announcement(self, tournament_id: int, channel_id: int, message_id: int) -> None:
        """Store the announcement message the adapter edits (live entry count, buttons), so it survives a restart."""
        await self._registry.remember_announcement(self.get(tournament_id), channel_id, message_id)

    async def set_away(self, tournament_id: int, player_id: int, away: bool) -> None:
        """An away player is dealt in and goes on top automatically (loses only the ante)."""
        await self._registry.set_away(self.get(tournament_id), player_id, away)

    async def back(self, table_id: int, player_id: int) -> bool:
        """``/pan back`` at a tournament table: the player's entry is no longer away, so their turns are theirs again
        (no more automatic sluff). False when the table is not a tournament's or the player was not away there."""
        if not self.plays_for(table_id, player_id):
            return False
        await self.set_away(self._core.by_table[table_id], player_id, False)
        return True

    # ------------------------------------------------------------------ final-table deals

    def deal(self, tournament_id: int) -> Deal | None:
        """The tournament's deal (asked, proposed or made), if any."""
        return self._desk.deals.get(tournament_id)

    async def propose_deal(
        self, tournament_id: int, user_id: int, kind: str, keep: int = 0, *, moderator: bool = False
    ) -> Deal:
        """A chip chop (``chip``) or ICM (``icm``) split of the prizes still to be won, ``keep`` chips left to play
        for: proposed now between hands, else when the hand in progress ends (no new hand until it is answered).

        Raises:
            BadDeal, NotTournamentHost (neither a player left, the host nor a moderator).
        """
        t = self.get(tournament_id)
        async with self._core.lock(tournament_id):
            return await self._desk.propose(t, user_id, kind, keep, moderator=moderator)

    async def accept_deal(self, tournament_id: int, player_id: int) -> Deal:
        """Accept the proposed deal; the last acceptance pays it (and ends the tournament, unless a part is left to
        play for). Raises NoDeal, NotInDeal (a bystander), DealAlreadyAccepted (a second click)."""
        t = self.get(tournament_id)
        async with self._core.lock(tournament_id):
            return await self._desk.accept(t, player_id)

    async def decline_deal(self, tournament_id: int, user_id: int, *, moderator: bool = False) -> None:
        """Decline (withdraw) the deal not yet made: play goes on. Raises NoDeal, NotInDeal."""
        t = self.get(tournament_id)
        async with self._core.lock(tournament_id):
            await self._desk.decline(t, user_id, moderator=moderator)

    # ------------------------------------------------------------------ check-in

    def checkin_window(self, tournament_id: int) -> tuple[int, int] | None:
        """(opens, closes) of the tournament's check-in in epoch ms; None when it has none."""
        return self._checkin.window(self.get(tournament_id))

    def checked_in(self, tournament_id: int, player_id: int) -> bool:
        return self._checkin.checked_in(self.get(tournament_id), player_id)

    async def check_in(self, tournament_id: int, player_id: int) -> None:
        """A registered player checks in during the last ``checkin_minutes`` before the start; at the start the
        registered people who did not are unregistered and refunded (one journal).

        Raises:
            RegistrationClosed (no check-in here, not open yet, over, already checked in), NotRegistered.
        """
        t = self.get(tournament_id)
        async with self._core.lock(tournament_id):
            await self._checkin.check_in(t, player_id)

    # ------------------------------------------------------------------ the table loop

    def _on_applied(self, applied: Applied) -> None:
        tid = self._core.by_table.get(applied.session.table_id)
        t = self._core.tournaments.get(tid) if tid is not None else None
        if t is None:
            return
        action = applied.action
        if isinstance(action, SetAway) and not action.away and applied.actor is not None:
            self._floor.came_back(t, applied.actor)
        if any(isinstance(e, HandEnded) for e in applied.events):
            self._core.spawn(self._floor.after_hand(t))
        else:
            self._floor.play_away(applied.session, t)

    def busy(self) -> bool:
        """True while a tournament step (between hands, a timeout for an away player) is pending."""
        return self._core.tasks.busy()

    async def stop(self) -> None:
        """Cancel the pending tournament steps (shutdown, before storage closes). Safe at any point: every step is
        crash-safe, and :meth:`kick` re-derives what was left undone at the next start."""
        await self._core.tasks.close()

    async def drain(self) -> None:
        """Wait until no tournament step is pending (tests)."""
        await self._core.tasks.drain()

    # ------------------------------------------------------------------ reads and audit

    async def audit(self, tournament_id: int) -> list[str]:
        """The tournament's invariants (empty = all hold): its chips conserved in their scope, escrow empty at the
        end, the prizes equal to the pool, each open table's engine stacks equal to the ledger."""
        t = self.get(tournament_id)
        problems: list[str] = []
        escrow = Account.escrow(t.tournament_id)
        chips = rules.chips_scope(t)
        players = {e.player_id for e in t.entries.values()}
        table_chips = 0
        # one read transaction (a snapshot): read apart, a player moved between tables in between (his stack to his
        # tournament bank, then to the new table) would be counted twice or not at all
        async with self.ledger.storage.transaction(write=False) as tx:
            bal = await tx.balances([escrow, Account.issued(chips)] + [Account.bank(chips, p) for p in players])
            for tt in t.tables.values():
                table_chips += sum((await tx.table_balances(tt.table_id)).values())
            payout = await tx.find_journal(f"tny:{t.tournament_id}:payouts")
            dealt = await tx.find_journal(f"tny:{t.tournament_id}:deal")  # a deal that left a part to play for
        held = sum(b for a, b in bal.items() if a.kind is AccountKind.BANK) + table_chips
        if held + bal[Account.issued(chips)] != 0:
            problems.append(f"tournament chips not conserved: {held} held, {-bal[Account.issued(chips)]} issued")
        if t.status in (Status.FINISHED, Status.CANCELLED) and bal[escrow] != 0:
            problems.append(f"escrow holds {bal[escrow]} after the end")
        if t.status is Status.FINISHED:
            # a deal's journal pays part of the prizes when a part was left to play for
            postings = [p for j in (payout, dealt) if j is not None for p in j.postings]
            problems += purse_audit(t, postings)
        for tt in t.open_tables():
            with contextlib.suppress(NoTableHere):
                problems += await self.tables.check_books(tt.table_id)
        return problems

    def info(self, tournament_id: int) -> TournamentInfo:
        """Everything ``/tourney info`` shows: state, level and clock, field, pool, tables and chip counts."""
        t = self.get(tournament_id)
        now = self._clock.now(t)
        cfg = t.config
        tables = tuple(
            (tt.table_no, tuple(e.player_id for e in t.alive() if e.table_no == tt.table_no)) for tt in t.open_tables()
        )
        pool = rules.prize_pool(t)
        level = now.level if t.status is Status.RUNNING else -1
        paid = [e for e in t.entries.values() if e.status is not EntryStatus.REFUNDED]
        return TournamentInfo(
            tournament_id=t.tournament_id,
            title=cfg.title,
            format=cfg.format,
            status=t.status,
            level=now.level + 1,
            ante=now.ante,
            on_break=now.on_break,
            paused=t.paused_ms is not None,
            seconds_to_next_level=now.seconds_left,
            entries=t.paid_entries,
            alive=len(t.alive()),
            prize_pool=pool,
            prizes=prizes(pool, max(1, t.paid_entries), cfg.payouts or None),
            registration_open=self._clock.registration_open(t),
            chips=tuple(self.standings_now(tournament_id)) if t.status is Status.RUNNING else (),
            tables=tables,
            results=tuple(
                (e.player_id, e.place, e.prize or 0)
                for e in sorted(t.entries.values(), key=lambda x: (x.place or 10**9, x.entry_id))
                if e.place is not None
            ),
            registered=tuple(
                e.player_id
                for e in sorted(t.entries.values(), key=lambda x: x.entry_id)
                if e.status is EntryStatus.REGISTERED
            ),
            hand_for_hand=self._floor.hand_for_hand(t),
            guarantee=cfg.guarantee,
            overlay=purse.overlay(t),
            bounty=cfg.bounty,
            progressive=cfg.progressive,
            rebuys=sum(e.rebuys for e in paid),
            addons=sum(e.addons for e in paid),
            rebuy_open=level >= 0 and purse.rebuy_open(cfg, level),
            addon_open=level >= 0 and purse.addon_open(cfg, level),
            bounties=purse.bounty_board(t),
            satellite_for=cfg.satellite_for,
            satellite_seats=self._seats(t, pool),
        )

    def _seats(self, t: Tournament, pool: int) -> int:
        target = self._core.tournaments.get(t.config.satellite_for or 0)
        return pool // target.config.buy_in if target is not None and target.config.buy_in else 0

    def standings_now(self, tournament_id: int) -> list[tuple[int, int, int | None]]:
        """(player id, chips, table no) of the entries still in, most chips first (for /tourney info)."""
        t = self.get(tournament_id)
        seated = self._floor.stacks(t)  # one pass over the open tables, not one over every table per entry
        rows = [(e.player_id, seated.get(e.player_id, 0), e.table_no) for e in t.alive()]
        return sorted(rows, key=lambda r: -r[1])
