"""Fonts, colours and pre-rendered sprites (card faces, backs, text), cached once per process.

Everything here is drawn by the project: the card faces are rounded rectangles, DejaVu glyphs for
ranks and suits, and a few polygons for the crowns. Sprites are drawn at `_SS` times their size
and scaled down once (smooth edges), then kept as decoded `Image`s in `lru_cache`s, so an image
render only pastes. Card sprites are kept split (`Sprite`) so their opaque middle is copied, not
blended. Renders run in several threads at once: a cached image is never modified after it is
returned, only pasted from.
"""

from __future__ import annotations

import struct
import unicodedata
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from isal import isal_zlib
from PIL import Image, ImageChops, ImageDraw, ImageFont, features

from pancog.game.cards import ALL_CARDS, Card, Rank, Suit

FONT_DIR = Path(__file__).resolve().parent.parent / "data" / "fonts"
FontKind = Literal["regular", "bold", "cond"]
_FONT_FILES: dict[FontKind, str] = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "cond": "DejaVuSansCondensed-Bold.ttf",
}

RGB = tuple[int, int, int]
# Every line is laid out left to right as a paragraph (with libraqm: bidi runs inside it still read right to
# left, but a name starting with a right-to-left letter cannot flip the line around it). Without libraqm
# Pillow draws characters in stored order and takes no direction.
TEXT_DIRECTION: str | None = "ltr" if features.check_feature("raqm") else None

# Table colours: a dark felt that both Discord themes frame well, with light text on it.
FELT: RGB = (22, 84, 56)
FELT_DARK: RGB = (14, 58, 38)
PANEL: RGB = (30, 104, 70)
PANEL_TURN: RGB = (44, 122, 84)
INK_LIGHT: RGB = (242, 246, 242)
INK_MUTED: RGB = (178, 206, 188)
GOLD: RGB = (255, 196, 30)
GOLD_DARK: RGB = (60, 40, 0)
CARD_WHITE: RGB = (255, 255, 255)
CARD_EDGE: RGB = (40, 40, 40)

WHITE: RGB = (255, 255, 255)
CLOCK_URGENT: RGB = (200, 40, 40)
NAVY: RGB = (24, 44, 110)
LATTICE: RGB = (58, 88, 170)
STOCK_INK: RGB = (20, 30, 60)
HAND_ICON: RGB = (40, 60, 130)
# Status pills (fill, ink), keyed by `SeatStatus` value.
STATUS_COLOURS: dict[str, tuple[RGB, RGB]] = {
    "in": ((46, 160, 90), WHITE),
    "on top": ((96, 108, 118), WHITE),
    "fouled": ((222, 112, 20), WHITE),
    "busted": ((190, 30, 40), WHITE),
    "flat": ((124, 84, 176), WHITE),
    "away": ((70, 76, 82), (220, 220, 220)),
    "waiting": ((52, 104, 170), WHITE),
}

_BLACK: RGB = (17, 17, 17)
_RED: RGB = (200, 16, 46)
_BLUE: RGB = (29, 78, 216)
_GREEN: RGB = (21, 128, 61)

_SS = 3  # supersampling factor for sprites
PNG_LEVEL = 2  # ISA-L's deflate level for `to_png` (0–3; docs/perf/render.md, "A faster deflate")


def suit_colour(suit: Suit, four_color: bool) -> RGB:
    """Spades black, hearts red; diamonds red/blue and clubs black/green (two-/four-colour deck)."""
    if suit is Suit.SPADES:
        return _BLACK
    if suit is Suit.HEARTS:
        return _RED
    if suit is Suit.DIAMONDS:
        return _BLUE if four_color else _RED
    return _GREEN if four_color else _BLACK


@lru_cache(maxsize=64)
def font(kind: FontKind, size: int) -> ImageFont.FreeTypeFont:
    """A bundled DejaVu font (never a system font, so output is identical everywhere)."""
    return ImageFont.truetype(str(FONT_DIR / _FONT_FILES[kind]), size)


# --------------------------------------------------------------------------- text sprites


@dataclass(frozen=True, slots=True)
class TextSprite:
    """An alpha mask of one string, and where its ink sits relative to the pen position."""

    mask: Image.Image
    dx: int
    dy: int
    advance: int  # pen advance (width used for layout)
    ascent: int  # font ascent: pen y + ascent is the baseline


