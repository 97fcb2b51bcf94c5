"""Two canvases the board draws on through one set of calls: `RGBCanvas` (an RGB image, mapped to the palette
afterwards by `assets.to_png`) and `IndexCanvas` (the palette indexes themselves, so no image is mapped whole).

Why: mapping a drawn board to the fixed palette (`assets.quantize`) is a per-pixel pass that cost ~27 % of the
render workers' CPU in the bot (docs/performance.md, "Boards drawn as palette indexes"), whatever the pixel shows.
A board is flat fills (the felt, the header, the seat panels, the chips' discs, the turn arrow: exact colours of the
palette, drawn without anti-aliasing) and sprites laid on them (text, pills, cards, the robot mark), each on a ground
of one colour it is told. So `IndexCanvas` draws the fills with the colours' indexes — the same pixels as on RGB,
since Pillow's shapes cover the same pixels in any mode — and lays each sprite as indexes worked out once:

* text: its mask's alpha decides each pixel, so one 256-entry table per (ink, ground) maps alpha to the index of
  exactly the blend the RGB canvas would make there (`_ink_table`: that blend, made by the same Pillow call, mapped);
* an RGBA sprite (a pill, a card, the robot): drawn on its ground and mapped once, kept by what it shows;
* a group of sprites that overlap one another (a meld's cards and value tag, the stock's back and count, the
  discard pile): drawn on its ground as the RGB canvas draws it, mapped once and kept by what it shows and where.

A sprite is laid through the mask of the pixels it covers (a group: its whole box). The result is, index for index,
what mapping the RGB canvas's board gives whenever each sprite lies on the plain ground it names — and that is
checked, not assumed: `IndexCanvas`'s shadow plane refuses a sprite whose box holds anything else (`Overlap`), and
`renderer.table.render_table_png` then draws that board on RGB. `tests/renderer/test_render_fast_paths.py` compares
the two canvases' files over ~200 boards (random shapes, every seat count, both layouts and deck colourings, every
status, three languages: none falls back), and `python -m bench.board_parts` over boards the bot drew.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from PIL import Image, ImageChops, ImageDraw

from pancog.game.cards import Card

from . import assets

Box = tuple[int, int, int, int]
Point = tuple[float, float]

_COVERED = [0] + [255] * 255  # alpha -> a paste mask: every pixel with any ink


class RGBCanvas:
    """Draws onto an RGB image exactly as the board always did (the grounds are not needed). ``origin``: the image's
    top-left corner in the board's coordinates (a group drawn on a small image of its own)."""

    def __init__(self, im: Image.Image, origin: tuple[int, int] = (0, 0)) -> None:
        self.im = im
        self.draw = ImageDraw.Draw(im)
        self.ox, self.oy = origin

    def _xy(self, xy: tuple[int, int]) -> tuple[int, int]:
        return xy[0] - self.ox, xy[1] - self.oy

    def _box(self, box: Box) -> Box:
        return box[0] - self.ox, box[1] - self.oy, box[2] - self.ox, box[3] - self.oy

    def rectangle(self, box: Box, fill: assets.RGB) -> None:
        self.draw.rectangle(self._box(box), fill=fill)

    def rounded_rectangle(
        self, box: Box, radius: int, fill: assets.RGB | None, outline: assets.RGB | None, width: int
    ) -> None:
        self.draw.rounded_rectangle(self._box(box), radius=radius, fill=fill, outline=outline, width=width)

    def ellipse(self, box: Box, fill: assets.RGB, outline: assets.RGB, width: int = 1) -> None:
        self.draw.ellipse(self._box(box), fill=fill, outline=outline, width=width)

    def polygon(self, points: list[Point], fill: assets.RGB) -> None:
        self.draw.polygon([(x - self.ox, y - self.oy) for x, y in points], fill=fill)

    def text(
        self, xy: tuple[int, int], text: str, kind: assets.FontKind, size: int, fill: assets.RGB, ground: assets.RGB
    ) -> None:
        assets.paste_text(self.im, self._xy(xy), text, kind, size, fill)

    def line(
        self, xy: tuple[int, int], text: str, kind: assets.FontKind, size: int, fill: assets.RGB, ground: assets.RGB
    ) -> None:
        assets.paste_line(self.im, self._xy(xy), text, kind, size, fill)

    def pill(self, xy: tuple[int, int], pill: Pill, ground: assets.RGB) -> None:
        assets.paste_rgba(self.im, pill.image(), self._xy(xy))

    def robot(self, xy: tuple[int, int], size: int, colour: assets.RGB, ground: assets.RGB) -> None:
        assets.paste_rgba(self.im, assets.robot_icon(size, colour), self._xy(xy))

    def box(self, xy: tuple[int, int], size: tuple[int, int], radius: int, fill: assets.RGB, ground: assets.RGB,
            outline: assets.RGB | None = None, line: int = 1) -> None:  # fmt: skip
        """`assets.rounded_box` (opaque) with its top-left at ``xy``."""
        assets.paste_rgba(self.im, assets.rounded_box(size, radius, fill, ground, outline, line), self._xy(xy))

    def card(self, xy: tuple[int, int], card: Card, size: assets.CardSize, four: bool, marked: bool,
             ground: assets.RGB) -> None:  # fmt: skip
        assets.paste_card(self.im, card, self._xy(xy), size, four, marked)

    def back(self, xy: tuple[int, int], size: assets.CardSize, ground: assets.RGB) -> None:
        assets.back_sprite(size).paste(self.im, self._xy(xy))

    def group(
        self,
        box: Box,
        ground: assets.RGB,
        key: tuple[Any, ...],
        draw: Callable[[RGBCanvas], None],
        *,
        over: bool = False,
    ) -> None:
        """Sprites that overlap one another, all inside ``box``: drawn here in place."""
        draw(self)


