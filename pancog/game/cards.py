"""Cards, ranks, suits, notation and the shoe.

Pan is dealt from several 40-card packs (no 8s, 9s, 10s or jokers), so identical cards
repeat: a hand is a *multiset*, kept as a sorted ``tuple[Card, ...]``. Ranks run
A 2 3 4 5 6 7 J Q K with **7 and J adjacent**; aces are always low and nothing wraps.

Notation: rank then suit, case-insensitive, with letters or symbols:
``5S``, ``5s``, ``5♠``, ``Q♥``, ``qh``; ``1``/``A`` for aces. Cards print as ``5S``.

>>> parse_cards("5s, Q♥ ah")
(Card(rank=<Rank.FIVE: 5>, suit=<Suit.SPADES: 's'>), Card(rank=<Rank.QUEEN: 9>, suit=<Suit.HEARTS: 'h'>), \
Card(rank=<Rank.ACE: 1>, suit=<Suit.HEARTS: 'h'>))
>>> format_cards(parse_cards("7h jh qh"))
'7H JH QH'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from operator import attrgetter

from pancog.game.i18n import N_

from .errors import CardsNotInHand, NotationError


class Suit(StrEnum):
    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOL[self]

    @property
    def letter(self) -> str:
        return self.value.upper()

    @property
    def name_plural(self) -> str:
        return self.name.lower()


_SUIT_SYMBOL = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}


class Rank(IntEnum):
    """Pan ranks, indexed so that consecutive values are adjacent in a sequence (7 then J)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    JACK = 8
    QUEEN = 9
    KING = 10

    @property
    def successor(self) -> Rank | None:
        """The next rank up in a sequence (7 -> J), or None after the King (no wrap)."""
        return None if self is Rank.KING else Rank(self.value + 1)

    @property
    def predecessor(self) -> Rank | None:
        """The next rank down (J -> 7), or None below the Ace (no wrap)."""
        return None if self is Rank.ACE else Rank(self.value - 1)

    @property
    def letter(self) -> str:
        return _RANK_LETTER[self]

    @property
    def is_valle(self) -> bool:
        """Valle cards (cards of value): every 3, 5 and 7."""
        return self in (Rank.THREE, Rank.FIVE, Rank.SEVEN)

    @property
    def is_noncomoquer(self) -> bool:
        """Aces and Kings: any three form a set whatever their suits."""
        return self in (Rank.ACE, Rank.KING)


_RANK_LETTER = {
    Rank.ACE: "A",
    Rank.TWO: "2",
    Rank.THREE: "3",
    Rank.FOUR: "4",
    Rank.FIVE: "5",
    Rank.SIX: "6",
    Rank.SEVEN: "7",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
}


_SUIT_INDEX = {suit: i for i, suit in enumerate(Suit)}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One physical card's face. Several decks mean equal Cards repeat."""

    rank: Rank
    suit: Suit
    # the hash, computed once: Cards are hashed in every Counter of the engine, the AI and the edge's check, and the
    # generated hash (a tuple of two enums) was ~3 % of the bot's main process; half as dear now
    # (`bench/engine.py`; docs/performance.md). An int of the face alone, never a str's hash: a Card pickled to a
    # render worker keeps its _hash, and str hashes differ from process to process.
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", int(self.rank) * 8 + _SUIT_INDEX[self.suit])

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return f"{self.rank.letter}{self.suit.letter}"

    @property
    def pretty(self) -> str:
        """Rank with a suit symbol, e.g. ``5♠``."""
        return f"{self.rank.letter}{self.suit.symbol}"

    @property
    def is_valle(self) -> bool:
        return self.rank.is_valle


# Sorting key used for hands everywhere: by suit (c d h s), then rank.
def suit_order_key(card: Card) -> tuple[str, int]:
    return (card.suit.value, int(card.rank))


def rank_order_key(card: Card) -> tuple[int, str]:
    return (int(card.rank), card.suit.value)


ALL_CARDS: tuple[Card, ...] = tuple(Card(r, s) for s in Suit for r in Rank)  # the 40-card pack

_RANK_PARSE = {
    "A": Rank.ACE,
    "1": Rank.ACE,
    "2": Rank.TWO,
    "3": Rank.THREE,
    "4": Rank.FOUR,
    "5": Rank.FIVE,
    "6": Rank.SIX,
    "7": Rank.SEVEN,
    "J": Rank.JACK,
    "Q": Rank.QUEEN,
    "K": Rank.KING,
}
_SUIT_PARSE = {
    "C": Suit.CLUBS,
    "D": Suit.DIAMONDS,
    "H": Suit.HEARTS,
    "S": Suit.SPADES,
    "♣": Suit.CLUBS,
    "♧": Suit.CLUBS,
    "♦": Suit.DIAMONDS,
    "♢": Suit.DIAMONDS,
    "♥": Suit.HEARTS,
    "♡": Suit.HEARTS,
    "♠": Suit.SPADES,
    "♤": Suit.SPADES,
}
EXAMPLES = ("like 5S, QH or 7♦", "like 5S or QH", "like 5S 5S 5S")
"""The notation examples the parse errors give: fixed text, not anyone's cards (the bot's edge skips them)."""

