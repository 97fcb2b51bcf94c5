"""Melds (spreads) and conditions (pays): validity, values and the high-water accounting of §4.4.

A meld is a *run* (rope: three or more cards of one suit in sequence, 7 and J adjacent, no wrap)
or a *set* (square: three or more cards of one rank, all one suit or three different suits;
any three Aces or Kings). Values are in units at single stakes (RULES.md §4.1):

>>> from .cards import parse_cards
>>> from .rules import Rules
>>> meld_value(make_meld(1, parse_cards("5S 5S 5S"), Rules()), Rules())
4
>>> meld_value(make_meld(1, parse_cards("JS QS KS"), Rules()), Rules())
2
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter
from typing import Final

from pancog.game.i18n import N_

from . import _fast
from .cards import Card, Rank, Suit, format_cards
from .errors import IllegalMeld
from .rules import Rules, SetCharacter


class MeldKind(StrEnum):
    SET = "set"
    RUN = "run"


class Condition(StrEnum):
    """The paying kinds of meld (§4.1). ``NONE`` pays nothing."""

    NONE = "none"
    C1 = "c1"  # three valle of different suits
    C2 = "c2"  # three valle of one suit
    C3 = "c3"  # three non-valle of one suit
    C4 = "c4"  # a rope from the Ace or to the King


@dataclass(frozen=True, slots=True, kw_only=True)
class Meld:
    """One meld on a player's board.

    ``id`` is the stable number shown to players (1, 2, 3 ... in the order made; a split's new part
    takes the next free number). For a set, ``condition``/``suit`` are its character (fixed when it
    is made under ``set_character=static``) and ``paid`` the units already collected. For a run,
    ``paid`` is what its Ace end collected and ``paid_high`` its King end. ``valid`` is False only
    for a spread laid under ``enforcement=players`` that is not (yet) a legal meld.
    """

    id: int
    kind: MeldKind
    cards: tuple[Card, ...]
    condition: Condition = Condition.NONE
    suit: Suit | None = None
    paid: int = 0
    paid_high: int = 0
    valid: bool = True

    def __str__(self) -> str:
        return f"{self.id}: {format_cards(self.cards)}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Collection:
    """What a melding step earns, in units: ``new`` for conditions made, ``enhanced`` for conditions grown."""

    new: int = 0
    enhanced: int = 0

    @property
    def total(self) -> int:
        return self.new + self.enhanced

    def __add__(self, other: Collection) -> Collection:
        return Collection(new=self.new + other.new, enhanced=self.enhanced + other.enhanced)


NOTHING = Collection()

_BY_RANK = attrgetter("rank", "suit")  # the order of rank_order_key (and of Card's own ordering)
_BY_SUIT = attrgetter("suit", "rank")  # the order of suit_order_key

# ---------------------------------------------------------------------------------------------
# Validity
# ---------------------------------------------------------------------------------------------


def is_valid_set(cards: Sequence[Card]) -> bool:
    """Three or more of one rank: A/K any suits; else some suit three times or three distinct suits."""
    if len(cards) < 3:
        return False
    rank = cards[0].rank
    suits: dict[Suit, int] = {}
    for c in cards:
        if c.rank is not rank:
            return False
        suits[c.suit] = suits.get(c.suit, 0) + 1
    if rank is _RANK_ACE or rank is _RANK_KING:  # non-comoquer
        return True
    return len(suits) >= 3 or max(suits.values()) >= 3


def is_valid_run(cards: Sequence[Card]) -> bool:
    """Three or more cards of one suit with consecutive ranks (7-J adjacent), no repeats, no wrap."""
    if len(cards) < 3:
        return False
    suit = cards[0].suit
    ranks: list[int] = []
    for c in cards:
        if c.suit is not suit:
            return False
        ranks.append(c.rank)
    ranks.sort()
    prev = ranks[0]
    for r in ranks[1:]:
        if r != prev + 1:
            return False
        prev = r
    return True


def meld_kind(cards: Sequence[Card]) -> MeldKind | None:
    """The kind of a legal meld made of exactly ``cards``, or None."""
    if is_valid_set(cards):
        return _MELD_KIND_SET
    if is_valid_run(cards):
        return _MELD_KIND_RUN
    return None


def classify(cards: Sequence[Card]) -> MeldKind:
    """The kind of meld ``cards`` form.

    Raises:
        IllegalMeld: with a reason a player understands.
    """
    kind = meld_kind(cards)
    if kind is not None:
        return kind
    if len(cards) < 3:
        raise IllegalMeld(N_("A meld needs at least three cards."))
    listed = format_cards(cards)
    ranks = {c.rank for c in cards}
    if len(ranks) == 1:
        raise IllegalMeld(N_("{cards} is not a set: it must be all one suit or three different suits."), cards=listed)
    if len({c.suit for c in cards}) > 1:
        raise IllegalMeld(N_("{cards} is not a meld: a run must be all one suit."), cards=listed)
    raise IllegalMeld(
        N_("{cards} is not a run: the ranks must follow on (7 and J are adjacent, no wrap)."), cards=listed
    )


def sort_meld(kind: MeldKind, cards: Iterable[Card]) -> tuple[Card, ...]:
    """Canonical order: runs low to high, sets by suit."""
    # attrgetter keys order exactly as rank_order_key / suit_order_key, computed in C
    return tuple(sorted(cards, key=_BY_RANK if kind is _MELD_KIND_RUN else _BY_SUIT))


# ---------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------


def _spade_factor(suit: Suit | None, rules: Rules) -> int:
    return 2 if suit is _SUIT_SPADES and rules.spades_double else 1


def set_value(cards: Sequence[Card], condition: Condition, suit: Suit | None, rules: Rules) -> int:
    """Units a set of ``cards`` shows under the given character."""
    if condition is _CONDITION_C1:
        return 1 + rules.unsuited_valle_increment * (len(cards) - 3)
    if condition in (_CONDITION_C2, _CONDITION_C3):
        n = sum(1 for c in cards if c.suit is suit)
        if n < 3:
            return 0
        base = 2 if condition is _CONDITION_C2 else 1
        return (base + n - 3) * _spade_factor(suit, rules)
    return 0


def set_readings(cards: Sequence[Card], rules: Rules) -> list[tuple[Condition, Suit | None]]:
    """Every condition reading the set ``cards`` supports right now (possibly empty)."""
    rank = cards[0].rank
    suits: dict[Suit, int] = {}
    for c in cards:
        suits[c.suit] = suits.get(c.suit, 0) + 1
    found: list[tuple[Condition, Suit | None]] = []
    for suit, n in suits.items():
        if n >= 3:
            if rank.is_valle:
                found.append((_CONDITION_C2, suit))
            elif not rank.is_noncomoquer or rules.suited_ak_pays:
                found.append((_CONDITION_C3, suit))
    if rank.is_valle and len(suits) >= 3 and rules.unsuited_valle_pays:
        found.append((_CONDITION_C1, None))
    return found


def best_character(cards: Sequence[Card], rules: Rules) -> tuple[Condition, Suit | None]:
    """The highest-paying reading of a set (ties: the first suit in c d h s order), or NONE."""
    best: tuple[Condition, Suit | None] = (_CONDITION_NONE, None)
    best_value = 0
    for cond, suit in sorted(set_readings(cards, rules), key=lambda r: (r[1] or "", r[0])):
        value = set_value(cards, cond, suit, rules)
        if value > best_value:
            best, best_value = (cond, suit), value
    return best


def run_values(cards: Sequence[Card], rules: Rules) -> tuple[int, int]:
    """Units of a run's Ace end and King end (C4)."""
    suit = cards[0].suit
    factor = _spade_factor(suit, rules)
    has_ace = any(c.rank is _RANK_ACE for c in cards)
    has_king = any(c.rank is _RANK_KING for c in cards)
    low = factor if has_ace else 0
    high = factor if has_king and (rules.full_rope_counts_two or not has_ace) else 0
    return low, high


