"""Watching with consent: a player lets one named member see their cards live, for the hand in progress.

A grant is the player's own decision (``/pan settings share_hand:@member``) and is announced at the table. It
lasts until the hand ends, the player leaves the table or revokes it, or the table closes, whichever comes first;
while it lasts the watcher cannot sit at that table (:meth:`WatchService.verify_seat`, a seat guard of the table
service) — seeing one player's cards must never help a seat. Grants live in memory only: a restart ends them
(nobody sees more than before).

Validity is checked on every read, not only by the table listener, so a missed notification cannot extend a grant:
:meth:`WatchService.watched_hand` answers only while the granting player is still dealt into the same hand.
No discord import: ids are ints.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from pancog.game.cards import Card
from pancog.game.errors import PanError
from pancog.game.events import HandEnded, SeatLeft
from pancog.game.i18n import N_
from pancog.game.state import Phase, PlayerStatus
from pancog.services.tables import Applied, NoTableHere, TableClosed, TableService, TableSession

__all__ = [
    "CannotWatchSelf",
    "ComputerCannotWatch",
    "Grant",
    "GrantEnd",
    "NotInHand",
    "NotSharing",
    "NotWatching",
    "WatchService",
    "WatchedHand",
    "WatcherCannotSit",
    "WatcherSeated",
]

log = logging.getLogger("pan.watch")


class CannotWatchSelf(PanError):
    code = "watch_self"

    def __init__(self) -> None:
        super().__init__(N_("You already see your own hand: name another member."))


class ComputerCannotWatch(PanError):
    code = "watch_computer"

    def __init__(self) -> None:
        super().__init__(N_("A computer player cannot watch a hand."))


class WatcherSeated(PanError):
    code = "watcher_seated"

    def __init__(self) -> None:
        super().__init__(
            N_("That member is seated at this table: you can share your hand only with someone not playing here.")
        )


class NotInHand(PanError):
    code = "not_in_hand"

    def __init__(self) -> None:
        super().__init__(N_("You can share your hand only while you are playing one at this table."))


class NotSharing(PanError):
    code = "not_sharing"

    def __init__(self) -> None:
        super().__init__(N_("You are not sharing your hand at this table."))


class NotWatching(PanError):
    code = "not_watching"

    def __init__(self) -> None:
        super().__init__(N_("Nobody is sharing their hand with you at this table right now."))


class WatcherCannotSit(PanError):
    code = "watcher_cannot_sit"

    def __init__(self) -> None:
        super().__init__(
            N_(
                "You are watching a player's hand at this table, so you cannot sit here until that hand ends "
                "or they stop sharing it."
            )
        )


class GrantEnd(StrEnum):
    REVOKED = "revoked"
    REPLACED = "replaced"  # the player named another watcher
    HAND_ENDED = "hand_ended"
    LEFT = "left"  # the player left the table
    CLOSED = "closed"  # the table is gone


@dataclass(frozen=True, slots=True, kw_only=True)
class Grant:
    table_id: int
    player_id: int
    watcher_id: int
    hand_no: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WatchedHand:
    """READ-ONLY, PRIVATE to the watcher: the watched player's cards now, and the face-up card if it is his turn."""

    grant: Grant
    seat: int
    cards: tuple[Card, ...]
    drawn: Card | None


EndListener = Callable[[Grant, GrantEnd], None]


