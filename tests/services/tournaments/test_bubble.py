"""Hand-for-hand play on the bubble, through the service (real TableService, SQLite, computer players)."""

from __future__ import annotations

import contextlib
import itertools

import pytest

from pancog.adapter.presenters.tourney_play import hand_for_hand_line
from pancog.game import i18n
from pancog.game.actions import StartHand
from pancog.game.events import HandEnded
from pancog.services.tables import Applied, NoTableHere, TableSession
from pancog.services.tournaments import bubble, rules
from pancog.services.tournaments.model import EntryStatus, Format, Status, TournamentConfig
from pancog.services.tournaments.ranking import Bust, standings
from tests.services.tournaments.test_service import GUILD, T_ID, Env, bot, check_books

PAYOUTS = (30, 25, 20, 15, 10)  # five places paid: the bubble is the 6th player, on two tables of four seats


def config(start_ms: int, bounty: int = 0) -> TournamentConfig:
    return TournamentConfig(
        bounty=bounty,
        format=Format.SCHEDULED,
        buy_in=100,
        seats=4,
        starting_stack=150,
        antes=tuple(range(10, 2000)),  # one chip more a level: the test can pick the ante of the bubble round
        level_minutes=1,
        start_at_ms=start_ms,
        min_entries=12,
        payouts=PAYOUTS,
        preset="classic",
    )


@pytest.mark.parametrize("bounty", [0, 10])
async def test_hand_for_hand_on_the_bubble_deals_round_by_round_and_busts_at_two_tables_share(sqlite_storage, bounty):
    """12 entries on three tables, five paid. With six players left on two tables, no table deals before the other
    has finished its hand; a round that puts out players at both tables (the test raises the ante at the round's
    end) ranks them together: they share the places they cover and split those prizes evenly, an odd chip to the
    entry that registered first. The audit balances and the prizes add up to the pool. With bounties, the round's
    busts at both tables are paid in one journal (each table's hand winner his own table's), and every bounty
    bought is collected by the end (the audit's bounty checks)."""
    env = Env(sqlite_storage, hand_seconds=120)
    cfg = config(int(env.clock.now * 1000) + 60_000, bounty)
    await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in range(1, 13):
        await env.service.register(T_ID, bot(n))
    env.clock.now += 61
    await env.service.tick()
    t = env.service.get(T_ID)
    assert t.status is Status.RUNNING and len(t.open_tables()) == 3

    order = itertools.count()
    started: dict[int, int] = {}  # table id -> when its current hand was dealt
    ended: dict[int, int] = {}  # table id -> when its last hand ended
    waited: list[tuple[int, ...]] = []  # what the board would say: the tables still playing the round
    raised: list[int] = []
    early: list[int] = []
    dealt_on_bubble = 0

    def open_session(table_id: int) -> TableSession | None:
        with contextlib.suppress(NoTableHere):
            return env.tables.get(table_id)
        return None

    def on_applied(applied: Applied) -> None:
        nonlocal dealt_on_bubble
        session = applied.session
        if env.service.tournament_of_table(session.table_id) != T_ID or t.status is not Status.RUNNING:
            return
        now = next(order)
        if isinstance(applied.action, StartHand):
            started[session.table_id] = now
            if bubble.on_bubble(t, registration_open=False):
                dealt_on_bubble += 1
                for tt in t.open_tables():  # a table still in a hand dealt before this table's last hand ended
                    other = open_session(tt.table_id)
                    busy = other is not None and other.in_hand and tt.table_id != session.table_id
                    if busy and started[tt.table_id] < ended.get(session.table_id, -1):
                        early.append(session.table_id)  # dealt while another table played the last round
        if any(isinstance(e, HandEnded) for e in applied.events):
            ended[session.table_id] = now
            waiting = env.service.hand_for_hand(T_ID)
            if waiting:
                waited.append(waiting)
            if waiting == () and not raised and dealt_on_bubble >= 2:  # a round is over: raise the ante, bust at two
                lows = []
                for tt in t.open_tables():
                    s = env.tables.get(tt.table_id)
                    stacks = [seat.stack for seat in s.state.seats if seat is not None]
                    lows.append(min(stacks))
                ante = max(lows)
                raised.append(ante)
                level = ante - cfg.antes[0]
                assert t.started_ms is not None
                env.clock.now = (t.started_ms + t.paused_total + level * 60_000 + 1_000) / 1000

    env.tables.subscribe(on_applied)
    await env.run(T_ID, max_rounds=2000)
    assert t.status is Status.FINISHED
    assert dealt_on_bubble >= 2 and waited, "hand-for-hand was played"
    assert early == []
    assert raised, "a hand-for-hand round ended"
    shared = [e for e in t.entries.values() if e.bust_group is not None and e.tied and e.tied > 1]
    tables = {e.table_no for e in shared}
    assert len(tables) >= 2, "players put out at two tables in one round share"
    group = shared[0].bust_group
    round_busts = sorted((e for e in t.entries.values() if e.bust_group == group), key=lambda e: e.entry_id)
    assert {(e.place, e.tied) for e in round_busts} == {(round_busts[0].place, len(round_busts))}
    place, tied = round_busts[0].place or 0, len(round_busts)
    table = rules.prizes(rules.prize_pool(t), t.paid_entries, PAYOUTS)
    covered = sum(table[place - 1 : place - 1 + tied])
    share, odd = divmod(covered, tied)
    assert [e.prize for e in round_busts] == [share + odd] + [share] * (tied - 1)
    assert sum(e.prize or 0 for e in t.entries.values()) == rules.prize_pool(t)
    if bounty:
        assert sum(e.bounty_won for e in t.entries.values()) == bounty * len(t.entries)
        assert all(e.bounty == 0 for e in t.entries.values())
        async with env.ledger.storage.transaction(write=False) as tx:
            journal = await tx.find_journal(f"tny:{T_ID}:bounty:{group}")
        winners = {e.knocked_by for e in round_busts if e.knocked_by is not None}
        assert winners and journal is not None  # the round's bounties, in one journal, to the hands' winners
        paid = {p.account.user_id for p in journal.postings if p.delta > 0}
        assert paid == {t.entries[w].player_id for w in winners}
    await check_books(env, T_ID)


