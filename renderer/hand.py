"""The private hand image: an overlapped row of cards, the drawn/option card apart, positions under.

Only the left strip of each overlapped card shows, so the card index (rank over suit) sits there,
large. Cards that can meld with the drawn card are lifted and framed in gold, and their position
number is gold too.

Portrait (`HandSnapshot.layout`, the phone panel's lower part): 480 px wide, medium cards in rows of at most
`ROW_CARDS` (balanced: 11 cards are 6 and 5), the drawn card apart at the right of the first row; positions run on
across the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image

from pancog.game.cards import ALL_CARDS, Card, rank_order_key, suit_order_key
from pancog.game.i18n import speaking, tr, trn

from . import assets, labels
from .layout import Box, inside, overlaps
from .snapshot import HandSnapshot, HandSort

CARD = assets.LARGE
PORTRAIT_CARD = assets.MEDIUM
PORTRAIT_WIDTH = 480  # as the portrait table: the phone panel stacks the two
ROW_CARDS = 6  # cards per row in portrait: 6 medium cards and the drawn card fit 480 px
ROW_GAP = 6
PORTRAIT_STEP = 48  # of a medium card shown when overlapped in portrait: room for two-digit position numbers
PORTRAIT_LABEL_SIZE = 20
MARGIN = 12
LIFT = 18  # how far a meldable card is raised
GAP = 36  # between the hand and the drawn card
LABEL_GAP = 8
LABEL_SIZE = 22  # font size of position numbers
LABEL_HEIGHT = round(LABEL_SIZE * 1.45)
EMPTY_WIDTH = 260


@dataclass(frozen=True, slots=True, kw_only=True)
class HandLayout:
    """Where everything goes. ``order[i]`` is the index in ``snapshot.cards`` drawn at position i+1."""

    width: int
    height: int
    order: tuple[int, ...]
    card_boxes: tuple[Box, ...]  # full card rectangles, in display order (they overlap by design)
    index_boxes: tuple[Box, ...]  # the visible part of each card (its index strip); disjoint
    label_boxes: tuple[Box, ...]  # position numbers under the cards; disjoint
    marked: tuple[bool, ...]  # in display order: can meld with the drawn card
    drawn_box: Box | None
    drawn_label_box: Box | None
    drawn_panel: Box | None


def display_order(cards: Sequence[Card], sort: HandSort) -> tuple[int, ...]:
    """Indexes into ``cards`` in the order the image shows them (position 1 first)."""
    key = suit_order_key if sort == "suit" else rank_order_key
    return tuple(sorted(range(len(cards)), key=lambda i: key(cards[i])))


def _label_box(centre_x: int, top: int, text: str, fill: assets.RGB, ink: assets.RGB, size: int = LABEL_SIZE) -> Box:
    pill = assets.pill(text, fill, ink, size)
    left = centre_x - pill.width // 2
    return (left, top, left + pill.width, top + pill.height)


def label_size(snapshot: HandSnapshot) -> int:
    """The font size of the position numbers (and the drawn card's tag)."""
    return PORTRAIT_LABEL_SIZE if snapshot.layout == "portrait" else LABEL_SIZE


def layout_hand(snapshot: HandSnapshot) -> HandLayout:
    """Boxes for every card, label and the drawn card; pure arithmetic, no drawing."""
    if snapshot.layout == "portrait":
        return _layout_portrait(snapshot)
    order = display_order(snapshot.cards, snapshot.sort)
    n = len(order)
    w, h, step = CARD.width, CARD.height, CARD.step
    card_top = MARGIN + LIFT
    label_top = card_top + h + LABEL_GAP
    card_boxes: list[Box] = []
    index_boxes: list[Box] = []
    label_boxes: list[Box] = []
    marked = tuple(i in snapshot.meldable for i in order)
    for pos in range(n):
        x = MARGIN + pos * step
        y = card_top - (LIFT if marked[pos] else 0)
        card_boxes.append((x, y, x + w, y + h))
        strip = w if pos == n - 1 else step
        index_boxes.append((x, y, x + strip, y + h))
        label_boxes.append(_label_box(x + step // 2, label_top, str(pos + 1), assets.PANEL, assets.INK_LIGHT))
    hand_right = MARGIN + ((n - 1) * step + w if n else EMPTY_WIDTH)
    drawn_box = drawn_label_box = drawn_panel = None
    right = hand_right
    if snapshot.drawn is not None:
        x = hand_right + GAP
        drawn_box = (x, card_top, x + w, card_top + h)
        tag = labels.drawn_tag(label=snapshot.drawn_label)
        drawn_label_box = _label_box(x + w // 2, label_top, tag, assets.GOLD, assets.GOLD_DARK)
        pad = 10
        drawn_panel = (x - pad, card_top - pad, x + w + pad, label_top + LABEL_HEIGHT + 4)
        right = max(drawn_panel[2], drawn_label_box[2])
    return HandLayout(
        width=right + MARGIN,
        height=label_top + LABEL_HEIGHT + MARGIN,
        order=order,
        card_boxes=tuple(card_boxes),
        index_boxes=tuple(index_boxes),
        label_boxes=tuple(label_boxes),
        marked=marked,
        drawn_box=drawn_box,
        drawn_label_box=drawn_label_box,
        drawn_panel=drawn_panel,
    )


def _layout_portrait(snapshot: HandSnapshot) -> HandLayout:
    """Rows of medium cards, at most `ROW_CARDS` a row and balanced; the drawn card right of the first row."""
    order = display_order(snapshot.cards, snapshot.sort)
    n = len(order)
    card = PORTRAIT_CARD
    w, h, step = card.width, card.height, PORTRAIT_STEP
    rows = max(1, -(-n // ROW_CARDS))
    per_row = -(-n // rows) if n else 0
    row_h = LIFT + h + LABEL_GAP + LABEL_HEIGHT + ROW_GAP
    marked = tuple(i in snapshot.meldable for i in order)
    card_boxes: list[Box] = []
    index_boxes: list[Box] = []
    label_boxes: list[Box] = []
    for pos in range(n):
        row, col = divmod(pos, per_row)
        x = MARGIN + col * step
        top = MARGIN + row * row_h + LIFT
        y = top - (LIFT if marked[pos] else 0)
        card_boxes.append((x, y, x + w, y + h))
        last_in_row = col == per_row - 1 or pos == n - 1
        index_boxes.append((x, y, x + (w if last_in_row else step), y + h))
        label = str(pos + 1)
        label_boxes.append(_label_box(x + step // 2, top + h + LABEL_GAP, label, assets.PANEL, assets.INK_LIGHT,
                                      PORTRAIT_LABEL_SIZE))  # fmt: skip
    drawn_box = drawn_label_box = drawn_panel = None
    if snapshot.drawn is not None:
        top = MARGIN + LIFT
        x = PORTRAIT_WIDTH - MARGIN - 10 - w
        drawn_box = (x, top, x + w, top + h)
        tag = labels.drawn_tag(label=snapshot.drawn_label)
        label_top = top + h + LABEL_GAP
        drawn_label_box = _label_box(x + w // 2, label_top, tag, assets.GOLD, assets.GOLD_DARK, PORTRAIT_LABEL_SIZE)
        drawn_panel = (x - 10, top - 10, x + w + 10, label_top + LABEL_HEIGHT + 4)
    return HandLayout(
        width=PORTRAIT_WIDTH,
        height=MARGIN + rows * row_h - ROW_GAP + MARGIN,
        order=order,
        card_boxes=tuple(card_boxes),
        index_boxes=tuple(index_boxes),
        label_boxes=tuple(label_boxes),
        marked=marked,
        drawn_box=drawn_box,
        drawn_label_box=drawn_label_box,
        drawn_panel=drawn_panel,
    )


def render_hand(snapshot: HandSnapshot) -> Image.Image:
    """The hand as an RGB image (see `render_hand_png`)."""
    lay = layout_hand(snapshot)
    im = Image.new("RGB", (lay.width, lay.height), assets.FELT)
    draw_hand(im, snapshot, lay, (0, 0))
    return im


def draw_hand(im: Image.Image, snapshot: HandSnapshot, lay: HandLayout, origin: tuple[int, int]) -> None:
    """Draw the hand laid out as ``lay`` on ``im`` with its top-left corner at ``origin`` (the phone panel draws
    it under the table)."""
    ox, oy = origin
    card = PORTRAIT_CARD if snapshot.layout == "portrait" else CARD
    size = label_size(snapshot)
    if not lay.order:
        assets.paste_text(im, (ox + MARGIN + 8, oy + MARGIN + LIFT + card.height // 2 - 14), labels.no_cards(),
                          "bold", 26, assets.INK_MUTED)  # fmt: skip
    if lay.drawn_panel is not None:
        p = lay.drawn_panel  # as draw.rounded_rectangle(p, radius=14) would cover it, right/bottom edges included
        panel = assets.rounded_box((p[2] - p[0] + 1, p[3] - p[1] + 1), 14, assets.FELT_DARK, assets.FELT)
        assets.paste_rgba(im, panel, (ox + p[0], oy + p[1]))
    for pos, idx in enumerate(lay.order):
        box = lay.card_boxes[pos]
        assets.paste_card(
            im, snapshot.cards[idx], (ox + box[0], oy + box[1]), card, snapshot.four_color, lay.marked[pos]
        )
        if lay.marked[pos]:
            pill = assets.pill(str(pos + 1), assets.GOLD, assets.GOLD_DARK, size)
        else:
            pill = assets.pill(str(pos + 1), assets.PANEL, assets.INK_LIGHT, size)
        label = lay.label_boxes[pos]
        assets.paste_rgba(im, pill, (ox + label[0], oy + label[1]))
    if snapshot.drawn is not None and lay.drawn_box is not None and lay.drawn_label_box is not None:
        box = lay.drawn_box
        assets.paste_card(im, snapshot.drawn, (ox + box[0], oy + box[1]), card, snapshot.four_color)
        pill = assets.pill(labels.drawn_tag(label=snapshot.drawn_label), assets.GOLD, assets.GOLD_DARK, size)
        label = lay.drawn_label_box
        assets.paste_rgba(im, pill, (ox + label[0], oy + label[1]))


def render_hand_png(snapshot: HandSnapshot) -> bytes:
    """PNG bytes of the player's hand (position numbers 1..n under the cards, drawn card apart).

    The same file as ``assets.to_png(render_hand(snapshot))``, byte for byte, but composed from pieces already
    mapped to the palette (`_composed`): no hand is drawn or mapped whole."""
    with speaking(snapshot.lang):  # a render worker does not share the task's language: the snapshot carries it
        lay = layout_hand(snapshot)
        composed = _composed(snapshot, lay)
        if composed is None:  # a shape the pieces do not tile (an empty hand): drawn whole
            return assets.to_png(render_hand(snapshot))
        indexes, cards = composed
        return assets.png_of_indexes(indexes, cards)


# ------------------------------------------------------------------------- the hand composed from mapped pieces
#
# Mapping an image to the palette (`assets.quantize`) is per pixel and costs the same for every pixel, felt or card;
# with the drawing it was about two thirds of a hand's image. A hand is a row of overlapped cards, a number under
# each and the drawn card in its panel, on plain felt. Cut into pieces that tile it without overlapping — each
# card's visible strip (what shows of it, with the edge of the card under it), each number, the drawn card's panel
# — every pixel of a piece depends only on that piece's few inputs, and the pieces recur from hand to hand (a
# hand keeps most of its cards; sorted hands repeat the same neighbours). Each piece is drawn on felt exactly as
# `draw_hand` draws it, mapped once and kept (LRUs bounded by count; a strip is at most 120 x 186 indexes, most
# are 60 x 186); a hand is then pastes of indexes onto a felt canvas. Because the mapping is per pixel, the result
# is the index of every pixel of `render_hand`, exactly (`tests/renderer/test_render_fast_paths.py` compares the
# files). Measured in docs/perf/render.md, "Hands composed from mapped pieces".


def warm_up() -> None:
    """Draw a hand of each colouring once, so the fonts, sprites and pieces a hand strip needs first are loaded: the
    bot draws hand strips on its event loop (``PAN_RENDER_HANDS_INLINE``) and calls this on a thread at start, so no
    player's first hand waits for them."""
    cards = tuple(ALL_CARDS[i] for i in range(0, 40, 4))
    for four_color in (False, True):
        render_hand_png(HandSnapshot(cards=cards, drawn=ALL_CARDS[1], four_color=four_color))


def _composed(snapshot: HandSnapshot, lay: HandLayout) -> tuple[Image.Image, list[Card]] | None:
    """The hand's palette indexes and the faces drawn (in `draw_hand`'s order), or None when the pieces would not
    tile the image: no cards, or pieces that would overlap (a layout this was not written for)."""
    if not lay.order:
        return None
    card = PORTRAIT_CARD if snapshot.layout == "portrait" else CARD
    four = snapshot.four_color
    size = label_size(snapshot)
    pieces: list[tuple[Box, Image.Image]] = []
    faces: list[Card] = []
    prev: tuple[Card, bool, Box] | None = None
    for pos, idx in enumerate(lay.order):
        box, shown, marked = lay.card_boxes[pos], lay.index_boxes[pos], lay.marked[pos]
        face = snapshot.cards[idx]
        top = box[1] + (LIFT if marked else 0) - LIFT  # the row's top: a lifted card's top
        if prev is not None and prev[2][0] >= box[0]:  # a new row (portrait)
            prev = None
        elif prev is not None and prev[2][2] > box[0] + shown[2] - shown[0]:
            return None  # the card under would show past this strip: not a layout the strips tile
        under = None if prev is None else (prev[0], prev[1], prev[2][0] - box[0], prev[2][1] - top)
        strip = _strip(face, marked, under, box[1] - top, shown[2] - shown[0], LIFT + card.height, card, four)
        pieces.append(((box[0], top, box[0] + strip.width, top + strip.height), strip))
        faces.append(face)
        prev = (face, marked, box)
        label = lay.label_boxes[pos]
        number = _number(str(pos + 1), marked, size)
        pieces.append(((label[0], label[1], label[0] + number.width, label[1] + number.height), number))
    if snapshot.drawn is not None and lay.drawn_box is not None and lay.drawn_label_box is not None:
        if lay.drawn_panel is None:
            return None
        tag = labels.drawn_tag(label=snapshot.drawn_label)
        corner, apart = _drawn_piece(snapshot.drawn, four, card, tag, size, lay.drawn_panel, lay.drawn_box,
                                     lay.drawn_label_box)  # fmt: skip
        pieces.append(((*corner, corner[0] + apart.width, corner[1] + apart.height), apart))
        faces.append(snapshot.drawn)
    if not _tiles(pieces, lay.width, lay.height):
        return None
    canvas = Image.new("P", (lay.width, lay.height), _felt_index())
    canvas.load()
    core = canvas.im
    for box, piece in pieces:  # the core's paste: `Image.paste`'s checks cost more than its copy of a strip
        piece.load()
        if piece.mode == "P":
            core.paste(piece.im, box)
        else:
            canvas.paste(piece, box[:2])
    return canvas, faces


def _tiles(pieces: Sequence[tuple[Box, Image.Image]], width: int, height: int) -> bool:
    """Every piece inside the image and no two overlapping (so no piece hides another's pixels). As
    `layout.first_overlap`, with the boxes sorted by left edge so that each is compared only with those that start
    before it ends (a hand's ~23 pieces: a few dozen comparisons, not 250)."""
    image = (0, 0, width, height)
    boxes = sorted(box for box, _ in pieces)
    for i, box in enumerate(boxes):
        if not inside(box, image):
            return False
        for other in boxes[i + 1 :]:
            if other[0] >= box[2]:
                break  # no later box reaches back into this one
            if overlaps(box, other):
                return False
    return True


@lru_cache(maxsize=1)
def _felt_index() -> int:
    return assets.quantize(Image.new("RGB", (1, 1), assets.FELT)).tobytes()[0]


@lru_cache(maxsize=1024)  # ~12 KB a strip (~12 MB kept); docs/perf/render.md, "Hands composed"
def _strip(
    face: Card,
    marked: bool,
    under: tuple[Card, bool, int, int] | None,
    dy: int,
    width: int,
    height: int,
    card: assets.CardSize,
    four: bool,
) -> Image.Image:
    """What shows of one card in its row, ``width`` wide from its left edge and ``height`` tall from the row's top
    (its top ``dy`` below that), as palette indexes: the felt, the card ``under`` it (face, marked, left and top
    relative to this card's strip) and the card, drawn as `draw_hand` draws them."""
    im = Image.new("RGB", (width, height), assets.FELT)
    if under is not None:
        face_under, marked_under, x, y = under
        assets.card_sprite(face_under, card, four, marked_under).paste(im, (x, y))
    assets.card_sprite(face, card, four, marked).paste(im, (0, dy))
    return assets.quantize(im)


@lru_cache(maxsize=128)
def _number(text: str, marked: bool, size: int) -> Image.Image:
    """A position number's pill on the felt, as palette indexes."""
    if marked:
        pill = assets.pill(text, assets.GOLD, assets.GOLD_DARK, size)
    else:
        pill = assets.pill(text, assets.PANEL, assets.INK_LIGHT, size)
    im = Image.new("RGB", pill.size, assets.FELT)
    assets.paste_rgba(im, pill, (0, 0))
    return assets.quantize(im)


@lru_cache(maxsize=512)
def _drawn_piece(
    drawn: Card, four: bool, card: assets.CardSize, tag: str, size: int, panel: Box, box: Box, label: Box
) -> tuple[tuple[int, int], Image.Image]:
    """The drawn card apart: its panel, the card and its tag on the felt, as palette indexes, and where the piece's
    top-left corner goes (the boxes are the image's; the key holds them, so a piece is only reused in place)."""
    right = max(panel[2] + 1, box[2], label[2])
    bottom = max(panel[3] + 1, box[3], label[3])
    left, top = min(panel[0], box[0], label[0]), min(panel[1], box[1], label[1])
    im = Image.new("RGB", (right - left, bottom - top), assets.FELT)
    frame = assets.rounded_box((panel[2] - panel[0] + 1, panel[3] - panel[1] + 1), 14, assets.FELT_DARK, assets.FELT)
    assets.paste_rgba(im, frame, (panel[0] - left, panel[1] - top))
    assets.card_sprite(drawn, card, four).paste(im, (box[0] - left, box[1] - top))
    pill = assets.pill(tag, assets.GOLD, assets.GOLD_DARK, size)
    assets.paste_rgba(im, pill, (label[0] - left, label[1] - top))
    return (left, top), assets.quantize(im)


def hand_text(snapshot: HandSnapshot, *, name_drawn: bool = True) -> str:
    """The hand image as plain text: every card in the order the image shows it, as the table shows cards (suit
    symbols), the drawn card, and what in the hand melds with it. The image's position numbers are left out: no
    command takes a position, so in words they are noise. ``name_drawn=False``: the drawn card was just named in
    the same message ("You plucked 5♦."), so it is not named again.

    >>> from pancog.game.cards import parse_card, parse_cards
    >>> snap = HandSnapshot(cards=parse_cards("5S 2C 5H"), drawn=parse_card("5D"), meldable=frozenset({0, 2}))
    >>> print(hand_text(snap))
    Your hand, 3 cards by suit: 2♣ 5♥ 5♠.
    Pluck: 5♦. Melds with it: 5♥ 5♠.
    >>> print(hand_text(snap, name_drawn=False))
    Your hand, 3 cards by suit: 2♣ 5♥ 5♠.
    Melds with the pluck: 5♥ 5♠.
    """
    with speaking(snapshot.lang):
        return _hand_text(snapshot, name_drawn=name_drawn)


def _hand_text(snapshot: HandSnapshot, *, name_drawn: bool) -> str:
    order = display_order(snapshot.cards, snapshot.sort)
    n = len(order)
    if n:
        listed = " ".join(snapshot.cards[i].pretty for i in order)
        count = trn("{n} card", "{n} cards", n)
        if snapshot.sort == "rank":
            lines = [tr("Your hand, {count} by rank: {cards}.", count=count, cards=listed)]
        else:
            lines = [tr("Your hand, {count} by suit: {cards}.", count=count, cards=listed)]
    else:
        lines = [tr("Your hand is empty.")]
    if snapshot.drawn is not None:
        pluck = snapshot.drawn_label == "pluck"
        melds = " ".join(snapshot.cards[i].pretty for i in order if i in snapshot.meldable)
        line = ""
        if name_drawn:
            line = (tr("Pluck: {card}.") if pluck else tr("Option: {card}.")).format(card=snapshot.drawn.pretty) + " "
        if name_drawn:
            line += tr("Melds with it: {cards}.", cards=melds) if melds else tr("Nothing in your hand melds with it.")
        elif pluck:
            line += (
                tr("Melds with the pluck: {cards}.", cards=melds)
                if melds
                else tr("Nothing in your hand melds with the pluck.")
            )
        else:
            line += (
                tr("Melds with the option card: {cards}.", cards=melds)
                if melds
                else tr("Nothing in your hand melds with the option card.")
            )
        lines.append(line)
    return "\n".join(lines)
