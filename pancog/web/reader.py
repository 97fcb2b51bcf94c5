"""What pan-web reads, and nothing more: a guild's league, its tournaments, and the finished hands its players shared.

Every read goes through the services on a read-only storage (the league without drains, the replay service on the
table logs, the tournaments' stored rows, the ledger's stack accounts) and returns plain values for the templates.
The two rules of what may be shown live here, in :meth:`WebReader.shared_replay`: a hand is served only when a
player of it shared it, only when it is finished, and only as a stranger sees it (the public board, no hand, no
seed) — a :class:`HandReplay` for :data:`PUBLIC_VIEWER` holds nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pancog.adapter.presenters.common import image_name_of
from pancog.infra.storage.base import Storage
from pancog.services.league import LeagueService, RatingHistory, SeasonInfo, SeasonRow, Versus
from pancog.services.ledger import ChipLedger
from pancog.services.replay import PUBLIC_VIEWER, HandNotFound, HandReplay, ReplayService
from pancog.services.store import TableStore
from pancog.services.tables import NoTableHere
from pancog.services.tournaments.model import EntryStatus, Tournament
from pancog.services.tournaments.repository import TournamentRepository
from pancog.services.web_access import SharedHand, WebAccess

__all__ = ["NotFound", "TournamentView", "WebReader"]


class NotFound(Exception):
    """Anything pan-web will not show: the page answers a plain 404 and says nothing more."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentView:
    tournament_id: int
    title: str
    status: str  # announced | registering | running | finished | cancelled
    entries: tuple[tuple[int, str, int | None, int | None, int | None], ...]
    """(player id, entry status, table no, place, prize) — the lobby, live standings or results."""
    chips: Mapping[int, int]  # alive players' chips at their table (the ledger's stack accounts)


class WebReader:
    """The reads of one pan-web process, on a read-only storage."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.access = WebAccess(storage)
        self.league = LeagueService(storage, ChipLedger(storage), read_only=True)
        self.replays = ReplayService(TableStore(storage), cache_tables=64)
        self._tournaments = TournamentRepository()

    async def guild_of(self, token: str) -> int:
        guild = await self.access.guild_of(token)
        if guild is None:
            raise NotFound
        return guild

    # ------------------------------------------------------------------ names

    async def names(self, guild_id: int) -> dict[int, str]:
        """The display names the bot stored for the guild's members (``member_names``, V9: the last name it saw each
        use), as plain text for HTML (control and bidirectional characters dropped; Jinja2 escapes it)."""
        async with self.storage.transaction(write=False) as tx:
            rows = await tx.fetchall("SELECT user_id, name FROM member_names WHERE guild_id = ?", (guild_id,))
        found = {int(user): str(name) for user, name in rows}
        return {user: image_name_of(found, user) for user in found}

    # ------------------------------------------------------------------ the league

    async def seasons(self, guild_id: int) -> list[SeasonRow]:
        return await self.league.seasons(guild_id)

    async def season(self, guild_id: int, number: int | None) -> SeasonInfo | None:
        """The running season (``number`` None; None between seasons) or an archived one (NotFound if none)."""
        try:
            return await self.league.season_info(guild_id, number)
        except Exception as exc:  # NoSeason
            if number is None:
                return None
            raise NotFound from exc

    async def player(self, guild_id: int, user_id: int) -> tuple[RatingHistory, list[tuple[Versus, int]]]:
        """A player's rating history and his head-to-head with the players he met most."""
        history = await self.league.rating_history(guild_id, user_id)
        opponents = await self.league.opponents(guild_id, user_id)
        if not history.all_time and not opponents:
            raise NotFound
        versus = [(await self.league.versus(guild_id, user_id, other), n) for other, n in opponents]
        return history, versus

    # ------------------------------------------------------------------ tournaments

    async def tournaments(self, guild_id: int) -> list[TournamentView]:
        async with self.storage.transaction(write=False) as tx:
            found = [t for t in await self._tournaments.load(tx, active_only=False) if t.guild_id == guild_id]
            views = [await self._view(tx, t) for t in found]
        return sorted(views, key=lambda v: -v.tournament_id)

    async def tournament(self, guild_id: int, tournament_id: int) -> TournamentView:
        async with self.storage.transaction(write=False) as tx:
            found = await self._tournaments.load(tx, active_only=False, tournament_id=tournament_id)
            if not found or found[0].guild_id != guild_id:
                raise NotFound
            return await self._view(tx, found[0])

    async def _view(self, tx: object, t: Tournament) -> TournamentView:
        chips: dict[int, int] = {}
        open_tables = [tt.table_id for tt in t.open_tables()]
        if open_tables and t.status.value == "running":
            rows = await tx.fetchall(  # type: ignore[attr-defined]
                "SELECT scope_id, user_id, balance FROM accounts WHERE kind = 'stack' "  # noqa: S608
                f"AND scope_id IN ({', '.join('?' * len(open_tables))})",
                open_tables,
            )
            chips = {int(u): int(b) for _, u, b in rows}
        entries = tuple(
            (e.player_id, e.status.value, e.table_no if e.status is EntryStatus.ALIVE else None, e.place, e.prize)
            for e in sorted(
                t.entries.values(),
                key=lambda e: (
                    e.status is not EntryStatus.ALIVE,
                    -chips.get(e.player_id, 0),
                    e.place if e.place is not None else 10**9,
                    e.entry_id,
                ),
            )
            if e.status is not EntryStatus.REFUNDED
        )
        return TournamentView(
            tournament_id=t.tournament_id,
            title=t.config.title or f"Tournament {t.tournament_id}",
            status=t.status.value,
            entries=entries,
            chips=chips,
        )

    # ------------------------------------------------------------------ shared hands

    async def shared_hands(self, guild_id: int) -> list[SharedHand]:
        """The guild's shared hands that are finished (the Share button only offers those; a hand still in progress
        is left out whatever the table says)."""
        found = []
        for shared in await self.access.shared_hands(guild_id):
            try:
                log = await self.replays.log(shared.table_id)
                if log.find(shared.hand_no).summary.finished:
                    found.append(shared)
            except (NoTableHere, HandNotFound):
                continue
        return found

    async def shared_replay(self, guild_id: int, table_id: int, hand_no: int) -> tuple[HandReplay, SharedHand]:
        """A finished hand of the guild that one of its players shared, as a stranger sees it (NotFound for any
        other hand: not shared, another guild's, unfinished, or no such table)."""
        shared = await self.access.shared_hand(guild_id, table_id, hand_no)
        if shared is None:
            raise NotFound
        try:
            replay = await self.replays.replay(table_id, PUBLIC_VIEWER, hand_no)
        except (NoTableHere, HandNotFound) as exc:
            raise NotFound from exc
        if not replay.summary.finished or replay.viewer_seat is not None:  # never a live hand, never anyone's cards
            raise NotFound
        return replay, shared
