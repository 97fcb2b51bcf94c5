"""The phone layout: the portrait table, the portrait hand and the phone panel (table and hand in one image).

The target, measured from the layout boxes: a phone shows an image about 360 px wide, and there a meld card must be
at least 40 px tall, each overlapped card must show at least 16 px of its index strip, and no text may be under
18 px. The landscape board (800 px) misses it, which is why the portrait one exists.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from PIL import ImageChops

from renderer import (
    PanelSnapshot,
    TableLayout,
    TableSnapshot,
    hand_text,
    layout_hand,
    layout_panel,
    layout_table,
    panel_text,
    render_hand,
    render_panel,
    render_table,
    table_text,
)
from renderer.hand import PORTRAIT_LABEL_SIZE
from renderer.layout import Box, first_overlap, inside, overlaps
from renderer.samples import sample_hand, sample_panel, sample_table, worst_hand, worst_table
from renderer.table import TEXT_SIZE

PHONE_WIDTH = 360  # how wide a phone shows an image in a chat (px)
MIN_MELD_CARD = 40  # px tall at PHONE_WIDTH
MIN_STRIP = 16  # px of an overlapped meld card's index strip at PHONE_WIDTH
MIN_TEXT = 18  # px at PHONE_WIDTH


def shown(px: int, image_width: int) -> float:
    """How many pixels ``px`` of an image ``image_width`` wide take on a phone."""
    return px * PHONE_WIDTH / image_width


def portrait(snapshot: TableSnapshot) -> TableSnapshot:
    return replace(snapshot, layout="portrait")


def meld_cards(lay: TableLayout) -> list[tuple[Box, int]]:
    return [(box, meld.step) for seat in lay.seats for meld in seat.melds for box in meld.card_boxes]


def test_portrait_meld_cards_reach_the_phone_target_and_landscape_does_not() -> None:
    """At 360 px a portrait meld card is >= 40 px tall (49.5) with >= 16 px of strip (19.5) and text >= 18 px (20);
    the landscape board gives 29.7 px cards and 12 px text: the problem the portrait layout solves."""
    for snap in (sample_table(8, 30), worst_table()):
        lay = layout_table(portrait(snap))
        cards = meld_cards(lay)
        assert cards
        for box, step in cards:
            assert shown(box[3] - box[1], lay.width) >= MIN_MELD_CARD
            assert shown(step, lay.width) >= MIN_STRIP
        assert shown(TEXT_SIZE, lay.width) >= MIN_TEXT
        wide = layout_table(snap)
        assert all(shown(box[3] - box[1], wide.width) < MIN_MELD_CARD for box, _ in meld_cards(wide))
        assert shown(TEXT_SIZE, wide.width) < MIN_TEXT


@pytest.mark.parametrize("snap", [sample_table(3, 7), sample_table(8, 30), sample_table(15, 45), worst_table()])
def test_portrait_table_fits_without_overlap(snap: TableSnapshot) -> None:
    """One column of seats, 480 px wide; nothing collides or spills, even for the worst table."""
    lay = layout_table(portrait(snap))
    canvas: Box = (0, 0, lay.width, lay.height)
    assert lay.width == 480 and lay.columns == 1 and lay.portrait
    centre = [lay.stock_box, lay.discard_box, lay.in_play_box, lay.in_play_text_box, lay.tops_box, lay.notes_box]
    fixed = [lay.header, *(b for b in centre if b is not None)]
    assert first_overlap(fixed) is None
    assert first_overlap([s.panel for s in lay.seats] + fixed) is None
    for box in fixed:
        assert inside(box, canvas)
    for seat in lay.seats:
        assert inside(seat.panel, canvas)
        head = [b for b in (seat.name_box, seat.chips_box, seat.status_box, seat.count_box, seat.doubles_box) if b]
        assert first_overlap(head) is None
        assert first_overlap(head + [m.box for m in seat.melds]) is None
        for meld in seat.melds:
            assert inside(meld.box, seat.panel)
    assert render_table(portrait(snap)).size == (lay.width, lay.height)


def test_portrait_tops_go_under_their_caption_when_the_row_is_too_narrow() -> None:
    """Single-digit tops share the caption's row; larger ones take a row of their own under it, inside 480 px."""
    small = layout_table(portrait(replace(sample_table(3, 7), singles_tops=5, doubles_tops=2)))
    large = layout_table(portrait(replace(sample_table(3, 7), singles_tops=1234, doubles_tops=567)))
    assert small.tops_inline and not large.tops_inline
    assert large.tops_box[3] - large.tops_box[1] > small.tops_box[3] - small.tops_box[1]
    for lay in (small, large):
        assert inside(lay.tops_box, (0, 0, lay.width, lay.height))


