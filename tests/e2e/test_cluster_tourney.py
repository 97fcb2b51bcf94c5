"""Practice tables and tournaments in a cluster: 2 ``bot.py`` processes over 4 shards on one PostgreSQL, the fake's
sharded gateway. In a guild of the second process a member plays a practice hand and a two-table tournament of
computer players runs; a guild of the first process runs a tournament too. The second process is SIGKILLed mid-hand
and mid-tournament; the launcher restarts it and it resumes its own table and tournament (only its own: the first
process keeps its tournament), every hand and both tournaments finish, and:

- the audit balances (read from the database and ``/panadmin audit`` in both guilds), every prize equals the pool;
- each tournament ticks on exactly one process: the restarted process resumes 1 tournament, not both; every table
  of a tournament got exactly one thread (no tick created a thread and then failed, no second process opened one);
- the restarted process never crash-loops (restarted once, no traceback, no ERROR in any log).

It reproduces what broke on such a cluster before bank scopes: ``/pan practice`` answered "Something went wrong"
(the practice table's guild -G lived on the other process's shard), a tournament whose id mapped to the other
process's shard never opened a table and made a thread per tick, and a restart resumed every guild's tournaments.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from pancog.game import engine
from pancog.infra.storage import Account, BankScope, PostgresStorage, storage_for
from pancog.services.ledger import ChipLedger
from pancog.services.tournaments.model import Status, Tournament
from pancog.services.tournaments.repository import TournamentRepository
from tests.e2e.test_cluster_kill import (
    SHARDS,
    cluster_launcher,
    kill_mid_move,
    print_evidence,
    read_tables,
    wait_connected,
)
from tests.e2e.test_kill_restart import greedy_command
from tests.fakediscord.harness import Harness
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.fakediscord.server import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]
KILL_AFTER = 3  # the practice player's moves before the SIGKILL (one of them in flight)
BUY_IN, ENTRIES = 100, 5  # 5 computer players at tables of 4: two tables, then a final table
DEADLINE = 300.0


async def tournaments(storage: PostgresStorage) -> dict[int, Tournament]:
    """Every tournament as stored, by its channel."""
    async with storage.transaction(write=False) as tx:
        found = await TournamentRepository().load(tx, active_only=False)
    return {t.channel_id: t for t in found}


async def hands_of(storage: PostgresStorage, t: Tournament) -> int:
    ids = [tt.table_id for tt in t.tables.values()]
    if not ids:
        return 0
    async with storage.transaction(write=False) as tx:
        rows = await tx.fetchall(
            f"SELECT COUNT(*) FROM actions WHERE action LIKE 'start%' AND table_id IN ({', '.join('?' * len(ids))})",  # noqa: S608
            ids,
        )
    return int(rows[0][0])


async def start_tournament(harness: Harness, host: FakeUser, channel: FakeChannel) -> None:
    await harness.slash(
        host,
        "tourney create",
        channel=channel,
        format="scheduled",
        seats=4,
        start="+60",
        buy_in=BUY_IN,
        antes="10,20,40,80,160,320,640,1280",
        level_minutes=0.2,
        starting_stack=100,
    )
    await harness.slash(host, "tourney addbots", channel=channel, count=ENTRIES, level="easy")
    reply = await harness.slash(host, "tourney start", channel=channel)
    assert reply.ephemeral, reply.text


async def test_practice_and_tournaments_survive_a_killed_cluster_process(tmp_path: Path, postgres_url: str) -> None:
    fake = FakeDiscord(shards=SHARDS)
    harness = Harness(fake, members=2)
    first_host, player = harness.users
    # process 1 runs shards 1 and 3 (strided): the second guild is on shard 1
    first = fake.add_guild("first process", channels=("tourney",), members=[first_host], shard=0)
    second = fake.add_guild(
        "second process", channels=("pan", "tourney"), members=[player], shard=1
    )  # process 1 runs shards 1 and 3 (strided)
    practice_channel, second_tourney = second.channels
    (first_tourney,) = first.channels
    await fake.start()
    logs: list[Path] = []
    launcher = cluster_launcher(
        fake,
        postgres_url,
        tmp_path,
        logs,
        PAN_LOG_LEVEL="INFO",  # the start-up lines say how many tournaments each process resumed
        PAN_DEAL_SEED="23",
        PAN_BOT_DELAY="0",
        PAN_BOT_NEXT_HAND_DELAY="off",  # one practice hand: the next waits for Start
        PAN_TOURNEY_TICK="0.2",
    )
    storage = storage_for(postgres_url)
    assert isinstance(storage, PostgresStorage)
    launcher.start()
    try:
        await wait_connected(fake, launcher)
        await storage.open()
        reply = await harness.slash(player, "pan practice", channel=practice_channel, opponents=1)
        # it used to answer "Something went wrong": the table's guild was -G, on the other process's shard
        assert any(m.ephemeral and "practice chips" in m.text for m in reply.all_messages), reply.text
        await start_tournament(harness, player, second_tourney)
        await start_tournament(harness, first_host, first_tourney)
        victim = launcher.specs[1]  # shards 1 and 3: the second guild
        assert victim.process is not None
        victim_pid = victim.process.pid
        moves = kills = 0
        deadline = time.monotonic() + DEADLINE
        while True:
            assert time.monotonic() < deadline, "the hands and tournaments never ended"
            states, problems = await read_tables(storage)
            assert problems == [], problems
            found = await tournaments(storage)
            practice = states.get(practice_channel.id)
            assert practice is not None
            over = {c: t.status in (Status.FINISHED, Status.CANCELLED) for c, t in found.items()}
            if practice.hand is None and len(over) == 2 and all(over.values()):
                break
            to_act = None if practice.hand is None else engine.to_act(practice)
            seated = practice.seats[to_act] if to_act is not None else None
            if seated is None or seated.player_id != player.id:
                await asyncio.sleep(0.05)  # the computer player's turn, or the hand is over
                continue
            _, command, options = greedy_command(practice)
            moves += 1
            running = found.get(second_tourney.id)
            midway = running is not None and running.status is Status.RUNNING and await hands_of(storage, running) >= 2
            if kills == 0 and moves >= KILL_AFTER and midway:
                await kill_mid_move(
                    fake, launcher, harness.slash(player, command, channel=practice_channel, settle=False, **options)
                )
                kills += 1
                continue  # re-read: the killed move may or may not have committed
            await harness.slash(player, command, channel=practice_channel, **options)

        assert kills == 1 and victim.restarts == 1, "killed once and restarted once: no crash loop"
        assert victim.process is not None and victim.process.pid != victim_pid
        assert launcher.specs[0].restarts == 0
        states, problems = await read_tables(storage)
        assert problems == []
        practice = states[practice_channel.id]
        assert practice.hand is None and practice.hand_no == 1 and practice.last_hand is not None
        found = await tournaments(storage)
        ledger = ChipLedger(storage)
        for channel, guild in ((first_tourney, first), (second_tourney, second)):
            t = found[channel.id]
            assert t.status is Status.FINISHED and t.guild_id == guild.id
            assert sum(e.prize or 0 for e in t.entries.values()) == ENTRIES * BUY_IN
            escrow = await ledger.balances([Account.escrow(t.tournament_id)])
            assert escrow == {Account.escrow(t.tournament_id): 0}
            assert len(t.tables) >= 3  # two tables, then the final table
            threads = [c for c in fake.calls if c.route == "POST /channels/{channel_id}/threads" and c.status < 300]
            made = [c for c in threads if c.channel_id == channel.id]
            assert len(made) == len(t.tables), (channel.name, len(made), len(t.tables))  # one thread per table
        assert await ledger.balance(BankScope.practice(second.id), player.id) > 0  # practice chips, apart
        report = await ledger.audit()
        assert report.ok, report.summary()
        for host, channel in ((first_host, first_tourney), (player, practice_channel)):
            reply = await harness.slash(host, "panadmin audit", channel=channel)
            assert reply.text.startswith("Ledger audit: OK"), reply.text
    except BaseException:
        print_evidence(fake, launcher, logs)
        raise
    finally:
        launcher.stop(grace=5)
        await storage.close()
        await fake.stop()
    texts = {log.name: log.read_text(errors="replace") for log in logs}
    everything = "\n".join(texts.values())
    assert "Traceback" not in everything and " ERROR " not in everything, everything[-4000:]
    restarted = texts[logs[-1].name]
    assert logs[-1].name.startswith("bot-1-") and "tournaments resumed: 1" in restarted, restarted[-2000:]
    assert fake.unhandled == [] and fake.violations == []
