"""Seasons: start/end/info, rollover idempotent and crash-safe, season banks through the ledger, exclusions,
leaderboards with the caller's own rank."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pancog.infra.storage import Account, BankScope
from pancog.services.league import (
    HandDigest,
    LeagueService,
    NoSeason,
    PlayerLine,
    SeasonActive,
    SeasonInputError,
    TourneyDigest,
    repo,
)
from pancog.services.ledger import ChipLedger
from tests.support.league_play import play_hands

from .conftest import GUILD, Clock, Env, fresh_storage

_hand_counter = iter(range(1, 10**9))


def hand(winner: int, losers: list[int], chips: int = 10, on_top: tuple[int, ...] = ()) -> HandDigest:
    """A hand where ``winner`` went out and collected ``chips`` from each loser."""
    n = next(_hand_counter)
    players = [PlayerLine(user_id=winner, played=True, won=True, net=chips * len(losers), biggest=chips)]
    players += [PlayerLine(user_id=u, played=True, net=-chips) for u in losers]
    players += [PlayerLine(user_id=u, on_top=True) for u in on_top]
    return HandDigest(
        table_id=7, hand_no=n, reason="out", winner=winner, players=players, flows={(u, winner): chips for u in losers}
    )


async def test_season_start_end_info_and_archive(env: Env) -> None:
    league = env.league
    with pytest.raises(NoSeason):
        await league.season_info(GUILD)
    season = await league.start_season(GUILD, "  Spring   cup ", length_days=30)
    assert (season.number, season.name, season.mode, season.ends_at) == (
        1,
        "Spring cup",
        "net",
        season.started_at + 30 * 86400,
    )
    with pytest.raises(SeasonActive):
        await league.start_season(GUILD, "Another")
    for _ in range(3):
        await league.record_hand(GUILD, hand(1, [2, 3]))
    await league.record_hand(GUILD, hand(2, [1, 3], chips=5))
    info = await league.season_info(GUILD)
    assert [r.user_id for r in info.standings] == [1, 2, 3]
    assert [r.net for r in info.standings] == [55, -20, -35]
    ended = await league.end_season(GUILD)
    assert ended.season.status == "ended" and ended.season.champion_id == 1
    with pytest.raises(NoSeason):
        await league.end_season(GUILD)
    # hands after the season count all-time only; the archive does not move
    await league.record_hand(GUILD, hand(3, [1, 2], chips=100))
    past = await league.season_info(GUILD, 1)
    assert past.standings == ended.standings
    card = await league.player_card(GUILD, 3)
    assert card.season is None and card.all_time.net == 200 - 35


@pytest.mark.parametrize(
    ("name", "length", "chips", "mode"),
    [("", None, None, "net"), ("x", 0, None, "net"), ("x", None, -1, "net"), ("x", None, None, "cash")],
)
async def test_season_bad_input_changes_nothing(
    env: Env, name: str, length: int | None, chips: int | None, mode: str
) -> None:
    with pytest.raises(SeasonInputError):
        await env.league.start_season(GUILD, name, length_days=length, starting_chips=chips, mode=mode)  # type: ignore[arg-type]
    assert await env.league.seasons(GUILD) == []


async def test_bank_season_issues_and_closes_through_the_ledger(env: Env) -> None:
    """'bank' mode: each player's season bank is issued the starting chips once; the end archives the standings by
    season bank and returns the chips; the audit balances before, during and after."""
    league = env.league
    await env.ledger.ensure_player(GUILD, 1)
    s1 = await league.start_season(GUILD, "Bank one", starting_chips=500, mode="bank")
    assert await league.season_bank(GUILD, 1) == 500
    assert await league.season_bank(GUILD, 1) == 500  # issued once
    assert await league.season_bank(GUILD, 2) == 500
    assert (await env.ledger.audit()).ok
    assert [row.chips for row in (await league.season_info(GUILD)).standings] == [500, 500]
    board = await league.leaderboard(GUILD, metric="chips", period="season", caller=2)
    assert board.lines == () and board.ineligible == (0, None, False)  # nobody has played: the board lists nobody
    s2 = await league.rollover(GUILD, s1.number, "Bank two", starting_chips=300, mode="bank")
    assert s2.number == 2 and s2.scope_id != s1.scope_id
    assert (await env.ledger.audit()).ok
    async with env.storage.transaction(write=False) as tx:
        assert await repo.bank_balances(tx, s1.bank_scope) == {1: 0, 2: 0}
    assert await league.season_bank(GUILD, 1) == 300  # the new season's bank, reset
    assert await env.ledger.balance(GUILD, 1) == 1000  # the all-time bank is untouched
    assert [r.chips for r in (await league.season_info(GUILD, 1)).standings] == [500, 500]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    plan=st.lists(
        st.tuples(st.sampled_from(["hand", "rollover", "retry", "crash"]), st.integers(1, 4), st.integers(1, 4)),
        min_size=1,
        max_size=14,
    )
)
async def test_rollover_idempotent_and_crash_safe(
    backend: str, server_url: str | None, tmp_path_factory: pytest.TempPathFactory, plan: list[tuple[str, int, int]]
) -> None:
    """Any mix of hands, rollovers, retried rollovers and rollovers that crash mid-transaction: every season has at
    most one archive, a retry returns the same season and changes nothing, a crash leaves no trace, the ledger
    audits clean, and the archived standings equal the live standings the season had when it ended."""
    async with fresh_storage(backend, tmp_path_factory.mktemp("roll"), server_url) as storage:
        clock = Clock()
        ledger = ChipLedger(storage, clock=clock)
        league = LeagueService(storage, ledger, clock=clock)
        current = await league.start_season(GUILD, "S1", mode="bank", starting_chips=100)
        last_live: dict[int, object] = {}
        for op, a, b in plan:
            clock.now += 60
            if op == "hand":
                if a != b:
                    await league.season_bank(GUILD, a)
                    await league.record_hand(GUILD, hand(a, [b]))
            elif op in ("rollover", "retry"):
                last_live[current.number] = (await league.season_info(GUILD)).standings
                following = await league.rollover(GUILD, current.number, f"S{current.number + 1}", mode="bank")
                if op == "retry":
                    again = await league.rollover(GUILD, current.number, "other name", mode="net")
                    assert again == following
                current = following
            else:
                original = repo.insert_season

                async def boom(*args: object, **kwargs: object) -> bool:
                    raise RuntimeError("crash")

                repo.insert_season = boom  # type: ignore[assignment]
                try:
                    with pytest.raises(RuntimeError):
                        await league.rollover(GUILD, current.number, "never")
                finally:
                    repo.insert_season = original  # type: ignore[assignment]
                league._seasons.clear()
                assert (await league.season_info(GUILD)).season == current  # nothing ended, nothing started
        seasons = await league.seasons(GUILD)
        assert [s.number for s in seasons] == list(range(1, len(seasons) + 1))
        assert [s.status for s in seasons] == ["ended"] * (len(seasons) - 1) + ["active"]
        for number, live in last_live.items():
            archived = (await league.season_info(GUILD, number)).standings
            assert archived == live
            champion = next(s for s in seasons if s.number == number).champion_id
            assert champion == (live[0].user_id if live else None)  # type: ignore[index, attr-defined]
        assert (await ledger.audit()).ok


async def test_exclusion_leaves_a_player_out_of_the_standings_with_a_reason(env: Env) -> None:
    league = env.league
    await league.start_season(GUILD, "S")
    await league.configure(GUILD, established=4)  # four hands: both established
    for _ in range(4):
        await league.record_hand(GUILD, hand(9, [8]))
    with pytest.raises(SeasonInputError):
        await league.exclude(GUILD, 9, moderator_id=1, reason="   ")
    await league.exclude(GUILD, 9, moderator_id=1, reason="chip dumping from 8, see flags")
    info = await league.season_info(GUILD)
    assert [r.user_id for r in info.standings] == [8]
    assert info.exclusions[0][:3] == (9, 1, "chip dumping from 8, see flags")
    board = await league.leaderboard(GUILD, metric="net", period="season", caller=9)
    assert [line.user_id for line in board.lines] == [8] and board.caller is None
    all_time = await league.leaderboard(GUILD, metric="net", period="all", caller=9)
    assert all_time.lines[0].user_id == 9  # all-time figures are not rewritten
    assert await league.include(GUILD, 9)
    assert [r.user_id for r in (await league.season_info(GUILD)).standings] == [9, 8]


async def test_leaderboard_metrics_and_the_callers_own_rank(env: Env) -> None:
    league = env.league
    for u in range(1, 16):  # player u wins u hands against player 100
        for _ in range(u):
            await league.record_hand(GUILD, hand(u, [100], chips=1))
    await league.record_tournament(GUILD, 77, [(3, 1), (4, 2), (-7, 3)], cashed={3, 4})
    assert not await league.record_tournament(GUILD, 77, [(3, 1), (4, 2)])  # idempotent
    board = await league.leaderboard(GUILD, metric="wins", period="all", caller=100)
    assert [line.user_id for line in board.lines] == list(range(15, 5, -1))
    assert board.caller is not None and board.caller.user_id == 100 and board.caller.rank == 16
    net = await league.leaderboard(GUILD, metric="net", period="all", caller=2)
    assert net.caller is not None and (net.caller.rank, net.caller.value) == (14, 2)
    rating = await league.leaderboard(GUILD, metric="rating", period="all", caller=100)
    values = [line.value for line in rating.lines]
    assert values == sorted(values, reverse=True) and len(values) == 10
    assert rating.caller is not None and rating.caller.rank == 16 and rating.caller.rated == sum(range(1, 16))
    card = await league.player_card(GUILD, 3)
    assert (card.all_time.tourneys_played, card.all_time.tourneys_cashed, card.all_time.tourneys_won) == (1, 1, 1)
    assert card.all_time.hands_won == 3 and card.going_out_rate == 1.0 and card.rating.rated == 4
    chips = await league.leaderboard(GUILD, metric="chips", period="all", caller=5)
    assert chips.lines == () and chips.caller is None  # nobody here has a bank yet
    with pytest.raises(NoSeason):
        await league.leaderboard(GUILD, metric="net", period="season")
    with pytest.raises(SeasonInputError):
        await league.leaderboard(GUILD, metric="luck", period="all")  # type: ignore[arg-type]
    assert isinstance(TourneyDigest, type)


async def test_bank_season_table_plays_from_the_season_banks(backend_env: Env) -> None:
    """A cash table opened with the bank season's scope (``open_table(scope=await table_scope(guild))``, what
    /pan open does) stays the guild's table but buys in from the season banks (issued the season's starting chips by
    the join), its hands count for the guild's season, the standings rank the season banks, the player card shows
    the season bank, and the audit balances after the table closes and the season ends; the all-time bank is never
    touched. Both backends."""
    from pancog.ai import make_player
    from pancog.services.tables import TableConfig

    env = backend_env
    league = env.league
    season = await league.start_season(GUILD, "Fresh start", starting_chips=800, mode="bank")
    scope = await league.table_scope(GUILD)
    assert scope == BankScope.season(season.scope_id) and season.scope_id == 1  # the first season of the bot
    users = [61, 62, 63]
    assert (await league.player_card(GUILD, 61)).season_bank == 800  # before first use: what he will be issued
    config = TableConfig.build()
    session = await env.tables.open_table(555, guild_id=GUILD, channel_id=555, host_id=61, config=config, scope=scope)
    assert session.guild_id == GUILD and session.bank_scope == scope
    for u in users:
        await env.tables.join(555, u, buy_in=400)
        assert await league.season_bank(GUILD, u) == 400  # 800 issued, 400 on the table
    assert (await league.player_card(GUILD, 61)).season_bank == 400
    await play_hands(env.tables, 555, {u: make_player("easy") for u in users}, 3, seed=12)
    await league.drain()
    async with env.storage.transaction(write=False) as tx:
        in_season = {r.user_id: r.hands_dealt for r in await repo.all_stats(tx, GUILD, season.number)}
        all_time = {r.user_id: r.hands_dealt for r in await repo.all_stats(tx, GUILD, 0)}
        assert await repo.all_stats(tx, scope.id, 0) == []
    assert in_season == all_time == dict.fromkeys(users, 3)
    assert await env.tables.check_books(555) == []
    await env.tables.close(555, 61)
    standings = (await league.season_info(GUILD)).standings
    banks = {u: await league.season_bank(GUILD, u) for u in users}
    assert sorted(r.chips for r in standings) == sorted(banks.values())
    assert sum(banks.values()) == 3 * 800  # the table closed: every chip is back in the season banks
    info = await league.end_season(GUILD)
    assert info.season.champion_id == standings[0].user_id == max(users, key=lambda u: (banks[u], -u))
    assert await league.table_scope(GUILD) == BankScope.guild(GUILD)
    assert {u: await env.ledger.balance(scope, u) for u in users} == dict.fromkeys(users, 0)  # closed
    assert await env.ledger.balance(GUILD, 61) == 0  # the ordinary bank was never touched (never even issued)
    assert await env.ledger.ensure_player(scope, 99) == 0  # an ended season issues nothing more
    report = await env.ledger.audit()
    assert report.ok and report.chips_in_play == 0


async def test_rollover_closes_and_issues_the_season_banks_through_the_ledger(backend_env: Env) -> None:
    """A bank season rolled over into a bank season: the old banks are returned to the old scope's issued account
    (journal season:G:N:close), the new season's banks of the returning players are issued at once (journals
    start:<scope>:<user>, the same a first join writes) — in the rollover's one transaction; the audit balances
    across it, a retry changes nothing, and the all-time banks are untouched. Both backends."""
    from pancog.ai import make_player
    from pancog.services.tables import TableConfig

    env = backend_env
    league, ledger = env.league, env.ledger
    users = [71, 72]
    for u in users:
        await ledger.ensure_player(GUILD, u)  # an all-time bank of 1000 each
    first = await league.start_season(GUILD, "One", starting_chips=500, mode="bank")
    config = TableConfig.build()
    await env.tables.open_table(777, guild_id=GUILD, channel_id=777, host_id=71, config=config, scope=first.bank_scope)
    for u in users:
        await env.tables.join(777, u, buy_in=300)
    await play_hands(env.tables, 777, {u: make_player("easy") for u in users}, 2, seed=3)
    await env.tables.close(777, 71)
    old_banks = {u: await ledger.balance(first.bank_scope, u) for u in users}
    assert sum(old_banks.values()) == 1000

    second = await league.rollover(GUILD, first.number, "Two", starting_chips=300, mode="bank")
    assert second.number == 2 and second.scope_id != first.scope_id
    accounts = [Account.bank(s, u) for s in (first.bank_scope, second.bank_scope, GUILD) for u in users]
    after = await ledger.balances(accounts)
    assert [after[Account.bank(first.bank_scope, u)] for u in users] == [0, 0]
    assert [after[Account.bank(second.bank_scope, u)] for u in users] == [300, 300]  # issued by the rollover
    assert [after[Account.bank(GUILD, u)] for u in users] == [1000, 1000]
    async with env.storage.transaction(write=False) as tx:
        close = await tx.find_journal(f"season:{GUILD}:1:close")
        starts = [await tx.find_journal(f"start:season:{second.scope_id}:{u}") for u in users]
    assert close is not None
    net: dict[Account, int] = {}
    for posting in close.postings:
        net[posting.account] = net.get(posting.account, 0) + posting.delta
    assert net == {
        **{Account.bank(first.bank_scope, u): -old_banks[u] for u in users if old_banks[u]},
        Account.issued(first.bank_scope): 1000,
    }
    assert all(s is not None and sorted(p.delta for p in s.postings) == [-300, 300] for s in starts)
    final = {r.user_id: r.chips for r in (await league.season_info(GUILD, 1)).standings}
    assert final == old_banks  # archived with the old banks
    again = await league.rollover(GUILD, first.number, "Two", starting_chips=300, mode="bank")
    assert again == second
    assert await ledger.balances(accounts) == after  # the retry issued nothing twice
    report = await ledger.audit()
    assert report.ok and report.chips_in_play == 2000 + 600
    assert (await league.season_info(GUILD)).standings[0].chips == 300  # the new standings start from the banks


async def test_a_season_bank_has_no_daily_grant(env: Env) -> None:
    """A bank season hands out its starting chips once and nothing else: its scope's daily grant is 0, so a daily
    claim there issues nothing (all season banks start, and stay, equal)."""
    season = await env.league.start_season(GUILD, "Equal banks", starting_chips=500, mode="bank")
    assert await env.league.season_bank(GUILD, 1) == 500
    claim = await env.ledger.claim_daily(season.bank_scope, 1)
    assert (claim.claimed, claim.amount, claim.balance) == (False, 0, 500)
    assert await env.ledger.scope_chips(season.bank_scope) == (500, 0)
    assert await env.league.season_bank(GUILD, 1) == 500
