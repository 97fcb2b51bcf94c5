"""The storage contract: value types and the small async interface every backend implements.

Services (:mod:`pancog.services.ledger`, :mod:`pancog.services.store`) hold all business rules and talk to a backend
only through :class:`Storage` and the :class:`StorageTx` it yields. Everything dialect-specific (SQL text,
upserts, pragmas, error codes) stays inside the backend: :mod:`pancog.infra.storage.sqlite` and
:mod:`pancog.infra.storage.postgres` implement these two protocols (see docs/storage.md).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, Protocol

__all__ = [
    "Account",
    "AccountKind",
    "AuditFacts",
    "GuildSettings",
    "IdempotencyConflict",
    "JournalRecord",
    "LeaseCheck",
    "LogConflict",
    "Overdraw",
    "Posting",
    "Statement",
    "Storage",
    "StorageError",
    "StorageTx",
    "StoredTable",
    "TableNotOpen",
    "TableRow",
    "TopsPot",
    "config_bank_scope",
    "transfer",
]

TopsPot = Literal["singles", "doubles"]
Statement = tuple[str, Sequence[Any]]  # one portable SQL statement (``?`` placeholders) and its parameters


class AccountKind(StrEnum):
    BANK = "bank"  # a player's chips in a guild: bank:<guild>:<user>
    STACK = "stack"  # a player's chips on a table (table stakes): stack:<table>:<user>
    TOPS = "tops"  # a table's singles or doubles tops pot: tops:<table>:singles|doubles
    ISSUED = "issued"  # system account per guild, minus every chip created there: issued:<guild>
    ESCROW = "escrow"  # tournaments: a tournament's buy-ins until paid out: escrow:<tournament>
    HOUSE = "house"  # tournaments: a guild's fees: house:<guild>


@dataclass(frozen=True, slots=True, order=True)
class Account:
    """One ledger account, identified by a stable string :attr:`key`. Build it with the class methods."""

    kind: AccountKind
    scope_id: int  # guild id for bank/issued, table id for stack/tops
    user_id: int | None = None  # bank and stack only
    pot: TopsPot | None = None  # tops only

    @classmethod
    def bank(cls, guild_id: int, user_id: int) -> Account:
        return cls(AccountKind.BANK, guild_id, user_id)

    @classmethod
    def stack(cls, table_id: int, user_id: int) -> Account:
        return cls(AccountKind.STACK, table_id, user_id)

    @classmethod
    def tops(cls, table_id: int, pot: TopsPot) -> Account:
        if pot not in ("singles", "doubles"):
            raise ValueError(f"tops pot must be 'singles' or 'doubles', not {pot!r}")
        return cls(AccountKind.TOPS, table_id, pot=pot)

    @classmethod
    def issued(cls, guild_id: int) -> Account:
        return cls(AccountKind.ISSUED, guild_id)

    @classmethod
    def escrow(cls, tournament_id: int) -> Account:
        return cls(AccountKind.ESCROW, tournament_id)

    @classmethod
    def house(cls, guild_id: int) -> Account:
        return cls(AccountKind.HOUSE, guild_id)

    @property
    def key(self) -> str:
        """``bank:G:U``, ``stack:T:U``, ``tops:T:singles``, ``issued:G``."""
        match self.kind:
            case AccountKind.BANK | AccountKind.STACK:
                return f"{self.kind.value}:{self.scope_id}:{self.user_id}"
            case AccountKind.TOPS:
                return f"tops:{self.scope_id}:{self.pot}"
            case AccountKind.ISSUED | AccountKind.ESCROW | AccountKind.HOUSE:
                return f"{self.kind.value}:{self.scope_id}"

    @property
    def is_system(self) -> bool:
        """Only system accounts may go negative."""
        return self.kind is AccountKind.ISSUED

    @classmethod
    def parse(cls, key: str) -> Account:
        """Inverse of :attr:`key`. Raises ``ValueError`` on a malformed key."""
        parts = key.split(":")
        try:
            kind = AccountKind(parts[0])
            if kind in (AccountKind.BANK, AccountKind.STACK) and len(parts) == 3:
                return cls(kind, int(parts[1]), int(parts[2]))
            if kind is AccountKind.TOPS and len(parts) == 3 and parts[2] in ("singles", "doubles"):
                return cls.tops(int(parts[1]), "singles" if parts[2] == "singles" else "doubles")
            if kind in (AccountKind.ISSUED, AccountKind.ESCROW, AccountKind.HOUSE) and len(parts) == 2:
                return cls(kind, int(parts[1]))
        except ValueError:
            pass
        raise ValueError(f"not an account key: {key!r}")

    def __str__(self) -> str:
        return self.key


@dataclass(frozen=True, slots=True)
class Posting:
    """One leg of a transaction: ``delta`` chips added to (positive) or taken from (negative) ``account``."""

    account: Account
    delta: int


def transfer(from_account: Account, to_account: Account, amount: int) -> tuple[Posting, Posting]:
    """The two postings that move ``amount`` chips. Raises ``ValueError`` unless ``amount > 0``."""
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise ValueError(f"a transfer needs a positive whole number of chips, not {amount!r}")
    if from_account == to_account:
        raise ValueError("a transfer needs two different accounts")
    return Posting(from_account, -amount), Posting(to_account, amount)


@dataclass(frozen=True, slots=True)
class JournalRecord:
    """A committed ledger transaction (its postings sum to zero)."""

    journal_id: int
    key: str
    reason: str
    actor: str
    table_id: int | None
    created_at: float
    postings: tuple[Posting, ...]


@dataclass(frozen=True, slots=True)
class TableRow:
    table_id: int
    guild_id: int
    channel_id: int
    host_id: int
    config: str  # JSON text, owned by the table service
    meta: str  # JSON text, owned by the table service
    status: Literal["open", "closed"]
    created_at: float
    closed_at: float | None
    board_message_id: int | None
    last_seq: int  # 0 before the first action

    @property
    def bank_scope(self) -> int:
        """The ledger scope of the banks this table buys in from and cashes out to: the guild, unless the table
        service's config names another (``bank_scope``: a chip league's bank season)."""
        return config_bank_scope(self.config, self.guild_id)


def config_bank_scope(config: str, guild_id: int) -> int:
    """The bank scope a table's config text names (``bank_scope``), else ``guild_id``."""
    try:
        scope = json.loads(config).get("bank_scope") if config else None
    except (ValueError, AttributeError):
        scope = None
    return int(scope) if isinstance(scope, int) and not isinstance(scope, bool) else guild_id