@lru_cache(maxsize=4096)
def text_sprite(text: str, kind: FontKind, size: int) -> TextSprite:
    """Render ``text`` once as a mask; pasting the mask with a colour is much cheaper than draw.text.

    For short strings that recur (labels, names, chip counts: about 1 KiB of pixels each; 200 busy tables keep
    ~3,600 of them in use, so a smaller cache thrashes). One-off lines (a board's latest events, an outcome's
    notes, ~7 KiB each) go through `draw_text_sprite` uncached: cached, they filled an 8,192-entry cache to
    ~57 MiB in a 50-table soak (docs/perf/soak.md).
    """
    return draw_text_sprite(text, kind, size)


@lru_cache(maxsize=64)
def recent_text_sprite(text: str, kind: FontKind, size: int) -> TextSprite:
    """A one-off line (a board's latest notes), kept among the last 64 only: each board edit shows again the
    note the edit before it added, so that one is not drawn twice, while the memory stays bounded (64 lines
    of at most ~30 KiB each), unlike `text_sprite`'s 4,096 entries (see there)."""
    return draw_text_sprite(text, kind, size)


def draw_text_sprite(text: str, kind: FontKind, size: int, frac64: int = 0) -> TextSprite:
    """``text`` as a mask, drawn now and not kept (see `text_sprite`); ``frac64``: with its pen ``frac64``/64
    px right of the sprite's whole-pixel origin (a word inside a line, `word_sprite`)."""
    f = font(kind, size)
    left, top, right, bottom = (int(v) for v in f.getbbox(text, direction=TEXT_DIRECTION))
    width, height = max(1, right - left + (1 if frac64 else 0)), max(1, bottom - top)  # the shift moves ink right
    mask = Image.new("L", (width, height), 0)
    ImageDraw.Draw(mask).text((-left + frac64 / 64, -top), text, font=f, fill=255, direction=TEXT_DIRECTION)
    return TextSprite(mask, left, top, text_width(text, kind, size), f.getmetrics()[0])


@lru_cache(maxsize=16384)
def text_width(text: str, kind: FontKind, size: int) -> int:
    """The pen advance of ``text`` in pixels (layout width), measured without drawing anything."""
    return round(font(kind, size).getlength(text, direction=TEXT_DIRECTION))


@lru_cache(maxsize=4096)
def fit_text(text: str, kind: FontKind, size: int, width: int) -> str:
    """``text``, cut with an ellipsis so it is at most ``width`` pixels wide.

    The longest prefix ``p`` with ``p + "…"`` within ``width`` (then right-stripped), or ``""``
    when not even one character fits. Found by bisection over the prefix length, measuring with
    the font's advances only (no glyph is drawn; only the final string is, by `paste_text`).
    Bisection relies on a longer prefix never being narrower: true in practice for the bundled
    fonts (advances dwarf kerning; only a run of zero-width marks could bend it), and the tests
    compare it with the old one-character-at-a-time cut over ~11,000 string/width/font cases.
    """
    if line_width(text, kind, size) <= width:
        return text
    separable = _separable(text)  # then so is every prefix + "…": measured from cached words
    f = font(kind, size)
    lo, hi = 0, len(text) + 1  # text[:lo] + "…" fits (or lo == 0); text[:hi] + "…" does not (or hi == n + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        probe = text[:mid] + "…"
        advance = _word_pens(probe, kind, size)[1] if separable else f.getlength(probe, direction=TEXT_DIRECTION)
        if round(advance) <= width:
            lo = mid
        else:
            hi = mid
    cut = text[:lo]
    return cut.rstrip() + "…" if cut else ""


def paste_text(
    im: Image.Image, xy: tuple[int, int], text: str, kind: FontKind, size: int, fill: RGB, *, cache: bool = True
) -> None:
    """Draw ``text`` with its pen at ``xy`` (top of the font's ascent box, like anchor 'la').

    ``cache=False`` for one-off text that would only crowd the sprite cache (see `recent_text_sprite`).
    """
    if not text:
        return
    sprite = text_sprite(text, kind, size) if cache else recent_text_sprite(text, kind, size)
    paste_text_sprite(im, xy, sprite, fill)


_RTL_CLASSES = frozenset({"R", "AL", "AN", "RLE", "RLO", "RLI", "LRE", "LRO", "LRI", "FSI", "PDF", "PDI"})


@lru_cache(maxsize=16384)
def _length(text: str, kind: FontKind, size: int) -> float:
    """The exact pen advance of ``text`` (a multiple of 1/64 px: the shaper's 26.6 units), unrounded."""
    return font(kind, size).getlength(text, direction=TEXT_DIRECTION)


@lru_cache(maxsize=4096)
def word_sprite(word: str, kind: FontKind, size: int, frac64: int) -> TextSprite:
    """One word drawn with its pen ``frac64``/64 px right of a whole pixel (where it falls inside its line).

    A line's words recur (names, card codes, verbs) while whole lines rarely do, so `paste_line` draws lines
    from these; words are small (~1-2 KiB of mask each), which keeps 4,096 of them within a few MiB.
    """
    return draw_text_sprite(word, kind, size, frac64)


