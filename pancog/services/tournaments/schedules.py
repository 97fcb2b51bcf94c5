"""Templates and weekly schedules: a host saves a scheduled tournament's settings under a name, and a schedule creates
a tournament from that template every week, ``announce_hours`` before its start, in the schedule's channel. Each
occurrence is published as a Discord Scheduled Event whose status follows the tournament (scheduled, active,
completed, canceled).

Restart safety. An occurrence is created by the tournament clock's tick (:meth:`Schedules.tick`): its tournament, its
row ``(schedule id, occurrence number)`` (the primary key of ``tournament_occurrences``), the schedule's next number
and the outbox items that announce it and publish its event are written in ONE transaction, so a kill leaves either
all of them or none, and a restart creates exactly the occurrences not yet stored. The Discord side follows through
the durable outbox: the announcement (:data:`ANNOUNCE`), the event (:data:`EVENT`) and each status change
(:data:`EVENT_STATUS`), whose keys derive from the occurrence's key, so an item is owed once.

The event's status is re-derived from the stored tournaments on every tick (:meth:`Schedules.sync_events`): the
status last owed is stored (``tournament_events.sent``), and a tournament whose status moved on owes one more edit,
enqueued in the transaction that records it. A kill anywhere loses no edit and owes none twice.

Stored in migration V19 (``tournament_templates``, ``tournament_schedules``, ``tournament_occurrences``,
``tournament_events``). No discord import.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import Any

from pancog.game.errors import PanError
from pancog.game.i18n import N_
from pancog.infra.storage.base import ShardSet, StorageTx
from pancog.services.table_session import NotHost

from .core import Core
from .errors import BadSchedule, BadTournamentOption, NoSuchTournament
from .model import TITLE_MAX, Format, Status, Tournament, TournamentConfig
from .registry import Registry

__all__ = [
    "ANNOUNCE",
    "ANNOUNCE_HOURS",
    "EVENT",
    "EVENT_ACTIVE",
    "EVENT_CANCELED",
    "EVENT_COMPLETED",
    "EVENT_SCHEDULED",
    "EVENT_STATUS",
    "MAX_ANNOUNCE_HOURS",
    "MAX_WEEKS",
    "WEEK_MS",
    "NoSuchSchedule",
    "NoSuchTemplate",
    "Schedule",
    "Schedules",
    "Template",
    "estimated_end_ms",
]

log = logging.getLogger("pan.tournaments")

WEEK_MS = 7 * 86_400_000
MAX_WEEKS = 52
"""A schedule runs 1..52 weeks, or until stopped."""
ANNOUNCE_HOURS = 24
"""Each occurrence is created and announced this many hours before its start by default: a day ahead is when the
regulars of a weekly game look, and the check-in and late registration still happen on the day."""
MAX_ANNOUNCE_HOURS = 144
"""At most six days ahead, so one occurrence of a weekly schedule is open at a time."""
MISSED_LEAD_MS = 60_000
"""An occurrence whose start is less than this far away when the tick reaches it (the bot was down through its whole
announcement window) is recorded as missed, never created to start at once."""
ESTIMATE_LEVELS = 15
"""A Scheduled Event needs an end: start + 15 levels (with their breaks), at least an hour, at most twelve. With the
published antes a 40-entry field lasts about 15 levels (docs/tournaments.md)."""

ANNOUNCE = "tourney.announce"
"""Outbox kind: post an occurrence's announcement in its channel (payload ``tournament_id``)."""
EVENT = "tourney.event"
"""Outbox kind: create the occurrence's Discord Scheduled Event (payload ``tournament_id``, ``schedule_id``)."""
EVENT_STATUS = "tourney.event_status"
"""Outbox kind: move the event to ``status`` (2 active, 3 completed, 4 canceled; payload ``tournament_id``)."""

EVENT_SCHEDULED, EVENT_ACTIVE, EVENT_COMPLETED, EVENT_CANCELED = 1, 2, 3, 4
_EVENT_OF = {
    Status.ANNOUNCED: EVENT_SCHEDULED,
    Status.REGISTERING: EVENT_SCHEDULED,
    Status.RUNNING: EVENT_ACTIVE,
    Status.FINISHED: EVENT_COMPLETED,
    Status.CANCELLED: EVENT_CANCELED,
}


class NoSuchTemplate(PanError):
    code = "no_template"

    def __init__(self) -> None:
        super().__init__(N_("There is no template of that name here (see /tourney templates)."))


