"""Double-entry chip ledger: every movement is a zero-sum, idempotent journal of postings.

Accounts (see :class:`~pancog.infra.storage.base.Account`): a player's ``bank`` per bank scope, a player's
``stack`` at a table, a table's ``tops`` pots (singles / doubles), and one ``issued`` system account per bank scope
that mirrors every chip created (the only account allowed below zero). So the sum of all accounts is always
zero, and "chips in play" in a scope is minus its issued account.

A bank scope (:class:`~pancog.infra.storage.base.BankScope`) is one currency of chips: a guild's (the usual case:
methods taking ``scope`` accept a plain guild id for it), a guild's practice chips, a tournament's chips, or a chip
league's bank season. A guild's starting and daily chips are its settings; another scope's are
:meth:`ChipLedger.set_scope_chips` (default: the guild defaults).

Every write is one transaction ``BEGIN IMMEDIATE … COMMIT`` that inserts the journal under a UNIQUE
idempotency key first: a retry with the same key posts nothing and returns the original receipt. A debit
that would overdraw rolls the whole transaction back and raises :class:`InsufficientChips`.

No discord imports: ids are ints; computer players have negative user ids.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pancog.game.errors import PanError
from pancog.game.i18n import N_
from pancog.infra.storage.base import (
    Account,
    AccountKind,
    AuditFacts,
    BankScope,
    GuildSettings,
    IdempotencyConflict,
    Overdraw,
    Posting,
    ScopeKind,
    Storage,
    StorageError,
    StorageTx,
    transfer,
)

__all__ = [
    "Account",
    "AccountKind",
    "AuditReport",
    "BankScope",
    "ChipLedger",
    "DailyClaim",
    "Holding",
    "Holdings",
    "InsufficientChips",
    "InvalidAmount",
    "Posting",
    "Receipt",
    "ScopeKind",
    "TableClosed",
    "held_in",
    "post_transaction",
    "rank_holdings",
    "scope_tables",
    "transfer",
]

Actor = int | str  # a user id, or "system"


class InsufficientChips(PanError):
    """A debit would take an account below zero; nothing was changed."""

    code = "insufficient_chips"

    def __init__(self, needed: int, available: int, account: Account | None = None) -> None:
        super().__init__(
            N_("Not enough chips: that needs {needed} and only {available} are available."),
            needed=f"{needed:,}",
            available=f"{available:,}",
        )
        self.needed = needed
        self.available = available
        self.account = account


class InvalidAmount(PanError):
    code = "invalid_amount"

    def __init__(self, amount: object) -> None:
        super().__init__(N_("The amount must be a whole number of chips above zero, not {amount}."), amount=str(amount))
        self.amount = amount


class TableClosed(PanError):
    code = "table_closed"

    def __init__(self, table_id: int) -> None:
        super().__init__(N_("That table is closed or does not exist."))
        self.table_id = table_id


@dataclass(frozen=True, slots=True)
class Receipt:
    """The outcome of a ledger transaction. ``created`` is False when the key was already committed:
    then nothing was posted and ``postings`` are the ones stored the first time."""

    journal_id: int
    key: str
    created: bool
    postings: tuple[Posting, ...]


@dataclass(frozen=True, slots=True)
class DailyClaim:
    claimed: bool  # False: already claimed today (UTC)
    amount: int  # chips granted now (0 if not claimed)
    balance: int  # bank balance afterwards
    next_claim_in: timedelta  # until the next UTC midnight


@dataclass(frozen=True, slots=True)
class AuditReport:
    """Proof of the books. ``ok`` iff every check holds."""

    facts: AuditFacts
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def chips_in_play(self) -> int:
        return self.facts.total_non_system

    def summary(self) -> str:
        head = (
            f"{'OK' if self.ok else 'FAILED'}: {self.facts.accounts} accounts, {self.facts.journals} transactions, "
            f"{self.facts.postings} postings; {self.facts.total_non_system:,} chips held, "
            f"{-self.facts.total_issued:,} issued."
        )
        return "\n".join([head, *self.problems])


@dataclass(frozen=True, slots=True, kw_only=True)
class Holding:
    """What one player has in a guild (or a bank season): his bank plus his stacks at the open tables that play from
    that bank — chips on a table are still his."""

    rank: int  # 1 = has the most; players with the same total share a rank
    user_id: int
    bank: int
    at_tables: int

    @property
    def total(self) -> int:
        return self.bank + self.at_tables


@dataclass(frozen=True, slots=True, kw_only=True)
class Holdings:
    """The top of the ranking by what players have, and the asker's own place."""

    lines: tuple[Holding, ...]
    caller: Holding | None  # the asker's line (also when he is among ``lines``); None if he has no chips there

    @property
    def caller_outside(self) -> bool:
        """The asker has a place, and it is not among the shown lines."""
        return self.caller is not None and all(h.user_id != self.caller.user_id for h in self.lines)


