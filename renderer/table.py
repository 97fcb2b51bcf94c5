"""The public table image: header (title, hand, whose turn, clock), centre (stock, discard pile, the card
in play and who holds it, tops), the latest notes, and one panel per seat (name, chips, status, cards held,
numbered melds with values).

Landscape (800 px, the default): up to 4 seats use one column of wide panels; more use two columns. Portrait
(`TableSnapshot.layout`, 480 px, for phones): the header on two rows, the card in play's holder and the tops under
the piles, one column of seats; the same card and text sizes on a narrower image, so a phone showing it ~360 px
wide shows them 1.67x as large (docs/rendering.md, "The phone layout"). Meld cards are index-only mini cards
overlapped like a hand, each meld led by its number (what /add and /borrow take) and, when it pays, carrying a gold
value tag (``+4``). No text is smaller than those cards' index (`TEXT_SIZE`); every user-chosen string goes through
`renderer.text.image_text`, every word of the image's own comes from `renderer.labels`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

from PIL import Image

from pancog.game.cards import Card
from pancog.game.i18n import N_, speaking, tr
from pancog.game.i18n import counted as plural

from . import assets, labels
from .canvas import Canvas, IndexCanvas, Overlap, Pill, RGBCanvas
from .layout import Box
from .snapshot import MeldSnapshot, SeatSnapshot, SeatStatus, TableSnapshot
from .text import clean_text, image_text

WIDTH = 800
PORTRAIT_WIDTH = 480  # a phone shows an image ~360 px wide: everything drawn at 480 shows at 3/4 of its size
MARGIN = 14
TEXT_SIZE = assets.MINI_INDEX_SIZE  # every text on the board: no smaller than a card's index
HEADER_H = 50
PILE = assets.MEDIUM
MINI = assets.SMALL
CAPTION_H = 32
CENTRE_TOP = HEADER_H + 8
PILE_GAP = 20
DISCARD_SLOT_W = 130  # the discard pile's card and its caption ("Discards" is wider than a card), at least
CAPTION_GAP = 12  # between a pile's caption and the next one's
TOPS_W = 190
NOTE_H = 34
SEAT_GAP = 10
PANEL_PAD = 8
SEAT_HEAD_H = 42
BADGE_ROW_H = 40
MIN_NAME_W = 140
ROBOT = 26  # the computer player's mark before a name
MELD_GAP = 10
MELD_ROW_GAP = 6
NUMBER_GAP = 3  # between a meld's number and its cards
TAG_OVERLAP = 20  # a value tag sits over the lower right of the meld's last card (its index stays clear)
MAX_NOTES = 2  # drawn; the text twin gives `TWIN_NOTES`
TWIN_NOTES = 3
PANEL_CACHE_PX = 150_000  # seat panels up to this many pixels are cached (`assets.rounded_box`, 32 kept)

_ACTIVE = {SeatStatus.IN, SeatStatus.FOULED}


@dataclass(frozen=True, slots=True, kw_only=True)
class MeldLayout:
    box: Box  # the number, the cards and the tag together
    number_box: Box
    card_boxes: tuple[Box, ...]
    step: int
    tag_box: Box | None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatLayout:
    panel: Box
    name_box: Box  # the robot mark (computer players) and the name
    name_text: str  # the name as drawn (`image_text`: cleaned, cut with "…" if too long)
    status_box: Box | None  # no pill for a seat simply in the hand
    doubles_box: Box | None
    count_box: Box | None  # cards held (only while a hand is on)
    chips_box: Box
    melds: tuple[MeldLayout, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableLayout:
    width: int
    height: int
    header: Box
    portrait: bool  # the phone layout: two header rows, the holder and the tops on rows under the piles
    tops_in_row: bool  # the tops on one row (between hands, and always in portrait) rather than a column
    tops_inline: bool  # ... with their caption on the same row (else the caption is above the row)
    stock_box: Box | None  # None between hands (nor discards, nor card in play)
    discard_box: Box | None
    in_play_box: Box | None  # the card in play
    in_play_text_box: Box | None  # "plucked by" and the name
    in_play_name: str
    tops_box: Box
    notes_box: Box | None
    columns: int
    seats: tuple[SeatLayout, ...]


def _hand_part(snapshot: TableSnapshot, separator: str) -> str:
    """The hand number after the title: the hand on (or the last one played); nothing before the first deal (a new
    table is no "hand 0")."""
    return separator + tr("hand {n}", n=snapshot.hand_no) if snapshot.hand_no else ""


def chips_text(chips: int) -> str:
    return f"{chips:,}"


def clock_text(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def _meld_width(meld: MeldSnapshot, step: int) -> int:
    return (len(meld.cards) - 1) * step + MINI.width if meld.cards else MINI.width


def _tag(meld: MeldSnapshot) -> Pill | None:
    label = meld.shown_label
    return Pill(label, assets.GOLD, assets.GOLD_DARK, TEXT_SIZE, tight=True) if label else None


def _status_pill(status: SeatStatus) -> Pill | None:
    if status is SeatStatus.IN:
        return None
    fill, ink = assets.STATUS_COLOURS[status.value]
    return Pill(status.value, fill, ink, TEXT_SIZE)


def _doubles_pill() -> Pill:
    return Pill("x2", assets.GOLD, assets.GOLD_DARK, TEXT_SIZE)


def _number_text(meld: MeldSnapshot) -> str:
    return str(meld.index)


def _layout_melds(melds: tuple[MeldSnapshot, ...], left: int, top: int, inner_w: int) -> tuple[list[MeldLayout], int]:
    """Flow melds left to right, wrapping; returns the layouts and the bottom edge used."""
    out: list[MeldLayout] = []
    x, y = left, top
    row_h = MINI.height
    for meld in melds:
        tag = _tag(meld)
        tag_w = tag.width - TAG_OVERLAP if tag else 0
        num_w = assets.text_width(_number_text(meld), "cond", TEXT_SIZE) + NUMBER_GAP
        step = MINI.step
        width = num_w + _meld_width(meld, step) + tag_w
        if width > inner_w and len(meld.cards) > 1:  # squeeze a very long meld into the row
            step = max(8, (inner_w - num_w - tag_w - MINI.width) // (len(meld.cards) - 1))
            width = num_w + _meld_width(meld, step) + tag_w
        if x > left and x + width > left + inner_w:
            x, y = left, y + row_h + MELD_ROW_GAP
        number_box = (x, y, x + num_w - NUMBER_GAP, y + row_h)
        cx = x + num_w
        cards = tuple((cx + i * step, y, cx + i * step + MINI.width, y + MINI.height) for i in range(len(meld.cards)))
        cards_right = cx + _meld_width(meld, step)
        tag_box = None
        if tag is not None:
            ty = y + MINI.height - tag.height
            tag_box = (cards_right - TAG_OVERLAP, ty, cards_right - TAG_OVERLAP + tag.width, ty + tag.height)
        out.append(
            MeldLayout(
                box=(x, y, x + width, y + MINI.height), number_box=number_box, card_boxes=cards, step=step,
                tag_box=tag_box,
            )
        )  # fmt: skip
        x += width + MELD_GAP
    bottom = y + row_h if melds else top - PANEL_PAD + 2
    return out, bottom


def _pill_box(pill: Pill, right: int, mid: int) -> Box:
    return (right - pill.width, mid - pill.height // 2, right, mid - pill.height // 2 + pill.height)


def _count_w(seat: SeatSnapshot) -> int:
    return assets.text_width(str(seat.hand_count), "bold", TEXT_SIZE) + 24


def _layout_badges(seat: SeatSnapshot, right: int, mid: int, in_hand: bool) -> tuple[Box | None, ...]:
    """Cards-held, status and doubles badges laid right to left from ``right``; the last is their left edge."""
    count_box = (right - _count_w(seat), mid - 18, right, mid + 18) if in_hand else None
    x = count_box[0] - 10 if count_box else right
    pill = _status_pill(seat.status)
    status_box = _pill_box(pill, x, mid) if pill is not None else None
    x = status_box[0] - 8 if status_box else x
    doubles_box = _pill_box(_doubles_pill(), x, mid) if seat.doubles else None
    x = doubles_box[0] if doubles_box else x
    return count_box, status_box, doubles_box, (x, 0, x, 0)


def _layout_seat(seat: SeatSnapshot, left: int, top: int, width: int, in_hand: bool) -> tuple[SeatLayout, int]:
    """Lay one seat panel at (left, top); returns it and its natural height.

    The header is one row (name, badges, chips) when the whole name fits or keeps at least `MIN_NAME_W`
    pixels, otherwise the badges move to a second row under the name.
    """
    right = left + width
    mid = top + SEAT_HEAD_H // 2 + 2
    chips_w = assets.text_width(chips_text(seat.chips), "bold", TEXT_SIZE) + 26  # + the chip dot
    chips_box = (right - PANEL_PAD - chips_w, mid - 18, right - PANEL_PAD, mid + 18)
    name_left = left + PANEL_PAD + (18 if seat.is_turn else 0)
    text_left = name_left + (ROBOT + 8 if seat.computer else 0)
    count_box, status_box, doubles_box, edge = _layout_badges(seat, chips_box[0] - 12, mid, in_hand)
    head_h = SEAT_HEAD_H
    name_right = (edge[0] if edge else 0) - 10
    full_w = assets.text_width(clean_text(seat.name, "cond"), "cond", TEXT_SIZE)
    if name_right - text_left < min(MIN_NAME_W, full_w) and name_right < chips_box[0] - 22:
        name_right = chips_box[0] - 12
        head_h = SEAT_HEAD_H + BADGE_ROW_H
        count_box, status_box, doubles_box, _ = _layout_badges(seat, right - PANEL_PAD, mid + BADGE_ROW_H, in_hand)
    name_text = image_text(seat.name, "cond", TEXT_SIZE, max(0, name_right - text_left))
    name_w = assets.text_width(name_text, "cond", TEXT_SIZE)
    name_box = (name_left, mid - 18, text_left + name_w, mid + 18)
    melds, bottom = _layout_melds(seat.melds, left + PANEL_PAD, top + head_h + 4, width - 2 * PANEL_PAD)
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
    return replace(seat, panel=(p[0], p[1], p[2], p[1] + height))


def layout_table(snapshot: TableSnapshot) -> TableLayout:
    """Boxes for the header, centre (stock, discards, card in play, tops, notes) and every seat panel."""
    if snapshot.layout == "portrait":
        return _layout_portrait(snapshot)
    header = (0, 0, WIDTH, HEADER_H)
    card_top = CENTRE_TOP + CAPTION_H
    if snapshot.in_hand:  # a column at the right of the piles
        tops_box = (WIDTH - MARGIN - TOPS_W, CENTRE_TOP, WIDTH - MARGIN, CENTRE_TOP + CAPTION_H + 2 * 40)
    else:  # one row: nothing else is in the centre
        tops_box = (MARGIN, CENTRE_TOP, WIDTH - MARGIN, CENTRE_TOP + CAPTION_H)
    stock_box = discard_box = in_play_box = in_play_text_box = None
    in_play_name = ""
    centre_bottom = tops_box[3]
    if snapshot.in_hand:
        stock_box, discard_box, in_play_box = _piles(snapshot, card_top)
        if in_play_box is not None:
            tx = in_play_box[2] + 12
            in_play_text_box = (tx, card_top, tops_box[0] - 12, card_top + 2 * NOTE_H)
            in_play_name = image_text(snapshot.in_play_by, "cond", TEXT_SIZE, in_play_text_box[2] - tx)
        centre_bottom = max(centre_bottom, card_top + PILE.height)
    notes_box, y = _notes_box(snapshot, centre_bottom + 8, WIDTH)
    columns = 1 if len(snapshot.seats) <= 4 else 2
    seats, y = _layout_seats(snapshot, y, WIDTH, columns)
    return TableLayout(
        width=WIDTH,
        height=y - SEAT_GAP + MARGIN,
        header=header,
        portrait=False,
        tops_in_row=not snapshot.in_hand,
        tops_inline=not snapshot.in_hand,
        stock_box=stock_box,
        discard_box=discard_box,
        in_play_box=in_play_box,
        in_play_text_box=in_play_text_box,
        in_play_name=in_play_name,
        tops_box=tops_box,
        notes_box=notes_box,
        columns=columns,
        seats=seats,
    )


def _piles(snapshot: TableSnapshot, card_top: int) -> tuple[Box, Box, Box | None]:
    """The stock, the discard pile and (if any) the card in play, left to right under their captions. A slot is
    wide enough for its caption and `CAPTION_GAP` (Spanish "Descartes" and Tagalog "Bunutan" are wider than the
    English slots: their captions ran into the next one's)."""
    stock_w = max(PILE.width + PILE_GAP, assets.text_width(labels.stock(), "cond", TEXT_SIZE) + CAPTION_GAP)
    captions = max(assets.text_width(labels.discards(), "cond", TEXT_SIZE),
                   assets.text_width(labels.option(), "cond", TEXT_SIZE))  # fmt: skip
    discard_w = max(DISCARD_SLOT_W, captions + CAPTION_GAP)
    stock_box = (MARGIN, card_top, MARGIN + PILE.width, card_top + PILE.height)
    dx = MARGIN + stock_w
    discard_box = (dx, card_top, dx + PILE.width, card_top + PILE.height)
    in_play_box = None
    if snapshot.in_play is not None:
        px = dx + discard_w
        in_play_box = (px, card_top, px + PILE.width, card_top + PILE.height)
    return stock_box, discard_box, in_play_box


def _notes_box(snapshot: TableSnapshot, top: int, width: int) -> tuple[Box | None, int]:
    """The latest notes' box (None without notes) and where the seats start."""
    notes = snapshot.notes[-MAX_NOTES:]
    if not notes:
        return None, top
    box = (MARGIN, top, width - MARGIN, top + NOTE_H * len(notes))
    return box, box[3] + 4


def _layout_seats(snapshot: TableSnapshot, top: int, width: int, columns: int) -> tuple[tuple[SeatLayout, ...], int]:
    """Seat panels in rows of ``columns`` from ``top``; returns them and the y after the last row's gap."""
    panel_w = (width - 2 * MARGIN - (columns - 1) * SEAT_GAP) // columns
    seats: list[SeatLayout] = []
    y = top
    for row_start in range(0, len(snapshot.seats), columns):
        row = snapshot.seats[row_start : row_start + columns]
        laid = [
            _layout_seat(seat, MARGIN + c * (panel_w + SEAT_GAP), y, panel_w, snapshot.in_hand)
            for c, seat in enumerate(row)
        ]
        row_h = max(h for _, h in laid)
        seats.extend(_with_panel_height(s, row_h) for s, _ in laid)
        y += row_h + SEAT_GAP
    return tuple(seats), y


def _tops_texts(snapshot: TableSnapshot) -> tuple[str, str]:
    return labels.singles(chips=str(snapshot.singles_tops)), labels.doubles(chips=str(snapshot.doubles_tops))


def _tops_gap(portrait: bool) -> int:
    """Pixels between the tops' entries on one row (closer in portrait)."""
    return 16 if portrait else 28


def _tops_row_width(snapshot: TableSnapshot) -> int:
    """Pixels the portrait tops take on one row (as `_draw_centre` lays them): the caption, then a chip and its
    text each."""
    gap = _tops_gap(True)
    width = assets.text_width(labels.tops(), "cond", TEXT_SIZE) + gap
    return width + sum(32 + assets.text_width(t, "bold", TEXT_SIZE) + gap for t in _tops_texts(snapshot)) - gap


def _layout_portrait(snapshot: TableSnapshot) -> TableLayout:
    """The phone layout: 480 px, the header on two rows when someone is to play (title and hand; whose turn and
    the clock), the piles on one row with the holder of the card in play on a line under them, the tops on one
    row, the notes, then one column of seats."""
    width = PORTRAIT_WIDTH
    two_rows = snapshot.to_act is not None or snapshot.clock_seconds is not None
    header = (0, 0, width, 2 * HEADER_H if two_rows else HEADER_H)
    centre_top = header[3] + 8
    stock_box = discard_box = in_play_box = in_play_text_box = None
    in_play_name = ""
    y = centre_top
    if snapshot.in_hand:
        stock_box, discard_box, in_play_box = _piles(snapshot, centre_top + CAPTION_H)
        y = stock_box[3] + 6
        if in_play_box is not None:
            in_play_text_box = (MARGIN, y, width - MARGIN, y + NOTE_H)
            lead = assets.text_width(labels.in_play_by(how=snapshot.in_play_how) + " ", "cond", TEXT_SIZE)
            in_play_name = image_text(snapshot.in_play_by, "cond", TEXT_SIZE, max(0, width - 2 * MARGIN - lead))
            y = in_play_text_box[3] + 4
    inline = _tops_row_width(snapshot) <= width - 2 * MARGIN  # else the caption above the row
    tops_box = (MARGIN, y, width - MARGIN, y + CAPTION_H + (0 if inline else 40))
    notes_box, y = _notes_box(snapshot, tops_box[3] + 8, width)
    seats, y = _layout_seats(snapshot, y, width, 1)
    return TableLayout(
        width=width,
        height=y - SEAT_GAP + MARGIN,
        header=header,
        portrait=True,
        tops_in_row=True,
        tops_inline=inline,
        stock_box=stock_box,
        discard_box=discard_box,
        in_play_box=in_play_box,
        in_play_text_box=in_play_text_box,
        in_play_name=in_play_name,
        tops_box=tops_box,
        notes_box=notes_box,
        columns=1,
        seats=seats,
    )


def _clock_pill(seconds: int) -> Pill:
    urgent = seconds <= 10
    fill = assets.CLOCK_URGENT if urgent else assets.GOLD
    ink = assets.WHITE if urgent else assets.GOLD_DARK
    return Pill(clock_text(seconds), fill, ink, TEXT_SIZE)


def _turn_text(snapshot: TableSnapshot, room: int) -> str:
    """``<name> to play``, the name cut so the whole fits ``room`` pixels ('' when nobody is to play)."""
    if snapshot.to_act is None:
        return ""
    frame_w = assets.text_width(labels.to_play(name=""), "cond", TEXT_SIZE)
    name = image_text(snapshot.seats[snapshot.to_act].name, "cond", TEXT_SIZE, max(0, room - frame_w))
    return labels.to_play(name=name)


def _title_text(snapshot: TableSnapshot, room: int) -> str:
    """The table's title (cut to fit ``room`` pixels with the hand number) and the hand number."""
    hand = labels.hand_number(hand_no=snapshot.hand_no)
    title_room = room - assets.text_width(hand, "cond", TEXT_SIZE)
    return image_text(snapshot.title, "cond", TEXT_SIZE, max(0, title_room)) + hand


def _draw_header(c: Canvas, snapshot: TableSnapshot, lay: TableLayout) -> None:
    c.rectangle(lay.header, fill=assets.FELT_DARK)
    if lay.portrait:
        _draw_header_portrait(c, snapshot, lay)
        return
    ground = assets.FELT_DARK
    x_right = lay.width - MARGIN
    pen_y = (HEADER_H - TEXT_SIZE) // 2 - 3
    if snapshot.clock_seconds is not None:
        clock = _clock_pill(snapshot.clock_seconds)
        width, height = clock.size
        x_right -= width
        c.pill((x_right, (HEADER_H - height) // 2), clock, ground)
        x_right -= 10
    right_w = 0
    right = _turn_text(snapshot, 380)
    if right:
        right_w = assets.text_width(right, "cond", TEXT_SIZE)
        c.text((x_right - right_w, pen_y), right, "cond", TEXT_SIZE, assets.GOLD, ground)
    left = _title_text(snapshot, x_right - right_w - 20 - MARGIN)
    c.text((MARGIN, pen_y), left, "cond", TEXT_SIZE, assets.INK_LIGHT, ground)


def _draw_header_portrait(c: Canvas, snapshot: TableSnapshot, lay: TableLayout) -> None:
    """Title and hand on the first row; whose turn (left) and the clock (right) on the second."""
    ground = assets.FELT_DARK
    pen_y = (HEADER_H - TEXT_SIZE) // 2 - 3
    left = _title_text(snapshot, lay.width - 2 * MARGIN)
    c.text((MARGIN, pen_y), left, "cond", TEXT_SIZE, assets.INK_LIGHT, ground)
    if lay.header[3] <= HEADER_H:
        return
    x_right = lay.width - MARGIN
    if snapshot.clock_seconds is not None:
        clock = _clock_pill(snapshot.clock_seconds)
        width, height = clock.size
        x_right -= width
        c.pill((x_right, HEADER_H + (HEADER_H - height) // 2), clock, ground)
        x_right -= 12
    turn = _turn_text(snapshot, x_right - MARGIN)
    if turn:
        c.text((MARGIN, HEADER_H + pen_y), turn, "cond", TEXT_SIZE, assets.GOLD, ground)


def _caption(c: Canvas, x: int, y: int, text: str, colour: assets.RGB) -> None:
    c.text((x, y), text, "cond", TEXT_SIZE, colour, assets.FELT)


def _draw_stock(c: RGBCanvas, sb: Box, count: Pill, count_xy: tuple[int, int]) -> None:
    """The stock's back and its count (overlapping: one group)."""
    c.back(sb[:2], PILE, assets.FELT)
    c.pill(count_xy, count, assets.FELT)


def _union(*boxes: Box) -> Box:
    """The smallest box holding every one of ``boxes`` (right and bottom exclusive)."""
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _discard_under(db: Box) -> Box:
    return (db[0] + 6, db[1] - 5, db[2] + 6, db[3] - 5)


def _draw_discards(c: RGBCanvas, discard: Card, four: bool, db: Box, option: bool) -> None:
    """The pile under the top card and the top card (overlapping: one group)."""
    c.rounded_rectangle(_discard_under(db), 8, assets.CARD_WHITE, assets.CARD_EDGE, 1)
    c.card(db[:2], discard, PILE, four, option, assets.FELT)


def _draw_piles(c: Canvas, snapshot: TableSnapshot, lay: TableLayout) -> None:
    """Stock, discard pile and the card in play (only while a hand is on)."""
    if lay.stock_box is None or lay.discard_box is None:
        return
    sb = lay.stock_box
    caption_y = sb[1] - CAPTION_H
    _caption(c, sb[0], caption_y, labels.stock(), assets.INK_MUTED)
    count = Pill(str(snapshot.stock_count), assets.CARD_WHITE, assets.STOCK_INK, TEXT_SIZE)
    count_w, count_h = count.size
    count_xy = ((sb[0] + sb[2] - count_w) // 2, (sb[1] + sb[3] - count_h) // 2)
    box = _union(
        (sb[0], sb[1], sb[0] + PILE.width, sb[1] + PILE.height),
        (*count_xy, count_xy[0] + count_w, count_xy[1] + count_h),
    )
    stock_key = ("stock", snapshot.stock_count, sb[0] - box[0], sb[1] - box[1], sb[2] - sb[0], sb[3] - sb[1])
    c.group(box, assets.FELT, stock_key, partial(_draw_stock, sb=sb, count=count, count_xy=count_xy))
    db = lay.discard_box
    option = snapshot.discard_is_option and snapshot.discard is not None
    caption, colour = (labels.option(), assets.GOLD) if option else (labels.discards(), assets.INK_MUTED)
    _caption(c, db[0], caption_y, caption, colour)
    if snapshot.discard is None:
        c.rounded_rectangle(db, 8, None, assets.INK_MUTED, 2)
    elif snapshot.discard_count > 1:  # the pile under the top card
        discard, under = snapshot.discard, _discard_under(db)
        box = _union((db[0], db[1], db[0] + PILE.width, db[1] + PILE.height), (*under[:2], under[2] + 1, under[3] + 1))
        key = ("discards", snapshot.discard, snapshot.four_color, option, db[0] - box[0], db[1] - box[1],
               db[2] - db[0], db[3] - db[1])  # fmt: skip
        draw = partial(_draw_discards, discard=discard, four=snapshot.four_color, db=db, option=option)
        c.group(box, assets.FELT, key, draw, over=True)  # the pile's edge may cover its caption's lowest pixels
    else:
        c.card(db[:2], snapshot.discard, PILE, snapshot.four_color, option, assets.FELT)
    if lay.in_play_box is not None and lay.in_play_text_box is not None and snapshot.in_play is not None:
        ib, tb = lay.in_play_box, lay.in_play_text_box
        _caption(c, ib[0], caption_y, labels.in_play(), assets.GOLD)
        c.card(ib[:2], snapshot.in_play, PILE, snapshot.four_color, True, assets.FELT)
        how = labels.in_play_by(how=snapshot.in_play_how)
        c.text((tb[0], tb[1]), how, "cond", TEXT_SIZE, assets.INK_MUTED, assets.FELT)
        if lay.portrait:  # one line under the piles: "plucked by <name>"
            name_x = tb[0] + assets.text_width(how + " ", "cond", TEXT_SIZE)
            c.text((name_x, tb[1]), lay.in_play_name, "cond", TEXT_SIZE, assets.INK_LIGHT, assets.FELT)
        else:
            c.text((tb[0], tb[1] + NOTE_H), lay.in_play_name, "cond", TEXT_SIZE, assets.INK_LIGHT, assets.FELT)


def _draw_centre(c: Canvas, snapshot: TableSnapshot, lay: TableLayout) -> None:
    _draw_piles(c, snapshot, lay)
    tb = lay.tops_box
    _caption(c, tb[0], tb[1], labels.tops(), assets.INK_MUTED)
    x, y = tb[0], tb[1] + CAPTION_H
    gap = _tops_gap(lay.portrait)
    if lay.tops_inline:
        x, y = tb[0] + assets.text_width(labels.tops(), "cond", TEXT_SIZE) + (gap if lay.portrait else 20), tb[1]
    for text in _tops_texts(snapshot):
        c.ellipse((x, y + 6, x + 24, y + 30), fill=assets.GOLD, outline=assets.GOLD_DARK, width=2)
        c.text((x + 32, y), text, "bold", TEXT_SIZE, assets.INK_LIGHT, assets.FELT)
        if lay.tops_in_row:
            x += 32 + assets.text_width(text, "bold", TEXT_SIZE) + gap
        else:
            y += 40
    nb = lay.notes_box
    if nb is None:
        return
    for i, note in enumerate(snapshot.notes[-MAX_NOTES:]):
        shown = image_text(note, "regular", TEXT_SIZE, nb[2] - nb[0])
        c.line((nb[0], nb[1] + i * NOTE_H), shown, "regular", TEXT_SIZE, assets.INK_LIGHT, assets.FELT)


def _draw_panel(c: Canvas, box: Box, fill: assets.RGB, outline: assets.RGB | None, line: int) -> None:
    """``rounded_rectangle(box, radius=10, ...)`` on the felt: a copy of a cached panel when it is at most
    `PANEL_CACHE_PX` pixels (every usual seat panel), else drawn (bounds the cache's memory)."""
    size = (box[2] - box[0] + 1, box[3] - box[1] + 1)  # Pillow's box includes its right and bottom edges
    if size[0] * size[1] <= PANEL_CACHE_PX:
        c.box(box[:2], size, 10, fill, assets.FELT, outline, line)
    else:
        c.rounded_rectangle(box, 10, fill, outline, line)


def _draw_meld(c: RGBCanvas, meld: MeldSnapshot, ml: MeldLayout, four: bool, fill: assets.RGB) -> None:
    """A meld's cards and its value tag (overlapping: one group)."""
    for card, box in zip(meld.cards, ml.card_boxes, strict=True):
        c.card(box[:2], card, MINI, four, False, fill)
    tag = _tag(meld)
    if tag is not None and ml.tag_box is not None:
        c.pill(ml.tag_box[:2], tag, fill)


def _meld_group(meld: MeldSnapshot, ml: MeldLayout) -> tuple[Box, tuple[object, ...]]:
    """The box a meld's cards and tag cover and what they show there (the group's key)."""
    boxes = [(b[0], b[1], b[0] + MINI.width, b[1] + MINI.height) for b in ml.card_boxes]
    tag = _tag(meld)
    if tag is not None and ml.tag_box is not None:
        width, height = tag.size
        boxes.append((ml.tag_box[0], ml.tag_box[1], ml.tag_box[0] + width, ml.tag_box[1] + height))
    box = _union(*boxes)
    where = tuple((b[0] - box[0], b[1] - box[1]) for b in boxes)
    return box, ("meld", meld.cards, None if tag is None else tag.key, where)


def _draw_seat(c: Canvas, seat: SeatSnapshot, lay: SeatLayout, four: bool) -> None:
    nb = lay.name_box
    mid = (nb[1] + nb[3]) // 2
    if seat.is_turn:
        fill = assets.PANEL_TURN
        _draw_panel(c, lay.panel, fill, assets.GOLD, 3)
        c.polygon([(nb[0] - 16, mid - 10), (nb[0] - 16, mid + 10), (nb[0] - 3, mid)], fill=assets.GOLD)
    else:
        fill = assets.PANEL if seat.status in _ACTIVE else assets.FELT_DARK
        _draw_panel(c, lay.panel, fill, None, 1)
    name_ink = assets.INK_LIGHT if seat.status in _ACTIVE else assets.INK_MUTED
    x = nb[0]
    if seat.computer:
        c.robot((x, mid - ROBOT // 2 - 1), ROBOT, name_ink, fill)
        x += ROBOT + 8
    c.text((x, mid - 17), lay.name_text, "cond", TEXT_SIZE, name_ink, fill)
    status = _status_pill(seat.status)
    if status is not None and lay.status_box is not None:
        c.pill(lay.status_box[:2], status, fill)
    if lay.doubles_box is not None:
        c.pill(lay.doubles_box[:2], _doubles_pill(), fill)
    cb = lay.count_box
    if cb is not None:
        c.box((cb[0], cb[1] + 2), (18, cb[3] - cb[1] - 4), 3, assets.HAND_ICON, fill, assets.CARD_WHITE)
        c.text((cb[0] + 24, cb[1] + 1), str(seat.hand_count), "bold", TEXT_SIZE, assets.INK_LIGHT, fill)
    hb = lay.chips_box
    c.ellipse((hb[0], hb[1] + 7, hb[0] + 20, hb[1] + 27), fill=assets.GOLD, outline=assets.GOLD_DARK)
    c.text((hb[0] + 26, hb[1] + 1), chips_text(seat.chips), "bold", TEXT_SIZE, assets.INK_LIGHT, fill)
    for meld, ml in zip(seat.melds, lay.melds, strict=True):
        num = ml.number_box
        c.text((num[0], num[1] + 14), _number_text(meld), "cond", TEXT_SIZE, assets.GOLD, fill)
        if not meld.cards and _tag(meld) is None:
            continue
        box, key = _meld_group(meld, ml)
        c.group(box, fill, (*key, four), partial(_draw_meld, meld=meld, ml=ml, four=four, fill=fill))


def render_table(snapshot: TableSnapshot) -> Image.Image:
    """The table as an RGB image (see `render_table_png`)."""
    lay = layout_table(snapshot)
    im = Image.new("RGB", (lay.width, lay.height), assets.FELT)
    draw_table(im, snapshot, lay)
    return im


def draw_table(im: Image.Image, snapshot: TableSnapshot, lay: TableLayout) -> None:
    """Draw the table laid out as ``lay`` on the felt of ``im`` (an RGB image, at its top-left corner)."""
    _draw(RGBCanvas(im), snapshot, lay)


def _draw(c: Canvas, snapshot: TableSnapshot, lay: TableLayout) -> None:
    _draw_header(c, snapshot, lay)
    _draw_centre(c, snapshot, lay)
    for seat, seat_lay in zip(snapshot.seats, lay.seats, strict=True):
        _draw_seat(c, seat, seat_lay, snapshot.four_color)


def render_table_png(snapshot: TableSnapshot) -> bytes:
    """PNG bytes of the public table image: drawn as palette indexes (`renderer.canvas.IndexCanvas`), the same
    file as `assets.to_png` of `render_table`'s image."""
    with speaking(snapshot.lang):  # a render worker does not share the task's language: the snapshot carries it
        lay = layout_table(snapshot)
        canvas = IndexCanvas((lay.width, lay.height), assets.FELT)
        try:
            _draw(canvas, snapshot, lay)
        except Overlap:  # a sprite on something other than its plain ground: not drawn exactly as indexes
            im = Image.new("RGB", (lay.width, lay.height), assets.FELT)
            draw_table(im, snapshot, lay)
            return assets.to_png(im)
        return assets.png_of_indexes(canvas.im, canvas.cards)


def _seat_line(number: int, seat: SeatSnapshot, in_hand: bool) -> str:
    who = tr("Seat {number}: {name}", number=number, name=seat.name)
    parts = [who + " " + tr("(computer)") if seat.computer else who, plural(seat.chips, "chip")]
    parts.append(_status_words(seat.status))
    if seat.doubles:
        parts.append(tr("doubles"))
    if in_hand:
        parts.append(tr("{cards} in hand", cards=plural(seat.hand_count, "card")))
    if seat.is_turn:
        parts.append(tr("to play"))
    line = ", ".join(parts) + "."
    if seat.melds:
        melds = []
        for meld in seat.melds:
            cards = " ".join(str(c) for c in meld.cards)
            melds.append(f"{meld.index}: {cards}" + (f" ({meld.shown_label})" if meld.shown_label else ""))
        line += " " + tr("Melds: {melds}.", melds="; ".join(melds))
    return line


def _status_words(status: SeatStatus) -> str:
    words = {
        SeatStatus.IN: N_("in"),
        SeatStatus.ON_TOP: N_("on top"),
        SeatStatus.FOULED: N_("fouled"),
        SeatStatus.BUSTED: N_("busted"),
        SeatStatus.FLAT: N_("flat"),
        SeatStatus.AWAY: N_("away"),
        SeatStatus.WAITING: N_("waiting"),
    }
    return tr(words.get(status, status.value))


def table_text(snapshot: TableSnapshot) -> str:
    """The table image as plain text, one line per fact group and one line per seat (in the snapshot's language)."""
    with speaking(snapshot.lang):
        return _table_text(snapshot)


def _table_text(snapshot: TableSnapshot) -> str:
    lines = [f"{snapshot.title}{_hand_part(snapshot, ', ')}."]
    if snapshot.to_act is not None:
        name = snapshot.seats[snapshot.to_act].name
        if snapshot.clock_seconds is not None:
            lines.append(tr("{name} to play, {clock} left.", name=name, clock=clock_text(snapshot.clock_seconds)))
        else:
            lines.append(tr("{name} to play.", name=name))
    if snapshot.in_hand:
        if snapshot.in_play is not None:
            lines.append(
                tr(
                    "In play: {card}, {how} {name}.",
                    card=snapshot.in_play,
                    how=labels.in_play_by(how=snapshot.in_play_how),
                    name=snapshot.in_play_by,
                )
            )
        if snapshot.discard is None:
            lines.append(tr("Discards: none."))
        elif snapshot.discard_is_option:
            lines.append(
                tr("Discards: {count}, {card} the option card.", count=snapshot.discard_count, card=snapshot.discard)
            )
        else:
            lines.append(tr("Discards: {count}, {card} on top.", count=snapshot.discard_count, card=snapshot.discard))
        lines.append(tr("Stock: {cards}.", cards=plural(snapshot.stock_count, "card")))
    else:
        lines.append(tr("Between hands."))
    lines.append(
        tr("Tops: singles {singles}, doubles {doubles}.", singles=snapshot.singles_tops, doubles=snapshot.doubles_tops)
    )
    lines.extend(_seat_line(i + 1, seat, snapshot.in_hand) for i, seat in enumerate(snapshot.seats))
    notes = snapshot.notes[-TWIN_NOTES:]
    if notes:
        lines.append(tr("Latest:") + " " + " ".join(n if n.endswith(".") else n + "." for n in notes))
    return "\n".join(lines)