async def test_the_knock_out_figures_of_a_shared_round_are_the_split_prize(sqlite_storage):
    """The figures of the knock-out lines (``PlayerOut``) of a round shared across tables: each player gets the shared
    place and its evenly split prize; at one table the usual ranking by stacks applies."""
    env = Env(sqlite_storage, hand_seconds=120)
    cfg = config(int(env.clock.now * 1000) + 60_000)
    t = await env.service.create(T_ID, guild_id=GUILD, channel_id=1, host_id=1, config=cfg)
    for n in range(1, 13):
        await env.service.register(T_ID, bot(n))
    for e in t.entries.values():
        e.status = EntryStatus.ALIVE
    for e in list(t.entries.values())[:6]:  # six out, two of them (tables 1 and 2) in one hand-for-hand round
        e.status = EntryStatus.OUT
    a, b = list(t.entries.values())[:2]
    a.table_no, b.table_no, a.bust_group, b.bust_group = 1, 2, 9, 9
    a.end_stack, b.end_stack, a.start_stack, b.start_stack = 3, 8, 40, 12
    places = rules.knockout_places(t, [a.entry_id, b.entry_id])
    assert places == {a.entry_id: (7, 2), b.entry_id: (7, 2)}  # below the six still in, sharing 7th and 8th
    won = rules.knockout_prizes(t, places)
    assert won == {a.entry_id: 0, b.entry_id: 0}  # out of the money (five paid)
    for e in list(t.entries.values())[6:10]:
        e.status = EntryStatus.OUT
    places = rules.knockout_places(t, [a.entry_id, b.entry_id])  # now two left: they share 3rd and 4th
    assert places == {a.entry_id: (3, 2), b.entry_id: (3, 2)}
    table = rules.prizes(1200, 12, PAYOUTS)
    covered = table[2] + table[3]
    assert rules.knockout_prizes(t, places) == {a.entry_id: covered - covered // 2, b.entry_id: covered // 2}
    b.table_no = 1  # at one table the usual rule: more chips left by the hand, better place
    assert rules.knockout_places(t, [a.entry_id, b.entry_id]) == {b.entry_id: (3, 1), a.entry_id: (4, 1)}


def test_standings_share_a_round_at_several_tables_only() -> None:
    # group 2 is a hand-for-hand round at tables 1 and 2: its two busts share 4th-5th whatever their stacks
    busts = [Bust(1, 1, 50, 0, 1), Bust(2, 2, 90, 5, 1), Bust(3, 2, 10, 0, 2), Bust(4, 3, 40, 2, 1)]
    busts.append(Bust(5, 3, 30, 1, 1))
    got = {f.entry_id: (f.place, f.tied) for f in standings([(9, 500)], busts)}
    assert got == {9: (1, 1), 4: (2, 1), 5: (3, 1), 2: (4, 2), 3: (4, 2), 1: (6, 1)}


def test_the_board_line_names_the_tables_it_waits_for_in_the_readers_language() -> None:
    assert hand_for_hand_line([2]) == "⏸ Hand-for-hand: waiting for table 2"
    assert hand_for_hand_line([1, 3]) == "⏸ Hand-for-hand: waiting for tables 1, 3"
    assert "one hand at a time" in hand_for_hand_line([])
    with i18n.speaking("es"):
        assert hand_for_hand_line([2]) == "⏸ Mano a mano: esperando a la mesa 2"
