"""Every SQL statement of the league (tables of migrations/V5__league.sql), run inside a caller's transaction.

Portable subset: ``?`` placeholders, explicit columns, ``ON CONFLICT ... DO UPDATE/NOTHING`` upserts, ``CASE``
instead of ``MAX(a, b)``/``GREATEST``; a backend runs them through ``StorageTx.execute/fetchall``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pancog.infra.storage.base import BankScope, StorageTx

__all__ = ["HistoryRow", "SeasonRow", "StandingRow", "StatsRow", "VersusRow"]

STAT_COLUMNS = (
    "hands_dealt",
    "hands_played",
    "hands_on_top",
    "hands_won",
    "conditions",
    "condition_chips",
    "biggest",
    "net",
    "tourneys_played",
    "tourneys_cashed",
    "tourneys_won",
)
_ROWS_PER_STATEMENT = 60  # 14 parameters a row: far below SQLite's and PostgreSQL's parameter limits


@dataclass(frozen=True, slots=True, kw_only=True)
class SeasonRow:
    guild_id: int
    number: int
    name: str
    mode: str  # 'net' | 'bank'
    starting_chips: int
    scope_id: int  # its bank scope is BankScope.season(scope_id) (1, 2, … over every guild)
    status: str  # 'active' | 'ended'
    started_at: int
    ends_at: int | None
    ended_at: int | None
    champion_id: int | None
    role_id: int | None = None  # the Discord role the top finishers get when it ends

    @property
    def bank_scope(self) -> BankScope:
        """The ledger scope of its season banks (used by a 'bank' season's tables)."""
        return BankScope.season(self.scope_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class StatsRow:
    user_id: int
    hands_dealt: int = 0
    hands_played: int = 0
    hands_on_top: int = 0
    hands_won: int = 0
    conditions: int = 0
    condition_chips: int = 0
    biggest: int = 0
    net: int = 0
    tourneys_played: int = 0
    tourneys_cashed: int = 0
    tourneys_won: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class StandingRow:
    place: int
    user_id: int
    net: int
    chips: int  # a bank season: the season bank plus chips at its open tables (archived: after they closed)
    score: int
    wins: int
    at_tables: int = 0  # of ``chips``, those at open tables (live standings only; archived rows have none)


_SEASON_COLUMNS = (
    "guild_id, number, name, mode, starting_chips, scope_id, status, started_at, ends_at, ended_at, champion_id, "
    "role_id"
)


def _season(r: Sequence[Any]) -> SeasonRow:
    return SeasonRow(
        guild_id=int(r[0]),
        number=int(r[1]),
        name=str(r[2]),
        mode=str(r[3]),
        starting_chips=int(r[4]),
        scope_id=int(r[5]),
        status=str(r[6]),
        started_at=int(r[7]),
        ends_at=None if r[8] is None else int(r[8]),
        ended_at=None if r[9] is None else int(r[9]),
        champion_id=None if r[10] is None else int(r[10]),
        role_id=None if r[11] is None else int(r[11]),
    )


# ------------------------------------------------------------------ seasons


async def active_season(tx: StorageTx, guild_id: int) -> SeasonRow | None:
    rows = await tx.fetchall(
        f"SELECT {_SEASON_COLUMNS} FROM league_seasons WHERE guild_id = ? AND status = 'active'",  # noqa: S608
        (guild_id,),
    )
    return _season(rows[0]) if rows else None


async def get_season(tx: StorageTx, guild_id: int, number: int) -> SeasonRow | None:
    rows = await tx.fetchall(
        f"SELECT {_SEASON_COLUMNS} FROM league_seasons WHERE guild_id = ? AND number = ?",  # noqa: S608
        (guild_id, number),
    )
    return _season(rows[0]) if rows else None


async def seasons(tx: StorageTx, guild_id: int) -> list[SeasonRow]:
    rows = await tx.fetchall(
        f"SELECT {_SEASON_COLUMNS} FROM league_seasons WHERE guild_id = ? ORDER BY number",  # noqa: S608
        (guild_id,),
    )
    return [_season(r) for r in rows]


async def due_seasons(tx: StorageTx, now: int) -> list[SeasonRow]:
    rows = await tx.fetchall(
        f"SELECT {_SEASON_COLUMNS} FROM league_seasons "  # noqa: S608
        "WHERE status = 'active' AND ends_at IS NOT NULL AND ends_at <= ? ORDER BY guild_id",
        (now,),
    )
    return [_season(r) for r in rows]


async def scope_owner(tx: StorageTx, scope_id: int) -> tuple[int, int] | None:
    """(guild, season number) of the season whose banks live in ledger scope ``scope_id``."""
    rows = await tx.fetchall("SELECT guild_id, number FROM league_seasons WHERE scope_id = ?", (scope_id,))
    return (int(rows[0][0]), int(rows[0][1])) if rows else None


async def last_season_number(tx: StorageTx, guild_id: int) -> int:
    rows = await tx.fetchall("SELECT COALESCE(MAX(number), 0) FROM league_seasons WHERE guild_id = ?", (guild_id,))
    return int(rows[0][0])


async def insert_season(tx: StorageTx, season: SeasonRow) -> bool:
    """False if the guild already has a season with that number (nothing changed). The caller checks that no
    season is active, in the same write transaction. The season banks' ledger scope (``BankScope.season(n)``) is
    the next number over every guild's seasons: 1, 2, …"""
    changed = await tx.execute(
        f"INSERT INTO league_seasons ({_SEASON_COLUMNS}) "  # noqa: S608
        "SELECT ?, ?, ?, ?, ?, COALESCE(MAX(scope_id), CAST(? AS BIGINT)) + 1, ?, ?, ?, ?, ?, ? FROM league_seasons "
        "WHERE 1 = 1 ON CONFLICT (guild_id, number) DO NOTHING",
        (
            season.guild_id,
            season.number,
            season.name,
            season.mode,
            season.starting_chips,
            0,
            season.status,
            season.started_at,
            season.ends_at,
            season.ended_at,
            season.champion_id,
            season.role_id,
        ),
    )
    return changed == 1


async def end_season(tx: StorageTx, guild_id: int, number: int, ended_at: int, champion_id: int | None) -> bool:
    changed = await tx.execute(
        "UPDATE league_seasons SET status = 'ended', ended_at = ?, champion_id = ? "
        "WHERE guild_id = ? AND number = ? AND status = 'active'",
        (ended_at, champion_id, guild_id, number),
    )
    return changed == 1


async def insert_standings(tx: StorageTx, guild_id: int, season_no: int, rows: Sequence[StandingRow]) -> None:
    for start in range(0, len(rows), _ROWS_PER_STATEMENT):
        part = rows[start : start + _ROWS_PER_STATEMENT]
        await tx.execute(
            "INSERT INTO league_standings (guild_id, season_no, place, user_id, net, chips, score, wins) VALUES "  # noqa: S608
            + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?)"] * len(part)),
            [v for r in part for v in (guild_id, season_no, r.place, r.user_id, r.net, r.chips, r.score, r.wins)],
        )


async def standings(tx: StorageTx, guild_id: int, season_no: int) -> list[StandingRow]:
    rows = await tx.fetchall(
        "SELECT place, user_id, net, chips, score, wins FROM league_standings "
        "WHERE guild_id = ? AND season_no = ? ORDER BY place, user_id",
        (guild_id, season_no),
    )
    return [StandingRow(place=r[0], user_id=r[1], net=r[2], chips=r[3], score=r[4], wins=r[5]) for r in rows]


# ------------------------------------------------------------------ results and counters


async def journal_results_after(tx: StorageTx, journal_id: int, limit: int) -> list[tuple[int, float, str]]:
    """(journal id, created_at, result text) of the ledger journals after ``journal_id`` that carry a result, in
    order (migration V8). A range scan of the journals' primary key: no index on ``result``, so a settlement writes
    no extra B-tree page."""
    rows = await tx.fetchall(
        "SELECT id, created_at, result FROM journals WHERE id > ? AND result IS NOT NULL ORDER BY id LIMIT ?",
        (journal_id, limit),
    )
    return [(int(j), float(c), str(r)) for j, c, r in rows]


async def recorded_keys(tx: StorageTx, keys: Sequence[str]) -> set[str]:
    """Which of ``keys`` have a result row already."""
    found: set[str] = set()
    for start in range(0, len(keys), 500):
        part = keys[start : start + 500]
        rows = await tx.fetchall(
            f"SELECT result_key FROM league_results WHERE result_key IN ({', '.join('?' * len(part))})",  # noqa: S608
            part,
        )
        found.update(str(r[0]) for r in rows)
    return found


async def insert_results(tx: StorageTx, rows: Sequence[tuple[Any, ...]]) -> None:
    """Insert (key, ordinal, guild, season, kind, table, hand, created_at, body) rows; the caller has left out keys
    already recorded."""
    for start in range(0, len(rows), _ROWS_PER_STATEMENT):
        part = rows[start : start + _ROWS_PER_STATEMENT]
        await tx.execute(
            "INSERT INTO league_results (result_key, ordinal, guild_id, season_no, kind, table_id, hand_no, "  # noqa: S608
            "created_at, body) VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(part)),
            [v for r in part for v in r],
        )


async def result_ordinal(tx: StorageTx, key: str) -> int | None:
    """The ordinal (journal id) that owns result ``key``, None if it is not recorded."""
    rows = await tx.fetchall("SELECT ordinal FROM league_results WHERE result_key = ?", (key,))
    return int(rows[0][0]) if rows else None


async def pending(tx: StorageTx, journals_cursor: str, ratings_cursor: str) -> bool:
    """Whether a drain has work: a journal result after the journals cursor, or a result after the ratings one."""
    rows = await tx.fetchall(
        "SELECT "
        "EXISTS (SELECT 1 FROM journals WHERE result IS NOT NULL AND id > "
        "(SELECT COALESCE(MAX(value), 0) FROM league_cursors WHERE name = ?)), "
        "EXISTS (SELECT 1 FROM league_results WHERE ordinal > "
        "(SELECT COALESCE(MAX(value), 0) FROM league_cursors WHERE name = ?))",
        (journals_cursor, ratings_cursor),
    )
    return bool(rows[0][0]) or bool(rows[0][1])


async def results_after(tx: StorageTx, ordinal: int, limit: int) -> list[tuple[int, int, int, str]]:
    """(ordinal, guild id, season number, body) of the results after ``ordinal``, in order."""
    rows = await tx.fetchall(
        "SELECT ordinal, guild_id, season_no, body FROM league_results WHERE ordinal > ? ORDER BY ordinal LIMIT ?",
        (ordinal, limit),
    )
    return [(int(o), int(g), int(s), str(b)) for o, g, s, b in rows]


async def results_to_fold(tx: StorageTx, ordinal: int, limit: int) -> list[tuple[int, int, int, str, int, str]]:
    """(ordinal, guild id, season number, body, created_at, result key) of the results after ``ordinal``, in order:
    what the ratings fold reads (the history rows it writes carry the time and the key)."""
    rows = await tx.fetchall(
        "SELECT ordinal, guild_id, season_no, body, created_at, result_key FROM league_results "
        "WHERE ordinal > ? ORDER BY ordinal LIMIT ?",
        (ordinal, limit),
    )
    return [(int(o), int(g), int(s), str(b), int(c), str(k)) for o, g, s, b, c, k in rows]


async def result_bodies(tx: StorageTx, guild_id: int, season_no: int | None) -> list[tuple[int, str]]:
    """(season number, body) of a guild's results (one season, or all when None), in order."""
    if season_no is None:
        rows = await tx.fetchall(
            "SELECT season_no, body FROM league_results WHERE guild_id = ? ORDER BY ordinal", (guild_id,)
        )
    else:
        rows = await tx.fetchall(
            "SELECT season_no, body FROM league_results WHERE guild_id = ? AND season_no = ? ORDER BY ordinal",
            (guild_id, season_no),
        )
    return [(int(s), str(b)) for s, b in rows]


async def add_stats(tx: StorageTx, rows: Sequence[tuple[int, ...]]) -> None:
    """Add counters: each row is (guild, season, user, *STAT_COLUMNS values); ``biggest`` keeps the maximum."""
    for start in range(0, len(rows), _ROWS_PER_STATEMENT):
        part = rows[start : start + _ROWS_PER_STATEMENT]
        await tx.execute(_stats_sql(len(part)), [v for r in part for v in r])


_STATS_UPDATES = ", ".join(
    f"{c} = CASE WHEN excluded.{c} > league_stats.{c} THEN excluded.{c} ELSE league_stats.{c} END"
    if c == "biggest"
    else f"{c} = league_stats.{c} + excluded.{c}"
    for c in STAT_COLUMNS
)


@functools.lru_cache(maxsize=64)
def _stats_sql(rows: int) -> str:
    width = 3 + len(STAT_COLUMNS)
    # The first row's casts type the VALUES columns (PostgreSQL would otherwise read untyped parameters as text);
    # SQLite ignores them (integer affinity).
    first = "(" + ", ".join(["CAST(? AS BIGINT)"] * width) + ")"
    values = ", ".join([first] + ["(" + ", ".join("?" * width) + ")"] * (rows - 1))
    # INSERT ... SELECT needs a WHERE before ON CONFLICT (no parse ambiguity)
    return (
        f"INSERT INTO league_stats (guild_id, season_no, user_id, {', '.join(STAT_COLUMNS)}) "  # noqa: S608
        f"SELECT * FROM (VALUES {values}) AS v WHERE 1 = 1 "
        f"ON CONFLICT (guild_id, season_no, user_id) DO UPDATE SET {_STATS_UPDATES}"
    )


async def get_stats(tx: StorageTx, guild_id: int, season_no: int, user_id: int) -> StatsRow | None:
    rows = await tx.fetchall(
        f"SELECT user_id, {', '.join(STAT_COLUMNS)} FROM league_stats "  # noqa: S608
        "WHERE guild_id = ? AND season_no = ? AND user_id = ?",
        (guild_id, season_no, user_id),
    )
    return _stats(rows[0]) if rows else None


async def all_stats(tx: StorageTx, guild_id: int, season_no: int) -> list[StatsRow]:
    rows = await tx.fetchall(
        f"SELECT user_id, {', '.join(STAT_COLUMNS)} FROM league_stats "  # noqa: S608
        "WHERE guild_id = ? AND season_no = ? ORDER BY user_id",
        (guild_id, season_no),
    )
    return [_stats(r) for r in rows]


def _stats(r: Sequence[Any]) -> StatsRow:
    return StatsRow(user_id=int(r[0]), **{c: int(v) for c, v in zip(STAT_COLUMNS, r[1:], strict=True)})


async def get_ratings(
    tx: StorageTx, guild_id: int, season_no: int, users: Sequence[int]
) -> dict[int, tuple[float, float, int]]:
    """{user: (mu, sigma, rated)} for the users that have a rating."""
    if not users:
        return {}
    rows = await tx.fetchall(
        "SELECT user_id, mu, sigma, rated FROM league_ratings WHERE guild_id = ? AND season_no = ? "  # noqa: S608
        f"AND user_id IN ({', '.join('?' * len(users))})",
        (guild_id, season_no, *users),
    )
    return {int(u): (float(m), float(s), int(n)) for u, m, s, n in rows}


async def put_ratings(tx: StorageTx, rows: Sequence[tuple[int, int, int, float, float, int, int]]) -> None:
    """Upsert (guild, season, user, mu, sigma, rated, score) rows."""
    for start in range(0, len(rows), _ROWS_PER_STATEMENT):
        part = rows[start : start + _ROWS_PER_STATEMENT]
        await tx.execute(
            "INSERT INTO league_ratings (guild_id, season_no, user_id, mu, sigma, rated, score) VALUES "  # noqa: S608
            + ", ".join(["(?, ?, ?, ?, ?, ?, ?)"] * len(part))
            + " ON CONFLICT (guild_id, season_no, user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
            "rated = excluded.rated, score = excluded.score",
            [v for g, s, u, mu, sg, n, sc in part for v in (g, s, u, repr(mu), repr(sg), n, sc)],
        )


async def get_cursor(tx: StorageTx, name: str) -> int:
    rows = await tx.fetchall("SELECT value FROM league_cursors WHERE name = ?", (name,))
    return int(rows[0][0]) if rows else 0


async def set_cursor(tx: StorageTx, name: str, value: int) -> None:
    await tx.execute(
        "INSERT INTO league_cursors (name, value) VALUES (?, ?) "
        "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        (name, value),
    )


async def clear_derived(tx: StorageTx) -> None:
    """Forget every counter and rating (the rebuild refolds them from the results). The journals cursor stays: the
    results it has passed are in ``league_results``, which the rebuild keeps."""
    await tx.execute("DELETE FROM league_stats")
    await tx.execute("DELETE FROM league_ratings")
    await tx.execute("DELETE FROM league_history")
    await tx.execute("DELETE FROM league_cursors WHERE name <> 'journals'")


async def delete_table_hands(tx: StorageTx, table_id: int) -> None:
    """Forget one table's hand digests (the rebuild re-derives them from its action log)."""
    await tx.execute("DELETE FROM league_results WHERE kind = 'hand' AND table_id = ?", (table_id,))


async def hand_seasons(tx: StorageTx) -> list[tuple[str, int]]:
    """(result key, season number) of every recorded hand."""
    rows = await tx.fetchall("SELECT result_key, season_no FROM league_results WHERE kind = 'hand'")
    return [(str(k), int(s)) for k, s in rows]


async def season_windows(tx: StorageTx) -> list[tuple[int, int, int, int | None]]:
    """(guild, season number, started_at, ended_at) of every season."""
    rows = await tx.fetchall(
        "SELECT guild_id, number, started_at, ended_at FROM league_seasons ORDER BY guild_id, number"
    )
    return [(int(g), int(n), int(a), None if e is None else int(e)) for g, n, a, e in rows]


async def all_tables(tx: StorageTx) -> list[tuple[int, int, str, bool]]:
    """(table id, guild id, config JSON, a tournament's table) of every table, open or closed (the table service's
    rows)."""
    rows = await tx.fetchall("SELECT table_id, guild_id, config, scope_kind FROM tables ORDER BY table_id")
    return [(int(t), int(g), str(c), k == "tournament") for t, g, c, k in rows]


async def table_log(tx: StorageTx, table_id: int) -> list[tuple[int, str, int, float]]:
    """(seq, action, ledger journal id, created_at) of a table's action log, in order."""
    rows = await tx.fetchall(
        "SELECT seq, action, journal_id, created_at FROM actions WHERE table_id = ? ORDER BY seq", (table_id,)
    )
    return [(int(s), str(a), int(j or 0), float(c)) for s, a, j, c in rows]


# ------------------------------------------------------------------ leaderboards


async def ranked(
    tx: StorageTx, guild_id: int, season_no: int, column: str, limit: int, excluded: Sequence[int]
) -> list[tuple[int, int, int]]:
    """Top ``limit`` (user, value, rated) by a stats column or by rating ``score`` (humans, not excluded)."""
    source = _source(column)
    skip = f" AND user_id NOT IN ({', '.join('?' * len(excluded))})" if excluded else ""
    rows = await tx.fetchall(
        f"SELECT user_id, {source[1]}, {source[2]} FROM {source[0]} "  # noqa: S608
        f"WHERE guild_id = ? AND season_no = ? AND user_id >= 0{skip} ORDER BY {source[1]} DESC, user_id LIMIT ?",
        (guild_id, season_no, *excluded, limit),
    )
    return [(int(u), int(v), int(n)) for u, v, n in rows]


async def rank_of(
    tx: StorageTx, guild_id: int, season_no: int, column: str, user_id: int, excluded: Sequence[int]
) -> tuple[int, int, int] | None:
    """(rank, value, rated) of one player (ties share a rank), or None if he has no row."""
    source = _source(column)
    rows = await tx.fetchall(
        f"SELECT {source[1]}, {source[2]} FROM {source[0]} WHERE guild_id = ? AND season_no = ? AND user_id = ?",  # noqa: S608
        (guild_id, season_no, user_id),
    )
    if not rows:
        return None
    value, rated = int(rows[0][0]), int(rows[0][1])
    skip = f" AND user_id NOT IN ({', '.join('?' * len(excluded))})" if excluded else ""
    above = await tx.fetchall(
        f"SELECT COUNT(*) FROM {source[0]} WHERE guild_id = ? AND season_no = ? AND user_id >= 0 "  # noqa: S608
        f"AND {source[1]} > ?{skip}",
        (guild_id, season_no, value, *excluded),
    )
    return int(above[0][0]) + 1, value, rated


def _source(column: str) -> tuple[str, str, str]:
    if column == "score":
        return "league_ratings", "score", "rated"
    if column in STAT_COLUMNS:
        return "league_stats", column, "hands_dealt"
    raise ValueError(f"not a leaderboard column: {column!r}")


def _bank_of(scope: BankScope) -> tuple[str, tuple[object, ...]]:
    """The WHERE condition (and its parameters) of the bank accounts of ``scope``."""
    if scope.is_guild:
        return "kind = 'bank' AND scope_id = ? AND scope_kind IS NULL", (scope.id,)
    return "kind = 'bank' AND scope_id = ? AND scope_kind = ?", (scope.id, scope.stored_kind)


async def bank_account(tx: StorageTx, scope: BankScope, user_id: int) -> int | None:
    """A bank account's balance; None if it was never opened (never issued chips)."""
    where, params = _bank_of(scope)
    rows = await tx.fetchall(f"SELECT balance FROM accounts WHERE {where} AND user_id = ?", (*params, user_id))  # noqa: S608
    return int(rows[0][0]) if rows else None


async def season_players(tx: StorageTx, guild_id: int, season_no: int) -> list[int]:
    """The humans with results in a season (its stats rows), in id order."""
    rows = await tx.fetchall(
        "SELECT user_id FROM league_stats WHERE guild_id = ? AND season_no = ? AND user_id >= 0 ORDER BY user_id",
        (guild_id, season_no),
    )
    return [int(r[0]) for r in rows]


async def bank_balances(tx: StorageTx, scope: BankScope) -> dict[int, int]:
    where, params = _bank_of(scope)
    rows = await tx.fetchall(f"SELECT user_id, balance FROM accounts WHERE {where}", params)  # noqa: S608
    return {int(u): int(b) for u, b in rows}


# ------------------------------------------------------------------ exclusions


async def exclude(
    tx: StorageTx, guild_id: int, season_no: int, user_id: int, moderator_id: int, reason: str, now: int
) -> None:
    await tx.execute(
        "INSERT INTO league_exclusions (guild_id, season_no, user_id, moderator_id, reason, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, season_no, user_id) DO UPDATE SET "
        "moderator_id = excluded.moderator_id, reason = excluded.reason, created_at = excluded.created_at",
        (guild_id, season_no, user_id, moderator_id, reason, now),
    )


async def include(tx: StorageTx, guild_id: int, season_no: int, user_id: int) -> bool:
    changed = await tx.execute(
        "DELETE FROM league_exclusions WHERE guild_id = ? AND season_no = ? AND user_id = ?",
        (guild_id, season_no, user_id),
    )
    return changed == 1


async def exclusions(tx: StorageTx, guild_id: int, season_no: int) -> list[tuple[int, int, str, int]]:
    """(user, moderator, reason, created_at) of a season's exclusions."""
    rows = await tx.fetchall(
        "SELECT user_id, moderator_id, reason, created_at FROM league_exclusions "
        "WHERE guild_id = ? AND season_no = ? ORDER BY user_id",
        (guild_id, season_no),
    )
    return [(int(u), int(m), str(r), int(c)) for u, m, r, c in rows]


# ------------------------------------------------------------------ rating history, match history, head-to-head

HISTORY_COLUMNS = (
    "guild_id, user_id, ordinal, season_no, result_key, created_at, kind, place, net, rated, rated_count, "
    "score_before, score, season_before, season_score"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryRow:
    """One player's line of one league result (``league_history``, V11), with his ratings before and after it."""

    guild_id: int
    user_id: int
    ordinal: int  # commit order
    season_no: int
    result_key: str  # hand:<table>:<hand_no> | tourney:<id>
    created_at: int
    kind: str  # 'hand' | 'tourney'
    place: int  # hand: 1 went out or split, 2 knocked in and lost, 0 on top; tournament: finishing place
    net: int
    rated: bool  # the result moved his ratings
    rated_count: int  # all-time rated results after this one
    score_before: int  # all-time rating x 1000 (mu - 3 sigma)
    score: int
    season_before: int | None  # the season's rating, None when no season was running
    season_score: int | None

    @property
    def change(self) -> int:
        return self.score - self.score_before

    @property
    def season_change(self) -> int | None:
        if self.season_score is None or self.season_before is None:
            return None
        return self.season_score - self.season_before


@dataclass(frozen=True, slots=True, kw_only=True)
class VersusRow:
    """Two players' lines of one result they both took part in."""

    ordinal: int
    result_key: str
    created_at: int
    kind: str
    place: int  # the first player's
    net: int
    other_place: int
    other_net: int


def _history(r: Sequence[Any]) -> HistoryRow:
    return HistoryRow(
        guild_id=int(r[0]),
        user_id=int(r[1]),
        ordinal=int(r[2]),
        season_no=int(r[3]),
        result_key=str(r[4]),
        created_at=int(r[5]),
        kind=str(r[6]),
        place=int(r[7]),
        net=int(r[8]),
        rated=bool(r[9]),
        rated_count=int(r[10]),
        score_before=int(r[11]),
        score=int(r[12]),
        season_before=None if r[13] is None else int(r[13]),
        season_score=None if r[14] is None else int(r[14]),
    )


async def put_history(tx: StorageTx, rows: Sequence[HistoryRow]) -> None:
    """Insert history rows (the fold writes each (result, player) once; a refold after ``clear_derived`` again)."""
    for start in range(0, len(rows), _ROWS_PER_STATEMENT // 2):
        part = rows[start : start + _ROWS_PER_STATEMENT // 2]
        await tx.execute(
            f"INSERT INTO league_history ({HISTORY_COLUMNS}) VALUES "  # noqa: S608
            + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(part))
            + " ON CONFLICT (guild_id, user_id, ordinal) DO NOTHING",
            [
                v
                for h in part
                for v in (
                    h.guild_id,
                    h.user_id,
                    h.ordinal,
                    h.season_no,
                    h.result_key,
                    h.created_at,
                    h.kind,
                    h.place,
                    h.net,
                    int(h.rated),
                    h.rated_count,
                    h.score_before,
                    h.score,
                    h.season_before,
                    h.season_score,
                )
            ],
        )


async def history(
    tx: StorageTx,
    guild_id: int,
    user_id: int,
    *,
    season_no: int | None = None,
    rated_only: bool = False,
    limit: int | None = None,
) -> list[HistoryRow]:
    """A player's results, newest first (``limit`` of them; one season's when ``season_no`` is given)."""
    where = "guild_id = ? AND user_id = ?"
    params: list[Any] = [guild_id, user_id]
    if season_no is not None:
        where += " AND season_no = ?"
        params.append(season_no)
    if rated_only:
        where += " AND rated = 1"
    tail = ""
    if limit is not None:
        tail = " LIMIT ?"
        params.append(limit)
    rows = await tx.fetchall(
        f"SELECT {HISTORY_COLUMNS} FROM league_history WHERE {where} ORDER BY ordinal DESC{tail}",  # noqa: S608
        params,
    )
    return [_history(r) for r in rows]


async def versus(tx: StorageTx, guild_id: int, user_id: int, other_id: int) -> list[VersusRow]:
    """The results both players took part in, oldest first."""
    rows = await tx.fetchall(
        "SELECT a.ordinal, a.result_key, a.created_at, a.kind, a.place, a.net, b.place, b.net "
        "FROM league_history a JOIN league_history b ON b.guild_id = a.guild_id AND b.ordinal = a.ordinal "
        "AND b.user_id = ? WHERE a.guild_id = ? AND a.user_id = ? ORDER BY a.ordinal",
        (other_id, guild_id, user_id),
    )
    return [
        VersusRow(
            ordinal=int(o),
            result_key=str(k),
            created_at=int(c),
            kind=str(kind),
            place=int(p),
            net=int(n),
            other_place=int(op),
            other_net=int(on),
        )
        for o, k, c, kind, p, n, op, on in rows
    ]


async def opponents(tx: StorageTx, guild_id: int, user_id: int, limit: int) -> list[tuple[int, int]]:
    """(other human, results both took part in) for the players ``user_id`` met most, most first."""
    rows = await tx.fetchall(
        "SELECT b.user_id, COUNT(*) FROM league_history a JOIN league_history b ON b.guild_id = a.guild_id "
        "AND b.ordinal = a.ordinal AND b.user_id <> a.user_id WHERE a.guild_id = ? AND a.user_id = ? "
        "GROUP BY b.user_id ORDER BY COUNT(*) DESC, b.user_id LIMIT ?",
        (guild_id, user_id, limit),
    )
    return [(int(u), int(n)) for u, n in rows]


async def last_active(tx: StorageTx, guild_id: int, users: Sequence[int]) -> dict[int, int]:
    """{user: created_at of his latest result} in the guild (players without a result are left out)."""
    if not users:
        return {}
    rows = await tx.fetchall(
        "SELECT user_id, MAX(created_at) FROM league_history WHERE guild_id = ? "  # noqa: S608
        f"AND user_id IN ({', '.join('?' * len(users))}) GROUP BY user_id",
        (guild_id, *users),
    )
    return {int(u): int(c) for u, c in rows}