def _separable(text: str) -> bool:
    """Whether ``text``'s words may be measured and drawn apart: one space between words (as `clean_text`
    leaves them), laid out left to right by libraqm, nothing right-to-left (whose runs libraqm reorders)."""
    return (
        TEXT_DIRECTION is not None
        and "  " not in text
        and not text.startswith(" ")
        and (text.isascii() or not any(unicodedata.bidirectional(ch) in _RTL_CLASSES for ch in text))
    )


def _word_pens(text: str, kind: FontKind, size: int) -> tuple[list[tuple[str, float]], float]:
    """Each word of a `_separable` ``text`` with its exact pen position, and the whole line's advance.

    The shaper's advances are whole 26.6 units, so sums are exact: a word starts where the previous one
    started, plus that word, the space and the kerning of the space with this word's first letter.
    """
    words = text.split(" ")
    pens: list[tuple[str, float]] = []
    pen = 0.0
    for i, word in enumerate(words):
        pens.append((word, pen))
        if i + 1 < len(words):
            first = words[i + 1][:1]
            pen += _length(word + " " + first, kind, size) - _length(first, kind, size)
    return pens, pen + (_length(words[-1], kind, size) if words[-1] else 0.0)


def line_width(text: str, kind: FontKind, size: int) -> int:
    """`text_width` of a one-off line, from its (cached) words: measuring a new line whole costs ~0.1-0.2 ms
    (the shaper's set-up), a cached word nothing. Exactly `text_width` (the advances are whole 26.6 units)."""
    if not _separable(text):
        return round(font(kind, size).getlength(text, direction=TEXT_DIRECTION))
    return round(_word_pens(text, kind, size)[1])


