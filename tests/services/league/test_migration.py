"""Upgrades of databases with chips and league data: V5 (the league's tables), V8 (results on journals)."""

from __future__ import annotations

from pathlib import Path

from pancog.infra.storage import storage_for
from pancog.services.league import LeagueService
from pancog.services.ledger import ChipLedger

from .conftest import GUILD, Clock, fresh_database


async def test_a_v4_database_with_chips_upgrades_to_the_league(
    backend: str, server_url: str | None, tmp_path: Path
) -> None:
    async with fresh_database(backend, tmp_path, server_url) as target:
        async with storage_for(target, target_version=4) as v4:
            assert await v4.schema_version() == 4
            await ChipLedger(v4).grant(GUILD, 7, 500, actor="system", reason="before the league")
        async with storage_for(target) as upgraded:
            assert await upgraded.schema_version() >= 5  # the latest (later migrations may follow the league's)
            ledger = ChipLedger(upgraded)
            assert await ledger.balance(GUILD, 7) == 500
            league = LeagueService(upgraded, ledger, clock=Clock())
            season = await league.start_season(GUILD, "First")
            assert season.number == 1 and (await league.season_info(GUILD)).standings == ()
            assert (await ledger.audit()).ok


async def test_v8_moves_results_onto_the_journals_without_counting_old_ones_again(
    backend: str, server_url: str | None, tmp_path: Path
) -> None:
    """A V7 database whose league recorded a hand the V7 way (result row and stats written by the settlement):
    after V8 the journals cursor starts after every existing journal, so the drain counts that hand once, and a new
    hand arrives through its journal row."""
    from pancog.services.league import repo
    from pancog.services.league.service import stat_rows

    from .test_seasons import hand

    old = hand(1, [2])
    async with fresh_database(backend, tmp_path, server_url) as target:
        async with storage_for(target, target_version=7) as v7, v7.transaction() as tx:
            journal = await tx.insert_journal(
                key="table:7:seq:9", reason="Discard", actor="1", table_id=None, created_at=1.0
            )
            assert journal is not None
            await repo.insert_results(tx, [(old.key, journal, GUILD, 0, "hand", 7, old.hand_no, 1, old.encode())])
            await repo.add_stats(tx, stat_rows(GUILD, 0, old))
        async with storage_for(target) as upgraded:
            assert await upgraded.schema_version() >= 8
            async with upgraded.transaction(write=False) as tx:
                assert await repo.get_cursor(tx, "journals") == journal
            league = LeagueService(upgraded, ChipLedger(upgraded), clock=Clock())
            assert (await league.player_card(GUILD, 1)).all_time.hands_dealt == 1  # drained: not counted again
            assert await league.record_hand(GUILD, hand(1, [2]))
            card = await league.player_card(GUILD, 2)
            assert (card.all_time.hands_dealt, card.all_time.net) == (2, -20)
