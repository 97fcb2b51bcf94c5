"""The meld enumerators behind legal_actions agree with the rules they shortcut (hypothesis)."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pancog.game import Card, Rank, Rules, Suit, make_meld
from pancog.game._fast import build, replace
from pancog.game.melds import Meld, borrow_pieces, is_valid_run, meld_kind
from pancog.game.moves import _take_options, could_use, lay_offs, meld_plays, run_splits
from pancog.game.state import Step, Turn
from tests.game.conftest import cards

ALL = [Card(r, s) for s in Suit for r in Rank]
card_st = st.sampled_from(ALL)


def _melds_from(groups: list[list[Card]], rules: Rules) -> list[Meld]:
    # random groups are often not melds: keep the legal ones
    return [make_meld(k + 1, g, rules) for k, g in enumerate(groups) if meld_kind(g) is not None]


meld_st = st.one_of(
    # sets: one rank, several suits
    st.builds(
        lambda r, suits: [Card(r, s) for s in suits],
        st.sampled_from(list(Rank)),
        st.lists(st.sampled_from(list(Suit)), min_size=3, max_size=7),
    ),
    # runs: one suit, a range of ranks
    st.builds(
        lambda s, lo, n: [Card(Rank(r), s) for r in range(lo, min(10, lo + n - 1) + 1)],
        st.sampled_from(list(Suit)),
        st.integers(1, 8),
        st.integers(3, 10),
    ),
)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(group=meld_st, split_rope=st.booleans())
def test_take_options_agree_with_borrow_pieces(group: list[Card], split_rope: bool) -> None:
    """Every multiset that may be lent from a meld is listed once, and nothing else."""
    rules = Rules(borrow_split_rope=split_rope)
    melds = _melds_from([group], rules)
    if not melds:
        return
    m = melds[0]
    listed = [tuple(sorted(t)) for t in _take_options(m, rules)]
    assert len(listed) == len(set(listed))
    counts = Counter(m.cards)
    keys = sorted(counts)
    legal = set()
    for xs in itertools.product(*(range(counts[k] + 1) for k in keys)):
        take = tuple(k for k, x in zip(keys, xs, strict=True) for _ in range(x))
        if take and borrow_pieces(m, take, rules) is not None:
            legal.add(take)
    assert set(listed) == legal


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(hand=st.lists(card_st, min_size=0, max_size=10), groups=st.lists(meld_st, max_size=3), drawn=card_st)
def test_could_use_never_misses_a_play(hand: list[Card], groups: list[list[Card]], drawn: Card) -> None:
    """could_use is a necessary condition: when it says no, there is no meld play with the card."""
    rules = Rules()
    melds = _melds_from(groups, rules)
    if not could_use(hand, melds, drawn):
        assert meld_plays(0, hand, melds, drawn, rules) == []


def _lay_offs_reference(melds: list[Meld], c: Card) -> bool:
    for m in melds:
        if m.kind.value == "set":
            if m.cards[0].rank is c.rank:
                return True
        elif c.suit is m.cards[0].suit and (
            is_valid_run((*m.cards, c)) or any(True for _ in run_splits(m, Counter(), (c,)))
        ):
            return True
    return False


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(groups=st.lists(meld_st, min_size=1, max_size=3), c=card_st)
def test_lay_offs_matches_the_definition(groups: list[list[Card]], c: Card) -> None:
    """The fast lay-off test equals 'extends a run or a set, or splits a run when added'."""
    melds = _melds_from(groups, Rules())
    assert lay_offs(melds, c) == _lay_offs_reference(melds, c)


def test_fast_replace_and_build_equal_dataclasses() -> None:
    t = Turn(seat=2, extra_pluck=True)
    assert replace(t, step=Step.DRAWN) == dataclasses.replace(t, step=Step.DRAWN)
    assert hash(replace(t, seat=3)) == hash(dataclasses.replace(t, seat=3))
    fields = {f.name: getattr(t, f.name) for f in dataclasses.fields(Turn)}
    assert build(Turn, **fields) == t
    with pytest.raises(TypeError):
        replace(t, no_such_field=1)
    with pytest.raises(TypeError):
        build(Turn, seat=1)  # every field is required


def test_meld_plays_lists_both_split_orientations() -> None:
    """Both parts of a split may take the new number; each is listed."""
    rules = Rules()
    rope = make_meld(1, cards("JH 7H 6H 5H"), rules)
    plays = meld_plays(0, cards("4H"), [rope], cards("QH")[0], rules)
    splits = {p.split for p in plays if getattr(p, "split", None)}
    assert cards("7H JH QH") in splits and cards("4H 5H 6H") in splits


def _run_splits_brute(
    m: Meld, hand: list[Card], required: tuple[Card, ...]
) -> set[tuple[tuple[Card, ...], tuple[Card, ...]]]:
    """Every (hand cards, new part) from trying every pair of rank intervals: the definition of a split."""
    suit = m.cards[0].suit
    lo, hi = int(m.cards[0].rank), int(m.cards[-1].rank)
    if any(c.suit is not suit for c in required):
        return set()
    original = Counter(range(lo, hi + 1))
    have = Counter(int(c.rank) for c in hand if c.suit is suit)
    req = Counter(int(c.rank) for c in required)
    out = set()
    for p in _SPANS:
        if p[1] < lo - 1 or p[0] > hi + 1:
            continue  # a part that cannot touch the run
        for q in _SPANS:
            if q < p or q[1] < lo - 1 or q[0] > hi + 1:
                continue
            combined = _SPAN_COUNTS[p] + _SPAN_COUNTS[q]
            if original - combined or p == (lo, hi) or q == (lo, hi):
                continue
            added = combined - original
            if not added or req - added or (added - req) - have:
                continue
            from_hand = tuple(Card(Rank(r), suit) for r in sorted((added - req).elements()))
            for new in (p, q):  # either part may take the new number
                out.add((from_hand, tuple(Card(Rank(r), suit) for r in range(new[0], new[1] + 1))))
    return out


_SPANS = [(a, b) for a in range(1, 11) for b in range(a + 2, 11)]
_SPAN_COUNTS = {sp: Counter(range(sp[0], sp[1] + 1)) for sp in _SPANS}


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    suit=st.sampled_from(list(Suit)),
    lo=st.integers(1, 8),
    length=st.integers(3, 8),
    hand_ranks=st.lists(st.integers(1, 10), max_size=6),
    drawn_rank=st.one_of(st.none(), st.integers(1, 10)),
)
def test_run_splits_find_every_split(
    suit: Suit, lo: int, length: int, hand_ranks: list[int], drawn_rank: int | None
) -> None:
    """run_splits lists exactly the splits found by trying every pair of intervals (both orientations)."""
    hi = min(10, lo + length - 1)
    if hi - lo < 2:
        return
    m = make_meld(1, [Card(Rank(r), suit) for r in range(lo, hi + 1)], Rules())
    hand = [Card(Rank(r), suit) for r in hand_ranks]
    required = (Card(Rank(drawn_rank), suit),) if drawn_rank is not None else ()
    got = set(run_splits(m, Counter(hand), required))
    assert got == _run_splits_brute(m, hand, required)


def test_run_adds_never_repeat_a_rank_of_the_rope() -> None:
    """Every rope and every required card of its suit: a rank already in the rope gives no add (a
    rope holds each rank once); any other rank gives only adds that make one valid rope."""
    from pancog.game.moves import run_adds

    rules = Rules()
    hearts = [Card(Rank(r), Suit.HEARTS) for r in range(1, 11)]
    hand = Counter(hearts)
    for lo, hi in itertools.combinations(range(1, 11), 2):
        if hi - lo < 2:
            continue
        meld = make_meld(1, hearts[lo - 1 : hi], rules)
        for required in hearts:
            got = list(run_adds(meld, hand, [required]))
            if lo <= int(required.rank) <= hi:
                assert got == [], (meld.cards, required, got)
            else:
                assert got, (meld.cards, required)
                assert all(is_valid_run((*meld.cards, required, *add)) for add in got)
