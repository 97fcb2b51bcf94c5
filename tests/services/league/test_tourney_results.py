"""A finished tournament reaches the league with its prizes: its result rides on the prizes' journal row (the finish
hook), in the transaction that pays them, and the drain counts it once — also when the process dies right after that
commit (a new process's league drains it) and when the same result is offered again. Both backends."""

from __future__ import annotations

from pancog.ai import Level
from pancog.services.bots import BotDriver, BotSettings, computer_id
from pancog.services.league import LeagueService, repo
from pancog.services.league.digest import digests_from_log
from pancog.services.tables import TableConfig
from pancog.services.tournaments.levels import default_antes
from pancog.services.tournaments.model import Format, Status, TournamentConfig
from pancog.services.tournaments.service import TournamentService
from tests.services.league.conftest import GUILD, Env
from tests.support.wiring import wire_tournament_results

T_ID = 990_000_001
HUMANS = (101, 102)


async def play_sit_and_go(env: Env, tournaments: TournamentService, driver: BotDriver) -> None:
    """A 3-seat Sit & Go of the two humans (away: they go on top every hand) and one computer player, to its end."""
    cfg = TournamentConfig(format=Format.SNG, buy_in=100, seats=3, starting_stack=300, antes=default_antes(10))
    await tournaments.create(T_ID, guild_id=GUILD, channel_id=1, host_id=HUMANS[0], config=cfg)
    for user in HUMANS:
        await env.ledger.grant(GUILD, user, 500, actor="system", reason="test")
        await tournaments.register(T_ID, user)
        await tournaments.set_away(T_ID, user, True)
    await tournaments.register(T_ID, computer_id(Level.EASY, 1))  # full: it starts
    for _ in range(2000):
        await driver.drain()
        await tournaments.drain()
        if tournaments.get(T_ID).status is Status.FINISHED:
            return
        if not driver.busy() and not tournaments.busy():
            env.clock.now += 600  # the next level
            await tournaments.tick()
    raise AssertionError("the tournament did not finish")


async def test_a_finished_tournament_is_recorded_once_with_its_prizes(backend_env: Env) -> None:
    env = backend_env
    driver = BotDriver(env.tables, BotSettings(delay=0.0, next_hand_delay=None))
    tournaments = TournamentService(env.tables, clock=env.clock)
    wire_tournament_results(tournaments, env.league)
    driver.start()
    try:
        await play_sit_and_go(env, tournaments, driver)
    finally:
        await driver.stop()
        await tournaments.stop()
    t = tournaments.get(T_ID)
    expect = {e.player_id: (e.place, e.prize) for e in t.entries.values()}
    # the process "dies" here: nothing drained the league yet; a new process's league finds the result on the journal
    async with env.storage.transaction(write=False) as tx:
        rows = await tx.fetchall("SELECT result FROM journals WHERE idem_key = ?", (f"tny:{T_ID}:payouts",))
    assert len(rows) == 1 and f'"i":{T_ID}' in str(rows[0][0])
    fresh = LeagueService(env.storage, env.ledger, clock=env.clock)
    for user in HUMANS:
        place, prize = expect[user]
        card = await fresh.player_card(GUILD, user)
        assert (card.all_time.tourneys_played, card.all_time.tourneys_cashed, card.all_time.tourneys_won) == (
            1,
            int(prize > 0),
            int(place == 1),
        )
        # a tournament's hands are played for its own chips: not cash hands (no hands, no net, no hand ratings)
        assert (card.all_time.hands_dealt, card.all_time.net) == (0, 0), card.all_time
    # offered again (an import, a retry): the same key counts nothing twice
    assert not await fresh.record_tournament(GUILD, T_ID, [(u, expect[u][0]) for u in HUMANS])
    assert await env.league.drain() == 0
    for user in HUMANS:
        assert (await env.league.player_card(GUILD, user)).all_time.tourneys_played == 1
    # what an older version recorded for the tournament's tables (their hands as cash hands), and a rebuild: it derives
    # no cash hands from the tournament's tables and drops those
    async with env.storage.transaction() as tx:
        older = 0
        for table_id, _guild, config_text, tournament in await repo.all_tables(tx):
            assert tournament
            log_rows = await repo.table_log(tx, table_id)
            actions = [action for _, action, _, _ in log_rows]
            for position, hand in digests_from_log(table_id, TableConfig.from_json(config_text).rules(), actions):
                _, _, journal, created = log_rows[position - 1]
                row = (hand.key, journal, GUILD, 0, "hand", table_id, hand.hand_no, int(created), hand.encode())
                await repo.insert_results(tx, [row])
                older += 1
    assert older > 0
    await fresh.rebuild()
    for user in HUMANS:
        card = await fresh.player_card(GUILD, user)
        assert (card.all_time.hands_dealt, card.all_time.net, card.all_time.tourneys_played) == (0, 0, 1)
    # the humans' finishing order is rated among them (the computer player is left out)
    history = await fresh.history(GUILD, HUMANS[0])
    assert [(h.kind, h.place) for h in history if h.kind == "tourney"] == [("tourney", expect[HUMANS[0]][0])]


async def test_a_tournament_whose_prizes_fail_to_commit_records_nothing(backend_env: Env) -> None:
    """The result is the prizes' transaction's: rolled back with it, never recorded alone."""
    env = backend_env
    note = env.league.tournament_note(GUILD, 5, [(HUMANS[0], 1), (HUMANS[1], 2)], {HUMANS[0]})
    assert note is not None

    class Boom(Exception):
        pass

    try:
        async with env.storage.transaction() as tx:
            text = await note(tx)
            await tx.insert_journal(
                key="tny:5:payouts", reason="t", actor="system", table_id=None, created_at=1.0, result=text
            )
            raise Boom
    except Boom:
        pass
    assert await env.league.drain() == 0
    assert (await env.league.player_card(GUILD, HUMANS[0])).all_time.tourneys_played == 0
    assert env.league.tournament_note(GUILD, 6, [(HUMANS[0], 1), (HUMANS[0], 2)], ()) is None  # not a ranking
