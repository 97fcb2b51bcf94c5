"""Boxes shared by the layouts: ``(left, top, right, bottom)`` with exclusive right/bottom edges."""

from __future__ import annotations

from collections.abc import Iterable

Box = tuple[int, int, int, int]


def overlaps(a: Box, b: Box) -> bool:
    """Whether two boxes share any pixel (touching edges do not count)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(inner: Box, outer: Box) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def first_overlap(boxes: Iterable[Box]) -> tuple[Box, Box] | None:
    """The first pair of overlapping boxes, or None if all are disjoint."""
    seen: list[Box] = []
    for box in boxes:
        for other in seen:
            if overlaps(box, other):
                return other, box
        seen.append(box)
    return None
