"""Enumerate every distinct legal meld play (new meld, add, add with split, borrow) for one player.

Pure helpers for :func:`pancog.game.engine.legal_actions`. ``required`` cards (the waiting drawn or
option card) must be part of every play; other cards come from the hand (a multiset).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, product

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


def new_melds(hand: Counter[Card], required: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    """Hand cards that, with all of ``required``, form a legal new meld (each distinct multiset once)."""
    req_ranks = {c.rank for c in required}
    req_suits = {c.suit for c in required}
    # sets
    if len(req_ranks) <= 1:
        ranks = req_ranks if required else {c.rank for c in hand}
        for rank in ranks:
            q = [sum(1 for c in required if c.suit is s) for s in SUITS]
            h = [hand.get(Card(rank, s), 0) for s in SUITS]
            for xs in product(*(range(n + 1) for n in h)):
                counts = [a + b for a, b in zip(q, xs, strict=True)]
                if _set_ok(rank, counts) and (required or sum(xs) >= 3):
                    yield tuple(Card(rank, s) for s, x in zip(SUITS, xs, strict=True) for _ in range(x))
    # runs
    if required and (len(req_suits) != 1 or len(req_ranks) != len(required)):
        return
    suits = req_suits if required else {c.suit for c in hand}
    for suit in suits:
        have = {int(c.rank) for c in hand if c.suit is suit}
        req = {int(c.rank) for c in required}
        avail = have | req
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
                    yield tuple(Card(Rank(r), suit) for r in range(a, b + 1) if r not in req)


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
    """(hand cards added, cards of the new piece) for adds to a run that then cut it into two runs."""
    suit = meld.cards[0].suit
    lo, hi = int(meld.cards[0].rank), int(meld.cards[-1].rank)
    if any(c.suit is not suit for c in required):
        return
    req = Counter(int(c.rank) for c in required)
    avail = Counter(int(c.rank) for c in hand.elements() if c.suit is suit) + req
    a_min = lo
    while a_min - 1 >= 1 and avail[a_min - 1] > 0:
        a_min -= 1
    b_max = hi
    while b_max + 1 <= 10 and avail[b_max + 1] > 0:
        b_max += 1
    original = Counter(range(lo, hi + 1))
    for a1 in range(a_min, lo + 1):
        for a2 in range(max(lo, a1 + 2), b_max):
            for b1 in range(a1 + 1, min(hi, a2 + 1) + 1):
                for b2 in range(max(hi, b1 + 2, a2 + 1), b_max + 1):
                    combined = Counter(range(a1, a2 + 1)) + Counter(range(b1, b2 + 1))
                    if original - combined:
                        continue
                    added = combined - original
                    if not added or added - avail or req - added:
                        continue
                    from_hand = added - req
                    yield (
                        tuple(Card(Rank(r), suit) for r in sorted(from_hand.elements())),
                        tuple(Card(Rank(r), suit) for r in range(b1, b2 + 1)),
                    )


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


def _borrowable(melds: Sequence[Meld], rules: Rules) -> list[tuple[int, Card]]:
    out: list[tuple[int, Card]] = []
    for m in melds:
        if not m.valid:
            continue
        for card in dict.fromkeys(m.cards):
            if borrow_pieces(m, [card], rules) is not None:
                out.append((m.id, card))
    return out


def borrows(
    melds: Sequence[Meld], hand: Counter[Card], required: Sequence[Card], rules: Rules, max_taken: int = 2
) -> Iterator[tuple[tuple[Card, ...], tuple[tuple[int, Card], ...]]]:
    """(hand cards, taken) for new melds that borrow one or two cards from own melds."""
    single = _borrowable(melds, rules)
    by_id = {m.id: m for m in melds}
    seen: set[tuple[tuple[Card, ...], tuple[tuple[int, Card], ...]]] = set()
    for n in range(1, max_taken + 1):
        for taken in combinations(single, n):
            if n > 1:
                per: dict[int, list[Card]] = {}
                for mid, card in taken:
                    per.setdefault(mid, []).append(card)
                if any(borrow_pieces(by_id[mid], cards, rules) is None for mid, cards in per.items()):
                    continue
            req = tuple(required) + tuple(c for _, c in taken)
            for cards in new_melds(hand, req):
                key = (tuple(sorted(cards)), tuple(sorted(taken)))
                if key not in seen:
                    seen.add(key)
                    yield key


def meld_plays(
    seat: int,
    hand: Sequence[Card],
    melds: Sequence[Meld],
    drawn: Card | None,
    rules: Rules,
    *,
    new_meld_only: bool = False,
) -> list[MeldPlayAction]:
    """Every distinct legal meld play; with ``drawn`` each play includes it."""
    hc = Counter(hand)
    required: tuple[Card, ...] = (drawn,) if drawn is not None else ()
    plays: list[MeldPlayAction] = [NewMeld(seat=seat, cards=c) for c in new_melds(hc, required)]
    plays.extend(Borrow(seat=seat, cards=c, taken=t) for c, t in borrows(melds, hc, required, rules))
    if new_meld_only:
        return plays
    for m in melds:
        if not m.valid:
            continue
        if m.kind is MeldKind.SET:
            plays.extend(AddToMeld(seat=seat, meld=m.id, cards=c) for c in set_adds(m, hc, required))
            plays.extend(AddToMeld(seat=seat, meld=m.id, cards=c, split=p) for c, p in set_splits(m, hc, required))
        else:
            plays.extend(AddToMeld(seat=seat, meld=m.id, cards=c) for c in run_adds(m, hc, required))
            plays.extend(AddToMeld(seat=seat, meld=m.id, cards=c, split=p) for c, p in run_splits(m, hc, required))
    return plays


def lay_offs(melds: Sequence[Meld], card: Card) -> bool:
    """Whether ``card`` alone fits a meld on this board (forcing, §5): an end of a run, or a set."""
    for m in melds:
        if not m.valid:
            continue
        if m.kind is MeldKind.SET:
            if m.cards[0].rank is card.rank:
                return True
        elif card.suit is m.cards[0].suit:
            if is_valid_run((*m.cards, card)):
                return True
            if any(True for _ in run_splits(m, Counter(), (card,))):
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
