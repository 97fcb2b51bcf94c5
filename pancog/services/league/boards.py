"""The league's boards room: leaderboards, player cards, rating histories, head-to-heads, flags (reads only)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from pancog.game.i18n import N_
from pancog.infra.storage.base import BankScope, StorageTx
from pancog.services.ledger import Holding, rank_holdings

from . import repo
from .decay import DecayRule, pending_decay, put_decay_rule
from .digest import HandDigest, decode
from .flags import Flag, compute_flags
from .model import (
    Board,
    BoardLine,
    Metric,
    NoSeason,
    Period,
    PlayerCard,
    RatingHistory,
    SeasonInputError,
    Versus,
    _rating,
)
from .ratings import Rating, decayed
from .recording import Recording
from .repo import HistoryRow, StatsRow
from .settings import LeagueSettings, eligible_users, get_settings, last_played, put_settings


class Boards(Recording):
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
            established = (await get_settings(tx, guild_id)).established
            all_time = await repo.get_stats(tx, guild_id, 0, user_id) or StatsRow(user_id=user_id)
            season_stats = await repo.get_stats(tx, guild_id, season.number, user_id) if season is not None else None
            rating = await self._shown_rating(tx, guild_id, user_id)
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
            rating=rating,
            season_rating=_rating(season_rating) if season is not None else None,
            season_bank=season_bank,
            established=established,
        )

    async def rating_history(self, guild_id: int, user_id: int, *, recent: int = 20) -> RatingHistory:
        """The player's rating after each of his rated results (all-time and the running season) and his last
        ``recent`` rated results with their rating change. Reads ``league_history`` (V11), written by the fold."""
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            season = await repo.active_season(tx, guild_id)
            established = (await get_settings(tx, guild_id)).established
            rows = await repo.history(tx, guild_id, user_id, rated_only=True)
            rating = await self._shown_rating(tx, guild_id, user_id)
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
            established=established,
        )

    async def versus(self, guild_id: int, user_id: int, other_id: int) -> Versus:
        """Head-to-head: every result both players took part in (hands dealt together, tournaments played together).

        Raises:
            SeasonInputError: the same player twice.
        """
        if user_id == other_id:
            raise SeasonInputError(N_("Pick another player to compare with."))
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
        page: int = 1,
    ) -> Board:
        """Page ``page`` of ``limit`` lines and the caller's own line.

        ``net`` chips won, ``wins`` hands won + tournaments won, ``rating`` the conservative rating, ``chips`` the bank
        (the season banks in a 'bank' season; in a 'net' season, chips won in it). ``season`` lists the eligible
        players only (established and active: :mod:`.settings`) and leaves out excluded players; ranks are places
        among those listed.

        Raises:
            NoSeason: ``period='season'`` and no season is running.
            SeasonInputError: an unknown metric or period, or a page below 1.
        """
        if metric not in ("net", "chips", "rating", "wins") or period not in ("season", "all"):
            raise SeasonInputError(N_("Pick a metric (net, chips, rating, wins) and a period (season, all)."))
        if page < 1:
            raise SeasonInputError(N_("Pages start at 1."))
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            season = await repo.active_season(tx, guild_id)
            if period == "season" and season is None:
                raise NoSeason
            settings = await get_settings(tx, guild_id)
            season_no = season.number if period == "season" and season is not None else 0
            excluded = [u for u, _, _, _ in await repo.exclusions(tx, guild_id, season_no)] if season_no else []
            scope = (
                (season.bank_scope if season is not None and season.mode == "bank" else None)
                if season_no
                else BankScope.guild(guild_id)
            )
            if metric == "chips" and scope is not None:  # what players have: bank + chips at the tables
                held = await rank_holdings(tx, guild_id, scope, limit=_EVERYONE, caller=caller, exclude=excluded)
                every = [_holding_line(h) for h in held.lines]
            else:
                column = {"net": "net", "chips": "net", "wins": "hands_won", "rating": "score"}[metric]
                top = await repo.ranked(tx, guild_id, season_no, column, _EVERYONE, excluded)
                if metric == "rating" and not season_no:  # all-time ratings show the decay owed until now
                    owed = await pending_decay(tx, guild_id, {u: (v, n) for u, v, n in top}, self._clock())
                    if owed:
                        top = sorted(((u, v - owed.get(u, 0), n) for u, v, n in top), key=lambda r: (-r[1], r[0]))
                every = list(_ranked_lines(top))
            ineligible: tuple[int, int | None, bool] | None = None
            if season_no:  # a season board lists the eligible players only, placed among themselves
                eligible = await eligible_users(tx, guild_id, settings, self._clock())
                every = _reranked([line for line in every if line.user_id in eligible])
                if caller is not None and caller not in eligible and caller not in excluded:
                    rated, last = await last_played(tx, guild_id, caller)
                    active = last is not None and last >= self._clock() - settings.active_days * 86_400
                    ineligible = (rated, last, active)
        pages = max(1, -(-len(every) // limit))
        mine = next((line for line in every if line.user_id == caller), None)
        return Board(
            metric=metric,
            period=period,
            season=season if season_no else None,
            lines=tuple(every[(page - 1) * limit : page * limit]),
            caller=mine,
            page=page,
            pages=pages,
            established=settings.established,
            ineligible=ineligible,
            active_days=settings.active_days,
        )

    async def _shown_rating(self, tx: StorageTx, guild_id: int, user_id: int) -> Rating:
        """The player's all-time rating as shown now: stored, less the decay owed since his last result."""
        rating = _rating((await _ratings_map(tx, guild_id, 0, [user_id])).get(user_id))
        owed = await pending_decay(tx, guild_id, {user_id: (rating.score, rating.rated)}, self._clock())
        return decayed(rating, owed[user_id]) if user_id in owed else rating

    # ------------------------------------------------------------------ league settings

    async def league_settings(self, guild_id: int) -> LeagueSettings:
        async with self.storage.transaction(write=False) as tx:
            return await get_settings(tx, guild_id)

    async def configure(
        self,
        guild_id: int,
        *,
        established: int | None = None,
        active_days: int | None = None,
        decay: float | None = None,
        decay_after: int | None = None,
    ) -> LeagueSettings:
        """Change the guild's league settings (``/panadmin league``); None keeps one. Returns them. ``decay``:
        rating points a week an inactive established player loses (0: off) after ``decay_after`` days without a
        result. A decay change (or a new ``established`` while decay is on) is a new rule from now on (:mod:`.decay`):
        the gaps before keep the rules they had.

        Raises:
            SeasonInputError: a figure out of range (nothing changes).
        """
        async with self.storage.transaction() as tx:
            before = await get_settings(tx, guild_id)
            settings = before.changed(established=established, active_days=active_days)
            if decay is not None or decay_after is not None:
                settings = settings.with_decay(points=decay, after=decay_after)
            await put_settings(tx, guild_id, settings)
            if (settings.decay, settings.decay_after) != (before.decay, before.decay_after) or (
                settings.decay and settings.established != before.established
            ):
                rule = DecayRule(
                    since=int(self._clock()),
                    points=settings.decay,
                    after=settings.decay_after,
                    established=settings.established,
                )
                await put_decay_rule(tx, guild_id, rule)
        return settings


