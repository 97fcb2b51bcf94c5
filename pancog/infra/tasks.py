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
* :meth:`Tasks.after`: a :class:`Timer`, work that starts (as a long-lived task) some seconds from now unless
  cancelled first: a scheduled defer that the answer usually cancels. A timer and not a task that sleeps: a
  sleeping task cancelled leaves a ``CancelledError`` with its traceback, frames, coroutine and context, a cycle
  only the garbage collector frees (1,495 of each in 10 s of the cluster benchmark at 150 actions a second,
  docs/performance.md "Less cyclic garbage"); a cancelled timer is one handle freed at once.
* :meth:`Tasks.every`: a periodic loop (the league's season check, the tournament clock, ``malloc_trim``): wait,
  run the body, log a failure and go on. Not work in flight.

A failure because a service was out of reach (:func:`out_of_reach`: the database or Discord down, this host cut off
from the network) is a WARNING of one line, not an ERROR with its traceback: it is no bug, and an outage would
otherwise bury the log in identical tracebacks.

Why not ``discord.ext.tasks``: the services and this ring may not import discord, and one helper serves every ring;
its ``Loop`` also brings reconnect handling for Discord errors that none of these loops needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from typing import Any, TypeVar

__all__ = ["Tasks", "Timer", "live", "out_of_reach"]

log = logging.getLogger("pan.tasks")

_UNREACHABLE_ERRNOS = frozenset({errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, errno.ENETDOWN})


def out_of_reach(error: BaseException) -> bool:
    """True for a failure to reach another machine: refused, reset or timed out, no route to it (a network cut)."""
    if isinstance(error, ConnectionError | TimeoutError):
        return True
    return isinstance(error, OSError) and error.errno in _UNREACHABLE_ERRNOS


T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]

_LIVE: weakref.WeakSet[Tasks] = weakref.WeakSet()


def live() -> list[asyncio.Task[Any]]:
    """Every task any :class:`Tasks` still holds (tests: after a teardown this is empty)."""
    return [task for tasks in list(_LIVE) for task in tasks.held()]


class Timer:
    """Work that starts ``seconds`` from now (:meth:`Tasks.after`) unless :meth:`cancel` comes first."""

    __slots__ = ("_factory", "_handle", "_name", "_owner", "task")

    def __init__(self, owner: Tasks, factory: Callable[[], Coroutine[Any, Any, Any]], name: str) -> None:
        self._owner: Tasks | None = owner
        self._factory: Callable[[], Coroutine[Any, Any, Any]] | None = factory
        self._name = name
        self._handle: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[Any] | None = None
        """The started work (None until the timer fires, and for ever once cancelled first)."""

    @property
    def waiting(self) -> bool:
        """Neither fired nor cancelled yet."""
        return self._handle is not None

    def cancel(self) -> bool:
        """Cancel the timer if it has not fired (True); started work is left to run (False)."""
        handle, self._handle = self._handle, None
        if handle is None:
            return False
        handle.cancel()
        self._let_go()
        return True

    def _fire(self) -> None:
        factory, owner = self._factory, self._owner
        self._handle = None
        self._let_go()
        if factory is not None and owner is not None:
            self.task = owner.start(factory(), name=self._name)

    def _let_go(self) -> None:
        # the handle held this timer's bound method and the set held the timer: drop both links, so a timer that
        # ends (fired or cancelled) is freed by reference counting
        if self._owner is not None:
            self._owner._timers.discard(self)
        self._owner = self._factory = None


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
        self._timers: set[Timer] = set()
        self._final = False  # closed for good: nothing new starts (close(final=True))
        _LIVE.add(self)

    # ------------------------------------------------------------------ starting

    def spawn(self, coro: Coroutine[Any, Any, T], *, name: str, key: Hashable | None = None) -> asyncio.Task[T]:
        """Run ``coro`` as work in flight. With ``key``: the caller checked :meth:`running` first; the new task is
        the key's until it is done."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        if self._final:
            return self._refused(task)
        self._work.add(task)
        if key is not None:
            self._keys[key] = task
        task.add_done_callback(self._done)
        return task

    def start(self, coro: Coroutine[Any, Any, T], *, name: str) -> asyncio.Task[T]:
        """Run ``coro`` for as long as it lasts (or until :meth:`close`); not work in flight."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        if self._final:
            return self._refused(task)
        self._long.add(task)
        task.add_done_callback(self._done)
        return task

    def after(self, seconds: float, factory: Callable[[], Coroutine[Any, Any, Any]], *, name: str) -> Timer:
        """In ``seconds``, run ``factory()`` as a long-lived task (:meth:`start`) unless the timer is cancelled
        first (:meth:`Timer.cancel`); :meth:`close` cancels a timer still waiting."""
        timer = Timer(self, factory, name)
        timer._handle = asyncio.get_running_loop().call_later(seconds, timer._fire)
        self._timers.add(timer)
        return timer

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
                except Exception as exc:  # the next round tries again; the loop lives as long as its owner
                    if out_of_reach(exc):
                        self._log.warning(
                            "%s: %s could not reach a service (%s: %s); it runs again in %.1fs",
                            self.owner,
                            name,
                            type(exc).__name__,
                            exc,
                            seconds,
                        )
                    else:
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

    def _refused(self, task: asyncio.Task[T]) -> asyncio.Task[T]:
        """A task asked of a set closed for good: cancelled before its first step, so its body never runs. Work that
        outlived its owner's close (an interaction handler finishing after the shutdown, with no drain when the
        leases were lost) would otherwise start against services already stopped and storage already closed."""
        task.cancel()
        self._log.debug("%s: %s not started: the owner is closed", self.owner, task.get_name())
        return task

    async def close(self, *, final: bool = False) -> None:
        """Cancel every timer still waiting and every task this set holds, and await them all (tasks spawned
        meanwhile included). ``final``: the owner is gone for good (the runtime at the extension's teardown), and
        from now on nothing new starts (:meth:`_refused`); without it the set may be used again (a service stopped
        and started again)."""
        self._final = self._final or final
        for timer in list(self._timers):
            timer.cancel()
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
        elif out_of_reach(error):
            self._log.warning(
                "%s: task %s could not reach a service (%s: %s)",
                self.owner,
                task.get_name(),
                type(error).__name__,
                error,
            )
        else:
            self._log.error("%s: task %s failed", self.owner, task.get_name(), exc_info=error)
