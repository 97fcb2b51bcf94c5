"""The ``/pan stats`` card: a player's league figures as a PNG (chip leagues).

The adapter builds a :class:`StatsSnapshot` (already worded: the same rows make the text twin) and renders it on
the render queue with :func:`render_stats_png`. Pure Pillow, no discord.

Labels are never cut: :func:`layout_stats` gives each label the width it needs (wrapped at spaces if it is wider
than the card), and moves the value to a line of its own, right-aligned, when label and value do not fit side by
side. Only a player's name in the title (and a value wider than the whole card) is ellipsised.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from renderer.assets import fit_text, line_width, paste_text, text_width, to_png
from renderer.layout import Box
from renderer.text import clean_text, image_text

__all__ = ["StatsLayout", "StatsRowLayout", "StatsSnapshot", "layout_stats", "render_stats_png", "stats_text"]

WIDTH = 560
PAD = 24
TITLE = 26
ROW = 20
LINE = 30
GAP = 16  # between a label and its value on one line
FELT = (22, 84, 52)
PANEL = (15, 60, 37)
INK = (240, 240, 232)
MUTED = (176, 204, 186)
GOLD = (236, 196, 92)


@dataclass(frozen=True, slots=True)
class StatsSnapshot:
    """A player's card: a title (the player's name), a subtitle (season, rating), and (label, value) rows."""

    title: str
    subtitle: str
    rows: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class StatsRowLayout:
    """One row: its cell (the stripe), the label's lines and their boxes, the value as drawn and its box."""

    cell: Box
    label_lines: tuple[str, ...]
    label_boxes: tuple[Box, ...]
    value: str
    value_box: Box


@dataclass(frozen=True, slots=True, kw_only=True)
class StatsLayout:
    width: int
    height: int
    rows: tuple[StatsRowLayout, ...]


def stats_text(snap: StatsSnapshot) -> str:
    """The text twin of the card (same rows, same order)."""
    lines = [f"**{snap.title}** — {snap.subtitle}"]
    lines += [f"{label}: {value}" for label, value in snap.rows]
    return "\n".join(lines)


def _wrap(text: str, width: int) -> tuple[str, ...]:
    """``text`` in lines of at most ``width`` pixels, broken at spaces (a single word wider than that stays whole:
    the card's labels have none)."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if current and line_width(candidate, "regular", ROW) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    return (*lines, current)


def layout_stats(snap: StatsSnapshot) -> StatsLayout:
    """Where every label and value goes; pure arithmetic, no drawing."""
    inner = WIDTH - 2 * PAD
    right = WIDTH - PAD
    y = PAD + TITLE + 12 + ROW + 16
    rows: list[StatsRowLayout] = []
    for label, value in snap.rows:
        lines = _wrap(clean_text(label, "regular"), inner)
        label_boxes = tuple(
            (PAD, y + k * LINE, PAD + line_width(line, "regular", ROW), y + k * LINE + ROW)
            for k, line in enumerate(lines)
        )
        shown = clean_text(value, "bold")
        value_w = text_width(shown, "bold", ROW)
        last = label_boxes[-1]
        if last[2] + GAP + value_w <= right:  # beside the label's last line
            value_top = last[1]
        else:  # on a line of its own under the label
            value_top = last[1] + LINE
            shown = fit_text(shown, "bold", ROW, inner)
            value_w = text_width(shown, "bold", ROW)
        value_box = (right - value_w, value_top, right, value_top + ROW)
        bottom = value_top + LINE
        rows.append(
            StatsRowLayout(
                cell=(PAD // 2, y - 4, WIDTH - PAD // 2, bottom - 4),
                label_lines=lines,
                label_boxes=label_boxes,
                value=shown,
                value_box=value_box,
            )
        )
        y = bottom
    return StatsLayout(width=WIDTH, height=y + PAD, rows=tuple(rows))


def render_stats_png(snap: StatsSnapshot) -> bytes:
    """The card as PNG bytes: a title band, then one row per figure, value right-aligned."""
    lay = layout_stats(snap)
    im = Image.new("RGB", (lay.width, lay.height), FELT)
    inner = WIDTH - 2 * PAD
    paste_text(im, (PAD, PAD), image_text(snap.title, "bold", TITLE, inner), "bold", TITLE, GOLD, cache=False)
    y = PAD + TITLE + 12
    paste_text(
        im, (PAD, y), image_text(snap.subtitle, "regular", ROW - 4, inner), "regular", ROW - 4, MUTED, cache=False
    )
    for i, row in enumerate(lay.rows):
        if i % 2 == 0:
            im.paste(PANEL, row.cell)
        for line, box in zip(row.label_lines, row.label_boxes, strict=True):
            paste_text(im, box[:2], line, "regular", ROW, INK)
        paste_text(im, row.value_box[:2], row.value, "bold", ROW, INK, cache=False)
    return to_png(im)
