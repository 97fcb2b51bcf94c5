"""User-chosen text made safe to draw: the one gate every name, title and note passes on its way into an image.

`image_text` strips what would hide, reorder or garble text: control characters, bidirectional
overrides and isolates, zero-width characters, variation selectors, stacks of combining marks. It maps each
character the bundled font lacks to one it has (its compatibility form when that is drawable, e.g. fullwidth
or mathematical letters; a gear for the 🤖 computer-player mark; else a replacement character, one per run)
and ellipsises the result to the width available. Whether the font has a glyph is read from the font's own
character map with fontTools (a parser of the OpenType tables, the reference library for that), never guessed
from rendered pixels.

Without a Unicode bidi engine (Pillow's basic layout, see `assets.font`) text is drawn in the order it is
stored, so once the overrides are gone nothing a name contains can move other text around.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from fontTools.ttLib import TTFont

from . import assets

COMPUTER_MARK = "⚙"  # drawn for the 🤖 that marks a computer player (the font has no emoji)
MISSING = "\ufffd"  # a glyph the font lacks, once per run of them
MAX_MARKS = 2  # combining marks kept on one base character ("Zalgo" text would climb out of its box)
MAX_CHARS = 200  # longer input is cut before any measuring (nothing drawn is ever that long)

_SUBSTITUTES = {"🤖": COMPUTER_MARK}
# Format characters that are not visible marks are dropped with the rest of category Cf (bidi controls
# U+202A-202E and U+2066-2069, LRM/RLM/ALM, zero-width space/joiners U+200B-200D, word joiner, BOM, soft hyphen).
_DROP_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_VARIATION = (range(0xFE00, 0xFE10), range(0xE0100, 0xE01F0))


@lru_cache(maxsize=3)
def cmap(kind: assets.FontKind) -> frozenset[int]:
    """The code points the bundled font ``kind`` has a glyph for (its best Unicode character map)."""
    with TTFont(str(assets.FONT_DIR / assets._FONT_FILES[kind]), lazy=True) as ttf:
        return frozenset(ttf.getBestCmap())


def missing_glyphs(text: str, kind: assets.FontKind) -> str:
    """The characters of ``text`` the font ``kind`` would draw as a missing-glyph box (for tests and checks)."""
    have = cmap(kind)
    return "".join(ch for ch in text if ord(ch) not in have and not ch.isspace())


@lru_cache(maxsize=3)
def _has_printable_ascii(kind: assets.FontKind) -> bool:
    """Whether the font ``kind`` draws every printable ASCII character (the bundled DejaVu fonts do)."""
    return all(code in cmap(kind) for code in range(0x20, 0x7F))


def _dropped(ch: str) -> bool:
    code = ord(ch)
    return unicodedata.category(ch) in _DROP_CATEGORIES or any(code in r for r in _VARIATION)


@lru_cache(maxsize=4096)
def clean_text(text: str, kind: assets.FontKind = "regular") -> str:
    """``text`` with nothing but characters the font ``kind`` draws, in stored order, spaces collapsed."""
    text = text[:MAX_CHARS]
    if text.isascii() and _has_printable_ascii(kind) and text.replace(" ", "").isprintable():
        return " ".join(text.split())  # the loop below does exactly this to printable ASCII, ~20x slower
    have = cmap(kind)
    out: list[str] = []
    marks = 0
    for ch in unicodedata.normalize("NFC", text):
        if ch in _SUBSTITUTES:
            ch = _SUBSTITUTES[ch]
        if ch.isspace():
            if out and out[-1] != " ":
                out.append(" ")
            marks = 0
            continue
        if _dropped(ch):
            continue
        if unicodedata.combining(ch):
            marks += 1
            if marks > MAX_MARKS or not out or out[-1] in (" ", MISSING) or ord(ch) not in have:
                continue
            out.append(ch)
            continue
        marks = 0
        if ord(ch) not in have:
            compat = unicodedata.normalize("NFKC", ch)
            if compat != ch and compat.strip() and all(ord(c) in have and not _dropped(c) for c in compat):
                ch = compat
            elif out and out[-1] == MISSING:
                continue
            else:
                ch = MISSING
        out.append(ch)
    return "".join(out).strip()


def image_text(text: str, kind: assets.FontKind, size: int, width: int) -> str:
    """``text`` made drawable (`clean_text`) and cut with "…" to at most ``width`` pixels at ``size``."""
    return assets.fit_text(clean_text(text, kind), kind, size, width)
