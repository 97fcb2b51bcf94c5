"""LeagueService: seasons, per-hand stats, ratings, leaderboards, chip-dumping flags. No discord imports.

How a hand reaches the league (see docs/leagues.md):

1. The composition root subscribes :meth:`LeagueService.on_applied` to the table service (it folds every committed
   transition into the table's :class:`~pancog.services.league.digest.HandTally`) and registers
   :meth:`LeagueService.settlement_note` as its settlement hook (and :meth:`LeagueService.table_closed`).
2. When an action ends a hand, the hook turns the tally plus that action's events into a digest, and its text
   (``"<guild> <season> <digest>"``) is stored **on the settlement's own ledger journal row** (``journals.result``,
   migration V8), inside the transaction that commits the hand's chips: exactly once (a retried commit writes no
   journal), and no extra row. After a restart in the middle of a hand the tally is missing; the hook then replays
   the table's log through the engine (rare, correct).
3. :meth:`LeagueService.drain` moves those results into ``league_results`` and ``league_stats`` (ordinal = the
   journal id), then folds the ratings — in batches, off the settlement path, exactly once (each cursor moves in the
   same transaction as its rows; on PostgreSQL a results lock orders result journals and drains). Every read of
   the league drains first.

:meth:`LeagueService.rebuild` recomputes everything derived (digests from the action logs, stats, ratings) with the
same code, so the result equals the incremental one exactly.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pancog.game import engine
from pancog.game.errors import PanError
from pancog.game.events import HandEnded
from pancog.game.state import TableState
from pancog.infra.storage.base import Account, BankScope, Posting, ScopeKind, Storage, StorageTx
from pancog.services.ledger import ChipLedger, Holding, held_in, post_transaction, rank_holdings
from pancog.services.outbox import Outbox
from pancog.services.tables import Applied, ResultNote, TableClosed, TableConfig, TableSession

from . import repo
from .digest import HandDigest, HandTally, TourneyDigest, decode, digests_from_log, is_human, rating_match
from .flags import Flag, compute_flags
from .ratings import Rating, rate
from .repo import STAT_COLUMNS, HistoryRow, SeasonRow, StandingRow, StatsRow, VersusRow

__all__ = [
    "ROLE_GRANT",
    "WINNER_PLACES",
    "Board",
    "BoardLine",
    "LeagueService",
    "Metric",
    "NoSeason",
    "Period",
    "PlayerCard",
    "RatingHistory",
    "SeasonActive",
    "SeasonInfo",
    "SeasonInputError",
    "Versus",
]

log = logging.getLogger("pan.league")

Metric = Literal["net", "chips", "rating", "wins"]
Period = Literal["season", "all"]
SeasonMode = Literal["net", "bank"]
DEFAULT_MODE: SeasonMode = "net"
RATINGS_CURSOR = "ratings"
JOURNALS_CURSOR = "journals"  # the last ledger journal whose result was moved (migration V8)
MAX_SEASON_DAYS = 366
MAX_NAME = 60
WINNER_PLACES = 3  # a season's role goes to the players placed 1..3 (ties share a place)
ROLE_GRANT = "role.grant"  # the outbox kind the adapter delivers (pancog/adapter/effects.py)


class SeasonActive(PanError):
    code = "season_active"

    def __init__(self, name: str) -> None:
        super().__init__(f"The season {name} is still running. End it first, or roll over to a new one.")


class NoSeason(PanError):
    code = "no_season"

    def __init__(self) -> None:
        super().__init__("No such season here. Start one with /panadmin season start.")


class SeasonInputError(PanError):
    code = "bad_season_input"


@dataclass(frozen=True, slots=True, kw_only=True)
class BoardLine:
    rank: int
    user_id: int
    value: int  # chips, wins, or a rating score (1000 x (mu - 3 sigma))
    rated: int = 0  # rated results (rating boards: provisional below 10)
    # a board of what players have (metric chips, on the banks): the bank and the chips at tables in ``value``
    bank: int | None = None
    at_tables: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Board:
    metric: Metric
    period: Period
    season: SeasonRow | None
    lines: tuple[BoardLine, ...]
    caller: BoardLine | None  # the caller's own line (also when outside the top), None if he has no figure


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerCard:
    """Everything ``/pan stats`` shows (image card and text twin are drawn from this)."""

    user_id: int
    season: SeasonRow | None
    season_stats: StatsRow | None
    all_time: StatsRow
    rating: Rating
    season_rating: Rating | None
    season_bank: int | None = None  # chips in the season bank ('bank' season; the starting chips before first use)

    @property
    def going_out_rate(self) -> float:
        s = self.all_time
        return s.hands_won / s.hands_played if s.hands_played else 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class RatingHistory:
    """A player's rating after each rated result: all-time and in the running season (``/pan rating``, the web).

    Points are (ordinal, created_at, score); ``score`` is 1000 x the shown figure (mu - 3 sigma)."""

    user_id: int
    season: SeasonRow | None
    all_time: tuple[tuple[int, int, int], ...]
    season_points: tuple[tuple[int, int, int], ...]
    rating: Rating
    season_rating: Rating | None
    recent: tuple[HistoryRow, ...]  # the last rated results, newest first (result, net, rating change)


@dataclass(frozen=True, slots=True, kw_only=True)
class Versus:
    """Head-to-head of two players of a guild: the results both took part in (``/pan versus``)."""

    user_id: int
    other_id: int
    rows: tuple[VersusRow, ...]  # oldest first

    @property
    def hands(self) -> int:
        return sum(1 for r in self.rows if r.kind == "hand")

    @property
    def tourneys(self) -> int:
        return sum(1 for r in self.rows if r.kind == "tourney")

    @property
    def net(self) -> int:
        """The first player's chips over their hands together."""
        return sum(r.net for r in self.rows)

    @property
    def other_net(self) -> int:
        return sum(r.other_net for r in self.rows)

    @property
    def wins(self) -> int:
        """Hands the first player won (went out or split) with the other dealt in, and tournaments he finished
        ahead of the other."""
        return sum(1 for r in self.rows if _beats(r.place, r.other_place, r.kind))

    @property
    def other_wins(self) -> int:
        return sum(1 for r in self.rows if _beats(r.other_place, r.place, r.kind))