class Pill:
    """A pill's arguments (`assets.pill`): what it shows, so that its mapped sprite can be kept by it."""

    __slots__ = ("key",)

    def __init__(self, text: str, fill: assets.RGB, ink: assets.RGB, size: int, *, tight: bool = False) -> None:
        self.key = (text, fill, ink, size, tight)

    def image(self) -> Image.Image:
        text, fill, ink, size, tight = self.key
        return assets.pill(text, fill, ink, size, tight=tight)

    @property
    def size(self) -> tuple[int, int]:
        return self.image().size

    @property
    def width(self) -> int:
        return self.size[0]

    @property
    def height(self) -> int:
        return self.size[1]


class Overlap(Exception):
    """A sprite would lie on something other than the plain ground it names: `IndexCanvas` cannot draw this board
    exactly, and the board is drawn on RGB instead (`renderer.table.render_table_png`)."""


_LAID = 255  # the shadow's mark of a pixel a sprite laid (no fill colour maps to it: checked in `_ground_index`)


class IndexCanvas:
    """Draws a board as palette indexes (see the module's docstring); ``cards``: the faces drawn, in order (the
    record `assets.png_of_indexes` writes).

    Its ``shadow`` holds, per pixel, the index of the last fill drawn there, or `_LAID` where a sprite laid pixels.
    Before a sprite is laid, every pixel of its box must hold its ground's index there — the ground it was mapped on
    is really under it, and no other sprite's pixel (not even a faint edge that mapped to the ground's index) is —
    else `Overlap` is raised: one crop of the shadow and its extremes per sprite, one paste to mark it."""

    def __init__(self, size: tuple[int, int], ground: assets.RGB) -> None:
        g = _ground_index(ground)
        self.im = Image.new("P", size, g)
        self.im.load()
        self.core = self.im.im
        self.draw = ImageDraw.Draw(self.im)
        shadow = Image.new("L", size, g)
        shadow.load()
        self.shadow = shadow.im
        self.shadow_draw = ImageDraw.Draw(shadow)
        self.cards: list[Card] = []

    def _lay(self, x: int, y: int, piece: Piece, ground: assets.RGB) -> None:
        """Lay ``piece`` with its top-left at (x, y) on ``ground``."""
        indexes, mask, w, h, fill = piece
        box = (x, y, x + w, y + h)
        if fill:  # opaque: what is under it does not matter
            self.core.paste(indexes, box)
            self.shadow.paste(indexes, box)
            return
        g = _GROUNDS.get(ground) or _ground_index(ground)
        if self.shadow.crop(box).getextrema() != (g, g):
            raise Overlap(box)
        if mask is None:
            self.core.paste(indexes, box)
            self.shadow.paste(_LAID, box)
        else:
            self.core.paste(indexes, box, mask)
            self.shadow.paste(_LAID, box, mask)

    def rectangle(self, box: Box, fill: assets.RGB) -> None:
        i = _ground_index(fill)
        self.draw.rectangle(box, fill=i)
        self.shadow_draw.rectangle(box, fill=i)

    def rounded_rectangle(
        self, box: Box, radius: int, fill: assets.RGB | None, outline: assets.RGB | None, width: int
    ) -> None:
        fill_i, outline_i = _index_or_none(fill), _index_or_none(outline)
        for draw in (self.draw, self.shadow_draw):
            draw.rounded_rectangle(box, radius=radius, fill=fill_i, outline=outline_i, width=width)

    def ellipse(self, box: Box, fill: assets.RGB, outline: assets.RGB, width: int = 1) -> None:
        fill_i, outline_i = _ground_index(fill), _ground_index(outline)
        for draw in (self.draw, self.shadow_draw):
            draw.ellipse(box, fill=fill_i, outline=outline_i, width=width)

    def polygon(self, points: list[Point], fill: assets.RGB) -> None:
        i = _ground_index(fill)
        self.draw.polygon(points, fill=i)
        self.shadow_draw.polygon(points, fill=i)

    def text(
        self, xy: tuple[int, int], text: str, kind: assets.FontKind, size: int, fill: assets.RGB, ground: assets.RGB
    ) -> None:
        if not text:
            return
        sprite = assets.text_sprite(text, kind, size)
        self._lay(xy[0] + sprite.dx, xy[1] + sprite.dy, _text_piece(text, kind, size, fill, ground), ground)

    def line(
        self, xy: tuple[int, int], text: str, kind: assets.FontKind, size: int, fill: assets.RGB, ground: assets.RGB
    ) -> None:
        """`assets.paste_line`: from the line's cached words, each laid where the whole line puts it."""
        words = assets.line_words(text, kind, size) if text else None
        if words is None:
            if not text:
                return
            sprite = assets.recent_text_sprite(text, kind, size)
            self._lay(xy[0] + sprite.dx, xy[1] + sprite.dy, _ink_piece(sprite, fill, ground), ground)
            return
        for x, word, frac64 in words:
            sprite = assets.word_sprite(word, kind, size, frac64)
            piece = _word_piece(word, kind, size, frac64, fill, ground)
            self._lay(xy[0] + x + sprite.dx, xy[1] + sprite.dy, piece, ground)

    def pill(self, xy: tuple[int, int], pill: Pill, ground: assets.RGB) -> None:
        self._lay(xy[0], xy[1], _pill_piece(pill.key, ground), ground)

    def robot(self, xy: tuple[int, int], size: int, colour: assets.RGB, ground: assets.RGB) -> None:
        self._lay(xy[0], xy[1], _robot_piece(size, colour, ground), ground)

    def box(self, xy: tuple[int, int], size: tuple[int, int], radius: int, fill: assets.RGB, ground: assets.RGB,
            outline: assets.RGB | None = None, line: int = 1) -> None:  # fmt: skip
        self._lay(xy[0], xy[1], _box_piece(size, radius, fill, ground, outline, line), ground)

    def card(self, xy: tuple[int, int], card: Card, size: assets.CardSize, four: bool, marked: bool,
             ground: assets.RGB) -> None:  # fmt: skip
        self._lay(xy[0], xy[1], _card_piece(card, size, four, marked, ground), ground)
        self.cards.append(card)

    def back(self, xy: tuple[int, int], size: assets.CardSize, ground: assets.RGB) -> None:
        self._lay(xy[0], xy[1], _back_piece(size, ground), ground)

    def group(
        self,
        box: Box,
        ground: assets.RGB,
        key: tuple[Any, ...],
        draw: Callable[[RGBCanvas], None],
        *,
        over: bool = False,
    ) -> None:
        """Sprites that overlap one another, all inside ``box`` (on ``ground``): drawn as the RGB canvas draws them
        on an image of the box's size, mapped, and kept by ``key`` (what they show and where, relative to the box).
        The whole box is laid, on the ground everywhere; ``over``: except where the group is opaque, since what is
        under those pixels does not matter (the discard pile's edge over its caption's lowest pixels)."""
        size = (box[2] - box[0], box[3] - box[1])
        indexes, opaque, cards = _group_piece(size, ground, key, draw, box[:2], over)
        g = _GROUNDS.get(ground) or _ground_index(ground)
        under = self.shadow.crop(box)
        if opaque is not None:
            under.paste(g, (0, 0, *size), opaque)
        if under.getextrema() != (g, g):
            raise Overlap(box)
        self.core.paste(indexes, box)
        self.shadow.paste(_LAID, box)
        self.cards.extend(cards)


