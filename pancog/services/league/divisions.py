"""Divisions: rating bands or top-N splits of a guild's established players, with optional roles kept in step as
ratings move (no discord).

A guild's divisions (best first, in its league settings, V15) each take the players ranked ``top`` or better by
all-time rating, or with a rating of at least ``floor``; a player is in the first division that takes him, and in
none until his rating is established. :meth:`DivisionsRoom.sync_divisions` (the league cog's periodic tick, after
the drain) compares that with ``league_divisions`` and, for every player whose division changed, writes the new one
and owes the role changes through the durable outbox **in the same transaction**: ``role.remove`` of the old
division's role, ``role.grant`` of the new one's, keyed ``division:G:U:<change number>:remove|grant`` — a retried
sync owes nothing twice, and the grant handler does nothing for a member who has the role.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pancog.game.i18n import N_
from pancog.infra.storage.base import StorageTx

from .decay import pending_decay
from .model import ROLE_GRANT, ROLE_REMOVE, SeasonInputError
from .recording import Recording
from .settings import Division, LeagueSettings, get_settings, put_settings

__all__ = ["DivisionsRoom", "place_divisions"]

MAX_DIVISIONS = 10


def place_divisions(ranked: Sequence[tuple[int, int]], divisions: Sequence[Division]) -> dict[int, str]:
    """{user: division name} of the established players ``ranked`` (user, score) best first."""
    placed: dict[int, str] = {}
    for rank, (user, score) in enumerate(ranked, start=1):
        for division in divisions:
            if (division.top is not None and rank <= division.top) or (
                division.floor is not None and score >= division.floor
            ):
                placed[user] = division.name
                break
    return placed


class DivisionsRoom(Recording):
    async def set_division(
        self,
        guild_id: int,
        name: str,
        *,
        min_rating: float | None = None,
        top: int | None = None,
        role_id: int | None = None,
        remove: bool = False,
    ) -> LeagueSettings:
        """Add or replace the division ``name`` (a rating band from ``min_rating``, or the ``top`` N), or remove it.
        Divisions are kept best first: top-N splits by N, then bands by their floor, highest first.

        Raises:
            SeasonInputError: neither or both of min_rating and top, a bad name, or too many divisions.
        """
        name = " ".join(name.split())
        if not name or len(name) > 30:
            raise SeasonInputError(N_("A division needs a name of 1 to 30 characters."))
        if not remove and (min_rating is None) == (top is None):
            raise SeasonInputError(N_("A division takes either min_rating: (a rating band) or top: (the best N)."))
        async with self.storage.transaction() as tx:
            settings = await get_settings(tx, guild_id)
            kept = [d for d in settings.divisions if d.name != name]
            if not remove:
                floor = round(min_rating * 1000) if min_rating is not None else None
                kept.append(Division(name=name, floor=floor, top=top, role_id=role_id))
            if len(kept) > MAX_DIVISIONS:
                raise SeasonInputError(N_("Up to {n} divisions."), n=MAX_DIVISIONS)
            kept.sort(key=lambda d: (d.top is None, d.top or 0, -(d.floor or 0)))
            changed = dataclasses.replace(settings, divisions=tuple(kept))
            await put_settings(tx, guild_id, changed)
        return changed

    async def division_guilds(self) -> list[int]:
        """The guilds that have divisions (the tick keeps them in step)."""
        async with self.storage.transaction(write=False) as tx:
            rows = await tx.fetchall("SELECT guild_id FROM league_settings WHERE divisions <> '[]' ORDER BY guild_id")
        return [int(g) for (g,) in rows]

    async def divisions_of(self, guild_id: int) -> dict[int, str]:
        """{user: division} as last kept in step."""
        async with self.storage.transaction(write=False) as tx:
            rows = await tx.fetchall(
                "SELECT user_id, division FROM league_divisions WHERE guild_id = ? AND division <> ''", (guild_id,)
            )
        return {int(u): str(d) for u, d in rows}

    async def sync_divisions(self, guild_id: int) -> int:
        """Keep the guild's divisions (and their roles, through the outbox) in step with the ratings. Returns how
        many players changed division."""
        await self.drain()
        async with self.storage.transaction() as tx:
            settings = await get_settings(tx, guild_id)
            ranked = await tx.fetchall(
                "SELECT user_id, score, rated FROM league_ratings WHERE guild_id = ? AND season_no = 0 AND rated >= ? "
                "AND user_id >= 0 ORDER BY score DESC, user_id",
                (guild_id, settings.established),
            )
            scores = {int(u): (int(s), int(n)) for u, s, n in ranked}
            owed = await pending_decay(tx, guild_id, scores, self._clock())
            shown = sorted(((u, s - owed.get(u, 0)) for u, (s, _) in scores.items()), key=lambda r: (-r[1], r[0]))
            placed = place_divisions(shown, settings.divisions)  # by the ratings as shown (decay owed included)
            rows = await tx.fetchall(
                "SELECT user_id, division, changes FROM league_divisions WHERE guild_id = ?", (guild_id,)
            )
            before = {int(u): (str(d), int(c)) for u, d, c in rows}
            roles = {d.name: d.role_id for d in settings.divisions}
            changed = 0
            for user in sorted(set(placed) | set(before)):
                old, changes = before.get(user, ("", 0))
                new = placed.get(user, "")
                if new == old:
                    continue
                changed += 1
                changes += 1
                await tx.execute(
                    "INSERT INTO league_divisions (guild_id, user_id, division, changes) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (guild_id, user_id) DO UPDATE SET division = excluded.division, "
                    "changes = excluded.changes",
                    (guild_id, user, new, changes),
                )
                await self._owe_division_roles(tx, guild_id, user, changes, roles.get(old), roles.get(new), new)
        return changed

    async def _owe_division_roles(
        self, tx: StorageTx, guild: int, user: int, change: int, old_role: int | None, new_role: int | None, name: str
    ) -> None:
        if self.outbox is None or old_role == new_role:
            return
        key = f"division:{guild}:{user}:{change}:"
        if old_role is not None:
            payload = {"role_id": old_role, "user_id": user, "reason": "Pan league: left the division"}
            await self.outbox.enqueue(tx, key=key + "remove", guild_id=guild, kind=ROLE_REMOVE, payload=payload)
        if new_role is not None:
            payload = {"role_id": new_role, "user_id": user, "reason": f"Pan league: division {name}"}
            await self.outbox.enqueue(tx, key=key + "grant", guild_id=guild, kind=ROLE_GRANT, payload=payload)