def _beats(place: int, other: int, kind: str) -> bool:
    if kind == "hand":
        return place == 1
    return place < other


@dataclass(frozen=True, slots=True, kw_only=True)
class SeasonInfo:
    season: SeasonRow
    standings: tuple[StandingRow, ...]  # live for the active season, archived for an ended one
    exclusions: tuple[tuple[int, int, str, int], ...]  # (user, moderator, reason, created_at)


def stat_rows(guild_id: int, season_no: int, result: HandDigest | TourneyDigest) -> list[tuple[int, ...]]:
    """The ``league_stats`` increments of one result (humans only), for all-time (0) and the season."""
    per_user: list[tuple[int, ...]] = []
    if isinstance(result, HandDigest):
        for p in result.players:
            if p.user_id >= 0:  # humans only (is_human, inlined: this runs in every settlement)
                per_user.append(
                    (
                        p.user_id,
                        1,
                        int(p.played),
                        int(p.on_top),
                        int(p.won),
                        p.conditions,
                        p.condition_chips,
                        p.biggest,
                        p.net,
                        0,
                        0,
                        0,
                    )
                )
    else:
        for user, place, cashed in result.places:
            if is_human(user):
                per_user.append((user, 0, 0, 0, 0, 0, 0, 0, 0, 1, int(cashed), int(place == 1)))
    rows = [(guild_id, 0, *row) for row in per_user]
    if season_no:
        rows += [(guild_id, season_no, *row) for row in per_user]
    return rows