Canvas = RGBCanvas | IndexCanvas


# ----------------------------------------------------------------------------------------------- mapped pieces
# A piece: (Pillow core image of palette indexes, core mask of the pixels it covers or None for its whole box, width,
# height, whether the shadow takes it as a fill: an opaque piece of exact colours drawn without anti-aliasing, a
# panel, on which sprites may lie). Core images, so that laying one makes no Python-level Pillow calls. The caches
# are bounded by count; docs/perf/render.md gives their memory.

Piece = tuple[Any, Any, int, int, bool]


@lru_cache(maxsize=256)
def index_of(colour: assets.RGB) -> int:
    """The palette index a pixel of exactly ``colour`` maps to (`assets.quantize`'s own answer)."""
    return int(assets.quantize(Image.new("RGB", (1, 1), colour)).getpixel((0, 0)))  # type: ignore[arg-type]


_GROUNDS: dict[assets.RGB, int] = {}


def _ground_index(colour: assets.RGB) -> int:
    """`index_of` a colour the board fills with (a ground); never `_LAID`, the shadow's mark."""
    i = _GROUNDS.get(colour)
    if i is None:
        i = index_of(colour)
        if i == _LAID:
            raise ValueError(f"a fill colour maps to index {_LAID}, the shadow's mark of laid sprites")
        _GROUNDS[colour] = i
    return i


