"""A guild's league settings and who is eligible for its season leaderboard (no discord).

A rating is *established* after ``established`` rated results (before that it shows with a "?"); a player is
*eligible* for the season leaderboard when his all-time rating in the guild is established and he has a result in
the guild within the last ``active_days`` days. The settings live in ``league_settings`` (migration V15); a guild
without a row has the defaults.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from pancog.game.i18n import N_
from pancog.infra.storage.base import StorageTx

from .model import SeasonInputError
from .ratings import PROVISIONAL_RESULTS

__all__ = ["ACTIVE_DAYS", "Division", "LeagueSettings", "eligible_users", "get_settings", "last_played", "put_settings"]

ACTIVE_DAYS = 14
MAX_ESTABLISHED = 1000
MAX_ACTIVE_DAYS = 366
MAX_DECAY_POINTS = 100


@dataclass(frozen=True, slots=True, kw_only=True)
class Division:
    """A division: the players ranked ``top`` or better by all-time rating (a top-N split), or with a rating of at
    least ``floor`` (x 1000, as stored); ``role_id`` a role its players hold while in it."""

    name: str
    floor: int | None = None
    top: int | None = None
    role_id: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "floor": self.floor, "top": self.top, "role": self.role_id}

    @staticmethod
    def from_json(data: dict[str, object]) -> Division:
        def num(key: str) -> int | None:
            value = data.get(key)
            return int(str(value)) if value is not None else None

        return Division(name=str(data["name"]), floor=num("floor"), top=num("top"), role_id=num("role"))


@dataclass(frozen=True, slots=True, kw_only=True)
class LeagueSettings:
    established: int = PROVISIONAL_RESULTS
    active_days: int = ACTIVE_DAYS
    divisions: tuple[Division, ...] = ()  # best first
    # the decay rule in force (decay.py, V18): rating points (x 1000) lost a week after ``decay_after`` days without a
    # result; 0 = off (the default)
    decay: int = 0
    decay_after: int = 0

    def changed(self, *, established: int | None = None, active_days: int | None = None) -> LeagueSettings:
        """These settings with the given ones changed.

        Raises:
            SeasonInputError: a figure out of range (nothing changes).
        """
        if established is not None and not 0 <= established <= MAX_ESTABLISHED:
            raise SeasonInputError(N_("Established after 0 to {n} rated results."), n=MAX_ESTABLISHED)
        if active_days is not None and not 1 <= active_days <= MAX_ACTIVE_DAYS:
            raise SeasonInputError(N_("Active means a result within 1 to {n} days."), n=MAX_ACTIVE_DAYS)
        return dataclasses.replace(
            self,
            established=self.established if established is None else established,
            active_days=self.active_days if active_days is None else active_days,
        )

    def with_decay(self, *, points: float | None, after: int | None) -> LeagueSettings:
        """These settings with the decay changed (``points`` a week, as shown: 0 turns it off; ``after`` days
        without a result before it starts; None keeps one).

        Raises:
            SeasonInputError: a figure out of range (nothing changes).
        """
        if points is not None and not 0 <= points <= MAX_DECAY_POINTS:
            raise SeasonInputError(N_("Decay: 0 to {n} rating points a week (0 turns it off)."), n=MAX_DECAY_POINTS)
        if after is not None and not 1 <= after <= MAX_ACTIVE_DAYS:
            raise SeasonInputError(N_("Decay starts after 1 to {n} days without a result."), n=MAX_ACTIVE_DAYS)
        decay = self.decay if points is None else round(points * 1000)
        decay_after = after if after is not None else self.decay_after or self.active_days
        return dataclasses.replace(self, decay=decay, decay_after=decay_after)


async def get_settings(tx: StorageTx, guild_id: int) -> LeagueSettings:
    rows = await tx.fetchall(
        "SELECT established, active_days, divisions FROM league_settings WHERE guild_id = ?",
        (guild_id,),
    )
    rule = await tx.fetchall(
        "SELECT points, after_days FROM league_decay_rules WHERE guild_id = ? ORDER BY since DESC LIMIT 1", (guild_id,)
    )
    decay, decay_after = (int(rule[0][0]), int(rule[0][1])) if rule else (0, 0)
    if not rows:
        return LeagueSettings(decay=decay, decay_after=decay_after)
    established, active_days, divisions = rows[0]
    return LeagueSettings(
        established=int(established),
        active_days=int(active_days),
        divisions=tuple(Division.from_json(d) for d in json.loads(str(divisions) or "[]")),
        decay=decay,
        decay_after=decay_after,
    )


async def put_settings(tx: StorageTx, guild_id: int, settings: LeagueSettings) -> None:
    await tx.execute(
        "INSERT INTO league_settings (guild_id, established, active_days, divisions) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (guild_id) DO UPDATE SET established = excluded.established, active_days = excluded.active_days, "
        "divisions = excluded.divisions",
        (guild_id, settings.established, settings.active_days, json.dumps([d.to_json() for d in settings.divisions])),
    )


async def eligible_users(tx: StorageTx, guild_id: int, settings: LeagueSettings, now: float) -> set[int]:
    """The players of ``guild_id`` eligible for its season leaderboard at ``now``."""
    since = int(now) - settings.active_days * 86_400
    rows = await tx.fetchall(
        "SELECT r.user_id FROM league_ratings r WHERE r.guild_id = ? AND r.season_no = 0 AND r.rated >= ? "
        "AND r.user_id >= 0 AND EXISTS (SELECT 1 FROM league_history h WHERE h.guild_id = r.guild_id "
        "AND h.user_id = r.user_id AND h.created_at >= ?)",
        (guild_id, settings.established, since),
    )
    return {int(u) for (u,) in rows}


async def last_played(tx: StorageTx, guild_id: int, user_id: int) -> tuple[int, int | None]:
    """(all-time rated results, when he last had a result or None) of one player in the guild."""
    rated = await tx.fetchall(
        "SELECT rated FROM league_ratings WHERE guild_id = ? AND season_no = 0 AND user_id = ?", (guild_id, user_id)
    )
    last = await tx.fetchall(
        "SELECT MAX(created_at) FROM league_history WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    )
    return (int(rated[0][0]) if rated else 0), (int(last[0][0]) if last and last[0][0] is not None else None)