class LeagueService:
    def __init__(
        self,
        storage: Storage,
        ledger: ChipLedger,
        *,
        clock: Callable[[], float] = time.time,
        rating_batch: int = 500,  # results per drain transaction: bounds how long a drain holds lock_results
        outbox: Outbox | None = None,  # a season's end owes its winners their role through it
        read_only: bool = False,
    ) -> None:
        self.storage = storage
        # A reader beside the bot (pan-web): it never drains (a write); it shows what the bot's drains (every league
        # read in Discord, and the background tick) have moved so far.
        self.read_only = read_only
        self.ledger = ledger
        self.outbox = outbox
        self._clock = clock
        self._rating_batch = rating_batch
        self._tallies: dict[int, HandTally] = {}
        self._seasons: dict[int, SeasonRow | None] = {}  # guild -> active season (cache; dropped on change)
        self._scopes: dict[int, tuple[int, int] | None] = {}  # season scope id -> (guild, season) or None
        self._rating_lock = asyncio.Lock()

    # ------------------------------------------------------------------ wiring to the table service
    # The composition root registers these three with the table service (once, before tables are used), so every
    # hand is recorded from then on: on_applied (subscribe), settlement_note (set_settlement_hook), table_closed
    # (on_close).

    def on_applied(self, applied: Applied) -> None:
        """Follow a table's hand, action by action (its tally becomes the hand's digest at the settlement)."""
        table_id = applied.session.table_id
        tally = self._tallies.get(table_id)
        if tally is None:
            tally = self._tallies[table_id] = HandTally(table_id)
        tally.feed(applied.state, applied.events, applied.before)
        if applied.state.hand is None:  # between hands: nothing to remember (the next deal starts a new tally)
            del self._tallies[table_id]

    def table_closed(self, closed: TableClosed) -> None:
        """A table closed: the tally of a hand it never finished goes."""
        self._tallies.pop(closed.table_id, None)

    def settlement_note(
        self, session: TableSession, before: TableState, transition: engine.Transition, action_text: str
    ) -> ResultNote | None:
        """The table service's settlement hook: for an action that ends a hand, the hand's result to store on its
        journal row in the same transaction (None for any other action)."""
        ended = next((e for e in transition.events if isinstance(e, HandEnded)), None)
        if ended is None:
            return None
        tally = self._tallies.get(session.table_id)
        digest = tally.copy().feed(transition.state, transition.events, before) if tally is not None else None
        table_id, guild_id, scope, config = session.table_id, session.guild_id, session.bank_scope, session.config
        if digest is not None:
            return self.note(guild_id, digest, scope=scope)

        async def from_log(tx: StorageTx) -> str | None:
            # restarted mid-hand: the start of the hand is only in the log
            found = await _digest_from_stored_log(tx, table_id, config, ended.hand_no, action_text)
            if found is None:
                return None
            return await self.note_text(tx, guild_id, found, scope=scope)

        return from_log

    async def note_text(
        self, tx: StorageTx, guild_id: int, result: HandDigest | TourneyDigest, *, scope: BankScope | None = None
    ) -> str:
        """The text that records ``result`` on its journal row (``"<guild> <season> <digest>"``), for the guild's
        running season — or, when ``scope`` (a table's bank scope) is a bank season's, for that guild and season.
        Reads only (the season, cached)."""
        if scope is None or scope.kind is not ScopeKind.SEASON or await self._scope_owner(tx, scope.id) is None:
            await self._active_in_tx(tx, guild_id)  # not a bank season's table: the guild's running season
        text = self._text(guild_id, result, scope)
        if text is None:  # unreachable: the lookups above fill the caches
            raise RuntimeError("league season cache not warm")
        return text

    def note(self, guild_id: int, result: HandDigest | TourneyDigest, *, scope: BankScope | None = None) -> ResultNote:
        """``note_text`` as a settlement's ``result`` (pancog.services.store.TableStore.commit_action). When the season
        is cached (every settlement but a process's first of a guild), the text is built here, before the transaction:
        the settlement holds the database's writer lock for one more column of a row it writes anyway."""
        text = self._text(guild_id, result, scope)

        async def record(tx: StorageTx) -> str | None:
            return text if text is not None else await self.note_text(tx, guild_id, result, scope=scope)

        return record

    def _text(self, guild_id: int, result: HandDigest | TourneyDigest, scope: BankScope | None) -> str | None:
        """The note of ``result`` from the cached season (None: not cached)."""
        if scope is not None and scope.kind is ScopeKind.SEASON:
            if scope.id not in self._scopes:
                return None
            owner = self._scopes[scope.id]
        else:
            owner = None
        if owner is not None:  # a table of a bank season: the guild's result, for that season
            guild_id, season_no = owner
        else:
            if guild_id not in self._seasons:
                return None
            season = self._seasons[guild_id]
            season_no = season.number if season is not None else 0
        return f"{guild_id} {season_no} {result.encode()}"

    async def _scope_owner(self, tx: StorageTx, scope_id: int) -> tuple[int, int] | None:
        """(guild, season number) whose season banks live in ``BankScope.season(scope_id)``; None if no season has
        it. Scopes never change owner, so the answer is cached."""
        if scope_id not in self._scopes:
            self._scopes[scope_id] = await repo.scope_owner(tx, scope_id)
        return self._scopes[scope_id]

    async def _active_in_tx(self, tx: StorageTx, guild_id: int) -> SeasonRow | None:
        if guild_id in self._seasons:
            return self._seasons[guild_id]
        season = await repo.active_season(tx, guild_id)
        self._seasons[guild_id] = season
        return season

    async def _record_alone(self, guild_id: int, result: HandDigest | TourneyDigest, reason: str) -> bool:
        """Record ``result`` outside a table's commit on a journal of its own (key ``league:<result key>``, no
        postings), then drain it; False if that journal existed (nothing recorded again)."""
        async with self.storage.transaction() as tx:
            text = await self.note_text(tx, guild_id, result)
            journal = await tx.insert_journal(
                key=f"league:{result.key}",
                reason=reason,
                actor="system",
                table_id=None,
                created_at=self._clock(),
                result=text,
            )
        if journal is None:
            return False
        await self.drain()
        async with self.storage.transaction(write=False) as tx:  # a key recorded before by another result: not this
            return await repo.result_ordinal(tx, result.key) == journal

    async def record_hand(self, guild_id: int, digest: HandDigest) -> bool:
        """Record a hand digest outside a table's commit (imports, tests, benchmarks); False if already recorded.
        Its ordinal is a fresh (empty) ledger journal, so it sorts with everything else by commit order."""
        return await self._record_alone(guild_id, digest, "hand result")

    # ------------------------------------------------------------------ tournaments

    async def record_tournament(
        self, guild_id: int, tourney_id: int, places: Sequence[tuple[int, int]], cashed: Collection[int] = ()
    ) -> bool:
        """Record a finished tournament: ``places`` are (user id, finishing place 1..); ``cashed`` the users paid.

        Feeds stats (played / cashed / won) and, among the humans, the ratings. Idempotent per tournament id:
        returns False if it was recorded before.

        Raises:
            SeasonInputError: a place below 1 or a player listed twice.
        """
        users = [u for u, _ in places]
        if len(set(users)) != len(users) or any(p < 1 for _, p in places):
            raise SeasonInputError("Each player needs one finishing place, 1 or more.")
        digest = TourneyDigest(tourney_id=tourney_id, places=[(u, p, u in cashed) for u, p in places])
        return await self._record_alone(guild_id, digest, "tournament result")

    # ------------------------------------------------------------------ ratings fold

    async def drain(self) -> int:
        """Bring the league's tables up to date, exactly once: move the results recorded on ledger journals since the
        last drain into ``league_results`` and ``league_stats``, then fold every result not yet rated into the
        ratings. Returns how many results were rated. Every read of the league drains first; a read that finds
        nothing pending takes no write lock."""
        total = 0
        if self.read_only:
            return 0
        async with self._rating_lock:
            async with self.storage.transaction(write=False) as tx:
                if not await repo.pending(tx, JOURNALS_CURSOR, RATINGS_CURSOR):
                    return 0
            while True:
                async with self.storage.transaction() as tx:
                    moved = await self._move_results(tx, self._rating_batch)
                    rated = await self._fold_pending(tx, self._rating_batch)
                total += rated
                if not moved and not rated:
                    return total

    async def _move_results(self, tx: StorageTx, limit: int) -> int:
        """Move up to ``limit`` journal results after the cursor into ``league_results`` and add their stats (a key
        already recorded, or twice in the batch, keeps its first result and is counted once); the cursor moves in the
        same transaction. Returns how many journal results were read."""
        await tx.lock_results()
        cursor = await repo.get_cursor(tx, JOURNALS_CURSOR)
        notes = await repo.journal_results_after(tx, cursor, limit)
        if not notes:
            return 0
        parsed: list[tuple[int, int, int, int, str, HandDigest | TourneyDigest]] = []
        for journal, created_at, text in notes:
            try:
                guild, season_no, body = text.split(" ", 2)
                parsed.append((journal, int(created_at), int(guild), int(season_no), body, decode(body)))
            except ValueError:  # never written by this code; one bad row must not stop every read of the league
                log.error("journal %s: unreadable league result %r skipped (rebuild re-derives hands)", journal, text)
        seen = await repo.recorded_keys(tx, [r.key for *_, r in parsed])
        fresh = []
        for row in parsed:
            if row[5].key not in seen:
                seen.add(row[5].key)
                fresh.append(row)
        await repo.insert_results(
            tx,
            [
                (
                    r.key,
                    journal,
                    guild,
                    season_no,
                    "hand" if isinstance(r, HandDigest) else "tourney",
                    r.table_id if isinstance(r, HandDigest) else None,
                    r.hand_no if isinstance(r, HandDigest) else None,
                    created,
                    body,
                )
                for journal, created, guild, season_no, body, r in fresh
            ],
        )
        await repo.add_stats(tx, _summed_stats((guild, season_no, r) for _, _, guild, season_no, _, r in fresh))
        await repo.set_cursor(tx, JOURNALS_CURSOR, notes[-1][0])
        return len(notes)

    async def _fold_pending(self, tx: StorageTx, limit: int) -> int:
        cursor = await repo.get_cursor(tx, RATINGS_CURSOR)
        rows = await repo.results_to_fold(tx, cursor, limit)
        if rows:
            await _fold_ratings(tx, _fold_rows(rows), {})
            await repo.set_cursor(tx, RATINGS_CURSOR, rows[-1][0])
        return len(rows)

    async def _drain_in_tx(self, tx: StorageTx) -> None:
        """Everything ``drain`` does, inside the caller's write transaction (a season's end: its standings then
        count every hand committed before it)."""
        while await self._move_results(tx, self._rating_batch):
            pass
        while await self._fold_pending(tx, self._rating_batch):
            pass

    # ------------------------------------------------------------------ seasons

    async def start_season(
        self,
        guild_id: int,
        name: str,
        *,
        length_days: int | None = None,
        starting_chips: int | None = None,
        mode: SeasonMode = DEFAULT_MODE,
        role_id: int | None = None,
    ) -> SeasonRow:
        """Start the guild's next season (``role_id``: a role the adapter gives the top finishers when it ends).

        Raises:
            SeasonActive: a season is running.
            SeasonInputError: bad name, length, chips or mode.
        """
        name = _check_season_input(name, length_days, starting_chips, mode)
        async with self.storage.transaction() as tx:
            season = await self._start_in_tx(tx, guild_id, name, length_days, starting_chips, mode, role_id)
        self._seasons.pop(guild_id, None)
        return season

    async def _start_in_tx(
        self,
        tx: StorageTx,
        guild_id: int,
        name: str,
        length_days: int | None,
        starting_chips: int | None,
        mode: SeasonMode,
        role_id: int | None = None,
    ) -> SeasonRow:
        current = await repo.active_season(tx, guild_id)
        if current is not None:
            raise SeasonActive(current.name)
        if starting_chips is None:
            settings = await tx.get_settings(guild_id)
            starting_chips = settings.starting_chips if settings is not None else 1000
        now = int(self._clock())
        number = await repo.last_season_number(tx, guild_id) + 1
        row = SeasonRow(
            guild_id=guild_id,
            number=number,
            name=name,
            mode=mode,
            starting_chips=starting_chips,
            scope_id=0,
            status="active",
            started_at=now,
            ends_at=now + length_days * 86_400 if length_days else None,
            ended_at=None,
            champion_id=None,
            role_id=role_id,
        )
        await repo.insert_season(tx, row)
        created = await repo.get_season(tx, guild_id, number)
        if created is None:  # pragma: no cover - inserted just above under the write lock
            raise RuntimeError("season row vanished")
        if mode == "bank":  # the season scope's "starting chips": what the ledger issues to a new season bank
            await self.ledger.set_scope_chips(tx, created.bank_scope, starting_chips=starting_chips, daily_amount=0)
            # The last season's players get their new season bank now, in this transaction, through the ledger
            # (journal start:<scope>:<user>, the one a first join would write); anyone else on first use.
            returning = await repo.season_players(tx, guild_id, number - 1) if number > 1 else []
            for user in returning:
                await self.ledger.issue_starting_chips(tx, created.bank_scope, user)
        return created

    async def end_season(self, guild_id: int) -> SeasonInfo:
        """End the running season: archive its final standings, record the champion, close the season banks.

        Raises:
            NoSeason: no season is running.
        """
        await self.drain()
        async with self.storage.transaction() as tx:
            season = await repo.active_season(tx, guild_id)
            if season is None:
                raise NoSeason
            info = await self._end_in_tx(tx, season)
        self._seasons.pop(guild_id, None)
        return info

    async def rollover(
        self,
        guild_id: int,
        from_number: int,
        name: str,
        *,
        length_days: int | None = None,
        starting_chips: int | None = None,
        mode: SeasonMode = DEFAULT_MODE,
    ) -> SeasonRow:
        """End season ``from_number`` (if still running) and start the next one, in ONE transaction.

        Idempotent and crash-safe: a retry after a crash either finds nothing done (the transaction rolled back) or
        finds season ``from_number + 1`` and returns it unchanged.

        Raises:
            NoSeason: season ``from_number`` does not exist.
            SeasonInputError: bad name, length, chips or mode.
        """
        name = _check_season_input(name, length_days, starting_chips, mode)
        await self.drain()
        async with self.storage.transaction() as tx:
            following = await repo.get_season(tx, guild_id, from_number + 1)
            if following is not None:
                return following
            season = await repo.get_season(tx, guild_id, from_number)
            if season is None:
                raise NoSeason
            if season.status == "active":
                await self._end_in_tx(tx, season)
            started = await self._start_in_tx(tx, guild_id, name, length_days, starting_chips, mode)
        self._seasons.pop(guild_id, None)
        return started

    async def _end_in_tx(self, tx: StorageTx, season: SeasonRow) -> SeasonInfo:
        await self._drain_in_tx(tx)  # every hand committed before the end counts in the final standings
        rows = await self._live_standings(tx, season)
        now = int(self._clock())
        champion = rows[0].user_id if rows else None
        await repo.insert_standings(tx, season.guild_id, season.number, rows)
        await repo.end_season(tx, season.guild_id, season.number, now, champion)
        if season.mode == "bank":
            # An ended season issues nothing more (a late join at one of its tables finds no starting chips).
            await self.ledger.set_scope_chips(tx, season.bank_scope, starting_chips=0, daily_amount=0)
            balances = await repo.bank_balances(tx, season.bank_scope)
            postings: list[Posting] = []
            for user, amount in sorted(balances.items()):
                if amount > 0:
                    postings += [
                        Posting(Account.bank(season.bank_scope, user), -amount),
                        Posting(Account.issued(season.bank_scope), amount),
                    ]
            if postings:
                await post_transaction(
                    tx,
                    postings,
                    key=f"season:{season.guild_id}:{season.number}:close",
                    reason="season ended: season banks closed",
                    actor="system",
                    now=float(now),
                )
        ended = await repo.get_season(tx, season.guild_id, season.number)
        exclusions = await repo.exclusions(tx, season.guild_id, season.number)
        info = SeasonInfo(season=ended or season, standings=tuple(rows), exclusions=tuple(exclusions))
        await self._owe_roles(tx, info)  # in the ending transaction: owed if and only if the season ended
        return info

    @staticmethod
    def role_prefix(guild_id: int, number: int) -> str:
        """The outbox key prefix of a season's role grants (``season:G:N:role:U`` per winner)."""
        return f"season:{guild_id}:{number}:role:"

    async def _owe_roles(self, tx: StorageTx, info: SeasonInfo) -> list[str]:
        """Owe the season's role (if it has one) to each human placed 1..:data:`WINNER_PLACES`, one outbox item per
        winner keyed ``season:G:N:role:U``: a retried end owes nothing twice. Returns the keys."""
        season = info.season
        if self.outbox is None or season.role_id is None:
            return []
        keys = []
        for row in info.standings:
            if row.place > WINNER_PLACES or not is_human(row.user_id):
                continue
            key = self.role_prefix(season.guild_id, season.number) + str(row.user_id)
            payload = {
                "role_id": season.role_id,
                "user_id": row.user_id,
                "season": season.number,
                "place": row.place,
                "reason": f"Pan season {season.number} top finisher",  # the server's audit log
            }
            await self.outbox.enqueue(tx, key=key, guild_id=season.guild_id, kind=ROLE_GRANT, payload=payload)
            keys.append(key)
        return keys

    async def season_roles(self, guild_id: int, number: int | None = None) -> tuple[SeasonRow, list[str]]:
        """The outbox keys of an ended season's role grants (``number`` None: the latest ended season), owing them
        now if the season ended before the outbox existed (or its items were pruned): a moderator's retry always
        has something to re-drive. Raises :class:`NoSeason` when there is no such ended season."""
        async with self.storage.transaction() as tx:
            if number is None:
                ended = [row for row in await repo.seasons(tx, guild_id) if row.status == "ended"]
                season = max(ended, key=lambda row: row.number) if ended else None
            else:
                season = await repo.get_season(tx, guild_id, number)
            if season is None or season.status != "ended":
                raise NoSeason
            rows = await repo.standings(tx, guild_id, season.number)
            info = SeasonInfo(season=season, standings=tuple(rows), exclusions=())
            keys = await self._owe_roles(tx, info)
        return season, keys

    async def season_bank(self, guild_id: int, user_id: int) -> int:
        """A player's season bank in a 'bank' season (issued the season's starting chips on first use, through the
        ledger: ``ChipLedger.ensure_player`` on the season's scope, the same call a table's join makes).

        Raises:
            NoSeason: no season is running, or it measures net chips on the ordinary bank.
        """
        async with self.storage.transaction(write=False) as tx:
            season = await repo.active_season(tx, guild_id)
        if season is None or season.mode != "bank":
            raise NoSeason
        return await self.ledger.ensure_player(season.bank_scope, user_id)

    async def active_season(self, guild_id: int) -> SeasonRow | None:
        """The guild's running season, None between seasons."""
        async with self.storage.transaction(write=False) as tx:
            return await repo.active_season(tx, guild_id)

    async def table_scope(self, guild_id: int) -> BankScope:
        """The ledger scope of the banks a new cash table of ``guild_id`` uses (``TableService.open_table(scope=…)``;
        the table itself stays the guild's): the running bank season's, so buy-ins and cash-outs use the season
        banks; else the guild's own. Hands at such a table are recorded for the guild and that season."""
        async with self.storage.transaction(write=False) as tx:
            season = await repo.active_season(tx, guild_id)
        return season.bank_scope if season is not None and season.mode == "bank" else BankScope.guild(guild_id)

    def forget_season(self, guild_id: int) -> None:
        """Drop the cached running season of ``guild_id`` (another process ended or started one)."""
        self._seasons.pop(guild_id, None)

    async def due_seasons(self) -> list[SeasonRow]:
        """Running seasons whose planned end has passed (the adapter's loop ends or rolls them over)."""
        async with self.storage.transaction(write=False) as tx:
            return await repo.due_seasons(tx, int(self._clock()))

    async def season_info(self, guild_id: int, number: int | None = None) -> SeasonInfo:
        """The running season (``number`` None) or a past one, with its standings and exclusions.

        Raises:
            NoSeason: no such season.
        """
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            season = (
                await repo.active_season(tx, guild_id)
                if number is None
                else await repo.get_season(tx, guild_id, number)
            )
            if season is None:
                raise NoSeason
            if season.status == "ended":
                rows = await repo.standings(tx, guild_id, season.number)
            else:
                rows = await self._live_standings(tx, season)
            exclusions = await repo.exclusions(tx, guild_id, season.number)
        return SeasonInfo(season=season, standings=tuple(rows), exclusions=tuple(exclusions))

    async def seasons(self, guild_id: int) -> list[SeasonRow]:
        async with self.storage.transaction(write=False) as tx:
            return await repo.seasons(tx, guild_id)

    async def _live_standings(self, tx: StorageTx, season: SeasonRow) -> list[StandingRow]:
        """Standings: by season bank ('bank' mode) or by net chips won in the season ('net'); exclusions left out."""
        excluded = {u for u, _, _, _ in await repo.exclusions(tx, season.guild_id, season.number)}
        stats = {s.user_id: s for s in await repo.all_stats(tx, season.guild_id, season.number)}
        found = await _ratings_map(tx, season.guild_id, season.number, list(stats))
        scores = {u: Rating(mu, sigma, n).score for u, (mu, sigma, n) in found.items()}
        chips: dict[int, int] = {}
        at_tables: dict[int, int] = {}
        if season.mode == "bank":  # what each has: his season bank plus his stacks at the season's open tables
            held = await held_in(tx, season.guild_id, season.bank_scope)
            chips = {u: bank + stack for u, (bank, stack) in held.items()}
            at_tables = {u: stack for u, (_, stack) in held.items()}
        users = [u for u in set(stats) | set(chips) if is_human(u) and u not in excluded]

        def key(u: int) -> tuple[int, int, int]:
            s = stats.get(u)
            net = s.net if s is not None else 0
            main = chips.get(u, 0) if season.mode == "bank" else net
            return (-main, -net, u)

        users.sort(key=key)
        rows = []
        for place, u in enumerate(users, start=1):
            s = stats.get(u) or StatsRow(user_id=u)
            rows.append(
                StandingRow(
                    place=place,
                    user_id=u,
                    net=s.net,
                    chips=chips.get(u, s.net),
                    score=scores.get(u, Rating().score),
                    wins=s.hands_won + s.tourneys_won,
                    at_tables=at_tables.get(u, 0),
                )
            )
        return rows

    # ------------------------------------------------------------------ moderation

    async def exclude(self, guild_id: int, user_id: int, moderator_id: int, reason: str) -> None:
        """Leave ``user_id``'s results out of the running season's standings, with a recorded reason.

        Raises:
            NoSeason: no season is running.
            SeasonInputError: an empty reason.
        """
        reason = reason.strip()
        if not reason or len(reason) > 500:
            raise SeasonInputError("Give a reason (up to 500 characters) for the exclusion.")
        async with self.storage.transaction() as tx:
            season = await repo.active_season(tx, guild_id)
            if season is None:
                raise NoSeason
            await repo.exclude(tx, guild_id, season.number, user_id, moderator_id, reason, int(self._clock()))

    async def include(self, guild_id: int, user_id: int) -> bool:
        """Lift an exclusion from the running season; False if there was none. Raises :class:`NoSeason`."""
        async with self.storage.transaction() as tx:
            season = await repo.active_season(tx, guild_id)
            if season is None:
                raise NoSeason
            return await repo.include(tx, guild_id, season.number, user_id)

    async def flags(self, guild_id: int, *, season_no: int | None = None) -> list[Flag]:
        """Chip-dumping and collusion flags over the guild's hands (one season, or all of them)."""
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            bodies = await repo.result_bodies(tx, guild_id, season_no)
        # Whole-guild statistics: seconds of CPU for a guild of 100,000 hands (bench/league.py --flags), so off the
        # event loop, which keeps answering meanwhile.
        return await asyncio.to_thread(_flags_of, [b for _, b in bodies])

    # ------------------------------------------------------------------ reads

    async def player_card(self, guild_id: int, user_id: int) -> PlayerCard:
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            season = await repo.active_season(tx, guild_id)
            all_time = await repo.get_stats(tx, guild_id, 0, user_id) or StatsRow(user_id=user_id)
            season_stats = await repo.get_stats(tx, guild_id, season.number, user_id) if season is not None else None
            rating = (await _ratings_map(tx, guild_id, 0, [user_id])).get(user_id)
            season_rating = (
                (await _ratings_map(tx, guild_id, season.number, [user_id])).get(user_id)
                if season is not None
                else None
            )
            season_bank = None
            if season is not None and season.mode == "bank":
                held = await repo.bank_account(tx, season.bank_scope, user_id)
                season_bank = season.starting_chips if held is None else held
        return PlayerCard(
            user_id=user_id,
            season=season,
            season_stats=season_stats,
            all_time=all_time,
            rating=_rating(rating),
            season_rating=_rating(season_rating) if season is not None else None,
            season_bank=season_bank,
        )

    async def rating_history(self, guild_id: int, user_id: int, *, recent: int = 20) -> RatingHistory:
        """The player's rating after each of his rated results (all-time and the running season) and his last
        ``recent`` rated results with their rating change. Reads ``league_history`` (V11), written by the fold."""
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            season = await repo.active_season(tx, guild_id)
            rows = await repo.history(tx, guild_id, user_id, rated_only=True)
            rating = _rating((await _ratings_map(tx, guild_id, 0, [user_id])).get(user_id))
            season_rating = None
            if season is not None:
                season_rating = _rating((await _ratings_map(tx, guild_id, season.number, [user_id])).get(user_id))
        rows.reverse()  # oldest first
        all_time = tuple((r.ordinal, r.created_at, r.score) for r in rows)
        season_points: tuple[tuple[int, int, int], ...] = ()
        if season is not None:
            season_points = tuple(
                (r.ordinal, r.created_at, r.season_score)
                for r in rows
                if r.season_no == season.number and r.season_score is not None
            )
        return RatingHistory(
            user_id=user_id,
            season=season,
            all_time=all_time,
            season_points=season_points,
            rating=rating,
            season_rating=season_rating,
            recent=tuple(reversed(rows[-recent:])) if recent else (),
        )

    async def versus(self, guild_id: int, user_id: int, other_id: int) -> Versus:
        """Head-to-head: every result both players took part in (hands dealt together, tournaments played together).

        Raises:
            SeasonInputError: the same player twice.
        """
        if user_id == other_id:
            raise SeasonInputError("Pick another player to compare with.")
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            rows = await repo.versus(tx, guild_id, user_id, other_id)
        return Versus(user_id=user_id, other_id=other_id, rows=tuple(rows))

    async def opponents(self, guild_id: int, user_id: int, *, limit: int = 8) -> list[tuple[int, int]]:
        """(other player, results together) of the players ``user_id`` met most, most first."""
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            return await repo.opponents(tx, guild_id, user_id, limit)

    async def history(
        self, guild_id: int, user_id: int, *, season_no: int | None = None, rated_only: bool = False, limit: int = 20
    ) -> list[HistoryRow]:
        """A player's results, newest first, with his rating before and after each (phase B's activity, decay and
        eligibility read the same rows: ``created_at`` is when he last played, ``rated_count`` how established)."""
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            return await repo.history(tx, guild_id, user_id, season_no=season_no, rated_only=rated_only, limit=limit)

    async def leaderboard(
        self,
        guild_id: int,
        *,
        metric: Metric = "net",
        period: Period = "all",
        caller: int | None = None,
        limit: int = 10,
    ) -> Board:
        """The top ``limit`` and the caller's own line.

        ``net`` chips won, ``wins`` hands won + tournaments won, ``rating`` the conservative rating, ``chips`` the bank
        (the season banks in a 'bank' season; in a 'net' season, chips won in it). ``season`` leaves out excluded
        players.

        Raises:
            NoSeason: ``period='season'`` and no season is running.
            SeasonInputError: an unknown metric or period.
        """
        if metric not in ("net", "chips", "rating", "wins") or period not in ("season", "all"):
            raise SeasonInputError("Pick a metric (net, chips, rating, wins) and a period (season, all).")
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            season = await repo.active_season(tx, guild_id)
            if period == "season" and season is None:
                raise NoSeason
            season_no = season.number if period == "season" and season is not None else 0
            excluded = [u for u, _, _, _ in await repo.exclusions(tx, guild_id, season_no)] if season_no else []
            scope = (
                (season.bank_scope if season is not None and season.mode == "bank" else None)
                if season_no
                else BankScope.guild(guild_id)
            )
            if metric == "chips" and scope is not None:  # what players have: bank + chips at the tables
                held = await rank_holdings(tx, guild_id, scope, limit=limit, caller=caller, exclude=excluded)
                lines = tuple(_holding_line(h) for h in held.lines)
                mine_line = _holding_line(held.caller) if held.caller is not None else None
            else:
                column = {"net": "net", "chips": "net", "wins": "hands_won", "rating": "score"}[metric]
                top = await repo.ranked(tx, guild_id, season_no, column, limit, excluded)
                me = (
                    await repo.rank_of(tx, guild_id, season_no, column, caller, excluded)
                    if caller is not None and caller not in excluded
                    else None
                )
                lines = _ranked_lines(top)
                mine_line = (
                    BoardLine(rank=me[0], user_id=caller, value=me[1], rated=me[2])
                    if me is not None and caller is not None
                    else None
                )
        return Board(metric=metric, period=period, season=season if season_no else None, lines=lines, caller=mine_line)

    # ------------------------------------------------------------------ rebuild

    async def rebuild(self, *, from_log: bool = True) -> tuple[int, int]:
        """Recompute every derived figure: re-derive each hand's digest from the table logs (``from_log``), then
        refold stats and ratings from all results in order. One transaction. Returns (hands, results)."""
        hands = 0
        async with self._rating_lock, self.storage.transaction() as tx:
            while await self._move_results(tx, self._rating_batch):  # nothing recorded stays behind on a journal
                pass
            if from_log:
                hands = await _rederive_hands(tx)
            await repo.clear_derived(tx)
            rows = _fold_rows(await repo.results_to_fold(tx, 0, 2**62))
            summed = _summed_stats((guild, season_no, result) for _, guild, season_no, result, *_ in rows)
            await repo.add_stats(tx, summed)
            await _fold_ratings(tx, rows, {})
            if rows:
                await repo.set_cursor(tx, RATINGS_CURSOR, rows[-1][0])
        self._seasons.clear()
        return hands, len(rows)


