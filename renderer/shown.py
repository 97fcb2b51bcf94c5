"""Which card faces an image made by this renderer shows, read back from its bytes.

Every face is drawn through :func:`renderer.assets.paste_card`, which notes it; :func:`renderer.assets.to_png`
writes the list into a PNG text chunk (``pan:cards``) and :func:`renderer.animation.to_gif` into the GIF's comment
(one list per frame, ``|`` between frames). The bot's edge reads it to check an image against what its audience
may know, without decoding a pixel: a PNG's chunks are walked up to the first image data.
"""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image

from pancog.game.cards import ALL_CARDS, Card

from .assets import CARDS_KEY

__all__ = ["shown_cards"]

_PNG = b"\x89PNG\r\n\x1a\n"
_GIF = (b"GIF87a", b"GIF89a")
_KEY = CARDS_KEY.encode("latin-1")


_BY_NAME = {str(c): c for c in ALL_CARDS}


def _cards(text: str) -> tuple[Card, ...] | None:
    try:
        return tuple(_BY_NAME[t] for t in text.split())
    except KeyError:
        return None


def _png_text(data: bytes) -> str | None:
    pos = len(_PNG)
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind in (b"IDAT", b"IEND"):
            return None
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            if key == _KEY:
                return value.decode("latin-1")
        elif kind == b"zTXt":
            key, _, rest = body.partition(b"\0")
            if key == _KEY and rest[:1] == b"\0":
                return zlib.decompress(rest[1:]).decode("latin-1")
        pos += 12 + length
    return None


def shown_cards(data: bytes) -> list[tuple[Card, ...]] | None:
    """The faces each frame of a PNG or GIF made here shows (one tuple per frame); None for bytes that are not
    such an image (another file, or an image without the renderer's record)."""
    if data.startswith(_PNG):
        text = _png_text(data)
        if text is None:
            return None
        cards = _cards(text)
        return None if cards is None else [cards]
    if data[:6] in _GIF:
        with Image.open(io.BytesIO(data)) as im:
            comment = im.info.get("comment", b"")
        text = comment.decode("latin-1") if isinstance(comment, bytes) else str(comment)
        if not text.startswith(CARDS_KEY):
            return None
        frames = [_cards(part) for part in text[len(CARDS_KEY) :].split("|")]
        return None if any(f is None for f in frames) else [f for f in frames if f is not None]
    return None
