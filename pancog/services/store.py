"""Durable tables: one row per table plus an append-only, contiguous action log, committed with the chips.

The table service calls :meth:`TableStore.commit_action` for every action: the log append and the
ledger postings of that action commit in ONE transaction (all or nothing), then the service swaps its
in-memory state. A retry with the same key is a no-op that returns the original receipt
(``created=False``). At start-up :meth:`TableStore.load_open_tables` returns every open table with its
config, meta and action texts (since the start, or since its snapshot) for replay. A table keeps at most
one snapshot (the state after some action, written with that action by ``commit_action(snapshot=...)``);
the log stays the durable truth and a snapshot only shortens the replay.

Seqs are per table and contiguous: the first action is seq 1, then 2, 3, … (``StoredTable.last_seq`` tells
where to resume). A table id is used once, forever: a channel hosting a new table needs a new table id.

In a cluster each process owns some shards (:class:`~pancog.infra.storage.base.ShardSet`).
:meth:`TableStore.take_leases` bumps those shards' lease epochs at start-up; from then on every table write checks,
inside its own transaction, that the table's shard still has this process's epoch (else
:class:`~pancog.infra.storage.base.ShardLeaseLost`, nothing written), and start-up loads only the owned guilds' tables.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pancog.game.errors import PanError
from pancog.game.i18n import N_
from pancog.infra.storage.base import (
    Account,
    AccountKind,
    BankScope,
    LeaseCheck,
    LogConflict,
    Posting,
    ShardLeaseLost,
    ShardSet,
    Storage,
    StorageError,
    StorageTx,
    StoredTable,
    TableNotOpen,
    TableRow,
)
from pancog.infra.storage.common import snapshot_statements
from pancog.services.ledger import Actor, Receipt, TableClosed, actor_text, post_transaction

__all__ = ["CloseResult", "LogConflict", "ShardLeaseLost", "StoredTable", "TableExists", "TableStore", "action_key"]


class TableExists(PanError):
    code = "table_exists"

    def __init__(self, table_id: int) -> None:
        super().__init__(N_("A table with that id already exists."))
        self.table_id = table_id


def action_key(table_id: int, seq: int) -> str:
    """The default idempotency key of a table action."""
    return f"table:{table_id}:seq:{seq}"


@dataclass(frozen=True, slots=True)
class CloseResult:
    receipt: Receipt
    cashouts: dict[int, int]  # user id -> chips moved from stack to bank
    tops_returned: int  # unclaimed tops chips returned to the guild's issued account

    @property
    def created(self) -> bool:
        return self.receipt.created


class TableStore:
    def __init__(self, storage: Storage, *, clock: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self._clock = clock
        self.shards: ShardSet | None = None  # None: one process owns every table (no lease checks)
        self.epochs: dict[int, int] = {}  # shard -> the lease epoch this process took
        self._guilds: dict[int, int] = {}  # table id -> guild id (a table never moves)

    async def take_leases(self, shards: ShardSet, holder: str) -> dict[int, int]:
        """Take the leases of ``shards`` (each epoch + 1): any older holder's table writes are refused from now on.
        Call before loading the tables; afterwards :meth:`load_open_tables` returns only these shards' tables."""
        async with self.storage.transaction() as tx:
            epochs = await tx.take_shard_leases(shards, holder, self._clock())
        self.shards, self.epochs = shards, dict(epochs)
        return epochs

    def use_leases(self, shards: ShardSet, epochs: dict[int, int]) -> None:
        """Leases taken elsewhere (the cluster member's claim, which waits for a live holder to go): check these
        epochs from now on, exactly as after :meth:`take_leases`."""
        self.shards, self.epochs = shards, dict(epochs)

    def _lease_check(self, table_id: int) -> LeaseCheck | None:
        """The lease a write to ``table_id`` must find, for the write to check in its own statement
        (``append_action(lease=…)``: no round trip of its own); None when :meth:`_fence` must read
        first: not sharded, the table's guild not known yet, or no lease held (the fence raises)."""
        shards = self.shards
        guild_id = self._guilds.get(table_id)
        if shards is None or guild_id is None:
            return None
        shard = shards.shard_of(guild_id)
        held = self.epochs.get(shard)
        return None if held is None else LeaseCheck(shards.count, shard, held)

    async def _fence(self, tx: StorageTx, table_id: int, guild_id: int | None = None) -> None:
        """Raise :class:`ShardLeaseLost` unless this process still holds the lease of the table's shard (a no-op when
        not sharded). Runs inside the write's transaction, so the check and the write commit together."""
        shards = self.shards
        if shards is None:
            return
        if guild_id is None:
            guild_id = self._guilds.get(table_id)
        if guild_id is None:
            row = await tx.get_table(table_id)
            if row is None:
                return  # unknown table: the write itself fails with TableClosed
            guild_id = row.guild_id
        self._guilds[table_id] = guild_id
        await self.fence_guild(tx, guild_id)

    def owns(self, guild_id: int) -> bool:
        """True when this process may write ``guild_id``'s tables: not sharded, or the guild is on a shard whose
        lease it took (whether the lease is still held is checked by each write, :meth:`fence_guild`)."""
        return self.shards is None or (self.shards.owns(guild_id) and self.shards.shard_of(guild_id) in self.epochs)

    async def fence_guild(self, tx: StorageTx, guild_id: int) -> None:
        """Inside a write transaction: raise :class:`ShardLeaseLost` unless this process still holds the lease of
        ``guild_id``'s shard (a no-op when not sharded). A service whose rows belong to a guild (tournaments) calls
        it in every write, as every table write does, so a stale process writes nothing."""
        shards = self.shards
        if shards is None:
            return
        shard = shards.shard_of(guild_id)
        held = self.epochs.get(shard)
        current = await tx.shard_lease_epoch(shards.count, shard)
        if held is None or current != held:
            raise ShardLeaseLost(shards.count, shard, held, current)

    async def open_table(
        self,
        table_id: int,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        config: str,
        meta: str = "{}",
        board_message_id: int | None = None,
        scope: BankScope | None = None,
    ) -> TableRow:
        """Create the table row (status open, last_seq 0). ``guild_id`` is the Discord guild it is played in;
        ``scope`` the banks it buys in from and cashes out to (None: that guild's own).

        Idempotent for a retry: an open table with the same id, guild and channel is returned unchanged.

        Raises:
            TableExists: the id is taken by another or a closed table.
        """
        row = TableRow(
            table_id=table_id,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            config=config,
            meta=meta,
            status="open",
            created_at=self._clock(),
            closed_at=None,
            board_message_id=board_message_id,
            last_seq=0,
            scope=None if scope is None or scope == BankScope.guild(guild_id) else scope,
        )
        async with self.storage.transaction() as tx:
            await self._fence(tx, table_id, guild_id)
            if await tx.insert_table(row):
                return row
            existing = await tx.get_table(table_id)
        if (
            existing is not None
            and existing.status == "open"
            and (existing.guild_id, existing.channel_id) == (guild_id, channel_id)
        ):
            return existing
        raise TableExists(table_id)

    async def get_table(self, table_id: int) -> TableRow | None:
        async with self.storage.transaction(write=False) as tx:
            return await tx.get_table(table_id)

    async def commit_action(
        self,
        table_id: int,
        seq: int,
        action_text: str,
        events_text: str,
        postings: Sequence[Posting] = (),
        *,
        key: str | None = None,
        actor: Actor = "system",
        reason: str = "table action",
        snapshot: str | None = None,
        result: Callable[[StorageTx], Awaitable[str | None]] | None = None,
    ) -> Receipt:
        """Append action ``seq`` to the table's log and apply its postings in one transaction.

        ``snapshot``: the table state after this action (the engine codec's text); stored in the same
        transaction as the table's only snapshot (older ones are deleted), so start-up replays only the
        actions after it.

        ``result``: called as ``result(tx)`` inside the same transaction, before the journal row is written; the
        text it returns (if any) is stored on the action's journal row (chip leagues: a hand's result is
        recorded with its settlement, atomically and never twice, at no extra row or hop; the league drains it into
        its tables later). It may read (``tx``) but must not write. A retried commit stores nothing again.

        Returns the receipt; ``created`` is False when ``key`` (default ``table:T:seq:N``) was already
        committed — nothing was appended, posted or snapshotted again.

        Raises:
            InsufficientChips: a posting would overdraw (nothing persists).
            TableClosed: the table is closed or unknown.
            LogConflict: ``seq`` is not ``last_seq + 1`` (a service bug; nothing persists).
            IdempotencyConflict: the key was used with different postings.
        """
        key = key or action_key(table_id, seq)
        now = self._clock()
        lease = self._lease_check(table_id)
        if not postings and snapshot is None and result is None and (lease is not None or self.shards is None):
            # no chips, snapshot or result: the backend may write it in one statement (None: take the transaction)
            try:
                journal_id = await self.storage.commit_bare_action(
                    key=key,
                    reason=reason,
                    actor=actor_text(actor),
                    table_id=table_id,
                    seq=seq,
                    action=action_text,
                    events=events_text,
                    created_at=now,
                    lease=lease,
                )
            except TableNotOpen as exc:
                raise TableClosed(table_id) from exc
            if journal_id is not None:
                return Receipt(journal_id, key, True, ())
        async with self.storage.transaction() as tx:
            if lease is None:
                await self._fence(tx, table_id)  # not sharded (a no-op), or the table's guild not known yet
            note = await result(tx) if result is not None else None
            receipt = await post_transaction(
                tx, postings, key=key, reason=reason, actor=actor, now=now, table_id=table_id, result=note
            )
            if receipt.created:
                # The snapshot rides on the append (one round trip on SQLite), and so does the lease check.
                then = snapshot_statements(table_id, seq, snapshot, now) if snapshot is not None else []
                try:
                    await tx.append_action(
                        table_id=table_id,
                        seq=seq,
                        action=action_text,
                        events=events_text,
                        journal_id=receipt.journal_id,
                        created_at=now,
                        then=then,
                        lease=lease,
                    )
                except TableNotOpen as exc:
                    raise TableClosed(table_id) from exc
            elif lease is not None:
                await self._fence(tx, table_id)  # a retry wrote nothing: checked as any write is
            return receipt

    async def close_table(
        self,
        table_id: int,
        postings: Sequence[Posting] = (),
        *,
        actor: Actor = "system",
        key: str | None = None,
    ) -> CloseResult:
        """Close an open table: apply ``postings`` (e.g. sharing out the tops; journal ``<key>:settle``), cash
        every stack out to its owner's bank and return any remaining tops chips to the scope's issued account
        (journal ``key``), and mark the table closed — all in one transaction. A retry with the same key
        returns the original result.

        Raises:
            TableClosed: unknown table, or already closed under another key.
            InsufficientChips: ``postings`` overdraw an account.
        """
        key = key or f"table:{table_id}:close"
        now = self._clock()
        async with self.storage.transaction() as tx:
            row = await tx.get_table(table_id)
            if row is None:
                raise TableClosed(table_id)
            await self._fence(tx, table_id, row.guild_id)
            if row.status == "closed":
                record = await tx.find_journal(key)
                if record is None:
                    raise TableClosed(table_id)
                receipt = Receipt(record.journal_id, key, False, record.postings)
                return _close_result(receipt, table_id)
            final = dict(await tx.table_balances(table_id))
            scope = row.bank_scope  # the guild's, or the scope stored with the table
            for posting in postings:
                final[posting.account] = final.get(posting.account, 0) + posting.delta
            closing: list[Posting] = []
            for account, amount in sorted(final.items()):
                if amount <= 0 or account.scope_id != table_id:
                    continue
                if account.kind is AccountKind.STACK and account.user_id is not None:
                    to = Account.bank(scope, account.user_id)
                elif account.kind is AccountKind.TOPS:
                    to = Account.issued(scope)
                else:
                    continue
                closing += [Posting(account, -amount), Posting(to, amount)]
            if postings:
                await post_transaction(
                    tx,
                    postings,
                    key=f"{key}:settle",
                    reason="table closed: settle",
                    actor=actor,
                    now=now,
                    table_id=table_id,
                )
            receipt = await post_transaction(
                tx,
                closing,
                key=key,
                reason="table closed",
                actor=actor,
                now=now,
                table_id=table_id,
            )
            try:
                await tx.mark_closed(table_id, now)
            except TableNotOpen as exc:  # pragma: no cover - checked above under the same write lock
                raise TableClosed(table_id) from exc
            await tx.drop_snapshots(table_id)  # a closed table is never replayed; its log stays
        return _close_result(receipt, table_id)

    async def set_board_message(self, table_id: int, message_id: int | None) -> None:
        async with self.storage.transaction() as tx:
            await self._fence(tx, table_id)
            try:
                await tx.set_board_message(table_id, message_id)
            except TableNotOpen as exc:
                raise TableClosed(table_id) from exc

    async def update_meta(self, table_id: int, meta: str) -> None:
        async with self.storage.transaction() as tx:
            await self._fence(tx, table_id)
            try:
                await tx.set_meta(table_id, meta)
            except TableNotOpen as exc:
                raise TableClosed(table_id) from exc

    async def merge_meta(self, table_id: int, key: str, value: Any) -> None:
        """Set ``meta[key] = value`` in one write transaction, keeping every other key (the names and the turn
        clock share the meta JSON; a whole-meta write from one of them used to erase the other).

        Raises:
            TableClosed: the table is not open.
        """
        async with self.storage.transaction() as tx:
            row = await tx.get_table(table_id)
            if row is None or row.status != "open":
                raise TableClosed(table_id)
            await self._fence(tx, table_id, row.guild_id)
            try:
                meta = json.loads(row.meta or "{}")
            except ValueError:
                meta = {}
            if not isinstance(meta, dict):
                meta = {}
            meta[key] = value
            try:
                await tx.set_meta(table_id, json.dumps(meta, sort_keys=True))
            except TableNotOpen as exc:
                raise TableClosed(table_id) from exc

    async def save_snapshot(self, table_id: int, seq: int, state: str) -> None:
        """Record the table state after action ``seq`` as its only snapshot (older ones are deleted).

        Later loads replay only the actions after it. ``commit_action(..., snapshot=...)`` does the same atomically
        with the action.
        """
        async with self.storage.transaction() as tx:
            row = await tx.get_table(table_id)
            if row is None:
                raise TableClosed(table_id)
            await self._fence(tx, table_id, row.guild_id)
            if not 1 <= seq <= row.last_seq:
                raise StorageError(f"table {table_id}: snapshot seq {seq} is outside 1..{row.last_seq}")
            await tx.put_snapshot(table_id, seq, state, self._clock())
            await tx.drop_snapshots(table_id, below=seq)

    async def load_open_tables(self) -> list[StoredTable]:
        """Every open table with its config/meta and ordered action texts, for replay at start-up (only the tables
        of the guilds on this process's shards after :meth:`take_leases`)."""
        async with self.storage.transaction(write=False) as tx:
            tables = await tx.load_open_tables(self.shards)
        self._guilds.update((t.table_id, t.row.guild_id) for t in tables)
        return tables

    async def read_log(self, table_id: int, after_seq: int = 0) -> list[tuple[int, str, str]]:
        """(seq, action, events) of any table (open or closed) after ``after_seq``."""
        async with self.storage.transaction(write=False) as tx:
            return await tx.read_log(table_id, after_seq)

    async def read_log_times(self, table_id: int, after_seq: int = 0) -> list[tuple[int, float]]:
        """(seq, commit time in Unix seconds) of any table's log after ``after_seq``."""
        async with self.storage.transaction(write=False) as tx:
            return await tx.read_log_times(table_id, after_seq)


def _close_result(receipt: Receipt, table_id: int) -> CloseResult:
    cashouts: dict[int, int] = {}
    tops = 0
    for posting in receipt.postings:
        account = posting.account
        if posting.delta >= 0 or account.scope_id != table_id:
            continue
        if account.kind is AccountKind.STACK and account.user_id is not None:
            cashouts[account.user_id] = cashouts.get(account.user_id, 0) - posting.delta
        elif account.kind is AccountKind.TOPS:
            tops -= posting.delta
    return CloseResult(receipt, cashouts, tops)
