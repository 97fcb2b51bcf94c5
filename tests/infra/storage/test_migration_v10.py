"""Migration V10 (bank scopes): a V8 database holding every kind of row the old scope numbers made — practice tables
stored with the guild id negated and their ``bank:-G:U`` banks, a tournament's tables stored with the tournament id
as their guild and its ``bank:T:U`` chips, escrow and house, two bank seasons with their negative scope numbers, their
settings rows and a season table that named its scope in its config — upgrades with every balance intact: the ledger
audit after is the audit before, on both backends. Afterwards ``guild_id`` is always the Discord guild and the scope
is explicit (columns and account keys), nobody is issued starting chips again, and the books stay append-only.

The V8 database is built with the current primitives at ``target_version=8``: a guild-kind ``Account`` with a
negative or tournament id has exactly the key the old code wrote (``bank:-G:U``, ``issued:T``), and rows the current
code would write differently (tournament tables, seasons) go in as raw SQL. Nothing here depends on what V9 does.
"""

from __future__ import annotations

import json

import pytest

from pancog.infra.storage import Account, BankScope, ShardSet, storage_for, transfer
from pancog.infra.storage.base import GuildSettings, Posting
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import TableConfig
from pancog.services.tournaments.model import Status, Tournament, TournamentConfig
from pancog.services.tournaments.repository import TournamentRepository
from tests.support.storage import database_errors, raw_execute

G = 123 << 22  # a guild on shard 123 % N
OTHER = 6 << 22  # another guild (another shard of 4): its practice chips must stay apart from G's
T = (456 << 22) + 9  # a tournament id: a snowflake of its own, on another shard than its guild
SEASON_A = -(2**62) - 1  # the first bank season's scope number (V5-V9 counted down from -2**62)
SEASON_B = -(2**62) - 2
PLAIN, PRACTICE, PRACTICE_OTHER, TOURNEY_TABLE, SEASON_TABLE = 11, 12, 13, 14, 15
ANN, BOB, BOT = 1, 2, -2001


async def sit(store: TableStore, table: int, seq: int, bank: Account, chips: int) -> None:
    """A buy-in as the table service commits it (bank -> stack with the action), the old bank key as it is."""
    assert bank.user_id is not None
    await store.commit_action(table, seq, "sit", "[]", transfer(bank, Account.stack(table, bank.user_id), chips))