_EVERYONE = 1_000_000  # a board reads every line, then pages (a guild's players, not its hands)


def _reranked(lines: Sequence[BoardLine]) -> list[BoardLine]:
    """Lines best first, placed again among themselves (equal values share a place)."""
    out: list[BoardLine] = []
    for i, line in enumerate(lines):
        rank = out[-1].rank if out and out[-1].value == line.value else i + 1
        out.append(replace(line, rank=rank))
    return out


def _ranked_lines(top: Sequence[tuple[int, int, int]]) -> tuple[BoardLine, ...]:
    """(user, value, rated) best first -> board lines, equal values sharing a rank."""
    lines: list[BoardLine] = []
    for i, (user, value, rated) in enumerate(top):
        rank = lines[-1].rank if lines and lines[-1].value == value else i + 1
        lines.append(BoardLine(rank=rank, user_id=user, value=value, rated=rated))
    return tuple(lines)


def _holding_line(held: Holding) -> BoardLine:
    return BoardLine(rank=held.rank, user_id=held.user_id, value=held.total, bank=held.bank, at_tables=held.at_tables)


async def _ratings_map(
    tx: StorageTx, guild_id: int, season_no: int, users: Sequence[int]
) -> dict[int, tuple[float, float, int]]:
    return await repo.get_ratings(tx, guild_id, season_no, users)


def _flags_of(bodies: list[str]) -> list[Flag]:
    return compute_flags(d for d in (decode(b) for b in bodies) if isinstance(d, HandDigest))
