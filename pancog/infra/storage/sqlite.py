"""SQLite backend (aiosqlite): WAL, foreign keys, busy_timeout, user_version migrations, one serialised writer.

aiosqlite runs one ``sqlite3`` connection on one thread shared by every coroutine, so transactions are not
isolated between coroutines by themselves. :meth:`SqliteStorage.transaction` therefore holds an
``asyncio.Lock`` around the whole ``BEGIN IMMEDIATE … COMMIT`` (the connection is opened with
``isolation_level=None`` so the sqlite3 module never begins transactions implicitly). ``BEGIN IMMEDIATE``
takes the write lock up front, so another *process* on the same file waits (``busy_timeout``) instead of
failing half-way through with SQLITE_BUSY.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import aiosqlite

from pancog.infra.storage.base import (
    Account,
    AuditFacts,
    GuildSettings,
    JournalRecord,
    LeaseCheck,
    LogConflict,
    Overdraw,
    Posting,
    ShardLeaseLost,
    ShardSet,
    Statement,
    StorageError,
    StoredTable,
    TableNotOpen,
    TableRow,
)
from pancog.infra.storage.common import (
    DROP_SNAPSHOTS,
    NO_SEQ_LIMIT,
    PUT_SNAPSHOT,
    TABLE_COLUMNS,
    account_from_row,
    action_insert,
    audit_facts,
    journal_insert,
    load_open_tables,
    run_after_commit,
    table_row,
)
from pancog.infra.storage.migrations import MIGRATIONS_DIR, load_migrations

__all__ = ["SqliteStorage", "SqliteTx"]

_MAX_ROWS_PER_STATEMENT = 150  # 6 parameters per row stays far below SQLite's 32766 parameter limit

Synchronous = Literal["FULL", "NORMAL", "EXTRA", "OFF"]
_T = TypeVar("_T")

if not hasattr(aiosqlite.Connection, "_execute"):  # pragma: no cover - the pinned aiosqlite has it
    raise ImportError("pancog.infra.storage.sqlite needs aiosqlite's Connection._execute (aiosqlite==0.22.1 is pinned)")


def _split_statements(script: str) -> list[str]:
    """Split a SQL script into complete statements (triggers included) using sqlite3.complete_statement."""
    statements: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            text = "\n".join(line for line in pending.splitlines() if not line.strip().startswith("--")).strip()
            if text.strip(";").strip():
                statements.append(text)
            pending = ""
    if pending.strip(" \n\t;"):
        raise StorageError(f"incomplete SQL statement in migration: {pending[:80]!r}")
    return statements


def _chunks(rows: Sequence[tuple[Any, ...]]) -> Iterable[Sequence[tuple[Any, ...]]]:
    for start in range(0, len(rows), _MAX_ROWS_PER_STATEMENT):
        yield rows[start : start + _MAX_ROWS_PER_STATEMENT]


def _run_on_worker(conn: sqlite3.Connection, statements: Sequence[Statement]) -> list[int]:
    """Each statement in order (on aiosqlite's worker thread); their changed-row counts (0, not sqlite3's -1, for
    a statement that changes no rows such as a ``CREATE TABLE``, as on PostgreSQL)."""
    return [max(conn.execute(sql, tuple(params)).rowcount, 0) for sql, params in statements]


def _post_on_worker(
    conn: sqlite3.Connection,
    inserts: Sequence[Statement],
    updates: Sequence[Statement],
    legs: Sequence[Statement],
    expected: int,
) -> set[str]:
    """SqliteTx.post on the worker thread: create the accounts, apply the conditional debit, and record the legs
    only if every account changed (an overdraw records nothing; the caller raises and rolls back). Returns the
    keys of the accounts the debit changed."""
    for sql, params in inserts:
        conn.execute(sql, tuple(params))
    changed: set[str] = set()
    for sql, params in updates:
        changed.update(row[0] for row in conn.execute(sql, tuple(params)).fetchall())
    if len(changed) == expected:
        _run_on_worker(conn, legs)
    return changed


LEASE_LOST = "pan:lease_lost"


def _append_on_worker(conn: sqlite3.Connection, append: Statement, then: Sequence[Statement]) -> str | None:
    """The log append, then ``then`` (on the worker thread). The append's integrity error comes back as its text
    (the caller maps it to LogConflict / TableNotOpen), an append that inserted nothing (its lease check failed)
    as :data:`LEASE_LOST`; an error in ``then`` is raised as it is."""
    try:
        cursor = conn.execute(append[0], tuple(append[1]))
    except sqlite3.IntegrityError as exc:
        return str(exc)
    if cursor.rowcount == 0:
        return LEASE_LOST
    _run_on_worker(conn, then)
    return None


def _values(columns: int, rows: int) -> str:
    row = "(" + ", ".join("?" * columns) + ")"
    return ", ".join([row] * rows)


class SqliteTx:
    """The :class:`~pancog.infra.storage.base.StorageTx` of one SQLite transaction. Only valid inside its block."""

    def __init__(self, conn: aiosqlite.Connection, known_accounts: set[str]) -> None:
        self._conn = conn
        self._known = known_accounts  # accounts known to exist (they are never deleted); shared, read-only here
        self.created_accounts: set[str] = set()  # added to the shared set only after COMMIT
        self.committed: list[Callable[[], None]] = []  # after_commit callbacks, run once COMMIT has returned

    def after_commit(self, callback: Callable[[], None]) -> None:
        self.committed.append(callback)

    async def insert_journal(
        self,
        *,
        key: str,
        reason: str,
        actor: str,
        table_id: int | None,
        created_at: float,
        result: str | None = None,
    ) -> int | None:
        sql, values = journal_insert(key, reason, actor, table_id, created_at, result)
        rows = await self._conn.execute_fetchall(sql, values)
        for row in rows:
            return int(row[0])
        return None

    async def lock_results(self) -> None:
        return None  # a write transaction here is already the only writer (BEGIN IMMEDIATE)

    async def find_journal(self, key: str) -> JournalRecord | None:
        rows = list(
            await self._conn.execute_fetchall(
                "SELECT id, reason, actor, table_id, created_at FROM journals WHERE idem_key = ?", (key,)
            )
        )
        if not rows:
            return None
        journal_id, reason, actor, table_id, created_at = rows[0]
        legs = await self._conn.execute_fetchall(
            "SELECT p.delta, a.kind, a.scope_id, a.user_id, a.pot FROM postings p "
            "JOIN accounts a ON a.key = p.account_key WHERE p.journal_id = ? ORDER BY p.leg",
            (journal_id,),
        )
        postings = tuple(Posting(account_from_row(k, s, u, p), d) for d, k, s, u, p in legs)
        return JournalRecord(journal_id, key, reason, actor, table_id, created_at, postings)

    async def _on_worker(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(sqlite3_connection, *args)`` on aiosqlite's worker thread: one hop for several statements.

        aiosqlite's public API runs one statement per hop (a thread hand-off each way, the largest CPU item of a
        settlement after the fsync); ``Connection._execute`` is the private primitive every public method is built
        on. Why and how it is kept safe: docs/storage.md "One hop per batch"."""
        result: _T = await self._conn._execute(fn, self._conn._conn, *args)  # type: ignore[no-untyped-call]
        return result

    async def post(self, journal_id: int, postings: Sequence[Posting]) -> None:
        net: dict[Account, int] = {}
        for posting in postings:
            net[posting.account] = net.get(posting.account, 0) + posting.delta
        accounts = sorted(net)
        rows_in = [(a.key, a.kind.value, a.scope_id, a.user_id, a.pot) for a in accounts if a.key not in self._known]
        inserts = [
            (
                f"INSERT INTO accounts (key, kind, scope_id, user_id, pot) VALUES {_values(5, len(chunk))} "  # noqa: S608
                "ON CONFLICT (key) DO NOTHING",
                [value for row in chunk for value in row],
            )
            for chunk in _chunks(rows_in)
        ]
        # Conditional debit: a row that would go below zero is not updated, so it is missing from RETURNING.
        # (The CHECK constraint is the backstop should any other statement try.)
        updates = [
            (
                "UPDATE accounts SET balance = accounts.balance + d.column2 "  # noqa: S608
                f"FROM (VALUES {_values(2, len(chunk))}) AS d WHERE accounts.key = d.column1 "
                "AND (accounts.balance + d.column2 >= 0 OR accounts.kind = 'issued') RETURNING accounts.key",
                [value for row in chunk for value in row],
            )
            for chunk in _chunks([(a.key, net[a]) for a in accounts])
        ]
        legs = [
            (
                f"INSERT INTO postings (journal_id, leg, account_key, delta) VALUES {_values(4, len(chunk))}",  # noqa: S608
                [value for row in chunk for value in row],
            )
            for chunk in _chunks([(journal_id, leg, p.account.key, p.delta) for leg, p in enumerate(postings)])
        ]
        # One hop: the accounts, the conditional debit and (only if every account changed) the postings.
        changed = await self._on_worker(_post_on_worker, inserts, updates, legs, len(accounts))
        self.created_accounts.update(row[0] for row in rows_in)
        if len(changed) != len(accounts):
            await self._raise_overdraw([a for a in accounts if a.key not in changed], net)

    async def _raise_overdraw(self, suspects: list[Account], net: dict[Account, int]) -> None:
        # Failed rows were left untouched, so their current balance is what was available.
        current = await self.balances(suspects)
        for account in suspects:
            if current[account] + net[account] < 0:
                raise Overdraw(account, -net[account], current[account])
        raise StorageError(f"account upsert changed fewer rows than expected: {[a.key for a in suspects]}")

    async def balances(self, accounts: Sequence[Account]) -> dict[Account, int]:
        result = dict.fromkeys(accounts, 0)
        by_key = {a.key: a for a in accounts}
        keys = list(by_key)
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            rows = await self._conn.execute_fetchall(
                f"SELECT key, balance FROM accounts WHERE key IN ({', '.join('?' * len(part))})",  # noqa: S608
                part,
            )
            for key, balance in rows:
                result[by_key[key]] = balance
        return result

    async def insert_table(self, row: TableRow) -> bool:
        rows = await self._conn.execute_fetchall(
            f"INSERT INTO tables ({TABLE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "  # noqa: S608
            "ON CONFLICT (table_id) DO NOTHING RETURNING table_id",
            (
                row.table_id,
                row.guild_id,
                row.channel_id,
                row.host_id,
                row.config,
                row.meta,
                row.status,
                row.created_at,
                row.closed_at,
                row.board_message_id,
                row.last_seq,
            ),
        )
        return bool(list(rows))

    async def get_table(self, table_id: int) -> TableRow | None:
        rows = list(
            await self._conn.execute_fetchall(
                f"SELECT {TABLE_COLUMNS} FROM tables WHERE table_id = ?",  # noqa: S608
                (table_id,),
            )
        )
        return table_row(rows[0]) if rows else None

    async def append_action(
        self,
        *,
        table_id: int,
        seq: int,
        action: str,
        events: str,
        journal_id: int,
        created_at: float,
        then: Sequence[Statement] = (),
        lease: LeaseCheck | None = None,
    ) -> None:
        # the lease check rides on the append: no hop of its own
        append = action_insert((table_id, seq, action, events, journal_id, created_at), lease)
        refused = await self._on_worker(_append_on_worker, append, then)  # one hop, ``then`` included
        if refused is not None:
            if refused == LEASE_LOST and lease is not None:
                current = await self.shard_lease_epoch(lease.shard_count, lease.shard_id)
                raise ShardLeaseLost(lease.shard_count, lease.shard_id, lease.epoch, current)
            if "pan:table_not_open" in refused:
                raise TableNotOpen(f"table {table_id} is not open")
            if "pan:log_gap" in refused or "UNIQUE" in refused or "PRIMARY KEY" in refused:
                raise LogConflict(f"table {table_id}: seq {seq} is not the next action")
            raise sqlite3.IntegrityError(refused)

    async def read_log(self, table_id: int, after_seq: int = 0) -> list[tuple[int, str, str]]:
        rows = await self._conn.execute_fetchall(
            "SELECT seq, action, events FROM actions WHERE table_id = ? AND seq > ? ORDER BY seq",
            (table_id, after_seq),
        )
        return [(int(s), str(a), str(e)) for s, a, e in rows]

    async def table_balances(self, table_id: int) -> dict[Account, int]:
        rows = await self._conn.execute_fetchall(
            "SELECT kind, scope_id, user_id, pot, balance FROM accounts "
            "WHERE kind IN ('stack', 'tops') AND scope_id = ? AND balance <> 0",
            (table_id,),
        )
        return {account_from_row(k, s, u, p): b for k, s, u, p, b in rows}

    async def mark_closed(self, table_id: int, closed_at: float) -> None:
        cursor = await self._conn.execute(
            "UPDATE tables SET status = 'closed', closed_at = ? WHERE table_id = ? AND status = 'open'",
            (closed_at, table_id),
        )
        if cursor.rowcount != 1:
            raise TableNotOpen(f"table {table_id} is not open")

    async def set_board_message(self, table_id: int, message_id: int | None) -> None:
        cursor = await self._conn.execute(
            "UPDATE tables SET board_message_id = ? WHERE table_id = ?", (message_id, table_id)
        )
        if cursor.rowcount != 1:
            raise TableNotOpen(f"no table {table_id}")

    async def set_meta(self, table_id: int, meta: str) -> None:
        cursor = await self._conn.execute("UPDATE tables SET meta = ? WHERE table_id = ?", (meta, table_id))
        if cursor.rowcount != 1:
            raise TableNotOpen(f"no table {table_id}")

    async def put_snapshot(self, table_id: int, seq: int, state: str, created_at: float) -> None:
        await self._conn.execute(PUT_SNAPSHOT, (table_id, seq, state, created_at))

    async def drop_snapshots(self, table_id: int, *, below: int | None = None) -> int:
        cursor = await self._conn.execute(DROP_SNAPSHOTS, (table_id, below if below is not None else NO_SEQ_LIMIT))
        return cursor.rowcount

    async def load_open_tables(self, shards: ShardSet | None = None) -> list[StoredTable]:
        return await load_open_tables(self._fetch, shards)

    async def take_shard_leases(self, shards: ShardSet, holder: str, now: float) -> dict[int, int]:
        epochs: dict[int, int] = {}
        for shard_id in shards.ids:
            rows = list(
                await self._conn.execute_fetchall(
                    "INSERT INTO shard_leases (shard_count, shard_id, epoch, holder, taken_at) VALUES (?, ?, 1, ?, ?) "
                    "ON CONFLICT (shard_count, shard_id) DO UPDATE SET epoch = shard_leases.epoch + 1, "
                    "holder = excluded.holder, taken_at = excluded.taken_at RETURNING epoch",
                    (shards.count, shard_id, holder, now),
                )
            )
            epochs[shard_id] = int(rows[0][0])
        return epochs

    async def shard_lease_epoch(self, shard_count: int, shard_id: int) -> int | None:
        rows = list(
            await self._conn.execute_fetchall(
                "SELECT epoch FROM shard_leases WHERE shard_count = ? AND shard_id = ?", (shard_count, shard_id)
            )
        )
        return int(rows[0][0]) if rows else None

    async def get_settings(self, guild_id: int) -> GuildSettings | None:
        rows = list(
            await self._conn.execute_fetchall(
                "SELECT preset, starting_chips, daily_amount, moderator_role_id FROM guild_settings WHERE guild_id = ?",
                (guild_id,),
            )
        )
        if not rows:
            return None
        preset, starting, daily, role = rows[0]
        return GuildSettings(
            guild_id=guild_id, preset=preset, starting_chips=starting, daily_amount=daily, moderator_role_id=role
        )

    async def put_settings(self, settings: GuildSettings, updated_at: float) -> None:
        await self._conn.execute(
            "INSERT INTO guild_settings (guild_id, preset, starting_chips, daily_amount, moderator_role_id, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET preset = excluded.preset, "
            "starting_chips = excluded.starting_chips, daily_amount = excluded.daily_amount, "
            "moderator_role_id = excluded.moderator_role_id, updated_at = excluded.updated_at",
            (
                settings.guild_id,
                settings.preset,
                settings.starting_chips,
                settings.daily_amount,
                settings.moderator_role_id,
                updated_at,
            ),
        )

    # Added for the Discord adapter (pancog/services/prefs.py; migration V3__player_settings).
    async def get_player_prefs(self, user_id: int) -> str | None:
        rows = list(
            await self._conn.execute_fetchall("SELECT prefs FROM player_settings WHERE user_id = ?", (user_id,))
        )
        return str(rows[0][0]) if rows else None

    async def put_player_prefs(self, user_id: int, prefs: str, updated_at: float) -> None:
        await self._conn.execute(
            "INSERT INTO player_settings (user_id, prefs, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET prefs = excluded.prefs, updated_at = excluded.updated_at",
            (user_id, prefs, updated_at),
        )

    async def leaderboard(self, guild_id: int, limit: int) -> list[tuple[int, int]]:
        rows = await self._conn.execute_fetchall(
            "SELECT user_id, balance FROM accounts WHERE kind = 'bank' AND scope_id = ? AND user_id >= 0 "
            "ORDER BY balance DESC, user_id LIMIT ?",
            (guild_id, limit),
        )
        return [(int(u), int(b)) for u, b in rows]

    # Added for chip leagues: the generic statements pancog/services/league/repo.py runs.
    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        cursor = await self._conn.execute(sql, tuple(params))
        return max(cursor.rowcount, 0)  # sqlite3 says -1 for a statement without a row count (CREATE TABLE …)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in await self._conn.execute_fetchall(sql, tuple(params))]

    async def execute_batch(self, statements: Sequence[Statement]) -> list[int]:
        # In order, in ONE worker-thread hop (same connection, inside this transaction).
        return await self._on_worker(_run_on_worker, statements)

    async def audit_facts(self) -> AuditFacts:
        return await audit_facts(self._fetch)

    async def _fetch(self, sql: str) -> Sequence[Sequence[Any]]:
        return list(await self._conn.execute_fetchall(sql))


