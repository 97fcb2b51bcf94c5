"""Series points: a league that runs as a series of tournaments ("best 8 of 12 events"). No discord.

A series is a named set of a guild's tournaments (``league_series``, ``league_series_events``: migration V15) with
points per finishing place and the number of a player's best results that count. Its standings are computed from
the tournaments' stored results (``league_results``, key ``tourney:<id>``, written by ``record_tournament``), so they
always agree with the results: nothing is stored twice. Computer players are left out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from pancog.game.errors import PanError
from pancog.game.i18n import N_
from pancog.infra.storage.base import StorageTx

from . import repo
from .digest import TourneyDigest, decode, is_human
from .model import SeasonInputError
from .recording import Recording

__all__ = ["NoSeries", "Series", "SeriesLine", "SeriesRoom", "SeriesStandings", "parse_points", "series_lines"]

MAX_SERIES_NAME = 40


class NoSeries(PanError):
    code = "no_series"

    def __init__(self) -> None:
        super().__init__(N_("No such series here. A moderator makes one with /panadmin series."))


MAX_PLACES = 64
MAX_EVENTS = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class Series:
    guild_id: int
    name: str
    season_no: int
    points: tuple[int, ...]  # points of places 1, 2, ...
    best: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SeriesLine:
    place: int  # equal totals (and equal best results) share a place
    user_id: int
    total: int  # the sum of his ``best`` best results
    counted: tuple[int, ...]  # the points that count, best first
    played: int  # events of the series he finished


@dataclass(frozen=True, slots=True, kw_only=True)
class SeriesStandings:
    series: Series
    events: int  # tournaments listed in the series (M)
    finished: int  # of those, with a recorded result
    lines: tuple[SeriesLine, ...]


def check_series(name: str, points: Sequence[int], best: int) -> str:
    """The cleaned name; raises :class:`SeasonInputError` for a bad name, points table or count."""
    name = " ".join(name.split())
    if not name or len(name) > MAX_SERIES_NAME:
        raise SeasonInputError(N_("A series needs a name of 1 to {n} characters."), n=MAX_SERIES_NAME)
    if not points or len(points) > MAX_PLACES or any(p < 0 or p > 10_000 for p in points):
        raise SeasonInputError(
            N_("Points: 1 to {n} numbers from 0 to 10,000, first place first (25,18,15)."), n=MAX_PLACES
        )
    if not 1 <= best <= MAX_EVENTS:
        raise SeasonInputError(N_("Best results that count: 1 to {n}."), n=MAX_EVENTS)
    return name


def parse_points(text: str) -> tuple[int, ...]:
    """``"25, 18, 15"`` -> (25, 18, 15); raises :class:`SeasonInputError` when it is not a list of numbers."""
    try:
        return tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError:
        raise SeasonInputError(N_("Points: numbers separated by commas, first place first (25,18,15).")) from None


def series_lines(
    results: Sequence[Sequence[tuple[int, int]]], points: Sequence[int], best: int
) -> tuple[SeriesLine, ...]:
    """The standings of finished events: ``results`` holds each event's (user, place). A place earns
    ``points[place - 1]`` (0 beyond the table); a player's ``best`` best results count. Ordered by total, then by
    his counted results compared best first (the better best result first), then by user id."""
    earned: dict[int, list[int]] = {}
    for event in results:
        for user, place in event:
            if is_human(user):
                earned.setdefault(user, []).append(points[place - 1] if 1 <= place <= len(points) else 0)
    rows = []
    for user, got in earned.items():
        counted = tuple(sorted(got, reverse=True)[:best])
        rows.append((sum(counted), counted, user, len(got)))
    rows.sort(key=lambda r: (-r[0], tuple(-p for p in r[1]), r[2]))
    lines: list[SeriesLine] = []
    for i, (total, counted, user, played) in enumerate(rows):
        same = lines and lines[-1].total == total and lines[-1].counted == counted
        place = lines[-1].place if same else i + 1
        lines.append(SeriesLine(place=place, user_id=user, total=total, counted=counted, played=played))
    return tuple(lines)


async def get_series(tx: StorageTx, guild_id: int, name: str) -> Series | None:
    rows = await tx.fetchall(
        "SELECT season_no, points, best FROM league_series WHERE guild_id = ? AND name = ?", (guild_id, name)
    )
    if not rows:
        return None
    season_no, points, best = rows[0]
    return Series(
        guild_id=guild_id,
        name=name,
        season_no=int(season_no),
        points=tuple(int(p) for p in str(points).split(",")),
        best=int(best),
    )


async def put_series(tx: StorageTx, series: Series, now: int) -> None:
    await tx.execute(
        "INSERT INTO league_series (guild_id, name, season_no, points, best, created_at) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (guild_id, name) DO UPDATE SET points = excluded.points, best = excluded.best",
        (series.guild_id, series.name, series.season_no, ",".join(map(str, series.points)), series.best, now),
    )


async def add_event(tx: StorageTx, guild_id: int, name: str, tourney_id: int) -> bool:
    """List a tournament in the series; False if it was listed already."""
    return bool(
        await tx.execute(
            "INSERT INTO league_series_events (guild_id, name, tourney_id) VALUES (?, ?, ?) "
            "ON CONFLICT (guild_id, name, tourney_id) DO NOTHING",
            (guild_id, name, tourney_id),
        )
    )


async def event_results(tx: StorageTx, guild_id: int, name: str) -> tuple[int, list[list[tuple[int, int]]]]:
    """(events listed, the (user, place) lists of those with a recorded result)."""
    listed = await tx.fetchall(
        "SELECT tourney_id FROM league_series_events WHERE guild_id = ? AND name = ? ORDER BY tourney_id",
        (guild_id, name),
    )
    keys = [f"tourney:{int(t)}" for (t,) in listed]
    results: list[list[tuple[int, int]]] = []
    if keys:
        rows = await tx.fetchall(
            f"SELECT body FROM league_results WHERE guild_id = ? AND result_key IN ({', '.join('?' * len(keys))}) "  # noqa: S608
            "ORDER BY ordinal",
            (guild_id, *keys),
        )
        for (body,) in rows:
            digest = decode(str(body))
            if isinstance(digest, TourneyDigest):
                results.append([(u, p) for u, p, _ in digest.places])
    return len(keys), results


class SeriesRoom(Recording):
    """Series of tournaments: made by a moderator, events listed by the tournament side (or a moderator), standings
    read from the results."""

    async def define_series(self, guild_id: int, name: str, points: Sequence[int], best: int) -> Series:
        """Make a series (or change its points and count) in the running season (0 between seasons).

        Raises:
            SeasonInputError: a bad name, points table or count (nothing changes).
        """
        name = check_series(name, points, best)
        async with self.storage.transaction() as tx:
            found = await get_series(tx, guild_id, name)
            season = await repo.active_season(tx, guild_id)
            season_no = found.season_no if found is not None else (season.number if season is not None else 0)
            series = Series(guild_id=guild_id, name=name, season_no=season_no, points=tuple(points), best=best)
            await put_series(tx, series, int(self._clock()))
        return series

    async def add_to_series(self, guild_id: int, name: str, tourney_id: int) -> bool:
        """List tournament ``tourney_id`` as an event of the series (before or after it finished; its result is read
        from the league when the standings are shown). Idempotent: False if it was listed.

        Raises:
            NoSeries: no such series here.
        """
        async with self.storage.transaction() as tx:
            if await get_series(tx, guild_id, " ".join(name.split())) is None:
                raise NoSeries
            return await add_event(tx, guild_id, " ".join(name.split()), tourney_id)

    def series_listing(self, guild_id: int, name: str) -> Callable[[StorageTx, int], Awaitable[None]]:
        """``listing(tx, tourney_id)``: list a tournament in the series inside the caller's transaction (the tournament
        service's ``create(also=...)``: a tournament created as an event of the series is listed with it, or not
        created at all).

        The returned callable raises:
            NoSeries: no such series here (the caller's transaction rolls back: nothing stored).
        """
        name = " ".join(name.split())

        async def listing(tx: StorageTx, tourney_id: int) -> None:
            if await get_series(tx, guild_id, name) is None:
                raise NoSeries
            await add_event(tx, guild_id, name, tourney_id)

        return listing

    async def series_standings(self, guild_id: int, name: str) -> SeriesStandings:
        """The series' standings from its finished events.

        Raises:
            NoSeries: no such series here.
        """
        await self.drain()
        async with self.storage.transaction(write=False) as tx:
            series = await get_series(tx, guild_id, " ".join(name.split()))
            if series is None:
                raise NoSeries
            events, results = await event_results(tx, guild_id, series.name)
        return SeriesStandings(
            series=series,
            events=events,
            finished=len(results),
            lines=series_lines(results, series.points, series.best),
        )
