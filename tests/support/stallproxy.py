"""A TCP relay in front of the test's PostgreSQL that can stall like a cut network link.

:meth:`StallingProxy.stall` stops relaying in both directions without closing anything: the client's socket stays
open and its reads wait, as when a host is cut off from the network (its packets are lost; TCP retries for ~15
minutes before it reports anything). :meth:`StallingProxy.mend` relays what was held and goes on. Where the machine
allows network namespaces, tests/e2e/test_cluster_hosts.py cuts a real link; this relay lets the unit tests of
pancog/infra/coord.py show the same behaviour on any machine.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["StallingProxy"]


class StallingProxy:
    def __init__(self, url: str) -> None:
        self.url = url
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query))
        socket_dir = query.pop("host", None)
        self._unix = (
            f"{socket_dir}/.s.PGSQL.{parts.port or 5432}" if socket_dir and socket_dir.startswith("/") else None
        )
        self._target = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._parts, self._query = parts, query
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: asyncio.Server | None = None
        self._pumps: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> str:
        """Listen on 127.0.0.1; returns the URL whose connections go through the relay."""
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        user = f"{self._parts.username}@" if self._parts.username else ""
        parts = self._parts._replace(netloc=f"{user}127.0.0.1:{port}", query=urlencode(self._query))
        return urlunsplit(parts)

    def stall(self) -> None:
        self._flowing.clear()

    def mend(self) -> None:
        self._flowing.set()

    async def close(self) -> None:
        self.mend()
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()
        for pump in list(self._pumps):
            pump.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)

    async def _relay(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        if self._unix is not None:
            reader, writer = await asyncio.open_unix_connection(self._unix)
        else:
            reader, writer = await asyncio.open_connection(*self._target)
        self._writers |= {client_writer, writer}
        for source, sink in ((client_reader, writer), (reader, client_writer)):
            pump = asyncio.ensure_future(self._pump(source, sink))
            self._pumps.add(pump)
            pump.add_done_callback(self._pumps.discard)

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                await self._flowing.wait()  # stalled: held here, neither delivered nor refused
                sink.write(data)
                await sink.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                sink.close()
