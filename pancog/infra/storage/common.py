"""What both SQL backends share: row decoding, and the start-up load and the audit, whose SQL both dialects run.

Each function takes ``fetch``, the backend's "rows of one parameterless query" coroutine, so the SQL text lives
here once. Dialect-specific statements (placeholders, locking, error mapping) stay in the backends.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pancog.infra.storage.base import (
    Account,
    AccountKind,
    AuditFacts,
    LeaseCheck,
    ShardSet,
    Statement,
    StoredTable,
    TableRow,
)

__all__ = [
    "DROP_SNAPSHOTS",
    "NO_SEQ_LIMIT",
    "PUT_SNAPSHOT",
    "TABLE_COLUMNS",
    "Fetch",
    "account_from_row",
    "action_insert",
    "audit_facts",
    "journal_insert",
    "load_open_tables",
    "run_after_commit",
    "snapshot_statements",
    "table_row",
]

Fetch = Callable[[str], Awaitable[Sequence[Sequence[Any]]]]

log = logging.getLogger("pan.storage")


def run_after_commit(callbacks: Sequence[Callable[[], None]]) -> None:
    """Call a committed transaction's ``after_commit`` callbacks in order; one that raises is logged and the rest
    still run (the commit has happened: nothing may undo it or hide it from the caller)."""
    for callback in callbacks:
        try:
            callback()
        except Exception:
            log.exception("an after-commit callback failed")


# A table's only snapshot (portable, ``?`` placeholders: both backends run these texts).
PUT_SNAPSHOT = (
    "INSERT INTO snapshots (table_id, seq, state, created_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (table_id, seq) DO UPDATE SET state = excluded.state, created_at = excluded.created_at"
)
DROP_SNAPSHOTS = "DELETE FROM snapshots WHERE table_id = ? AND seq < ?"
NO_SEQ_LIMIT = 2**63 - 1


def snapshot_statements(table_id: int, seq: int, state: str, created_at: float) -> list[Statement]:
    """Store the state after action ``seq`` as the table's only snapshot (``put_snapshot`` + ``drop_snapshots``
    below ``seq``), as statements that can ride on the action's append (``StorageTx.append_action(then=…)``)."""
    return [(PUT_SNAPSHOT, (table_id, seq, state, created_at)), (DROP_SNAPSHOTS, (table_id, seq))]


def account_from_row(kind: str, scope_id: int, user_id: int | None, pot: str | None) -> Account:
    k = AccountKind(kind)
    if k is AccountKind.TOPS:
        return Account.tops(scope_id, "singles" if pot == "singles" else "doubles")
    return Account(k, scope_id, user_id)


def table_row(r: Sequence[Any]) -> TableRow:
    return TableRow(
        table_id=r[0],
        guild_id=r[1],
        channel_id=r[2],
        host_id=r[3],
        config=r[4],
        meta=r[5],
        status="open" if r[6] == "open" else "closed",
        created_at=r[7],
        closed_at=r[8],
        board_message_id=r[9],
        last_seq=r[10],
    )


TABLE_COLUMNS = (
    "table_id, guild_id, channel_id, host_id, config, meta, status, created_at, closed_at, board_message_id, last_seq"
)


async def load_open_tables(fetch: Fetch, shards: ShardSet | None = None) -> list[StoredTable]:
    """Every open table (of the guilds on ``shards``, if given) with its latest snapshot and the actions after it."""
    owned = "" if shards is None else f" AND {shards.sql_filter('t.guild_id')}"
    tables = [
        table_row(r)
        for r in await fetch(
            f"SELECT {TABLE_COLUMNS} FROM tables t WHERE status = 'open'{owned} ORDER BY table_id"  # noqa: S608
        )
    ]
    snapshots: dict[int, tuple[int, str]] = {}
    for table_id, seq, state in await fetch(
        "SELECT s.table_id, s.seq, s.state FROM snapshots s JOIN tables t ON t.table_id = s.table_id "  # noqa: S608
        f"WHERE t.status = 'open'{owned} AND s.seq = (SELECT MAX(seq) FROM snapshots WHERE table_id = s.table_id)"
    ):
        snapshots[table_id] = (seq, state)
    actions: dict[int, list[str]] = {t.table_id: [] for t in tables}
    # One primary-key range scan per open table (seq > its snapshot's), not a subquery per logged action.
    for table_id, action in await fetch(
        "SELECT a.table_id, a.action FROM tables t "  # noqa: S608 (owned: integers only, ShardSet.sql_filter)
        "LEFT JOIN (SELECT table_id, MAX(seq) AS seq FROM snapshots GROUP BY table_id) s "
        "ON s.table_id = t.table_id "
        "JOIN actions a ON a.table_id = t.table_id AND a.seq > COALESCE(s.seq, 0) "
        f"WHERE t.status = 'open'{owned} ORDER BY a.table_id, a.seq"
    ):
        actions[table_id].append(action)
    result: list[StoredTable] = []
    for row in tables:
        snap_seq, state = snapshots.get(row.table_id, (0, None))
        result.append(StoredTable(row, state, tuple(actions[row.table_id]), snap_seq + 1))
    return result


