"""The durable outbox: every Discord side effect owed after a commit, written in that commit's transaction.

A service that commits something Discord must then be told about (a season's role for its winners, a tournament's
results post, a DM) does not call Discord after its commit: a crash between the two would lose the effect for good.
It calls :meth:`Outbox.enqueue` with the :class:`~pancog.infra.storage.base.StorageTx` it already holds, so the
effect is owed if and only if the commit happened. The adapter's deliverer (``pancog/adapter/deliveries.py``)
claims the items due, delivers each through the handler registered for its ``kind``, and marks it done (with a
result: "granted", a message id) or failed:

* **transient** (Discord 5xx, a timeout, a dropped connection): owed again after an exponential back-off
  (:class:`Backoff`, capped), for as long as it takes;
* **permanent** (a missing permission, a role or channel that no longer exists): recorded as ``failed`` with the
  reason, reported once, and left alone until a moderator asks again (:meth:`Outbox.rearm`).

Delivery is *at least once*: a crash after Discord acted but before the item is marked done delivers it again, so
every handler is idempotent (a role grant reads the member's roles first; a post carries a nonce derived from the
key, which Discord deduplicates). Each item has an idempotency key, unique per effect, so enqueuing twice (a
retried transaction) owes it once.

**Who delivers what.** In a cluster each process delivers only the items of the guilds it owns (its shards):
:attr:`Outbox.owns` is the one predicate that decides, set by the composition root (:meth:`Outbox.set_owner`,
everything by default). A claim is a compare-and-set on the row (``status``, ``due_at``), so two processes that
both believe they own a guild during a hand-over still deliver an item once per claim, and the handlers' idempotency
covers the rest.

No discord import: this module only stores, claims and records. See docs/architecture.md ("The durable outbox").
"""

from __future__ import annotations

import json
import logging
import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pancog.infra.storage.base import Storage, StorageTx

__all__ = [
    "DONE",
    "FAILED",
    "OWED",
    "Backoff",
    "Outbox",
    "OutboxItem",
    "Status",
]

log = logging.getLogger("pan.outbox")

Status = Literal["owed", "done", "failed"]
OWED: Status = "owed"
DONE: Status = "done"
FAILED: Status = "failed"