def meld_value(meld: Meld, rules: Rules) -> int:
    """Units the meld shows as it lies (what it adds to the outs)."""
    if not meld.valid:
        return 0
    if meld.kind is _MELD_KIND_RUN:
        low, high = run_values(meld.cards, rules)
        return low + high
    if rules.set_character is _SET_CHARACTER_DYNAMIC:
        cond, suit = best_character(meld.cards, rules)
        return set_value(meld.cards, cond, suit, rules)
    return set_value(meld.cards, meld.condition, meld.suit, rules)


def outs_units(melds: Iterable[Meld], rules: Rules) -> int:
    """The value of a board as it lies: the outs (§4.6)."""
    return sum(meld_value(m, rules) for m in melds)


def make_meld(meld_id: int, cards: Sequence[Card], rules: Rules) -> Meld:
    """A fresh, legal meld with nothing collected yet.

    Raises:
        IllegalMeld: if ``cards`` are not a legal meld.
    """
    key = cards if type(cards) is tuple else tuple(cards)
    hit = _MADE.get(key)
    if hit is not None and hit[0] is rules:
        made = hit[1]
        return made if made.id == meld_id else _fast.replace(made, id=meld_id)
    made = _make_meld(meld_id, key, rules)
    if len(_MADE) >= 8192:
        _MADE.clear()
    _MADE[key] = (rules, made)  # a meld is immutable: the same one serves every caller
    return made