# ---------------------------------------------------------------------------------------------- helpers


def _ranked_lines(top: Sequence[tuple[int, int, int]]) -> tuple[BoardLine, ...]:
    """(user, value, rated) best first -> board lines, equal values sharing a rank."""
    lines: list[BoardLine] = []
    for i, (user, value, rated) in enumerate(top):
        rank = lines[-1].rank if lines and lines[-1].value == value else i + 1
        lines.append(BoardLine(rank=rank, user_id=user, value=value, rated=rated))
    return tuple(lines)


def _holding_line(held: Holding) -> BoardLine:
    return BoardLine(rank=held.rank, user_id=held.user_id, value=held.total, bank=held.bank, at_tables=held.at_tables)


def _summed_stats(results: Iterable[tuple[int, int, HandDigest | TourneyDigest]]) -> list[tuple[int, ...]]:
    """The ``league_stats`` increments of many (guild, season, result), one row per (guild, season, user), in key
    order: counters added, ``biggest`` the maximum — what the rows one by one would add up to."""
    stats: dict[tuple[int, int, int], list[int]] = {}
    for guild, season_no, result in results:
        for row in stat_rows(guild, season_no, result):
            key = (row[0], row[1], row[2])
            acc = stats.get(key)
            if acc is None:
                stats[key] = list(row[3:])
                continue
            for i, value in enumerate(row[3:]):
                acc[i] = max(acc[i], value) if i == _BIGGEST else acc[i] + value
    return [(*k, *v) for k, v in sorted(stats.items())]


