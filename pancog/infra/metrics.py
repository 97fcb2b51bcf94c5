"""Prometheus metrics and a health check for orchestrators, served over HTTP on ``PAN_METRICS_PORT`` (off by default).

``GET /metrics`` is the Prometheus text format from the maintained ``prometheus_client`` library (its own registry,
so a test or a second bot in one interpreter never collides with another's). ``GET /healthz`` answers 200 ``ok``
when every check passes and 503 with a short reason otherwise (a Kubernetes liveness or readiness probe, a load
balancer, systemd's watchdog script). The server is aiohttp's, already a dependency of discord.py, running on the
bot's event loop: a loop too busy to answer a probe is itself the sign of trouble a probe is for.

The metrics (all prefixed ``pan_``):

============================================  ===========================================================
``actions_total{actor}``                      table actions committed (``player``, ``system``: deals, timeouts)
``ack_seconds``                               histogram: an interaction's creation to its first answer
``rest_requests_total{method,route,status}``  every REST answer from Discord, interaction answers included
``rest_429_total{scope}``                     429s by ``X-RateLimit-Scope`` (``global``, ``user``, ``shared``)
``rest_budget_*``                             the shared global budget: slots taken, used, missed, time waited
``render_queue_depth{priority}``              images waiting for a render worker
``render_running``                            images being drawn
``shard_leases_held``                         shard leases this process holds
``shard_lease_takeovers_total``               leases taken from a previous holder
``gc_pause_seconds{generation}``              histogram: each pause of the cyclic garbage collector
============================================  ===========================================================

No discord import: the adapter feeds the counters and gives the health checks (gateway, storage, leases).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from pancog.infra.ratelimit import BucketFigures

__all__ = ["ACK_BUCKETS", "Check", "Metrics", "MetricsServer", "gateway_reason", "leases_reason", "snowflake_time"]

log = logging.getLogger("pan.metrics")

# seconds; Discord gives an interaction 3 s to be answered
ACK_BUCKETS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0)
# seconds; a young collection takes a few ms, a full one on a busy bot's heap ~0.1 s (pancog/infra/collector.py)
GC_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
DISCORD_EPOCH_MS = 1_420_070_400_000

Check = Callable[[], Awaitable[str | None]]
"""A health check: None when fine, else a short reason (shown in the 503's body)."""


def snowflake_time(snowflake: int) -> float:
    """The Unix time a Discord id was created (its top 42 bits are milliseconds since Discord's epoch)."""
    return ((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000


class _Live(Collector):
    """Figures read when scraped (nothing to keep up to date): render queue, budget, leases."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterable[Metric]:
        m = self.metrics
        if m.render_figures is not None:
            depth, running = m.render_figures()
            family = GaugeMetricFamily(
                "pan_render_queue_depth", "Images waiting for a render worker", labels=["priority"]
            )
            for priority, n in sorted(depth.items()):
                family.add_metric([priority], n)
            yield family
            yield GaugeMetricFamily("pan_render_running", "Images being drawn", value=running)
        yield GaugeMetricFamily("pan_shard_leases_held", "Shard leases this process holds", value=m.leases_held)
        figures = m.bucket_figures() if m.bucket_figures is not None else None
        if figures is not None:
            for name, value, text in (
                ("granted", figures.granted, "Send slots taken from the shared global budget"),
                ("used", figures.used, "Requests let out on a slot of the shared budget"),
                ("expired", figures.expired, "Slots of the shared budget missed or left unused"),
                ("round_trips", figures.round_trips, "Database round trips for the shared budget"),
                ("failures", figures.failures, "Times the shared budget's database did not answer"),
            ):
                yield CounterMetricFamily(f"pan_rest_budget_{name}", text, value=value)
            yield CounterMetricFamily(
                "pan_rest_budget_wait_seconds", "Seconds requests waited for the shared budget", value=figures.waited
            )


class Metrics:
    """The bot's metrics on a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.actions = Counter("pan_actions", "Table actions committed", ["actor"], registry=r)
        self.ack = Histogram(
            "pan_ack_seconds", "From an interaction's creation to its first answer", buckets=ACK_BUCKETS, registry=r
        )
        self.rest = Counter(
            "pan_rest_requests",
            "REST answers from Discord by route and status",
            ["method", "route", "status"],
            registry=r,
        )
        self.rest_429 = Counter("pan_rest_429", "429 answers from Discord by rate-limit scope", ["scope"], registry=r)
        self.lease_takeovers = Counter(
            "pan_shard_lease_takeovers", "Shard leases taken from a previous holder", registry=r
        )
        self.gc_pause = Histogram(
            "pan_gc_pause_seconds",
            "Pauses of the cyclic garbage collector (no interaction is answered meanwhile)",
            ["generation"],
            buckets=GC_BUCKETS,
            registry=r,
        )
        self.leases_held = 0
        self.render_figures: Callable[[], tuple[dict[str, int], int]] | None = None
        self.bucket_figures: Callable[[], BucketFigures | None] | None = None
        self.clock: Callable[[], float] = time.time
        r.register(_Live(self))

    def observe_gc(self, generation: int, seconds: float) -> None:
        """A :class:`pancog.infra.collector.PauseWatch` observer."""
        self.gc_pause.labels(str(generation)).observe(seconds)

    def observe_rest(self, method: str, route: str, path: str, status: int, scope: str | None) -> None:
        """A :class:`pancog.infra.rest.RestTrace` observer."""
        self.rest.labels(method, route, str(status)).inc()
        if status == 429:
            self.rest_429.labels(scope or "unknown").inc()
        if route.startswith("/interactions/") and route.endswith("/callback") and 200 <= status < 300:
            # the first answer to an interaction is its one callback; its id says when Discord created it
            interaction_id = _interaction_id(path)
            if interaction_id is not None:
                self.ack.observe(max(0.0, self.clock() - snowflake_time(interaction_id)))

    def text(self) -> bytes:
        return generate_latest(self.registry)


def _interaction_id(path: str) -> int | None:
    """The id in ``.../interactions/{id}/{token}/callback``."""
    parts = path.split("/")
    try:
        return int(parts[parts.index("interactions") + 1])
    except (ValueError, IndexError):
        return None


def gateway_reason(*, closed: bool, ready: bool, down: list[int], sharded: bool) -> str | None:
    """The gateway check's answer: None when connected and ready."""
    if closed:
        return "gateway: the client is closed"
    if not ready:
        return "gateway: not ready yet"
    if not down:
        return None
    return f"gateway: shards {', '.join(map(str, down))} disconnected" if sharded else "gateway: disconnected"


def leases_reason(lost: list[int]) -> str | None:
    """The lease check's answer: None when every lease taken is still this process's."""
    return f"shard leases lost: {', '.join(map(str, lost))}" if lost else None


@dataclass(frozen=True, slots=True)
class Health:
    ok: bool
    reasons: tuple[str, ...]


class MetricsServer:
    """``/metrics`` and ``/healthz`` on ``host:port`` (port 0: any free port, see :attr:`port`)."""

    def __init__(
        self, metrics: Metrics, checks: dict[str, Check], *, host: str, port: int, timeout: float = 5.0
    ) -> None:
        self.metrics, self.checks = metrics, checks
        self.host, self.port = host, port
        self.timeout = timeout
        self._runner: web.AppRunner | None = None

    async def health(self) -> Health:
        """Every check, at once, each within ``timeout`` seconds (a check that hangs is a failed check)."""

        async def run(name: str, check: Check) -> str | None:
            try:
                return await asyncio.wait_for(check(), self.timeout)
            except TimeoutError:
                return f"{name}: no answer in {self.timeout:g} s"
            except Exception as exc:  # any failure of a check is the answer, not a crash
                return f"{name}: {type(exc).__name__}: {exc}"[:200]

        names = list(self.checks)
        found = await asyncio.gather(*(run(n, self.checks[n]) for n in names))
        reasons = tuple(r for r in found if r)
        return Health(not reasons, reasons)

    async def _metrics(self, _request: web.Request) -> web.Response:
        return web.Response(body=self.metrics.text(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, _request: web.Request) -> web.Response:
        health = await self.health()
        if health.ok:
            return web.Response(text="ok\n")
        return web.Response(status=503, text="; ".join(health.reasons) + "\n")

    async def start(self) -> int:
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        self._runner = runner
        if runner.addresses:  # the port bound (port 0 asks for any free one)
            self.port = int(runner.addresses[0][1])
        log.info("metrics and health on http://%s:%d/metrics and /healthz", self.host, self.port)
        return self.port

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
