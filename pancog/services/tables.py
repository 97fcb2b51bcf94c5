"""TableService: one Pan table per channel or thread, every change committed before it is visible.

The service owns ``dict[table_id, TableSession]``; each session has one ``asyncio.Lock``. Every change —
a player's action or a system action (the deal, a timeout, a floor foul) — goes through :meth:`TableService._commit`:

    lock -> engine.apply -> ledger postings from the events -> store.commit_action (one transaction)
         -> swap the in-memory state -> notify listeners

So a refused action (a :class:`PanError`) or a failed commit leaves the table exactly as it was. At start-up
:meth:`TableService.load` rebuilds every open table: from its snapshot (the engine state written with the action
that ended the last hand, or every ``snapshot_every`` actions) plus the actions after it, or by replaying the
whole log through the engine when there is no usable snapshot.

No discord imports: ids are ints. Wording for players lives in the errors' messages only.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pancog.game import engine
from pancog.game.actions import Action, Rebuy, Sit, Stand, StartHand, Timeout
from pancog.game.cards import Card
from pancog.game.codec import StateFormatError, dump_state, load_state
from pancog.game.errors import PanError, RuleViolation
from pancog.game.events import Event, HandEnded
from pancog.game.notation import format_action, format_event, parse_action
from pancog.game.rules import PRESET_EDITION, PRESETS, Rules
from pancog.game.state import Phase, TableState, initial_state
from pancog.infra.storage.base import Account, Posting, StorageTx, StoredTable
from pancog.services.chips import HandChips, HandResult, engine_postings
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore

__all__ = [
    "Applied",
    "BuyInTooSmall",
    "CloseReason",
    "NoTableHere",
    "NotHost",
    "NotSeated",
    "StaleAction",
    "TableAlreadyOpen",
    "TableClosed",
    "TableConfig",
    "TableService",
    "TableSession",
    "engine_postings",
    "random_deal",
    "seeded_deals",
]

log = logging.getLogger("pan.tables")

DEFAULT_BUYIN_MINIMUMS = 5  # a join without an amount brings this many minimum buy-ins (capped at the bank)
SNAPSHOT_EVERY = 400
"""Snapshot a table whose log grew by more than this many actions since its last snapshot (bounds the replay of
a very long hand); every hand end is snapshotted anyway."""


class NoTableHere(PanError):
    code = "no_table"

    def __init__(self) -> None:
        super().__init__("There is no open Pan table here. Open one with /pan open.")


class TableAlreadyOpen(PanError):
    code = "table_already_open"

    def __init__(self) -> None:
        super().__init__("A Pan table is already open here. Use /pan join to sit down.")


class NotSeated(PanError):
    code = "not_seated"

    def __init__(self) -> None:
        super().__init__("You are not seated at this table. Use /pan join to sit down.")


class NotHost(PanError):
    code = "not_host"

    def __init__(self) -> None:
        super().__init__("Only the host or a server moderator can do that.")


class StaleAction(PanError):
    """A system action was computed for a state that has since moved on (``expect_seq`` mismatch)."""

    code = "stale_action"

    def __init__(self) -> None:
        super().__init__("The table has moved on since that was decided.")


class BuyInTooSmall(PanError):
    code = "buy_in_too_small"

    def __init__(self, needed: int, available: int, doubles: bool) -> None:
        kind = "play doubles" if doubles else "sit"
        super().__init__(
            f"You need at least {needed:,} chips to {kind} at this table; your bank has {available:,}. "
            "Claim /pan daily or ask a moderator."
        )
        self.needed = needed
        self.available = available


# --------------------------------------------------------------------------------------------- config


@dataclass(frozen=True, slots=True, kw_only=True)
class TableConfig:
    """How a table was opened: a rules preset plus integer overrides (stakes, seats, turn time)."""

    preset: str = "california"
    overrides: tuple[tuple[str, int], ...] = ()
    edition: int = PRESET_EDITION  # the presets' edition the table was opened under: it keeps those rules
    title: str = ""
    # computer players: a /pan practice table; an away person's seat played by the normal level.
    practice: bool = False
    away_bot: bool = False
    # chip leagues: the ledger scope of the banks the table buys in from and cashes out to, when it is
    # not the guild's (a bank season's scope, LeagueService.table_scope); None: the guild's own banks.
    bank_scope: int | None = None

    @classmethod
    def build(
        cls,
        preset: str | None = None,
        *,
        stakes: int | None = None,
        seats: int | None = None,
        turn_seconds: int | None = None,
        title: str = "",
        practice: bool = False,
        away_bot: bool = False,
    ) -> TableConfig:
        """A config; ``stakes`` sets the ante (chips per unit) and the 20-unit minimum buy-in.

        Raises:
            RuleViolation: unknown preset or an invalid value.
        """
        name = (preset or "california").strip().lower()
        overrides: dict[str, int] = {}
        if stakes is not None:
            overrides["ante_chips"] = stakes
            overrides["min_buyin_chips"] = 20 * stakes
        if seats is not None:
            overrides["max_players"] = seats
        if turn_seconds is not None:
            overrides["turn_timeout_seconds"] = turn_seconds
        config = cls(
            preset=name,
            overrides=tuple(sorted(overrides.items())),
            title=title,
            practice=practice,
            away_bot=away_bot,
        )
        config.rules()  # validate now
        return config

    def rules(self) -> Rules:
        return Rules.preset_of_edition(self.preset, self.edition, dict(self.overrides))

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "preset": self.preset,
            "overrides": dict(self.overrides),
            "edition": self.edition,
            "title": self.title,
        }
        # computer players: the table options, written only when set (older rows read as False).
        data.update({k: True for k in ("practice", "away_bot") if getattr(self, k)})
        if self.bank_scope is not None:  # only a bank season's table has one (TableRow.bank_scope reads it too)
            data["bank_scope"] = self.bank_scope
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> TableConfig:
        data: dict[str, Any] = json.loads(text)
        overrides = {str(k): int(v) for k, v in dict(data.get("overrides", {})).items()}
        return cls(
            preset=str(data.get("preset", "california")),
            overrides=tuple(sorted(overrides.items())),
            edition=int(data.get("edition", 1)),  # written before editions: the presets' first edition
            title=str(data.get("title", "")),
            practice=bool(data.get("practice", False)),
            away_bot=bool(data.get("away_bot", False)),
            bank_scope=int(data["bank_scope"]) if data.get("bank_scope") is not None else None,
        )


def preset_or_default(name: str | None) -> str:
    """A known preset name (a guild default such as 'standard' that is not a preset means california)."""
    return name if name in PRESETS else "california"


# --------------------------------------------------------------------------------------------- sessions


@dataclass(slots=True, eq=False)
class TableSession:
    """One open table in memory. ``state`` is only replaced after its action committed."""

    table_id: int
    guild_id: int
    channel_id: int
    host_id: int
    config: TableConfig
    state: TableState
    board_message_id: int | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    stacked: list[StartHand] = field(default_factory=list)  # test hook: the next deals
    snapshot_seq: int = 0  # the seq of the table's stored snapshot (0: none)
    # the hand in progress's chips, folded from the postings committed for it: each hand's HandResult
    chips: HandChips = field(init=False)

    def __post_init__(self) -> None:
        self.chips = HandChips(self.table_id, self.bank_scope)

    @property
    def rules(self) -> Rules:
        return self.state.rules

    @property
    def bank_scope(self) -> int:
        """The ledger scope of the banks this table buys in from and cashes out to (the guild, or a chip league's
        bank season)."""
        scope = self.config.bank_scope
        return self.guild_id if scope is None else scope

    def seat_of(self, user_id: int) -> int:
        """The seat index of ``user_id``. Raises :class:`NotSeated`."""
        seat = self.find_seat(user_id)
        if seat is None:
            raise NotSeated
        return seat

    def find_seat(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.state.seats):
            if seat is not None and seat.player_id == user_id:
                return index
        return None

    def player_ids(self) -> tuple[int, ...]:
        return tuple(s.player_id for s in self.state.seats if s is not None)

    @property
    def in_hand(self) -> bool:
        hand = self.state.hand
        return hand is not None and hand.phase is not Phase.OVER


@dataclass(frozen=True, slots=True)
class Applied:
    """One committed action: the table, the state before, the action and what it produced."""

    session: TableSession
    before: TableState
    action: Action
    transition: engine.Transition
    actor: int | None  # the user who asked, or None for the system
    # the hand's chip result when this action ended a hand (from the postings committed for the hand); None for any
    # other action, or for a hand whose deal this process did not see (the replay service rebuilds it from the log)
    result: HandResult | None = None

    @property
    def state(self) -> TableState:
        return self.transition.state

    @property
    def events(self) -> tuple[Event, ...]:
        return self.transition.events


class CloseReason(StrEnum):
    """Why a table closed (every reason publishes the same :class:`TableClosed`)."""

    HOST = "host"  # the host's /pan close
    MODERATOR = "moderator"  # a moderator's /pan close
    IDLE = "idle"  # no hand for the idle time (the turn clock)
    CHANNEL_DELETED = "channel_deleted"  # its channel or thread is gone
    SEASON_ENDED = "season_ended"  # its bank season ended (chip leagues)
    REFUSED = "refused"  # opened but could not be filled (a practice table whose seating was refused)
    TOURNAMENT = "tournament"  # a tournament broke or finished the table
    SYSTEM = "system"  # any other close without a person


@dataclass(frozen=True, slots=True)
class TableClosed:
    """A table closed and is gone from the service: its tops were shared and every stack went back to its bank
    (``cashouts``: user id -> chips returned), in one committed transaction."""

    session: TableSession
    reason: CloseReason
    cashouts: Mapping[int, int]
    actor: int | None  # the host or moderator who closed it, None for the system

    @property
    def table_id(self) -> int:
        return self.session.table_id


Listener = Callable[[Applied], None]
CloseListener = Callable[[TableClosed], None]
"""Told of every closed table, after the close committed (inside the table lock: keep it quick; it must not raise)."""
StandIn = Callable[[TableSession, Timeout], Action | None]
"""Computer players: given a system ``Timeout`` about to apply (inside the table lock), the move to play instead, or
None to keep the timeout."""
SeatGuard = Callable[[TableSession, int], None]
"""Who may sit at a table beyond the engine's rules: raises a PanError to refuse ``user_id`` (called first thing in
:meth:`TableService.join`, before any chip moves)."""
ResultNote = Callable[[StorageTx], Awaitable[str | None]]
SettlementHook = Callable[[TableSession, TableState, engine.Transition, str], ResultNote | None]
"""Chip leagues: given an action about to commit (its state before, its transition and its action text),
optionally a result to record with it: ``note(tx)`` may read and returns the text stored on the action's journal row
(see :meth:`pancog.services.store.TableStore.commit_action`). Called inside the table lock; must not raise."""
Dealer = Callable[[TableSession], StartHand]


def random_deal(session: TableSession) -> StartHand:
    """A fresh random seed for the next hand (recorded in the action text, so the hand replays)."""
    return StartHand(seed=secrets.randbits(62))


def seeded_deals(seed: int) -> Dealer:
    """Reproducible deals for tests and benchmarks: the n-th deal of the process gets the n-th seed of ``seed``."""
    rng = random.Random(seed)

    def deal(session: TableSession) -> StartHand:
        return StartHand(seed=rng.getrandbits(62))

    return deal


# --------------------------------------------------------------------------------------------- snapshots


class _UnusableSnapshot(Exception):
    """A stored snapshot that cannot stand in for the replay of the log before it."""


def _from_snapshot(text: str, item: StoredTable, rules: Rules) -> TableState:
    """The state in ``text``, ``item``'s snapshot (after seq ``first_seq - 1``). Raises :class:`_UnusableSnapshot`."""
    try:
        state = load_state(text)
    except StateFormatError as exc:
        raise _UnusableSnapshot(f"snapshot at seq {item.first_seq - 1} is unreadable ({exc})") from exc
    if state.seq != item.first_seq - 1 or state.table_id != item.table_id:
        raise _UnusableSnapshot(f"snapshot at seq {item.first_seq - 1} holds table {state.table_id} at seq {state.seq}")
    if state.rules != rules:  # the preset changed since: a full replay uses today's rules, as without snapshots
        raise _UnusableSnapshot(f"snapshot at seq {item.first_seq - 1} has other rules than the table's config")
    return state


