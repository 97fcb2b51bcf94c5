"""Stacked shoes and scripted hands shared by the service tests and the end-to-end tests."""

from __future__ import annotations

from collections.abc import Sequence

from pancog.game.cards import Card, parse_cards


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text) if text.strip() else ()


def stacked_shoe(hands: Sequence[str], stock: str = "", filler: str = "2C") -> tuple[Card, ...]:
    """A shoe dealing ``hands[k]`` (10 cards each) to the k-th dealt seat (rotation from the first hand).

    Then ``stock`` (top first), then 60 filler cards.
    """
    parsed = [cards(h) for h in hands]
    for h in parsed:
        assert len(h) == 10, h
    shoe: list[Card] = []
    for rnd in range(2):
        for h in parsed:
            shoe.extend(h[5 * rnd : 5 * rnd + 5])
    shoe.extend(cards(stock))
    shoe.extend(cards(" ".join([filler] * 60)))
    return tuple(shoe)


# A two-player hand where the first hand (A) goes out on his second turn:
#   A knocks, B knocks; A plucks 4C and melds AC 2C 3C +4C, 4D 5D 6D, JH QH KH, discards 7C (flat);
#   B plucks 6S and discards it; A plucks 5C, lays it off on meld 1 and goes out.
TWO_A = "AC 2C 3C 4D 5D 6D JH QH KH 7C"
TWO_B = "JS KS 4H 6H JD 3D 5H 7D 2H QC"
TWO_STOCK = "4C 6S 5C"
TWO_SHOE = stacked_shoe([TWO_A, TWO_B], TWO_STOCK, filler="QD")


# Three players (A first, then B, then C): the option card, a force, a foul call for abandoning, a split.
#   A plucks 4C, melds AC 2C 3C +4C, discards KD.  B plucks KS, discards it: C takes the option KS with JS QS.
#   C discards QC.  A plucks QD, discards it.  B plucks 3D, discards it.  C plucks 5C, discards it: the option
#   card fits A's board, so B forces it on A; A lays it off and discards JD.  Then KH junk for everyone.
THREE_A = "AC 2C 3C KD 2D 3H 6H 7S JD 5S"
THREE_B = "5D 5H 4S 6C JC KC QH 2S 7D 4H"
THREE_C = "JS QS 3S 6D 7H 4D 2H AD AH QC"
THREE_STOCK = "4C KS QD 3D 5C"
THREE_SHOE = stacked_shoe([THREE_A, THREE_B, THREE_C], THREE_STOCK, filler="KH")

# Eight players: A and B play the two-player hand; the six others go on top.
EIGHT_OTHERS = (
    "2S 4S 6S 2H 4H 6H 2D 4D 6D KC",
    "3S 5S 7S 3H 5H 7H 3D 5D 7D QC",
    "AS 4S 6S AH 4H 6H AD 4D 6D JC",
    "2S 5S 7S 2H 5H 7H 2D 5D 7D KC",
    "3S 6S JS 3H 6H JH 3D 6D JD QC",
    "AS 5S QS AH 5H QH AD 5D QD JC",
)
EIGHT_SHOE = stacked_shoe([TWO_A, TWO_B, *EIGHT_OTHERS], TWO_STOCK, filler="QD")

# Bust-out: A's going-out turn makes a new condition (JH QH KH, a rope to the King), which is paid again.
BUST_A = "AC 2C 3C 5C 7C QH KH 2S 2H 2D"
BUST_SHOE = stacked_shoe([BUST_A, TWO_B], "4C 6S JH", filler="QD")
