"""Levels, payouts, ranking and the balancer: unit and property tests (hypothesis)."""

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from pancog.services.tournaments.balancer import BalanceTable, allowed_spread, plan, target_tables
from pancog.services.tournaments.errors import BadSchedule, BadTournamentOption
from pancog.services.tournaments.levels import LevelSchedule, default_antes, parse_antes
from pancog.services.tournaments.payouts import payout_weights, places_paid, prizes, share_ties
from pancog.services.tournaments.ranking import Bust, standings

# ------------------------------------------------------------------ levels


def test_levels_default_antes_rise_33_to_50_percent():
    """The default schedule is x1, 1.5, 2, 3, 4, 6, 8 ... and strictly increasing."""
    antes = default_antes(10, 20)
    assert antes[:9] == (10, 15, 20, 30, 40, 60, 80, 120, 160)
    # docs/tournaments.md: "x1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, ...": on in the same way, x2 every two levels
    assert antes[9:] == (240, 320, 480, 640, 960, 1280, 1920, 2560, 3840, 5120, 7680)
    assert all(1.3 <= b / a <= 1.5 for a, b in itertools.pairwise(antes))


@pytest.mark.parametrize("text", ["10, 10, 20", "20 10", "0 5", "ten", ""])
def test_levels_schedule_must_increase(text):
    """A schedule that does not strictly increase (or is not numbers) is refused."""
    with pytest.raises(BadSchedule) as err:
        parse_antes(text)
    assert err.value.code == "bad_schedule"


def test_levels_by_clock_with_breaks():
    """Levels follow elapsed running time; a break follows every N levels."""
    sched = LevelSchedule(antes=(1, 2, 3, 4, 5), level_minutes=10, break_every=2, break_minutes=5)
    assert sched.at(0).level == 0 and not sched.at(0).on_break
    assert sched.at(599).level == 0 and sched.at(600).level == 1
    brk = sched.at(1200)
    assert brk.on_break and brk.level == 2 and brk.seconds_left == 300
    assert sched.at(1500).level == 2 and not sched.at(1500).on_break
    assert sched.at(10**6).ante == 5  # the last level stays


# ------------------------------------------------------------------ payouts


def test_payouts_places_by_field_size():
    """1 place under 5 entries, 2 under 10, 3 under 20, then about 15 %."""
    assert [places_paid(n) for n in (1, 4, 5, 9, 10, 19, 20, 40, 200)] == [1, 1, 2, 2, 3, 3, 3, 6, 30]


def test_payouts_sng_65_35_and_remainder_to_first():
    """A 7-entry field pays 65/35; the division remainder goes to first."""
    assert prizes(701, 7) == (456, 245)
    assert sum(prizes(701, 7)) == 701


@given(pool=st.integers(0, 10**9), entries=st.integers(1, 500))
def test_payouts_sum_to_pool_and_monotone(pool, entries):
    """Prizes sum to the pool exactly and never pay a lower place more."""
    amounts = prizes(pool, entries)
    assert sum(amounts) == pool
    assert all(a >= b for a, b in itertools.pairwise(amounts))
    assert len(amounts) == places_paid(entries)


@given(
    pool=st.integers(0, 10**7),
    custom=st.lists(st.integers(1, 100), min_size=1, max_size=8).map(lambda xs: sorted(xs, reverse=True)),
)
def test_payouts_custom_list(pool, custom):
    """A custom list is used as weights; still sums to the pool and is monotone."""
    amounts = prizes(pool, 50, custom)
    assert sum(amounts) == pool and len(amounts) == len(custom)
    assert all(a >= b for a, b in itertools.pairwise(amounts))


@pytest.mark.parametrize("bad", [[], [0, 1], [30, 70]])
def test_payouts_custom_list_refused(bad):
    """Empty, non-positive or increasing lists are refused."""
    with pytest.raises(BadTournamentOption):
        prizes(100, 10, bad)


@given(
    place_prizes=st.lists(st.integers(0, 1000), max_size=10).map(lambda xs: sorted(xs, reverse=True)),
    groups=st.lists(st.integers(1, 4), min_size=1, max_size=8),
)
def test_payouts_ties_share_what_they_cover(place_prizes, groups):
    """Tied finishers share the prizes of the places they cover; the total is unchanged."""
    amounts = share_ties(place_prizes, groups)
    assert sum(amounts) == sum(place_prizes[: sum(groups)])
    start = 0
    for k in groups:
        part = amounts[start : start + k]
        assert max(part) - min(part) <= k  # equal shares up to the remainder
        start += k


