"""Card, table and end-of-hand images (Pillow only), each with a plain-text twin.

Pure, synchronous functions: the bot calls them with ``asyncio.to_thread`` and wraps the bytes in
a ``discord.File``. Inputs are engine `Card`s and the snapshot dataclasses in `renderer.snapshot`.
"""

from __future__ import annotations

from .assets import to_png, warm_up
from .hand import HandLayout, display_order, hand_text, layout_hand, render_hand, render_hand_png
from .outcome import OutcomeLayout, layout_outcome, outcome_text, render_outcome, render_outcome_png
from .panel import PanelLayout, layout_panel, panel_text, render_panel, render_panel_png
from .snapshot import (
    HandSnapshot,
    InPlayHow,
    Layout,
    MeldSnapshot,
    NetSnapshot,
    OutcomeSnapshot,
    PanelSnapshot,
    PaymentSnapshot,
    SeatSnapshot,
    SeatStatus,
    TableSnapshot,
)
from .table import TableLayout, layout_table, render_table, render_table_png, table_text
from .text import clean_text, image_text

__all__ = [
    "HandLayout",
    "HandSnapshot",
    "InPlayHow",
    "Layout",
    "MeldSnapshot",
    "NetSnapshot",
    "OutcomeLayout",
    "OutcomeSnapshot",
    "PanelLayout",
    "PanelSnapshot",
    "PaymentSnapshot",
    "SeatSnapshot",
    "SeatStatus",
    "TableLayout",
    "TableSnapshot",
    "clean_text",
    "display_order",
    "hand_text",
    "image_text",
    "layout_hand",
    "layout_outcome",
    "layout_panel",
    "layout_table",
    "outcome_text",
    "panel_text",
    "render_hand",
    "render_hand_png",
    "render_outcome",
    "render_outcome_png",
    "render_panel",
    "render_panel_png",
    "render_table",
    "render_table_png",
    "table_text",
    "to_png",
    "warm_up",
]
