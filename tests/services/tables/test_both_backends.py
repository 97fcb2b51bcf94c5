"""The table service end to end on both backends: a scripted hand, a restart from the log, close and cash out.

The service code is identical on SQLite and PostgreSQL; this proves the backend contract is enough for it
(scenario and helpers from tests/services/tables/test_service.py).
"""

from __future__ import annotations

from pancog.game.actions import Knock
from pancog.infra.storage import storage_for
from pancog.services.tables import TableService
from tests.e2e.scenarios import TWO_SHOE
from tests.services.tables.test_service import CHANNEL, GUILD, TABLE, A, B, Env, open_two, play_two_player_hand


async def test_hand_restart_and_close_on_each_backend(database: str) -> None:
    async with storage_for(database) as storage:
        env = Env(storage)
        await open_two(env)
        await play_two_player_hand(env)
        env.service.stack_next_hand(TABLE, TWO_SHOE, first_seat=1)
        await env.service.start_hand(TABLE, A)
        await env.service.act(TABLE, B, lambda s: Knock(seat=s))
        live = env.service.get(TABLE).state
    async with storage_for(database) as reopened:  # a restarted process
        env = Env(reopened)
        assert await env.service.load() == 1
        assert env.service.get(TABLE).state == live
        assert env.service.in_channel(CHANNEL).table_id == TABLE
        assert await env.service.check_books(TABLE) == []
        assert await TableService(env.ledger, env.store).load() == 1
        await env.service.close(TABLE, A)
        assert await env.ledger.balance(GUILD, A) + await env.ledger.balance(GUILD, B) == 2000
        report = await env.ledger.audit()
        assert report.ok, report.summary()