# ------------------------------------------------------------------ ranking


def test_ranking_same_hand_by_start_stack_and_equal_stacks_share():
    """Two out in one hand: more chips at the start of the hand ranks better; equal stacks share."""
    busts = [Bust(5, 1, 100), Bust(3, 2, 40), Bust(4, 2, 90), Bust(6, 3, 50), Bust(7, 3, 50)]
    result = standings([(1, 1000)], busts)
    assert [(f.entry_id, f.place, f.tied) for f in result] == [
        (1, 1, 1),
        (6, 2, 2),
        (7, 2, 2),
        (4, 4, 1),
        (3, 5, 1),
        (5, 6, 1),
    ]


# ------------------------------------------------------------------ balancer


def test_balancer_breaks_smallest_and_moves_least_moved():
    """Three tables of 8 seats with 5, 5, 3 players: the table of 3 breaks; least-moved players move first."""
    tables = [
        BalanceTable(table_id=1, players=((10, 0), (11, 0), (12, 0), (13, 0), (14, 0))),
        BalanceTable(table_id=2, players=((20, 1), (21, 0), (22, 0), (23, 0), (24, 0))),
        BalanceTable(table_id=3, players=((30, 2), (31, 0), (32, 1))),
    ]
    result = plan(tables, 8)
    assert result.broken == (3,)
    assert sorted(m.entry_id for m in result.moves) == [30, 31, 32]
    assert plan(tables[:2], 8).moves == ()
    uneven = [
        BalanceTable(table_id=1, players=((1, 2), (2, 0), (3, 1), (4, 0))),
        BalanceTable(table_id=2, players=((5, 0), (6, 0))),
    ]
    assert [m.entry_id for m in plan(uneven, 4).moves] == [2]  # moved least, lowest id


def test_balancer_never_moves_from_a_busy_table():
    """A busy table keeps its players; the plan says it waits."""
    tables = [
        BalanceTable(table_id=1, players=tuple((i, 0) for i in range(8)), busy=True),
        BalanceTable(table_id=2, players=((100, 0), (101, 0))),
    ]
    result = plan(tables, 8)
    assert result.moves == () and result.waiting


class BalancerMachine(RuleBasedStateMachine):
    """Random hands, eliminations and late entries across tables; the balancer between hands."""

    @initialize(players=st.integers(9, 60), seats=st.integers(4, 8))
    def setup(self, players, seats):
        self.seats = seats
        n = target_tables(players, seats)
        self.tables = {t: [] for t in range(1, n + 1)}
        self.moves = {}
        for i in range(players):
            self.tables[1 + i % n].append(i)
            self.moves[i] = 0
        self.busy = set()
        self.next_id = players
        self.next_table = n + 1

    def _apply(self):
        before = {t: list(ps) for t, ps in self.tables.items()}
        result = plan(
            [
                BalanceTable(table_id=t, players=tuple((p, self.moves[p]) for p in ps), busy=t in self.busy)
                for t, ps in self.tables.items()
            ],
            self.seats,
        )
        for m in result.moves:
            assert m.from_table not in self.busy, "moved a player out of a hand"
            assert m.entry_id in before[m.from_table]
            self.tables[m.from_table].remove(m.entry_id)
            self.tables[m.to_table].append(m.entry_id)
            self.moves[m.entry_id] += 1
        for t in result.broken:
            if result.final_table:
                everyone = [p for ps in self.tables.values() for p in ps]
                self.tables = {self.next_table: everyone}
                self.next_table += 1
                self.busy = set()
                break
            assert not self.tables[t]
            del self.tables[t]
        for ps in self.tables.values():
            assert len(ps) <= self.seats
        return result

    @rule(data=st.data())
    def start_hand(self, data):
        idle = sorted(t for t in self.tables if t not in self.busy and len(self.tables[t]) >= 2)
        if idle:
            self.busy.add(data.draw(st.sampled_from(idle)))

    @precondition(lambda self: self.busy)
    @rule(data=st.data(), out=st.integers(0, 3))
    def end_hand(self, data, out):
        t = data.draw(st.sampled_from(sorted(self.busy)))
        self.busy.discard(t)
        total = sum(len(ps) for ps in self.tables.values())
        for _ in range(min(out, len(self.tables[t]) - 1, total - 2)):
            self.tables[t].pop(data.draw(st.integers(0, len(self.tables[t]) - 1)))
        self._apply()

    @rule()
    def late_entry(self):
        t = min(self.tables, key=lambda k: len(self.tables[k]))
        if len(self.tables[t]) < self.seats:
            self.tables[t].append(self.next_id)
            self.moves[self.next_id] = 0
            self.next_id += 1
            self._apply()

    @rule()
    def all_hands_end_then_balance(self):
        self.busy = set()
        self._apply()
        sizes = [len(ps) for ps in self.tables.values()]
        total = sum(sizes)
        assert len(self.tables) == target_tables(total, self.seats)
        assert max(sizes) - min(sizes) <= allowed_spread(len(sizes))

    @invariant()
    def nobody_lost(self):
        if hasattr(self, "tables"):
            everyone = [p for ps in self.tables.values() for p in ps]
            assert len(everyone) == len(set(everyone))


