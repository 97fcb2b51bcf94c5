"""Background work: every task the bot starts goes through one :class:`Tasks` set of its owner.

A task set does the four things each owner used to write for itself: it spawns the task, remembers it until it is
done, logs a failure (an exception nobody awaits would otherwise surface only as asyncio's "never retrieved"
warning, if ever), and on :meth:`Tasks.close` cancels every task it still holds and awaits them all, so an owner
that is closed leaves nothing running.

Three kinds, told apart because the tests and benchmarks wait for *work in flight* and not for loops that run as
long as their owner does:

* :meth:`Tasks.spawn`: work in flight (a DM, a retry, an expiry, a computer player's turn). Counted by
  :attr:`Tasks.pending` and awaited by :meth:`Tasks.drain`. A ``key`` keeps at most one running task per key
  (:meth:`Tasks.running`): the computer players' one driver per table.
* :meth:`Tasks.start`: a long-lived task that waits for something (the turn clock's scheduler, a board's editor, a
  scheduled defer). Not work in flight.
* :meth:`Tasks.every`: a periodic loop (the league's season check, the tournament clock, ``malloc_trim``): wait,
  run the body, log a failure and go on. Not work in flight.

Why not ``discord.ext.tasks``: the services and this ring may not import discord, and one helper serves every ring;
its ``Loop`` also brings reconnect handling for Discord errors that none of these loops needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from typing import Any, TypeVar

__all__ = ["Tasks", "live"]

log = logging.getLogger("pan.tasks")

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]

_LIVE: weakref.WeakSet[Tasks] = weakref.WeakSet()


def live() -> list[asyncio.Task[Any]]:
    """Every task any :class:`Tasks` still holds (tests: after a teardown this is empty)."""
    return [task for tasks in list(_LIVE) for task in tasks.held()]


class Tasks:
    """The background tasks of one owner (the runtime, the turn clock, the computer players, ...)."""

    def __init__(
        self, owner: str, *, logger: logging.Logger | None = None, quiet: tuple[type[BaseException], ...] = ()
    ) -> None:
        """``quiet``: exceptions logged as a warning without a traceback (e.g. the storage closing under a task at
        shutdown); any other failure is logged as an error with its traceback."""
        self.owner = owner
        self._log = logger or log
        self._quiet = quiet
        self._work: set[asyncio.Task[Any]] = set()
        self._long: set[asyncio.Task[Any]] = set()
        self._keys: dict[Hashable, asyncio.Task[Any]] = {}
        _LIVE.add(self)

    # ------------------------------------------------------------------ starting

    def spawn(self, coro: Coroutine[Any, Any, T], *, name: str, key: Hashable | None = None) -> asyncio.Task[T]:
        """Run ``coro`` as work in flight. With ``key``: the caller checked :meth:`running` first; the new task is
        the key's until it is done."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._work.add(task)
        if key is not None:
            self._keys[key] = task
        task.add_done_callback(self._done)
        return task

    def start(self, coro: Coroutine[Any, Any, T], *, name: str) -> asyncio.Task[T]:
        """Run ``coro`` for as long as it lasts (or until :meth:`close`); not work in flight."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._long.add(task)
        task.add_done_callback(self._done)
        return task

    def every(
        self, seconds: float, body: Callable[[], Awaitable[object]], *, name: str, sleep: Sleep = asyncio.sleep
    ) -> asyncio.Task[None]:
        """Every ``seconds``: run ``body`` (first after one wait). A failure is logged and the loop goes on; it ends
        when cancelled (:meth:`cancel`, :meth:`close`)."""

        async def loop() -> None:
            while True:
                await sleep(seconds)
                try:
                    await body()
                except Exception:  # the next round tries again; the loop lives as long as its owner
                    self._log.exception("%s: %s failed; it runs again in %.1fs", self.owner, name, seconds)

        return self.start(loop(), name=name)

    # ------------------------------------------------------------------ looking

    def running(self, key: Hashable) -> asyncio.Task[Any] | None:
        """The task spawned with ``key``, while it is not done."""
        task = self._keys.get(key)
        return task if task is not None and not task.done() else None

    @property
    def pending(self) -> int:
        """How many spawned tasks (work in flight) are not done."""
        return sum(1 for task in self._work if not task.done())

    def busy(self) -> bool:
        return self.pending > 0

    def held(self) -> list[asyncio.Task[Any]]:
        """Every task this set still holds (work and long-lived)."""
        return [*self._work, *self._long]

    # ------------------------------------------------------------------ ending

    async def drain(self) -> None:
        """Wait until no work is in flight, including work spawned while waiting."""
        while True:
            pending = [task for task in self._work if not task.done()]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    async def cancel(self, task: asyncio.Task[Any] | None) -> None:
        """Cancel one task of this set and wait until it has ended."""
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task

    def cancel_key(self, key: Hashable) -> None:
        """Cancel the task of ``key`` (if it runs and is not the caller itself); it ends at its next await."""
        task = self.running(key)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def close(self) -> None:
        """Cancel every task this set holds and await them all (tasks spawned meanwhile included)."""
        while True:
            tasks = [task for task in self.held() if task is not asyncio.current_task()]
            if not tasks:
                return
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for task in tasks:  # done callbacks run on the next loop turn: forget them now
                self._forget(task)

    # ------------------------------------------------------------------ bookkeeping

    def _forget(self, task: asyncio.Task[Any]) -> None:
        self._work.discard(task)
        self._long.discard(task)
        for key in [k for k, t in self._keys.items() if t is task]:
            del self._keys[key]

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._forget(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is None:
            return
        if isinstance(error, self._quiet):
            self._log.warning("%s: task %s dropped: %s", self.owner, task.get_name(), error)
        else:
            self._log.error("%s: task %s failed", self.owner, task.get_name(), exc_info=error)
