"""Every word the table, hand and phone-panel images draw, in one place.

One function per label, with its placeholders as keyword arguments, so a translation catalog can reach the images
the way it reaches the presenters' sentences: a translated label changes here only. Layouts measure the labels they
draw (no width assumes English). Card ranks and suits are not words: they stay universal. User-chosen text (names,
titles, notes) is not a label: it goes through `renderer.text.image_text`.
"""

from __future__ import annotations

from typing import Literal

from pancog.game.i18n import tr

InPlayHow = Literal["plucked", "taken", "forced"]


def stock() -> str:
    """The stock pile's caption."""
    return tr("Stock")


def discards() -> str:
    """The discard pile's caption."""
    return tr("Discards")


def option() -> str:
    """The discard pile's caption when its top card is the option card for the player to act."""
    return tr("Option")


def in_play() -> str:
    """The caption of the card just plucked, taken or forced (face up for everyone)."""
    return tr("In play")


def in_play_by(*, how: InPlayHow) -> str:
    """What precedes the name of the player holding the card in play."""
    if how == "taken":
        return tr("taken by")
    if how == "forced":
        return tr("forced on")
    return tr("plucked by")


def tops() -> str:
    """The tops' caption."""
    return tr("Tops")


def singles(*, chips: str) -> str:
    """The singles tops with their chips (already formatted)."""
    return tr("{chips} singles", chips=chips)


def doubles(*, chips: str) -> str:
    """The doubles tops with their chips (already formatted)."""
    return tr("{chips} doubles", chips=chips)


def to_play(*, name: str) -> str:
    """Whose turn it is, in the header (``name`` is already cut to fit)."""
    return tr("{name} to play", name=name)


def hand_number(*, hand_no: int) -> str:
    """Follows the table's title in the header: the hand on (or the last one played); nothing before the first
    deal (a new table is no "hand 0")."""
    return " · " + tr("hand {n}", n=hand_no) if hand_no else ""


def no_cards() -> str:
    """An empty hand."""
    return tr("No cards")


def drawn_tag(*, label: Literal["pluck", "option"]) -> str:
    """The tag under the drawn card: a pluck from the stock, or the option card."""
    return tr("PLUCK") if label == "pluck" else tr("OPTION")


def your_hand() -> str:
    """The phone panel's band between the table and the player's own hand."""
    return tr("Your hand")
