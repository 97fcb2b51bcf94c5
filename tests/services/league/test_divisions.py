"""Divisions (rating bands, top-N splits) kept in step with the ratings, their roles owed through the outbox once
per change (V15), on both backends."""

from __future__ import annotations

import pytest

from pancog.services.league import ROLE_GRANT, ROLE_REMOVE, Division, SeasonInputError
from pancog.services.league.divisions import place_divisions

from .conftest import GUILD, Env
from .test_season_roles import with_outbox
from .test_seasons import hand


def test_the_first_division_that_takes_a_player_is_his() -> None:
    divisions = [Division(name="Top", top=1), Division(name="Gold", floor=500), Division(name="Rest", floor=-(10**9))]
    ranked = [(1, 900), (2, 800), (3, 100)]
    assert place_divisions(ranked, divisions) == {1: "Top", 2: "Gold", 3: "Rest"}
    assert place_divisions(ranked, divisions[:2]) == {1: "Top", 2: "Gold"}  # 3: in none


async def test_roles_follow_the_ratings_once_per_change(backend_env: Env) -> None:
    league, outbox = with_outbox(backend_env)
    with pytest.raises(SeasonInputError):
        await league.set_division(GUILD, "Gold")  # neither a band nor a top
    await league.configure(GUILD, established=2)
    await league.set_division(GUILD, "Rest", min_rating=-1000.0, role_id=70)
    settings = await league.set_division(GUILD, "Top", top=1, role_id=71)
    assert [d.name for d in settings.divisions] == ["Top", "Rest"]  # best first
    for _ in range(2):
        await league.record_hand(GUILD, hand(1, [2]))
    await league.record_hand(GUILD, hand(3, [2]))  # 3: one rated result, not established
    assert await league.sync_divisions(GUILD) == 2
    assert await league.divisions_of(GUILD) == {1: "Top", 2: "Rest"}
    assert await league.sync_divisions(GUILD) == 0  # in step: nothing owed again
    items = await outbox.items(GUILD, prefix="division:")
    assert sorted((i.kind, i.payload["user_id"], i.payload["role_id"]) for i in items) == [
        (ROLE_GRANT, 1, 71),
        (ROLE_GRANT, 2, 70),
    ]
    for _ in range(6):  # 2 wins and overtakes 1: they swap
        await league.record_hand(GUILD, hand(2, [1]))
    assert await league.sync_divisions(GUILD) == 2
    assert await league.divisions_of(GUILD) == {1: "Rest", 2: "Top"}
    items = await outbox.items(GUILD, prefix="division:")
    moved = sorted(
        (i.kind, i.payload["user_id"], i.payload["role_id"]) for i in items if i.key.split(":")[3] == "2"
    )  # each one's 2nd change
    assert moved == [(ROLE_GRANT, 1, 70), (ROLE_GRANT, 2, 71), (ROLE_REMOVE, 1, 71), (ROLE_REMOVE, 2, 70)]
    await league.set_division(GUILD, "Rest", remove=True)
    assert await league.sync_divisions(GUILD) == 1 and await league.divisions_of(GUILD) == {2: "Top"}
    assert await league.division_guilds() == [GUILD]