async def build_v8(database: str) -> None:
    async with storage_for(database, target_version=8) as v8:
        ledger, store = ChipLedger(v8), TableStore(v8)
        # the guild's own chips and a plain table
        for user in (ANN, BOB):
            await ledger.ensure_player(G, user)
        await ledger.claim_daily(G, ANN)
        config = TableConfig.build().to_json()
        await store.open_table(PLAIN, guild_id=G, channel_id=PLAIN, host_id=ANN, config=config)
        await sit(store, PLAIN, 1, Account.bank(G, ANN), 100)
        # practice chips: tables stored with -G, banks bank:-G:U funded from issued:-G
        practice = TableConfig.build(practice=True).to_json()
        for table, guild in ((PRACTICE, G), (PRACTICE_OTHER, OTHER)):
            await ledger.ensure_player(-guild, ANN)  # journal start:-G:1
            await ledger.grant(-guild, BOT, 500, actor="system", reason="computer player buy-in", key=f"fund:{table}")
            await store.open_table(table, guild_id=-guild, channel_id=table, host_id=ANN, config=practice)
            await sit(store, table, 1, Account.bank(-guild, ANN), 200)
            await sit(store, table, 2, Account.bank(-guild, BOT), 200)
        await store.commit_action(
            PRACTICE, 3, "ante", "[]", transfer(Account.stack(PRACTICE, BOT), Account.tops(PRACTICE, "singles"), 4)
        )
        # a tournament: buy-ins to escrow, the fee to the house, its chips in scope T, a table stored with guild T
        repo = TournamentRepository()
        t = Tournament(
            tournament_id=T,
            guild_id=G,
            channel_id=99,
            host_id=ANN,
            config=TournamentConfig(buy_in=100, fee=10, seats=2),
            status=Status.RUNNING,
            created_ms=1,
            seed=5,
            started_ms=2,
        )
        async with v8.transaction() as tx:
            await repo.put_tournament(tx, t)
            for n, user in enumerate((ANN, BOB), start=1):  # the V8 row (no later column such as V14's end_stack)
                await tx.execute(
                    "INSERT INTO tournament_entries (tournament_id, entry_id, player_id, entry_no, status, table_no, "
                    "moves, away, created_ms) VALUES (?, ?, ?, 1, 'alive', 1, 0, 0, 3)",
                    (T, n, user),
                )
            await tx.execute(
                "INSERT INTO tournament_tables (tournament_id, table_no, table_id, status, final, hand_stacks) "
                "VALUES (?, 1, ?, 'open', 0, '{}')",
                (T, TOURNEY_TABLE),
            )
        for user in (ANN, BOB):
            await ledger.transact(
                transfer(Account.bank(G, user), Account.escrow(T), 100),
                key=f"tny:{T}:buyin:{user}",
                reason="tournament buy-in",
            )
            await ledger.transact(
                transfer(Account.issued(T), Account.bank(T, user), 300), key=f"tny:{T}:chips:{user}", reason="chips"
            )
        await ledger.transact(transfer(Account.escrow(T), Account.house(G), 20), key=f"tny:{T}:fees", reason="fees")
        await store.open_table(TOURNEY_TABLE, guild_id=T, channel_id=98, host_id=ANN, config=config)
        for seq, user in enumerate((ANN, BOB), start=1):
            await sit(store, TOURNEY_TABLE, seq, Account.bank(T, user), 300)
        # two bank seasons: negative scopes, their settings rows, banks issued once, a table naming its scope
        async with v8.transaction() as tx:
            for number, scope, status in ((1, SEASON_A, "ended"), (2, SEASON_B, "active")):
                await tx.execute(
                    "INSERT INTO league_seasons (guild_id, number, name, mode, starting_chips, scope_id, status, "
                    "started_at, ends_at, ended_at, champion_id, role_id) VALUES (?, ?, ?, 'bank', 800, ?, ?, 1, NULL, "
                    "NULL, NULL, NULL)",
                    (G, number, f"S{number}", scope, status),
                )
                await tx.put_settings(
                    GuildSettings(guild_id=scope, starting_chips=0 if status == "ended" else 800, daily_amount=0), 1.0
                )
        await ledger.ensure_player(SEASON_B, ANN)  # journal start:<SEASON_B>:1
        season_config = json.dumps({**json.loads(config), "bank_scope": SEASON_B})
        await store.open_table(SEASON_TABLE, guild_id=G, channel_id=SEASON_TABLE, host_id=ANN, config=season_config)
        await sit(store, SEASON_TABLE, 1, Account.bank(SEASON_B, ANN), 150)
        assert (await ledger.audit()).ok


NEW_KEYS = {
    f"bank:{-G}:{ANN}": f"bank:practice:{G}:{ANN}",
    f"bank:{-G}:{BOT}": f"bank:practice:{G}:{BOT}",
    f"issued:{-G}": f"issued:practice:{G}",
    f"bank:{-OTHER}:{ANN}": f"bank:practice:{OTHER}:{ANN}",
    f"bank:{-OTHER}:{BOT}": f"bank:practice:{OTHER}:{BOT}",
    f"issued:{-OTHER}": f"issued:practice:{OTHER}",
    f"bank:{T}:{ANN}": f"bank:tournament:{T}:{ANN}",
    f"bank:{T}:{BOB}": f"bank:tournament:{T}:{BOB}",
    f"issued:{T}": f"issued:tournament:{T}",
    f"bank:{SEASON_B}:{ANN}": f"bank:season:2:{ANN}",
    f"issued:{SEASON_B}": "issued:season:2",
}


async def balances_by_key(storage: object) -> dict[str, int]:
    async with storage.transaction(write=False) as tx:  # type: ignore[attr-defined]
        return {str(k): int(b) for k, b in await tx.fetchall("SELECT key, balance FROM accounts")}