def actor_text(actor: Actor) -> str:
    """How an actor is stored on a journal row: a user id, or ``system``."""
    if isinstance(actor, bool):
        raise TypeError("actor must be a user id or 'system'")
    if isinstance(actor, int):
        return str(actor)
    if actor != "system":
        raise ValueError(f"actor must be a user id or 'system', not {actor!r}")
    return actor


def _check_amount(amount: object) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise InvalidAmount(amount)
    return amount


def _validate(postings: Sequence[Posting]) -> None:
    total = 0
    for posting in postings:
        if isinstance(posting.delta, bool) or not isinstance(posting.delta, int) or posting.delta == 0:
            raise ValueError(f"posting deltas must be non-zero ints: {posting}")
        total += posting.delta
    if total != 0:
        raise ValueError(f"postings must sum to zero, not {total}: {list(postings)}")


def _same_postings(a: Sequence[Posting], b: Sequence[Posting]) -> bool:
    return Counter((p.account.key, p.delta) for p in a) == Counter((p.account.key, p.delta) for p in b)


async def post_transaction(
    tx: StorageTx,
    postings: Sequence[Posting],
    *,
    key: str,
    reason: str,
    actor: Actor,
    now: float,
    table_id: int | None = None,
    strict: bool = True,
    result: str | None = None,
) -> Receipt:
    """Record one zero-sum transaction inside an open storage transaction.

    ``result``: stored on the journal row (a chip league's hand result, see :meth:`StorageTx.insert_journal`).

    If ``key`` was used before, nothing is posted and the original receipt is returned (``created=False``);
    with ``strict`` the stored postings must equal ``postings`` or :class:`IdempotencyConflict` is raised.

    Raises:
        ValueError: postings do not sum to zero, or a delta is zero / not an int.
        InsufficientChips: a non-system account would go below zero (the caller's transaction rolls back).
        IdempotencyConflict: ``strict`` and the key was used for different postings.
    """
    _validate(postings)
    journal_id = await tx.insert_journal(
        key=key, reason=reason, actor=actor_text(actor), table_id=table_id, created_at=now, result=result
    )
    if journal_id is None:
        record = await tx.find_journal(key)
        if record is None:  # pragma: no cover - the insert just reported the key as present
            raise StorageError(f"journal {key!r} vanished")
        if strict and not _same_postings(record.postings, postings):
            raise IdempotencyConflict(f"key {key!r} was already used for different postings")
        return Receipt(record.journal_id, key, False, record.postings)
    if not postings:  # most table actions move no chips: no accounts to lock, no round trips
        return Receipt(journal_id, key, True, ())
    try:
        await tx.post(journal_id, postings)
    except Overdraw as exc:
        raise InsufficientChips(exc.needed, exc.available, exc.account) from exc
    return Receipt(journal_id, key, True, tuple(postings))


async def scope_tables(tx: StorageTx, guild_id: int, scope: BankScope | int) -> list[int]:
    """The open tables of ``guild_id`` that play from the banks of ``scope`` (the guild's own, or another stored
    with the table: a bank season's, practice chips, a tournament's): where a player's chips from those banks may be."""
    scope = BankScope.of(scope)
    if scope.is_guild:
        rows = await tx.fetchall(
            "SELECT table_id FROM tables WHERE guild_id = ? AND status = 'open' AND scope_kind IS NULL", (guild_id,)
        )
    else:
        rows = await tx.fetchall(
            "SELECT table_id FROM tables WHERE guild_id = ? AND status = 'open' AND scope_kind = ? AND scope_id = ?",
            (guild_id, scope.kind.value, scope.id),
        )
    return sorted(int(t) for (t,) in rows)