def _index_or_none(colour: assets.RGB | None) -> int | None:
    return None if colour is None else _ground_index(colour)


def _piece(indexes: Image.Image, mask: Image.Image | None, *, fill: bool = False) -> Piece:
    indexes.load()
    if mask is not None:
        mask.load()
    return indexes.im, None if mask is None else mask.im, indexes.width, indexes.height, fill


@lru_cache(maxsize=512)
def _ink_table(fill: assets.RGB, ground: assets.RGB) -> list[int]:
    """Alpha (0-255) -> the index of ``fill`` laid through that alpha on ``ground``: the RGB canvas's own blend
    (Pillow's paste of a colour through a mask, as `assets.paste_text_sprite` makes it), mapped."""
    blends = Image.new("RGB", (256, 1), ground)
    blends.load()
    blends.im.paste(fill, (0, 0, 256, 1), Image.frombytes("L", (256, 1), bytes(range(256))).im)
    return list(assets.quantize(blends).tobytes())


def _ink_piece(sprite: assets.TextSprite, fill: assets.RGB, ground: assets.RGB) -> Piece:
    mask = sprite.mask
    mask.load()
    core = mask.im
    return _looked_up(core, _ink_table(fill, ground)), _looked_up(core, _COVERED), mask.width, mask.height, False


def _looked_up(core: Any, table: list[int]) -> Any:
    """``Image.point(table)`` on a core image of mode L, without the wrapper: Pillow's ``point`` rounds each of a
    list's 256 entries in Python on every call (~14 µs a call against ~1.6 here), and these tables are integers
    already. A text piece missed in its cache costs two calls, ~5 a board: ~5 % of a board (docs/perf/render.md)."""
    return core.point(table, None)


@lru_cache(maxsize=1024)  # ~5 KB each (indexes and mask): ~5 MB; a miss is two lookups (~2 µs)
def _text_piece(text: str, kind: assets.FontKind, size: int, fill: assets.RGB, ground: assets.RGB) -> Piece:
    return _ink_piece(assets.text_sprite(text, kind, size), fill, ground)


