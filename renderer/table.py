"""The public table image: header (title, hand, whose turn, clock), centre (option/discard, stock,
tops, recent notes) and one panel per seat (name, chips, status, cards held, melds with values).

Up to 4 seats use one column of wide panels; more use two columns. Meld cards are index-only mini
cards overlapped like a hand; each meld that pays carries a gold value tag (``+4``).
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from . import assets
from .layout import Box
from .snapshot import MeldSnapshot, SeatSnapshot, SeatStatus, TableSnapshot

WIDTH = 800
MARGIN = 14
HEADER_H = 52
TOP_CARD = assets.MEDIUM
MINI = assets.SMALL
CAPTION_SIZE = 15
INFO_TOP = HEADER_H + 10
INFO_H = 22 + TOP_CARD.height
SEAT_GAP = 10
PANEL_PAD = 10
SEAT_HEAD_H = 34
BADGE_ROW_H = 28
MIN_NAME_W = 120
NAME_SIZE = 20
MELD_GAP = 12
MELD_ROW_GAP = 8
TAG_SIZE = 18
STATUS_SIZE = 15
COUNT_SIZE = 17
MAX_NOTES = 3
PANEL_CACHE_PX = 150_000  # seat panels up to this many pixels are cached (`assets.rounded_box`, 32 kept)

_ACTIVE = {SeatStatus.IN, SeatStatus.FOULED}


@dataclass(frozen=True, slots=True, kw_only=True)
class MeldLayout:
    box: Box  # the cards and the tag together
    card_boxes: tuple[Box, ...]
    step: int
    tag_box: Box | None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatLayout:
    panel: Box
    name_box: Box
    name_text: str  # the name as drawn (cut with "…" if too long)
    status_box: Box
    doubles_box: Box | None
    count_box: Box
    chips_box: Box
    melds: tuple[MeldLayout, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableLayout:
    width: int
    height: int
    header: Box
    top_card_box: Box
    stock_box: Box
    tops_box: Box
    notes_box: Box
    columns: int
    seats: tuple[SeatLayout, ...]


def chips_text(chips: int) -> str:
    return f"{chips:,}"


def clock_text(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def _meld_width(meld: MeldSnapshot, step: int) -> int:
    return (len(meld.cards) - 1) * step + MINI.width if meld.cards else MINI.width


def _tag(meld: MeldSnapshot) -> Image.Image | None:
    label = meld.shown_label
    return assets.pill(label, assets.GOLD, assets.GOLD_DARK, TAG_SIZE) if label else None


def _status_pill(status: SeatStatus) -> Image.Image:
    fill, ink = assets.STATUS_COLOURS[status.value]
    return assets.pill(status.value, fill, ink, STATUS_SIZE)


def _doubles_pill() -> Image.Image:
    return assets.pill("x2", assets.GOLD, assets.GOLD_DARK, STATUS_SIZE)


def _count_text(seat: SeatSnapshot) -> str:
    return f"{seat.hand_count}"


def _layout_melds(melds: tuple[MeldSnapshot, ...], left: int, top: int, inner_w: int) -> tuple[list[MeldLayout], int]:
    """Flow melds left to right, wrapping; returns the layouts and the bottom edge used."""
    out: list[MeldLayout] = []
    x, y = left, top
    row_h = MINI.height
    for meld in melds:
        tag = _tag(meld)
        tag_w = tag.width + 4 if tag else 0
        step = MINI.step
        width = _meld_width(meld, step) + tag_w
        if width > inner_w and len(meld.cards) > 1:  # squeeze a very long meld into the row
            step = max(8, (inner_w - tag_w - MINI.width) // (len(meld.cards) - 1))
            width = _meld_width(meld, step) + tag_w
        if x > left and x + width > left + inner_w:
            x, y = left, y + row_h + MELD_ROW_GAP
        cards = tuple((x + i * step, y, x + i * step + MINI.width, y + MINI.height) for i in range(len(meld.cards)))
        cards_right = x + _meld_width(meld, step)
        tag_box = None
        if tag is not None:
            ty = y + MINI.height - tag.height - 2
            tag_box = (cards_right + 4, ty, cards_right + 4 + tag.width, ty + tag.height)
        out.append(MeldLayout(box=(x, y, x + width, y + MINI.height), card_boxes=cards, step=step, tag_box=tag_box))
        x += width + MELD_GAP
    bottom = y + row_h if melds else top - PANEL_PAD + 2
    return out, bottom


def _pill_box(pill: Image.Image, right: int, mid: int) -> Box:
    return (right - pill.width, mid - pill.height // 2, right, mid - pill.height // 2 + pill.height)


def _layout_badges(seat: SeatSnapshot, right: int, mid: int) -> tuple[Box, Box, Box | None, int]:
    """Status, cards-held and doubles badges laid right to left from ``right``; returns their left edge."""
    count_w = assets.text_width(_count_text(seat), "bold", COUNT_SIZE) + 18
    count_box = (right - count_w, mid - 11, right, mid + 11)
    status_box = _pill_box(_status_pill(seat.status), count_box[0] - 8, mid)
    doubles_box = _pill_box(_doubles_pill(), status_box[0] - 6, mid) if seat.doubles else None
    return status_box, count_box, doubles_box, (doubles_box or status_box)[0]


def _layout_seat(seat: SeatSnapshot, left: int, top: int, width: int) -> tuple[SeatLayout, int]:
    """Lay one seat panel at (left, top); returns it and its natural height.

    The header is one row (name, badges, chips) when the name keeps at least `MIN_NAME_W` pixels,
    otherwise the badges move to a second row under the name.
    """
    right = left + width
    mid = top + SEAT_HEAD_H // 2 + 4
    chips_w = assets.text_width(chips_text(seat.chips), "bold", NAME_SIZE) + 22  # + the chip dot
    chips_box = (right - PANEL_PAD - chips_w, mid - 12, right - PANEL_PAD, mid + 12)
    name_left = left + PANEL_PAD + (16 if seat.is_turn else 0)
    status_box, count_box, doubles_box, badges_left = _layout_badges(seat, chips_box[0] - 10, mid)
    head_h = SEAT_HEAD_H
    name_right = badges_left - 8
    if name_right - name_left < MIN_NAME_W:
        name_right = chips_box[0] - 10
        head_h = SEAT_HEAD_H + BADGE_ROW_H
        status_box, count_box, doubles_box, _ = _layout_badges(seat, right - PANEL_PAD, mid + BADGE_ROW_H)
    name_text = assets.fit_text(seat.name, "cond", NAME_SIZE, max(0, name_right - name_left))
    name_w = assets.text_width(name_text, "cond", NAME_SIZE)
    name_box = (name_left, mid - 13, name_left + name_w, mid + 13)
    melds, bottom = _layout_melds(seat.melds, left + PANEL_PAD, top + head_h + 6, width - 2 * PANEL_PAD)
    height = bottom + PANEL_PAD - top
    layout = SeatLayout(
        panel=(left, top, right, top + height),
        name_box=name_box,
        name_text=name_text,
        status_box=status_box,
        doubles_box=doubles_box,
        count_box=count_box,
        chips_box=chips_box,
        melds=tuple(melds),
    )
    return layout, height


def _with_panel_height(seat: SeatLayout, height: int) -> SeatLayout:
    p = seat.panel
    return SeatLayout(
        panel=(p[0], p[1], p[2], p[1] + height),
        name_box=seat.name_box,
        name_text=seat.name_text,
        status_box=seat.status_box,
        doubles_box=seat.doubles_box,
        count_box=seat.count_box,
        chips_box=seat.chips_box,
        melds=seat.melds,
    )


def layout_table(snapshot: TableSnapshot) -> TableLayout:
    """Boxes for the header, centre and every seat panel (with meld and tag boxes)."""
    header = (0, 0, WIDTH, HEADER_H)
    card_top = INFO_TOP + 22
    top_card_box = (MARGIN, card_top, MARGIN + TOP_CARD.width, card_top + TOP_CARD.height)
    sx = top_card_box[2] + 22
    stock_box = (sx, card_top, sx + TOP_CARD.width, card_top + TOP_CARD.height)
    tx = stock_box[2] + 22
    tops_box = (tx, INFO_TOP, tx + 150, INFO_TOP + INFO_H)
    notes_box = (tops_box[2] + 16, INFO_TOP, WIDTH - MARGIN, INFO_TOP + INFO_H)
    columns = 1 if len(snapshot.seats) <= 4 else 2
    panel_w = (WIDTH - 2 * MARGIN - (columns - 1) * SEAT_GAP) // columns
    y = INFO_TOP + INFO_H + 14
    seats: list[SeatLayout] = []
    for row_start in range(0, len(snapshot.seats), columns):
        row = snapshot.seats[row_start : row_start + columns]
        laid = [_layout_seat(seat, MARGIN + c * (panel_w + SEAT_GAP), y, panel_w) for c, seat in enumerate(row)]
        row_h = max(h for _, h in laid)
        seats.extend(_with_panel_height(s, row_h) for s, _ in laid)
        y += row_h + SEAT_GAP
    return TableLayout(
        width=WIDTH,
        height=y - SEAT_GAP + MARGIN,
        header=header,
        top_card_box=top_card_box,
        stock_box=stock_box,
        tops_box=tops_box,
        notes_box=notes_box,
        columns=columns,
        seats=tuple(seats),
    )


def _header_text(snapshot: TableSnapshot) -> tuple[str, str]:
    left = f"{snapshot.title} · hand {snapshot.hand_no}"
    if snapshot.to_act is None:
        return left, ""
    return left, f"{snapshot.seats[snapshot.to_act].name} to play"


def _draw_header(im: Image.Image, draw: ImageDraw.ImageDraw, snapshot: TableSnapshot, lay: TableLayout) -> None:
    draw.rectangle(lay.header, fill=assets.FELT_DARK)
    left, right = _header_text(snapshot)
    x_right = WIDTH - MARGIN
    if snapshot.clock_seconds is not None:
        urgent = snapshot.clock_seconds <= 10
        fill = assets.CLOCK_URGENT if urgent else assets.GOLD
        ink = assets.WHITE if urgent else assets.GOLD_DARK
        clock = assets.pill(clock_text(snapshot.clock_seconds), fill, ink, 20)
        x_right -= clock.width
        assets.paste_rgba(im, clock, (x_right, (HEADER_H - clock.height) // 2))
        x_right -= 10
    right_w = 0
    if right:
        right = assets.fit_text(right, "cond", 22, 360)
        right_w = assets.text_width(right, "cond", 22)
        assets.paste_text(im, (x_right - right_w, 13), right, "cond", 22, assets.GOLD)
    title = assets.fit_text(left, "bold", 22, x_right - right_w - 24 - MARGIN)
    assets.paste_text(im, (MARGIN, 13), title, "bold", 22, assets.INK_LIGHT)


def _draw_centre(im: Image.Image, draw: ImageDraw.ImageDraw, snapshot: TableSnapshot, lay: TableLayout) -> None:
    cap_y = INFO_TOP
    is_option = snapshot.top_is_option and snapshot.top_card is not None
    caption = "OPTION" if is_option else "DISCARD"
    assets.paste_text(im, (lay.top_card_box[0], cap_y), caption, "bold", CAPTION_SIZE,
                      assets.GOLD if is_option else assets.INK_MUTED)  # fmt: skip
    if snapshot.top_card is not None:
        face = assets.card_sprite(snapshot.top_card, TOP_CARD, snapshot.four_color, snapshot.top_is_option)
        face.paste(im, lay.top_card_box[:2])
    else:
        draw.rounded_rectangle(lay.top_card_box, radius=8, outline=assets.INK_MUTED, width=2)
        assets.paste_text(im, (lay.top_card_box[0] + 14, lay.top_card_box[1] + 48), "none", "bold", 18,
                          assets.INK_MUTED)  # fmt: skip
    assets.paste_text(im, (lay.stock_box[0], cap_y), "STOCK", "bold", CAPTION_SIZE, assets.INK_MUTED)
    assets.back_sprite(TOP_CARD).paste(im, lay.stock_box[:2])
    count = assets.pill(str(snapshot.stock_count), assets.CARD_WHITE, assets.STOCK_INK, 22)
    sb = lay.stock_box
    assets.paste_rgba(im, count, ((sb[0] + sb[2] - count.width) // 2, (sb[1] + sb[3] - count.height) // 2))
    tb = lay.tops_box
    for i, (label, value) in enumerate(
        (("SINGLES TOPS", snapshot.singles_tops), ("DOUBLES TOPS", snapshot.doubles_tops))
    ):
        y = tb[1] + i * 68
        assets.paste_text(im, (tb[0], y), label, "bold", CAPTION_SIZE, assets.INK_MUTED)
        draw.ellipse((tb[0], y + 26, tb[0] + 26, y + 52), fill=assets.GOLD, outline=assets.GOLD_DARK, width=2)
        assets.paste_text(im, (tb[0] + 34, y + 20), str(value), "bold", 30, assets.INK_LIGHT)
    nb = lay.notes_box
    notes = snapshot.notes[-MAX_NOTES:]
    if notes:
        assets.paste_text(im, (nb[0], cap_y), "LATEST", "bold", CAPTION_SIZE, assets.INK_MUTED)
    for i, note in enumerate(notes):
        shown = assets.fit_text(note, "regular", 17, nb[2] - nb[0])
        assets.paste_text(im, (nb[0], cap_y + 26 + i * 30), shown, "regular", 17, assets.INK_LIGHT, cache=False)


def _draw_panel(
    im: Image.Image, draw: ImageDraw.ImageDraw, box: Box, fill: assets.RGB, outline: assets.RGB | None, line: int
) -> None:
    """``draw.rounded_rectangle(box, radius=10, ...)`` on the felt: a copy of a cached panel when it is
    at most `PANEL_CACHE_PX` pixels (every usual seat panel), else drawn (bounds the cache's memory)."""
    size = (box[2] - box[0] + 1, box[3] - box[1] + 1)  # Pillow's box includes its right and bottom edges
    if size[0] * size[1] <= PANEL_CACHE_PX:
        assets.paste_rgba(im, assets.rounded_box(size, 10, fill, assets.FELT, outline, line), box[:2])
    else:
        draw.rounded_rectangle(box, radius=10, fill=fill, outline=outline, width=line)


def _draw_seat(im: Image.Image, draw: ImageDraw.ImageDraw, seat: SeatSnapshot, lay: SeatLayout, four: bool) -> None:
    if seat.is_turn:
        fill = assets.PANEL_TURN
        _draw_panel(im, draw, lay.panel, fill, assets.GOLD, 3)
        nb = lay.name_box
        mid = (nb[1] + nb[3]) // 2
        draw.polygon([(nb[0] - 14, mid - 8), (nb[0] - 14, mid + 8), (nb[0] - 3, mid)], fill=assets.GOLD)
    else:
        fill = assets.PANEL if seat.status in _ACTIVE else assets.FELT_DARK
        _draw_panel(im, draw, lay.panel, fill, None, 1)
    name_ink = assets.INK_LIGHT if seat.status in _ACTIVE else assets.INK_MUTED
    assets.paste_text(im, (lay.name_box[0], lay.name_box[1] + 1), lay.name_text, "cond", NAME_SIZE, name_ink)
    status = _status_pill(seat.status)
    assets.paste_rgba(im, status, lay.status_box[:2])
    if lay.doubles_box is not None:
        dbl = _doubles_pill()
        assets.paste_rgba(im, dbl, lay.doubles_box[:2])
    cb = lay.count_box
    icon = assets.rounded_box((14, cb[3] - cb[1] - 3), 3, assets.HAND_ICON, fill, assets.CARD_WHITE)
    assets.paste_rgba(im, icon, (cb[0], cb[1] + 2))  # was draw.rounded_rectangle((x, y + 2, x + 13, y + h - 2))
    assets.paste_text(im, (cb[0] + 17, cb[1]), _count_text(seat), "bold", COUNT_SIZE, assets.INK_LIGHT)
    hb = lay.chips_box
    draw.ellipse((hb[0], hb[1] + 4, hb[0] + 16, hb[1] + 20), fill=assets.GOLD, outline=assets.GOLD_DARK)
    assets.paste_text(im, (hb[0] + 22, hb[1]), chips_text(seat.chips), "bold", NAME_SIZE, assets.INK_LIGHT)
    for meld, ml in zip(seat.melds, lay.melds, strict=True):
        for card, box in zip(meld.cards, ml.card_boxes, strict=True):
            assets.card_sprite(card, MINI, four).paste(im, box[:2])
        tag = _tag(meld)
        if tag is not None and ml.tag_box is not None:
            assets.paste_rgba(im, tag, ml.tag_box[:2])


def render_table(snapshot: TableSnapshot) -> Image.Image:
    """The table as an RGB image (see `render_table_png`)."""
    lay = layout_table(snapshot)
    im = Image.new("RGB", (lay.width, lay.height), assets.FELT)
    draw = ImageDraw.Draw(im)
    _draw_header(im, draw, snapshot, lay)
    _draw_centre(im, draw, snapshot, lay)
    for seat, seat_lay in zip(snapshot.seats, lay.seats, strict=True):
        _draw_seat(im, draw, seat, seat_lay, snapshot.four_color)
    return im


def render_table_png(snapshot: TableSnapshot) -> bytes:
    """PNG bytes of the public table image."""
    return assets.to_png(render_table(snapshot))


def _seat_line(number: int, seat: SeatSnapshot) -> str:
    parts = [f"Seat {number}: {seat.name}", f"{chips_text(seat.chips)} chips", seat.status.value]
    if seat.doubles:
        parts.append("doubles")
    parts.append(f"{seat.hand_count} card{'s' if seat.hand_count != 1 else ''} in hand")
    if seat.is_turn:
        parts.append("to play")
    line = ", ".join(parts) + "."
    if seat.melds:
        melds = []
        for meld in seat.melds:
            cards = " ".join(str(c) for c in meld.cards)
            melds.append(f"{cards} ({meld.shown_label})" if meld.shown_label else cards)
        line += " Melds: " + "; ".join(melds) + "."
    return line


def table_text(snapshot: TableSnapshot) -> str:
    """The table image as plain text, one line per fact group and one line per seat."""
    lines = [f"{snapshot.title}, hand {snapshot.hand_no}."]
    if snapshot.to_act is not None:
        turn = f"{snapshot.seats[snapshot.to_act].name} to play"
        if snapshot.clock_seconds is not None:
            turn += f", {clock_text(snapshot.clock_seconds)} left"
        lines.append(turn + ".")
    kind = "Option card" if snapshot.top_is_option else "Top discard"
    if snapshot.top_card is None:
        kind = "Top discard"
    lines.append(f"{kind}: {snapshot.top_card if snapshot.top_card is not None else 'none'}.")
    lines.append(f"Stock: {snapshot.stock_count} cards.")
    lines.append(f"Tops: singles {snapshot.singles_tops}, doubles {snapshot.doubles_tops}.")
    lines.extend(_seat_line(i + 1, seat) for i, seat in enumerate(snapshot.seats))
    notes = snapshot.notes[-MAX_NOTES:]
    if notes:
        lines.append("Latest: " + " ".join(n if n.endswith(".") else n + "." for n in notes))
    return "\n".join(lines)