class NoSuchSchedule(PanError):
    code = "no_schedule"

    def __init__(self) -> None:
        super().__init__(N_("There is no such schedule here (see /tourney schedule list)."))


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


@dataclass(frozen=True, slots=True, kw_only=True)
class Template:
    guild_id: int
    name: str
    config: str  # TournamentConfig JSON without start and title
    created_by: int

    def for_start(self, start_ms: int) -> TournamentConfig:
        return config_for(self.config, self.name, start_ms)

    @property
    def settings(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.config)
        return data


def config_for(template: str, title: str, start_ms: int) -> TournamentConfig:
    """The tournament config of one occurrence: the template's, with its title and start."""
    data = json.loads(template)
    data["title"], data["start_at_ms"] = title, start_ms
    return TournamentConfig.from_json(json.dumps(data))


@dataclass(slots=True, kw_only=True)
class Schedule:
    schedule_id: int
    guild_id: int
    channel_id: int
    host_id: int
    name: str
    config: str
    first_start_ms: int
    every_ms: int
    occurrences: int  # 0: until stopped
    announce_ms: int
    next_no: int = 0
    stopped_ms: int | None = None
    events_refused: bool = False

    def start_of(self, n: int) -> int:
        return self.first_start_ms + n * self.every_ms

    @property
    def over(self) -> bool:
        return self.stopped_ms is not None or (self.occurrences > 0 and self.next_no >= self.occurrences)

    @property
    def next_start_ms(self) -> int | None:
        return None if self.over else self.start_of(self.next_no)