async def audit_facts(fetch: Fetch) -> AuditFacts:
    """The raw facts of :meth:`pancog.services.ledger.ChipLedger.audit`; run it in a read-only (snapshot)
    transaction."""

    async def scalar(sql: str) -> int:
        rows = list(await fetch(sql))
        return int(rows[0][0] or 0)

    mismatch = await fetch(
        "SELECT a.key, a.balance, COALESCE(p.total, 0) FROM accounts a LEFT JOIN "
        "(SELECT account_key, SUM(delta) AS total FROM postings GROUP BY account_key) p "
        "ON p.account_key = a.key WHERE a.balance <> COALESCE(p.total, 0) ORDER BY a.key"
    )
    unbalanced = await fetch(
        "SELECT j.idem_key, SUM(p.delta) FROM journals j JOIN postings p ON p.journal_id = j.id "
        "GROUP BY j.id HAVING SUM(p.delta) <> 0 ORDER BY j.id"
    )
    negative = await fetch("SELECT key, balance FROM accounts WHERE kind <> 'issued' AND balance < 0 ORDER BY key")
    gaps = await fetch(
        "SELECT t.table_id, t.last_seq, COUNT(a.seq), COALESCE(MAX(a.seq), 0) FROM tables t "
        "LEFT JOIN actions a ON a.table_id = t.table_id GROUP BY t.table_id "
        "HAVING t.last_seq <> COUNT(a.seq) OR t.last_seq <> COALESCE(MAX(a.seq), 0)"
    )
    return AuditFacts(
        accounts=await scalar("SELECT COUNT(*) FROM accounts"),
        journals=await scalar("SELECT COUNT(*) FROM journals"),
        postings=await scalar("SELECT COUNT(*) FROM postings"),
        cached_mismatch=tuple((str(k), int(b), int(s)) for k, b, s in mismatch),
        unbalanced_journals=tuple((str(k), int(s)) for k, s in unbalanced),
        negative_accounts=tuple((str(k), int(b)) for k, b in negative),
        log_gaps=tuple((int(t), int(last), int(n)) for t, last, n, _ in gaps),
        total_non_system=await scalar("SELECT SUM(balance) FROM accounts WHERE kind <> 'issued'"),
        total_issued=await scalar("SELECT SUM(balance) FROM accounts WHERE kind = 'issued'"),
    )


_INSERT_JOURNAL = (
    "INSERT INTO journals (idem_key, reason, actor, table_id, created_at{}) VALUES (?, ?, ?, ?, ?{}) "
    "ON CONFLICT (idem_key) DO NOTHING RETURNING id"
)
_JOURNAL_PLAIN = _INSERT_JOURNAL.format("", "")
_JOURNAL_WITH_RESULT = _INSERT_JOURNAL.format(", result", ", ?")


def journal_insert(
    key: str, reason: str, actor: str, table_id: int | None, created_at: float, result: str | None
) -> Statement:
    """The statement that inserts a journal row (``RETURNING id``; nothing on a known key). The ``result`` column
    (V8) only when there is one: the usual journal is then the statement every schema version since V1 accepts
    (tests open older versions with this code)."""
    if result is None:
        return _JOURNAL_PLAIN, (key, reason, actor, table_id, created_at)
    return _JOURNAL_WITH_RESULT, (key, reason, actor, table_id, created_at, result)


_ACTION_PLAIN = "INSERT INTO actions (table_id, seq, action, events, journal_id, created_at) VALUES (?, ?, ?, ?, ?, ?)"
_ACTION_LEASED = (
    "INSERT INTO actions (table_id, seq, action, events, journal_id, created_at) SELECT ?, ?, ?, ?, ?, ? "
    "WHERE (SELECT epoch FROM shard_leases WHERE shard_count = ? AND shard_id = ?{}) = ?"
)


def action_insert(
    row: tuple[int, int, str, str, int, float], lease: LeaseCheck | None, *, for_share: bool = False
) -> Statement:
    """The statement that appends an action to a table's log; ``row`` is ``(table_id, seq, action, events,
    journal_id, created_at)``. With a ``lease`` it inserts only while the shard lease still has that epoch (nothing
    otherwise: the caller raises ``ShardLeaseLost``), so the check needs no round trip of its own; ``for_share``
    locks the lease row for that read (PostgreSQL; SQLite has one writer)."""
    if lease is None:
        return _ACTION_PLAIN, row
    sql = _ACTION_LEASED.format(" FOR SHARE" if for_share else "")
    return sql, (*row, lease.shard_count, lease.shard_id, lease.epoch)
