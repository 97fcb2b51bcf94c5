"""Hand-for-hand play on the bubble (pure, stdlib only).

When the next knock-out is the bubble (the players left are one more than the places paid) in an event still played
on more than one table, every table finishes its hand before any table deals the next, as the poker rooms' floor
rules (TDA) have it: a table that is faster does not decide who bursts the bubble. Players put out at *different*
tables in the same hand-for-hand round then share the place: they split evenly the prizes of the places they cover
(:func:`~.payouts.share_ties`; an odd chip goes to the entry that registered first). Everything here is derived from
the stored state (the field, the tables, the entries), so a restart resumes hand-for-hand play exactly.
"""

from __future__ import annotations

from collections.abc import Iterable

from .model import Tournament
from .payouts import prizes

__all__ = ["on_bubble", "paid_places", "shared_round"]


def paid_places(t: Tournament) -> int:
    """How many places win chips with the field as it is (custom payout lists included)."""
    pool = (t.config.buy_in - t.config.fee) * t.paid_entries
    table = prizes(pool, max(1, t.paid_entries), t.config.payouts or None)
    return sum(1 for p in table if p > 0) if pool else len(table)


def on_bubble(t: Tournament, *, registration_open: bool) -> bool:
    """True while the tournament plays hand-for-hand: the field is final, more than one table is open and the next
    knock-out is the bubble (the players left are the places paid plus one)."""
    if registration_open or len(t.open_tables()) < 2:
        return False
    return len(t.alive()) == paid_places(t) + 1


def shared_round(tables: Iterable[int | None]) -> bool:
    """True when the busts of one hand-for-hand round come from more than one table: they share the place (at one
    table the usual ranking by stacks applies)."""
    return len({n for n in tables if n is not None}) > 1
