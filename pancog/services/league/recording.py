"""The league's recording room: results from the table service and tournaments into the league's tables.

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

from pancog.game import engine
from pancog.game.events import HandEnded
from pancog.game.i18n import N_
from pancog.game.state import TableState
from pancog.infra.storage.base import BankScope, ScopeKind, Storage, StorageTx
from pancog.services.ledger import ChipLedger
from pancog.services.outbox import Outbox
from pancog.services.tables import Applied, ResultNote, TableClosed, TableConfig, TableSession

from . import repo
from .decay import DecayRule, capped, decay_due, decay_rules, last_results
from .digest import HandDigest, HandTally, TourneyDigest, decode, digests_from_log, is_human, rating_match
from .model import JOURNALS_CURSOR, RATINGS_CURSOR, SeasonInputError, _rating
from .ratings import Rating, decayed, rate
from .repo import STAT_COLUMNS, SeasonRow

log = logging.getLogger("pan.league")


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


class Recording:
    """Results in: the settlement hook, tournaments, the drain into stats and ratings, the rebuild. The other rooms
    (seasons, boards) build on it; :class:`~pancog.services.league.service.LeagueService` is their front."""

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
        if applied.session.bank_scope.kind is ScopeKind.TOURNAMENT:
            return  # a tournament's hands are not cash hands (see settlement_note)
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
        if ended is None or session.bank_scope.kind is ScopeKind.TOURNAMENT:
            # a tournament's hands are played for its own chips: counting them as cash hands would add tournament
            # chips to a player's net and rate each hand besides the tournament's result (which the finish hook
            # records with its prizes); the tournament counts once, as a tournament
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
        return await self._record_alone(guild_id, _tourney_digest(tourney_id, places, cashed), "tournament result")

    def tournament_note(
        self, guild_id: int, tourney_id: int, places: Sequence[tuple[int, int]], cashed: Collection[int]
    ) -> ResultNote | None:
        """The tournament service's finish hook: a finished tournament's result, recorded on the journal row of its
        prizes in the transaction that pays them (exactly once, as a hand's with its settlement), then drained like
        a hand's. None (nothing recorded) for places that do not rank the field."""
        try:
            digest = _tourney_digest(tourney_id, places, cashed)
        except SeasonInputError:  # the tournament ranks every entry once: unreachable, and never worth its prizes
            log.error("tournament %s: places %r not recorded", tourney_id, places)
            return None
        return self.note(guild_id, digest)

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


def _tourney_digest(tourney_id: int, places: Sequence[tuple[int, int]], cashed: Collection[int]) -> TourneyDigest:
    users = [u for u, _ in places]
    if len(set(users)) != len(users) or any(p < 1 for _, p in places):
        raise SeasonInputError(N_("Each player needs one finishing place, 1 or more."))
    return TourneyDigest(tourney_id=tourney_id, places=[(u, p, u in cashed) for u, p in places])


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
    rules: dict[int, list[DecayRule]] = {}  # guild -> its decay rules (none: no decay)
    last_at: dict[tuple[int, int], int | None] = {}  # (guild, user) -> his last result so far (decay guilds only)
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
        if guild not in rules:
            rules[guild] = await decay_rules(tx, guild)
        if rules[guild]:  # the all-time ratings lose what the gap since each player's last result cost
            await _decay_before(tx, guild, [u for u, _, _ in lines], created, rules[guild], cache, last_at, dirty)
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


async def _decay_before(
    tx: StorageTx,
    guild: int,
    users: Sequence[int],
    created: int,
    rules: Sequence[DecayRule],
    cache: dict[tuple[int, int, int], Rating],
    last_at: dict[tuple[int, int], int | None],
    dirty: set[tuple[int, int, int]],
) -> None:
    """Before a result at ``created``: each player's all-time rating loses the decay of the day boundaries since his
    previous result (:mod:`.decay`); then that result is his last."""
    missing = [u for u in users if (guild, u) not in last_at]
    if missing:
        found = await last_results(tx, guild, missing)
        for u in missing:
            last_at[(guild, u)] = found.get(u)
    for u in users:
        last = last_at[(guild, u)]
        if last is not None:
            rating = cache[(guild, 0, u)]
            amount = capped(decay_due(rules, last, created, rating.rated), rating.score)
            if amount:
                cache[(guild, 0, u)] = decayed(rating, amount)
                dirty.add((guild, 0, u))
        last_at[(guild, u)] = created if last is None else max(last, created)


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
    as a warning); results with no table behind them (``record_hand``) are kept as they are. A tournament's tables
    have no hand results (their hands are not cash hands)."""
    known = dict(await repo.hand_seasons(tx))
    windows = await repo.season_windows(tx)
    count = 0
    for table_id, guild_id, config_text, tournament in await repo.all_tables(tx):
        if tournament:  # not cash hands (Recording.settlement_note): what an older version recorded goes
            await repo.delete_table_hands(tx, table_id)
            continue
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
