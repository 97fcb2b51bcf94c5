"""Shared constants and helpers for tests/storage (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

GUILD = 1
TABLE = 500


class Clock:
    """A settable clock (seconds since the epoch) for daily claims and timestamps."""

    def __init__(self, now: float = 1_767_268_800.0) -> None:  # 2026-01-01T12:00:00Z
        self.now = now

    def __call__(self) -> float:
        return self.now
