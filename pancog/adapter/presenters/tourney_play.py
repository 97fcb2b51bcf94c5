"""What players read about hand-for-hand play, final-table deals and check-in (every sentence through the
catalogs: tr()/trn())."""

from __future__ import annotations

from collections.abc import Sequence

from pancog.adapter.presenters.common import chips
from pancog.game.i18n import N_, tr, trn

__all__ = [
    "DEAL_ACCEPT",
    "DEAL_DECLINE",
    "checked_in_now",
    "checkin_line",
    "deal_accepted",
    "deal_asked",
    "deal_declined",
    "deal_done",
    "deal_proposed",
    "deal_you_accepted",
    "deal_you_declined",
    "hand_for_hand_line",
]


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


def _kind(kind: str) -> str:
    return tr("an ICM split") if kind == "icm" else tr("a chip chop")


def deal_proposed(
    title: str, kind: str, keep: int, rows: Sequence[tuple[str, int, int]], waiting: Sequence[str]
) -> str:
    """PUBLIC, in the final table's thread: the proposal, each player's stack and share; who must still accept.
    ``rows``: (name, stack, chips dealt)."""
    lines = [
        tr("🤝 **Deal proposed** in {title}: {kind} of the prizes still to be won.", title=title, kind=_kind(kind))
    ]
    for name, stack, amount in rows:
        lines.append(tr("{name}: stack {stack} → {amount}", name=name, stack=f"{stack:,}", amount=chips(amount)))
    if keep:
        lines.append(tr("{amount} are left to play for: the winner takes them.", amount=chips(keep)))
    lines.append(tr("Play waits. Every player left must accept; anyone of them may decline."))
    if waiting:
        lines.append(tr("Waiting for: {names}", names=", ".join(waiting)))
    return "\n".join(lines)


def deal_accepted(name: str, waiting: Sequence[str]) -> str:
    return tr("{name} accepted the deal. Waiting for: {names}", name=name, names=", ".join(waiting))


def deal_declined(name: str) -> str:
    return tr("{name} declined the deal: play goes on.", name=name)


def deal_done(title: str, rows: Sequence[tuple[str, int]], keep: int) -> str:
    """PUBLIC: everyone accepted; what each player was paid (and what is still played for)."""
    lines = [tr("🤝 **Deal made** in {title}: every player left accepted.", title=title)]
    lines += [tr("{name} receives {amount}", name=name, amount=chips(amount)) for name, amount in rows]
    if keep:
        lines.append(tr("Play goes on for the {amount} left.", amount=chips(keep)))
    return "\n".join(lines)


def deal_asked(posted: bool) -> str:
    """PRIVATE, to whoever asked for the deal."""
    if posted:
        return tr("The deal is proposed at the final table; play waits for the answers.")
    return tr("The deal will be proposed when the hand in progress is over; no new hand is dealt meanwhile.")


def deal_you_accepted() -> str:
    return tr("You accepted the deal.")


def deal_you_declined() -> str:
    return tr("You declined the deal; play goes on.")


DEAL_ACCEPT = N_("Accept the deal")
DEAL_DECLINE = N_("Decline")


def checkin_line(opens_at: int) -> str:
    """PUBLIC, on a scheduled tournament's announcement: when check-in opens (a Discord timestamp)."""
    return tr(
        "✅ Check-in opens <t:{at}:R>: registered players who have not checked in at the start are unregistered and "
        "refunded.",
        at=opens_at,
    )


def checked_in_now(title: str) -> str:
    return tr("You are checked in for **{title}**.", title=title)