def test_portrait_header_has_whose_turn_and_the_clock_on_a_second_row() -> None:
    snap = sample_table(3, 7)
    assert layout_table(portrait(snap)).header[3] == 2 * layout_table(snap).header[3]
    between = replace(snap, to_act=None, clock_seconds=None, in_hand=False, in_play=None)
    assert layout_table(portrait(between)).header[3] == layout_table(between).header[3]


def test_portrait_hand_rows_fit_and_keep_positions() -> None:
    """Medium cards in balanced rows of at most 6 within 480 px; visible strips and position numbers disjoint; the
    drawn card apart; positions run on across rows in the display order."""
    for snap in (sample_hand(10), sample_hand(11), worst_hand(), replace(sample_hand(11), drawn=None)):
        snap = replace(snap, layout="portrait")
        lay = layout_hand(snap)
        canvas: Box = (0, 0, lay.width, lay.height)
        assert lay.width == 480
        rows = sorted({box[3] for box, marked in zip(lay.card_boxes, lay.marked, strict=True) if not marked})
        assert len(rows) <= 2
        assert first_overlap(lay.index_boxes) is None
        assert first_overlap(lay.label_boxes) is None
        for box in (*lay.card_boxes, *lay.label_boxes):
            assert inside(box, canvas)
        if lay.drawn_box is not None and lay.drawn_panel is not None:
            assert not any(overlaps(lay.drawn_panel, box) for box in lay.card_boxes)
            assert inside(lay.drawn_panel, canvas)
        assert lay.order == layout_hand(replace(snap, layout="landscape")).order
        assert render_hand(snap).size == (lay.width, lay.height)
    # a portrait hand card at 360 px is larger than a landscape one
    wide, tall = layout_hand(sample_hand(11)), layout_hand(replace(sample_hand(11), layout="portrait"))
    card = tall.card_boxes[0]
    assert shown(card[3] - card[1], tall.width) > shown(wide.card_boxes[0][3] - wide.card_boxes[0][1], wide.width)
    assert shown(PORTRAIT_LABEL_SIZE, tall.width) >= 14


def test_phone_panel_is_the_portrait_table_over_the_portrait_hand() -> None:
    """The panel's top is the portrait table's image, pixel for pixel, and its bottom the portrait hand's."""
    snap = sample_panel()
    lay = layout_panel(snap)
    im = render_panel(snap)
    assert im.size == (lay.width, lay.height) == (480, lay.band[3] + lay.hand.height)
    table = render_table(replace(snap.table, layout="portrait"))
    hand = render_hand(replace(snap.hand, layout="portrait"))
    assert ImageChops.difference(im.crop((0, 0, *table.size)), table).getbbox() is None
    ox, oy = lay.hand_origin
    assert ImageChops.difference(im.crop((ox, oy, ox + hand.width, oy + hand.height)), hand).getbbox() is None
    assert lay.band == (0, table.height, 480, oy)


def test_text_twins_are_the_same_in_both_layouts() -> None:
    """The layout changes where things are drawn, never what is said: the twins do not depend on it."""
    snap = sample_table(8, 30)
    assert table_text(portrait(snap)) == table_text(snap)
    assert hand_text(replace(sample_hand(11), layout="portrait")) == hand_text(sample_hand(11))
    panel = PanelSnapshot(table=snap, hand=sample_hand(11))
    assert panel_text(panel) == hand_text(sample_hand(11)) + "\n" + table_text(snap)