_MADE: dict[tuple[Card, ...], tuple[Rules, Meld]] = {}
"""make_meld by its cards, for the rules object it was made under (the legal-move enumeration makes
the same melds over and over)."""


def _make_meld(meld_id: int, cards: Sequence[Card], rules: Rules) -> Meld:
    kind = classify(cards)
    if kind is _MELD_KIND_RUN:
        low, high = run_values(cards, rules)
        cond = _CONDITION_C4 if low or high else _CONDITION_NONE
        return Meld(id=meld_id, kind=kind, cards=sort_meld(kind, cards), condition=cond, suit=cards[0].suit)
    cond, suit = best_character(cards, rules)
    return Meld(id=meld_id, kind=kind, cards=sort_meld(kind, cards), condition=cond, suit=suit)


def invalid_meld(meld_id: int, cards: Sequence[Card]) -> Meld:
    """A spread that is not a legal meld (only under enforcement=players)."""
    kind = _MELD_KIND_RUN if len({c.rank for c in cards}) > 1 else _MELD_KIND_SET
    return Meld(id=meld_id, kind=kind, cards=sort_meld(kind, cards), valid=False)


# ---------------------------------------------------------------------------------------------
# Changing melds, with the per-condition high-water accounting of §4.4
# ---------------------------------------------------------------------------------------------


def _settle_set(meld: Meld, pool: int, rules: Rules, *, same_character: bool) -> tuple[Meld, Collection, int]:
    """Collect on a set given the collected amount it may inherit; returns (meld, collection, pool left)."""
    value = meld_value(meld, rules)
    inherited = min(pool, value) if same_character else 0
    gain = value - inherited
    meld = _fast.replace(meld, paid=value)
    if gain <= 0:
        return meld, NOTHING, pool - inherited
    coll = Collection(enhanced=gain) if inherited > 0 else Collection(new=gain)
    return meld, coll, pool - inherited


def _settle_run(meld: Meld, low_pool: int, high_pool: int, rules: Rules) -> tuple[Meld, Collection]:
    low, high = run_values(meld.cards, rules)
    coll = NOTHING
    for value, before in ((low, low_pool), (high, high_pool)):
        gain = value - before
        if gain > 0:
            coll = coll + (Collection(enhanced=gain) if before > 0 else Collection(new=gain))
    cond = _CONDITION_C4 if low or high else _CONDITION_NONE
    return _fast.replace(meld, paid=low, paid_high=high, condition=cond), coll


