"""Every word the table, hand and phone-panel images draw, in one place.

One function per label, with its placeholders as keyword arguments, so a translation catalog can reach the images
the way it reaches the presenters' sentences: a translated label changes here only. Layouts measure the labels they
draw (no width assumes English). Card ranks and suits are not words: they stay universal. User-chosen text (names,
titles, notes) is not a label: it goes through `renderer.text.image_text`.
"""

from __future__ import annotations

from typing import Literal

InPlayHow = Literal["plucked", "taken", "forced"]


def stock() -> str:
    """The stock pile's caption."""
    return "Stock"


def discards() -> str:
    """The discard pile's caption."""
    return "Discards"


def option() -> str:
    """The discard pile's caption when its top card is the option card for the player to act."""
    return "Option"


def in_play() -> str:
    """The caption of the card just plucked, taken or forced (face up for everyone)."""
    return "In play"


def in_play_by(*, how: InPlayHow) -> str:
    """What precedes the name of the player holding the card in play."""
    return {"plucked": "plucked by", "taken": "taken by", "forced": "forced on"}[how]


def tops() -> str:
    """The tops' caption."""
    return "Tops"


def singles(*, chips: str) -> str:
    """The singles tops with their chips (already formatted)."""
    return f"{chips} singles"


def doubles(*, chips: str) -> str:
    """The doubles tops with their chips (already formatted)."""
    return f"{chips} doubles"


def to_play(*, name: str) -> str:
    """Whose turn it is, in the header (``name`` is already cut to fit)."""
    return f"{name} to play"


def hand_number(*, hand_no: int) -> str:
    """Follows the table's title in the header: the hand on (or the last one played); nothing before the first
    deal (a new table is no "hand 0")."""
    return f" · hand {hand_no}" if hand_no else ""


def no_cards() -> str:
    """An empty hand."""
    return "No cards"


def drawn_tag(*, label: Literal["pluck", "option"]) -> str:
    """The tag under the drawn card: a pluck from the stock, or the option card."""
    return {"pluck": "PLUCK", "option": "OPTION"}[label]


def your_hand() -> str:
    """The phone panel's band between the table and the player's own hand."""
    return "Your hand"
