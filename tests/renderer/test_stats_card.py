"""The /pan stats card: a PNG of the rows, and a text twin with the same rows in the same order."""

from __future__ import annotations

import io

from PIL import Image

from renderer.stats import StatsSnapshot, render_stats_png, stats_text


def test_stats_card_png_grows_with_its_rows_and_the_text_twin_matches() -> None:
    rows = (("Hands dealt", "12"), ("Went out", "4 (44% of hands played)"), ("Net chips, all time", "+340"))
    small = StatsSnapshot("Alice", "rating 1.2 (provisional)", rows[:1])
    full = StatsSnapshot("Alice\u202e evil", "season 1 (Autumn) · rating 12.3", rows)
    a, b = Image.open(io.BytesIO(render_stats_png(small))), Image.open(io.BytesIO(render_stats_png(full)))
    assert a.width == b.width and b.height > a.height
    assert len(set(b.convert("RGB").getdata())) > 4  # text was drawn, not a blank felt
    text = stats_text(full)
    assert [line.split(": ")[0] for line in text.splitlines()[1:]] == [label for label, _ in rows]
    assert "Went out: 4 (44% of hands played)" in text
