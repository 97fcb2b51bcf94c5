"""PostgreSQL backend (asyncpg): a connection pool, one connection per transaction, real concurrency.

Chosen by ``DATABASE_URL`` (see :func:`pancog.infra.storage.open_storage`); the contract is the one in
:mod:`pancog.infra.storage.base`, the schema is ``pancog/infra/storage/sql`` in its PostgreSQL dialect.

Concurrency, unlike SQLite's single writer: every transaction runs on its own pooled connection at
READ COMMITTED, so transactions of different tables commit in parallel. What keeps the books exact:

* Idempotency: the journal row is inserted first (``ON CONFLICT (idem_key) DO NOTHING``); a second delivery
  of a key waits on the unique index until the first commits (then posts nothing) or rolls back (then posts).
* Postings lock their accounts with ``SELECT … ORDER BY key FOR UPDATE`` — always in key order, so two
  writers touching the same accounts queue instead of deadlocking — then check for an overdraw against the
  locked balances and apply the deltas: no lost update, no negative balance (the ``CHECK`` is a backstop).
* The action log's contiguity trigger locks the table row, so appends to one table serialise.
* Read-only transactions run at REPEATABLE READ: the audit is one consistent snapshot.

A cancelled or failing caller ends its transaction (COMMIT or ROLLBACK runs to its end, or the connection is
terminated) before the connection goes back to the pool; see :func:`_end`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import asyncpg

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

from pancog.infra.storage.base import (
    Account,
    AuditFacts,
    GuildSettings,
    JournalRecord,
    LeaseCheck,
    LogConflict,
    Overdraw,
    Posting,
    ScopeKind,
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
    account_inserts,
    action_insert,
    audit_facts,
    journal_insert,
    load_open_tables,
    run_after_commit,
    table_insert,
    table_row,
)
from pancog.infra.storage.migrations import MIGRATIONS_DIR, load_migrations

__all__ = ["PostgresStorage", "PostgresTx", "dollar_placeholders"]

log = logging.getLogger("pan.storage")

_Conn: TypeAlias = "asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]"

# A table action without postings in one statement (see PostgresStorage.commit_bare_action).
_BARE_ACTION = (
    "WITH j AS (INSERT INTO journals (idem_key, reason, actor, table_id, created_at) "
    "SELECT $1, $2, $3, $4, $5{lease} ON CONFLICT (idem_key) DO NOTHING RETURNING id) "
    "INSERT INTO actions (table_id, seq, action, events, journal_id, created_at) "
    "SELECT $4, $6, $7, $8, j.id, $5 FROM j RETURNING journal_id"
)
_BARE_LEASE = " WHERE (SELECT epoch FROM shard_leases WHERE shard_count = $9 AND shard_id = $10 FOR SHARE) = $11"

_RESULTS_LOCK = 0x706172  # "par": journals carrying a league result, and their drain (lock_results)
CLOSE_WAIT = 5.0  # s: the most close() waits for the server's goodbye (a healthy one answers in milliseconds)
IDLE_IN_TRANSACTION = 30.0  # s: the server ends a transaction idle this long (a vanished client's; see open())
_MIGRATION_LOCK = 0x70616E  # "pan": the advisory lock every migrating process takes (per schema, see _migrate)


@functools.lru_cache(maxsize=512)
def dollar_placeholders(sql: str) -> str:
    """``?`` placeholders (the portable subset's) rewritten to PostgreSQL's ``$1, $2, …``.

    A ``?`` inside a single-quoted string literal, a double-quoted identifier or a ``--`` comment is left alone.
    Cached: the league's statements are a few dozen distinct texts.
    """
    out: list[str] = []
    n = 0
    i = 0
    length = len(sql)
    while i < length:
        ch = sql[i]
        if ch in "'\"":
            # To the closing quote. A doubled quote (an escaped one: 'it''s') needs no case of its own: it closes
            # this literal and opens the next, and the text between is copied through either way.
            end = sql.find(ch, i + 1)
            end = length if end == -1 else end + 1
            out.append(sql[i:end])
            i = end
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            end = length if end == -1 else end
            out.append(sql[i:end])
            i = end
        elif ch == "?":
            n += 1
            out.append(f"${n}")
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _rowcount(status: str) -> int:
    """Rows affected, from a command tag such as ``UPDATE 1`` or ``DELETE 3`` (0 for ``CREATE TABLE``)."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


@contextlib.contextmanager
def _append_errors(table_id: int, seq: int) -> Iterator[None]:
    """An append refused by the ``pan_actions_contiguous`` trigger or the log's key, as the storage's errors."""
    try:
        yield
    except asyncpg.RaiseError as exc:
        if "pan:table_not_open" in str(exc):
            raise TableNotOpen(f"table {table_id} is not open") from exc
        if "pan:log_gap" in str(exc):
            raise LogConflict(f"table {table_id}: seq {seq} is not the next action") from exc
        raise
    except asyncpg.UniqueViolationError as exc:
        raise LogConflict(f"table {table_id}: seq {seq} is not the next action") from exc


async def _end_transaction(conn: _Conn) -> None:
    """The pool's reset on release: ``transaction()`` always commits or rolls back, so the default reset query
    (a round trip per transaction) is skipped; only a connection somehow left inside a transaction rolls back."""
    if conn.is_in_transaction():
        await conn.execute("ROLLBACK")


async def _end(conn: _Conn, ending: Coroutine[Any, Any, None], *, raise_error: bool) -> None:
    """Run ``COMMIT`` or ``ROLLBACK`` to its end before the connection goes back to the pool, even if the caller is
    cancelled meanwhile (the pool would otherwise reset the connection in the middle of the COMMIT).

    If the ending fails (``ROLLBACK`` refused because a cancelled statement is still in flight — asyncpg's
    "another operation is in progress" — or a lost connection), the connection is terminated: the server rolls
    the transaction back when it drops, and the pool opens a fresh one. A failed ``COMMIT`` is raised to the
    caller (``raise_error``); a failed ``ROLLBACK`` is not, so the caller's own exception is the one it sees. A
    caller cancelled while waiting gets its :class:`asyncio.CancelledError` once the ending is over.
    """
    task = asyncio.ensure_future(ending)
    cancelled: asyncio.CancelledError | None = None
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError as exc:
            cancelled = exc  # keep waiting: the ending must finish before the connection is released
        except Exception:
            break  # the task is done; its error is read below
    error: BaseException | None = asyncio.CancelledError() if task.cancelled() else task.exception()
    if error is not None:
        conn.terminate()
        if raise_error and cancelled is None:
            raise error
    if cancelled is not None:
        raise cancelled


class PostgresTx:
    """The :class:`~pancog.infra.storage.base.StorageTx` of one PostgreSQL transaction. Only valid inside its block."""

    def __init__(self, conn: _Conn, known_accounts: set[str]) -> None:
        self._conn = conn
        self._known = known_accounts  # accounts known to exist (never deleted); shared, read-only here
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
        if result is not None:
            # before the id is drawn: ids of result journals then follow their commit order (see lock_results)
            await self.lock_results()
        sql, values = journal_insert(key, reason, actor, table_id, created_at, result)
        journal_id = await self._conn.fetchval(dollar_placeholders(sql), *values)
        return None if journal_id is None else int(journal_id)

    async def lock_results(self) -> None:
        await self._conn.execute("SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))", _RESULTS_LOCK)

    async def find_journal(self, key: str) -> JournalRecord | None:
        head = await self._conn.fetchrow(
            "SELECT id, reason, actor, table_id, created_at FROM journals WHERE idem_key = $1", key
        )
        if head is None:
            return None
        legs = await self._conn.fetch(
            "SELECT delta, account_key FROM postings WHERE journal_id = $1 ORDER BY leg", head["id"]
        )
        postings = tuple(Posting(Account.parse(r["account_key"]), r["delta"]) for r in legs)
        return JournalRecord(
            head["id"], key, head["reason"], head["actor"], head["table_id"], head["created_at"], postings
        )

    async def post(self, journal_id: int, postings: Sequence[Posting]) -> None:
        net: dict[str, int] = {}
        by_key: dict[str, Account] = {}
        for posting in postings:
            key = posting.account.key
            by_key[key] = posting.account
            net[key] = net.get(key, 0) + posting.delta
        keys = sorted(net)  # the one lock order every writer uses
        new = [by_key[k] for k in keys if k not in self._known]
        for group in account_inserts(new):  # the scope_kind column (V10) only where it is set: see account_inserts
            if not group:
                continue
            scoped = group[0].scope_kind is not ScopeKind.GUILD
            columns = "key, kind, scope_id, user_id, pot" + (", scope_kind" if scoped else "")
            arrays = ["$1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[]"] + (
                ["$6::text[]"] if scoped else []
            )
            values: list[list[Any]] = [
                [a.key for a in group],
                [a.kind.value for a in group],
                [a.scope_id for a in group],
                [a.user_id for a in group],
                [a.pot for a in group],
            ]
            if scoped:
                values.append([a.scope_kind.value for a in group])
            await self._conn.execute(
                f"INSERT INTO accounts ({columns}) SELECT * FROM unnest({', '.join(arrays)}) ORDER BY 1 "  # noqa: S608
                "ON CONFLICT (key) DO NOTHING",
                *values,
            )
        self.created_accounts.update(a.key for a in new)
        locked = await self._conn.fetch(
            "SELECT key, balance FROM accounts WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE", keys
        )
        balances = {r["key"]: int(r["balance"]) for r in locked}
        if len(balances) != len(keys):
            raise StorageError(f"accounts missing after upsert: {sorted(set(keys) - set(balances))}")
        for key in keys:
            account = by_key[key]
            if not account.is_system and balances[key] + net[key] < 0:
                raise Overdraw(account, -net[key], balances[key])
        # The rows are locked: apply the deltas and record the legs in one statement.
        await self._conn.execute(
            "WITH moved AS (UPDATE accounts AS a SET balance = a.balance + d.delta "
            "FROM unnest($1::text[], $2::bigint[]) AS d(key, delta) WHERE a.key = d.key) "
            "INSERT INTO postings (journal_id, leg, account_key, delta) "
            "SELECT $3, leg - 1, account_key, delta FROM unnest($4::text[], $5::bigint[]) "
            "WITH ORDINALITY AS p(account_key, delta, leg)",
            keys,
            [net[k] for k in keys],
            journal_id,
            [p.account.key for p in postings],
            [p.delta for p in postings],
        )

    async def balances(self, accounts: Sequence[Account]) -> dict[Account, int]:
        result = dict.fromkeys(accounts, 0)
        by_key = {a.key: a for a in accounts}
        rows = await self._conn.fetch("SELECT key, balance FROM accounts WHERE key = ANY($1::text[])", list(by_key))
        for r in rows:
            result[by_key[r["key"]]] = int(r["balance"])
        return result

    async def insert_table(self, row: TableRow) -> bool:
        sql, values = table_insert(row)
        inserted = await self._conn.fetchval(dollar_placeholders(sql), *values)
        return inserted is not None

    async def get_table(self, table_id: int) -> TableRow | None:
        r = await self._conn.fetchrow(f"SELECT {TABLE_COLUMNS} FROM tables WHERE table_id = $1", table_id)  # noqa: S608
        return None if r is None else table_row(tuple(r))

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
        # the lease check rides on the append (one round trip fewer per action)
        sql, values = action_insert((table_id, seq, action, events, journal_id, created_at), lease, for_share=True)
        with _append_errors(table_id, seq):
            status = await self._conn.execute(dollar_placeholders(sql), *values)
        if lease is not None and status.endswith(" 0"):  # "INSERT 0 0": the lease has another epoch now
            current = await self.shard_lease_epoch(lease.shard_count, lease.shard_id)
            raise ShardLeaseLost(lease.shard_count, lease.shard_id, lease.epoch, current)
        await self.execute_batch(then)  # asyncpg: one statement per round trip, on this transaction's connection

    async def read_log(self, table_id: int, after_seq: int = 0) -> list[tuple[int, str, str]]:
        rows = await self._conn.fetch(
            "SELECT seq, action, events FROM actions WHERE table_id = $1 AND seq > $2 ORDER BY seq", table_id, after_seq
        )
        return [(int(r["seq"]), str(r["action"]), str(r["events"])) for r in rows]

    async def read_log_times(self, table_id: int, after_seq: int = 0) -> list[tuple[int, float]]:
        rows = await self._conn.fetch(
            "SELECT seq, created_at FROM actions WHERE table_id = $1 AND seq > $2 ORDER BY seq", table_id, after_seq
        )
        return [(int(r["seq"]), float(r["created_at"])) for r in rows]

    async def table_balances(self, table_id: int) -> dict[Account, int]:
        rows = await self._conn.fetch(
            "SELECT kind, scope_id, user_id, pot, balance FROM accounts "
            "WHERE kind IN ('stack', 'tops') AND scope_id = $1 AND balance <> 0",
            table_id,
        )
        return {account_from_row(r["kind"], r["scope_id"], r["user_id"], r["pot"]): int(r["balance"]) for r in rows}

    async def mark_closed(self, table_id: int, closed_at: float) -> None:
        status = await self._conn.execute(
            "UPDATE tables SET status = 'closed', closed_at = $1 WHERE table_id = $2 AND status = 'open'",
            closed_at,
            table_id,
        )
        if _rowcount(status) != 1:
            raise TableNotOpen(f"table {table_id} is not open")

    async def set_board_message(self, table_id: int, message_id: int | None) -> None:
        status = await self._conn.execute(
            "UPDATE tables SET board_message_id = $1 WHERE table_id = $2", message_id, table_id
        )
        if _rowcount(status) != 1:
            raise TableNotOpen(f"no table {table_id}")

    async def set_meta(self, table_id: int, meta: str) -> None:
        status = await self._conn.execute("UPDATE tables SET meta = $1 WHERE table_id = $2", meta, table_id)
        if _rowcount(status) != 1:
            raise TableNotOpen(f"no table {table_id}")

    async def put_snapshot(self, table_id: int, seq: int, state: str, created_at: float) -> None:
        await self.execute(PUT_SNAPSHOT, (table_id, seq, state, created_at))

    async def drop_snapshots(self, table_id: int, *, below: int | None = None) -> int:
        return await self.execute(DROP_SNAPSHOTS, (table_id, below if below is not None else NO_SEQ_LIMIT))

    async def load_open_tables(self, shards: ShardSet | None = None) -> list[StoredTable]:
        return await load_open_tables(self._fetch, shards)

    async def take_shard_leases(self, shards: ShardSet, holder: str, now: float) -> dict[int, int]:
        epochs: dict[int, int] = {}
        for shard_id in sorted(shards.ids):  # in shard order: two starting processes cannot deadlock
            epochs[shard_id] = int(
                await self._conn.fetchval(
                    "INSERT INTO shard_leases (shard_count, shard_id, epoch, holder, taken_at) "
                    "VALUES ($1, $2, 1, $3, $4) "
                    "ON CONFLICT (shard_count, shard_id) DO UPDATE SET epoch = shard_leases.epoch + 1, "
                    "holder = excluded.holder, taken_at = excluded.taken_at RETURNING epoch",
                    shards.count,
                    shard_id,
                    holder,
                    now,
                )
            )
        return epochs

    async def shard_lease_epoch(self, shard_count: int, shard_id: int) -> int | None:
        epoch = await self._conn.fetchval(
            "SELECT epoch FROM shard_leases WHERE shard_count = $1 AND shard_id = $2 FOR SHARE", shard_count, shard_id
        )
        return None if epoch is None else int(epoch)

    async def get_settings(self, guild_id: int) -> GuildSettings | None:
        r = await self._conn.fetchrow(
            "SELECT preset, starting_chips, daily_amount, moderator_role_id FROM guild_settings WHERE guild_id = $1",
            guild_id,
        )
        if r is None:
            return None
        return GuildSettings(
            guild_id=guild_id,
            preset=r["preset"],
            starting_chips=r["starting_chips"],
            daily_amount=r["daily_amount"],
            moderator_role_id=r["moderator_role_id"],
        )

    async def put_settings(self, settings: GuildSettings, updated_at: float) -> None:
        await self._conn.execute(
            "INSERT INTO guild_settings (guild_id, preset, starting_chips, daily_amount, moderator_role_id, "
            "updated_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (guild_id) DO UPDATE SET "
            "preset = excluded.preset, starting_chips = excluded.starting_chips, daily_amount = excluded.daily_amount, "
            "moderator_role_id = excluded.moderator_role_id, updated_at = excluded.updated_at",
            settings.guild_id,
            settings.preset,
            settings.starting_chips,
            settings.daily_amount,
            settings.moderator_role_id,
            updated_at,
        )

    async def get_player_prefs(self, user_id: int) -> str | None:
        prefs = await self._conn.fetchval("SELECT prefs FROM player_settings WHERE user_id = $1", user_id)
        return None if prefs is None else str(prefs)

    async def put_player_prefs(self, user_id: int, prefs: str, updated_at: float) -> None:
        await self._conn.execute(
            "INSERT INTO player_settings (user_id, prefs, updated_at) VALUES ($1, $2, $3) "
            "ON CONFLICT (user_id) DO UPDATE SET prefs = excluded.prefs, updated_at = excluded.updated_at",
            user_id,
            prefs,
            updated_at,
        )

    async def leaderboard(self, guild_id: int, limit: int) -> list[tuple[int, int]]:
        rows = await self._conn.fetch(
            "SELECT user_id, balance FROM accounts WHERE kind = 'bank' AND scope_id = $1 AND scope_kind IS NULL "
            "AND user_id >= 0 ORDER BY balance DESC, user_id LIMIT $2",
            guild_id,
            limit,
        )
        return [(int(r["user_id"]), int(r["balance"])) for r in rows]

    # Added for chip leagues: the generic statements pancog/services/league/repo.py runs, written with ``?``
    # placeholders (portable subset); rewritten here to ``$n``.
    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return _rowcount(await self._conn.execute(dollar_placeholders(sql), *params))

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in await self._conn.fetch(dollar_placeholders(sql), *params)]

    async def execute_batch(self, statements: Sequence[Statement]) -> list[int]:
        # asyncpg runs one parameterised statement per call; in order, on this transaction's connection.
        return [await self.execute(sql, params) for sql, params in statements]

    async def audit_facts(self) -> AuditFacts:
        return await audit_facts(self._fetch)

    async def _fetch(self, sql: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in await self._conn.fetch(sql)]