_BIGGEST = STAT_COLUMNS.index("biggest")


def _check_season_input(name: str, length_days: int | None, starting_chips: int | None, mode: str) -> str:
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME:
        raise SeasonInputError(f"A season needs a name of 1 to {MAX_NAME} characters.")
    if length_days is not None and not 1 <= length_days <= MAX_SEASON_DAYS:
        raise SeasonInputError(f"A season lasts 1 to {MAX_SEASON_DAYS} days.")
    if starting_chips is not None and not 0 <= starting_chips <= 10**12:
        raise SeasonInputError("Starting chips must be a whole number from 0.")
    if mode not in ("net", "bank"):
        raise SeasonInputError("The season mode is 'net' (ordinary bank) or 'bank' (a season bank).")
    return name


def _rating(found: tuple[float, float, int] | None) -> Rating:
    return Rating() if found is None else Rating(found[0], found[1], found[2])


async def _ratings_map(
    tx: StorageTx, guild_id: int, season_no: int, users: Sequence[int]
) -> dict[int, tuple[float, float, int]]:
    return await repo.get_ratings(tx, guild_id, season_no, users)


FoldRow = tuple[int, int, int, HandDigest | TourneyDigest, int, str]
"""A result as the ratings fold takes it: (ordinal, guild, season, decoded digest, created_at, result key)."""