def line_words(text: str, kind: FontKind, size: int) -> list[tuple[int, str, int]] | None:
    """(whole-pixel x, word, ``frac64``) of each word of ``text``, placed exactly where drawing the whole line puts
    it (its sprite: `word_sprite` of the word and ``frac64``), or None when the words cannot be drawn apart (no
    libraqm, right-to-left text, inks that would overlap)."""
    if not _separable(text):
        return None
    out: list[tuple[int, str, int]] = []
    ink_right = -(10**9)
    for word, pen in _word_pens(text, kind, size)[0]:
        if not word:
            continue
        whole = int(pen // 1)
        frac64 = round((pen - whole) * 64)
        sprite = word_sprite(word, kind, size, frac64)
        if whole + sprite.dx < ink_right:  # touching inks would be blended twice: draw the line whole
            return None
        ink_right = whole + sprite.dx + sprite.mask.width
        out.append((whole, word, frac64))
    return out


def _line_words(text: str, kind: FontKind, size: int) -> list[tuple[int, TextSprite]] | None:
    """`line_words` with each word's sprite."""
    words = line_words(text, kind, size)
    return None if words is None else [(x, word_sprite(w, kind, size, f)) for x, w, f in words]


def paste_line(im: Image.Image, xy: tuple[int, int], text: str, kind: FontKind, size: int, fill: RGB) -> None:
    """`paste_text` for a one-off line (a board's latest notes): the same pixels, drawn from cached words.

    A note is new on every board edit, so caching whole lines does not pay, and drawing one costs ~0.7 ms;
    its words recur. Each word is placed at the line's exact (sub-pixel) pen position and drawn with that
    fraction, so the result is pixel-identical to drawing the line at once (`tests/renderer/
    test_render_fast_paths.py` compares them over real notes); lines whose words cannot be drawn apart take
    `recent_text_sprite`.
    """
    words = _line_words(text, kind, size) if text else None
    if words is None:
        paste_text(im, xy, text, kind, size, fill, cache=False)
        return
    for x, sprite in words:
        paste_text_sprite(im, (xy[0] + x, xy[1]), sprite, fill)


def paste_text_sprite(im: Image.Image, xy: tuple[int, int], sprite: TextSprite, fill: RGB) -> None:
    """Paste ``fill`` through ``sprite``'s mask with its pen at ``xy``."""
    x, y = xy[0] + sprite.dx, xy[1] + sprite.dy
    if im.mode == "RGB" and not im.readonly:  # Pillow's core paste directly, as in `Sprite.paste`
        im.load()
        w, h = sprite.mask.size
        im.im.paste(fill, (x, y, x + w, y + h), sprite.mask.im)
    else:
        im.paste(fill, (x, y), sprite.mask)


# --------------------------------------------------------------------------- pasting


def paste_rgba(im: Image.Image, src: Image.Image, xy: tuple[int, int]) -> None:
    """``im.paste(src, xy, src)`` for an RGBA ``src`` (through its alpha), ``im.paste(src, xy)`` for RGB.

    On an RGB canvas this calls Pillow's core paste directly: the same call `Image.paste` makes
    for these modes, without its per-call argument handling, which costs as much as blending a
    small sprite (an image pastes a hundred or more). Other canvases take `Image.paste`.
    """
    x, y = xy
    w, h = src.size
    if im.mode == "RGB" and not im.readonly and src.mode in ("RGB", "RGBA"):
        im.load()
        core = src.im
        if src.mode == "RGBA":
            im.im.paste(core, (x, y, x + w, y + h), core)
        else:
            im.im.paste(core, (x, y, x + w, y + h))
    else:
        im.paste(src, xy, src if src.mode == "RGBA" else None)


# --------------------------------------------------------------------------- split sprites


@dataclass(frozen=True, slots=True)
class Sprite:
    """An RGBA sprite cut into horizontal bands for fast pasting onto the RGB canvas.

    Pasting through an alpha mask blends every pixel; a card is opaque except near its rounded
    corners, so its fully opaque middle rows are kept as a plain RGB band and copied (no
    blending), and only the rows above and below are pasted through their alpha. The result is
    pixel-for-pixel what pasting the whole sprite through its alpha gives (alpha 255 copies the
    source exactly). Bands are never modified after the split, so one `Sprite` can be pasted from
    many threads at once.
    """

    width: int
    height: int
    bands: tuple[Image.Image, ...]  # top to bottom; RGBA bands are pasted through their alpha, RGB copied
    tops: tuple[int, ...]  # the first row of each band
    # (top, width, height, Pillow core image, through its alpha) per band, for `paste`'s fast path
    _parts: tuple[tuple[int, int, int, Any, bool], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        bands = zip(self.tops, self.bands, strict=True)
        object.__setattr__(self, "_parts", tuple((t, b.width, b.height, b.im, b.mode == "RGBA") for t, b in bands))

    @classmethod
    def split(cls, im: Image.Image, min_rows: int = 4) -> Sprite:
        """Cut an RGBA image: its longest run of fully opaque rows (at least ``min_rows``) becomes RGB."""
        rgba = im if im.mode == "RGBA" else im.convert("RGBA")
        width, height = rgba.size
        alpha = rgba.getchannel("A")
        best, start = (0, 0), None
        for row in range(height + 1):
            opaque = row < height and alpha.crop((0, row, width, row + 1)).getextrema() == (255, 255)
            if opaque and start is None:
                start = row
            elif not opaque and start is not None:
                if row - start > best[1] - best[0]:
                    best = (start, row)
                start = None
        top, bottom = best
        if bottom - top < min_rows:
            return cls(width, height, (rgba,), (0,))
        bands: list[tuple[int, Image.Image]] = []
        if top > 0:
            bands.append((0, rgba.crop((0, 0, width, top))))
        bands.append((top, rgba.crop((0, top, width, bottom)).convert("RGB")))
        if bottom < height:
            bands.append((bottom, rgba.crop((0, bottom, width, height))))
        return cls(width, height, tuple(b for _, b in bands), tuple(t for t, _ in bands))

    def paste(self, im: Image.Image, xy: tuple[int, int]) -> None:
        """Draw onto ``im`` with the sprite's top-left at ``xy``: the same pixels as ``im.paste(s, xy, s)``."""
        x, y = xy
        if im.mode != "RGB" or im.readonly:
            for top, band in zip(self.tops, self.bands, strict=True):
                im.paste(band, (x, y + top), band if band.mode == "RGBA" else None)
            return
        im.load()
        dst = im.im  # Pillow's core paste directly, as in `paste_rgba`
        for top, w, h, src, masked in self._parts:
            if masked:
                dst.paste(src, (x, y + top, x + w, y + top + h), src)
            else:
                dst.paste(src, (x, y + top, x + w, y + top + h))

    def image(self) -> Image.Image:
        """The whole sprite as a new RGBA image (the bands put back together, bit for bit)."""
        out = Image.new("RGBA", (self.width, self.height), (0, 0, 0, 0))
        for top, band in zip(self.tops, self.bands, strict=True):
            out.paste(band, (0, top))  # an RGB band becomes alpha 255
        return out


# --------------------------------------------------------------------------- cards


@dataclass(frozen=True, slots=True)
class CardSize:
    """A sprite size. ``step`` is how much of a card shows when cards overlap in a row."""

    name: str
    width: int
    height: int
    step: int
    full: bool  # full face (pips / face panel) or index-only mini card


LARGE = CardSize("large", 120, 168, 60, full=True)
MEDIUM = CardSize("medium", 84, 118, 42, full=True)
SMALL = CardSize("small", 48, 66, 26, full=False)
# The font size of the rank on the smallest card (`SMALL`, index-only): the board draws no text smaller, so
# whatever reads on a card at a phone's 400 px also reads around it.
MINI_INDEX_SIZE = round(SMALL.width * 0.56)

_PIP_LAYOUT: dict[Rank, tuple[tuple[float, float], ...]] = {
    # (x, y) in the pip box, 0..1; pips with y > 0.5 are drawn upside down like a real card.
    Rank.TWO: ((0.5, 0.12), (0.5, 0.88)),
    Rank.THREE: ((0.5, 0.12), (0.5, 0.5), (0.5, 0.88)),
    Rank.FOUR: ((0.22, 0.12), (0.78, 0.12), (0.22, 0.88), (0.78, 0.88)),
    Rank.FIVE: ((0.22, 0.12), (0.78, 0.12), (0.5, 0.5), (0.22, 0.88), (0.78, 0.88)),
    Rank.SIX: ((0.22, 0.12), (0.78, 0.12), (0.22, 0.5), (0.78, 0.5), (0.22, 0.88), (0.78, 0.88)),
    Rank.SEVEN: (
        (0.22, 0.12),
        (0.78, 0.12),
        (0.5, 0.31),
        (0.22, 0.5),
        (0.78, 0.5),
        (0.22, 0.88),
        (0.78, 0.88),
    ),
}


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def _glyph(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill: RGB) -> None:
    draw.text(xy, text, font=font("bold", size), fill=fill, anchor="mm")


@lru_cache(maxsize=64)
def _pip(suit: Suit, size: int, colour: RGB, flipped: bool) -> Image.Image:
    """One suit glyph as an RGBA sprite (upside down when ``flipped``)."""
    f = font("bold", size)
    left, top, right, bottom = (int(v) for v in f.getbbox(suit.symbol))
    im = Image.new("RGBA", (right - left + 2, bottom - top + 2), (0, 0, 0, 0))
    ImageDraw.Draw(im).text((1 - left, 1 - top), suit.symbol, font=f, fill=colour)
    return im.rotate(180) if flipped else im


def _paste_pip(im: Image.Image, centre: tuple[float, float], suit: Suit, size: int, colour: RGB, flip: bool) -> None:
    pip = _pip(suit, size, colour, flip)
    im.alpha_composite(pip, (round(centre[0] - pip.width / 2), round(centre[1] - pip.height / 2)))


def _crown(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], rank: Rank, colour: RGB) -> None:
    """A small crown (K: three tall points, Q: five points) or a cap (J) above the face letter."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    points = {Rank.KING: 3, Rank.QUEEN: 5, Rank.JACK: 2}[rank]
    base = y0 + h * 0.62
    poly: list[tuple[float, float]] = [(x0, y1), (x0, base)]
    for i in range(points):
        left = x0 + w * i / points
        right = x0 + w * (i + 1) / points
        tip_y = y0 + h * (0.12 if rank is Rank.KING else 0.3)
        poly += [(left, base), ((left + right) / 2, tip_y), (right, base)]
    poly += [(x1, base), (x1, y1)]
    draw.polygon(poly, fill=colour)
    ball = w * (0.07 if rank is Rank.KING else 0.05)
    for i in range(points):
        cx = x0 + w * (i + 0.5) / points
        cy = y0 + h * (0.12 if rank is Rank.KING else 0.3)
        draw.ellipse((cx - ball, cy - ball, cx + ball, cy + ball), fill=GOLD)
    draw.rectangle((x0, y1 - h * 0.18, x1, y1), fill=GOLD)


CARDS_KEY = "pan:cards"
"""The PNG text chunk (and GIF comment prefix) naming every card face an image shows: the renderer's record of
what it drew, read back by the bot's edge (``renderer.shown``) to check an image against what its audience may
know, and by the tests' leak oracle."""


def paste_card(
    im: Image.Image, card: Card, xy: tuple[int, int], size: CardSize, four_color: bool = False, marked: bool = False
) -> None:
    """Draw one card face onto ``im`` and note it in ``im.info`` (every face an image shows is drawn here)."""
    card_sprite(card, size, four_color, marked).paste(im, xy)
    im.info.setdefault(CARDS_KEY, []).append(card)


def drawn_cards(im: Image.Image) -> tuple[Card, ...]:
    """The card faces drawn onto ``im`` by :func:`paste_card`, in drawing order."""
    return tuple(im.info.get(CARDS_KEY, ()))


@lru_cache(maxsize=512)
def card_sprite(card: Card, size: CardSize = LARGE, four_color: bool = False, marked: bool = False) -> Sprite:
    """One card face, drawn once and kept split for pasting (see `card_face`)."""
    return Sprite.split(_draw_card_face(card, size, four_color, marked))


def card_face(card: Card, size: CardSize = LARGE, four_color: bool = False, marked: bool = False) -> Image.Image:
    """The RGBA image of one card face (a new copy, from the cached `card_sprite`).

    ``marked`` adds a thick gold frame (can meld with the draw).
    """
    return card_sprite(card, size, four_color, marked).image()


def _draw_card_face(card: Card, size: CardSize, four_color: bool, marked: bool) -> Image.Image:
    s = _SS
    w, h = size.width * s, size.height * s
    colour = suit_colour(card.suit, four_color)
    im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    radius = size.width * 0.09 * s
    edge = max(1.0, size.width / 80) * s
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=radius, fill=CARD_EDGE)
    draw.rounded_rectangle((edge, edge, w - 1 - edge, h - 1 - edge), radius=radius - edge, fill=CARD_WHITE)
    if marked:
        frame = max(3.0, size.width / 30) * s
        draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=radius, outline=GOLD, width=round(frame))
    unit = size.width * s
    if size.full:
        _draw_full_face(im, draw, card, colour, unit, h)
    else:
        _draw_mini_face(im, draw, card, colour, unit, h)
    return im.resize((size.width, size.height), Image.Resampling.LANCZOS)


