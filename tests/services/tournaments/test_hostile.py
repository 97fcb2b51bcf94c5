"""Hostile input to a running tournament through the service: each refusal changes nothing."""

from __future__ import annotations

import pytest

from pancog.services.tournaments.errors import AlreadySeated
from pancog.services.tournaments.levels import default_antes
from pancog.services.tournaments.model import EntryStatus, Format, Status, Tournament, TournamentConfig
from pancog.services.tournaments.service import PlayerOut
from tests.services.tournaments.test_service import GUILD, T_ID, Env, bot, check_books


async def test_registering_while_still_seated_at_a_table_of_the_event_is_refused(
    sqlite_storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player put out whose seat is not cleared yet (here the step that clears it fails) cannot re-enter: a second
    entry would sit twice and inherit the first one's leftover chips instead of a starting stack. The refusal stores
    nothing; once the seat is cleared, the re-entry is seated with a full stack."""
    env = Env(sqlite_storage, hand_seconds=60)
    cfg = TournamentConfig(
        format=Format.SCHEDULED,
        buy_in=50,
        seats=4,
        starting_stack=100,
        antes=default_antes(10),
        level_minutes=30,
        start_at_ms=int(env.clock.now * 1000) + 60_000,
        late_levels=3,
        max_entries=2,
        preset="classic",
    )
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in range(1, 9):
        await env.service.register(T_ID, bot(n))
    env.clock.now += 61
    await env.service.tick()
    t = env.service.get(T_ID)
    floor = env.service._floor
    real_clear_out = floor.clear_out
    stuck: list[int] = []
    failing = [True]

    async def clear_out(tournament: Tournament) -> None:
        if stuck and failing:
            raise RuntimeError("the step that clears seats failed")
        await real_clear_out(tournament)

    monkeypatch.setattr(floor, "clear_out", clear_out)

    def on_event(event: object) -> None:
        if isinstance(event, PlayerOut) and event.can_reenter and not stuck and failing:
            stuck.append(event.player_id)

    env.service.subscribe(on_event)
    for _ in range(200):
        await env.settle()
        if stuck:
            break
        env.clock.now += 30
        await env.service.tick()
    assert stuck, "someone was put out"
    (player,) = stuck
    assert floor.seated_at(t, player) is not None  # out, but the seat is not cleared
    entries, bank = len(t.entries), await env.ledger.balance(GUILD, player)
    with pytest.raises(AlreadySeated):
        await env.service.register(T_ID, player)
    assert len(t.entries) == entries and await env.ledger.balance(GUILD, player) == bank

    failing.clear()  # the seat is cleared at the next step
    await env.service.tick()
    assert floor.seated_at(t, player) is None
    again = await env.service.register(T_ID, player)
    await env.settle()
    assert again.status in (EntryStatus.ALIVE, EntryStatus.OUT) and len(t.entries_of(player)) == 2
    assert t.status is Status.RUNNING or t.status is Status.FINISHED
    await check_books(env, T_ID)
