"""The bot's outward-facing plumbing that is not play: the shared REST budget and the metrics and health server.

Built by the composition root (:mod:`pancog.adapter.extension`) once the storage is open:

* :func:`open_budget` — on PostgreSQL with ``PAN_REST_GLOBAL_RATE`` above 0, the process takes Discord's global
  limit from the budget it shares with every other process (:mod:`pancog.infra.ratelimit`), through the bot's
  REST trace (:class:`pancog.infra.rest.RestTrace`, given to discord.py by bot.py).
* :func:`open_metrics` — with ``PAN_METRICS_PORT`` set, ``/metrics`` and ``/healthz`` (:mod:`pancog.infra.metrics`).
  The health checks are the adapter's, because they ask discord.py and the storage: every gateway shard of this
  process connected, the storage answering a query, and every shard lease still this process's.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import discord

from pancog.infra.collector import PauseWatch
from pancog.infra.config import Config
from pancog.infra.metrics import Metrics, MetricsServer, gateway_reason, leases_reason
from pancog.infra.ratelimit import GlobalBucket, PostgresSlots
from pancog.infra.renderq import RenderQueue
from pancog.infra.rest import RestTrace
from pancog.infra.storage import PostgresStorage
from pancog.infra.storage.base import Storage
from pancog.services.store import TableStore
from pancog.services.tables import Applied, TableService

__all__ = ["Observability", "open_budget", "open_metrics", "rest_trace_of"]

log = logging.getLogger("pan.cog")


def rest_trace_of(bot: discord.Client) -> RestTrace | None:
    """The REST trace bot.py's PanBot gave discord.py (None when it gave none: no budget, no REST metrics)."""
    trace = getattr(bot, "rest", None)
    if not isinstance(trace, RestTrace) or bot.http.http_trace is not trace.config:
        return None
    return trace


async def open_budget(bot: discord.Client, config: Config, storage: Storage) -> GlobalBucket | None:
    """The shared global budget, when the storage is PostgreSQL and the rate is not 0; attached to the bot's trace."""
    trace = rest_trace_of(bot)
    if trace is None or config.rest_global_rate <= 0 or not isinstance(storage, PostgresStorage):
        return None
    bucket = GlobalBucket(PostgresSlots(storage.url), rate=config.rest_global_rate)
    trace.bucket = bucket
    log.info("Discord's global limit shared through PostgreSQL: %g requests/s in all", config.rest_global_rate)
    return bucket


@dataclass
class Observability:
    """What :func:`open_metrics` started; :meth:`close` stops it."""

    metrics: Metrics
    server: MetricsServer
    pauses: PauseWatch

    async def close(self) -> None:
        self.pauses.stop()
        await self.server.stop()


async def open_metrics(
    bot: discord.Client,
    config: Config,
    *,
    storage: Storage,
    store: TableStore,
    tables: TableService,
    renders: RenderQueue,
    bucket: GlobalBucket | None,
) -> Observability | None:
    """Start ``/metrics`` and ``/healthz`` on ``PAN_METRICS_PORT`` (None when it is not set)."""
    if config.metrics_port is None:
        return None
    metrics = Metrics()

    def counted(applied: Applied) -> None:
        metrics.actions.labels("system" if applied.actor is None else "player").inc()

    tables.subscribe(counted)
    trace = rest_trace_of(bot)
    if trace is not None:
        trace.observers.append(metrics.observe_rest)

    def render_figures() -> tuple[dict[str, int], int]:
        figures = renders.figures()
        return dict(figures.queued), figures.running

    metrics.render_figures = render_figures
    metrics.bucket_figures = (lambda: bucket.figures) if bucket is not None else None
    metrics.leases_held = len(store.epochs)
    metrics.lease_takeovers.inc(sum(1 for epoch in store.epochs.values() if epoch > 1))

    async def gateway() -> str | None:
        return gateway_problem(bot)

    async def database() -> str | None:
        async with storage.transaction(write=False) as tx:
            await tx.fetchall("SELECT 1")
        return None

    async def leases() -> str | None:
        lost = await lost_leases(store)
        metrics.leases_held = len(store.epochs) - len(lost)
        return leases_reason(lost)

    server = MetricsServer(
        metrics,
        {"gateway": gateway, "storage": database, "leases": leases},
        host=config.metrics_host,
        port=config.metrics_port,
    )
    await server.start()
    return Observability(metrics, server, PauseWatch(metrics.observe_gc))


def gateway_problem(bot: discord.Client) -> str | None:
    """None when every gateway connection of this process is open and ready, else what is not."""
    shards: dict[int, Any] = getattr(bot, "shards", None) or {}
    if shards:
        down = sorted(i for i, shard in shards.items() if shard.is_closed())
    else:
        down = [] if bot.ws is not None and bot.ws.open else [0]
    return gateway_reason(closed=bot.is_closed(), ready=bot.is_ready(), down=down, sharded=bool(shards))


async def lost_leases(store: TableStore) -> list[int]:
    """The shards whose lease this process took but which have another epoch now (another process took them)."""
    shards = store.shards
    if shards is None or not store.epochs:
        return []
    async with store.storage.transaction() as tx:  # read FOR SHARE, as a table write reads it: not read-only
        current = {s: await tx.shard_lease_epoch(shards.count, s) for s in store.epochs}
    return sorted(s for s, epoch in store.epochs.items() if current[s] != epoch)