@dataclass(frozen=True, slots=True)
class StoredTable:
    """An open table as loaded at start-up: replay ``actions`` (seq ``first_seq`` ...) on top of ``snapshot``."""

    row: TableRow
    snapshot: str | None  # state text at seq ``first_seq - 1``, or None (replay from the start)
    actions: tuple[str, ...]
    first_seq: int = 1

    @property
    def table_id(self) -> int:
        return self.row.table_id

    @property
    def last_seq(self) -> int:
        return self.row.last_seq


@dataclass(frozen=True, slots=True, kw_only=True)
class GuildSettings:
    guild_id: int
    preset: str = "standard"
    starting_chips: int = 1000
    daily_amount: int = 100
    moderator_role_id: int | None = None

    def replace(self, **changes: Any) -> GuildSettings:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True)
class AuditFacts:
    """Raw facts a backend gathers for :meth:`pancog.services.ledger.ChipLedger.audit` (one consistent read)."""

    accounts: int
    journals: int
    postings: int
    cached_mismatch: tuple[tuple[str, int, int], ...]  # (account key, cached balance, sum of postings)
    unbalanced_journals: tuple[tuple[str, int], ...]  # (idempotency key, sum of its postings)
    negative_accounts: tuple[tuple[str, int], ...]  # non-system accounts below zero
    log_gaps: tuple[tuple[int, int, int], ...]  # (table id, last_seq, number of logged actions) that disagree
    total_non_system: int
    total_issued: int  # sum of the issued accounts (zero or negative)


