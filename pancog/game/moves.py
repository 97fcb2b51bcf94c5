"""Enumerate every distinct legal meld play (new meld, add, add with split, borrow) for one player.

Pure helpers for :func:`pancog.game.engine.legal_actions`. ``required`` cards (the waiting drawn or
option card) must be part of every play; other cards come from the hand (a multiset).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import product
from operator import attrgetter
from typing import Final

from . import _fast
from .actions import AddToMeld, Borrow, NewMeld
from .cards import Card, Rank, Suit
from .melds import Meld, MeldKind, borrow_pieces, is_valid_run, is_valid_set
from .rules import Rules

SUITS: tuple[Suit, ...] = tuple(Suit)
RANKS: tuple[Rank, ...] = tuple(Rank)

# Enum members read on hot paths, as module constants: reading a member through its class is slow
# in Python 3.11 (EnumType.__getattr__ makes every class attribute lookup go through a hook).
_MELD_KIND_SET: Final = MeldKind.SET

MeldPlayAction = NewMeld | AddToMeld | Borrow

_BY_RANK = attrgetter("rank", "suit")
"""Card's own order (rank, then suit) as a C key: ``sorted(cards)`` calls Card.__lt__ in Python."""
_NEW_MELD = _fast.builder(NewMeld)
_ADD = _fast.builder(AddToMeld)
_BORROW = _fast.builder(Borrow)


def _set_ok(rank: Rank, counts: Sequence[int]) -> bool:
    n = sum(counts)
    if n < 3:
        return False
    if rank.is_noncomoquer:
        return True
    return max(counts) >= 3 or sum(1 for c in counts if c) >= 3


_CARD: dict[tuple[int, Suit], Card] = {(int(r), st): Card(r, st) for r in RANKS for st in SUITS}
"""Interned cards by (rank index, suit): building Card objects in the enumerators is the slow part."""


_SUIT_INDEX: dict[Suit, int] = {st: i for i, st in enumerate(SUITS)}
_NO_COUNTS = (0, 0, 0, 0)


class _HandIndex:
    """What the enumerators need to know about a hand (a Counter), computed once per hand.

    ``ranks``/``suits`` are built in the hand's iteration order, exactly as ``{c.rank for c in hand}``
    would be, so iterating them gives the same order.
    """

    __slots__ = ("counts", "ranks", "suit_ranks", "suits")

    def __init__(self, hand: Counter[Card]) -> None:
        rows: dict[Rank, list[int]] = {}
        ranks: set[Rank] = set()
        suits: set[Suit] = set()
        suit_ranks: dict[Suit, set[int]] = {st: set() for st in SUITS}
        for c, n in hand.items():
            rank, suit = c.rank, c.suit
            ranks.add(rank)
            suits.add(suit)
            suit_ranks[suit].add(int(rank))
            row = rows.get(rank)
            if row is None:
                row = rows[rank] = [0, 0, 0, 0]
            row[_SUIT_INDEX[suit]] += n
        counts: dict[Rank, tuple[int, int, int, int]] = dict.fromkeys(RANKS, _NO_COUNTS)
        for rank, row in rows.items():
            counts[rank] = (row[0], row[1], row[2], row[3])
        self.counts = counts  # per rank, how many of each suit (c d h s)
        self.ranks = ranks
        self.suits = suits
        self.suit_ranks = suit_ranks  # per suit, the ranks held (as ints)


@functools.lru_cache(maxsize=16384)
def _set_melds(ri: int, h: tuple[int, int, int, int], q: tuple[int, ...] | None) -> tuple[tuple[Card, ...], ...]:
    """The hand cards (``h`` held per suit) that make a legal set of rank ``ri`` with the required
    cards (``q`` per suit; None: no required card, so three hand cards or more), in enumeration order."""
    rank = Rank(ri)
    row = [_CARD[ri, st] for st in SUITS]
    qq = q if q is not None else _NO_COUNTS
    out: list[tuple[Card, ...]] = []
    for xs in product(*(range(n + 1) for n in h)):
        counts = [a + b for a, b in zip(qq, xs, strict=True)]
        if _set_ok(rank, counts) and (q is not None or sum(xs) >= 3):
            out.append(tuple(c for c, x in zip(row, xs, strict=True) for _ in range(x)))
    return tuple(out)