def _fold_rows(rows: Sequence[tuple[int, int, int, str, int, str]]) -> list[FoldRow]:
    return [(o, g, n, decode(b), c, k) for o, g, n, b, c, k in rows]


def _lines_of(result: HandDigest | TourneyDigest) -> list[tuple[int, int, int]]:
    """(user, place, net) of the humans in a result: a hand's place is 1 for who went out (or split), 2 for the others
    who knocked in, 0 for who went on top; a tournament's is the finishing place."""
    if isinstance(result, TourneyDigest):
        return [(u, p, 0) for u, p, _ in result.places if is_human(u)]
    return [(p.user_id, 1 if p.won else 2 if p.played else 0, p.net) for p in result.players if is_human(p.user_id)]


async def _fold_ratings(tx: StorageTx, rows: Sequence[FoldRow], cache: dict[tuple[int, int, int], Rating]) -> None:
    """Apply the results ``rows`` to the ratings, in order, and write them, with each human's history row (his
    ratings before and after every result he took part in, rated or not): one transaction, so the history always
    matches the ratings it reports."""
    dirty: set[tuple[int, int, int]] = set()
    history: list[repo.HistoryRow] = []
    for ordinal, guild, season_no, result, created, key in rows:
        lines = _lines_of(result)
        if not lines:
            continue
        match = rating_match(result)
        scopes = (0, season_no) if season_no else (0,)
        for scope in scopes:
            missing = [u for u, _, _ in lines if (guild, scope, u) not in cache]
            if missing:
                found = await repo.get_ratings(tx, guild, scope, missing)
                for u in missing:
                    cache[(guild, scope, u)] = _rating(found.get(u))
        before = {(scope, u): cache[(guild, scope, u)] for scope in scopes for u, _, _ in lines}
        rated_ids: set[int] = set()
        if match is not None:
            ids, ranks = match
            rated_ids = set(ids)
            for scope in scopes:
                after = rate([cache[(guild, scope, u)] for u in ids], ranks)
                for u, r in zip(ids, after, strict=True):
                    cache[(guild, scope, u)] = r
                    dirty.add((guild, scope, u))
        for u, place, net in lines:
            now = cache[(guild, 0, u)]
            history.append(
                repo.HistoryRow(
                    guild_id=guild,
                    user_id=u,
                    ordinal=ordinal,
                    season_no=season_no,
                    result_key=key,
                    created_at=created,
                    kind="tourney" if isinstance(result, TourneyDigest) else "hand",
                    place=place,
                    net=net,
                    rated=u in rated_ids,
                    rated_count=now.rated,
                    score_before=before[(0, u)].score,
                    score=now.score,
                    season_before=before[(season_no, u)].score if season_no else None,
                    season_score=cache[(guild, season_no, u)].score if season_no else None,
                )
            )
    await repo.put_ratings(
        tx,
        [
            (g, s, u, cache[(g, s, u)].mu, cache[(g, s, u)].sigma, cache[(g, s, u)].rated, cache[(g, s, u)].score)
            for g, s, u in sorted(dirty)
        ],
    )
    await repo.put_history(tx, history)


