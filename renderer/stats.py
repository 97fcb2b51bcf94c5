"""The ``/pan stats`` card: a player's league figures as a PNG (chip leagues).

The adapter builds a :class:`StatsSnapshot` (already worded: the same rows make the text twin) and renders it on
the render queue with :func:`render_stats_png`. Pure Pillow, no discord.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from renderer.assets import fit_text, paste_text, text_width, to_png
from renderer.text import image_text

__all__ = ["StatsSnapshot", "render_stats_png", "stats_text"]

WIDTH = 560
PAD = 24
TITLE = 26
ROW = 20
LINE = 30
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


def stats_text(snap: StatsSnapshot) -> str:
    """The text twin of the card (same rows, same order)."""
    lines = [f"**{snap.title}** — {snap.subtitle}"]
    lines += [f"{label}: {value}" for label, value in snap.rows]
    return "\n".join(lines)


def render_stats_png(snap: StatsSnapshot) -> bytes:
    """The card as PNG bytes: a title band, then one row per figure, value right-aligned."""
    height = PAD * 2 + TITLE + 12 + ROW + 16 + LINE * len(snap.rows)
    im = Image.new("RGB", (WIDTH, height), FELT)
    inner = WIDTH - 2 * PAD
    paste_text(im, (PAD, PAD), image_text(snap.title, "bold", TITLE, inner), "bold", TITLE, GOLD, cache=False)
    y = PAD + TITLE + 12
    paste_text(
        im, (PAD, y), image_text(snap.subtitle, "regular", ROW - 4, inner), "regular", ROW - 4, MUTED, cache=False
    )
    y += ROW + 16
    for i, (label, value) in enumerate(snap.rows):
        if i % 2 == 0:
            im.paste(PANEL, (PAD // 2, y - 4, WIDTH - PAD // 2, y + LINE - 4))
        label = fit_text(label, "regular", ROW, inner // 2)
        paste_text(im, (PAD, y), label, "regular", ROW, INK)
        shown = fit_text(value, "bold", ROW, inner - text_width(label, "regular", ROW) - 16)
        paste_text(im, (WIDTH - PAD - text_width(shown, "bold", ROW), y), shown, "bold", ROW, INK, cache=False)
        y += LINE
    return to_png(im)
