"""The phone panel: the table in portrait with the viewer's own hand under it, in one image.

A phone player's My hand answer carries this one image instead of the wide hand strip: the board to play on and the
cards to play with, both 480 px wide, so a phone showing it ~360 px wide shows meld cards ~50 px tall. One image,
because Discord shows two images of one message side by side, each at half the width (docs/rendering.md, "The
phone layout"). PRIVATE to the viewer: the hand part is his own cards only, the table part is the public board.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PIL import Image

from pancog.game.i18n import speaking

from . import assets, labels
from .hand import HandLayout, draw_hand, hand_text, layout_hand
from .layout import Box
from .snapshot import HandSnapshot, PanelSnapshot, TableSnapshot
from .table import MARGIN, TEXT_SIZE, TableLayout, draw_table, layout_table, table_text

BAND_H = 44  # the "Your hand" band between the table and the hand


@dataclass(frozen=True, slots=True, kw_only=True)
class PanelLayout:
    width: int
    height: int
    table: TableLayout  # at (0, 0)
    band: Box
    hand_origin: tuple[int, int]
    hand: HandLayout  # boxes relative to ``hand_origin``


def portrait(snapshot: PanelSnapshot) -> tuple[TableSnapshot, HandSnapshot]:
    """Both parts in their portrait layouts (whatever the snapshot asked)."""
    return replace(snapshot.table, layout="portrait"), replace(snapshot.hand, layout="portrait")


def layout_panel(snapshot: PanelSnapshot) -> PanelLayout:
    """The table's boxes, then the band, then the hand's (offset by ``hand_origin``)."""
    table, hand = portrait(snapshot)
    table_lay = layout_table(table)
    hand_lay = layout_hand(hand)
    band = (0, table_lay.height, table_lay.width, table_lay.height + BAND_H)
    return PanelLayout(
        width=table_lay.width,
        height=band[3] + hand_lay.height,
        table=table_lay,
        band=band,
        hand_origin=(0, band[3]),
        hand=hand_lay,
    )


def render_panel(snapshot: PanelSnapshot) -> Image.Image:
    """The phone panel as an RGB image (see `render_panel_png`)."""
    table, hand = portrait(snapshot)
    lay = layout_panel(snapshot)
    im = Image.new("RGB", (lay.width, lay.height), assets.FELT)
    draw_table(im, table, lay.table)
    band = lay.band
    im.paste(assets.FELT_DARK, band)
    pen_y = band[1] + (BAND_H - TEXT_SIZE) // 2 - 3
    assets.paste_text(im, (MARGIN, pen_y), labels.your_hand(), "cond", TEXT_SIZE, assets.GOLD)
    draw_hand(im, hand, lay.hand, lay.hand_origin)
    shown = im.info.get(assets.CARDS_KEY, [])
    if hand.drawn is not None and table.in_play == hand.drawn and shown.count(hand.drawn) > 1:
        # the card in play on the table is the one the hand shows as drawn: one card, shown twice (the record counts
        # the cards an image gives away, so it lists it once)
        shown.reverse()
        shown.remove(hand.drawn)
        shown.reverse()
    return im


def render_panel_png(snapshot: PanelSnapshot) -> bytes:
    """PNG bytes of the phone panel."""
    with speaking(snapshot.table.lang):  # a render worker does not share the task's language: the snapshot carries it
        return assets.to_png(render_panel(snapshot))


def panel_text(snapshot: PanelSnapshot) -> str:
    """The phone panel as plain text: the hand's twin, then the table's."""
    return hand_text(snapshot.hand) + "\n" + table_text(snapshot.table)
