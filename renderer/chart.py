"""A player's rating chart: the rating after each rated result, this season and all time, as a PNG with a text twin.

Made to be read on a phone: Discord shows an image about 360 px wide there, so the chart is drawn 720 px wide with
text no smaller than 24 px (12 px on the phone), one panel per period stacked, thick lines, and only the figures
that matter written out (now, the high and the low, the first and last result's number). The adapter (and the web
page) build a :class:`ChartSnapshot` from the league's history; the text twin (:func:`chart_text`) carries the same
figures for the alt text. Pure Pillow, no discord.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PIL import Image, ImageDraw

from pancog.game.i18n import N_, speaking, tr, trn
from renderer.assets import fit_text, paste_text, text_width, to_png
from renderer.text import image_text

__all__ = ["WIDTH", "ChartSeries", "ChartSnapshot", "chart_text", "nice_ticks", "render_chart", "render_chart_png"]

WIDTH = 720
PAD = 28
TITLE = 34
LABEL = 24
PANEL_HEIGHT = 300
PLOT_LEFT = 96  # room for the y labels
PLOT_TOP = 44  # the panel's heading
PLOT_BOTTOM = 40  # the x labels
FELT = (22, 84, 52)
PANEL = (15, 60, 37)
GRID = (44, 110, 74)
INK = (240, 240, 232)
MUTED = (176, 204, 186)
GOLD = (236, 196, 92)
LINE_WIDTH = 5


@dataclass(frozen=True, slots=True)
class ChartSeries:
    """One panel: its heading (e.g. "This season") and the shown rating after each rated result, oldest first."""

    heading: str
    values: tuple[float, ...]
    empty: str = N_("No rated results yet")  # said in the snapshot's language


@dataclass(frozen=True, slots=True)
class ChartSnapshot:
    """The chart: a title (the player's name), a subtitle, and one or two panels."""

    title: str
    subtitle: str
    series: tuple[ChartSeries, ...]
    lang: str = "en"  # the language of the image's words (a render worker does not share the task's)


def nice_ticks(low: float, high: float, count: int = 4) -> list[float]:
    """About ``count`` round values covering ``low``..``high`` (steps of 1, 2 or 5 times a power of ten).

    >>> nice_ticks(0.0, 9.3)
    [0.0, 5.0, 10.0]
    >>> nice_ticks(-1.2, 0.7)
    [-1.5, -1.0, -0.5, 0.0, 0.5, 1.0]
    """
    if high <= low:
        high = low + 1.0
    raw = (high - low) / max(1, count)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = float(math.floor(low / step)) * step
    ticks = []
    value = first
    while value < high + step * 0.999:
        ticks.append(round(value, 6))
        value += step
    return ticks


def _figure(value: float) -> str:
    return f"{value:.1f}"


def series_facts(series: ChartSeries) -> str:
    """The figures of one panel in words (the text twin's line, and the alt text)."""
    values = series.values
    if not values:
        return f"{series.heading}: {tr(series.empty).lower()}."
    return (
        series.heading
        + ": "
        + trn(
            "{now} now after {n} rated result, from {first}; high {high}, low {low}.",
            "{now} now after {n} rated results, from {first}; high {high}, low {low}.",
            len(values),
            now=_figure(values[-1]),
            first=_figure(values[0]),
            high=_figure(max(values)),
            low=_figure(min(values)),
        )
    )


def chart_text(snap: ChartSnapshot) -> str:
    """The text twin: the title and subtitle, then each panel's figures (same order as the image)."""
    with speaking(snap.lang):
        return "\n".join([f"{snap.title} — {snap.subtitle}", *(series_facts(s) for s in snap.series)])


def _panel(im: Image.Image, draw: ImageDraw.ImageDraw, top: int, series: ChartSeries) -> None:
    left, right = PAD, WIDTH - PAD
    im.paste(PANEL, (left, top, right, top + PANEL_HEIGHT))
    heading = fit_text(image_text(series.heading, "bold", LABEL, WIDTH), "bold", LABEL, WIDTH // 2)
    paste_text(im, (left + 12, top + 8), heading, "bold", LABEL, INK, cache=False)
    values = series.values
    if not values:
        note = fit_text(tr(series.empty), "regular", LABEL, right - left - 24)
        paste_text(im, (left + 12, top + PANEL_HEIGHT // 2 - LABEL // 2), note, "regular", LABEL, MUTED)
        return
    now = _figure(values[-1])
    paste_text(im, (right - 12 - text_width(now, "bold", LABEL), top + 8), now, "bold", LABEL, GOLD, cache=False)
    x0, x1 = left + PLOT_LEFT, right - 16
    y0, y1 = top + PLOT_TOP + 8, top + PANEL_HEIGHT - PLOT_BOTTOM
    ticks = nice_ticks(min(values), max(values))
    low, high = ticks[0], ticks[-1]

    def y_of(v: float) -> float:
        return y1 - (v - low) / (high - low) * (y1 - y0)

    for tick in ticks:
        y = round(y_of(tick))
        draw.line([(x0, y), (x1, y)], fill=GRID, width=2)
        label = f"{tick:g}"
        paste_text(
            im, (x0 - 10 - text_width(label, "regular", LABEL), y - LABEL // 2 - 2), label, "regular", LABEL, MUTED
        )
    n = len(values)

    def x_of(i: int) -> float:
        return x0 + (x1 - x0) * (i / (n - 1) if n > 1 else 0.5)

    points = [(x_of(i), y_of(v)) for i, v in enumerate(values)]
    if n > 1:
        draw.line(points, fill=GOLD, width=LINE_WIDTH, joint="curve")
    last = points[-1]
    r = LINE_WIDTH + 2
    draw.ellipse((last[0] - r, last[1] - r, last[0] + r, last[1] + r), fill=GOLD, outline=INK, width=2)
    first_label, last_label = "1", f"{n}"
    base = y1 + 8
    paste_text(im, (x0, base), first_label, "regular", LABEL, MUTED)
    if n > 1:
        paste_text(im, (x1 - text_width(last_label, "regular", LABEL), base), last_label, "regular", LABEL, MUTED)
    caption = tr("rated results")
    paste_text(im, ((x0 + x1 - text_width(caption, "regular", LABEL)) // 2, base), caption, "regular", LABEL, MUTED)


def render_chart(snap: ChartSnapshot) -> Image.Image:
    """The chart: a title band, then one panel per series."""
    with speaking(snap.lang):
        return _render_chart(snap)


def _render_chart(snap: ChartSnapshot) -> Image.Image:
    panels = max(1, len(snap.series))
    height = PAD + TITLE + 10 + LABEL + 18 + panels * (PANEL_HEIGHT + 16) + PAD - 16
    im = Image.new("RGB", (WIDTH, height), FELT)
    draw = ImageDraw.Draw(im)
    inner = WIDTH - 2 * PAD
    paste_text(im, (PAD, PAD), image_text(snap.title, "bold", TITLE, inner), "bold", TITLE, GOLD, cache=False)
    y = PAD + TITLE + 10
    paste_text(im, (PAD, y), image_text(snap.subtitle, "regular", LABEL, inner), "regular", LABEL, MUTED, cache=False)
    y += LABEL + 18
    for series in snap.series:
        _panel(im, draw, y, series)
        y += PANEL_HEIGHT + 16
    return im


def render_chart_png(snap: ChartSnapshot) -> bytes:
    """:func:`render_chart` as PNG bytes (a render job: a module-level function of a picklable snapshot)."""
    return to_png(render_chart(snap))