async def held_in(tx: StorageTx, guild_id: int, scope: BankScope | int) -> dict[int, tuple[int, int]]:
    """Every human's (bank, chips at tables) in the banks of ``scope`` and ``guild_id``'s tables that use them."""
    held, params = _held_query(BankScope.of(scope), await scope_tables(tx, guild_id, scope))
    rows = await tx.fetchall(
        f"SELECT user_id, SUM(bank), SUM(stack) FROM ({held}) AS held WHERE user_id >= 0 GROUP BY user_id",  # noqa: S608
        params,
    )
    return {int(u): (int(b), int(t)) for u, b, t in rows}


async def rank_holdings(
    tx: StorageTx,
    guild_id: int,
    scope: BankScope | int,
    *,
    limit: int = 10,
    caller: int | None = None,
    exclude: Sequence[int] = (),
) -> Holdings:
    """Players ranked by what they have: their bank in ``scope`` (the guild's own banks, or a bank season's) plus
    their stacks at ``guild_id``'s open tables that play from that bank. Humans only; ``exclude`` leaves players
    out. The top ``limit`` lines (equal totals share a rank) and the caller's own line (None: no chips there)."""
    held, params = _held_query(BankScope.of(scope), await scope_tables(tx, guild_id, scope))
    out = " AND user_id NOT IN (" + ", ".join("?" * len(exclude)) + ")" if exclude else ""
    # only placeholders and fixed text are interpolated (S608)
    grouped = f"SELECT user_id, SUM(bank), SUM(stack) FROM ({held}) AS held WHERE user_id >= 0{out} GROUP BY user_id"  # noqa: S608
    rows = await tx.fetchall(
        f"{grouped} ORDER BY SUM(bank) + SUM(stack) DESC, user_id LIMIT ?", (*params, *exclude, max(0, limit))
    )
    lines: list[Holding] = []
    for i, (user, bank, stack) in enumerate(rows):
        total = int(bank) + int(stack)
        rank = lines[-1].rank if lines and lines[-1].total == total else i + 1
        lines.append(Holding(rank=rank, user_id=int(user), bank=int(bank), at_tables=int(stack)))
    mine: Holding | None = None
    if caller is not None and caller not in exclude:
        found = await tx.fetchall(f"{grouped} HAVING user_id = ?", (*params, *exclude, caller))
        if found:
            bank, stack = int(found[0][1]), int(found[0][2])
            above = await tx.fetchall(
                f"SELECT COUNT(*) FROM ({grouped} HAVING SUM(bank) + SUM(stack) > ?) AS above",  # noqa: S608
                (*params, *exclude, bank + stack),
            )
            mine = Holding(rank=int(above[0][0]) + 1, user_id=caller, bank=bank, at_tables=stack)
    return Holdings(lines=tuple(lines), caller=mine)


def _held_query(scope: BankScope, tables: Sequence[int]) -> tuple[str, tuple[Any, ...]]:
    """Rows (user_id, bank, stack): the bank accounts of ``scope`` and the stacks at ``tables`` (portable SQL)."""
    sql = "SELECT user_id, balance AS bank, 0 AS stack FROM accounts WHERE kind = 'bank' AND scope_id = ?"
    params: tuple[Any, ...] = (scope.id,)
    if scope.is_guild:
        sql += " AND scope_kind IS NULL"
    else:
        sql += " AND scope_kind = ?"
        params += (scope.kind.value,)
    if not tables:
        return sql, params
    marks = ", ".join("?" * len(tables))
    sql += f" UNION ALL SELECT user_id, 0, balance FROM accounts WHERE kind = 'stack' AND scope_id IN ({marks})"  # noqa: S608 (placeholders only)
    return sql, (*params, *tables)