def added_cards(meld: Meld, cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """The meld's cards after adding ``cards``, if the result is still a legal meld of its kind."""
    combined = meld.cards + tuple(cards)
    if meld.kind is _MELD_KIND_SET:
        rank = meld.cards[0].rank
        if all(c.rank is rank for c in cards):
            return sort_meld(_MELD_KIND_SET, combined)
        return None
    if is_valid_run(combined):
        return sort_meld(_MELD_KIND_RUN, combined)
    return None


def extend(meld: Meld, cards: Sequence[Card], rules: Rules) -> tuple[Meld, Collection]:
    """Add ``cards`` to ``meld`` (no split) and collect any enhancement.

    Raises:
        IllegalMeld: if the cards cannot join the meld.
    """
    if not cards:
        raise IllegalMeld(N_("Add at least one card."))
    result = added_cards(meld, cards)
    if result is None:
        raise IllegalMeld(
            N_("{cards} cannot be added to meld {meld} ({meld_cards})."),
            cards=format_cards(cards),
            meld=meld.id,
            meld_cards=format_cards(meld.cards),
        )
    grown = _fast.replace(meld, cards=result)
    if meld.kind is _MELD_KIND_RUN:
        return _settle_run(grown, meld.paid, meld.paid_high, rules)
    if rules.set_character is _SET_CHARACTER_DYNAMIC:
        cond, suit = best_character(result, rules)
        grown = _fast.replace(grown, condition=cond, suit=suit)
    settled, coll, _ = _settle_set(grown, meld.paid, rules, same_character=True)
    return settled, coll


def _same_character(old: Meld, new: Meld, rules: Rules) -> bool:
    if rules.set_character is _SET_CHARACTER_DYNAMIC:
        return True
    return (old.condition, old.suit) == (new.condition, new.suit)


def remake(old: Meld, pieces: Sequence[tuple[int, tuple[Card, ...]]], rules: Rules) -> tuple[list[Meld], Collection]:
    """Re-make ``old`` as the legal melds ``pieces`` (split or borrow), passing on what it collected.

    The first piece keeps the old number. The piece that keeps a condition inherits what that
    condition collected; a condition in a new piece starts at 0; a value that falls lowers its
    collected amount with no refund (§4.4).

    Raises:
        IllegalMeld: if a piece is not a legal meld.
    """
    melds: list[Meld] = []
    total = NOTHING
    fresh_pieces = [make_meld(meld_id, cards, rules) for meld_id, cards in pieces]
    if any(fresh.kind is not old.kind for fresh in fresh_pieces):
        # a rope cut into a rope and a set (or the reverse) is a borrow: the legal menu lists it as one
        raise IllegalMeld(
            N_("A split leaves two melds of the same kind; to start a set with a rope's card, borrow it.")
        )
    if old.kind is _MELD_KIND_RUN:
        for fresh in fresh_pieces:
            has_ace = any(c.rank is _RANK_ACE for c in fresh.cards)
            has_king = any(c.rank is _RANK_KING for c in fresh.cards)
            settled, coll = _settle_run(fresh, old.paid if has_ace else 0, old.paid_high if has_king else 0, rules)
            melds.append(settled)
            total = total + coll
        return melds, total
    pool = old.paid
    for fresh in fresh_pieces:
        settled, coll, pool = _settle_set(fresh, pool, rules, same_character=_same_character(old, fresh, rules))
        melds.append(settled)
        total = total + coll
    return melds, total


def fresh_collection(meld: Meld, rules: Rules) -> tuple[Meld, Collection]:
    """Collect on a brand-new meld."""
    value = meld_value(meld, rules)
    if meld.kind is _MELD_KIND_RUN:
        low, high = run_values(meld.cards, rules)
        return _fast.replace(meld, paid=low, paid_high=high), Collection(new=value)
    return _fast.replace(meld, paid=value), Collection(new=value)


def can_borrow(meld: Meld, card: Card, rules: Rules) -> tuple[Card, ...] | None:
    """What stays of ``meld`` after taking one ``card`` (must stay one legal meld), or None.

    From a rope only an end card may be taken (a middle card only with ``borrow_split_rope``,
    handled by :func:`borrow_pieces`).
    """
    if not meld.valid or card not in meld.cards:
        return None
    rest = list(meld.cards)
    rest.remove(card)
    if meld.kind is _MELD_KIND_SET:
        return tuple(rest) if is_valid_set(rest) else None
    if card != meld.cards[0] and card != meld.cards[-1]:
        return None
    return tuple(rest) if is_valid_run(rest) else None


def borrow_pieces(meld: Meld, cards: Sequence[Card], rules: Rules) -> list[tuple[Card, ...]] | None:
    """The legal melds left after taking ``cards`` from ``meld``, or None if that is not allowed.

    Sets and ropes must stay one legal meld; with ``borrow_split_rope`` a rope may also be left as
    two legal ropes (a middle card taken).
    """
    if not meld.valid:
        return None
    have = Counter(meld.cards)
    want = Counter(cards)
    if want - have:
        return None
    rest = sort_meld(meld.kind, (have - want).elements())
    if meld.kind is _MELD_KIND_SET:
        return [rest] if is_valid_set(rest) else None
    if is_valid_run(rest):
        return [rest]
    if not rules.borrow_split_rope or len(rest) < 6:
        return None
    ranks = [int(c.rank) for c in rest]
    gaps = [i for i in range(1, len(rest)) if ranks[i] != ranks[i - 1] + 1]
    if len(gaps) != 1:
        return None
    left, right = rest[: gaps[0]], rest[gaps[0] :]
    if is_valid_run(left) and is_valid_run(right):
        return [left, right]
    return None


# Enum members read on hot paths, as module constants: reading a member through its class is slow
# in Python 3.11 (EnumType.__getattr__ makes every class attribute lookup go through a hook).
_CONDITION_C1: Final = Condition.C1
_CONDITION_C2: Final = Condition.C2
_CONDITION_C3: Final = Condition.C3
_CONDITION_C4: Final = Condition.C4
_CONDITION_NONE: Final = Condition.NONE
_MELD_KIND_RUN: Final = MeldKind.RUN
_MELD_KIND_SET: Final = MeldKind.SET
_RANK_ACE: Final = Rank.ACE
_RANK_KING: Final = Rank.KING
_SET_CHARACTER_DYNAMIC: Final = SetCharacter.DYNAMIC
_SUIT_SPADES: Final = Suit.SPADES
