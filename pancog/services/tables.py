"""TableService: one Pan table per channel or thread, every change committed before it is visible.

The service owns ``dict[table_id, TableSession]``; each session has one ``asyncio.Lock``. Every change —
a player's action or a system action (the deal, a timeout, a floor foul) — goes through :meth:`TableService._commit`:

    lock -> engine.apply -> ledger postings from the events -> store.commit_action (one transaction)
         -> swap the in-memory state -> notify listeners

So a refused action (a :class:`PanError`) or a failed commit leaves the table exactly as it was. At start-up
:meth:`TableService.load` rebuilds every open table: from its snapshot (the engine state written with the action
that ended the last hand, or every ``snapshot_every`` actions) plus the actions after it, or by replaying the
whole log through the engine when there is no usable snapshot.

The table's values (config, session, ``Applied``, ``TableClosed``, the errors, the hooks' types, the dealers) live in
:mod:`pancog.services.table_session`; this module re-exports them, so callers import everything from here.

No discord imports: ids are ints. Wording for players lives in the errors' messages only.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence

from pancog.game import engine
from pancog.game.actions import Action, Rebuy, Sit, Stand, StartHand, Timeout
from pancog.game.cards import Card
from pancog.game.codec import StateFormatError, dump_state, load_state
from pancog.game.errors import PanError, RuleViolation
from pancog.game.events import HandEnded
from pancog.game.i18n import N_
from pancog.game.notation import format_action, format_event, parse_action
from pancog.game.rules import Rules
from pancog.game.state import TableState, initial_state
from pancog.infra.storage.base import Account, BankScope, Posting, StoredTable
from pancog.services.chips import engine_postings
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.table_session import (
    Applied,
    BuyInTooSmall,
    CloseListener,
    CloseReason,
    Dealer,
    Listener,
    NoTableHere,
    NotHost,
    NotSeated,
    ResultNote,
    SeatGuard,
    SettlementHook,
    StaleAction,
    StandIn,
    TableAlreadyOpen,
    TableClosed,
    TableConfig,
    TableSession,
    preset_or_default,
    random_deal,
    seeded_deals,
)

__all__ = [
    "Applied",
    "BuyInTooSmall",
    "CloseReason",
    "NoTableHere",
    "NotHost",
    "NotSeated",
    "ResultNote",
    "StaleAction",
    "TableAlreadyOpen",
    "TableClosed",
    "TableConfig",
    "TableService",
    "TableSession",
    "engine_postings",
    "preset_or_default",
    "random_deal",
    "seeded_deals",
]

log = logging.getLogger("pan.tables")

DEFAULT_BUYIN_MINIMUMS = 5  # a join without an amount brings this many minimum buy-ins (capped at the bank)
SNAPSHOT_EVERY = 400
"""Snapshot a table whose log grew by more than this many actions since its last snapshot (bounds the replay of
a very long hand); every hand end is snapshotted anyway."""


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
            scope=row.scope,
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
        self,
        table_id: int,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        config: TableConfig,
        scope: BankScope | None = None,
    ) -> TableSession:
        """Open a table in a channel (``table_id`` must be new, e.g. the interaction's snowflake).

        ``guild_id`` is the Discord guild it is played in (0: none the bot is in); ``scope`` the banks it buys in from
        and cashes out to: None for the guild's own, ``BankScope.practice(guild_id)`` for practice chips (or
        ``BankScope.practice()`` outside any guild), ``BankScope.tournament(t)``, ``BankScope.season(s)``.

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
            if scope is not None and scope == BankScope.guild(guild_id):
                scope = None
            await self.store.open_table(
                table_id,
                guild_id=guild_id,
                channel_id=channel_id,
                host_id=host_id,
                config=config.to_json(),
                scope=scope,
            )
            session = TableSession(
                table_id=table_id,
                guild_id=guild_id,
                channel_id=channel_id,
                host_id=host_id,
                config=config,
                state=initial_state(rules, table_id=table_id),
                scope=scope,
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
                expected = N_("The table moved on (seq {seq}, expected {expected}).")
                raise PanError(expected, seq=session.state.seq, expected=expect_seq)
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
            transition.events, table_id=session.table_id, scope=session.bank_scope, before=before, after=after
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
        # Under the table's lock: an action commits its postings and then swaps its state in, both under that lock,
        # so without it the engine snapshot could predate postings the ledger read already sees.
        async with session.lock:
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
