"""The registry of tournaments and their entries: announcing one, registration (buy-ins, re-entries, late entries),
refunds, cancelling, away players, and the announcement message the adapter keeps editing.

Each operation checks with the pure rules (:mod:`.rules`), then commits its rows with its postings in one transaction
before anything changes in memory (:meth:`~.core.Core.commit`). Loading reads only the tournaments of the guilds this
process serves (its shards), so a tournament lives on exactly one process.
"""

from __future__ import annotations

from pancog.game.i18n import N_
from pancog.infra.storage.base import ShardSet
from pancog.services.tables import NoTableHere

from . import purse, rules
from .clock import Clock
from .core import Also, Core, Post
from .errors import AlreadySeated, BadTournamentOption, NotRegistered, RegistrationClosed, TournamentStateError
from .events import TournamentCancelled
from .floor import Floor
from .model import Entry, EntryStatus, Format, Status, Tournament, TournamentConfig

__all__ = ["Registry"]


class Registry:
    """Tournaments and entries of every guild this process serves (one per service)."""

    def __init__(self, core: Core, clock: Clock, floor: Floor) -> None:
        self.core = core
        self.clock = clock
        self.floor = floor

    async def load(self, shards: ShardSet | None) -> int:
        """Read every tournament that is not over (of the guilds on ``shards`` only, when given) into memory."""
        async with self.core.storage.transaction(write=False) as tx:
            found = await self.core.repo.load(tx, shards=shards)
        for t in found:
            self.core.add(t)
        return len(found)

    async def create(
        self,
        tournament_id: int,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        config: TournamentConfig,
        announce_only: bool = False,
        also: Also | None = None,
    ) -> Tournament:
        """A new tournament of ``guild_id`` (``tournament_id``: a fresh snowflake; also its chips' bank scope).
        ``also(tx, tournament_id)`` runs in the creating transaction (what the caller stores with it); what it raises
        refuses the creation: nothing is stored."""
        if tournament_id in self.core.tournaments:
            raise BadTournamentOption(N_("That tournament id is taken."))
        if config.satellite_for is not None:
            purse.check_target(self.core.tournaments.get(config.satellite_for), guild_id)
        t = Tournament(
            tournament_id=tournament_id,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            config=config,
            status=Status.ANNOUNCED if announce_only else Status.REGISTERING,
            created_ms=self.core.now_ms(),
            seed=rules.derive(tournament_id, 15),
        )
        async with self.core.transaction(t) as tx:
            await self.core.repo.put_tournament(tx, t)
            if also is not None:
                await also(tx, tournament_id)
        self.core.add(t)
        return t

    async def open_registration(self, t: Tournament) -> None:
        if t.status is not Status.ANNOUNCED:
            raise TournamentStateError(N_("Registration is already open or over."))
        draft = self.core.draft(t)
        draft.t.status = Status.REGISTERING
        await self.core.commit(draft)

    async def register(self, t: Tournament, player_id: int) -> Entry:
        """Buy in (or re-enter, or register late); a Sit & Go starts when this fills it (with the lock).

        Raises:
            RegistrationClosed, AlreadyRegistered, TournamentFull, BadTournamentOption (computer players not allowed),
            pancog.services.ledger.InsufficientChips (the bank is short; nothing changed).
        """
        rules.check_registration(t, player_id, open_=self.clock.registration_open(t))
        here = self.floor.seated_at(t, player_id) if t.status is Status.RUNNING else None
        if here is not None:  # an entry put out whose seat is not cleared yet: a new entry would sit twice
            raise AlreadySeated(here.table_no)
        cfg = t.config
        ledger = self.core.ledger
        await ledger.ensure_player(t.guild_id, player_id)
        if player_id < 0:  # computer players are funded from the guild's issued account
            bank = await ledger.balance(t.guild_id, player_id)
            if bank < cfg.buy_in:
                await ledger.grant(
                    t.guild_id,
                    player_id,
                    cfg.buy_in - bank,
                    actor="system",
                    reason="computer player buy-in",
                    key=f"tny:{t.tournament_id}:fund:{len(t.entries) + 1}",
                )
        running = t.status is Status.RUNNING
        entry = Entry(
            entry_id=len(t.entries) + 1,
            player_id=player_id,
            entry_no=len(t.entries_of(player_id)) + 1,
            status=EntryStatus.ALIVE if running else EntryStatus.REGISTERED,
            created_ms=self.core.now_ms(),
            table_no=rules.seat_for_newcomer(t) if running else None,
            bounty=cfg.bounty,
        )
        draft = self.core.draft(t)
        draft.add_entry(entry)
        legs = rules.buy_in_legs(t, player_id, running=running)
        await self.core.commit(draft, [(legs, f"buyin:{entry.entry_id}", "tournament buy-in")])
        if running:
            await self.floor.reconcile(t)
        elif cfg.format is Format.SNG and len(t.entries) - rules.refunded(t) >= cfg.seats:
            await self.floor.start(t)
        return t.entries[entry.entry_id]

    async def unregister(self, t: Tournament, player_id: int) -> int:
        """Refund a registration before the start; returns the chips refunded (with the lock).

        Raises:
            RegistrationClosed (the tournament started), NotRegistered.
        """
        if t.status not in (Status.ANNOUNCED, Status.REGISTERING):
            raise RegistrationClosed(N_("The tournament has started: you can no longer unregister."))
        entry = next((e for e in t.entries_of(player_id) if e.status is EntryStatus.REGISTERED), None)
        if entry is None:
            raise NotRegistered
        await self._refund(t, [entry], fee_taken=0)
        return t.config.buy_in

    async def _refund(self, t: Tournament, entries: list[Entry], *, fee_taken: int) -> None:
        """Refund ``entries`` their whole buy-in (one journal each, one transaction)."""
        draft = self.core.draft(t)
        posts: list[Post] = []
        for e in entries:
            draft.entry(e.entry_id).status = EntryStatus.REFUNDED
            posts.append((rules.refund_legs(t, e, fee_taken=fee_taken), f"refund:{e.entry_id}", "tournament refund"))
        await self.core.commit(draft, posts)

    async def cancel(self, t: Tournament) -> dict[int, int]:
        """Cancel: every entry is refunded its whole buy-in (fee included); the tables close (with the lock)."""
        if t.status in (Status.FINISHED, Status.CANCELLED):
            raise TournamentStateError(N_("The tournament is already over."))
        started = t.status is Status.RUNNING
        entries = [e for e in t.entries.values() if e.status is not EntryStatus.REFUNDED]
        refunds: dict[int, int] = {}
        for e in entries:
            refunds[e.player_id] = refunds.get(e.player_id, 0) + t.config.buy_in + purse.refund_extra(t, e)
        if entries:
            await self._refund(t, entries, fee_taken=t.config.fee if started else 0)
        await self.floor.close_tables(t)
        draft = self.core.draft(t)
        draft.t.status = Status.CANCELLED
        draft.t.finished_ms = self.core.now_ms()
        await self.core.commit(draft)
        self.core.emit(TournamentCancelled(t.tournament_id, refunds))
        return refunds

    async def remember_announcement(self, t: Tournament, channel_id: int, message_id: int) -> None:
        """Store the announcement message the adapter edits (live entry count, buttons), so it survives a restart."""
        async with self.core.transaction(t) as tx:
            await self.core.repo.put_message(tx, t.tournament_id, "announcement", channel_id, message_id)
        t.announcement = (channel_id, message_id)

    async def set_away(self, t: Tournament, player_id: int, away: bool) -> None:
        """An away player is dealt in and goes on top automatically (loses only the ante)."""
        live = (EntryStatus.ALIVE, EntryStatus.REGISTERED)
        entry = next((e for e in t.entries_of(player_id) if e.status in live), None)
        if entry is None:
            raise NotRegistered
        draft = self.core.draft(t)
        draft.entry(entry.entry_id).away = away
        await self.core.commit(draft)
        if away:
            for tt in t.open_tables():
                try:
                    self.floor.play_away(self.core.tables.get(tt.table_id), t)
                except NoTableHere:  # not open (yet)
                    continue