def estimated_end_ms(config: TournamentConfig) -> int:
    """The Scheduled Event's end: :data:`ESTIMATE_LEVELS` levels and their breaks after the start, clamped to 1..12
    hours (Discord needs an end for an external event; a tournament ends when it ends)."""
    minutes = config.minutes_per_level * ESTIMATE_LEVELS
    if config.break_every:
        minutes += config.break_minutes * (ESTIMATE_LEVELS // config.break_every)
    span = int(min(12 * 60, max(60, minutes)) * 60_000)
    return (config.start_at_ms or 0) + span


_S_COLS = (
    "schedule_id, guild_id, channel_id, host_id, name, config, first_start_ms, every_ms, occurrences, announce_ms, "
    "next_no, stopped_ms, events_refused"
)


def _schedule(r: Any) -> Schedule:
    return Schedule(
        schedule_id=int(r[0]),
        guild_id=int(r[1]),
        channel_id=int(r[2]),
        host_id=int(r[3]),
        name=str(r[4]),
        config=str(r[5]),
        first_start_ms=int(r[6]),
        every_ms=int(r[7]),
        occurrences=int(r[8]),
        announce_ms=int(r[9]),
        next_no=int(r[10]),
        stopped_ms=None if r[11] is None else int(r[11]),
        events_refused=bool(r[12]),
    )


class Schedules:
    """Templates and the schedules of the guilds this process serves (one per tournament service)."""

    def __init__(self, core: Core, registry: Registry) -> None:
        self.core = core
        self.registry = registry
        self.schedules: dict[int, Schedule] = {}  # the running ones
        self._ticking = asyncio.Lock()  # the clock's tick and a command's immediate tick never overlap

    async def load(self, shards: ShardSet | None) -> int:
        where = "stopped_ms IS NULL" + (f" AND {shards.sql_filter('guild_id')}" if shards is not None else "")
        async with self.core.storage.transaction(write=False) as tx:
            rows = await tx.fetchall(f"SELECT {_S_COLS} FROM tournament_schedules WHERE {where}")  # noqa: S608
        for r in rows:
            s = _schedule(r)
            if not s.over:
                self.schedules[s.schedule_id] = s
        return len(self.schedules)

    # ------------------------------------------------------------------ templates

    async def save_template(
        self, guild_id: int, name: str, t: Tournament, user_id: int, *, moderator: bool
    ) -> Template:
        """Save ``t``'s settings (all but its start and title) as the guild's template ``name`` (replacing one of
        that name the same person saved, or any with ``moderator``).

        Raises:
            BadSchedule (a bad name, a Sit & Go, someone else's template of that name), NotHost, NoSuchTournament.
        """
        name = " ".join(name.split())
        if not 1 <= len(name) <= TITLE_MAX:
            raise BadSchedule(N_("A template's name has 1 to {n} characters."), n=TITLE_MAX)
        if t.guild_id != guild_id:
            raise NoSuchTournament
        if user_id != t.host_id and not moderator:
            raise NotHost
        if t.config.format is not Format.SCHEDULED:
            raise BadSchedule(N_("Only a scheduled tournament's settings make a template (a schedule sets its start)."))
        data: dict[str, Any] = json.loads(t.config.to_json())
        data["title"], data["start_at_ms"] = "", None
        data["satellite_for"] = None  # a satellite's target is one tournament, not a weekly one
        template = Template(guild_id=guild_id, name=name, config=json.dumps(data, sort_keys=True), created_by=user_id)
        async with self.core.storage.transaction() as tx:
            await self.core.store.fence_guild(tx, guild_id)
            found = await self._template(tx, guild_id, name)
            if found is not None and found.created_by != user_id and not moderator:
                raise BadSchedule(N_("Someone else saved a template of that name; pick another name."))
            await tx.execute(
                "INSERT INTO tournament_templates (guild_id, name, name_key, config, created_by, created_ms) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, name_key) DO UPDATE SET name = excluded.name, "
                "config = excluded.config, created_by = excluded.created_by, created_ms = excluded.created_ms",
                (guild_id, name, _key(name), template.config, user_id, self.core.now_ms()),
            )
        return template

    async def _template(self, tx: StorageTx, guild_id: int, name: str) -> Template | None:
        rows = await tx.fetchall(
            "SELECT name, config, created_by FROM tournament_templates WHERE guild_id = ? AND name_key = ?",
            (guild_id, _key(name)),
        )
        if not rows:
            return None
        r = rows[0]
        return Template(guild_id=guild_id, name=str(r[0]), config=str(r[1]), created_by=int(r[2]))

    async def template(self, guild_id: int, name: str) -> Template:
        async with self.core.storage.transaction(write=False) as tx:
            found = await self._template(tx, guild_id, name)
        if found is None:
            raise NoSuchTemplate
        return found

    async def templates(self, guild_id: int) -> list[Template]:
        async with self.core.storage.transaction(write=False) as tx:
            rows = await tx.fetchall(
                "SELECT name, config, created_by FROM tournament_templates WHERE guild_id = ? ORDER BY name_key",
                (guild_id,),
            )
        return [Template(guild_id=guild_id, name=str(r[0]), config=str(r[1]), created_by=int(r[2])) for r in rows]

    async def delete_template(self, guild_id: int, name: str, user_id: int, *, moderator: bool) -> Template:
        """Delete a template (whoever saved it, or a moderator); the schedules made from it keep their copy.

        Raises:
            NoSuchTemplate, NotHost.
        """
        async with self.core.storage.transaction() as tx:
            await self.core.store.fence_guild(tx, guild_id)
            found = await self._template(tx, guild_id, name)
            if found is None:
                raise NoSuchTemplate
            if found.created_by != user_id and not moderator:
                raise NotHost
            await tx.execute(
                "DELETE FROM tournament_templates WHERE guild_id = ? AND name_key = ?", (guild_id, _key(name))
            )
        return found

    # ------------------------------------------------------------------ schedules

    async def weekly(
        self,
        schedule_id: int,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        template: str,
        first_start_ms: int,
        weeks: int | None = None,
        announce_hours: int = ANNOUNCE_HOURS,
        moderator: bool = False,
    ) -> Schedule:
        """A weekly schedule of ``template`` from ``first_start_ms`` (``weeks`` occurrences, None: until stopped).

        Raises:
            BadSchedule (a start in the past, weeks or hours out of range), NoSuchTemplate, BadTournamentOption
            (a guarantee or a winner role without being a moderator; the template's settings refused with that
            start).
        """
        if first_start_ms <= self.core.now_ms():
            raise BadSchedule(N_("The first start must be in the future."))
        if weeks is not None and not 1 <= weeks <= MAX_WEEKS:
            raise BadSchedule(N_("A schedule runs 1 to {n} weeks (leave weeks out: until stopped)."), n=MAX_WEEKS)
        if not 1 <= announce_hours <= MAX_ANNOUNCE_HOURS:
            raise BadSchedule(N_("Announce each occurrence 1 to {n} hours ahead."), n=MAX_ANNOUNCE_HOURS)
        found = await self.template(guild_id, template)
        config = found.for_start(first_start_ms)  # BadTournamentOption: refused now, not at the first occurrence
        if (config.guarantee or config.winner_role_id is not None) and not moderator:  # the house's money, a role
            raise BadTournamentOption(
                N_("Only a moderator can schedule a template with a guaranteed prize pool or a winner role.")
            )
        s = Schedule(
            schedule_id=schedule_id,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            name=found.name,
            config=found.config,
            first_start_ms=first_start_ms,
            every_ms=WEEK_MS,
            occurrences=weeks or 0,
            announce_ms=announce_hours * 3_600_000,
        )
        async with self.core.storage.transaction() as tx:
            await self.core.store.fence_guild(tx, guild_id)
            await tx.execute(
                f"INSERT INTO tournament_schedules ({_S_COLS}) VALUES ({', '.join('?' * 13)})",  # noqa: S608
                (
                    s.schedule_id, s.guild_id, s.channel_id, s.host_id, s.name, s.config, s.first_start_ms,
                    s.every_ms, s.occurrences, s.announce_ms, s.next_no, None, 0,
                ),
            )  # fmt: skip
        self.schedules[s.schedule_id] = s
        return s

    def of_guild(self, guild_id: int) -> list[Schedule]:
        """The guild's running schedules, the next start first."""
        found = [s for s in self.schedules.values() if s.guild_id == guild_id and not s.over]
        return sorted(found, key=lambda s: (s.next_start_ms or 0, s.schedule_id))

    async def stop(self, guild_id: int, schedule_id: int, user_id: int, *, moderator: bool) -> Schedule:
        """Stop a schedule (its host or a moderator): no more occurrences; one already announced goes on.

        Raises:
            NoSuchSchedule, NotHost.
        """
        s = self.schedules.get(schedule_id)
        if s is None or s.guild_id != guild_id or s.over:
            raise NoSuchSchedule
        if user_id != s.host_id and not moderator:
            raise NotHost
        now = self.core.now_ms()
        async with self.core.storage.transaction() as tx:
            await self.core.store.fence_guild(tx, guild_id)
            await tx.execute("UPDATE tournament_schedules SET stopped_ms = ? WHERE schedule_id = ?", (now, schedule_id))
        s.stopped_ms = now
        del self.schedules[schedule_id]
        return s

    # ------------------------------------------------------------------ the tick

    async def tick(self) -> None:
        """Create every occurrence whose announcement time has come (each schedule's failure is logged, never
        raised), then owe the Scheduled Events' status changes."""
        async with self._ticking:
            await self._tick()

    async def _tick(self) -> None:
        for s in list(self.schedules.values()):
            try:
                while not s.over and self.core.now_ms() >= s.start_of(s.next_no) - s.announce_ms:
                    await self._occur(s)
            except Exception:
                log.exception("schedule %s: creating occurrence %s failed; retried at the next tick", s.schedule_id,
                              s.next_no)  # fmt: skip
            if s.over:
                self.schedules.pop(s.schedule_id, None)
        try:
            await self.sync_events()
        except Exception:
            log.exception("scheduled events: owing the status changes failed; retried at the next tick")

    async def _occur(self, s: Schedule) -> None:
        n, start = s.next_no, s.start_of(s.next_no)
        now = self.core.now_ms()
        if start - now < MISSED_LEAD_MS:  # the bot was down through its whole window: never a start "now"
            log.warning("schedule %s: occurrence %s (start %s) missed: its start had passed", s.schedule_id, n, start)
            async with self.core.storage.transaction() as tx:
                await self.core.store.fence_guild(tx, s.guild_id)
                await self._advance(tx, s, n, None, start)
            s.next_no = n + 1
            return
        tournament_id = occurrence_id(s.schedule_id, n, now)
        key = f"sched:{s.schedule_id}:{n}"

        async def rows(tx: StorageTx, tid: int) -> None:
            await self._advance(tx, s, n, tid, start)
            await tx.execute(
                "INSERT INTO tournament_events (tournament_id, guild_id, event_id, sent) VALUES (?, ?, NULL, ?)",
                (tid, s.guild_id, EVENT_SCHEDULED),
            )
            outbox = self.core.outbox
            if outbox is not None:  # "a" then "e": one guild's items are delivered in key order, the link first
                await outbox.enqueue(tx, key=key + ":a", guild_id=s.guild_id, kind=ANNOUNCE,
                                     payload={"tournament_id": tid})  # fmt: skip
                await outbox.enqueue(tx, key=key + ":e", guild_id=s.guild_id, kind=EVENT,
                                     payload={"tournament_id": tid, "schedule_id": s.schedule_id})  # fmt: skip

        await self.registry.create(
            tournament_id,
            guild_id=s.guild_id,
            channel_id=s.channel_id,
            host_id=s.host_id,
            config=config_for(s.config, s.name, start),
            also=rows,
        )
        s.next_no = n + 1
        log.info("schedule %s: occurrence %s created as tournament %s", s.schedule_id, n, tournament_id)

    async def _advance(self, tx: StorageTx, s: Schedule, n: int, tournament_id: int | None, start: int) -> None:
        """Record occurrence ``n`` (its key: a second one is refused by the primary key) and move the schedule on."""
        await tx.execute(
            "INSERT INTO tournament_occurrences (schedule_id, occurrence_no, tournament_id, start_ms) "
            "VALUES (?, ?, ?, ?)",
            (s.schedule_id, n, tournament_id, start),
        )
        await tx.execute(
            "UPDATE tournament_schedules SET next_no = ? WHERE schedule_id = ? AND next_no = ?",
            (n + 1, s.schedule_id, n),
        )

    async def occurrences(self, schedule_id: int) -> list[tuple[int, int | None, int]]:
        """(number, tournament id or None if missed, start ms) of a schedule's occurrences so far."""
        async with self.core.storage.transaction(write=False) as tx:
            rows = await tx.fetchall(
                "SELECT occurrence_no, tournament_id, start_ms FROM tournament_occurrences WHERE schedule_id = ? "
                "ORDER BY occurrence_no",
                (schedule_id,),
            )
        return [(int(r[0]), None if r[1] is None else int(r[1]), int(r[2])) for r in rows]

    # ------------------------------------------------------------------ the Scheduled Events

    async def sync_events(self) -> int:
        """Owe one status edit for every published tournament whose status moved on since the last one owed (the
        stored ``sent``), in the transaction that records it. Returns how many were owed."""
        shards = self.core.store.shards
        where = f" AND {shards.sql_filter('e.guild_id')}" if shards is not None else ""
        async with self.core.storage.transaction(write=False) as tx:
            cols = "e.tournament_id, e.guild_id, e.sent, t.status"
            join = "tournament_events e JOIN tournaments t ON t.tournament_id = e.tournament_id"
            rows = await tx.fetchall(f"SELECT {cols} FROM {join} WHERE e.sent < 3{where}")  # noqa: S608
        owed = 0
        for tid, guild_id, sent, status in rows:
            wanted = _EVENT_OF[Status(status)]
            if wanted <= int(sent):
                continue
            async with self.core.storage.transaction() as tx:
                await self.core.store.fence_guild(tx, int(guild_id))
                await tx.execute(
                    "UPDATE tournament_events SET sent = ? WHERE tournament_id = ? AND sent = ?",
                    (wanted, int(tid), int(sent)),
                )
                if self.core.outbox is not None:
                    await self.core.outbox.enqueue(
                        tx,
                        key=f"sched:ev:{int(tid)}:{wanted}",
                        guild_id=int(guild_id),
                        kind=EVENT_STATUS,
                        payload={"tournament_id": int(tid), "status": wanted},
                    )
            owed += 1
        return owed

    async def event_of(self, tournament_id: int) -> tuple[int | None, bool]:
        """(the stored Discord event id or None, whether the tournament is published as an event at all)."""
        async with self.core.storage.transaction(write=False) as tx:
            rows = await tx.fetchall("SELECT event_id FROM tournament_events WHERE tournament_id = ?", (tournament_id,))
        if not rows:
            return None, False
        return (None if rows[0][0] is None else int(rows[0][0])), True

    async def remember_event(self, tournament_id: int, event_id: int) -> None:
        """Store the Discord event's id (its creation is then never repeated)."""
        async with self.core.storage.transaction() as tx:
            await tx.execute(
                "UPDATE tournament_events SET event_id = ? WHERE tournament_id = ?", (event_id, tournament_id)
            )

    async def refused_first(self, schedule_id: int) -> bool:
        """Discord refused a schedule's event (no Manage Events): True the first time (tell the host once)."""
        async with self.core.storage.transaction() as tx:
            rows = await tx.fetchall(
                "SELECT events_refused FROM tournament_schedules WHERE schedule_id = ?", (schedule_id,)
            )
            if not rows or int(rows[0][0]):
                return False
            await tx.execute("UPDATE tournament_schedules SET events_refused = 1 WHERE schedule_id = ?", (schedule_id,))
        s = self.schedules.get(schedule_id)
        if s is not None:
            s.events_refused = True
        return True


def occurrence_id(schedule_id: int, n: int, now_ms: int) -> int:
    """A fresh tournament id (a snowflake of now, its low bits from the occurrence's key): the occurrence's row, not
    this id, is what makes a second creation impossible."""
    discord_epoch = 1_420_070_400_000
    return ((now_ms - discord_epoch) << 22) | ((schedule_id * 131 + n) & 0x3FFFFF)
