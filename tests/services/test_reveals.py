"""Revealing a finished hand to its players (pancog/services/reveals.py): every player of the hand must agree;
the consents are stored in the table's meta and survive a new service (a restart)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pancog.game import engine
from pancog.game.actions import GoOnTop, Knock
from pancog.infra.storage import SqliteStorage
from pancog.services.ledger import ChipLedger
from pancog.services.replay import HandNotFound, ReplayService
from pancog.services.reveals import HandNotOver, NotDealtIn, RevealService
from pancog.services.store import TableStore
from pancog.services.tables import TableConfig, TableService, seeded_deals

TABLE, GUILD = 71, 70
ANA, BO, CY = 1, 2, 3


@pytest.fixture
async def tables(tmp_path: Path) -> AsyncIterator[tuple[TableService, TableStore]]:
    async with SqliteStorage(tmp_path / "pan.sqlite3") as storage:
        store = TableStore(storage)
        service = TableService(ChipLedger(storage), store, dealer=seeded_deals(3))
        await service.open_table(TABLE, guild_id=GUILD, channel_id=TABLE, host_id=ANA, config=TableConfig.build())
        for user in (ANA, BO):
            await service.join(TABLE, user)
        yield service, store


async def test_reveal_waits_for_every_player_of_the_hand(tables: tuple[TableService, TableStore]) -> None:
    service, store = tables
    reveals = RevealService(store, ReplayService(store))
    await service.start_hand(TABLE, ANA)
    with pytest.raises(HandNotOver):  # the hand in progress is never revealed
        await reveals.consent(TABLE, 1, ANA)
    for make in (Knock, GoOnTop):  # one knocks, the other goes on top: the hand is over
        seat = engine.to_act(service.get(TABLE).state)
        assert seat is not None
        await service.system_act(TABLE, make(seat=seat))
    assert service.get(TABLE).state.hand is None
    with pytest.raises(NotDealtIn):
        await reveals.consent(TABLE, 1, CY)
    with pytest.raises(HandNotFound):
        await reveals.consent(TABLE, 9, ANA)
    first = await reveals.consent(TABLE, 1, ANA)
    assert first.waiting == {BO} and reveals.revealed_to(TABLE, 1) == frozenset()
    done = await reveals.consent(TABLE, 1, BO)
    assert done.complete and reveals.revealed_to(TABLE, 1) == {ANA, BO}
    again = RevealService(store, ReplayService(store))  # a restart: read back from the table's meta
    assert again.revealed_to(TABLE, 1) == frozenset()  # nothing known before it is loaded
    await again.load(TABLE)
    assert again.revealed_to(TABLE, 1) == {ANA, BO}
