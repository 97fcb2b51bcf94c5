"""PostgreSQL: a transaction of a process that vanished mid-way (cut off from the network) frees the rows it locked.

Cut off, a process's socket stalls instead of closing, so the server waits for its next statement inside the
transaction, its row locks held, until it notices the dead client at its TCP keepalive (two hours by default): a
successor that took the process's shards over could not write the table (or a player's chips) for that long. The
storage's connections ask the server to end a transaction idle for ``idle_in_transaction`` seconds (30 by default,
pancog/infra/storage/postgres.py); here 1 s, through a relay that stalls like a cut link (tests/support/stallproxy.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from pancog.infra.storage import PostgresStorage
from pancog.infra.storage.postgres import CLOSE_WAIT
from tests.support.stallproxy import StallingProxy

IDLE = 1.0


async def test_a_vanished_writer_frees_its_rows_after_the_idle_timeout(postgres_url: str) -> None:
    proxy = StallingProxy(postgres_url)
    cut_url = await proxy.start()
    live = PostgresStorage(postgres_url, min_size=1, max_size=1)
    vanishing = PostgresStorage(cut_url, min_size=1, max_size=1, idle_in_transaction=IDLE)
    await live.open()
    await vanishing.open()
    holder: asyncio.Future[None] | None = None
    try:
        async with live.transaction() as tx:
            await tx.execute("CREATE TABLE seat_chips (id int PRIMARY KEY, chips int NOT NULL)")
            await tx.execute("INSERT INTO seat_chips VALUES (1, 100)")
        locked = asyncio.Event()

        async def hold() -> None:
            async with vanishing.transaction() as tx:
                await tx.execute("UPDATE seat_chips SET chips = chips - 5 WHERE id = 1")  # the row is locked now
                locked.set()
                await asyncio.sleep(3600)  # its next statement never comes: the process is cut off

        holder = asyncio.ensure_future(hold())
        await asyncio.wait_for(locked.wait(), 5)
        proxy.stall()
        started = time.monotonic()
        async with live.transaction() as tx:
            await asyncio.wait_for(tx.execute("UPDATE seat_chips SET chips = chips + 7 WHERE id = 1"), IDLE + 10)
        waited = time.monotonic() - started
        assert waited < IDLE + 3, waited
        rows = await live.fetch("SELECT chips FROM seat_chips WHERE id = 1")
        assert rows == [(107,)]  # the vanished writer's change was rolled back by the server, the successor's kept
    finally:
        proxy.mend()
        if holder is not None:
            holder.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(holder, 5)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(vanishing.close(), 5)
        await live.close()
        await proxy.close()


async def test_closing_over_a_stalled_link_is_bounded(postgres_url: str) -> None:
    """The pool's close waits for the server to hang up each connection; over a stalled link it never does (the
    process that lost its shards to a cut stayed until PAN_STOP_TIMEOUT). close() now gives up after ``CLOSE_WAIT``
    and drops the connections."""
    proxy = StallingProxy(postgres_url)
    cut_url = await proxy.start()
    storage = PostgresStorage(cut_url, min_size=2, max_size=2)
    await storage.open()
    try:
        async with storage.transaction() as tx:
            await tx.execute("SELECT 1")
        proxy.stall()
        started = time.monotonic()
        await asyncio.wait_for(storage.close(), CLOSE_WAIT + 10)
        assert time.monotonic() - started < CLOSE_WAIT + 2
    finally:
        proxy.mend()
        await proxy.close()