GUILD_SHARD_SHIFT = 22  # Discord: a guild lives on shard (guild_id >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class ShardSet:
    """The shards a process owns: ``ids`` of ``count`` (Discord routes guild ``g`` to ``(g >> 22) % count``)."""

    count: int
    ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.count < 1 or not self.ids or any(not 0 <= i < self.count for i in self.ids):
            raise ValueError(f"shards {self.ids} are not a non-empty subset of 0..{self.count - 1}")

    def shard_of(self, guild_id: int) -> int:
        return (guild_id >> GUILD_SHARD_SHIFT) % self.count

    def owns(self, guild_id: int) -> bool:
        return self.shard_of(guild_id) in self.ids

    def sql_filter(self, column: str) -> str:
        """A WHERE condition both dialects run: ``column`` (a guild id) is on one of these shards. Integers only."""
        ids = ", ".join(str(int(i)) for i in self.ids)
        return f"(({column} / {1 << GUILD_SHARD_SHIFT}) % {int(self.count)}) IN ({ids})"


@dataclass(frozen=True, slots=True)
class LeaseCheck:
    """A table write's shard lease, checked by the write itself (``StorageTx.append_action(lease=…)``): the row
    of ``shard_id`` of ``shard_count`` must still have ``epoch``, else nothing is written."""

    shard_count: int
    shard_id: int
    epoch: int


class StorageError(Exception):
    """A storage failure or a contract violation by the caller (a bug, never shown to players)."""


class ShardLeaseLost(StorageError):
    """This process's lease on a table's shard was taken by a newer process (or never held): nothing was written.

    The process is stale (a cluster restart replaced it) and must stop serving that shard."""

    def __init__(self, shard_count: int, shard_id: int, held: int | None, current: int | None) -> None:
        super().__init__(
            f"shard {shard_id}/{shard_count}: this process holds lease epoch {held}, the database has {current}"
        )
        self.shard_id = shard_id
        self.held = held
        self.current = current


class IdempotencyConflict(StorageError):
    """The key was already used by a transaction with different contents."""


class LogConflict(StorageError):
    """An action log append would leave a gap or overwrite (seq is not last_seq + 1)."""


class TableNotOpen(StorageError):
    """The table does not exist or is closed."""


class Overdraw(StorageError):
    """A non-system account would go negative; the backend raises it and the service rolls back."""

    def __init__(self, account: Account, needed: int, available: int) -> None:
        super().__init__(f"{account.key} needs {needed}, has {available}")
        self.account = account
        self.needed = needed
        self.available = available


