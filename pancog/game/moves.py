"""Enumerate every distinct legal meld play (new meld, add, add with split, borrow) for one player.

Pure helpers for :func:`pancog.game.engine.legal_actions`. ``required`` cards (the waiting drawn or
option card) must be part of every play; other cards come from the hand (a multiset).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import product

from .actions import AddToMeld, Borrow, NewMeld
from .cards import Card, Rank, Suit
from .melds import Meld, MeldKind, borrow_pieces, is_valid_run, is_valid_set
from .rules import Rules

SUITS: tuple[Suit, ...] = tuple(Suit)
RANKS: tuple[Rank, ...] = tuple(Rank)

MeldPlayAction = NewMeld | AddToMeld | Borrow


def _set_ok(rank: Rank, counts: Sequence[int]) -> bool:
    n = sum(counts)
    if n < 3:
        return False
    if rank.is_noncomoquer:
        return True
    return max(counts) >= 3 or sum(1 for c in counts if c) >= 3


_CARD: dict[tuple[int, Suit], Card] = {(int(r), st): Card(r, st) for r in RANKS for st in SUITS}
"""Interned cards by (rank index, suit): building Card objects in the enumerators is the slow part."""


def new_melds(hand: Counter[Card], required: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Hand cards that, with all of ``required``, form a legal new meld (each distinct multiset once)."""
    req_ranks = {c.rank for c in required}
    req_suits = {c.suit for c in required}
    # sets
    if len(req_ranks) <= 1:
        ranks = req_ranks if required else {c.rank for c in hand}
        for rank in ranks:
            ri = int(rank)
            row = [_CARD[ri, st] for st in SUITS]
            h = [hand.get(c, 0) for c in row]
            if required:
                q = [sum(1 for c in required if c.suit is st) for st in SUITS]
            elif sum(h) < 3:
                continue
            else:
                q = [0, 0, 0, 0]
            for xs in product(*(range(n + 1) for n in h)):
                counts = [a + b for a, b in zip(q, xs, strict=True)]
                if _set_ok(rank, counts) and (required or sum(xs) >= 3):
                    yield tuple(c for c, x in zip(row, xs, strict=True) for _ in range(x))
    # runs
    if required and (len(req_suits) != 1 or len(req_ranks) != len(required)):
        return
    suits = req_suits if required else {c.suit for c in hand}
    for suit in suits:
        have = {int(c.rank) for c in hand if c.suit is suit}
        req = {int(c.rank) for c in required}
        avail = have | req
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
    keys = sorted(cards)
    for xs in product(*(range(cards[k] + 1) for k in keys)):
        yield tuple(k for k, x in zip(keys, xs, strict=True) for _ in range(x))


def set_adds(meld: Meld, hand: Counter[Card], required: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Hand cards that may be added (with ``required``) to a set, without a split."""
    rank = meld.cards[0].rank
    if any(c.rank is not rank for c in required):
        return
    same = Counter({c: n for c, n in hand.items() if c.rank is rank})
    for sub in _sub_multisets(same):
        if sub or required:
            yield sub


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
    req = Counter(int(c.rank) for c in required)
    hand_r = Counter(int(c.rank) for c in hand.elements() if c.suit is suit)
    avail = hand_r + req
    a_min = lo
    while a_min - 1 >= 1 and avail[a_min - 1] > 0:
        a_min -= 1
    b_max = hi
    while b_max + 1 <= 10 and avail[b_max + 1] > 0:
        b_max += 1
    pool = {r: min(n, 1 if lo <= r <= hi else 2) for r, n in hand_r.items() if a_min <= r <= b_max}
    keys = sorted(pool)
    original = Counter(range(lo, hi + 1))
    seen: set[tuple[tuple[Card, ...], tuple[int, int]]] = set()
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
        hand_cards = tuple(_CARD[r, suit] for r in sorted(extra.elements()))
        for p, q in sorted(pairs):
            if p[1] - p[0] < 2 or q[1] - q[0] < 2 or (lo, hi) in (p, q):
                continue
            for new in (q, p):  # both orientations: the upper part or the lower part takes the new number
                if (hand_cards, new) not in seen:
                    seen.add((hand_cards, new))
                    yield hand_cards, tuple(_CARD[r, suit] for r in range(new[0], new[1] + 1))


def set_splits(
    meld: Meld, hand: Counter[Card], required: Sequence[Card]
) -> Iterator[tuple[tuple[Card, ...], tuple[Card, ...]]]:
    """(hand cards added, cards of the new piece) for adds to a set that then cut it into two sets."""
    rank = meld.cards[0].rank
    for added in set_adds(meld, hand, required):
        combined = Counter(meld.cards) + Counter(added) + Counter(required)
        counts = [combined.get(Card(rank, s), 0) for s in SUITS]
        original = [sum(1 for c in meld.cards if c.suit is s) for s in SUITS]
        for part in product(*(range(n + 1) for n in counts)):
            rest = [n - p for n, p in zip(counts, part, strict=True)]
            if rest == original or list(part) == original:
                continue
            if _set_ok(rank, part) and _set_ok(rank, rest):
                yield added, tuple(Card(rank, s) for s, x in zip(SUITS, part, strict=True) for _ in range(x))


def _take_options(meld: Meld, rules: Rules) -> tuple[tuple[Card, ...], ...]:
    """Every non-empty multiset of cards that may be borrowed from ``meld`` at once (it stays legal).

    Agrees with :func:`pancog.game.melds.borrow_pieces` (tested), computed without re-validating.
    """
    if not meld.valid or len(meld.cards) < 4:
        return ()
    return _take_options_of(meld.kind, meld.cards, rules.borrow_split_rope)


@functools.lru_cache(maxsize=4096)
def _take_options_of(kind: MeldKind, cards: tuple[Card, ...], split_rope: bool) -> tuple[tuple[Card, ...], ...]:
    n = len(cards)
    out: list[tuple[Card, ...]] = []
    if kind is MeldKind.SET:
        rank = cards[0].rank
        counts = Counter(cards)
        keys = sorted(counts)
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
            for cards in new_melds(hand, req):
                if not cards and not req_has_drawn:
                    continue  # a borrow needs a hand card or the drawn card in the new meld
                key = (tuple(sorted(cards)), tuple(sorted(taken)))
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
        if m.kind is MeldKind.SET:
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
    hc = Counter(hand)
    required: tuple[Card, ...] = (drawn,) if drawn is not None else ()
    yield from (NewMeld(seat=seat, cards=c) for c in new_melds(hc, required))
    if not new_meld_only:
        for m in melds:
            if not m.valid:
                continue
            if m.kind is MeldKind.SET:
                yield from (AddToMeld(seat=seat, meld=m.id, cards=c) for c in set_adds(m, hc, required))
            else:
                yield from (AddToMeld(seat=seat, meld=m.id, cards=c) for c in run_adds(m, hc, required))
    yield from (Borrow(seat=seat, cards=c, taken=t) for c, t in borrows(melds, hc, required, rules))
    if new_meld_only:
        return
    for m in melds:
        if not m.valid:
            continue
        if m.kind is MeldKind.SET:
            yield from (AddToMeld(seat=seat, meld=m.id, cards=c, split=p) for c, p in set_splits(m, hc, required))
        else:
            yield from (AddToMeld(seat=seat, meld=m.id, cards=c, split=p) for c, p in run_splits(m, hc, required))


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
        if m.kind is MeldKind.SET:
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