async def _digest_from_stored_log(
    tx: StorageTx, table_id: int, config: TableConfig, hand_no: int, last_action: str
) -> HandDigest | None:
    """The digest of hand ``hand_no`` from the table's stored log plus ``last_action`` (the action that ends it,
    appended in the same transaction right after)."""
    actions = [a for _, a, _ in await tx.read_log(table_id, 0)] + [last_action]
    for _, digest in digests_from_log(table_id, config.rules(), actions):
        if digest.hand_no == hand_no:
            return digest
    return None


async def _rederive_hands(tx: StorageTx) -> int:
    """Replace each table's hand results with ones re-derived from its action log (same key, same ordinal). Returns
    the number of hands re-derived. A hand recorded before keeps its season number; a hand never recorded gets the
    season that was running when it was logged. A table whose log does not replay keeps its recorded results (logged
    as a warning); results with no table behind them (``record_hand``) are kept as they are."""
    known = dict(await repo.hand_seasons(tx))
    windows = await repo.season_windows(tx)
    count = 0
    for table_id, guild_id, config_text in await repo.all_tables(tx):
        log_rows = await repo.table_log(tx, table_id)
        try:
            rules = TableConfig.from_json(config_text).rules()
            derived = list(digests_from_log(table_id, rules, [action for _, action, _, _ in log_rows]))
        except Exception:
            log.warning("table %s: its log does not replay; its recorded results are kept", table_id, exc_info=True)
            continue
        await repo.delete_table_hands(tx, table_id)
        for position, hand in derived:
            _, _, journal, created = log_rows[position - 1]
            season = known.get(hand.key)
            if season is None:
                season = next(
                    (
                        n
                        for g, n, start, end in windows
                        if g == guild_id and start <= created and (end is None or created < end)
                    ),
                    0,
                )
            await repo.insert_results(
                tx, [(hand.key, journal, guild_id, season, "hand", table_id, hand.hand_no, int(created), hand.encode())]
            )
            count += 1
    return count


def _flags_of(bodies: list[str]) -> list[Flag]:
    return compute_flags(d for d in (decode(b) for b in bodies) if isinstance(d, HandDigest))
