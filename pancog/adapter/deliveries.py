"""The outbox's deliverer: the Discord side of :mod:`pancog.services.outbox`.

:class:`Deliveries` claims the owed items of the guilds this process owns and hands each to the handler registered
for its kind (:meth:`Deliveries.register`; the built-in kinds are in :mod:`pancog.adapter.effects`). It runs:

* right after a transaction that enqueued an item commits (the outbox's listener wakes it);
* on a slow timer (``PAN_OUTBOX_POLL_SECONDS``, and at the next retry's time), so what a crash left owed is
  delivered by the next process, and a transient failure is retried after its back-off;
* when a moderator asks (:meth:`Deliveries.drive`: re-arm, deliver now, wait for the outcome, then report it).

A handler returns a short result text (``"granted"``, a message id) and is **idempotent**: the same item may be
delivered again after a crash between Discord acting and the item being marked done. It raises :class:`Permanent`
for a refusal that retrying cannot cure (a missing permission, a deleted role or channel): the item is marked failed
with that reason, logged once, and left until a moderator re-drives it; with a ``group``, the other items of the
same group in that pass fail the same way without a call (the second winner's role is refused like the first).
Anything else is transient (Discord 5xx, a timeout): owed again after the outbox's back-off.

Items of one guild are delivered in order, one at a time; guilds are delivered side by side.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

import discord

from pancog.adapter.presenters.admin import effect_no_handler
from pancog.infra.tasks import Tasks
from pancog.services.outbox import Outbox, OutboxItem

__all__ = ["DEFAULT_POLL_SECONDS", "Deliveries", "Handler", "Permanent"]

log = logging.getLogger("pan.outbox")

DEFAULT_POLL_SECONDS = 30.0
DRIVE_TIMEOUT = 20.0  # how long a moderator's command waits for the items it re-drove (then reports what it knows)
PRUNE_AFTER = 30 * 86_400.0  # delivered items kept this long (their reports), then forgotten

Handler = Callable[[OutboxItem], Awaitable[str]]
"""Deliver one item; return what was done (kept as the item's result). Raise :class:`Permanent` for a refusal that
waiting cannot cure; any other exception is transient."""


class Permanent(Exception):
    """A delivery Discord refuses until someone changes something: recorded as failed with ``reason`` (shown to
    moderators), not retried by itself. ``group``: the items that share it fail alike in the same pass."""

    def __init__(self, reason: str, *, group: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.group = group


@dataclass(frozen=True, slots=True)
class _Kind:
    deliver: Handler
    group: Callable[[OutboxItem], str | None] | None


class Deliveries:
    """Delivers the outbox's owed items through registered handlers (one per kind). Start it once the client is
    connected (:meth:`start`); :meth:`stop` before the storage closes."""

    def __init__(
        self,
        outbox: Outbox,
        client: discord.Client,
        *,
        poll_seconds: float = DEFAULT_POLL_SECONDS,
        batch: int = 20,
    ) -> None:
        self.outbox = outbox
        self.client = client
        self.poll_seconds = poll_seconds
        self.batch = batch
        self._kinds: dict[str, _Kind] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._tasks = Tasks("outbox", logger=log)
        self._delivering = False
        self._attempts: dict[str, int] = {}  # key -> deliveries tried by this process (drive() waits on it)
        self._progress = asyncio.Condition()
        self._last_prune = 0.0
        self.delivered = 0
        self.failed = 0
        outbox.subscribe(self.wake)

    # ------------------------------------------------------------------ wiring

    def register(self, kind: str, deliver: Handler, *, group: Callable[[OutboxItem], str | None] | None = None) -> None:
        """Deliver the items of ``kind`` with ``deliver``. ``group(item)``: items refused together (see
        :class:`Permanent`)."""
        if kind in self._kinds:
            raise ValueError("a second handler for the kind " + repr(kind))
        self._kinds[kind] = _Kind(deliver, group)

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(self._kinds)

    def wake(self) -> None:
        """Deliver what is due now (called after an enqueue commits; cheap, synchronous)."""
        self._wake.set()

    def start(self) -> None:
        if self._task is None:
            self._task = self._tasks.start(self._run(), name="outbox-deliveries")

    async def stop(self) -> None:
        task, self._task = self._task, None
        await self._tasks.cancel(task)

    def busy(self) -> bool:
        """Work in flight: a wake not yet served or a delivery pass running (the test harness waits on it)."""
        return self._task is not None and (self._wake.is_set() or self._delivering)

    # ------------------------------------------------------------------ the loop

    async def _run(self) -> None:
        await self.client.wait_until_ready()  # guilds and members known before the first delivery
        while True:
            self._wake.clear()
            self._delivering = True
            try:
                await self.deliver_due()
            except Exception:  # the storage hiccuped: the next wake or tick tries again
                log.exception("delivering the outbox failed")
            finally:
                self._delivering = False
            wait = await self._until_next()
            # asyncio.timeout, not wait_for: on 3.11 wait_for drops a cancel that lands as the wake fires, and this
            # loop then outlives its stop() (a hang at shutdown)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self._wake.wait()

    async def _until_next(self) -> float:
        """Seconds until the next tick: the slow poll, or sooner when a retry falls due."""
        wait = self.poll_seconds
        try:
            due = await self.outbox.next_due()
        except Exception:
            log.exception("reading the outbox's next due time failed")
            return wait
        if due is not None:
            wait = min(wait, max(0.0, due - time.time()) + 0.01)
        return wait

    async def deliver_due(self) -> int:
        """One pass: claim and deliver until nothing owed here is due. Returns how many deliveries were tried."""
        tried = 0
        refused: dict[str, str] = {}  # group -> the reason its first item was refused, for this pass
        while True:
            items = await self.outbox.claim(limit=self.batch)
            if not items:
                break
            by_guild: dict[int, list[OutboxItem]] = {}
            for item in items:
                by_guild.setdefault(item.guild_id, []).append(item)
            await asyncio.gather(*(self._deliver_in_order(group, refused) for group in by_guild.values()))
            tried += len(items)
        await self._prune()
        return tried

    async def _deliver_in_order(self, items: list[OutboxItem], refused: dict[str, str]) -> None:
        for item in items:
            try:
                await self._deliver(item, refused)
            finally:
                self._attempts[item.key] = self._attempts.get(item.key, 0) + 1
                async with self._progress:
                    self._progress.notify_all()

    async def _deliver(self, item: OutboxItem, refused: dict[str, str]) -> None:
        kind = self._kinds.get(item.kind)
        if kind is None:  # an item of a kind this version does not know (written by a newer one): leave it owed
            await self.outbox.failed(item.key, effect_no_handler(item.kind))
            log.warning("outbox item %s: no handler for the kind %r (a newer version's?)", item.key, item.kind)
            return
        group = kind.group(item) if kind.group is not None else None
        if group is not None and group in refused:
            await self._refused(item, refused[group], logged=True)
            return
        try:
            result = await kind.deliver(item)
        except Permanent as exc:
            if exc.group is not None or group is not None:
                refused[exc.group or group or ""] = exc.reason
            await self._refused(item, exc.reason, logged=False)
            return
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # transient: Discord 5xx, a timeout, a dropped connection
            due = await self.outbox.failed(item.key, _describe(exc))
            log.warning(
                "outbox item %s (%s, guild %s) failed, attempt %d; retried at %s: %s",
                item.key,
                item.kind,
                item.guild_id,
                item.attempts,
                due,
                _describe(exc),
            )
            return
        await self.outbox.done(item.key, result)
        self.delivered += 1

    async def _refused(self, item: OutboxItem, reason: str, *, logged: bool) -> None:
        await self.outbox.failed(item.key, reason, permanent=True)
        self.failed += 1
        if not logged:  # once per refusal (the rest of its group share this line)
            log.warning(
                "outbox item %s (%s, guild %s) refused: %s; kept as failed until a moderator retries",
                item.key,
                item.kind,
                item.guild_id,
                reason,
            )

    async def _prune(self) -> None:
        now = time.time()
        if now - self._last_prune < 3600:
            return
        self._last_prune = now
        forgotten = await self.outbox.prune(done_before=now - PRUNE_AFTER)
        if forgotten:
            log.info("outbox: %d delivered item(s) older than 30 days forgotten", forgotten)

    # ------------------------------------------------------------------ a moderator's retry

    async def drive(self, guild_id: int, keys: Iterable[str], *, timeout: float = DRIVE_TIMEOUT) -> list[OutboxItem]:
        """Re-arm ``keys`` (failed ones owed again, those backing off due now), deliver them now and wait until each
        was tried once more (at most ``timeout`` s); returns the items as stored then (done, failed or still owed)."""
        wanted = list(keys)
        before = {key: self._attempts.get(key, 0) for key in wanted}
        await self.outbox.rearm(guild_id, wanted)
        self.wake()
        items = {i.key: i for i in await self._items(guild_id, wanted)}
        pending = {k for k, i in items.items() if i.status == "owed"}
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout), self._progress:
                await self._progress.wait_for(lambda: all(self._attempts.get(k, 0) > before[k] for k in pending))
        return await self._items(guild_id, wanted)

    async def _items(self, guild_id: int, keys: list[str]) -> list[OutboxItem]:
        found = []
        for key in keys:
            item = await self.outbox.get(key)
            if item is not None and item.guild_id == guild_id:
                found.append(item)
        return found


def _describe(exc: BaseException) -> str:
    if isinstance(exc, discord.HTTPException):
        return f"{exc.status} {exc.code}: {exc.text}"[:300]
    return f"{type(exc).__name__}: {exc}"[:300]