async def test_v10_moves_every_scope_without_changing_a_balance(database: str) -> None:
    await build_v8(database)
    async with storage_for(database, target_version=8) as v8:
        before = await ChipLedger(v8).audit()
        old = await balances_by_key(v8)
    assert set(NEW_KEYS) <= set(old)

    async with storage_for(database) as latest:
        ledger, store = ChipLedger(latest), TableStore(latest)
        after = await ledger.audit()
        assert after.ok and after.summary() == before.summary()
        assert after.facts == before.facts  # accounts, journals, postings, totals: all the same
        new = await balances_by_key(latest)
        assert new == {NEW_KEYS.get(k, k): b for k, b in old.items()}  # re-keyed, each balance kept

        # the scope is explicit; guild_id is the guild
        rows = {n: await store.get_table(n) for n in (PLAIN, PRACTICE, PRACTICE_OTHER, TOURNEY_TABLE, SEASON_TABLE)}
        scopes = {n: (r.guild_id, r.bank_scope) for n, r in rows.items() if r is not None}
        assert scopes == {
            PLAIN: (G, BankScope.guild(G)),
            PRACTICE: (G, BankScope.practice(G)),
            PRACTICE_OTHER: (OTHER, BankScope.practice(OTHER)),
            TOURNEY_TABLE: (G, BankScope.tournament(T)),
            SEASON_TABLE: (G, BankScope.season(2)),
        }
        assert "bank_scope" not in json.loads(rows[SEASON_TABLE].config)  # type: ignore[union-attr]
        async with latest.transaction(write=False) as tx:
            seasons = await tx.fetchall("SELECT number, scope_id FROM league_seasons ORDER BY number")
            settings = await tx.fetchall("SELECT guild_id FROM guild_settings WHERE guild_id < 0")
            kinds = await tx.fetchall("SELECT key, scope_kind FROM accounts WHERE scope_kind IS NOT NULL ORDER BY key")
        assert [tuple(r) for r in seasons] == [(1, 1), (2, 2)]  # renumbered in the order they were created
        assert settings == []  # scope settings moved to scope_settings
        assert {str(k): str(v) for k, v in kinds} == {new_key: new_key.split(":")[1] for new_key in NEW_KEYS.values()}
        assert await ledger.scope_chips(BankScope.season(2)) == (800, 0)
        assert await ledger.scope_chips(BankScope.season(1)) == (0, 0)

        # nobody is issued a scope's starting chips again: the start:<scope>:U keys moved with the accounts
        assert await ledger.ensure_player(BankScope.practice(G), ANN) == old[f"bank:{-G}:{ANN}"] == 800
        assert await ledger.ensure_player(BankScope.season(2), ANN) == old[f"bank:{SEASON_B}:{ANN}"] == 650
        assert await ledger.ensure_player(BankScope.practice(G), BOB) == 1000  # a newcomer to G's practice chips
        assert await ledger.leaderboard(G, 10) == [(ANN, old[f"bank:{G}:{ANN}"]), (BOB, old[f"bank:{G}:{BOB}"])]
        assert (await ledger.audit()).ok

        # the tables load with their scopes and close into them; the practice chips of G and OTHER stay apart
        loaded = {t.table_id: t.row.bank_scope for t in await store.load_open_tables()}
        assert loaded == {n: scope for n, (_, scope) in scopes.items()}
        await store.close_table(PRACTICE)
        assert await ledger.balance(BankScope.practice(G), BOT) == old[f"bank:{-G}:{BOT}"] + 196
        assert await ledger.balance(BankScope.practice(OTHER), BOT) == old[f"bank:{-OTHER}:{BOT}"]
        assert (await ledger.balances([Account.issued(BankScope.practice(G))])).popitem()[1] == (
            old[f"issued:{-G}"] - 1000 + 4  # BOB's starting chips above; the tops back
        )
        await store.close_table(SEASON_TABLE)
        assert await ledger.balance(BankScope.season(2), ANN) == 800
        await store.close_table(TOURNEY_TABLE)
        assert await ledger.balance(BankScope.tournament(T), BOB) == 300
        assert (await ledger.audit()).ok

        # the books are still append-only
        async with latest.transaction() as tx:
            with pytest.raises(database_errors(), match="append_only"):
                await raw_execute(tx, "UPDATE postings SET delta = delta")
        async with latest.transaction() as tx:
            with pytest.raises(database_errors(), match="append_only"):
                await raw_execute(tx, "UPDATE journals SET reason = reason")
        async with latest.transaction(write=False) as tx:
            start = await tx.find_journal(f"start:practice:{G}:{ANN}")
        assert start is not None and start.postings == (
            Posting(Account.issued(BankScope.practice(G)), -1000),
            Posting(Account.bank(BankScope.practice(G), ANN), 1000),
        )


async def test_after_v10_a_guilds_shard_owns_its_practice_and_tournament_tables(database: str) -> None:
    """Routing follows the guild: the process owning G's shard loads G's plain, practice, tournament and season
    tables (the old practice table's -G and tournament table's T mapped to other shards)."""
    await build_v8(database)
    async with storage_for(database) as latest:
        store = TableStore(latest)
        shards = ShardSet(4, (ShardSet(4, (0,)).shard_of(G),))
        await store.take_leases(shards, "test")
        loaded = {t.table_id for t in await store.load_open_tables()}
        assert loaded == {PLAIN, PRACTICE, TOURNEY_TABLE, SEASON_TABLE}  # OTHER (shard 3) is another process's
        assert shards.shard_of(OTHER) not in shards.ids and shards.shard_of(T) not in shards.ids
        for table in loaded:  # every write of them passes the lease check
            await store.merge_meta(table, "names", {"1": "Ann"})
