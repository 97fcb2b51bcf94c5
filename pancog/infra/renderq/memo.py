"""The images the bot drew lately, by what they show: an input drawn again is answered without a worker.

A renderer function reads nothing but its snapshot (the language it draws in is a field of the snapshot), so
``(function, snapshot)`` names an image. A player's hand image repeats whenever he asks for his hand again before
it changed (**My hand** after a draw's answer, a re-sent panel, the hand DM of a state he was just shown): drawing
it again would cost a worker a render and a PNG encode, and the event loop a pickled job and a PNG read back.

Bounded by bytes (least recently used first out), not by count: hand images are 15–25 KB. Keys are the frozen
snapshot dataclasses themselves (they hash by value), so two players whose private views are equal share an entry;
each gets only what his own snapshot names, which is exactly what he would have been drawn.
"""

from __future__ import annotations

import collections
from collections.abc import Hashable

__all__ = ["DEFAULT_MEMO_BYTES", "ImageMemo"]

DEFAULT_MEMO_BYTES = 4 * 1024 * 1024  # ~200 hand images


class ImageMemo:
    """Least recently used PNGs by key, at most ``max_bytes`` of them (0: remember nothing)."""

    def __init__(self, max_bytes: int = DEFAULT_MEMO_BYTES) -> None:
        self.max_bytes = max(0, max_bytes)
        self._images: collections.OrderedDict[Hashable, bytes] = collections.OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> bytes | None:
        image = self._images.get(key)
        if image is None:
            self.misses += 1
            return None
        self._images.move_to_end(key)
        self.hits += 1
        return image

    def put(self, key: Hashable, image: bytes) -> None:
        if len(image) > self.max_bytes:
            return
        old = self._images.pop(key, None)
        if old is not None:
            self._bytes -= len(old)
        self._images[key] = image
        self._bytes += len(image)
        while self._bytes > self.max_bytes:
            _, dropped = self._images.popitem(last=False)
            self._bytes -= len(dropped)

    def __len__(self) -> int:
        return len(self._images)

    @property
    def size(self) -> int:
        """Bytes held."""
        return self._bytes
