"""Final-table deals: a remaining player (or the host) proposes a chip chop or an ICM split of the prizes still to be
won (:mod:`.chop`); play waits; every player left accepts it once (computer players accept at once) or anyone of them
declines it; when all have accepted, the amounts are paid from escrow in one journal and the tournament ends — or,
when a part was left to play for, play goes on and the winner takes that part at the finish.

The proposal is stored (migration V17, ``tournament_deals``) with the step that makes it, so a restart finds it: play
still waits, the buttons still answer. A proposal asked for during a hand is computed when the hand is over (the
stacks are then final), before the next deal.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from pancog.game.i18n import N_
from pancog.infra.storage.base import StorageTx

from . import chop, purse, rules
from .core import Core, Post, Rows
from .deal_events import DealAccepted, DealDeclined, DealDone, DealProposed
from .errors import BadDeal, DealAlreadyAccepted, NoDeal, NotInDeal, NotTournamentHost
from .floor import Floor
from .model import Status, Tournament
from .payouts import prizes
from .ranking import Finish

__all__ = ["Deal", "DealDesk"]

KINDS = ("chip", "icm")


@dataclass(slots=True, kw_only=True)
class Deal:
    kind: str
    keep: int
    proposer: int
    status: str = "asked"  # asked (waits for the hand) | proposed | accepted
    amounts: dict[int, int] = field(default_factory=dict)  # entry id -> bank chips dealt
    stacks: dict[int, int] = field(default_factory=dict)  # entry id -> tournament chips when computed
    accepted: set[int] = field(default_factory=set)  # player ids


_COLS = "tournament_id, kind, keep_chips, proposer, status, amounts, stacks, accepted"


class DealDesk:
    """The deals of every tournament (one per service)."""

    def __init__(self, core: Core, floor: Floor) -> None:
        self.core = core
        self.floor = floor
        self.deals: dict[int, Deal] = {}

    # ------------------------------------------------------------------ storage

    async def load(self, tx: StorageTx, tournament_ids: Sequence[int]) -> None:
        wanted = set(tournament_ids)
        for r in await tx.fetchall(f"SELECT {_COLS} FROM tournament_deals"):  # noqa: S608
            if int(r[0]) in wanted:
                self.deals[int(r[0])] = Deal(
                    kind=str(r[1]),
                    keep=int(r[2]),
                    proposer=int(r[3]),
                    status=str(r[4]),
                    amounts={int(k): int(v) for k, v in json.loads(str(r[5])).items()},
                    stacks={int(k): int(v) for k, v in json.loads(str(r[6])).items()},
                    accepted={int(p) for p in json.loads(str(r[7]))},
                )

    def _row(self, tournament_id: int, deal: Deal | None) -> Rows:
        async def write(tx: StorageTx) -> None:
            if deal is None:
                await tx.execute("DELETE FROM tournament_deals WHERE tournament_id = ?", (tournament_id,))
                return
            await tx.execute(
                f"INSERT INTO tournament_deals ({_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "  # noqa: S608
                "ON CONFLICT (tournament_id) DO UPDATE SET kind = excluded.kind, keep_chips = excluded.keep_chips, "
                "proposer = excluded.proposer, status = excluded.status, amounts = excluded.amounts, "
                "stacks = excluded.stacks, accepted = excluded.accepted",
                (
                    tournament_id,
                    deal.kind,
                    deal.keep,
                    deal.proposer,
                    deal.status,
                    json.dumps({str(k): v for k, v in sorted(deal.amounts.items())}),
                    json.dumps({str(k): v for k, v in sorted(deal.stacks.items())}),
                    json.dumps(sorted(deal.accepted)),
                ),
            )

        return write

    async def _store(self, t: Tournament, deal: Deal | None, posts: Sequence[Post] = ()) -> None:
        """Write the deal's row (with ``posts``) in one transaction, then keep it in memory."""
        await self.core.commit(self.core.draft(t), posts, rows=[self._row(t.tournament_id, deal)])
        if deal is None:
            self.deals.pop(t.tournament_id, None)
        else:
            self.deals[t.tournament_id] = deal

    # ------------------------------------------------------------------ what players do

    def remaining_prizes(self, t: Tournament) -> list[int]:
        """The prizes of places 1..n still to be won by the n players left."""
        table = prizes(rules.prize_pool(t), t.paid_entries, t.config.payouts or None)
        n = len(t.alive())
        return [table[i] if i < len(table) else 0 for i in range(n)]

    async def propose(self, t: Tournament, user_id: int, kind: str, keep: int, *, moderator: bool) -> Deal:
        """Ask for a deal (with the lock). Computed now between hands, else when the hand in progress is over.

        Raises:
            BadDeal (not at the final table, a deal pending or done, a part to play for out of range),
            NotTournamentHost (neither a player left, the host nor a moderator).
        """
        players = {e.player_id for e in t.alive()}
        if user_id not in players and user_id != t.host_id and not moderator:
            raise NotTournamentHost
        if kind not in KINDS:
            raise BadDeal(N_("A deal is a chip chop (chip) or an ICM split (icm)."))
        if t.status is not Status.RUNNING or len(t.open_tables()) != 1 or len(players) < 2:
            raise BadDeal(N_("A deal is made at the final table, by the players left there."))
        if self.floor.clock.registration_open(t):
            raise BadDeal(N_("A deal waits until registration has closed."))
        level = self.floor.clock.now(t).level
        if purse.rebuy_open(t.config, level) or purse.addon_open(t.config, level):
            # rebuys and the add-on still grow the pool (and shrink a guarantee's overlay): the prizes are not final
            raise BadDeal(N_("A deal waits until the rebuy period is over."))
        if t.tournament_id in self.deals:
            raise BadDeal(N_("This tournament already has a deal (proposed or made)."))
        if not 0 <= keep <= chop.max_keep(self.remaining_prizes(t)):
            raise BadDeal(N_("What is left to play for is at most the first prize minus the second."))
        await self._store(t, Deal(kind=kind, keep=keep, proposer=user_id))
        await self.hold(t)
        return self.deals[t.tournament_id]

    async def hold(self, t: Tournament) -> bool:
        """Between hands: True while a deal waits for answers (no new hand is dealt); a deal asked for during the
        last hand is computed and proposed now."""
        deal = self.deals.get(t.tournament_id)
        if deal is None or deal.status == "accepted" or t.status is not Status.RUNNING:
            return False
        if deal.status == "proposed":
            return True
        if self.floor.hands_in_progress(t) or any(self.floor.seated_at(t, e.player_id) is None for e in t.alive()):
            return True  # computed when the hand is over (or everyone is seated)
        stacks = {e.entry_id: self.floor.chips_of(t, e.player_id) for e in t.alive()}
        amounts = chop.split(deal.kind, stacks, self.remaining_prizes(t), deal.keep)
        bots = {t.entries[k].player_id for k in stacks if t.entries[k].player_id < 0}
        made = dataclasses.replace(deal, status="proposed", amounts=amounts, stacks=stacks, accepted=bots)
        await self._store(t, made)
        shares = tuple(
            (t.entries[k].player_id, stacks[k], amounts[k]) for k in sorted(stacks, key=lambda k: (-stacks[k], k))
        )
        self.core.emit(DealProposed(t.tournament_id, made.kind, made.keep, shares, self._waiting(t, made)))
        if not self._waiting(t, made):
            await self._settle(t, made)
        return t.status is Status.RUNNING and self.deals[t.tournament_id].status != "accepted"

    def _waiting(self, t: Tournament, deal: Deal) -> tuple[int, ...]:
        return tuple(
            t.entries[k].player_id for k in sorted(deal.amounts) if t.entries[k].player_id not in deal.accepted
        )

    async def accept(self, t: Tournament, player_id: int) -> Deal:
        """A player left accepts (with the lock); the last acceptance settles the deal.

        Raises:
            NoDeal, NotInDeal (a bystander), DealAlreadyAccepted (a second click).
        """
        deal = self.deals.get(t.tournament_id)
        if deal is None or deal.status != "proposed":
            raise NoDeal
        if player_id not in {t.entries[k].player_id for k in deal.amounts}:
            raise NotInDeal
        if player_id in deal.accepted:
            raise DealAlreadyAccepted
        now = dataclasses.replace(deal, accepted=deal.accepted | {player_id})
        waiting = self._waiting(t, now)
        if waiting:
            await self._store(t, now)
            self.core.emit(DealAccepted(t.tournament_id, player_id, waiting))
        else:
            await self._settle(t, now)
        return self.deals.get(t.tournament_id, now)

    async def decline(self, t: Tournament, user_id: int, *, moderator: bool) -> None:
        """A player left (or the host, a moderator) declines a deal not yet made: it is withdrawn, play goes on."""
        deal = self.deals.get(t.tournament_id)
        if deal is None or deal.status == "accepted":
            raise NoDeal
        players = {e.player_id for e in t.alive()}
        if user_id not in players and user_id != t.host_id and not moderator:
            raise NotInDeal
        await self._store(t, None)
        self.core.emit(DealDeclined(t.tournament_id, user_id))
        self.core.spawn(self.floor.after_hand(t))

    # ------------------------------------------------------------------ paying

    async def _settle(self, t: Tournament, deal: Deal) -> None:
        """Everyone accepted: with nothing left to play for, the tournament ends on the deal (one journal pays the
        dealt amounts and the earlier places' prizes); else the dealt amounts are paid now and play goes on."""
        done = dataclasses.replace(deal, status="accepted")
        paid = tuple((t.entries[k].player_id, v) for k, v in sorted(done.amounts.items()))
        if done.keep == 0:
            self._settling = (t.tournament_id, done)
            try:
                await self.floor.finish(t)
            finally:
                self._settling = None
            self.deals[t.tournament_id] = done
        else:
            house = await self.floor.cashier.house_balance(t)
            legs = purse.deal_legs(t, {k: v for k, v in done.amounts.items() if v}, house_balance=house)
            await self._store(t, done, [(legs, "deal", "tournament deal")])
            self.core.spawn(self.floor.after_hand(t))
        self.core.emit(DealDone(t.tournament_id, paid, done.keep))

    _settling: tuple[int, Deal] | None = None

    def brought_overlay(self, t: Tournament) -> bool:
        """True when an accepted deal's journal already brought the guarantee's overlay (a part was left to play for):
        the finish must not bring it again."""
        deal = self.deals.get(t.tournament_id)
        return deal is not None and deal.status == "accepted" and deal.keep > 0

    def at_finish(
        self, t: Tournament, won: dict[int, int], finishes: Sequence[Finish]
    ) -> tuple[dict[int, int], dict[int, int], list[Rows]]:
        """The finish's prizes with a deal: (each entry's prize, what the finish pays now, rows to write). Without an
        accepted deal, the places' prizes, all paid now."""
        settling = self._settling
        deal = settling[1] if settling is not None and settling[0] == t.tournament_id else None
        if deal is not None:  # the deal ends the tournament: its amounts replace the top places' prizes
            total = {k: v for k, v in won.items() if k not in deal.amounts} | dict(deal.amounts)
            return total, dict(total), [self._row(t.tournament_id, deal)]
        deal = self.deals.get(t.tournament_id)
        if deal is None or deal.status != "accepted":
            return won, dict(won), []
        first = next(f.entry_id for f in finishes if f.place == 1)
        total = {k: v for k, v in won.items() if k not in deal.amounts}
        for k, v in deal.amounts.items():
            total[k] = v + (deal.keep if k == first else 0)
        now = {k: v - deal.amounts.get(k, 0) for k, v in total.items()}
        return total, now, []
