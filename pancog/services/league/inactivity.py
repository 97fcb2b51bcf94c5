"""The decay warnings room: a DM a day before a player's rating starts to decay (no discord).

:meth:`DecayRoom.decay_warnings` finds the established players of a guild whose decay (the rule in force,
:mod:`.decay`) starts within the next day; the league cog's tick words each warning in the player's language (or
skips it when he takes no DMs from Pan) and :meth:`DecayRoom.owe_decay_warnings` owes them through the durable outbox
(``message.dm``), keyed per player and inactivity spell (``league:decay:G:U:<his last result>``): a spell is warned
once, however many ticks see it, and a new result starts a new spell.
"""

from __future__ import annotations

from collections.abc import Sequence

from .decay import DAY, DecayWarning, decay_rules, decay_start, last_results
from .model import MESSAGE_DM
from .recording import Recording

__all__ = ["DecayRoom", "warning_key"]


def warning_key(guild_id: int, warning: DecayWarning) -> str:
    return f"league:decay:{guild_id}:{warning.user_id}:{warning.last}"


class DecayRoom(Recording):
    async def decay_guilds(self) -> list[int]:
        """The guilds whose decay is on (the tick warns their players)."""
        async with self.storage.transaction(write=False) as tx:
            rows = await tx.fetchall(
                "SELECT r.guild_id FROM league_decay_rules r WHERE r.points > 0 AND r.since = "
                "(SELECT MAX(l.since) FROM league_decay_rules l WHERE l.guild_id = r.guild_id) ORDER BY r.guild_id"
            )
        return [int(g) for (g,) in rows]

    async def decay_warnings(self, guild_id: int) -> list[DecayWarning]:
        """The players whose all-time rating starts to decay within the next day (by the rule in force now) and who
        were not warned for this spell yet; none when decay is off."""
        await self.drain()
        now = int(self._clock())
        async with self.storage.transaction(write=False) as tx:
            rules = await decay_rules(tx, guild_id)
            if not rules or rules[-1].points <= 0:
                return []
            rule = rules[-1]
            rows = await tx.fetchall(
                "SELECT user_id, score FROM league_ratings WHERE guild_id = ? AND season_no = 0 AND rated >= ? "
                "AND user_id >= 0 AND score > 0 ORDER BY user_id",
                (guild_id, rule.established),
            )
            last = await last_results(tx, guild_id, [int(u) for u, _ in rows])
            due: list[DecayWarning] = []
            for user, score in rows:
                spell = last.get(int(user))
                if spell is None:
                    continue
                starts = decay_start(rule, spell)
                if starts - DAY <= now < starts:
                    due.append(
                        DecayWarning(
                            user_id=int(user), last=spell, starts_at=starts, points=rule.points, score=int(score)
                        )
                    )
            if due and self.outbox is not None:
                keys = [warning_key(guild_id, w) for w in due]
                found = await tx.fetchall(
                    f"SELECT key FROM outbox WHERE key IN ({', '.join('?' * len(keys))})",  # noqa: S608
                    keys,
                )
                warned = {str(k) for (k,) in found}
                due = [w for w in due if warning_key(guild_id, w) not in warned]
        return due

    async def owe_decay_warnings(self, guild_id: int, worded: Sequence[tuple[DecayWarning, str | None]]) -> int:
        """Owe each warning's DM (its text as the player reads it; None: he takes no DMs, nothing owed) in one
        transaction. Returns how many were newly owed (a spell warned before owes nothing again)."""
        if self.outbox is None:
            return 0
        owed = 0
        async with self.storage.transaction() as tx:
            for warning, content in worded:
                if content is None:
                    continue
                payload = {"user_id": warning.user_id, "content": content}
                key = warning_key(guild_id, warning)
                owed += await self.outbox.enqueue(tx, key=key, guild_id=guild_id, kind=MESSAGE_DM, payload=payload)
        return owed
