"""Card-room heuristics over cards and melds: what a hand is worth, what a card is worth to a board.

Everything here is pure and works on one seat's knowledge only: its hand, the public boards and the
cards it has seen. ``unseen`` is the multiset of cards this seat has not seen (the shoe minus its
hand, every board and the face-up discards); drawing probabilities are estimated from it.

Vocabulary (see ``docs/ai.md``):

- a *hit* is a card that could be used at once: it forms a meld with cards in the hand, or it lays
  off on one of the player's own melds;
- *made* cards are hand cards already forming melds (they go down with the next hit);
- a position's value is progress (cards on the board, made cards) plus the chance that the next
  card is a hit, weighted by the condition units such a hit would collect.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pancog.game.actions import AddToMeld, Borrow, NewMeld
from pancog.game.cards import ALL_CARDS, Card, Rank, Suit
from pancog.game.errors import PanError
from pancog.game.melds import (
    Meld,
    MeldKind,
    borrow_pieces,
    extend,
    fresh_collection,
    is_valid_run,
    make_meld,
    remake,
)
from pancog.game.moves import lay_offs
from pancog.game.rules import Rules

SUITS: tuple[Suit, ...] = tuple(Suit)

MeldPlay = NewMeld | AddToMeld | Borrow


@dataclass(frozen=True, slots=True, kw_only=True)
class Weights:
    """Tunable weights of :func:`position_value` (the normal level's evaluation)."""

    board: float = 1.0  # per card on the board
    made: float = 0.55  # per hand card already in a meld
    hits: float = 5.0  # times the (weighted) chance that the next card is a hit
    unit: float = 0.35  # extra hit weight per condition unit (times payers / 5)
    pair: float = 0.15  # per pair or near-sequence kept in the hand
    valle: float = 0.05  # per valle card kept in the hand (condition potential)
    chip: float = 0.12  # per chip collected now


WEIGHTS = Weights()


def unseen_cards(rules: Rules, seen: Iterable[Card]) -> list[int]:
    """The shoe minus ``seen`` as a 40-slot count vector (copies never go below zero)."""
    v = list(shoe_counts(rules))
    for c in seen:
        i = CARD_INDEX[c]
        if v[i] > 0:
            v[i] -= 1
    return v


# ---------------------------------------------------------------------------------------------
# Hits: which cards a hand and board could use at once
# ---------------------------------------------------------------------------------------------


CARD_INDEX: dict[Card, int] = {c: i for i, c in enumerate(ALL_CARDS)}
"""Index of each card face in :data:`ALL_CARDS` (suit-major: ``suit * 10 + rank - 1``)."""

_SUIT_POS = {s: k for k, s in enumerate(SUITS)}


def counts_of(cards: Iterable[Card]) -> list[int]:
    """A 40-slot count vector (by :data:`CARD_INDEX`) of a multiset of cards."""
    v = [0] * 40
    for c in cards:
        v[CARD_INDEX[c]] += 1
    return v


def _forms(v: Sequence[int], idx: int) -> bool:
    """Whether card ``idx`` and cards of count vector ``v`` form a new legal meld.

    Written out without lists or closures: the evaluation asks it for each of the 40 faces of every hand it scores,
    and the hand panel scores every legal play to order its menu."""
    r0 = idx % 10  # rank - 1
    if r0 == 0 or r0 == 9:  # aces and kings: any three
        if v[r0] + v[10 + r0] + v[20 + r0] + v[30 + r0] >= 2:
            return True
    else:
        if v[idx] >= 2:
            return True
        suits = (v[r0] > 0) + (v[10 + r0] > 0) + (v[20 + r0] > 0) + (v[30 + r0] > 0) - (v[idx] > 0)
        if suits >= 2:  # two other suits of the rank
            return True
    below = r0 >= 1 and v[idx - 1] > 0
    above = r0 <= 8 and v[idx + 1] > 0
    return (below and r0 >= 2 and v[idx - 2] > 0) or (below and above) or (above and r0 <= 7 and v[idx + 2] > 0)


def forms_with_hand(card: Card, hand: Counter[Card]) -> bool:
    """Whether ``card`` and some hand cards form a new legal meld."""
    return _forms(counts_of(hand.elements()), CARD_INDEX[card])


def _units(
    idx: int, v: Sequence[int], rules: Rules, faces: tuple[tuple[int, int, bool], ...], on_board: tuple[int, ...]
) -> int:
    """Rough condition units the best simple use of card ``idx`` would collect with the hand of count vector ``v``
    (0 if none), from tables made once: ``faces`` (:func:`_faces`) and ``on_board`` (:func:`_board_units`).

    The evaluation asks it for every face that is a hit of every hand it scores (the hand panel scores every legal
    play to order its menu), so the rank's flags and the board's melds are looked up, not worked out each time."""
    factor, suited, valle = faces[idx]
    best = suited if v[idx] >= 2 else 0  # a suited set of it
    r0 = idx % 10
    others = (v[r0] > 0) + (v[10 + r0] > 0) + (v[20 + r0] > 0) + (v[30 + r0] > 0) - (v[idx] > 0) if valle else 0
    if others >= 2 and best < 1 and rules.unsuited_valle_pays:
        best = 1  # an unsuited valle set
    if best < factor:
        base = idx - r0
        if r0 <= 2 and (v[base] or r0 == 0) and (v[base + 1] or r0 == 1) and (v[base + 2] or r0 == 2):
            best = factor  # A-2-3 with this card
        elif r0 >= 7 and (v[base + 7] or r0 == 7) and (v[base + 8] or r0 == 8) and (v[base + 9] or r0 == 9):
            best = factor  # J-Q-K with this card
    bonus = on_board[idx]
    return bonus if bonus > best else best


@lru_cache(maxsize=8)
def _faces(spades_double: bool, suited_ak_pays: bool) -> tuple[tuple[int, int, bool], ...]:
    """Per face (by :data:`CARD_INDEX`): its factor (2 for a spade when spades pay double), the units a suited set
    of it collects (0 when such a set pays nothing) and whether it is a valle card."""
    spades = _SUIT_POS[Suit.SPADES]
    out: list[tuple[int, int, bool]] = []
    for idx in range(40):
        s, r0 = divmod(idx, 10)
        rank = Rank(r0 + 1)
        factor = 2 if s == spades and spades_double else 1
        suited = (2 if rank.is_valle else 1) * factor if (not rank.is_noncomoquer or suited_ak_pays) else 0
        out.append((factor, suited, rank.is_valle))
    return tuple(out)


@lru_cache(maxsize=4096)
def _board_units(board: tuple[Meld, ...], rules: Rules) -> tuple[int, ...]:
    """Per face: its factor when a valid meld of ``board`` takes it for a condition (a paid set of its rank and
    suit; a run of its suit from the Two, for an Ace, or to the Queen, for a King), else 0."""
    faces = _faces(rules.spades_double, rules.suited_ak_pays)
    out = [0] * 40
    for m in board:
        if not m.valid:
            continue
        first = m.cards[0]
        for idx in range(40):
            s, r0 = divmod(idx, 10)
            if m.kind is MeldKind.SET:
                takes = first.rank is Rank(r0 + 1) and m.suit is SUITS[s] and m.paid > 0
            else:
                takes = first.suit is SUITS[s] and (
                    (r0 == 0 and first.rank is Rank.TWO) or (r0 == 9 and m.cards[-1].rank is Rank.QUEEN)
                )
            if takes:
                out[idx] = faces[idx][0]
    return tuple(out)


@lru_cache(maxsize=64)
def shoe_counts(rules: Rules) -> tuple[int, ...]:
    """Copies of each of the 40 faces in the shoe ``rules`` deal from."""
    return tuple(counts_of(rules.shoe()))


def hit_chance(
    hand: Sequence[Card],
    board: Sequence[Meld],
    unseen: Counter[Card] | Sequence[int],
    rules: Rules,
    *,
    payers: int = 5,
    unit_weight: float = WEIGHTS.unit,
) -> float:
    """The chance that a card drawn from ``unseen`` is a hit, each hit weighted by the units it collects."""
    u = unseen if not isinstance(unseen, Counter) else counts_of(unseen.elements())
    return _hit_chance(counts_of(hand), tuple(board), u, rules, unit_weight * payers / 5.0)


def _hit_chance(v: Sequence[int], board: tuple[Meld, ...], u: Sequence[int], rules: Rules, scale: float) -> float:
    total = sum(u)
    if total <= 0:
        return 0.0
    faces = _faces(rules.spades_double, rules.suited_ak_pays)
    on_board = _board_units(board, rules)
    hits = _board_fits_mask(board) | _forming(v)
    acc = 0.0
    while hits:  # the hit faces in index order (the sum's order, so the same float as face by face)
        low = hits & -hits
        idx = low.bit_length() - 1
        hits ^= low
        n = u[idx]
        if n:
            acc += n * (1.0 + scale * _units(idx, v, rules, faces, on_board))
    return acc / total


def _forming(v: Sequence[int]) -> int:
    """The faces that form a new legal meld with the cards of count vector ``v``, as bits (bit ``idx``: face
    ``idx``): :func:`_forms` of every face at once, the runs as shifts of each suit's row of present ranks."""
    out = 0
    rows = [0, 0, 0, 0]
    for r0 in range(10):
        a, b, c, d = v[r0], v[10 + r0], v[20 + r0], v[30 + r0]
        if not (a or b or c or d):
            continue
        bit = 1 << r0
        if a:
            rows[0] |= bit
        if b:
            rows[1] |= bit
        if c:
            rows[2] |= bit
        if d:
            rows[3] |= bit
        if r0 == 0 or r0 == 9:  # aces and kings: any three
            if a + b + c + d >= 2:
                out |= bit | bit << 10 | bit << 20 | bit << 30
            continue
        present = (a > 0) + (b > 0) + (c > 0) + (d > 0)
        for k, x in enumerate((a, b, c, d)):
            if x >= 2 or present - (x > 0) >= 2:  # a suited pair, or two other suits of the rank
                out |= bit << (10 * k)
    for k, row in enumerate(rows):
        below, above = row << 1, row >> 1
        runs = ((below & row << 2) | (below & above) | (above & row >> 2)) & 0x3FF
        out |= runs << (10 * k)
    return out


@lru_cache(maxsize=4096)
def _board_fits_mask(board: tuple[Meld, ...]) -> int:
    """The faces that lay off on ``board``, as bits (bit ``idx``: face ``idx``)."""
    return sum(1 << idx for idx, card in enumerate(ALL_CARDS) if lay_offs(board, card))


# ---------------------------------------------------------------------------------------------
# Hand structure
# ---------------------------------------------------------------------------------------------


def made_cards(hand: Sequence[Card]) -> int:
    """How many hand cards a greedy cover by disjoint legal melds uses (sets first, then runs)."""
    return _made(counts_of(hand))


def _made(v: Sequence[int]) -> int:
    """:func:`made_cards` of a count vector (``v`` itself is not changed)."""
    left = list(v)
    used = 0
    for r0 in range(10):
        if not (left[r0] or left[10 + r0] or left[20 + r0] or left[30 + r0]):
            continue
        idxs = (r0, 10 + r0, 20 + r0, 30 + r0)
        for i in idxs:
            if left[i] >= 3:
                threes = left[i] // 3
                left[i] -= 3 * threes
                used += 3 * threes
        if r0 in (0, 9):
            n = left[r0] + left[10 + r0] + left[20 + r0] + left[30 + r0]
            if n >= 3:
                used += n
                for i in idxs:
                    left[i] = 0
        else:
            while (left[r0] > 0) + (left[10 + r0] > 0) + (left[20 + r0] > 0) + (left[30 + r0] > 0) >= 3:
                present = sorted((i for i in idxs if left[i]), key=lambda i: -left[i])
                for i in present[:3]:
                    left[i] -= 1
                used += 3
    for base in (0, 10, 20, 30):
        r = 0
        while r < 8:  # a run starting at r needs r + 2 <= 9
            length = 0
            while r + length < 10 and left[base + r + length] > 0:
                length += 1
            if length >= 3:
                for j in range(length):
                    left[base + r + j] -= 1
                used += length
            r += length or 1
    return used


def near_melds(hand: Sequence[Card]) -> int:
    """Pairs and near-sequences (two cards one card short of a meld), counted once per card pair."""
    return _near(counts_of(hand))


def _near(v: Sequence[int]) -> int:
    """:func:`near_melds` of a count vector."""
    n = 0
    for idx in range(40):
        k = v[idx]
        if not k:
            continue
        r0 = idx % 10
        if k >= 2:
            n += 1
        if r0 == 0 or r0 == 9:
            continue
        if v[idx + 1]:  # r0 <= 8: the next rank of the suit is on the row
            n += 1
        if r0 <= 7 and v[idx + 2]:
            n += 1
    for r0 in range(10):
        a, b, c, d = v[r0], v[10 + r0], v[20 + r0], v[30 + r0]
        if r0 == 0 or r0 == 9:
            if a + b + c + d >= 2:
                n += 1
        elif (a > 0) + (b > 0) + (c > 0) + (d > 0) >= 2:
            n += 1
    return n


_VALLES = tuple(idx for idx in range(40) if Rank(idx % 10 + 1).is_valle)


def position_value(
    board: Sequence[Meld],
    hand: Sequence[Card],
    unseen: Sequence[int],
    rules: Rules,
    *,
    payers: int = 5,
    weights: Weights = WEIGHTS,
) -> float:
    """The normal level's value of a board and hand between turns (higher is better).

    The hand's count vector is made once for its four terms (the panel asks this of every discard of every hand it
    ranks); the terms and their order of addition are those of :func:`made_cards`, :func:`hit_chance` and
    :func:`near_melds`, so the value is the same float to the last bit."""
    board_cards = sum(len(m.cards) for m in board)
    if board_cards >= 11:
        return 1000.0
    v = counts_of(hand)
    u = unseen if not isinstance(unseen, Counter) else counts_of(unseen.elements())
    value = weights.board * board_cards
    value += weights.made * _made(v)
    value += weights.hits * _hit_chance(v, tuple(board), u, rules, weights.unit * payers / 5.0)
    value += weights.pair * _near(v)
    value += weights.valle * sum(v[i] for i in _VALLES)
    return value


# ---------------------------------------------------------------------------------------------
# What a meld play does to a board (own-board simulation for evaluation)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """A board and hand after a meld play, and the condition units it collected."""

    board: tuple[Meld, ...]
    hand: tuple[Card, ...]
    units: int


def _take(hand: Sequence[Card], cards: Iterable[Card]) -> tuple[Card, ...] | None:
    have = Counter(hand)
    want = Counter(cards)
    if want - have:
        return None
    return tuple(sorted((have - want).elements()))


def apply_meld_play(
    board: Sequence[Meld], hand: Sequence[Card], drawn: Card | None, play: MeldPlay, rules: Rules
) -> Outcome | None:
    """Simulate ``play`` on one's own board (None if it does not apply cleanly).

    Mirrors the engine's meld accounting closely enough to rank plays; the engine stays the authority.
    """
    extra: tuple[Card, ...] = (drawn,) if drawn is not None else ()
    rest = _take(hand, play.cards)
    if rest is None:
        return None
    next_id = max((m.id for m in board), default=0) + 1
    try:
        match play:
            case NewMeld():
                meld, coll = fresh_collection(make_meld(next_id, (*play.cards, *extra), rules), rules)
                return Outcome(board=(*board, meld), hand=rest, units=coll.total)
            case AddToMeld():
                target = next((m for m in board if m.id == play.meld), None)
                if target is None:
                    return None
                added = (*play.cards, *extra)
                if play.split is None:
                    grown, coll = extend(target, added, rules)
                    new_board = tuple(grown if m.id == target.id else m for m in board)
                    return Outcome(board=new_board, hand=rest, units=coll.total)
                combined = Counter(target.cards) + Counter(added)
                keep = tuple((combined - Counter(play.split)).elements())
                pieces, coll = remake(target, [(target.id, keep), (next_id, play.split)], rules)
                new_board = tuple(m for m in board if m.id != target.id) + tuple(pieces)
                return Outcome(board=new_board, hand=rest, units=coll.total)
            case Borrow():
                per: dict[int, list[Card]] = {}
                for mid, card in play.taken:
                    per.setdefault(mid, []).append(card)
                changed: list[Meld] = []
                units = 0
                for mid, cards in per.items():
                    src = next((m for m in board if m.id == mid), None)
                    if src is None:
                        return None
                    pieces_cards = borrow_pieces(src, cards, rules)
                    if pieces_cards is None:
                        return None
                    ids = [src.id] + [next_id + 100 + i for i in range(len(pieces_cards) - 1)]
                    remade, coll = remake(src, list(zip(ids, pieces_cards, strict=True)), rules)
                    changed.extend(remade)
                    units += coll.total
                new_cards = (*play.cards, *extra, *(c for _, c in play.taken))
                meld, coll = fresh_collection(make_meld(next_id, new_cards, rules), rules)
                kept = tuple(m for m in board if m.id not in per)
                return Outcome(board=(*kept, *changed, meld), hand=rest, units=units + coll.total)
    except Exception:
        return None
    return None


def fits_board(card: Card, board: Sequence[Meld]) -> bool:
    """Whether ``card`` lays off on ``board`` (so it can be taken as an option or forced)."""
    return lay_offs(board, card)


def _extend_units(meld: Meld, card: Card, rules: Rules) -> int:
    """Units that laying ``card`` off on ``meld`` collects (0 if it does not fit)."""
    if not meld.valid:
        return 0
    if meld.kind is MeldKind.SET:
        if meld.cards[0].rank is not card.rank:
            return 0
    elif not is_valid_run((*meld.cards, card)):
        return 0
    try:
        _grown, coll = extend(meld, (card,), rules)
    except PanError:
        return 0
    return coll.total


def layoff_units(card: Card, board: Sequence[Meld], rules: Rules) -> int:
    """The most units laying ``card`` off on ``board`` would collect (enhancing a suited set or a C4 end)."""
    return max((_extend_units(m, card, rules) for m in board), default=0)
