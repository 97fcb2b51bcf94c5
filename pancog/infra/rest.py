"""Every HTTP request the bot makes to Discord's REST API, seen from aiohttp's tracing: the shared global budget is
taken before each counted request goes out, and each answer is counted by route and status.

discord.py sends bot requests through its ``HTTPClient`` and interaction answers through its webhook adapter, both on
one aiohttp session; the session's trace hooks are the one place that sees every attempt, retries included (a
request discord.py repeats after a 5xx takes a slot again, as Discord counts it again). ``http_trace`` is a
``discord.Client`` option, so the bot passes :attr:`RestTrace.config` when it is built and attaches the budget
(:class:`~pancog.infra.ratelimit.GlobalBucket`) and the metrics once the storage is open.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import aiohttp
import yarl

from pancog.infra.ratelimit import GlobalBucket

__all__ = ["RestTrace", "exempt", "route_of"]

DISCORD_API = "https://discord.com/api/v10"

_ID = re.compile(r"^\d{5,}$")
# (path prefix, where the token sits): interaction callbacks and webhook messages carry a secret token in the path
_TOKENS = (("interactions", 2), ("webhooks", 2))


def route_of(path: str) -> str:
    """A request path as a route template of few values (ids and tokens replaced), for a metric label.

    >>> route_of("/api/v10/channels/123456789012/messages/987654321098")
    '/channels/{id}/messages/{id}'
    >>> route_of("/api/v10/interactions/123456789012/aW50ZXJhY3Rpb24/callback")
    '/interactions/{id}/{token}/callback'
    """
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 2 and parts[0] == "api" and parts[1].startswith("v"):
        parts = parts[2:]
    out = []
    for i, part in enumerate(parts):
        if _ID.match(part):
            out.append("{id}")
        elif i > 0 and any(parts[0] == head and i == at for head, at in _TOKENS):
            out.append("{token}")
        else:
            out.append(part)
    return "/" + "/".join(out)


def exempt(route: str) -> bool:
    """Interaction endpoints (answers and their follow-ups) are not bound by Discord's global limit."""
    return route.startswith(("/interactions/", "/webhooks/"))


Observer = Callable[[str, str, str, int, str | None], None]
"""Called after every answer: (method, route, path, HTTP status, the 429's ``X-RateLimit-Scope`` or None)."""


class RestTrace:
    """The bot's aiohttp trace: the budget before a counted request, the observers after every answer."""

    def __init__(self, api_base: str | None = None) -> None:
        self.api = yarl.URL((api_base or DISCORD_API).rstrip("/"))
        self.bucket: GlobalBucket | None = None
        self.observers: list[Observer] = []
        self.config = aiohttp.TraceConfig()
        self.config.on_request_start.append(self._start)
        self.config.on_connection_reuseconn.append(self._connected)
        self.config.on_connection_create_end.append(self._connected)
        self.config.on_request_end.append(self._end)

    def _route(self, url: yarl.URL) -> str | None:
        """The route of a request to the REST API (None: the gateway, the CDN, anything else)."""
        if url.host != self.api.host or url.port != self.api.port or not url.path.startswith(self.api.path):
            return None
        return route_of(url.path)

    async def _start(self, _session: aiohttp.ClientSession, ctx: SimpleNamespace, params: Any) -> None:
        bucket = self.bucket
        if bucket is None:
            return
        route = self._route(params.url)
        if route is not None and not exempt(route):
            ctx.slot_end = await bucket.acquire()  # the request's own trace context, seen again by `_connected`

    async def _connected(self, _session: aiohttp.ClientSession, ctx: SimpleNamespace, _params: Any) -> None:
        """The request has its connection and is written next: if its slot ended while it waited for one (a new
        connection in a burst, a busy event loop), it takes another slot first."""
        bucket = self.bucket
        if bucket is None or not hasattr(ctx, "slot_end"):
            return
        while not bucket.still_open(ctx.slot_end):
            ctx.slot_end = await bucket.acquire()

    async def _end(self, _session: aiohttp.ClientSession, _ctx: SimpleNamespace, params: Any) -> None:
        if not self.observers:
            return
        route = self._route(params.url)
        if route is None:
            return
        response = params.response
        scope = response.headers.get("X-RateLimit-Scope") if response.status == 429 else None
        for observe in self.observers:
            observe(params.method, route, params.url.path, response.status, scope)
