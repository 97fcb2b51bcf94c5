"""Revealing a finished hand's whole deal to its players, with everyone's consent.

After a hand, a player may see the public play and his own cards; the full deal (the seed, the shoe, every hand) is
for moderators. ``/pan reveal hand:N`` records one player's consent to show that hand's whole deal to the players
of the hand; once **every** person dealt into it has consented (computer players have no cards to hide from
anyone), each of them may see it: every hand in the readable transcript, and the hand's machine notation.

Consents are stored in the table's meta (``reveals``: hand number -> consenting ids), so they survive a restart;
the in-memory copy is filled from it before the first read (:meth:`RevealService.load`). No discord import.
"""

from __future__ import annotations

import json
from collections.abc import Collection

from pancog.game.errors import PanError
from pancog.game.i18n import N_
from pancog.services.replay import ReplayService
from pancog.services.store import TableStore
from pancog.services.tables import NoTableHere

__all__ = ["HandNotOver", "NotDealtIn", "Reveal", "RevealService"]

META_KEY = "reveals"


class HandNotOver(PanError):
    code = "hand_not_over"

    def __init__(self) -> None:
        super().__init__(N_("A hand can be revealed once it is over."))


class NotDealtIn(PanError):
    code = "not_dealt_in"

    def __init__(self) -> None:
        super().__init__(N_("Only the players of that hand can agree to reveal it."))


class Reveal:
    """One hand's consents: who was dealt in, who agreed."""

    __slots__ = ("agreed", "dealt", "hand_no")

    def __init__(self, hand_no: int, dealt: Collection[int], agreed: Collection[int]) -> None:
        self.hand_no = hand_no
        self.dealt = frozenset(dealt)
        self.agreed = frozenset(agreed)

    @property
    def waiting(self) -> frozenset[int]:
        """The people dealt in who have not agreed yet (computer players never hold a hand back)."""
        return frozenset(p for p in self.dealt if p > 0 and p not in self.agreed)

    @property
    def complete(self) -> bool:
        return not self.waiting


class RevealService:
    """Consents to reveal finished hands, per table (stored in the table's meta)."""

    def __init__(self, store: TableStore, replays: ReplayService) -> None:
        self.store = store
        self.replays = replays
        self._reveals: dict[int, dict[int, Reveal]] = {}  # table -> hand -> consents
        self._loaded: set[int] = set()

    async def load(self, table_id: int) -> None:
        """Read the table's stored consents once (before :meth:`revealed_to` can answer for it)."""
        if table_id in self._loaded:
            return
        row = await self.store.get_table(table_id)
        if row is None:
            raise NoTableHere
        try:
            stored = json.loads(row.meta or "{}").get(META_KEY, {})
        except (ValueError, AttributeError):
            stored = {}
        hands: dict[int, Reveal] = {}
        if isinstance(stored, dict):
            for key, value in stored.items():
                if isinstance(value, dict) and str(key).isdigit():
                    dealt = [int(p) for p in value.get("dealt", []) if isinstance(p, int)]
                    agreed = [int(p) for p in value.get("agreed", []) if isinstance(p, int)]
                    hands[int(key)] = Reveal(int(key), dealt, agreed)
        self._reveals[table_id] = hands | self._reveals.get(table_id, {})
        self._loaded.add(table_id)

    async def consent(self, table_id: int, hand_no: int, user_id: int) -> Reveal:
        """``user_id`` agrees to reveal hand ``hand_no`` of the table to its players.

        Raises:
            NoTableHere, HandNotFound, HandNotOver, NotDealtIn.
        """
        await self.load(table_id)
        log = await self.replays.log(table_id)
        summary = log.find(hand_no).summary
        if not summary.finished:
            raise HandNotOver
        if user_id not in summary.dealt:
            raise NotDealtIn
        old = self._reveals.setdefault(table_id, {}).get(hand_no)
        agreed = {user_id, *(old.agreed if old is not None else ())}
        reveal = Reveal(hand_no, summary.dealt, agreed)
        stored = {str(n): {"dealt": sorted(r.dealt), "agreed": sorted(r.agreed)} for n, r in self._all(table_id)}
        stored[str(hand_no)] = {"dealt": sorted(reveal.dealt), "agreed": sorted(reveal.agreed)}
        await self.store.merge_meta(table_id, META_KEY, stored)
        self._reveals[table_id][hand_no] = reveal
        return reveal

    def _all(self, table_id: int) -> list[tuple[int, Reveal]]:
        return sorted(self._reveals.get(table_id, {}).items())

    def state(self, table_id: int, hand_no: int) -> Reveal | None:
        return self._reveals.get(table_id, {}).get(hand_no)

    def revealed_to(self, table_id: int, hand_no: int) -> frozenset[int]:
        """The players who may see hand ``hand_no``'s whole deal: everyone dealt in, once all of them agreed;
        else nobody (also before :meth:`load`)."""
        reveal = self.state(table_id, hand_no)
        if reveal is None or not reveal.complete:
            return frozenset()
        return reveal.dealt