_COLUMNS = "key, guild_id, kind, payload, status, created_at, due_at, claimed_at, attempts, last_error, done_at, result"
_CLAIM = (  # a constant column list, no input: not an injection
    "UPDATE outbox SET claimed_at = ?, due_at = ?, attempts = attempts + 1 WHERE key = ? "  # noqa: S608
    "AND status = 'owed' AND (due_at <= ? OR (claimed_at IS NOT NULL AND claimed_at < ?)) "
    f"RETURNING {_COLUMNS}"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class OutboxItem:
    """One owed (or delivered, or failed) side effect, as stored."""

    key: str
    guild_id: int
    kind: str
    payload: Mapping[str, Any]
    status: Status
    created_at: float
    due_at: float
    claimed_at: float | None
    attempts: int
    last_error: str | None
    done_at: float | None
    result: str | None

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> OutboxItem:
        key, guild, kind, payload, status, created, due, claimed, attempts, error, done, result = row
        try:
            decoded = json.loads(payload)
        except ValueError:
            decoded = {}
        return cls(
            key=str(key),
            guild_id=int(guild),
            kind=str(kind),
            payload=decoded if isinstance(decoded, dict) else {},
            status=status,
            created_at=float(created),
            due_at=float(due),
            claimed_at=None if claimed is None else float(claimed),
            attempts=int(attempts),
            last_error=error,
            done_at=None if done is None else float(done),
            result=result,
        )


@dataclass(frozen=True, slots=True)
class Backoff:
    """The wait before retrying after the ``attempts``-th transient failure: ``first · factor^(attempts−1)``, at most
    ``cap`` seconds (2 s, 4 s, 8 s, … 15 min by default: a Discord outage of an hour costs a few dozen tries)."""

    first: float = 2.0
    factor: float = 2.0
    cap: float = 900.0

    def delay(self, attempts: int) -> float:
        return float(min(self.cap, self.first * self.factor ** max(0, attempts - 1)))


def _everything(_guild_id: int) -> bool:
    return True


class Outbox:
    """The owed side effects of every guild (table ``outbox``, migration V9).

    ``lease``: how long a claimed item stays invisible to other claims while it is being delivered; a process that
    dies mid-delivery leaves it due again after that (a restarted process takes its own previous claims at once:
    those claimed before it started).
    """

    def __init__(
        self,
        storage: Storage,
        *,
        clock: Callable[[], float] = time.time,
        backoff: Backoff | None = None,
        lease: float = 120.0,
    ) -> None:
        self.storage = storage
        self._clock = clock
        self.backoff = backoff or Backoff()
        self.lease = lease
        self.owns: Callable[[int], bool] = _everything
        self._listeners: list[Callable[[], None]] = []
        self._waking: weakref.WeakSet[StorageTx] = weakref.WeakSet()  # transactions that wake the deliverer once
        self._started = clock()

    # ------------------------------------------------------------------ wiring

    def set_owner(self, owns: Callable[[int], bool]) -> None:
        """Deliver only the items of the guilds for which ``owns(guild_id)`` is true (a cluster process: the guilds of
        its shards). The one place that decides; everything by default."""
        self.owns = owns

    def subscribe(self, listener: Callable[[], None]) -> None:
        """``listener()`` runs right after a transaction that enqueued an item commits (and after a re-arm): the
        deliverer wakes up. Synchronous; it must not block."""
        self._listeners.append(listener)

    def _wake(self) -> None:
        for listener in self._listeners:
            listener()

    # ------------------------------------------------------------------ writing

    async def enqueue(
        self,
        tx: StorageTx,
        *,
        key: str,
        guild_id: int,
        kind: str,
        payload: Mapping[str, Any],
        due_at: float | None = None,
    ) -> bool:
        """Owe a side effect, in the caller's transaction ``tx`` (the one that commits what it follows from).

        ``key`` is the effect's idempotency key (unique per effect, e.g. ``season:G:N:role:U``): an item with that key
        already there (a retried transaction) is left as it is and False is returned. ``kind`` names the handler that
        delivers it; ``payload`` is its input (JSON: str, int, float, bool, None, lists and dicts of them).
        ``due_at``: not before this time (default: now). Delivery starts once ``tx`` commits (never if it rolls
        back)."""
        now = self._clock()
        text = json.dumps(dict(payload), sort_keys=True, separators=(",", ":"))
        rows = await tx.fetchall(
            "INSERT INTO outbox (key, guild_id, kind, payload, status, created_at, due_at, attempts) "
            "VALUES (?, ?, ?, ?, 'owed', ?, ?, 0) ON CONFLICT (key) DO NOTHING RETURNING key",
            (key, guild_id, kind, text, now, now if due_at is None else due_at),
        )
        if rows and tx not in self._waking:  # one wake per transaction, however many items it owes
            self._waking.add(tx)
            tx.after_commit(self._wake)
        return bool(rows)

    async def claim(self, *, limit: int = 20) -> list[OutboxItem]:
        """Take up to ``limit`` due items of the guilds this process owns (oldest due first), each now claimed for
        :attr:`lease` seconds with one more attempt counted. Items claimed by a process that has since died (before
        this one started) are due at once."""
        now = self._clock()
        async with self.storage.transaction() as tx:
            rows = await tx.fetchall(
                "SELECT key, guild_id FROM outbox WHERE status = 'owed' "
                "AND (due_at <= ? OR (claimed_at IS NOT NULL AND claimed_at < ?)) ORDER BY due_at, created_at, key",
                (now, self._started),
            )
            keys = [str(k) for k, guild in rows if self.owns(int(guild))][:limit]
            taken: list[OutboxItem] = []
            for key in keys:  # compare-and-set: a racing claim of another process takes it, or this one does
                claimed = await tx.fetchall(_CLAIM, (now, now + self.lease, key, now, self._started))
                taken += [OutboxItem.from_row(row) for row in claimed]
        return taken

    async def done(self, key: str, result: str) -> None:
        """Record a delivered item and what its delivery did (shown to moderators: "granted", a message id)."""
        async with self.storage.transaction() as tx:
            await tx.execute(
                "UPDATE outbox SET status = 'done', done_at = ?, result = ?, claimed_at = NULL, last_error = NULL "
                "WHERE key = ? AND status <> 'done'",
                (self._clock(), result, key),
            )

    async def failed(self, key: str, error: str, *, permanent: bool = False) -> float | None:
        """Record a failed delivery. Transient: owed again after the back-off of its attempts so far; returns when.
        Permanent: ``failed`` (the reason kept in ``last_error``) until :meth:`rearm`; returns None."""
        now = self._clock()
        async with self.storage.transaction() as tx:
            rows = await tx.fetchall("SELECT attempts FROM outbox WHERE key = ? AND status = 'owed'", (key,))
            if not rows:
                return None
            if permanent:
                await tx.execute(
                    "UPDATE outbox SET status = 'failed', last_error = ?, claimed_at = NULL, due_at = ? WHERE key = ?",
                    (error, now, key),
                )
                return None
            due = now + self.backoff.delay(int(rows[0][0]))
            await tx.execute(
                "UPDATE outbox SET last_error = ?, claimed_at = NULL, due_at = ? WHERE key = ?", (error, due, key)
            )
        return due

    async def rearm(self, guild_id: int, keys: Iterable[str]) -> int:
        """Owe again, now, the items among ``keys`` of ``guild_id`` that are not delivered: a failed one (a moderator's
        retry after fixing what refused it) and one waiting for its back-off; one being delivered or delivered is
        left as it is. Returns how many were re-armed."""
        now = self._clock()
        count = 0
        async with self.storage.transaction() as tx:
            for key in keys:
                count += await tx.execute(
                    "UPDATE outbox SET status = 'owed', due_at = ?, claimed_at = NULL WHERE key = ? AND guild_id = ? "
                    "AND (status = 'failed' OR (status = 'owed' AND claimed_at IS NULL))",
                    (now, key, guild_id),
                )
            if count:
                tx.after_commit(self._wake)
        return count

    async def prune(self, *, done_before: float) -> int:
        """Forget the items delivered before ``done_before`` (their reports are old news); returns how many."""
        async with self.storage.transaction() as tx:
            return await tx.execute("DELETE FROM outbox WHERE status = 'done' AND done_at < ?", (done_before,))

    # ------------------------------------------------------------------ reading

    async def items(self, guild_id: int, *, prefix: str = "", kind: str | None = None) -> list[OutboxItem]:
        """The guild's items whose key starts with ``prefix`` (and of ``kind``), in key order."""
        # substr, not a range or LIKE: exact on both backends whatever the collation (and LIKE ignores case in SQLite)
        sql = f"SELECT {_COLUMNS} FROM outbox WHERE guild_id = ? AND substr(key, 1, ?) = ?"  # noqa: S608
        params: list[Any] = [guild_id, len(prefix), prefix]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        async with self.storage.transaction(write=False) as tx:
            rows = await tx.fetchall(sql + " ORDER BY key", params)
        return [OutboxItem.from_row(row) for row in rows]

    async def get(self, key: str) -> OutboxItem | None:
        async with self.storage.transaction(write=False) as tx:
            rows = await tx.fetchall(f"SELECT {_COLUMNS} FROM outbox WHERE key = ?", (key,))  # noqa: S608
        return OutboxItem.from_row(rows[0]) if rows else None

    async def counts(self, guild_id: int | None = None) -> dict[Status, int]:
        """How many items are owed and failed (of one guild, or of all): the figures of ``/panadmin status``."""
        sql = "SELECT status, COUNT(*) FROM outbox WHERE status <> 'done'"
        params: tuple[Any, ...] = ()
        if guild_id is not None:
            sql += " AND guild_id = ?"
            params = (guild_id,)
        async with self.storage.transaction(write=False) as tx:
            rows = await tx.fetchall(sql + " GROUP BY status", params)
        found: dict[Status, int] = {OWED: 0, FAILED: 0}
        for status, count in rows:
            found[status] = int(count)
        return found

    async def next_due(self) -> float | None:
        """When the earliest owed item of an owned guild falls due (None: nothing owed here)."""
        async with self.storage.transaction(write=False) as tx:
            rows = await tx.fetchall(
                "SELECT guild_id, MIN(due_at) FROM outbox WHERE status = 'owed' GROUP BY guild_id", ()
            )
        due = [float(at) for guild, at in rows if self.owns(int(guild))]
        return min(due) if due else None
