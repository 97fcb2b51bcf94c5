"""Counts in words: one helper for every text the project writes (the engine's rules summary, the renderer's text
twins and image labels, the presenters), so that "1 chip", "1 unit" and "1 hand" read right everywhere."""

from __future__ import annotations

__all__ = ["plural"]


def plural(n: int, word: str, many: str = "", *, sign: bool = False) -> str:
    """``n`` with its noun in the right number (thousands grouped); ``many``: an irregular plural; ``sign``: a
    net, written with its sign.

    >>> plural(1, "chip"), plural(1_500, "chip"), plural(0, "hand"), plural(2, "entry", "entries")
    ('1 chip', '1,500 chips', '0 hands', '2 entries')
    >>> plural(1, "chip", sign=True), plural(-1, "chip", sign=True), plural(-20, "chip", sign=True)
    ('+1 chip', '-1 chip', '-20 chips')
    """
    number = f"{n:+,}" if sign else f"{n:,}"
    return f"{number} {word if abs(n) == 1 else many or word + 's'}"
