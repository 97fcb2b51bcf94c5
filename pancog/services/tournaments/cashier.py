"""The cashier of a running tournament: rebuys and the add-on, knock-out bounties, the overlay of a guaranteed pool
and the finish's bounties (the rules and their postings: :mod:`.purse`).

A rebuy commits its entry row and its one journal (the buy-in into escrow, a starting stack issued into the player's
tournament bank) before anything changes in memory; the chips reach the player's stack at the table as soon as that
table is between hands (:meth:`Cashier.top_up`, run at every step between hands, so a restart finishes it too).
"""

from __future__ import annotations

import contextlib

from pancog.game.actions import Rebuy
from pancog.game.errors import PanError
from pancog.infra.storage.base import Account, Posting
from pancog.services.tables import NoTableHere, TableSession

from . import purse, rules
from .clock import Clock
from .core import Core, Draft, Post
from .errors import TournamentNotRunning
from .model import Entry, EntryStatus, Status, Tournament, TTable

__all__ = ["BOUNTY_REASON", "Cashier", "Knockout"]


BOUNTY_REASON = "tournament knock-out bounty"  # the journal reason of a knock-out's bounties


class Knockout:
    """The bounties of one knock-out hand at one table: who collected what (entry ids)."""

    def __init__(self) -> None:
        self.paid: dict[int, tuple[int, int]] = {}  # busted entry id -> (chips paid, eliminator's player id)

    def of(self, entry_id: int) -> tuple[int, int | None]:
        amount, player = self.paid.get(entry_id, (0, 0))
        return amount, (player if amount else None)