def _draw_index(draw: ImageDraw.ImageDraw, card: Card, colour: RGB, unit: float, cx: float, rank_size: float) -> float:
    """Rank over suit, centred on ``cx``; returns the y where the index ends."""
    rank_font = font("bold", round(rank_size))
    top = unit * 0.05
    _l, t, _r, b = rank_font.getbbox(card.rank.letter, anchor="mt")
    draw.text((cx, top - t * 0.2), card.rank.letter, font=rank_font, fill=colour, anchor="mt")
    suit_size = round(rank_size * 0.82)
    suit_top = top + b + unit * 0.045
    draw.text((cx, suit_top), card.suit.symbol, font=font("bold", suit_size), fill=colour, anchor="mt")
    return suit_top + suit_size


def _draw_full_face(im: Image.Image, draw: ImageDraw.ImageDraw, card: Card, colour: RGB, unit: float, h: float) -> None:
    _draw_index(draw, card, colour, unit, cx=unit * 0.25, rank_size=unit * 0.44)
    box = (unit * 0.47, h * 0.05, unit * 0.95, h * 0.95)
    bw, bh = box[2] - box[0], box[3] - box[1]
    if card.rank is Rank.ACE:
        _paste_pip(im, (box[0] + bw / 2, box[1] + bh / 2), card.suit, round(unit * 0.46), colour, False)
    elif card.rank in _PIP_LAYOUT:
        pip_size = round(unit * 0.22)
        for px, py in _PIP_LAYOUT[card.rank]:
            _paste_pip(im, (box[0] + bw * px, box[1] + bh * py), card.suit, pip_size, colour, py > 0.5)
    else:
        tint = _mix(colour, CARD_WHITE, 0.86)
        draw.rounded_rectangle(box, radius=unit * 0.05, fill=tint, outline=colour, width=round(unit * 0.025))
        pad = bw * 0.18
        _crown(draw, (box[0] + pad, box[1] + bh * 0.08, box[2] - pad, box[1] + bh * 0.28), card.rank, colour)
        _glyph(draw, (box[0] + bw / 2, box[1] + bh * 0.50), card.rank.letter, round(unit * 0.36), colour)
        _paste_pip(im, (box[0] + bw / 2, box[1] + bh * 0.78), card.suit, round(unit * 0.24), colour, False)


