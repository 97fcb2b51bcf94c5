"""Display names kept across restarts (pancog/services/names.py) on both backends: written in batches and only when
they changed, read back by a new process, per guild (a practice table reads its guild's), computer players never
stored."""

from __future__ import annotations

import json

from pancog.services.names import Names
from tests.support.storage import AnyStorage, Clock

GUILD, OTHER = 10, 20


async def stored(storage: AnyStorage) -> list[tuple[int, int, str]]:
    async with storage.transaction(write=False) as tx:
        rows = await tx.fetchall("SELECT guild_id, user_id, name FROM member_names ORDER BY guild_id, user_id")
    return [(int(g), int(u), str(n)) for g, u, n in rows]


async def test_names_are_written_in_a_batch_and_only_when_they_changed(storage: AnyStorage, clock: Clock) -> None:
    names = Names(storage, clock=clock, flush_delay=60.0)
    names.seen(GUILD, 1, "alice")
    names.seen(GUILD, 2, "bob")
    names.seen(OTHER, 1, "Alice in the other server")
    names.seen(GUILD, -3, "🤖 Easy bot 3")  # a computer player: never stored
    assert names.get(GUILD, 1) == "alice" and names.pending == 3
    assert await stored(storage) == []  # nothing written on the way (the timer is a minute away)
    assert await names.flush() == 3
    assert await stored(storage) == [(GUILD, 1, "alice"), (GUILD, 2, "bob"), (OTHER, 1, "Alice in the other server")]
    for _ in range(100):  # seen again and again, unchanged: no write, nothing pending
        names.seen(GUILD, 1, "alice")
    assert names.pending == 0 and await names.flush() == 0 and names.writes == 3
    names.seen(GUILD, 1, "alice2")
    names.seen(GUILD, 1, "alice")  # changed and back before the flush: nothing to write
    assert await names.flush() == 0
    names.seen(GUILD, 2, "bobby")
    assert await names.flush() == 1
    assert (GUILD, 2, "bobby") in await stored(storage)


async def test_a_new_process_reads_the_names_back_and_a_practice_table_reads_its_guilds(
    storage: AnyStorage, clock: Clock
) -> None:
    first = Names(storage, clock=clock)
    first.seen(GUILD, 1, "alice")
    first.seen(-GUILD, 2, "bob")  # seen at the guild's practice table: the guild's name
    await first.close()  # a shutdown writes what is pending
    later = Names(storage, clock=clock)
    assert later.get(GUILD, 1) is None  # nothing read until asked
    assert await later.fetch(GUILD, [1, 2, 3, -4, None]) == {1: "alice", 2: "bob"}
    view = later.of(-GUILD)
    assert view.get(1) == "alice" and view.get(3) is None and 2 in view and dict(view) == {1: "alice", 2: "bob"}
    assert await later.fetch(OTHER, [1]) == {}


async def test_a_fresh_name_beats_a_stored_one_and_is_not_read_over(storage: AnyStorage, clock: Clock) -> None:
    old = Names(storage, clock=clock)
    old.seen(GUILD, 1, "old name")
    await old.flush()
    new = Names(storage, clock=clock, flush_delay=60.0)
    new.seen(GUILD, 1, "new name")
    assert await new.fetch(GUILD, [1]) == {1: "new name"}  # the fetch does not overwrite what was just seen
    assert await new.flush() == 1
    assert await stored(storage) == [(GUILD, 1, "new name")]


async def test_the_cache_stays_within_its_capacity_and_never_drops_an_unwritten_name(
    storage: AnyStorage, clock: Clock
) -> None:
    names = Names(storage, clock=clock, flush_delay=60.0, capacity=50)
    for user in range(1, 201):
        names.seen(GUILD, user, f"p{user}")
    await names.flush()
    assert len(names._cache) <= 50
    assert await names.fetch(GUILD, range(1, 201)) == {u: f"p{u}" for u in range(1, 201)}


async def test_v9_copies_the_names_of_every_tables_meta_into_member_names(database: str, clock: Clock) -> None:
    """A V8 database whose tables carry names in their meta JSON (open and closed tables, a practice table, a
    computer player, a meta that is not JSON) migrates to V9: each member's name from the latest table, per guild;
    the outbox is there and empty."""
    from pancog.infra.storage import storage_for
    from pancog.services.store import TableStore

    async with storage_for(database, target_version=8) as old:
        store = TableStore(old, clock=clock)
        tables = [
            (1, GUILD, {"1": "alice (old)", "2": "bob", "-5": "🤖 Easy bot 5"}),
            (2, GUILD, {"1": "alice", "x": "not an id", "3": ""}),
            (3, -GUILD, {"4": "dora at practice"}),
            (4, OTHER, {"1": "Alice elsewhere"}),
            (5, OTHER, {}),
        ]
        for table_id, guild, names in tables:
            await store.open_table(table_id, guild_id=guild, channel_id=table_id, host_id=1, config="{}")
            async with old.transaction() as tx:  # what merge_meta wrote then (today's reads the V10 scope columns)
                meta = json.dumps({"names": names})
                await tx.execute("UPDATE tables SET meta = ? WHERE table_id = ?", (meta, table_id))
            clock.now += 10
        await store.open_table(6, guild_id=OTHER, channel_id=6, host_id=1, config="{}")
        async with old.transaction() as tx:
            await tx.execute("UPDATE tables SET status = 'closed', closed_at = ? WHERE table_id = 1", (clock.now,))
            await tx.execute("UPDATE tables SET meta = ? WHERE table_id = ?", ("{not json", 6))
            await tx.execute("UPDATE tables SET meta = ? WHERE table_id = ?", ('{"names": ["a"]}', 5))
    async with storage_for(database) as new:
        assert await new.schema_version() >= 9
        assert await stored(new) == [
            (GUILD, 1, "alice"),
            (GUILD, 2, "bob"),
            (GUILD, 4, "dora at practice"),
            (OTHER, 1, "Alice elsewhere"),
        ]
        names = Names(new, clock=clock)
        assert await names.fetch(-GUILD, [1, 4]) == {1: "alice", 4: "dora at practice"}
        async with new.transaction(write=False) as tx:
            assert await tx.fetchall("SELECT COUNT(*) FROM outbox") == [(0,)]


class _NoScan(dict[tuple[int, int], "str | None"]):
    """A names cache that refuses to be scanned: looking one name up is fine, listing them all is not."""

    def items(self):  # type: ignore[no-untyped-def,override]
        raise AssertionError("the whole names cache was scanned")


async def test_the_presenters_test_a_guilds_names_without_scanning_every_guilds(
    storage: AnyStorage, clock: Clock
) -> None:
    """A reply names players through ``names_at(session)``; the presenters' ``names or {}`` asked the view for its
    truth, i.e. its length, which scans the whole cache (every guild's names, up to its capacity) on every answer."""
    from pancog.adapter.presenters.hand import next_step, private_result
    from pancog.game import Rules, Sit, StartHand, apply, initial_state

    names = Names(storage, clock=clock, flush_delay=60.0)
    names.seen(GUILD, 1, "alice")
    names._cache = _NoScan(names._cache)
    view = names.of(GUILD)
    assert view and view.get(1) == "alice" and view.get(2) is None
    state = initial_state(Rules())
    for seat in range(3):
        state = apply(state, Sit(seat=seat, player_id=seat + 1, buy_in=100)).state
    state = apply(state, StartHand(seed=3, first_seat=0)).state
    assert next_step(state, 0, to_act=0, names=view)
    assert private_result(state, state, 0, [], to_act=0, names=view)