class Cashier:
    """Rebuys, add-ons, bounties and the finish's extra money of every tournament (one per service)."""

    def __init__(self, core: Core, clock: Clock) -> None:
        self.core = core
        self.clock = clock
        self.tables = core.tables

    # ------------------------------------------------------------------ rebuys and the add-on

    def _stack(self, t: Tournament, player_id: int) -> int:
        for tt in t.open_tables():
            with contextlib.suppress(NoTableHere):
                session = self.tables.get(tt.table_id)
                seat = session.find_seat(player_id)
                s = session.state.seats[seat] if seat is not None else None
                if s is not None:
                    return s.stack
        return 0

    async def _pending(self, t: Tournament, player_ids: list[int]) -> dict[int, int]:
        """Tournament chips bought but not yet at the table (in the players' tournament banks)."""
        scope = rules.chips_scope(t)
        accounts = [Account.bank(scope, p) for p in player_ids]
        if not accounts:
            return {}
        balances = await self.core.ledger.balances(accounts)
        return {p: balances[a] for p, a in zip(player_ids, accounts, strict=True)}

    async def rebuy(self, t: Tournament, player_id: int, *, addon: bool) -> Entry:
        """A rebuy (or the add-on): one journal and the entry's row (with the lock). The chips reach the table at the
        next step between hands (:meth:`top_up`; the caller asks for one): a rebuy holds the tournament's lock for one
        transaction, not for a wait on every table where bought chips are pending — 200 add-ons at the end of the
        rebuy period would otherwise queue for minutes behind one another.

        Raises:
            TournamentNotRunning, NotRegistered, RebuyRefused, InsufficientChips (nothing changed).
        """
        if t.status is not Status.RUNNING:
            raise TournamentNotRunning
        level = self.clock.now(t).level
        if addon:
            entry = purse.check_addon(t, player_id, level=level)
        else:
            held = self._stack(t, player_id) + (await self._pending(t, [player_id]))[player_id]
            entry = purse.check_rebuy(t, player_id, level=level, stack=held)
        draft = self.core.draft(t)
        changed = draft.entry(entry.entry_id)
        if addon:
            changed.addons += 1
            key, reason = f"addon:{entry.entry_id}", "tournament add-on"
        else:
            changed.rebuys += 1
            key, reason = f"rebuy:{entry.entry_id}:{changed.rebuys}", "tournament rebuy"
        await self.core.commit(draft, [(purse.rebuy_legs(t, player_id), key, reason)])
        return t.entries[entry.entry_id]

    async def top_up(self, t: Tournament) -> None:
        """Bring bought chips to the stacks of players whose table is between hands (re-derivable: the chips wait
        in the player's tournament bank until then)."""
        buyers = [e for e in t.alive() if e.rebuys or e.addons]
        if not buyers:
            return
        pending = await self._pending(t, [e.player_id for e in buyers])
        for e in buyers:
            amount = pending.get(e.player_id, 0)
            tt = t.tables.get(e.table_no) if e.table_no is not None else None
            if amount <= 0 or tt is None:
                continue
            with contextlib.suppress(NoTableHere):
                session = self.tables.get(tt.table_id)
                seat = session.find_seat(e.player_id)
                if seat is not None and not session.in_hand:
                    await self.tables.system_act(tt.table_id, Rebuy(seat=seat, amount=amount))

    # ------------------------------------------------------------------ bounties

    def knockout(self, draft: Draft, tt: TTable, session: TableSession, busted: list[Entry]) -> tuple[Post, Knockout]:
        """The bounties of entries put out by one hand at ``tt``: each goes to the hand's winner (the player who went
        out), in one journal. A hand without one winner (the tops split, a void hand) or whose winner has left the
        table leaves them unclaimed, on the busted heads: the tournament's winner collects them at the end."""
        t = draft.t
        ko = Knockout()
        last = session.state.last_hand
        winner_seat = last.winner if last is not None else None
        s = session.state.seat(winner_seat) if winner_seat is not None else None
        out_ids = {e.entry_id for e in busted}
        eliminator = next(
            (
                e
                for e in t.alive()
                if s is not None
                and e.player_id == s.player_id
                and e.entry_id not in out_ids
                # dealt in that hand at this table (not someone seated in that chair since)
                and e.entry_id in tt.hand_stacks
            ),
            None,
        )
        if eliminator is None or not t.config.bounty:
            return ([], "", ""), ko
        legs: dict[Account, int] = {}
        escrow = Account.escrow(t.tournament_id)
        bank = Account.bank(t.guild_id, eliminator.player_id)
        for e in busted:
            head = draft.entry(e.entry_id)
            if not head.bounty:
                continue
            paid, onto = purse.bounty_split(head.bounty, progressive=t.config.progressive)
            head.bounty, head.knocked_by = 0, eliminator.entry_id
            winner = draft.entry(eliminator.entry_id)
            winner.bounty += onto
            winner.bounty_won += paid
            legs[escrow] = legs.get(escrow, 0) - paid
            legs[bank] = legs.get(bank, 0) + paid
            ko.paid[e.entry_id] = (paid, eliminator.player_id)
        postings = [Posting(a, d) for a, d in sorted(legs.items()) if d]
        group = draft.t.bust_groups
        return (postings, f"bounty:{group}", BOUNTY_REASON), ko

    # ------------------------------------------------------------------ the finish

    def final_bounties(self, draft: Draft, winner_entry: int | None) -> dict[int, int]:
        """At the end the winner collects his own head and every unclaimed one (entry id -> chips)."""
        t = draft.t
        if winner_entry is None:
            return {}
        total = 0
        for e in list(t.entries.values()):
            if e.bounty and e.status in (EntryStatus.ALIVE, EntryStatus.OUT):
                total += e.bounty
                draft.entry(e.entry_id).bounty = 0
        if total:
            draft.entry(winner_entry).bounty_won += total
        return {winner_entry: total} if total else {}

    async def house_balance(self, t: Tournament) -> int:
        house = Account.house(t.guild_id)
        return (await self.core.ledger.balances([house]))[house]

    # ------------------------------------------------------------------ satellites

    def satellite(
        self, draft: Draft, target: Tournament, finishers: list[int]
    ) -> tuple[dict[int, int], list[Posting], Draft]:
        """A satellite's prizes: seats in ``target`` to the best ``finishers`` (entry ids in place order), each
        registered there with the target's buy-in moved from this escrow to the target's; the remainder in chips.
        A winner the target cannot take (already registered, out of entries, the target full or no longer taking
        registrations) gets the seat's value in chips. Returns (chips won by entry id, the seat postings, the target's
        draft); prizes are written on the satellite's entries (a seat counts its value)."""
        t = draft.t
        price = target.config.buy_in
        seats, chips = purse.satellite_seats(purse.payout_pool(t), price, finishers)
        also = self.core.draft(target)
        open_ = self.clock.registration_open(target)
        legs: list[Posting] = []
        won = dict(chips)
        for entry_id in seats:
            player = t.entries[entry_id].player_id
            try:
                rules.check_registration(also.t, player, open_=open_)
            except PanError:
                won[entry_id] = won.get(entry_id, 0) + price
                continue
            also.add_entry(
                Entry(
                    entry_id=len(also.t.entries) + 1,
                    player_id=player,
                    entry_no=len(also.t.entries_of(player)) + 1,
                    status=EntryStatus.REGISTERED,
                    created_ms=self.core.now_ms(),
                    bounty=target.config.bounty,
                )
            )
            legs += [
                Posting(Account.escrow(t.tournament_id), -price),
                Posting(Account.escrow(target.tournament_id), price),
            ]
        for entry_id in t.entries:
            if entry_id in seats or entry_id in chips or draft.t.entries[entry_id].prize:
                seat = price if entry_id in seats else 0
                draft.entry(entry_id).prize = seat + chips.get(entry_id, 0)
        return {k: v for k, v in won.items() if v}, legs, also
