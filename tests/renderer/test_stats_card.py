"""The /pan stats card: a PNG of the rows, and a text twin with the same rows in the same order; no label is ever
cut (its box fits inside its cell, beside or above its value)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from renderer.layout import first_overlap, inside
from renderer.stats import WIDTH, StatsSnapshot, layout_stats, render_stats_png, stats_text


def test_stats_card_png_grows_with_its_rows_and_the_text_twin_matches() -> None:
    rows = (("Hands dealt", "12"), ("Went out", "4 (44% of hands played)"), ("Net chips, all time", "+340"))
    small = StatsSnapshot("Alice", "rating 1.2 (provisional)", rows[:1])
    full = StatsSnapshot("Alice\u202e evil", "season 1 (Autumn) · rating 12.3", rows)
    a, b = Image.open(io.BytesIO(render_stats_png(small))), Image.open(io.BytesIO(render_stats_png(full)))
    assert a.width == b.width and b.height > a.height
    assert len(set(b.convert("RGB").get_flattened_data())) > 4  # text was drawn, not a blank felt
    text = stats_text(full)
    assert [line.split(": ")[0] for line in text.splitlines()[1:]] == [label for label, _ in rows]
    assert "Went out: 4 (44% of hands played)" in text


LONG_ROWS = (
    ("Tournaments played / cashed / won", "1,234 / 567 / 89"),  # cut to "Tournaments played / cas…" before
    ("Conditions collected", "12,345 (1,234,567 chips)"),
    ("Net chips, season 12", "-1,234,567"),
    ("A label much longer than half the card, let alone the room left by a long value", "9,999,999,999 chips"),
)


@pytest.mark.parametrize("rows", [LONG_ROWS, tuple((label, "0") for label, _ in LONG_ROWS)])
def test_no_label_is_cut(rows: tuple[tuple[str, str], ...]) -> None:
    """Every label is drawn whole, its boxes inside its row's cell and inside the card, apart from the value."""
    snap = StatsSnapshot("Alice", "season 12 (Winter) · rating 12.3", rows)
    lay = layout_stats(snap)
    canvas = (0, 0, lay.width, lay.height)
    for (label, _value), row in zip(rows, lay.rows, strict=True):
        assert " ".join(row.label_lines) == label and "…" not in " ".join(row.label_lines)
        for box in (*row.label_boxes, row.value_box):
            assert inside(box, row.cell), (label, box, row.cell)
            assert inside(box, canvas)
            assert box[0] >= 0 and box[2] <= WIDTH
        assert first_overlap([*row.label_boxes, row.value_box]) is None, label
    assert first_overlap(row.cell for row in lay.rows) is None  # rows never overlap each other
    image = Image.open(io.BytesIO(render_stats_png(snap)))
    assert image.size == (lay.width, lay.height)