def _draw_mini_face(im: Image.Image, draw: ImageDraw.ImageDraw, card: Card, colour: RGB, unit: float, h: float) -> None:
    _draw_index(draw, card, colour, unit, cx=unit * 0.28, rank_size=unit * 0.56)
    _paste_pip(im, (unit * 0.74, h * 0.80), card.suit, round(unit * 0.34), colour, False)


@lru_cache(maxsize=8)
def back_sprite(size: CardSize = LARGE) -> Sprite:
    """The card back, drawn once and kept split for pasting (see `card_back`)."""
    return Sprite.split(_draw_card_back(size))


def card_back(size: CardSize = LARGE) -> Image.Image:
    """The project's card back as a new RGBA image: navy with a gold-edged lattice panel."""
    return back_sprite(size).image()


def _draw_card_back(size: CardSize) -> Image.Image:
    s = _SS
    w, h = size.width * s, size.height * s
    im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    radius = size.width * 0.09 * s
    navy, lattice = NAVY, LATTICE
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=radius, fill=CARD_WHITE, outline=CARD_EDGE, width=s)
    inset = size.width * 0.07 * s
    inner = (inset, inset, w - 1 - inset, h - 1 - inset)
    draw.rounded_rectangle(inner, radius=radius * 0.6, fill=navy)
    pattern = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    pd = ImageDraw.Draw(pattern)
    gap = size.width * 0.16 * s
    line = max(1, round(size.width * 0.02 * s))
    k = -h
    while k < w + h:
        pd.line((k, 0, k + h, h), fill=lattice, width=line)
        pd.line((k + h, 0, k, h), fill=lattice, width=line)
        k += round(gap)
    panel_mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(panel_mask).rounded_rectangle(inner, radius=radius * 0.6, fill=255)
    im.paste(pattern, (0, 0), ImageChops.multiply(pattern.getchannel("A"), panel_mask))
    draw.rounded_rectangle(inner, radius=radius * 0.6, outline=GOLD, width=max(1, round(size.width * 0.025 * s)))
    cx, cy, r = w / 2, h / 2, size.width * 0.16 * s
    draw.regular_polygon((cx, cy, r), 4, rotation=45, fill=GOLD)
    draw.regular_polygon((cx, cy, r * 0.55), 4, rotation=45, fill=navy)
    return im.resize((size.width, size.height), Image.Resampling.LANCZOS)


