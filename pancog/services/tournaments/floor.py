"""The floor of a running tournament: it opens its tables (each in the adapter's channel, a thread), seats the
entries, issues their chips, balances and breaks tables between hands, puts busted players out, draws the final
table, deals each hand at the level's ante, and finishes the tournament with its prizes.

Everything here is re-derivable from the stored rows (:meth:`Floor.between_hands` makes the tables match the
entries), so a restart anywhere resumes exactly. Each change of the tournament is a committed step
(:meth:`~.core.Core.commit`); the table moves themselves go through the table service.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from typing import Protocol

from pancog.game import engine
from pancog.game.actions import SetAway, SetStakes, Sit, Stand, StartHand, Timeout
from pancog.game.errors import PanError
from pancog.infra.storage.base import Account, Posting
from pancog.services.tables import NoTableHere, TableConfig, TableSession

from . import purse, rules
from .balancer import BalanceTable, plan
from .bubble import on_bubble
from .cashier import BOUNTY_REASON, Cashier
from .clock import Clock
from .core import RESULTS_POST, ChannelFactory, Core, Rows
from .events import PlayerMoved, PlayerOut, PlayerSeated, TableOpened, TournamentFinished, TournamentStarted
from .model import Entry, EntryStatus, Format, Status, Tournament, TTable
from .ranking import Finish


class Deals(Protocol):
    """What the floor asks the final-table deals (:class:`~.deal.DealDesk`)."""

    async def hold(self, t: Tournament) -> bool: ...

    def at_finish(
        self, t: Tournament, won: dict[int, int], finishes: Sequence[Finish]
    ) -> tuple[dict[int, int], dict[int, int], list[Rows]]: ...

    def brought_overlay(self, t: Tournament) -> bool: ...


__all__ = ["Floor", "NotServedHere"]

log = logging.getLogger("pan.tournaments")


class NotServedHere(Exception):
    """The tournament's guild is on a shard this process does not own: its tables are another process's."""


class Floor:
    """The tables of every running tournament (one per service)."""

    def __init__(self, core: Core, clock: Clock, channels: ChannelFactory | None) -> None:
        self.core = core
        self.clock = clock
        self.tables = core.tables
        self.channels = channels  # where a new table is played (None: its own id)
        self._returning: set[tuple[int, int]] = set()  # (tournament, player) back from away, not yet stored
        self._waiting: set[int] = set()  # tournaments with a step between hands waiting for their lock
        self._cleared: set[tuple[int, int]] = set()  # (tournament, entry) out, unseated, leftover chips returned
        self.desk: Deals | None = None  # final-table deals (:meth:`keep_deals`): a proposal holds the next deal
        self.cashier = Cashier(core, clock)  # rebuys, add-ons, bounties, the overlay

    # ------------------------------------------------------------------ the start

    async def start(self, t: Tournament) -> None:
        """Draw the registered entries to their first tables, take the fees and start the clock (with the lock).
        Seating, opening the tables and the first deals follow on a background step."""
        tables, seating = rules.first_tables(t)
        draft = self.core.draft(t)
        for entry_id, table_no in seating.items():
            e = draft.entry(entry_id)
            e.status, e.table_no = EntryStatus.ALIVE, table_no
        for tt in tables:
            draft.add_table(tt)
        draft.t.status = Status.RUNNING
        draft.t.started_ms = self.core.now_ms()
        await self.core.commit(draft, [(rules.fee_legs(t, len(seating)), "fees", "tournament fees")])
        self.core.emit(TournamentStarted(t.tournament_id))
        # Seating every entry, opening the tables and the first deals run on a task (it takes the lock once this
        # step releases it): the caller (the host's /tourney start, the registration that filled a Sit & Go) is
        # answered now, not after 200 seatings. The state above is stored, so a crash before the task re-derives it
        # at kick(), like every step between hands.
        self.core.spawn(self.after_hand(t))

    # ------------------------------------------------------------------ between hands

    async def after_hand(self, t: Tournament) -> None:
        """The step between hands after a table's hand (or a rebuy, a withdrawn deal). Steps coalesce: while one waits
        for the tournament's lock, another is not queued behind it — the waiting one reads the tables when it runs, so
        it sees every hand that ended meanwhile. Without this, each of 25 tables ending a hand queued a full step over
        every table, and a player's rebuy or add-on waited behind all of them."""
        key = t.tournament_id
        if key in self._waiting:
            return
        self._waiting.add(key)
        try:
            async with self.core.lock(key):
                self._waiting.discard(key)  # from here on a hand that ends needs a step of its own
                if t.status is Status.RUNNING and self.core.tournaments.get(key) is t:
                    await self.between_hands(t)
        finally:
            self._waiting.discard(key)

    async def between_hands(self, t: Tournament) -> None:
        """Everything between hands, re-derivable at any time: busts, seats, balance, finish, deals."""
        await self.reconcile(t)
        await self.cashier.top_up(t)  # bought chips reach the stacks before anyone is judged out
        await self.close_emptied(t)
        await self.eliminate(t)
        if t.status is not Status.RUNNING:
            return
        if len(t.alive()) <= 1 and not self.clock.registration_open(t):
            await self.finish(t)
            return
        result = plan(self.picture(t), t.config.seats)
        if result.final_table:
            await self.final_table(t)
        elif result.moves or result.broken:
            draft = self.core.draft(t)
            for m in result.moves:
                e = draft.entry(m.entry_id)
                e.table_no, e.moves = m.to_table, e.moves + 1
            for n in result.broken:
                draft.table(n).status = "closed"
            await self.core.commit(draft)
            await self.reconcile(t)
            await self.close_emptied(t)
            for m in result.moves:
                self.core.emit(PlayerMoved(t.tournament_id, t.entries[m.entry_id].player_id, m.from_table, m.to_table))
        if not result.final_table and result.waiting and len(t.open_tables()) > 1 and len(t.alive()) <= t.config.seats:
            return  # the final table waits for the last hands in progress
        if self.desk is not None and await self.desk.hold(t):
            return  # a deal is proposed: no new hand until it is answered
        await self.deal_idle(t)

    def keep_deals(self, desk: Deals) -> None:
        """The final-table deals this floor asks before each deal and at the finish (the service's own)."""
        self.desk = desk

    def picture(self, t: Tournament) -> list[BalanceTable]:
        out = []
        for tt in t.open_tables():
            players = tuple((e.entry_id, e.moves) for e in t.alive() if e.table_no == tt.table_no)
            try:
                busy = self.tables.get(tt.table_id).in_hand
            except NoTableHere:
                busy = False
            out.append(BalanceTable(table_id=tt.table_no, players=players, busy=busy))
        return out

    async def session(self, t: Tournament, tt: TTable) -> TableSession:
        """The table service's table of ``tt``, opened (with its channel) if it is not open yet.

        The channel is created at most once per table: it is stored before the table opens, so a step that fails
        after creating it reuses it; and it is created only by the process that serves the tournament's guild.

        Raises:
            NotServedHere: the guild's shard is another process's (nothing created).
            ShardLeaseLost: this process lost the guild's shard (nothing created).
        """
        with contextlib.suppress(NoTableHere):
            return self.tables.get(tt.table_id)
        if not self.core.store.owns(t.guild_id):
            raise NotServedHere(f"tournament {t.tournament_id}: guild {t.guild_id} is another process's")
        channel = tt.channel_id
        if channel is None and self.channels is not None:
            await self.core.check_lease(t)
            channel = await self.channels(t, tt.table_no)
            draft = self.core.draft(t)
            draft.table(tt.table_no).channel_id = channel
            await self.core.commit(draft)
        cfg = t.config
        overrides = {"ante_chips": self.clock.now(t).ante, "min_buyin_chips": 1, "max_players": cfg.seats}
        config = TableConfig(
            preset=cfg.preset,
            overrides=tuple(sorted(overrides.items())),
            title=f"{cfg.title or 'Tournament'} {'final table' if tt.final else f'table {tt.table_no}'}",
        )
        session = await self.tables.open_table(
            tt.table_id,
            guild_id=t.guild_id,  # the guild's table: its settings, names, shard; only its chips are the tournament's
            channel_id=channel if channel is not None else tt.table_id,
            host_id=t.host_id,
            config=config,
            scope=rules.chips_scope(t),
        )
        players = tuple(e.player_id for e in t.alive() if e.table_no == tt.table_no)
        self.core.emit(TableOpened(t.tournament_id, tt.table_no, tt.table_id, players, tt.final))
        return session

    def is_open(self, table_id: int) -> bool:
        try:
            self.tables.get(table_id)
        except NoTableHere:
            return False
        return True

    def idle_tables(self, t: Tournament) -> list[tuple[TTable, TableSession]]:
        """The tournament's open tables that are open here and between hands, with their table service's table."""
        found = []
        for tt in t.open_tables():
            with contextlib.suppress(NoTableHere):
                session = self.tables.get(tt.table_id)
                if not session.in_hand:
                    found.append((tt, session))
        return found

    def seated_at(self, t: Tournament, player_id: int) -> TTable | None:
        for tt in t.tables.values():
            with contextlib.suppress(NoTableHere):
                if self.tables.get(tt.table_id).find_seat(player_id) is not None:
                    return tt
        return None

    def stacks(self, t: Tournament) -> dict[int, int]:
        """Player id -> stack of everyone seated at the tournament's tables (what :meth:`chips_of` gives one player).
        Every board's tournament line reads the standings: one pass over the seats, not over the tables per entry."""
        found: dict[int, int] = {}
        for tt in t.tables.values():
            with contextlib.suppress(NoTableHere):
                for s in self.tables.get(tt.table_id).state.seats:
                    if s is not None:
                        found.setdefault(s.player_id, s.stack)
        return found

    def chips_of(self, t: Tournament, player_id: int) -> int:
        """The player's stack at the tournament table they sit at (0 if not seated)."""
        tt = self.seated_at(t, player_id)
        if tt is None:
            return 0
        session = self.tables.get(tt.table_id)
        seat = session.state.seats[session.seat_of(player_id)]
        return seat.stack if seat is not None else 0

    async def reconcile(self, t: Tournament) -> None:
        """Make the tables match the entries: stand movers (between hands) and seat them where they belong."""
        await self.clear_out(t)
        for e in t.alive():
            if e.table_no == -1:  # a late entry found no room: open a new table
                no = max(t.tables) + 1
                draft = self.core.draft(t)
                draft.add_table(TTable(table_no=no, table_id=rules.derive(t.tournament_id, no)))
                draft.entry(e.entry_id).table_no = no
                await self.core.commit(draft)
            target = t.tables[e.table_no] if e.table_no is not None else None
            if target is None or target.status == "closed":
                continue
            here = self.seated_at(t, e.player_id)
            if here is not None and here.table_no == target.table_no:
                continue
            if here is not None:
                src = self.tables.get(here.table_id)
                if src.in_hand:
                    continue  # moves wait for the hand (the balancer never plans this; a restart might)
                await self.tables.system_act(here.table_id, Stand(seat=src.seat_of(e.player_id)))
            was_open = self.is_open(target.table_id)
            session = await self.session(t, target)
            held = await self._issue_chips(t, e, first=e.moves == 0 and here is None)
            state = session.state
            free = [
                i
                for i, s in enumerate(state.seats)
                if s is None and (state.hand is None or not session.in_hand or state.hand.players[i] is None)
            ]
            if held > 0:
                seat = rules.free_seat(t, e, free)
                await self.tables.system_act(target.table_id, Sit(player_id=e.player_id, buy_in=held, seat=seat))
                if was_open:  # a table that opens names its players itself (TableOpened)
                    sat = session.seat_of(e.player_id)
                    self.core.emit(PlayerSeated(t.tournament_id, e.player_id, target.table_no, sat, here is not None))

    async def _issue_chips(self, t: Tournament, e: Entry, *, first: bool) -> int:
        """Issue the entry's starting stack on its first seat (once: keyed by the entry); its chips in the bank."""
        chips = Account.bank(rules.chips_scope(t), e.player_id)
        async with self.core.transaction(t) as tx:
            if first:
                await self.core.post(
                    tx, t, (rules.chips_legs(t, e.player_id), f"chips:{e.entry_id}", "tournament chips")
                )
            return (await tx.balances([chips]))[chips]

    async def eliminate(self, t: Tournament) -> None:
        """Entries at idle tables that cannot cover the ante are out (ranked later by their start-of-hand stack).

        Each table's busts form one group (one hand) — except hand-for-hand on the bubble, where the busts wait until
        every table has finished its hand and then form one group together (different tables share the place)."""
        ante = self.clock.now(t).ante
        bubble = on_bubble(t, registration_open=self.clock.registration_open(t))
        found: list[list[tuple[Entry, TTable, int | None]]] = []
        for tt, session in self.idle_tables(t):
            out: list[tuple[Entry, TTable, int | None]] = []
            for e in t.alive():
                seat = session.find_seat(e.player_id) if e.table_no == tt.table_no else None
                s = session.state.seats[seat] if seat is not None else None
                if seat is None or s is None:
                    continue
                if s.away:  # the engine's away flag would keep them out of the deal: back in, away in the tournament
                    try:
                        await self.tables.system_act(tt.table_id, SetAway(seat=seat, away=False))
                    except PanError:  # they came back themselves (/pan back) while this waited for the table lock
                        pass
                    else:
                        away = self.core.draft(t)
                        away.entry(e.entry_id).away = True
                        await self.core.commit(away)
                if s.stack <= ante:
                    now = session.state.seats[seat]
                    out.append((e, tt, now.stack if now is not None else 0))
            if out:
                found.append(out)
        if bubble and self.hands_in_progress(t):
            found = []  # the round is not over: its busts are put out together once every table has finished
        elif bubble and found:
            found = [[bust for group in found for bust in group]]
        for out in found:
            await self._knock_out(t, out)
        await self.clear_out(t)

    async def _knock_out(self, t: Tournament, out: list[tuple[Entry, TTable, int | None]]) -> None:
        """Put out the entries of one hand (or one hand-for-hand round): one bust group, then the knock-out lines."""
        draft = self.core.draft(t)
        draft.t.bust_groups += 1
        for e, tt, stack_now in out:
            busted = draft.entry(e.entry_id)
            busted.status = EntryStatus.OUT
            busted.bust_group = draft.t.bust_groups
            # not dealt the last hand (seated after its deal): the stack now is the stack at its start
            busted.start_stack = tt.hand_stacks.get(e.entry_id, stack_now or 0)
            busted.end_stack = stack_now or 0
        # bounties: each table's hand winner collects his table's busts; a hand-for-hand round's in one journal
        by_table: dict[int, tuple[TTable, list[Entry]]] = {}
        for e, tt, _ in out:
            by_table.setdefault(tt.table_no, (tt, []))[1].append(e)
        legs: dict[Account, int] = {}
        paid: dict[int, tuple[int, int | None]] = {}
        for tt, busted_here in by_table.values():
            try:
                session = self.tables.get(tt.table_id)
            except NoTableHere:
                continue  # closed meanwhile: its bounties stay on the heads (the winner collects them at the end)
            (postings, _key, _reason), ko = self.cashier.knockout(draft, tt, session, busted_here)
            for posting in postings:
                legs[posting.account] = legs.get(posting.account, 0) + posting.delta
            for e in busted_here:
                paid[e.entry_id] = ko.of(e.entry_id)
        bounty = ([Posting(a, d) for a, d in sorted(legs.items()) if d], f"bounty:{draft.t.bust_groups}", BOUNTY_REASON)
        await self.core.commit(draft, [bounty])
        open_ = self.clock.registration_open(t)
        places = rules.knockout_places(t, [e.entry_id for e, _, _ in out])
        won = rules.knockout_prizes(t, places)
        for entry_id, (place, _tied) in places.items():
            player = t.entries[entry_id].player_id
            again = open_ and len(t.entries_of(player)) < t.config.entries_per_player
            prize = 0 if open_ else won[entry_id]
            amount, to = paid.get(entry_id, (0, None))
            self.core.emit(PlayerOut(t.tournament_id, player, entry_id, again, place, prize, amount, to))

    def hands_in_progress(self, t: Tournament) -> list[int]:
        """The open tables (numbers) still playing a hand."""
        busy = []
        for tt in t.open_tables():
            with contextlib.suppress(NoTableHere):
                if self.tables.get(tt.table_id).in_hand:
                    busy.append(tt.table_no)
        return busy

    def hand_for_hand(self, t: Tournament) -> tuple[int, ...] | None:
        """None unless the tournament plays hand-for-hand; else the tables the others wait for (empty: none)."""
        if t.status is not Status.RUNNING or not on_bubble(t, registration_open=self.clock.registration_open(t)):
            return None
        return tuple(self.hands_in_progress(t))

    async def clear_out(self, t: Tournament) -> None:
        """Entries that are out leave their table (between hands); what is left of their chips (less than an ante)
        goes back to the tournament's issued account. Re-derivable: a restart finishes what a crash interrupted."""
        latest: dict[int, Entry] = {}
        for e in t.entries.values():  # a player's latest entry speaks for the chips under their id
            if e.status is not EntryStatus.REFUNDED:
                latest[e.player_id] = e
        for e in latest.values():
            if e.status is not EntryStatus.OUT or (t.tournament_id, e.entry_id) in self._cleared:
                continue
            here = self.seated_at(t, e.player_id)
            if here is not None:
                session = self.tables.get(here.table_id)
                if session.in_hand:
                    continue
                await self.tables.system_act(here.table_id, Stand(seat=session.seat_of(e.player_id)))
            chips = Account.bank(rules.chips_scope(t), e.player_id)
            async with self.core.transaction(t) as tx:
                held = (await tx.balances([chips]))[chips]
                stub = rules.stub_legs(t, e.player_id, held)
                await self.core.post(tx, t, (stub, f"stub:{e.entry_id}", "tournament bust: leftover chips"))
            # done: not read again at every step (a restart forgets this and redoes it once, idempotently)
            self._cleared.add((t.tournament_id, e.entry_id))

    async def close_emptied(self, t: Tournament) -> None:
        """Close the table service's tables of broken tables once nobody sits there."""
        for tt in t.tables.values():
            if tt.status != "closed":
                continue
            with contextlib.suppress(NoTableHere):
                session = self.tables.get(tt.table_id)
                if not session.player_ids() and not session.in_hand:
                    await self.tables.close_system(tt.table_id)

    async def final_table(self, t: Tournament) -> None:
        no = max(t.tables) + 1
        draft = self.core.draft(t)
        for tt in t.open_tables():
            draft.table(tt.table_no).status = "closed"
        for e in t.alive():
            moved = draft.entry(e.entry_id)
            moved.table_no, moved.moves = no, moved.moves + 1
        draft.add_table(TTable(table_no=no, table_id=rules.derive(t.tournament_id, no), final=True))
        await self.core.commit(draft)
        await self.reconcile(t)
        await self.close_emptied(t)

    async def deal_idle(self, t: Tournament) -> None:
        """Deal the next hand at every idle table with two players who can pay the ante (the level's)."""
        now = self.clock.may_deal(t)
        if now is None:
            return
        if self.hand_for_hand(t):
            return  # hand-for-hand: no table deals before every table has finished its hand
        ante = now.ante
        dealing: list[tuple[TTable, TableSession]] = []
        draft = self.core.draft(t)
        for tt, session in self.idle_tables(t):
            if session.rules.ante_chips != ante:
                await self.tables.system_act(tt.table_id, SetStakes(ante_chips=ante))
            seated = [s for s in session.state.seats if s is not None and s.stack > ante]
            if len(seated) < 2:
                continue
            by_player = {e.player_id: e.entry_id for e in t.alive() if e.table_no == tt.table_no}
            draft.table(tt.table_no).hand_stacks = {
                by_player[s.player_id]: s.stack for s in seated if s.player_id in by_player
            }
            dealing.append((tt, session))
        if not dealing:
            return
        await self.core.commit(draft)  # every table's start-of-hand stacks in one transaction, not one per table
        for tt, session in dealing:
            seed = rules.derive(t.seed, tt.table_no, session.state.hand_no + 1)
            try:
                await self.tables.system_act(tt.table_id, StartHand(seed=seed), expect_seq=session.state.seq)
            except PanError as exc:
                log.info("tournament %s table %s: no deal: %s", t.tournament_id, tt.table_no, exc.message)

    # ------------------------------------------------------------------ the end

    async def close_tables(self, t: Tournament) -> None:
        """Mark every table closed first (a restart then never reopens one), then close them in the table service."""
        draft = self.core.draft(t)
        for no in t.tables:
            draft.table(no).status = "closed"
        await self.core.commit(draft)
        for tt in t.tables.values():
            with contextlib.suppress(NoTableHere):
                await self.tables.close_system(tt.table_id)

    async def finish(self, t: Tournament) -> None:
        """Rank the field, close the tables, pay the prizes from escrow (one journal) and end the tournament."""
        result = rules.results(t, [(e.entry_id, self.chips_of(t, e.player_id)) for e in t.alive()])
        won, now = dict(result.prizes), dict(result.prizes)
        rows: list[Rows] = []
        if self.desk is not None:  # a final-table deal replaces the top places' prizes (some perhaps paid already)
            won, now, rows = self.desk.at_finish(t, won, result.finishes)
        await self.close_tables(t)
        draft = self.core.draft(t)
        for f in result.finishes:
            e = draft.entry(f.entry_id)
            e.place, e.tied, e.prize = f.place, f.tied, won.get(f.entry_id, 0)
        draft.t.status = Status.FINISHED
        draft.t.finished_ms = self.core.now_ms()
        winner = next((f.entry_id for f in result.finishes if f.place == 1), None)
        bounties = self.cashier.final_bounties(draft, winner)
        house = await self.cashier.house_balance(t)
        results = (f"tny:{t.tournament_id}:results", RESULTS_POST, {"tournament_id": t.tournament_id})
        note = None
        if self.core.finish_hook is not None:  # the league's result rides on the prizes' journal: recorded once
            places, cashed = rules.player_places(t, result.finishes, {k: v for k, v in won.items() if v})
            note = self.core.finish_hook(t.guild_id, t.tournament_id, places, cashed)
        target = self.core.tournaments.get(t.config.satellite_for or 0)
        if target is None or target.guild_id != t.guild_id:
            due = self.desk is None or not self.desk.brought_overlay(t)
            legs = purse.finish_legs(
                t, {k: v for k, v in now.items() if v}, bounties, house_balance=house, overlay_due=due
            )
            await self.core.commit(draft, [(legs, "payouts", "tournament prizes")], [results], rows, note=note)
            self.core.emit(TournamentFinished(t.tournament_id, result.finishes, {k: v for k, v in won.items() if v}))
            return
        # a satellite: its seats are registered in the target in the same transaction as its payout journal
        async with self.core.lock(target.tournament_id):
            order = [f.entry_id for f in result.finishes]
            seat_won, seats, also = self.cashier.satellite(draft, target, order)
            due = self.desk is None or not self.desk.brought_overlay(t)
            legs = purse.finish_legs(t, seat_won, bounties, house_balance=house, seats=seats, overlay_due=due)
            post = (legs, "payouts", "satellite seats and prizes")
            await self.core.commit(draft, [post], [results], rows, note=note, also=[also])
            cfg = target.config
            registered = len([e for e in target.entries.values() if e.status is EntryStatus.REGISTERED])
            if cfg.format is Format.SNG and target.status is Status.REGISTERING and registered >= cfg.seats:
                await self.start(target)  # the seats filled the target Sit & Go
        prizes = {e.entry_id: e.prize for e in t.entries.values() if e.prize}
        self.core.emit(TournamentFinished(t.tournament_id, result.finishes, prizes))

    # ------------------------------------------------------------------ away players

    def away(self, t: Tournament) -> set[int]:
        """The players the tournament plays for (away, and not on their way back)."""
        return {e.player_id for e in t.alive() if e.away and (t.tournament_id, e.player_id) not in self._returning}

    def play_away(self, session: TableSession, t: Tournament) -> None:
        """An away player's turn: sluffed at once (a Timeout that only the table's state at that seq accepts)."""
        seat = engine.to_act(session.state)
        if seat is None:
            return
        s = session.state.seat(seat)
        if s is not None and s.player_id in self.away(t):
            self.core.spawn(self._timeout(session.table_id, seat, session.state.seq))

    async def _timeout(self, table_id: int, seat: int, seq: int) -> None:
        with contextlib.suppress(PanError):
            await self.tables.system_act(table_id, Timeout(seat=seat), expect_seq=seq)

    def came_back(self, t: Tournament, player_id: int) -> None:
        """The player took their own seat back (``SetAway(away=False)`` at the table): from this very transition on
        their turns are theirs again, and their entry is stored as back on a step (until it commits, the entry
        still reads away, but the floor no longer plays for them)."""
        back = [e for e in t.alive() if e.player_id == player_id and e.away]
        if back:
            self._returning.add((t.tournament_id, player_id))
            self.core.spawn(self._store_back(t, player_id, tuple(e.entry_id for e in back)))

    async def _store_back(self, t: Tournament, player_id: int, entry_ids: tuple[int, ...]) -> None:
        try:
            draft = self.core.draft(t)
            for entry_id in entry_ids:
                draft.entry(entry_id).away = False
            await self.core.commit(draft)
        finally:
            self._returning.discard((t.tournament_id, player_id))