@lru_cache(maxsize=1024)  # ~3 KB each: ~3 MB
def _word_piece(
    word: str, kind: assets.FontKind, size: int, frac64: int, fill: assets.RGB, ground: assets.RGB
) -> Piece:
    return _ink_piece(assets.word_sprite(word, kind, size, frac64), fill, ground)


def _rgba_piece(sprite: Image.Image, ground: assets.RGB) -> Piece:
    """An RGBA sprite laid on ``ground`` (`assets.paste_rgba`), mapped; covering the pixels with any alpha."""
    im = Image.new("RGB", sprite.size, ground)
    assets.paste_rgba(im, sprite, (0, 0))
    return _piece(assets.quantize(im), sprite.getchannel("A").point(_COVERED))


@lru_cache(maxsize=1024)
def _pill_piece(key: tuple[str, assets.RGB, assets.RGB, int, bool], ground: assets.RGB) -> Piece:
    text, fill, ink, size, tight = key
    return _rgba_piece(assets.pill(text, fill, ink, size, tight=tight), ground)


@lru_cache(maxsize=16)
def _robot_piece(size: int, colour: assets.RGB, ground: assets.RGB) -> Piece:
    return _rgba_piece(assets.robot_icon(size, colour), ground)


@lru_cache(maxsize=64)
def _box_piece(size: tuple[int, int], radius: int, fill: assets.RGB, ground: assets.RGB, outline: assets.RGB | None,
               line: int) -> Piece:  # fmt: skip
    return _piece(assets.quantize(assets.rounded_box(size, radius, fill, ground, outline, line)), None, fill=True)


def _sprite_piece(sprite: assets.Sprite, ground: assets.RGB) -> Piece:
    im = Image.new("RGB", (sprite.width, sprite.height), ground)
    sprite.paste(im, (0, 0))
    return _piece(assets.quantize(im), sprite.image().getchannel("A").point(_COVERED))


@lru_cache(maxsize=512)
def _card_piece(card: Card, size: assets.CardSize, four: bool, marked: bool, ground: assets.RGB) -> Piece:
    return _sprite_piece(assets.card_sprite(card, size, four, marked), ground)


@lru_cache(maxsize=8)
def _back_piece(size: assets.CardSize, ground: assets.RGB) -> Piece:
    return _sprite_piece(assets.back_sprite(size), ground)


_GROUPS: dict[tuple[Any, ...], tuple[Any, Any, tuple[Card, ...]]] = {}
_GROUPS_LOCK = threading.Lock()
GROUPS_KEPT = 2048  # ~10 KB each (a meld and its tag, measured on a benchmark's boards): ~21 MB per render worker


def _group_piece(
    size: tuple[int, int],
    ground: assets.RGB,
    key: tuple[Any, ...],
    draw: Callable[[RGBCanvas], None],
    origin: tuple[int, int],
    over: bool,
) -> tuple[Any, Any, tuple[Card, ...]]:
    """A group drawn on ``ground`` and mapped (a core image); with ``over``, the mask of its pixels that do not
    depend on what is under them (None: none), found by drawing it again on the opposite colour — a pixel the group
    covers opaquely comes out the same on both; the faces it drew. Kept (least recently used out) by ``key`` with
    its size, ground and ``over``."""
    full = (size, ground, key, over)
    with _GROUPS_LOCK:  # renders may run in several threads (`PAN_RENDER_MODE=thread`); drawing is outside it
        found = _GROUPS.pop(full, None)
        if found is not None:
            _GROUPS[full] = found  # the most recently used last
            return found
    on_ground = Image.new("RGB", size, ground)
    draw(RGBCanvas(on_ground, origin))
    opaque = None
    if over:
        on_other = Image.new("RGB", size, tuple(255 - v for v in ground))
        draw(RGBCanvas(on_other, origin))
        differs = ImageChops.difference(on_ground, on_other).point(_COVERED * 3).convert("L").point(_COVERED)
        same = ImageChops.invert(differs)
        same.load()
        opaque = same.im if same.getextrema()[1] else None
    indexes = assets.quantize(on_ground)
    indexes.load()
    found = (indexes.im, opaque, assets.drawn_cards(on_ground))
    with _GROUPS_LOCK:
        _GROUPS[full] = found
        while len(_GROUPS) > GROUPS_KEPT:
            del _GROUPS[next(iter(_GROUPS))]
    return found