_SEPARATORS = re.compile(r"[\s,;]+")
EXCERPT_MAX = 12
"""Refusals quote at most this many characters of what the player typed, then a clear cut (``…``)."""


def excerpt(text: str, limit: int = EXCERPT_MAX) -> str:
    """``text`` stripped and cut to ``limit`` characters (``…`` marks the cut), for quoting input in a refusal."""
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_card(text: str) -> Card:
    """Read one card such as ``5S``, ``qh`` or ``Q♥``.

    Raises:
        NotationError: for anything that is not a Pan card, with a reason a player understands.
    """
    token = text.strip().upper().replace("\ufe0f", "")  # drop emoji variation selectors
    if not token:
        raise NotationError(N_("No card given. Write cards {example}."), example=EXAMPLES[0])
    if token in ("JOKER", "JK", "JKR", "X", "*", "W") or "JOKER" in token:
        raise NotationError(N_("Pan is played without jokers or wild cards."))
    if len(token) < 2:
        raise NotationError(
            N_("'{text}' is not a card. Write a rank and a suit, {example}."), text=excerpt(text), example=EXAMPLES[1]
        )
    rank_part, suit_part = token[:-1], token[-1]
    if rank_part in ("8", "9", "10", "T"):
        raise NotationError(N_("Pan decks have no 8s, 9s or 10s."))
    rank = _RANK_PARSE.get(rank_part)
    suit = _SUIT_PARSE.get(suit_part)
    if rank is None:
        raise NotationError(
            N_("'{text}' has no Pan rank. Ranks are A 2 3 4 5 6 7 J Q K (no 8s, 9s or 10s)."), text=excerpt(text)
        )
    if suit is None:
        raise NotationError(N_("'{text}' has no suit. Suits are S H D C (or ♠ ♥ ♦ ♣)."), text=excerpt(text))
    return Card(rank, suit)


def parse_cards(text: str) -> tuple[Card, ...]:
    """Read cards separated by spaces or commas, in the order written.

    Raises:
        NotationError: if any token is not a card, or nothing was given.
    """
    tokens = [t for t in _SEPARATORS.split(text.strip()) if t]
    if not tokens:
        raise NotationError(N_("No cards given. Write cards {example}."), example=EXAMPLES[2])
    return tuple(parse_card(t) for t in tokens)


def format_cards(cards: Iterable[Card], *, pretty: bool = False) -> str:
    """Cards in notation, space separated (``pretty`` uses suit symbols)."""
    return " ".join(c.pretty if pretty else str(c) for c in cards)


_SUIT_ORDER: dict[Card, tuple[str, int]] = {c: suit_order_key(c) for c in ALL_CARDS}
_BY_SUIT = attrgetter("suit", "rank")
"""The same order as :func:`suit_order_key` (a Suit compares as its letter, a Rank as its index),
computed in C: the hand is sorted after every change."""


def sort_hand(cards: Iterable[Card]) -> tuple[Card, ...]:
    """The canonical hand order: by suit, then rank."""
    return tuple(sorted(cards, key=_BY_SUIT))


def take_cards(hand: Sequence[Card], cards: Iterable[Card]) -> tuple[Card, ...]:
    """Remove ``cards`` (a multiset) from ``hand``; return the rest, sorted.

    Raises:
        CardsNotInHand: if the hand does not hold every card asked for (counting copies).
    """
    rest = list(hand)
    wanted = tuple(cards)
    try:
        for card in wanted:
            rest.remove(card)
    except ValueError:
        missing = Counter(wanted) - Counter(hand)
        listed = format_cards(sorted(missing.elements(), key=suit_order_key))
        raise CardsNotInHand(N_("You don't hold {cards}."), cards=excerpt(listed, 60)) from None
    return sort_hand(rest)


def holds(hand: Sequence[Card], cards: Iterable[Card]) -> bool:
    """Whether ``hand`` contains every card of ``cards`` (as a multiset)."""
    return not (Counter(cards) - Counter(hand))


def build_shoe(
    deck_count: int = 8,
    remove_spade_sets: int = 0,
    extra_removals: Sequence[Card] = (),
    extra_cards: Sequence[Card] = (),
) -> tuple[Card, ...]:
    """The unshuffled shoe: ``deck_count`` 40-card packs, minus whole spade sets and extra removals.

    The order is pack by pack, suit by suit (c d h s), rank A..K; the service shuffles it with a
    seeded ``random.Random`` so every hand can be replayed.

    Raises:
        NotationError: never; ValueError if removals exceed what the packs hold.
    """
    counts: Counter[Card] = Counter()
    for card in ALL_CARDS:
        counts[card] = deck_count
    for card in ALL_CARDS:
        if card.suit is Suit.SPADES:
            counts[card] -= remove_spade_sets
    for card in extra_removals:
        counts[card] -= 1
    for card in extra_cards:
        counts[card] += 1
    if any(n < 0 for n in counts.values()):
        raise ValueError("The removals take more cards than the packs hold.")
    shoe: list[Card] = []
    remaining = Counter(counts)
    # Lay out pack by pack so the unshuffled order is readable and stable.
    for _ in range(max(counts.values(), default=0)):
        for card in ALL_CARDS:
            if remaining[card] > 0:
                shoe.append(card)
                remaining[card] -= 1
    return tuple(shoe)