# --------------------------------------------------------------------------------------------- the service


class TableService:
    """Registry of open tables; the single path by which any table changes."""

    def __init__(
        self,
        ledger: ChipLedger,
        store: TableStore,
        *,
        dealer: Dealer = random_deal,
        clock: Callable[[], float] = time.time,
        snapshots: bool = True,
        snapshot_every: int = SNAPSHOT_EVERY,
    ) -> None:
        """``snapshots=False`` writes no snapshots (start-up then replays whole logs; for benchmarks and tests)."""
        self.ledger = ledger
        self.store = store
        self._dealer = dealer
        self._clock = clock
        self._snapshots = snapshots
        self._snapshot_every = snapshot_every
        self._tables: dict[int, TableSession] = {}
        self._by_channel: dict[int, int] = {}
        self._listeners: list[Listener] = []
        self._opening: set[int] = set()  # channels whose open_table is writing its row
        # What other services add to this one, each through its registration method below, by the composition root
        # (pancog/adapter/extension.py) alone.
        self._stand_in: StandIn | None = None
        self._seat_guards: list[SeatGuard] = []
        self._settlement_hook: SettlementHook | None = None
        self._close_listeners: list[CloseListener] = []

    # ------------------------------------------------------------------ wiring (called by the composition root only)

    def set_stand_in(self, stand_in: StandIn) -> None:
        """Let ``stand_in`` replace a system ``Timeout`` (the computer players: an away person's seat on an
        ``away_bot`` table is played by the normal level). One stand-in; called inside the table lock.

        Raises:
            RuntimeError: a stand-in is already set.
        """
        if self._stand_in is not None:
            raise RuntimeError("the table service already has a stand-in")
        self._stand_in = stand_in

    def add_seat_guard(self, guard: SeatGuard) -> None:
        """Check every :meth:`join` with ``guard(session, user_id)`` first (it raises a PanError to refuse), in the
        order added: e.g. a practice table admits its host and computer players only; a member watching a hand at a
        table may not sit there."""
        self._seat_guards.append(guard)

    def set_settlement_hook(self, hook: SettlementHook) -> None:
        """Record a result with each action that settles a hand, in the same transaction (the chip leagues). One
        hook: the journal row has one result.

        Raises:
            RuntimeError: a hook is already set.
        """
        if self._settlement_hook is not None:
            raise RuntimeError("the table service already has a settlement hook")
        self._settlement_hook = hook

    def on_close(self, listener: CloseListener) -> None:
        """Tell ``listener`` of every table that closes, whatever the reason (:class:`TableClosed`), in the order
        added, after the close committed."""
        self._close_listeners.append(listener)

    # ------------------------------------------------------------------ registry

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(applied)`` after every committed action (inside the table lock; keep it quick)."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        """Stop calling ``listener`` (no error if it was not subscribed)."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    @property
    def sessions(self) -> tuple[TableSession, ...]:
        return tuple(self._tables.values())

    def get(self, table_id: int) -> TableSession:
        """Raises :class:`NoTableHere`."""
        session = self._tables.get(table_id)
        if session is None:
            raise NoTableHere
        return session

    def in_channel(self, channel_id: int) -> TableSession:
        """The table open in a channel or thread. Raises :class:`NoTableHere`."""
        table_id = self._by_channel.get(channel_id)
        if table_id is None:
            raise NoTableHere
        return self.get(table_id)

    def find_in_channel(self, channel_id: int) -> TableSession | None:
        table_id = self._by_channel.get(channel_id)
        return self._tables.get(table_id) if table_id is not None else None

    def tables_of(self, user_id: int) -> tuple[TableSession, ...]:
        return tuple(s for s in self._tables.values() if s.find_seat(user_id) is not None)

    # ------------------------------------------------------------------ lifecycle

    async def load(self) -> int:
        """Rebuild every open table (its snapshot plus the actions after it, else its whole log); returns how many."""
        stored = await self.store.load_open_tables()
        for item in stored:
            try:
                session = self._replay(item)
            except _UnusableSnapshot as exc:
                log.warning("table %s: %s; replaying the whole log", item.table_id, exc)
                session = self._replay(await self._whole_log(item))
            else:
                hand = session.state.hand
                if hand is not None and session.chips.hand_no != hand.hand_no:
                    # the snapshot lies inside the hand in progress (a very long hand): its chips so far are only
                    # in the actions before the snapshot, so this table is rebuilt from its whole log
                    whole = self._replay(await self._whole_log(item))
                    whole.snapshot_seq = session.snapshot_seq
                    session = whole
            self._tables[session.table_id] = session
            self._by_channel[session.channel_id] = session.table_id
        return len(stored)

    async def _whole_log(self, item: StoredTable) -> StoredTable:
        whole = await self.store.read_log(item.table_id, 0)
        return dataclasses.replace(item, snapshot=None, actions=tuple(a for _, a, _ in whole), first_seq=1)

    def _replay(self, item: StoredTable) -> TableSession:
        """The table at its last committed action, with the chips of the hand in progress folded from the actions
        replayed (through the same postings mapping as a commit). Raises :class:`_UnusableSnapshot` (the caller
        replays all)."""
        row = item.row
        config = TableConfig.from_json(row.config)
        rules = config.rules()
        snap = item.snapshot
        state = initial_state(rules, table_id=row.table_id) if snap is None else _from_snapshot(snap, item, rules)
        session = TableSession(
            table_id=row.table_id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            host_id=row.host_id,
            config=config,
            state=state,
            board_message_id=row.board_message_id,
            snapshot_seq=item.first_seq - 1 if item.snapshot is not None else 0,
        )
        for text in item.actions:
            before = state
            transition = engine.apply(before, parse_action(text))
            state = transition.state
            session.chips.feed(before, transition.events, state)
        if state.seq != row.last_seq:
            raise RuntimeError(f"table {row.table_id}: replay reached seq {state.seq}, log says {row.last_seq}")
        session.state = state
        return session

    async def open_table(
        self, table_id: int, *, guild_id: int, channel_id: int, host_id: int, config: TableConfig
    ) -> TableSession:
        """Open a table in a channel (``table_id`` must be new, e.g. the interaction's snowflake).

        Raises:
            TableAlreadyOpen: the channel has an open table.
        """
        # The channel is reserved synchronously (no await between the check and the reservation), so two opens in
        # one channel cannot both succeed; opens in different channels no longer wait for each other's database
        # write. (A global lock held across the write made a burst of 30 opens wait ~30 transactions each behind
        # a busy storage queue: > 60 s in the 200-table soak, docs/perf/soak.md.)
        if channel_id in self._by_channel or channel_id in self._opening:
            raise TableAlreadyOpen
        self._opening.add(channel_id)
        try:
            rules = config.rules()
            await self.store.open_table(
                table_id, guild_id=guild_id, channel_id=channel_id, host_id=host_id, config=config.to_json()
            )
            session = TableSession(
                table_id=table_id,
                guild_id=guild_id,
                channel_id=channel_id,
                host_id=host_id,
                config=config,
                state=initial_state(rules, table_id=table_id),
            )
            self._tables[table_id] = session
            self._by_channel[channel_id] = table_id
            return session
        finally:
            self._opening.discard(channel_id)

    async def close(self, table_id: int, user_id: int, *, moderator: bool = False) -> dict[int, int]:
        """Close a table: the tops are shared among the seated players, every stack goes back to its bank; the
        close listeners are told (:meth:`on_close`).

        Returns ``{user_id: chips returned}``. Raises :class:`NotHost` unless host or moderator.
        """
        session = self.get(table_id)
        async with session.lock:
            if user_id != session.host_id and not moderator:
                raise NotHost
            reason = CloseReason.HOST if user_id == session.host_id else CloseReason.MODERATOR
            return await self._close_locked(session, actor=user_id, reason=reason)

    async def close_system(self, table_id: int, *, reason: CloseReason = CloseReason.SYSTEM) -> dict[int, int]:
        """Close without a permission check (a deleted channel, an idle table, ...), for ``reason``."""
        session = self.get(table_id)
        async with session.lock:
            return await self._close_locked(session, actor=None, reason=reason)

    async def _close_locked(self, session: TableSession, *, actor: int | None, reason: CloseReason) -> dict[int, int]:
        table_id = session.table_id
        players = session.player_ids()
        postings: list[Posting] = []
        for pot, amount in (("singles", session.state.singles_tops), ("doubles", session.state.doubles_tops)):
            share = amount // len(players) if players else 0
            if share:
                account = Account.tops(table_id, "singles" if pot == "singles" else "doubles")
                postings.append(Posting(account, -share * len(players)))
                postings += [Posting(Account.stack(table_id, p), share) for p in players]
        merged: dict[Account, int] = {}
        for posting in postings:
            merged[posting.account] = merged.get(posting.account, 0) + posting.delta
        result = await self.store.close_table(
            table_id,
            [Posting(a, d) for a, d in sorted(merged.items()) if d],
            actor=actor if actor is not None else "system",
        )
        self._tables.pop(table_id, None)
        if self._by_channel.get(session.channel_id) == table_id:
            del self._by_channel[session.channel_id]
        closed = TableClosed(session, reason, dict(result.cashouts), actor)
        for listener in self._close_listeners:
            try:
                listener(closed)
            except Exception:
                log.exception("table %s: close listener failed", table_id)
        return result.cashouts

    async def set_board_message(self, table_id: int, message_id: int | None) -> None:
        session = self.get(table_id)
        if session.board_message_id != message_id:
            await self.store.set_board_message(table_id, message_id)
            session.board_message_id = message_id

    # ------------------------------------------------------------------ the one mutation path

    async def act(self, table_id: int, user_id: int, make_action: Callable[[int], Action]) -> Applied:
        """Apply ``make_action(seat)`` for a seated player.

        Raises:
            NoTableHere, NotSeated, RuleViolation (from the engine), InsufficientChips.
        """
        session = self.get(table_id)
        async with session.lock:
            seat = session.seat_of(user_id)
            return await self._commit(session, make_action(seat), actor=user_id)

    async def system_act(
        self, table_id: int, action: Action, *, actor: int | None = None, expect_seq: int | None = None
    ) -> Applied:
        """Apply an action the table itself makes (a timeout, a floor foul); same path as players.

        ``expect_seq``: refuse (PanError, nothing changes) unless the table is still at that seq.
        """
        session = self.get(table_id)
        async with session.lock:
            # resilience: a turn-clock Timeout must not land on a later decision than the one it timed.
            if expect_seq is not None and session.state.seq != expect_seq:
                raise PanError(f"The table moved on (seq {session.state.seq}, expected {expect_seq}).")
            # computer players: an away seat's timeout played by the normal level (away_bot tables).
            if isinstance(action, Timeout) and self._stand_in is not None:
                chosen = self._stand_in(session, action)
                if chosen is not None:
                    try:
                        return await self._commit(session, chosen, actor=actor)
                    except RuleViolation:
                        log.warning("table %s: stand-in move %s refused; timing out", session.table_id, chosen)
            return await self._commit(session, action, actor=actor)

    async def _commit(self, session: TableSession, action: Action, *, actor: int | None) -> Applied:
        before = session.state
        transition = engine.apply(before, action)  # raises RuleViolation; nothing changed
        after = transition.state
        postings = engine_postings(
            transition.events, table_id=session.table_id, guild_id=session.bank_scope, before=before, after=after
        )
        snapshot = self._snapshot_text(session, transition)
        action_text = format_action(action)
        hook = self._settlement_hook
        note = hook(session, before, transition, action_text) if hook is not None else None
        await self.store.commit_action(
            session.table_id,
            after.seq,
            action_text,
            "\n".join(format_event(e) for e in transition.events),
            postings,
            actor=actor if actor is not None else "system",
            reason=type(action).__name__,
            snapshot=snapshot,
            result=note,
        )
        session.state = after  # swap only after the commit
        if snapshot is not None:
            session.snapshot_seq = after.seq
        result = session.chips.feed(before, transition.events, after, postings)
        applied = Applied(session, before, action, transition, actor, result)
        for listener in self._listeners:
            try:
                listener(applied)
            except Exception:
                log.exception("table %s: listener failed after seq %s", session.table_id, after.seq)
        return applied

    def _snapshot_text(self, session: TableSession, transition: engine.Transition) -> str | None:
        """The state to store with this action: after a hand ends, or once the log has grown ``snapshot_every``
        actions past the last snapshot. None otherwise, or if encoding fails (logged: a snapshot is only a cache)."""
        after = transition.state
        if not self._snapshots or (
            after.seq - session.snapshot_seq <= self._snapshot_every
            and not any(isinstance(e, HandEnded) for e in transition.events)
        ):
            return None
        try:
            return dump_state(after)
        except Exception:
            log.exception("table %s: no snapshot at seq %s", session.table_id, after.seq)
            return None

    # ------------------------------------------------------------------ table-level conveniences

    async def join(self, table_id: int, user_id: int, *, doubles: bool = False, buy_in: int | None = None) -> Applied:
        """Sit ``user_id`` with ``buy_in`` chips from the bank (default: a few minimum buy-ins, capped).

        Raises:
            BuyInTooSmall, InsufficientChips, RuleViolation (table full, already seated, ...).
        """
        session = self.get(table_id)
        for guard in self._seat_guards:  # e.g. a practice table is its host's; a watcher may not sit where he watches
            guard(session, user_id)
        bank = await self.ledger.ensure_player(session.bank_scope, user_id)
        rules = session.rules
        minimum = rules.min_buyin_chips * (2 if doubles else 1)
        if buy_in is None:
            buy_in = max(minimum, min(bank, DEFAULT_BUYIN_MINIMUMS * minimum))
        if buy_in < minimum or bank < buy_in:
            raise BuyInTooSmall(max(minimum, buy_in), bank, doubles)
        async with session.lock:
            return await self._commit(session, Sit(player_id=user_id, buy_in=buy_in, doubles=doubles), actor=user_id)

    async def leave(self, table_id: int, user_id: int) -> Applied:
        return await self.act(table_id, user_id, lambda seat: Stand(seat=seat))

    async def rebuy(self, table_id: int, user_id: int, amount: int) -> Applied:
        """Bring ``amount`` more chips from the bank to the table, between hands (table stakes).

        Raises:
            InsufficientChips (the bank is short), RuleViolation (a hand is in progress), NotSeated.
        """
        session = self.get(table_id)
        await self.ledger.ensure_player(session.bank_scope, user_id)
        return await self.act(table_id, user_id, lambda seat: Rebuy(seat=seat, amount=amount))

    async def start_hand(self, table_id: int, user_id: int) -> Applied:
        """Deal the next hand (asked by a seated player); the seed or stacked shoe is in the action text."""
        session = self.get(table_id)
        async with session.lock:
            session.seat_of(user_id)
            deal = session.stacked.pop(0) if session.stacked else self._dealer(session)
            return await self._commit(session, deal, actor=user_id)

    def stack_next_hand(self, table_id: int, shoe: Sequence[Card], *, first_seat: int | None = None) -> None:
        """Test hook: the next hand at this table is dealt from ``shoe`` (``shoe[0]`` dealt first)."""
        self.get(table_id).stacked.append(StartHand(shoe=tuple(shoe), first_seat=first_seat))

    # ------------------------------------------------------------------ reads

    async def check_books(self, table_id: int) -> list[str]:
        """Differences between the engine's stacks/tops and the ledger's balances (empty = consistent)."""
        session = self.get(table_id)
        state = session.state
        expected: dict[Account, int] = {}
        for seat in state.seats:
            if seat is not None:
                key = Account.stack(table_id, seat.player_id)
                expected[key] = expected.get(key, 0) + seat.stack
        expected[Account.tops(table_id, "singles")] = state.singles_tops
        expected[Account.tops(table_id, "doubles")] = state.doubles_tops
        async with self.ledger.storage.transaction(write=False) as tx:
            held = await tx.table_balances(table_id)
        problems = []
        for account in sorted(set(expected) | set(held)):
            if expected.get(account, 0) != held.get(account, 0):
                problems.append(f"{account.key}: engine {expected.get(account, 0)}, ledger {held.get(account, 0)}")
        return problems