class PostgresStorage:
    """The server backend: ``PostgresStorage("postgresql://user@host/db")`` (any libpq-style URL asyncpg takes).

    ``min_size`` / ``max_size`` bound the connection pool; at most ``max_size`` transactions run at once and the
    rest wait for a connection.
    """

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        migrations: Path = MIGRATIONS_DIR,
        target_version: int | None = None,
        read_only: bool = False,
        idle_in_transaction: float = IDLE_IN_TRANSACTION,
    ) -> None:
        self.url = url
        self.idle_in_transaction = idle_in_transaction
        # A reader beside the bot (pan-web, with a role that may only SELECT): never migrates, every transaction
        # read-only, and the schema must be the one this code knows.
        self.read_only = read_only
        self.min_size = min_size
        self.max_size = max_size
        self._migrations = migrations
        self._target_version = target_version
        self._pool: asyncpg.Pool | None = None
        self._known_accounts: set[str] = set()

    async def __aenter__(self) -> PostgresStorage:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def open(self) -> None:
        if self._pool is not None:
            return
        # A transaction left open by a process that vanished (cut off from the network: its socket stalls, it is not
        # closed) is ended by the server after ``idle_in_transaction`` seconds: the rows it locked (a table's, a
        # player's chips) free themselves for the process that took its shards over, instead of when the server
        # notices the dead client at its TCP keepalive (hours). No transaction here waits on anything but the
        # database, so a live one is never idle for that long.
        idle = str(max(1, int(self.idle_in_transaction * 1000)))
        settings = {"idle_in_transaction_session_timeout": idle}
        if self.read_only:
            settings["default_transaction_read_only"] = "on"
        pool = await asyncpg.create_pool(
            self.url, min_size=self.min_size, max_size=self.max_size, reset=_end_transaction, server_settings=settings
        )
        try:
            async with pool.acquire() as conn:
                if self.read_only:
                    version, known = await self._version(conn), len(load_migrations("postgres", self._migrations))
                    if version != known:
                        raise StorageError(
                            f"database schema v{version}, this code reads v{known}: start the bot of this version first"
                        )
                else:
                    await self._migrate(conn)
        except BaseException:
            await pool.close()
            raise
        self._pool = pool

    async def close(self) -> None:
        """Close the pool: its connections say goodbye to the server and wait for it to hang up. Bounded
        (``CLOSE_WAIT``): a server out of reach (this host cut off, the link stalled rather than refused) never
        answers, and a process that lost its shards that way must still leave; the connections are then dropped
        (asyncpg terminates a pool whose close is cancelled), and the server rolls back whatever they had open."""
        if self._pool is not None:
            pool, self._pool = self._pool, None
            try:
                await asyncio.wait_for(pool.close(), CLOSE_WAIT)
            except TimeoutError:
                pool.terminate()
                log.warning("the database did not answer the close within %.0f s: connections dropped", CLOSE_WAIT)

    async def schema_version(self) -> int:
        async with self._connection().acquire() as conn:
            return await self._version(conn)

    @staticmethod
    async def _version(conn: _Conn) -> int:
        exists = await conn.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL")
        if not exists:
            return 0
        return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))

    async def _migrate(self, conn: _Conn) -> None:
        migrations = load_migrations("postgres", self._migrations)
        target = len(migrations) if self._target_version is None else self._target_version
        for migration in migrations[:target]:
            async with conn.transaction():
                # One migrator per schema at a time (another process may be migrating the same database);
                # the version is re-read under the lock.
                await conn.execute("SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))", _MIGRATION_LOCK)
                await conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations "
                    "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at DOUBLE PRECISION NOT NULL)"
                )
                if await self._version(conn) < migration.version:
                    await conn.execute(migration.sql)  # the simple query protocol runs the whole script
                    await conn.execute(
                        "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                        migration.version,
                        migration.name,
                        time.time(),
                    )
        version = await self._version(conn)
        if version > len(migrations):
            raise StorageError(f"database schema v{version} is newer than this code (v{len(migrations)})")

    def _connection(self) -> asyncpg.Pool:
        if self._pool is None:
            raise StorageError("storage is not open")
        return self._pool

    @contextlib.asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[PostgresTx]:
        if write and self.read_only:
            raise StorageError("this storage is read-only")
        async with self._connection().acquire() as conn:
            if write:
                xact = conn.transaction(isolation="read_committed")
            else:
                xact = conn.transaction(isolation="repeatable_read", readonly=True)
            tx = PostgresTx(conn, self._known_accounts)
            try:
                await xact.start()
                yield tx
            except BaseException:
                await _end(conn, xact.rollback(), raise_error=False)
                raise
            await _end(conn, xact.commit(), raise_error=True)
            self._known_accounts.update(tx.created_accounts)
        run_after_commit(tx.committed)  # the connection is back in the pool: a callback may start a transaction

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
        # One statement, so one round trip and its own transaction: no BEGIN, no COMMIT (a transaction costs six
        # round trips, which were a third of the bot's CPU per action). The lease condition guards the journal row;
        # the action follows it, so both are written or neither is.
        values: list[Any] = [key, reason, actor, table_id, created_at, seq, action, events]
        sql = _BARE_ACTION.format(lease="" if lease is None else _BARE_LEASE)
        if lease is not None:
            values += [lease.shard_count, lease.shard_id, lease.epoch]
        async with self._connection().acquire() as conn:
            with _append_errors(table_id, seq):  # a refused statement wrote nothing
                journal_id = await conn.fetchval(sql, *values)
        return None if journal_id is None else int(journal_id)

    async def fetch(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        """Rows of one read-only query, outside any transaction (operations and tests)."""
        async with self._connection().acquire() as conn:
            return [tuple(r) for r in await conn.fetch(sql, *args)]
