"""What players read about hand-for-hand play, final-table deals and check-in (every sentence through the
catalogs: tr()/trn())."""

from __future__ import annotations

from collections.abc import Sequence

from pancog.game.i18n import tr, trn

__all__ = ["hand_for_hand_line"]


def hand_for_hand_line(waiting: Sequence[int]) -> str:
    """PUBLIC, under a tournament table's board on the bubble: hand-for-hand play, and which tables the others wait
    for (none: the next round is being dealt)."""
    if not waiting:
        return tr("⏸ Hand-for-hand on the bubble: every table plays one hand at a time.")
    tables = ", ".join(str(n) for n in waiting)
    return trn(
        "⏸ Hand-for-hand: waiting for table {tables}",
        "⏸ Hand-for-hand: waiting for tables {tables}",
        len(waiting),
        tables=tables,
    )