class WatchService:
    """The grants of every table (at most one watcher per player). Call :meth:`start` once the table service exists."""

    def __init__(self, tables: TableService) -> None:
        self.tables = tables
        self._grants: dict[tuple[int, int], Grant] = {}  # (table, player) -> grant
        self._end_listeners: list[EndListener] = []
        self._started = False

    def start(self) -> None:
        """Listen to the tables (hand ends, players leaving). The seat guard (:meth:`verify_seat`) and the end of a
        closed table's grants (:meth:`table_closed`) are the composition root's to register with the table
        service."""
        if not self._started:
            self.tables.subscribe(self._on_applied)
            self._started = True

    def stop(self) -> None:
        if self._started:
            self.tables.unsubscribe(self._on_applied)
            self._started = False

    def on_end(self, listener: EndListener) -> None:
        """Call ``listener(grant, why)`` when a grant ends (e.g. to tell the watcher and the table)."""
        self._end_listeners.append(listener)

    # ------------------------------------------------------------------ the player's side

    def grant(self, table_id: int, player_id: int, watcher_id: int) -> tuple[Grant, Grant | None]:
        """Let ``watcher_id`` see ``player_id``'s cards for the hand in progress; returns (the grant, the one it
        replaced, if any).

        Raises:
            NoTableHere, NotInHand, CannotWatchSelf, ComputerCannotWatch, WatcherSeated.
        """
        session = self.tables.get(table_id)
        if watcher_id == player_id:
            raise CannotWatchSelf
        if watcher_id < 0:
            raise ComputerCannotWatch
        seat = session.find_seat(player_id)
        hand = session.state.hand
        if seat is None or hand is None or not _dealt_in(session, seat):
            raise NotInHand
        if session.find_seat(watcher_id) is not None:
            raise WatcherSeated
        new = Grant(table_id=table_id, player_id=player_id, watcher_id=watcher_id, hand_no=hand.hand_no)
        old = self._grants.get((table_id, player_id))
        self._grants[(table_id, player_id)] = new
        if old is not None and old != new:
            self._ended(old, GrantEnd.REPLACED)
            return new, old
        return new, None

    def revoke(self, table_id: int, player_id: int) -> Grant:
        """End ``player_id``'s grant at this table.

        Raises:
            NotSharing: there is none.
        """
        grant = self.active(table_id, player_id)
        if grant is None:
            raise NotSharing
        del self._grants[(table_id, player_id)]
        self._ended(grant, GrantEnd.REVOKED)
        return grant

    # ------------------------------------------------------------------ the watcher's side

    def active(self, table_id: int, player_id: int) -> Grant | None:
        """The player's grant at this table if it still holds (an expired one is dropped now)."""
        grant = self._grants.get((table_id, player_id))
        if grant is None:
            return None
        why = self._expired(grant)
        if why is not None:
            del self._grants[(table_id, player_id)]
            self._ended(grant, why)
            return None
        return grant

    def watching(self, table_id: int, watcher_id: int) -> tuple[Grant, ...]:
        """The grants naming ``watcher_id`` at this table that still hold."""
        found = [g for (t, p), g in list(self._grants.items()) if t == table_id and g.watcher_id == watcher_id]
        return tuple(g for g in found if self.active(g.table_id, g.player_id) is not None)

    def watched_hand(self, table_id: int, watcher_id: int, player_id: int | None = None) -> WatchedHand:
        """PRIVATE to the watcher: the cards of the player who shares them with ``watcher_id`` (``player_id`` picks
        one when several do).

        Raises:
            NotWatching: no grant to this watcher holds (or not from ``player_id``).
        """
        grants = [g for g in self.watching(table_id, watcher_id) if player_id is None or g.player_id == player_id]
        if not grants:
            raise NotWatching
        grant = grants[0]
        session = self.tables.get(table_id)
        seat = session.seat_of(grant.player_id)
        hand = session.state.hand
        player = hand.players[seat] if hand is not None else None
        if hand is None or player is None:  # pragma: no cover - ruled out by active()
            raise NotWatching
        turn = hand.turn
        drawn = turn.drawn if turn is not None and turn.seat == seat else None
        return WatchedHand(grant=grant, seat=seat, cards=player.hand, drawn=drawn)

    def verify_seat(self, session: TableSession, user_id: int) -> None:
        """The table service's seat guard: a member watching a hand at this table may not sit here.

        Raises:
            WatcherCannotSit.
        """
        if self.watching(session.table_id, user_id):
            raise WatcherCannotSit

    # ------------------------------------------------------------------ ending

    def _expired(self, grant: Grant) -> GrantEnd | None:
        try:
            session = self.tables.get(grant.table_id)
        except NoTableHere:
            return GrantEnd.CLOSED
        seat = session.find_seat(grant.player_id)
        if seat is None:
            return GrantEnd.LEFT
        hand = session.state.hand
        if hand is None or hand.hand_no != grant.hand_no or hand.phase is Phase.OVER:
            return GrantEnd.HAND_ENDED
        if not _dealt_in(session, seat):
            return GrantEnd.LEFT
        return None

    def table_closed(self, closed: TableClosed) -> None:
        """A table closed (``TableService.on_close``): every grant at it ends now (``GrantEnd.CLOSED``)."""
        for key, grant in list(self._grants.items()):
            if grant.table_id == closed.table_id:
                del self._grants[key]
                self._ended(grant, GrantEnd.CLOSED)

    def _on_applied(self, applied: Applied) -> None:
        table_id = applied.session.table_id
        ended = any(isinstance(e, HandEnded) for e in applied.events)
        left = {e.player_id for e in applied.events if isinstance(e, SeatLeft)}
        if not ended and not left:
            return
        for key, grant in list(self._grants.items()):
            if grant.table_id != table_id:
                continue
            if ended or grant.player_id in left:
                del self._grants[key]
                self._ended(grant, GrantEnd.HAND_ENDED if ended else GrantEnd.LEFT)

    def _ended(self, grant: Grant, why: GrantEnd) -> None:
        for listener in self._end_listeners:
            try:
                listener(grant, why)
            except Exception:
                log.exception("table %s: grant end listener failed", grant.table_id)


def _dealt_in(session: TableSession, seat: int) -> bool:
    hand = session.state.hand
    if hand is None or hand.phase is Phase.OVER:
        return False
    player = hand.players[seat] if seat < len(hand.players) else None
    return player is not None and player.status is not PlayerStatus.QUIT
