"""Answer an interaction once: acknowledge only when the answer may miss Discord's 3 seconds.

A command or a click used to cost two interaction calls: a "thinking" defer at once, then the followup with the
answer. Most answers are ready in milliseconds, so :func:`later` only *schedules* the defer, ``ACK_AFTER``
seconds out; the answer (``errors.answer``, ``PanCog.respond``) calls :func:`settle` first, which cancels a defer
that has not started (the answer goes out as the initial response: one call, files included) or waits for one
in flight (the answer becomes its followup). Either way the token is answered exactly once and in time.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import discord

from pancog.adapter import edge
from pancog.infra.tasks import Tasks, Timer

__all__ = ["ACK_AFTER", "later", "settle"]

log = logging.getLogger("pan.cog")

ACK_AFTER = 1.5
"""Seconds before a pending answer is acknowledged with a defer (Discord invalidates the token at 3 s, counted
from the event's creation: the gateway's delay and a busy event loop eat into the rest)."""


_PENDING: dict[int, Timer] = {}


def later(tasks: Tasks, interaction: discord.Interaction[Any], *, ephemeral: bool = True, update: bool = False) -> None:
    """Defer ``interaction`` in ``ACK_AFTER`` s unless it is answered first (``update``: a component's silent
    type-6 defer, for an answer that edits the clicked message). The scheduled defer is a timer of ``tasks`` (the
    runtime's), so closing the runtime ends it; answered first, it is cancelled before it ever became a task."""
    if interaction.response.is_done() or interaction.id in _PENDING:
        return

    async def run() -> None:
        try:
            await edge.defer(interaction, ephemeral=ephemeral, thinking=not update)
        except discord.InteractionResponded:
            pass
        except discord.HTTPException as exc:
            log.warning("could not acknowledge interaction %s: %s", interaction.id, exc)
        finally:
            _PENDING.pop(interaction.id, None)

    _PENDING[interaction.id] = tasks.after(ACK_AFTER, run, name=f"pan-ack-{interaction.id}")


async def settle(interaction: discord.Interaction[Any]) -> None:
    """Before answering: cancel a scheduled defer that has not started, or wait for one in flight."""
    timer = _PENDING.pop(interaction.id, None)
    if timer is None or timer.cancel() or timer.task is None:
        return
    with contextlib.suppress(Exception):
        await timer.task
