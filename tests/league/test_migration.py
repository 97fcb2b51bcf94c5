"""V5 (the league's tables) upgrades a V4 database that holds chips, on both backends."""

from __future__ import annotations

from pathlib import Path

from pancog.league import LeagueService
from pancog.ledger import ChipLedger
from pancog.storage import storage_for

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
