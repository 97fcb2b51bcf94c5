"""Check-in for scheduled tournaments: during the last ``checkin_minutes`` before the start, registered players
confirm they are there (a button on the announcement, ``/tourney checkin``); at the start, the registered players who
did not are unregistered and refunded their whole buy-in, all of them in one journal (``tny:<T>:noshows``), in the
same transaction that stores them as refunded. Who checked in is stored (migration V17, ``tournament_checkins``), so a
restart forgets nobody.
"""

from __future__ import annotations

from collections.abc import Sequence

from pancog.game.i18n import N_
from pancog.infra.storage.base import Account, Posting, StorageTx

from . import rules
from .core import Core
from .errors import NotRegistered, RegistrationClosed
from .model import EntryStatus, Status, Tournament

__all__ = ["CheckIn"]


class CheckIn:
    """Who checked in, per tournament (one per service)."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.checked: dict[int, set[int]] = {}  # tournament id -> player ids

    async def load(self, tx: StorageTx, tournament_ids: Sequence[int]) -> None:
        wanted = set(tournament_ids)
        for r in await tx.fetchall("SELECT tournament_id, player_id FROM tournament_checkins"):
            if int(r[0]) in wanted:
                self.checked.setdefault(int(r[0]), set()).add(int(r[1]))

    def window(self, t: Tournament) -> tuple[int, int] | None:
        """(opens, closes) in epoch ms, None without check-in."""
        cfg = t.config
        if not cfg.checkin_minutes or cfg.start_at_ms is None:
            return None
        return cfg.start_at_ms - cfg.checkin_minutes * 60_000, cfg.start_at_ms

    def is_open(self, t: Tournament) -> bool:
        span = self.window(t)
        now = self.core.now_ms()
        return span is not None and t.status is Status.REGISTERING and span[0] <= now

    def checked_in(self, t: Tournament, player_id: int) -> bool:
        return player_id in self.checked.get(t.tournament_id, set())

    async def check_in(self, t: Tournament, player_id: int) -> None:
        """Check ``player_id`` in (with the lock).

        Raises:
            RegistrationClosed (no check-in, not open yet, or the tournament started), NotRegistered,
            AlreadyCheckedIn.
        """
        span = self.window(t)
        if span is None:
            raise RegistrationClosed(N_("This tournament has no check-in."))
        if t.status is not Status.REGISTERING:
            raise RegistrationClosed(N_("Check-in is over: the tournament has started."))
        if self.core.now_ms() < span[0]:
            raise RegistrationClosed(N_("Check-in has not opened yet (see the announcement)."))
        if not any(e.status is EntryStatus.REGISTERED for e in t.entries_of(player_id)):
            raise NotRegistered
        if self.checked_in(t, player_id):
            raise RegistrationClosed(N_("You are already checked in."))
        async with self.core.transaction(t) as tx:
            await tx.execute(
                "INSERT INTO tournament_checkins (tournament_id, player_id, checked_ms) VALUES (?, ?, ?)",
                (t.tournament_id, player_id, self.core.now_ms()),
            )
        self.checked.setdefault(t.tournament_id, set()).add(player_id)

    async def drop_no_shows(self, t: Tournament) -> dict[int, int]:
        """At the start: unregister and refund every registered player who did not check in (one journal, with the
        entries stored as refunded). Computer players are always there. Returns player id -> chips refunded."""
        span = self.window(t)
        if span is None or t.status is not Status.REGISTERING or self.core.now_ms() < span[0]:
            return {}  # an early start before check-in opened drops nobody
        here = self.checked.get(t.tournament_id, set())
        gone = [
            e
            for e in t.entries.values()
            if e.status is EntryStatus.REGISTERED and e.player_id > 0 and e.player_id not in here
        ]
        if not gone:
            return {}
        draft = self.core.draft(t)
        totals: dict[Account, int] = {}
        for e in gone:
            draft.entry(e.entry_id).status = EntryStatus.REFUNDED
            for leg in rules.refund_legs(t, e, fee_taken=0):
                totals[leg.account] = totals.get(leg.account, 0) + leg.delta
        legs = [Posting(a, d) for a, d in sorted(totals.items()) if d]
        await self.core.commit(draft, [(legs, "noshows", "tournament check-in: no-shows refunded")])
        refunds: dict[int, int] = {}
        for e in gone:
            refunds[e.player_id] = refunds.get(e.player_id, 0) + t.config.buy_in
        return refunds
