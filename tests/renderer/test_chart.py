"""The rating chart: readable on a phone, its text twin carries the figures, hostile names are drawn safely.
Its golden image is a case of test_render.py (``chart_rating``)."""

from __future__ import annotations

import io

from PIL import Image

from renderer.chart import LABEL, TITLE, WIDTH, ChartSeries, ChartSnapshot, chart_text, render_chart_png
from renderer.samples import sample_chart

PHONE = 360  # the width Discord shows an image at on a phone


def image(snap: ChartSnapshot) -> Image.Image:
    return Image.open(io.BytesIO(render_chart_png(snap))).convert("RGB")


def gold_pixels(im: Image.Image) -> int:
    pixels = [p for p in im.get_flattened_data() if isinstance(p, tuple)]
    return sum(1 for p in pixels if p[0] > 200 and 150 < p[1] < 230 and p[2] < 140)


def test_the_chart_is_legible_at_phone_width() -> None:
    """Text is at least 12 px once the image is shown 360 px wide, and the line survives the downscale."""
    assert LABEL * PHONE / WIDTH >= 12 and TITLE * PHONE / WIDTH >= 16
    im = image(sample_chart())
    assert im.width == WIDTH
    phone = im.resize((PHONE, round(im.height * PHONE / im.width)), Image.Resampling.LANCZOS)
    assert gold_pixels(phone) > 300  # the rating line (5 px wide, ~2.5 px on the phone) is still there


def test_the_text_twin_has_each_panels_figures() -> None:
    snap = ChartSnapshot("Rosa", "Rating 3.0", (ChartSeries("This season", (0.0, 2.5, 1.25, 3.0)),))
    text = chart_text(snap)
    assert "This season: 3.0 now after 4 rated results, from 0.0; high 3.0, low 0.0." in text
    empty = chart_text(ChartSnapshot("Rosa", "New", (ChartSeries("All time", ()),)))
    assert "All time: no rated results yet." in empty


def test_an_empty_panel_draws_no_line_and_one_point_draws_a_dot() -> None:
    empty = image(ChartSnapshot("Rosa", "New", (ChartSeries("All time", ()),)))
    one = image(ChartSnapshot("Rosa", "New", (ChartSeries("All time", (1.0,)),)))
    many = image(ChartSnapshot("Rosa", "New", (ChartSeries("All time", (1.0, 2.0, 0.5, 3.0)),)))
    assert empty.size == one.size == many.size
    assert gold_pixels(one) > gold_pixels(empty) and gold_pixels(many) > gold_pixels(one)


def test_a_hostile_name_keeps_the_chart_the_same_size() -> None:
    hostile = "\u202eRosa\u200b" + "Z\u0301\u0302\u0303\u0304" * 5 + "🤖" * 3 + "x" * 300
    plain = image(ChartSnapshot("Rosa", "Rating 1.0", (ChartSeries("All time", (0.0, 1.0)),)))
    odd = image(ChartSnapshot(hostile, "Rating 1.0", (ChartSeries("All time", (0.0, 1.0)),)))
    assert odd.size == plain.size
    below_title = (0, 90, WIDTH, plain.height)
    assert plain.crop(below_title).tobytes() == odd.crop(below_title).tobytes()