async def _to_the_end(aw: Awaitable[Any]) -> Any:
    """Await ``aw`` to completion even through repeated cancellations of the caller; re-raise the cancellation
    afterwards. For the statements that open and close a transaction on the shared connection."""
    future = asyncio.ensure_future(aw)
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(future)
            break
        except asyncio.CancelledError:
            if future.cancelled():
                raise
            cancelled = True  # before the check below: a cancel that lands as the statement ends is still owed
            if future.done():
                result = future.result()
                break
    if cancelled:
        raise asyncio.CancelledError
    return result


class SqliteStorage:
    """The embedded default backend. ``synchronous='FULL'`` (default) fsyncs the WAL at every commit."""

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: Synchronous = "FULL",
        busy_timeout_ms: int = 5000,
        migrations: Path = MIGRATIONS_DIR,
        target_version: int | None = None,
        read_only: bool = False,
    ) -> None:
        if synchronous not in ("FULL", "NORMAL", "EXTRA", "OFF"):
            raise ValueError(f"synchronous must be FULL, NORMAL, EXTRA or OFF, not {synchronous!r}")
        self.path = str(path)
        self.synchronous = synchronous
        self.busy_timeout_ms = busy_timeout_ms
        self._migrations = migrations
        self._target_version = target_version
        # A reader beside the bot (pan-web): the file is opened read-only (SQLite refuses every write), it is never
        # migrated (the bot migrates it) and must already be at the schema this code knows.
        self.read_only = read_only
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._known_accounts: set[str] = set()

    async def __aenter__(self) -> SqliteStorage:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def open(self) -> None:
        if self._conn is not None:
            return
        if self.read_only:
            self._conn = await self._open_read_only()
            return
        conn = await aiosqlite.connect(self.path, isolation_level=None, timeout=self.busy_timeout_ms / 1000)
        try:
            await conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            await conn.execute("PRAGMA foreign_keys = ON")
            await self._migrate(conn)
        except BaseException:
            await conn.close()
            raise
        self._conn = conn

    async def _open_read_only(self) -> aiosqlite.Connection:
        if not Path(self.path).is_file():
            raise StorageError(f"no database at {self.path}: start the bot first (it creates and migrates it)")
        uri = f"{Path(self.path).resolve().as_uri()}?mode=ro"
        conn = await aiosqlite.connect(uri, uri=True, isolation_level=None, timeout=self.busy_timeout_ms / 1000)
        try:
            await conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
            await conn.execute("PRAGMA query_only = ON")
            version, known = await self._user_version(conn), len(load_migrations("sqlite", self._migrations))
            if version != known:
                raise StorageError(
                    f"database schema v{version}, this code reads v{known}: start the bot of this version first"
                )
        except BaseException:
            await conn.close()
            raise
        return conn

    async def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            async with self._lock:
                await conn.close()

    async def schema_version(self) -> int:
        return await self._user_version(self._connection())

    @staticmethod
    async def _user_version(conn: aiosqlite.Connection) -> int:
        rows = list(await conn.execute_fetchall("PRAGMA user_version"))
        return int(rows[0][0])

    async def _migrate(self, conn: aiosqlite.Connection) -> None:
        migrations = load_migrations("sqlite", self._migrations)
        target = len(migrations) if self._target_version is None else self._target_version
        for migration in migrations[:target]:
            await conn.execute("BEGIN IMMEDIATE")  # re-read the version under the write lock: another process
            try:  # may have migrated while we waited
                if await self._user_version(conn) < migration.version:
                    for statement in _split_statements(migration.sql):
                        await conn.execute(statement)
                    await conn.execute(f"PRAGMA user_version = {migration.version}")
                await conn.execute("COMMIT")
            except BaseException:
                await conn.execute("ROLLBACK")
                raise
        version = await self._user_version(conn)
        if version > len(migrations):
            raise StorageError(f"database schema v{version} is newer than this code (v{len(migrations)})")

    def _connection(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise StorageError("storage is not open")
        return self._conn

    @contextlib.asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[SqliteTx]:
        if write and self.read_only:
            raise StorageError("this storage is read-only")
        conn = self._connection()
        async with self._lock:
            # Every statement that opens or ends the transaction runs to its end even if the caller is cancelled
            # meanwhile (then the cancellation is raised): the lock is never released with the shared connection
            # inside a transaction. A BEGIN cancelled on its way used to leave it open ("cannot start a
            # transaction within a transaction" for the next writer).
            try:
                await _to_the_end(conn.execute("BEGIN IMMEDIATE" if write else "BEGIN"))
            except BaseException:
                if conn.in_transaction:
                    await _to_the_end(conn.execute("ROLLBACK"))
                raise
            tx = SqliteTx(conn, self._known_accounts)
            try:
                yield tx
            except BaseException:
                if conn.in_transaction:
                    await _to_the_end(conn.execute("ROLLBACK"))
                raise
            try:
                await _to_the_end(conn.execute("COMMIT"))
            except BaseException:
                if conn.in_transaction:
                    await _to_the_end(conn.execute("ROLLBACK"))
                raise
            self._known_accounts.update(tx.created_accounts)
        run_after_commit(tx.committed)  # outside the writer lock: a callback may start the next transaction

    async def commit_bare_action(
        self,
        *,
        key: str,
        reason: str,
        actor: str,
        table_id: int,
        seq: int,
        action: str,
        events: str,
        created_at: float,
        lease: LeaseCheck | None,
    ) -> int | None:
        # No shortcut: a SQLite transaction is statements on one in-process connection, not network round trips.
        return None

    async def fetch(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        """Rows of one read-only query (operations and tests; ``?`` placeholders)."""
        async with self._lock:
            return [tuple(r) for r in await self._connection().execute_fetchall(sql, args)]