def _next_utc_midnight(now: float) -> tuple[str, timedelta]:
    moment = datetime.fromtimestamp(now, UTC)
    midnight = (moment + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return moment.date().isoformat(), midnight - moment


class ChipLedger:
    """Bank-side operations. Table actions go through :meth:`pancog.services.store.TableStore.commit_action`."""

    def __init__(self, storage: Storage, *, clock: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self._clock = clock

    # -- generic -------------------------------------------------------------------------------------------

    async def transact(
        self,
        postings: Sequence[Posting],
        *,
        key: str,
        reason: str,
        actor: Actor = "system",
        table_id: int | None = None,
    ) -> Receipt:
        """Post an arbitrary zero-sum set of postings atomically and idempotently (see :func:`post_transaction`)."""
        async with self.storage.transaction() as tx:
            return await post_transaction(
                tx, postings, key=key, reason=reason, actor=actor, now=self._clock(), table_id=table_id
            )

    # -- players ---------------------------------------------------------------------------------------------

    async def _settings(self, tx: StorageTx, guild_id: int) -> GuildSettings:
        return await tx.get_settings(guild_id) or GuildSettings(guild_id=guild_id)

    async def _chips_of(self, tx: StorageTx, scope: BankScope) -> tuple[int, int]:
        """(starting chips, daily chips) of a bank scope: a guild's settings, else the scope's own row (a bank
        season's), else the defaults."""
        if scope.is_guild:
            settings = await self._settings(tx, scope.id)
            return settings.starting_chips, settings.daily_amount
        rows = await tx.fetchall(
            "SELECT starting_chips, daily_amount FROM scope_settings WHERE scope_kind = ? AND scope_id = ?",
            (scope.stored_kind, scope.id),
        )
        if rows:
            return int(rows[0][0]), int(rows[0][1])
        default = GuildSettings(guild_id=0)
        return default.starting_chips, default.daily_amount

    async def set_scope_chips(self, tx: StorageTx, scope: BankScope, *, starting_chips: int, daily_amount: int) -> None:
        """Inside an open transaction: what a bank scope that is not a guild issues to a new bank, and daily (a chip
        league's bank season: its starting chips while it runs, none once it ended)."""
        if scope.is_guild:
            raise ValueError("a guild's chips are its settings (update_settings)")
        if min(starting_chips, daily_amount) < 0:
            raise InvalidAmount(min(starting_chips, daily_amount))
        await tx.execute(
            "INSERT INTO scope_settings (scope_kind, scope_id, starting_chips, daily_amount, updated_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope_kind, scope_id) DO UPDATE SET "
            "starting_chips = excluded.starting_chips, daily_amount = excluded.daily_amount, "
            "updated_at = excluded.updated_at",
            (scope.stored_kind, scope.id, starting_chips, daily_amount, self._clock()),
        )

    async def _ensure_player(self, tx: StorageTx, scope: BankScope, user_id: int) -> Receipt | None:
        starting, _ = await self._chips_of(tx, scope)
        key = f"start:{scope.key}:{user_id}"
        if starting <= 0:
            return None
        postings = transfer(Account.issued(scope), Account.bank(scope, user_id), starting)
        return await post_transaction(
            tx, postings, key=key, reason="starting chips", actor="system", now=self._clock(), strict=False
        )

    async def issue_starting_chips(self, tx: StorageTx, scope: BankScope | int, user_id: int) -> Receipt | None:
        """Inside an open transaction: the scope's starting chips, once per player (``ensure_player``'s journal
        ``start:<scope>:U``; None when the scope gives none). Chip leagues issue a new bank season's banks with it."""
        return await self._ensure_player(tx, BankScope.of(scope), user_id)

    async def ensure_player(self, scope: BankScope | int, user_id: int) -> int:
        """Grant the scope's starting chips once (idempotent); returns the bank balance. A guild id means its guild."""
        bank_scope = BankScope.of(scope)
        async with self.storage.transaction() as tx:
            await self._ensure_player(tx, bank_scope, user_id)
            bank = Account.bank(bank_scope, user_id)
            return (await tx.balances([bank]))[bank]

    async def claim_daily(self, scope: BankScope | int, user_id: int) -> DailyClaim:
        """The daily grant of ``scope`` (a guild id: its guild's), once per UTC day (also grants starting chips to a
        new player)."""
        now = self._clock()
        day, wait = _next_utc_midnight(now)
        bank_scope = BankScope.of(scope)
        bank = Account.bank(bank_scope, user_id)
        async with self.storage.transaction() as tx:
            await self._ensure_player(tx, bank_scope, user_id)
            _, amount = await self._chips_of(tx, bank_scope)
            claimed = False
            if amount > 0:
                receipt = await post_transaction(
                    tx,
                    transfer(Account.issued(bank_scope), bank, amount),
                    key=f"daily:{bank_scope.key}:{user_id}:{day}",
                    reason="daily claim",
                    actor=user_id,
                    now=now,
                    strict=False,
                )
                claimed = receipt.created
            balance = (await tx.balances([bank]))[bank]
        return DailyClaim(claimed, amount if claimed else 0, balance, wait)

    async def grant(
        self, scope: BankScope | int, user_id: int, amount: int, *, actor: Actor, reason: str, key: str | None = None
    ) -> Receipt:
        """Admin: create ``amount`` chips in a player's bank of ``scope`` (a guild id: its guild's), audited with
        actor and reason."""
        amount = _check_amount(amount)
        postings = transfer(Account.issued(scope), Account.bank(scope, user_id), amount)
        return await self.transact(
            postings, key=key or f"grant:{uuid.uuid4().hex}", reason=f"admin grant: {reason}", actor=actor
        )

    async def take(
        self, scope: BankScope | int, user_id: int, amount: int, *, actor: Actor, reason: str, key: str | None = None
    ) -> Receipt:
        """Admin: remove ``amount`` chips from a player's bank of ``scope``. Raises :class:`InsufficientChips`."""
        amount = _check_amount(amount)
        postings = transfer(Account.bank(scope, user_id), Account.issued(scope), amount)
        return await self.transact(
            postings, key=key or f"take:{uuid.uuid4().hex}", reason=f"admin take: {reason}", actor=actor
        )

    # -- table stakes ------------------------------------------------------------------------------------------

    async def _open_table_scope(self, tx: StorageTx, table_id: int) -> BankScope:
        """The ledger scope of an open table's banks (its guild's, or the scope stored with the table)."""
        row = await tx.get_table(table_id)
        if row is None or row.status != "open":
            raise TableClosed(table_id)
        return row.bank_scope

    async def buy_in(
        self, table_id: int, user_id: int, amount: int, *, key: str | None = None, reason: str = "buy-in"
    ) -> Receipt:
        """Move chips bank -> stack at an open table. Minimums are the table service's business.

        Raises:
            InvalidAmount, TableClosed, InsufficientChips.
        """
        amount = _check_amount(amount)
        async with self.storage.transaction() as tx:
            scope = await self._open_table_scope(tx, table_id)
            await self._ensure_player(tx, scope, user_id)
            return await post_transaction(
                tx,
                transfer(Account.bank(scope, user_id), Account.stack(table_id, user_id), amount),
                key=key or f"buyin:{table_id}:{user_id}:{uuid.uuid4().hex}",
                reason=reason,
                actor=user_id,
                now=self._clock(),
                table_id=table_id,
            )

    async def rebuy(self, table_id: int, user_id: int, amount: int, *, key: str | None = None) -> Receipt:
        """A buy-in between hands (same transfer, recorded as a rebuy)."""
        return await self.buy_in(table_id, user_id, amount, key=key, reason="rebuy")

    async def cash_out(
        self, table_id: int, user_id: int, amount: int | None = None, *, key: str | None = None
    ) -> Receipt | None:
        """Move a player's stack (all of it by default) back to their bank; None if the stack is empty.

        Works on closed tables too (a stack left behind can always be recovered).
        """
        async with self.storage.transaction() as tx:
            row = await tx.get_table(table_id)
            if row is None:
                raise TableClosed(table_id)
            stack = Account.stack(table_id, user_id)
            held = (await tx.balances([stack]))[stack]
            amount = held if amount is None else _check_amount(amount)
            if amount == 0:
                return None
            return await post_transaction(
                tx,
                transfer(stack, Account.bank(row.bank_scope, user_id), amount),
                key=key or f"cashout:{table_id}:{user_id}:{uuid.uuid4().hex}",
                reason="cash-out",
                actor=user_id,
                now=self._clock(),
                table_id=table_id,
            )

    # -- reads -----------------------------------------------------------------------------------------------

    async def balance(self, scope: BankScope | int, user_id: int) -> int:
        """A player's bank balance in ``scope`` (a guild id: that guild's; 0 before their starting chips)."""
        bank = Account.bank(scope, user_id)
        return (await self.balances([bank]))[bank]

    async def balances(self, accounts: Sequence[Account]) -> dict[Account, int]:
        async with self.storage.transaction(write=False) as tx:
            return await tx.balances(accounts)

    async def leaderboard(self, guild_id: int, limit: int = 10) -> list[tuple[int, int]]:
        """Top ``limit`` (user_id, bank balance) of a guild's own banks (not its practice chips), computer players
        (negative ids) excluded. Banks only: what players *have* (chips at tables included) is :meth:`holdings`,
        which ``/pan leaderboard`` ranks."""
        async with self.storage.transaction(write=False) as tx:
            return await tx.leaderboard(guild_id, max(0, limit))

    async def holdings(
        self,
        guild_id: int,
        *,
        scope: BankScope | None = None,
        limit: int = 10,
        caller: int | None = None,
        exclude: Sequence[int] = (),
    ) -> Holdings:
        """Players ranked by what they have (:func:`rank_holdings`), in one read transaction — so bank and stacks
        are of the same moment (a buy-in moves chips from one to the other and changes no total)."""
        async with self.storage.transaction(write=False) as tx:
            return await rank_holdings(
                tx,
                guild_id,
                BankScope.guild(guild_id) if scope is None else scope,
                limit=limit,
                caller=caller,
                exclude=exclude,
            )

    async def holding(self, guild_id: int, user_id: int, *, scope: BankScope | None = None) -> Holding | None:
        """One player's bank and chips at tables (:meth:`holdings`' line for him), None before his first chips."""
        return (await self.holdings(guild_id, scope=scope, limit=0, caller=user_id)).caller

    # -- settings --------------------------------------------------------------------------------------------

    async def scope_chips(self, scope: BankScope | int) -> tuple[int, int]:
        """(starting chips, daily chips) a bank scope issues (a guild's: its settings)."""
        async with self.storage.transaction(write=False) as tx:
            return await self._chips_of(tx, BankScope.of(scope))

    async def settings(self, guild_id: int) -> GuildSettings:
        async with self.storage.transaction(write=False) as tx:
            return await self._settings(tx, guild_id)

    async def update_settings(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Change some of preset, starting_chips, daily_amount, moderator_role_id; returns the new settings."""
        unknown = set(changes) - {"preset", "starting_chips", "daily_amount", "moderator_role_id"}
        if unknown:
            raise TypeError(f"unknown guild settings: {sorted(unknown)}")
        for name in ("starting_chips", "daily_amount"):
            value = changes.get(name, 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidAmount(value)
        async with self.storage.transaction() as tx:
            new = (await self._settings(tx, guild_id)).replace(**changes)
            await tx.put_settings(new, self._clock())
            return new

    # -- audit -----------------------------------------------------------------------------------------------

    async def audit(self) -> AuditReport:
        """Prove the books in one consistent read; see :class:`AuditReport`."""
        async with self.storage.transaction(write=False) as tx:
            facts = await tx.audit_facts()
        problems: list[str] = []
        problems += [f"balance of {k} is {b} but its postings sum to {s}" for k, b, s in facts.cached_mismatch]
        problems += [f"transaction {k} sums to {s}, not 0" for k, s in facts.unbalanced_journals]
        problems += [f"{k} is negative ({b})" for k, b in facts.negative_accounts]
        problems += [f"table {t}: last_seq {last} but {n} logged actions" for t, last, n in facts.log_gaps]
        if facts.total_non_system + facts.total_issued != 0:
            problems.append(f"accounts hold {facts.total_non_system} chips but {-facts.total_issued} were issued")
        return AuditReport(facts, tuple(problems))