# --------------------------------------------------------------------------- small widgets


@lru_cache(maxsize=1024)
def pill(text: str, fill: RGB, ink: RGB, size: int, kind: FontKind = "bold", *, tight: bool = False) -> Image.Image:
    """A rounded label (status, value tag, position number) as an RGBA sprite; ``tight``: less room at the ends
    and a lower pill (a meld's value tag, where every pixel of a seat's row counts)."""
    sprite = text_sprite(text, kind, size)
    pad_x, height = (round(size * 0.3), round(size * 1.3)) if tight else (round(size * 0.45), round(size * 1.45))
    width = max(height, sprite.advance + 2 * pad_x)
    s = _SS
    big = Image.new("RGBA", (width * s, height * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.rounded_rectangle((0, 0, width * s - 1, height * s - 1), radius=height * s / 2, fill=fill)
    im = big.resize((width, height), Image.Resampling.LANCZOS)
    ascent, descent = font(kind, size).getmetrics()
    pen = ((width - sprite.advance) // 2, (height - (ascent + descent)) // 2 + round(size * 0.04))
    paste_text(im, pen, text, kind, size, ink)
    return im


@lru_cache(maxsize=8)
def robot_icon(size: int, colour: RGB = INK_LIGHT) -> Image.Image:
    """A robot head (antenna, eyes, mouth) ``size`` pixels tall as an RGBA sprite: the mark of a computer player,
    drawn because the bundled font has no 🤖 (and a glyph in a name could be typed by anyone)."""
    s = _SS
    w = h = size * s
    im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.line((w * 0.5, h * 0.08, w * 0.5, h * 0.3), fill=colour, width=max(1, round(w * 0.08)))
    draw.ellipse((w * 0.41, 0, w * 0.59, h * 0.18), fill=colour)
    draw.rounded_rectangle((w * 0.08, h * 0.28, w * 0.92, h * 0.98), radius=w * 0.16, fill=colour)
    draw.rectangle((0, h * 0.5, w * 0.08, h * 0.75), fill=colour)
    draw.rectangle((w * 0.92, h * 0.5, w, h * 0.75), fill=colour)
    hole = (0, 0, 0, 0)
    draw.ellipse((w * 0.24, h * 0.44, w * 0.42, h * 0.62), fill=hole)
    draw.ellipse((w * 0.58, h * 0.44, w * 0.76, h * 0.62), fill=hole)
    draw.rounded_rectangle((w * 0.3, h * 0.74, w * 0.7, h * 0.84), radius=w * 0.04, fill=hole)
    return im.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=32)
def rounded_box(
    size: tuple[int, int], radius: int, fill: RGB, bg: RGB, outline: RGB | None = None, line: int = 1
) -> Image.Image:
    """A filled rounded rectangle on a ``bg`` ground, as an opaque RGB image to paste without a mask.

    Exactly ``ImageDraw.rounded_rectangle((x, y, x + w - 1, y + h - 1), ...)`` drawn over ``bg``
    (Pillow's box includes its right and bottom edges), so a panel costs one copy, not a redraw.
    """
    im = Image.new("RGB", size, bg)
    box = (0, 0, size[0] - 1, size[1] - 1)
    ImageDraw.Draw(im).rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=line)
    return im


def _base_colours() -> list[RGB]:
    colours = [FELT, FELT_DARK, PANEL, PANEL_TURN, INK_LIGHT, INK_MUTED, GOLD, GOLD_DARK, CARD_WHITE, CARD_EDGE]
    colours += [WHITE, CLOCK_URGENT, NAVY, LATTICE, STOCK_INK, HAND_ICON, _BLACK, _RED, _BLUE, _GREEN]
    colours += [c for pair in STATUS_COLOURS.values() for c in pair]
    colours += [_mix(c, CARD_WHITE, 0.86) for c in (_BLACK, _RED, _BLUE, _GREEN)]  # face-card panels
    return list(dict.fromkeys(colours))


@lru_cache(maxsize=1)
def palette() -> Image.Image:
    """The one 256-colour palette every image is encoded with.

    Every colour the renderer draws with, exactly, plus 8-step blends between every pair of them
    (the anti-aliased edges), reduced with an octree. Built from constants, so it is deterministic
    and costs about a millisecond once.
    """
    base = _base_colours()
    blends = [_mix(a, b, t / 8) for a in base for b in base if a < b for t in range(1, 8)]
    swatch = Image.new("RGB", (len(blends), 1))
    swatch.putdata(blends)
    reduced = swatch.quantize(256 - len(base), method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    extra = reduced.getpalette() or []
    flat = [v for c in base for v in c] + extra[: 3 * (256 - len(base))]
    flat += [0] * (768 - len(flat))
    pal = Image.new("P", (1, 1))
    pal.putpalette(flat)
    return pal


def warm_up(four_color: bool = False) -> None:
    """Draw every card sprite now (about 0.6 s per deck colouring), e.g. in a thread at bot start,
    so no player's first image pays for it."""
    palette()
    for size in (LARGE, MEDIUM, SMALL):
        back_sprite(size)
        for card in ALL_CARDS:
            card_sprite(card, size, four_color)


def to_png(im: Image.Image) -> bytes:
    """Encode for Discord: a PNG with the fixed 256-colour `palette` (no dithering), deflated by ISA-L.

    The art is flat (felt, white cards, a few suit colours and their anti-aliased edges), so
    mapping to the fixed palette is visually lossless (mean error under 1/255) and 4x faster than
    computing a palette per image, and files are about 3x smaller than RGB PNGs.

    The PNG is written here rather than by Pillow's encoder so that its deflate is Intel's ISA-L (`isal`, the
    maintained binding of python-isal): about 3x faster than zlib's level 2, which Pillow's encoder used, for
    files of the same size (docs/perf/render.md, "A faster deflate"). The chunks are the ones Pillow wrote:
    IHDR, PLTE (the 256 colours), a ``tEXt`` with the faces drawn (read back by `renderer.shown`, so it comes
    before the image data), one IDAT, IEND. Palette rows carry no filter (type 0), as Pillow wrote them, so each
    row of indexes is its filter byte and the row: built in C by pasting the image one column to the right of a
    zero column.
    """
    return png_of_indexes(quantize(im), drawn_cards(im))


def quantize(im: Image.Image) -> Image.Image:
    """``im`` mapped to the fixed `palette` (no dithering): what `to_png` writes, pixel by pixel. The mapping is
    per pixel, so a crop of the result is the result of the crop: pieces mapped apart and put together again
    (`renderer.hand`'s composed hands) give the same indexes as the whole image mapped at once."""
    return im.quantize(palette=palette(), dither=Image.Dither.NONE)


def png_of_indexes(q: Image.Image, cards: Sequence[Card]) -> bytes:
    """The PNG of `to_png` for an image already mapped to the fixed palette (a ``P`` image holding `palette`'s
    indexes) whose faces drawn were ``cards``, in drawing order."""
    width, height = q.size
    rows = Image.new("P", (width + 1, height), 0)  # column 0: every row's filter type, 0 (none)
    rows.paste(q, (1, 0))
    cards_text = " ".join(map(str, cards)).encode("latin-1")
    return b"".join(
        (
            _PNG_SIGNATURE,
            _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),  # 8-bit indexes
            _plte_chunk(),
            _png_chunk(b"tEXt", CARDS_KEY.encode("latin-1") + b"\0" + cards_text),
            _png_chunk(b"IDAT", isal_zlib.compress(rows.tobytes(), PNG_LEVEL)),
            _PNG_END,
        )
    )


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


_PNG_END = _png_chunk(b"IEND", b"")


@lru_cache(maxsize=1)
def _plte_chunk() -> bytes:
    return _png_chunk(b"PLTE", bytes(palette().getpalette() or [])[:768])