class StorageTx(Protocol):
    """Operations inside one transaction. Any exception out of the ``transaction()`` block rolls back all of it."""

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
        """A new journal id, or None if ``key`` already exists (nothing inserted).

        ``result``: a chip league's result recorded with this journal (a hand's digest on its settlement),
        stored on the row itself, so it costs the settlement no extra row. A journal that carries one takes the
        results lock first (:meth:`lock_results`)."""
        ...

    async def lock_results(self) -> None:
        """Serialise the transactions that write journals carrying a ``result`` with the one that reads them
        (``LeagueService.drain``), until this transaction ends. Then a reader that holds it sees every such journal
        with an id below the next one written: journal ids are not handed out in commit order on PostgreSQL (a
        transaction-level advisory lock there); SQLite has one writer at a time (nothing to do)."""
        ...

    async def find_journal(self, key: str) -> JournalRecord | None: ...

    async def post(self, journal_id: int, postings: Sequence[Posting]) -> None:
        """Apply net deltas per account (creating accounts at 0) and record each posting.

        Raises :class:`Overdraw` if a non-system account would go below zero. The caller ensures the
        postings sum to zero.
        """
        ...

    async def balances(self, accounts: Sequence[Account]) -> dict[Account, int]:
        """Cached balances; accounts never posted to read as 0."""
        ...

    async def insert_table(self, row: TableRow) -> bool:
        """False if a row with this table id already exists (nothing changed)."""
        ...

    async def get_table(self, table_id: int) -> TableRow | None: ...

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
        """Raises :class:`LogConflict` unless ``seq == last_seq + 1``; :class:`TableNotOpen` if closed/missing.

        ``then``: statements run right after the append, in order, in the same round trip where the backend can
        (SQLite: one worker-thread call for all of them) — the snapshot and the chip league's rows of a settlement.

        ``lease``: the append happens only if the shard lease still has that epoch (read ``FOR SHARE`` on
        PostgreSQL, as ``shard_lease_epoch`` does), in the append's own statement: no round trip of its own.
        Raises :class:`ShardLeaseLost` (nothing appended) otherwise.
        """
        ...

    async def read_log(self, table_id: int, after_seq: int = 0) -> list[tuple[int, str, str]]:
        """(seq, action, events) of a table's log after ``after_seq``, in order."""
        ...

    async def table_balances(self, table_id: int) -> dict[Account, int]:
        """Non-zero stack and tops balances of a table."""
        ...

    async def mark_closed(self, table_id: int, closed_at: float) -> None: ...

    async def set_board_message(self, table_id: int, message_id: int | None) -> None: ...

    async def set_meta(self, table_id: int, meta: str) -> None: ...

    async def put_snapshot(self, table_id: int, seq: int, state: str, created_at: float) -> None:
        """Record the table state after action ``seq`` (replacing a snapshot at the same seq)."""
        ...

    async def drop_snapshots(self, table_id: int, *, below: int | None = None) -> int:
        """Delete the table's snapshots at seqs below ``below`` (every one when None); returns how many."""
        ...

    async def load_open_tables(self, shards: ShardSet | None = None) -> list[StoredTable]:
        """Every open table (only those of guilds on ``shards`` when given) with its snapshot and later actions."""
        ...

    # Shard leases (V6, a cluster of processes; docs/storage.md "Shard leases").
    async def take_shard_leases(self, shards: ShardSet, holder: str, now: float) -> dict[int, int]:
        """Take the lease of every shard in ``shards`` (epoch + 1, or 1 for a new one); returns shard -> epoch."""
        ...

    async def shard_lease_epoch(self, shard_count: int, shard_id: int) -> int | None:
        """The shard's current lease epoch (None: never leased). PostgreSQL holds a share lock on the row until the
        transaction ends, so a newer process taking the lease waits for this transaction (and vice versa)."""
        ...

    async def get_settings(self, guild_id: int) -> GuildSettings | None: ...

    async def put_settings(self, settings: GuildSettings, updated_at: float) -> None: ...

    # Added for the Discord adapter (pancog/services/prefs.py): one JSON text of preferences per player.
    async def get_player_prefs(self, user_id: int) -> str | None: ...

    async def put_player_prefs(self, user_id: int, prefs: str, updated_at: float) -> None: ...

    async def leaderboard(self, guild_id: int, limit: int) -> list[tuple[int, int]]:
        """Top ``limit`` (user_id, balance) bank accounts in a guild, humans only (user_id >= 0)."""
        ...

    async def audit_facts(self) -> AuditFacts: ...

    # Feature repositories (pancog/services/league/repo.py) keep their SQL (portable subset, ``?`` placeholders)
    # in one module; a backend runs it as is (PostgreSQL: rewrite ``?`` to ``$n``).
    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; returns the number of rows it changed."""
        ...

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one query (or a statement with RETURNING); returns every row."""
        ...

    async def execute_batch(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> list[int]:
        """Run statements in order (one round trip where the backend can); returns each one's changed-row count."""
        ...

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once this transaction has committed (in the order registered; never if it rolls
        back). The durable outbox wakes its deliverer this way: an effect written in a transaction is delivered
        only once its commit is certain. A callback's exception is logged, not raised (the commit stands)."""
        ...


class Storage(Protocol):
    """A backend: open/close, schema migrations, and serialised transactions."""

    async def open(self) -> None:
        """Connect and migrate to the latest schema version."""
        ...

    async def close(self) -> None: ...

    def transaction(self, *, write: bool = True) -> AbstractAsyncContextManager[StorageTx]:
        """One atomic unit of work; an exception (cancellation included) rolls everything back.

        ``write=False`` is a read-only, consistent snapshot (PostgreSQL refuses writes in it). Writers are
        serialised (SQLite) or lock the rows they change, accounts in key order (PostgreSQL).
        """
        ...