def new_melds(hand: Counter[Card], required: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Hand cards that, with all of ``required``, form a legal new meld (each distinct multiset once)."""
    return _new_melds(_HandIndex(hand), required)


def _new_melds(ix: _HandIndex, required: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    req_ranks = {c.rank for c in required}
    req_suits = {c.suit for c in required}
    # sets
    if len(req_ranks) <= 1:
        ranks = req_ranks if required else ix.ranks
        table = ix.counts
        if required:
            q = [0, 0, 0, 0]
            for c in required:
                q[_SUIT_INDEX[c.suit]] += 1
            qt = tuple(q)
            for rank in ranks:
                yield from _set_melds(int(rank), table[rank], qt)
        else:
            for rank in ranks:
                h = table[rank]
                if h[0] + h[1] + h[2] + h[3] >= 3:
                    yield from _set_melds(int(rank), h, None)
    # runs
    if required and (len(req_suits) != 1 or len(req_ranks) != len(required)):
        return
    suits = req_suits if required else ix.suits
    req = {int(c.rank) for c in required}
    for suit in suits:
        avail = ix.suit_ranks[suit] | req
        if len(avail) < 3:
            continue
        lo_req = min(req) if req else 11
        hi_req = max(req) if req else 0
        for a in range(1, 9):
            if a not in avail:
                continue
            if a > lo_req:
                break
            b = a
            while b + 1 <= 10 and b + 1 in avail:
                b += 1
                if b - a >= 2 and b >= hi_req:
                    yield tuple(_CARD[r, suit] for r in range(a, b + 1) if r not in req)


def _sub_multisets(cards: Counter[Card]) -> Iterator[tuple[Card, ...]]:
    keys = sorted(cards, key=_BY_RANK)
    for xs in product(*(range(cards[k] + 1) for k in keys)):
        yield tuple(k for k, x in zip(keys, xs, strict=True) for _ in range(x))


def set_adds(
    meld: Meld, hand: Counter[Card], required: Sequence[Card], index: _HandIndex | None = None
) -> Iterator[tuple[Card, ...]]:
    """Hand cards that may be added (with ``required``) to a set, without a split."""
    rank = meld.cards[0].rank
    if any(c.rank is not rank for c in required):
        return
    ix = index if index is not None else _HandIndex(hand)
    for sub in _rank_subs(int(rank), ix.counts[rank]):
        if sub or required:
            yield sub


@functools.lru_cache(maxsize=4096)
def _rank_subs(ri: int, h: tuple[int, int, int, int]) -> tuple[tuple[Card, ...], ...]:
    """Every sub-multiset of the cards of rank ``ri`` held ``h`` per suit, in the order of
    ``_sub_multisets`` (cards in Card order: by suit for one rank)."""
    keys = [(_CARD[ri, st], h[k]) for k, st in enumerate(SUITS) if h[k] > 0]
    return tuple(
        tuple(card for (card, _n), x in zip(keys, xs, strict=True) for _ in range(x))
        for xs in product(*(range(n + 1) for _c, n in keys))
    )


def run_adds(meld: Meld, hand: Counter[Card], required: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Hand cards that may be added (with ``required``) at the ends of a run, without a split."""
    suit = meld.cards[0].suit
    lo, hi = int(meld.cards[0].rank), int(meld.cards[-1].rank)
    if any(c.suit is not suit for c in required):
        return
    req = [int(c.rank) for c in required]
    if len(set(req)) != len(req) or any(lo <= r <= hi for r in req):
        return
    have = {int(c.rank) for c in hand if c.suit is suit}
    avail = have | set(req)
    lows = [lo]
    while lows[-1] - 1 >= 1 and lows[-1] - 1 in avail:
        lows.append(lows[-1] - 1)
    highs = [hi]
    while highs[-1] + 1 <= 10 and highs[-1] + 1 in avail:
        highs.append(highs[-1] + 1)
    for a in lows:
        for b in highs:
            if a == lo and b == hi:
                continue
            if req and (min(req) < a or max(req) > b):
                continue
            yield tuple(Card(Rank(r), suit) for r in (*range(a, lo), *range(hi + 1, b + 1)) if r not in req)


def run_splits(
    meld: Meld, hand: Counter[Card], required: Sequence[Card]
) -> Iterator[tuple[tuple[Card, ...], tuple[Card, ...]]]:
    """(hand cards added, cards of the new piece) for adds to a run that then cut it into two runs.

    Every way is found: for each multiset of added cards (all of ``required`` plus hand cards of the
    suit next to or inside the run), the combined ranks must cover one block with no gap, each rank
    at most twice, the doubled ranks forming one block; the two runs follow from that. Each cut is
    listed twice, once with each part as the new piece (the other keeps the number). A part equal to
    the old run is not a split (that would be a new meld).
    """
    suit = meld.cards[0].suit
    lo, hi = int(meld.cards[0].rank), int(meld.cards[-1].rank)
    if any(c.suit is not suit for c in required):
        return
    hand_r: dict[int, int] = {}
    for c, n in hand.items():
        if c.suit is suit and n > 0:
            r = int(c.rank)
            hand_r[r] = hand_r.get(r, 0) + n
    if not hand_r and not required:
        return  # nothing to add: no split
    req = Counter(int(c.rank) for c in required)
    a_min = lo
    while a_min - 1 >= 1 and (a_min - 1 in hand_r or req[a_min - 1] > 0):
        a_min -= 1
    b_max = hi
    while b_max + 1 <= 10 and (b_max + 1 in hand_r or req[b_max + 1] > 0):
        b_max += 1
    pool = {r: min(n, 1 if lo <= r <= hi else 2) for r, n in hand_r.items() if a_min <= r <= b_max}
    if not pool and not req:
        return  # nothing to add: no split
    plan = _run_split_plan(lo, hi, tuple(sorted(pool.items())), tuple(sorted(req.items())))
    for hand_ranks, (a, b) in plan:
        yield tuple(_CARD[r, suit] for r in hand_ranks), tuple(_CARD[r, suit] for r in range(a, b + 1))


@functools.lru_cache(maxsize=8192)
def _run_split_plan(
    lo: int, hi: int, pool_items: tuple[tuple[int, int], ...], req_items: tuple[tuple[int, int], ...]
) -> tuple[tuple[tuple[int, ...], tuple[int, int]], ...]:
    """run_splits by ranks (the suit is fixed): (ranks of the hand cards added, the new piece's rank
    range) for a run ``lo..hi``, hand ranks ``pool_items`` (rank, copies usable) and required ranks."""
    pool = dict(pool_items)
    req = Counter(dict(req_items))
    keys = sorted(pool)
    original = Counter(range(lo, hi + 1))
    seen: set[tuple[tuple[int, ...], tuple[int, int]]] = set()
    out: list[tuple[tuple[int, ...], tuple[int, int]]] = []
    for xs in product(*(range(pool[k] + 1) for k in keys)):
        extra = Counter({k: x for k, x in zip(keys, xs, strict=True) if x})
        added = extra + req
        if not added:
            continue
        combined = original + added
        if any(n > 2 for n in combined.values()):
            continue
        m, top = min(combined), max(combined)
        if len(combined) != top - m + 1:
            continue  # a gap
        twice = sorted(r for r, n in combined.items() if n == 2)
        pairs: set[tuple[tuple[int, int], tuple[int, int]]] = set()
        if twice:
            x, y = twice[0], twice[-1]
            if len(twice) != y - x + 1:
                continue
            for p, q in (((m, y), (x, top)), ((m, top), (x, y))):
                pairs.add((min(p, q), max(p, q)))
        else:
            pairs.update(((m, k), (k + 1, top)) for k in range(m + 2, top - 2))
        hand_ranks = tuple(sorted(extra.elements()))
        for p, q in sorted(pairs):
            if p[1] - p[0] < 2 or q[1] - q[0] < 2 or (lo, hi) in (p, q):
                continue
            for new in (q, p):  # both orientations: the upper part or the lower part takes the new number
                if (hand_ranks, new) not in seen:
                    seen.add((hand_ranks, new))
                    out.append((hand_ranks, new))
    return tuple(out)


def set_splits(
    meld: Meld, hand: Counter[Card], required: Sequence[Card], index: _HandIndex | None = None
) -> Iterator[tuple[tuple[Card, ...], tuple[Card, ...]]]:
    """(hand cards added, cards of the new piece) for adds to a set that then cut it into two sets."""
    ri = int(meld.cards[0].rank)
    original = [0, 0, 0, 0]
    for c in meld.cards:
        original[_SUIT_INDEX[c.suit]] += 1
    base = list(original)
    for c in required:  # all of the set's rank, or set_adds yields nothing
        base[_SUIT_INDEX[c.suit]] += 1
    orig = tuple(original)
    for added in set_adds(meld, hand, required, index):
        counts = list(base)
        for c in added:
            counts[_SUIT_INDEX[c.suit]] += 1
        for part in _set_split_parts(ri, tuple(counts), orig):
            yield added, part


@functools.lru_cache(maxsize=16384)
def _set_split_parts(ri: int, counts: tuple[int, ...], original: tuple[int, ...]) -> tuple[tuple[Card, ...], ...]:
    """The new pieces (cards) cutting a set of rank ``ri`` holding ``counts`` per suit into two legal
    sets, neither equal to the ``original`` meld, in enumeration order."""
    rank = Rank(ri)
    orig = list(original)
    out: list[tuple[Card, ...]] = []
    for part in product(*(range(n + 1) for n in counts)):
        rest = [n - p for n, p in zip(counts, part, strict=True)]
        if rest == orig or list(part) == orig:
            continue
        if _set_ok(rank, part) and _set_ok(rank, rest):
            out.append(tuple(_CARD[ri, s] for s, x in zip(SUITS, part, strict=True) for _ in range(x)))
    return tuple(out)


def _take_options(meld: Meld, rules: Rules) -> tuple[tuple[Card, ...], ...]:
    """Every non-empty multiset of cards that may be borrowed from ``meld`` at once (it stays legal).

    Agrees with :func:`pancog.game.melds.borrow_pieces` (tested), computed without re-validating.
    """
    if not meld.valid or len(meld.cards) < 4:
        return ()
    cards = meld.cards
    key = (id(cards), meld.kind, rules.borrow_split_rope)
    hit = _TAKE_BY_ID.get(key)
    if hit is not None and hit[0] is cards:
        return hit[1]
    found = _take_options_of(meld.kind, cards, rules.borrow_split_rope)
    if len(_TAKE_BY_ID) >= 4096:
        _TAKE_BY_ID.clear()
    _TAKE_BY_ID[key] = (cards, found)  # holding ``cards`` keeps its id from being reused
    return found


_TAKE_BY_ID: dict[tuple[int, MeldKind, bool], tuple[tuple[Card, ...], tuple[tuple[Card, ...], ...]]] = {}
"""_take_options by the identity of a meld's card tuple (shared between successive states): hashing
the cards for the lru_cache key costs more than the lookup saves."""


@functools.lru_cache(maxsize=4096)
def _take_options_of(kind: MeldKind, cards: tuple[Card, ...], split_rope: bool) -> tuple[tuple[Card, ...], ...]:
    n = len(cards)
    out: list[tuple[Card, ...]] = []
    if kind is _MELD_KIND_SET:
        rank = cards[0].rank
        counts = Counter(cards)
        keys = sorted(counts, key=_BY_RANK)
        have = [counts[k] for k in keys]
        for xs in product(*(range(c + 1) for c in have)):
            taken = sum(xs)
            if taken == 0 or n - taken < 3:
                continue
            rest = [c - x for c, x in zip(have, xs, strict=True)]
            if not (rank.is_noncomoquer or max(rest) >= 3 or sum(1 for r in rest if r) >= 3):
                continue
            out.append(tuple(k for k, x in zip(keys, xs, strict=True) for _ in range(x)))
        return tuple(out)
    # a run, low to high
    # ends: i cards from the low end and j from the high end, leaving a rope of 3 or more
    for i in range(n - 2):
        for j in range(n - 2 - i):
            ends = cards[:i] + cards[n - j :]
            if i or j:
                out.append(ends)
            if split_rope:
                # also a middle block, leaving two ropes of 3 or more
                core = cards[i : n - j]
                m = len(core)
                for a in range(3, m - 3):
                    for b in range(a + 1, m - 2):
                        out.append(ends + core[a:b])
    return tuple(out)


def _borrowable(melds: Sequence[Meld], rules: Rules) -> list[tuple[int, Card]]:
    """(meld, card) pairs that may be borrowed on their own."""
    out: list[tuple[int, Card]] = []
    for m in melds:
        if not m.valid:
            continue
        for card in dict.fromkeys(m.cards):
            if borrow_pieces(m, [card], rules) is not None:
                out.append((m.id, card))
    return out


def borrows(
    melds: Sequence[Meld],
    hand: Counter[Card],
    required: Sequence[Card],
    rules: Rules,
    max_taken: int | None = None,
    index: _HandIndex | None = None,
) -> Iterator[tuple[tuple[Card, ...], tuple[tuple[int, Card], ...]]]:
    """(hand cards, taken) for every distinct new meld that borrows cards from own melds.

    Any number of cards may be borrowed, from one meld or several, as long as every source meld
    stays legal (:func:`pancog.game.melds.borrow_pieces`); ``max_taken`` optionally bounds the
    number of borrowed cards. The new meld is a set of one rank or a run of one suit, so the
    borrowed cards are grouped by the rank or suit of the meld they would complete.
    """
    req_ranks = {c.rank for c in required}
    req_suits_pre = {c.suit for c in required}
    options: list[tuple[int, tuple[tuple[Card, ...], ...]]] = []
    for m in melds:
        if len(m.cards) < 4 or not m.valid:
            continue
        if required and not any(c.rank in req_ranks or c.suit in req_suits_pre for c in m.cards):
            continue  # nothing in it can join a meld with the drawn card
        opts = _take_options(m, rules)
        if opts:
            options.append((m.id, opts))
    if not options:
        return
    req_suits = {c.suit for c in required}
    in_hand = [c for c, n in hand.items() if n > 0]
    ix = index if index is not None else _HandIndex(hand)
    targets: list[tuple[str, Rank | Suit]] = []
    ranks = req_ranks if required else {c.rank for _, opts in options for t in opts for c in t}
    if not required:
        ranks &= {c.rank for c in in_hand}  # without a drawn card the new meld needs a hand card
    if len(ranks) == 1 or not required:
        targets.extend(("rank", r) for r in sorted(ranks))
    suits = req_suits if required else {c.suit for _, opts in options for t in opts for c in t}
    if not required:
        suits &= {c.suit for c in in_hand}
    if len(suits) == 1 or not required:
        targets.extend(("suit", st) for st in sorted(suits))
    seen: set[tuple[tuple[Card, ...], tuple[tuple[int, Card], ...]]] = set()
    req_has_drawn = bool(required)
    for kind, target in targets:
        per_meld: list[list[tuple[Card, ...]]] = []
        mids: list[int] = []
        for mid, opts in options:
            if kind == "rank":
                fit = [t for t in opts if all(c.rank is target for c in t)]
            else:
                fit = [t for t in opts if all(c.suit is target for c in t) and len({c.rank for c in t}) == len(t)]
            if fit:
                per_meld.append([(), *fit])
                mids.append(mid)
        for choice in product(*per_meld):
            taken = tuple((mid, c) for mid, t in zip(mids, choice, strict=True) for c in t)
            if not taken or (max_taken is not None and len(taken) > max_taken):
                continue
            if kind == "suit":
                ranks_taken = [int(c.rank) for _, c in taken] + [int(c.rank) for c in required]
                if len(set(ranks_taken)) != len(ranks_taken):
                    continue
                # the run must cover every rank between the lowest and highest fixed card
                have = set(ranks_taken) | {int(c.rank) for c in in_hand if c.suit is target}
                if any(r not in have for r in range(min(ranks_taken), max(ranks_taken) + 1)):
                    continue
            req = tuple(required) + tuple(c for _, c in taken)
            for cards in _new_melds(ix, req):
                if not cards and not req_has_drawn:
                    continue  # a borrow needs a hand card or the drawn card in the new meld
                key = (tuple(sorted(cards, key=_BY_RANK)), tuple(sorted(taken)))
                if key not in seen:
                    seen.add(key)
                    yield key


def could_use(hand: Sequence[Card], melds: Sequence[Meld], card: Card) -> bool:
    """A cheap necessary condition for ``card`` to be part of any meld play.

    Any meld holding ``card`` also holds two more cards of its rank (a set) or two cards of its
    suit that make a sequence of three with it (a run), from the hand, from an own run of that suit,
    or lent by an own meld of four or more cards; a set of its rank on the board always takes it.
    False means no play can use the card.
    """
    rank, suit, r = card.rank, card.suit, int(card.rank)
    same_rank = 0
    near: set[int] = set()
    for c in hand:
        if c.rank is rank:
            same_rank += 1
        elif c.suit is suit:
            near.add(int(c.rank))
    for m in melds:
        if not m.valid:
            continue
        first = m.cards[0]
        lends = len(m.cards) >= 4
        if m.kind is _MELD_KIND_SET:
            if first.rank is rank:
                return True  # it can always be added to a set of its rank
            if lends:
                near.update(int(c.rank) for c in m.cards if c.suit is suit)
        elif first.suit is suit:
            near.update(int(c.rank) for c in m.cards)  # adds, splits, or lent end cards
        elif lends:
            same_rank += sum(1 for c in m.cards if c.rank is rank)
    if same_rank >= 2:
        return True
    if r - 1 in near:
        return r - 2 in near or r + 1 in near
    return r + 1 in near and r + 2 in near


_HAND_BY_ID: dict[int, tuple[Sequence[Card], Counter[Card], _HandIndex]] = {}


def _hand_counts(hand: Sequence[Card]) -> tuple[Counter[Card], _HandIndex]:
    """``Counter(hand)`` and its index, cached by the identity of the hand tuple (a player's hand is the
    same tuple across the steps of his turn and the other players' turns). Neither is mutated."""
    key = id(hand)
    hit = _HAND_BY_ID.get(key)
    if hit is not None and hit[0] is hand:
        return hit[1], hit[2]
    hc = Counter(hand)
    ix = _HandIndex(hc)
    if isinstance(hand, tuple):  # only immutable hands can be reused
        if len(_HAND_BY_ID) >= 1024:
            _HAND_BY_ID.clear()
        _HAND_BY_ID[key] = (hand, hc, ix)  # holding ``hand`` keeps its id from being reused
    return hc, ix


def iter_meld_plays(
    seat: int,
    hand: Sequence[Card],
    melds: Sequence[Meld],
    drawn: Card | None,
    rules: Rules,
    *,
    new_meld_only: bool = False,
) -> Iterator[MeldPlayAction]:
    """Every distinct meld play candidate, lazily (cheap plays first); see :func:`meld_plays`."""
    if drawn is not None and not could_use(hand, melds, drawn):
        return
    hc, ix = _hand_counts(hand)
    required: tuple[Card, ...] = (drawn,) if drawn is not None else ()
    yield from (_NEW_MELD(seat=seat, cards=c) for c in _new_melds(ix, required))
    if not new_meld_only:
        for m in melds:
            if not m.valid:
                continue
            if m.kind is _MELD_KIND_SET:
                yield from (_ADD(seat=seat, meld=m.id, cards=c, split=None) for c in set_adds(m, hc, required, ix))
            else:
                yield from (_ADD(seat=seat, meld=m.id, cards=c, split=None) for c in run_adds(m, hc, required))
    yield from (_BORROW(seat=seat, cards=c, taken=t) for c, t in borrows(melds, hc, required, rules, index=ix))
    if new_meld_only:
        return
    for m in melds:
        if not m.valid:
            continue
        if m.kind is _MELD_KIND_SET:
            yield from (_ADD(seat=seat, meld=m.id, cards=c, split=p) for c, p in set_splits(m, hc, required, ix))
        else:
            yield from (_ADD(seat=seat, meld=m.id, cards=c, split=p) for c, p in run_splits(m, hc, required))


def meld_plays(
    seat: int,
    hand: Sequence[Card],
    melds: Sequence[Meld],
    drawn: Card | None,
    rules: Rules,
    *,
    new_meld_only: bool = False,
) -> list[MeldPlayAction]:
    """Every distinct legal meld play; with ``drawn`` each play includes it.

    New melds, adds, borrows of any number of cards, and adds that split a meld (each split in
    both orientations: either part may take the new meld number).
    """
    return list(iter_meld_plays(seat, hand, melds, drawn, rules, new_meld_only=new_meld_only))


def lay_offs(melds: Sequence[Meld], card: Card) -> bool:
    """Whether ``card`` alone fits a meld on this board (forcing, §5): an end of a run, or a set.

    A card inside a run's range also fits when adding it splits the run into two runs of three or
    more (e.g. ``6H`` on ``4H 5H 6H 7H JH`` gives ``4H 5H 6H`` + ``6H 7H JH``).
    """
    r = int(card.rank)
    for m in melds:
        if not m.valid:
            continue
        first = m.cards[0]
        if m.kind is _MELD_KIND_SET:
            if first.rank is card.rank:
                return True
        elif card.suit is first.suit:
            lo, hi = int(first.rank), int(m.cards[-1].rank)
            if r == lo - 1 or r == hi + 1 or lo + 2 <= r <= hi - 2:
                return True
    return False


def make_good_cards(meld: Meld, hand: Sequence[Card]) -> tuple[Card, ...] | None:
    """Some hand cards that make an invalid spread a legal meld, or None."""
    hc = Counter(hand)
    cards = meld.cards
    if len({c.rank for c in cards}) == 1:
        rank = cards[0].rank
        same = Counter({c: n for c, n in hc.items() if c.rank is rank})
        for sub in sorted(_sub_multisets(same), key=len):
            if sub and is_valid_set((*cards, *sub)):
                return sub
        return None
    for extra in new_melds(hc, cards):
        if extra and is_valid_run((*cards, *extra)):
            return extra
    return None


def make_good_options(meld: Meld, hand: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Every distinct group of hand cards that makes an invalid spread a legal meld."""
    hc = Counter(hand)
    cards = meld.cards
    if len({c.rank for c in cards}) == 1:
        rank = cards[0].rank
        same = Counter({c: n for c, n in hc.items() if c.rank is rank})
        yield from (sub for sub in _sub_multisets(same) if sub and is_valid_set((*cards, *sub)))
        return
    seen: set[tuple[Card, ...]] = set()
    for extra in new_melds(hc, cards):
        key = tuple(sorted(extra))
        if extra and key not in seen and is_valid_run((*cards, *extra)):
            seen.add(key)
            yield extra
