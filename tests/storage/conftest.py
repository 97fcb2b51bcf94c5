from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from storage_kit import GUILD, TABLE, Clock

from pancog.ledger import ChipLedger
from pancog.storage import SqliteStorage
from pancog.store import TableStore


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "pan.sqlite3"


@pytest.fixture
async def storage(db_path: Path) -> AsyncIterator[SqliteStorage]:
    async with SqliteStorage(db_path) as opened:
        yield opened


@pytest.fixture
def ledger(storage: SqliteStorage, clock: Callable[[], float]) -> ChipLedger:
    return ChipLedger(storage, clock=clock)


@pytest.fixture
def store(storage: SqliteStorage, clock: Callable[[], float]) -> TableStore:
    return TableStore(storage, clock=clock)


@pytest.fixture
async def table(store: TableStore, ledger: ChipLedger) -> int:
    """An open table in GUILD with players 11, 12, 13 seated with 200 chips each."""
    await store.open_table(TABLE, guild_id=GUILD, channel_id=TABLE, host_id=11, config='{"preset": "standard"}')
    for user in (11, 12, 13):
        await ledger.buy_in(TABLE, user, 200, key=f"sit:{user}")
    return TABLE
