"""Persistence of tournaments: three tables of migration V4 (``tournament_tables.channel_id`` from V10, an entry's
rebuys, add-on and bounty from V16) and
``tournament_messages`` of V7 (portable SQL, explicit columns).

Every write takes the open storage transaction of the caller, so a tournament's rows commit together with the
ledger postings of the same step (one transaction: a SIGKILL leaves both or neither). The SQL is the portable
subset, run through the storage contract's generic ``StorageTx.execute`` / ``fetchall`` (``?`` placeholders,
rewritten to ``$n`` on PostgreSQL), so the same repository serves both backends.
"""

from __future__ import annotations

import json

from pancog.infra.storage.base import ShardSet, StorageTx

from .model import Entry, EntryStatus, Status, Tournament, TournamentConfig, TTable

__all__ = ["TournamentRepository"]

_T_COLS = (
    "tournament_id, guild_id, channel_id, host_id, config, status, created_ms, started_ms, paused_ms, "
    "paused_total, finished_ms, seed, bust_groups"
)
_E_COLS = (
    "tournament_id, entry_id, player_id, entry_no, status, table_no, moves, bust_group, start_stack, place, tied, "
    "prize, away, created_ms, end_stack, rebuys, addons, bounty, bounty_won, knocked_by"
)
_TT_COLS = "tournament_id, table_no, table_id, status, final, hand_stacks, channel_id"


def _ph(n: int) -> str:
    return ", ".join("?" * n)


def _excluded(cols: str, keys: set[str]) -> str:
    return ", ".join(f"{c} = excluded.{c}" for c in (c.strip() for c in cols.split(",")) if c not in keys)


class TournamentRepository:
    """Rows of ``tournaments``, ``tournament_entries``, ``tournament_tables`` and ``tournament_messages``."""

    async def put_message(self, tx: StorageTx, tournament_id: int, kind: str, channel_id: int, message_id: int) -> None:
        """The message of ``kind`` (``announcement``) the adapter keeps editing, so a restart finds it again."""
        await tx.execute(
            "INSERT INTO tournament_messages (tournament_id, kind, channel_id, message_id) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (tournament_id, kind) DO UPDATE SET channel_id = excluded.channel_id, "
            "message_id = excluded.message_id",
            (tournament_id, kind, channel_id, message_id),
        )

    async def put_tournament(self, tx: StorageTx, t: Tournament) -> None:
        await tx.execute(
            f"INSERT INTO tournaments ({_T_COLS}) VALUES ({_ph(13)}) ON CONFLICT (tournament_id) DO UPDATE SET "  # noqa: S608
            + _excluded(_T_COLS, {"tournament_id"}),
            (
                t.tournament_id,
                t.guild_id,
                t.channel_id,
                t.host_id,
                t.config.to_json(),
                t.status.value,
                t.created_ms,
                t.started_ms,
                t.paused_ms,
                t.paused_total,
                t.finished_ms,
                t.seed,
                t.bust_groups,
            ),
        )

    async def put_entry(self, tx: StorageTx, tournament_id: int, e: Entry) -> None:
        await tx.execute(
            f"INSERT INTO tournament_entries ({_E_COLS}) VALUES ({_ph(20)}) "  # noqa: S608
            "ON CONFLICT (tournament_id, entry_id) DO UPDATE SET " + _excluded(_E_COLS, {"tournament_id", "entry_id"}),
            (
                tournament_id,
                e.entry_id,
                e.player_id,
                e.entry_no,
                e.status.value,
                e.table_no,
                e.moves,
                e.bust_group,
                e.start_stack,
                e.place,
                e.tied,
                e.prize,
                int(e.away),
                e.created_ms,
                e.end_stack,
                e.rebuys,
                e.addons,
                e.bounty,
                e.bounty_won,
                e.knocked_by,
            ),
        )

    async def put_table(self, tx: StorageTx, tournament_id: int, t: TTable) -> None:
        await tx.execute(
            f"INSERT INTO tournament_tables ({_TT_COLS}) VALUES ({_ph(7)}) "  # noqa: S608
            "ON CONFLICT (tournament_id, table_no) DO UPDATE SET " + _excluded(_TT_COLS, {"tournament_id", "table_no"}),
            (
                tournament_id,
                t.table_no,
                t.table_id,
                t.status,
                int(t.final),
                json.dumps({str(k): v for k, v in sorted(t.hand_stacks.items())}),
                t.channel_id,
            ),
        )

    async def load(
        self,
        tx: StorageTx,
        *,
        active_only: bool = True,
        tournament_id: int | None = None,
        shards: ShardSet | None = None,
    ) -> list[Tournament]:
        """Every tournament not finished or cancelled (or all; or only ``tournament_id``; or only those of the guilds
        on ``shards``: a cluster process's), with its entries and tables."""
        where = " WHERE status NOT IN ('finished', 'cancelled')" if active_only else " WHERE 1 = 1"
        params: tuple[int, ...] = ()
        if tournament_id is not None:
            where, params = where + " AND tournament_id = ?", (tournament_id,)
        if shards is not None:
            where += f" AND {shards.sql_filter('guild_id')}"
        rows = await tx.fetchall(
            f"SELECT {_T_COLS} FROM tournaments{where} ORDER BY tournament_id",  # noqa: S608
            params,
        )
        found: dict[int, Tournament] = {}
        for r in rows:
            found[int(r[0])] = Tournament(
                tournament_id=int(r[0]),
                guild_id=int(r[1]),
                channel_id=int(r[2]),
                host_id=int(r[3]),
                config=TournamentConfig.from_json(str(r[4])),
                status=Status(r[5]),
                created_ms=int(r[6]),
                started_ms=r[7],
                paused_ms=r[8],
                paused_total=int(r[9]),
                finished_ms=r[10],
                seed=int(r[11]),
                bust_groups=int(r[12]),
            )
        for r in await tx.fetchall(f"SELECT {_E_COLS} FROM tournament_entries ORDER BY entry_id"):  # noqa: S608
            t = found.get(int(r[0]))
            if t is not None:
                t.entries[int(r[1])] = Entry(
                    entry_id=int(r[1]),
                    player_id=int(r[2]),
                    entry_no=int(r[3]),
                    status=EntryStatus(r[4]),
                    table_no=r[5],
                    moves=int(r[6]),
                    bust_group=r[7],
                    start_stack=r[8],
                    place=r[9],
                    tied=r[10],
                    prize=r[11],
                    away=bool(r[12]),
                    created_ms=int(r[13]),
                    end_stack=r[14],
                    rebuys=int(r[15]),
                    addons=int(r[16]),
                    bounty=int(r[17]),
                    bounty_won=int(r[18]),
                    knocked_by=r[19],
                )
        for r in await tx.fetchall(f"SELECT {_TT_COLS} FROM tournament_tables ORDER BY table_no"):  # noqa: S608
            t = found.get(int(r[0]))
            if t is not None:
                stacks = {int(k): int(v) for k, v in json.loads(str(r[5])).items()}
                t.tables[int(r[1])] = TTable(
                    table_no=int(r[1]),
                    table_id=int(r[2]),
                    status=str(r[3]),
                    final=bool(r[4]),
                    hand_stacks=stacks,
                    channel_id=None if r[6] is None else int(r[6]),
                )
        for r in await tx.fetchall(
            "SELECT tournament_id, channel_id, message_id FROM tournament_messages WHERE kind = 'announcement'"
        ):
            t = found.get(int(r[0]))
            if t is not None:
                t.announcement = (int(r[1]), int(r[2]))
        return list(found.values())