TestBalancerMachine = BalancerMachine.TestCase
TestBalancerMachine.settings = settings(max_examples=80, stateful_step_count=30, deadline=None)


def test_target_tables_is_ceil():
    """ceil(players / seats), at least one."""
    assert [target_tables(n, 7) for n in (1, 7, 8, 14, 15)] == [1, 1, 2, 2, 3] and math.ceil(15 / 7) == 3


def test_pure_parts_import_only_the_stdlib():
    """levels, payouts, balancer, ranking and errors import only the stdlib, each other, pancog.game.errors and
    pancog.game.i18n (the marker of their refusals' sentences: stdlib only too)."""
    import ast
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "pancog" / "services" / "tournaments"
    for name in ("levels", "payouts", "balancer", "ranking", "errors"):
        tree = ast.parse((root / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                assert node.module.split(".")[0] in sys.stdlib_module_names | {"__future__"} or (
                    node.module in ("pancog.game.errors", "pancog.game.i18n")
                ), f"{name} imports {node.module}"
            elif isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] in sys.stdlib_module_names for a in node.names), name


# docs/tournaments.md "Published payout table": the share of the pool per place, for 1 to 6 places paid
PUBLISHED = {
    1: (100.0,),
    2: (65.0, 35.0),
    3: (50.0, 30.0, 20.0),
    4: (45.0, 27.0, 17.0, 11.0),
    5: (40.0, 25.0, 16.0, 11.0, 8.0),
    6: (38.0, 23.0, 15.0, 10.0, 7.5, 6.5),
}


def _field_paying(places: int) -> int:
    """The smallest field (entries) that pays ``places`` places."""
    return next(n for n in range(1, 1000) if places_paid(n) == places)


@pytest.mark.parametrize("places", sorted(PUBLISHED))
def test_prizes_follow_the_published_payout_table(places: int) -> None:
    """A pool of 100,000 chips splits exactly as the published percentages (no remainder to move)."""
    entries = _field_paying(places)
    assert prizes(100_000, entries) == tuple(int(share * 1000) for share in PUBLISHED[places])


def test_seven_to_nine_places_continue_the_published_curve() -> None:
    """Every row of the table is a weight per mille (it sums to 1000); down to nine places paid, each extra place
    lowers first place's share, and first keeps more than the quarter a longer table gives it."""
    firsts = []
    for places in range(1, 10):
        weights = payout_weights(places)
        assert len(weights) == places and sum(weights) == 1000
        assert list(weights) == sorted(weights, reverse=True)
        amounts = prizes(100_000, _field_paying(places))
        assert len(amounts) == places and sum(amounts) == 100_000
        firsts.append(amounts[0])
    assert firsts == sorted(firsts, reverse=True) and len(set(firsts)) == 9
    assert firsts[-1] > 25_000
    assert prizes(100_000, _field_paying(10))[0] < firsts[-1]


def test_same_hand_busts_rank_by_what_that_hand_left_them() -> None:
    """Two players put out by one hand with equal starts (30 = 30) but left 44 and 16 by it are 2nd and 3rd, not a
    shared place; equal on what is left, the bigger start is better; equal on both, they share."""
    result = standings([(1, 500)], [Bust(2, 1, 30, 16), Bust(3, 1, 30, 44)])
    assert [(f.entry_id, f.place, f.tied) for f in result] == [(1, 1, 1), (3, 2, 1), (2, 3, 1)]
    result = standings([(1, 500)], [Bust(2, 1, 90, 0), Bust(3, 1, 40, 0)])
    assert [(f.entry_id, f.place) for f in result] == [(1, 1), (2, 2), (3, 3)]
    result = standings([(1, 500)], [Bust(2, 1, 40, 0), Bust(3, 1, 40, 0)])
    assert [(f.entry_id, f.place, f.tied) for f in result] == [(1, 1, 1), (2, 2, 2), (3, 2, 2)]
