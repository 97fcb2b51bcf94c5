"""pan-web benchmark: page latency from the cache while 200 tables are in play on the same database.

Run: .venv/bin/python -m bench.web [--tables 200] [--requests 2000] [--concurrency 8] [--cache 600]

Builds a SQLite database with the seeded guild of the web tests (a season of hands, names, a shared hand, a
tournament) and ``--tables`` more tables; a second process (the bot's part) keeps playing hands at every one of
them (computer players, the real table service and ledger) while pan-web, opened read-only
on the same file, answers ``--requests`` GETs over the guild's pages, images and export (``--concurrency`` at
once, after one pass that fills the cache). Prints the latency of cached answers (p50, p95, p99, max), the cold
first pass, and how many actions the writer committed meanwhile. The issue's bar: p95 <= 200 ms from cache.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from pancog.ai import make_player
from pancog.infra.storage import SqliteStorage
from pancog.services.league import LeagueService
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import TableConfig, TableService, seeded_deals
from pancog.web.app import make_app
from pancog.web.reader import WebReader
from tests.support.league_play import play_hands
from tests.web.seed import GUILD, Seeded, seed

FIRST_TABLE = 500_000
USERS = (201, 202, 203, 204, 205, 206)


def _follow(service: TableService, league: LeagueService) -> None:
    """The league follows the tables as the bot's composition root wires it (its hands recorded, its results noted)."""
    service.subscribe(league.on_applied)
    service.set_settlement_hook(league.settlement_note)
    service.on_close(league.table_closed)


async def _open_tables(path: Path, tables: int) -> None:
    async with SqliteStorage(path, synchronous="NORMAL") as storage:
        ledger = ChipLedger(storage)
        service = TableService(ledger, TableStore(storage), dealer=seeded_deals(99))
        _follow(service, LeagueService(storage, ledger))
        for user in USERS:
            await ledger.grant(GUILD, user, 10**7, actor="system", reason="bench")
        for n in range(tables):
            table = FIRST_TABLE + n
            users = [USERS[(n + k) % len(USERS)] for k in range(2 + n % 3)]
            await service.open_table(
                table, guild_id=GUILD, channel_id=table, host_id=users[0], config=TableConfig.build()
            )
            for user in users:
                await service.join(table, user, buy_in=1000)


async def _play(
    path: str, tables: int, stop: multiprocessing.synchronize.Event, counter: multiprocessing.Value
) -> None:  # type: ignore[valid-type]
    async with SqliteStorage(path, synchronous="NORMAL") as storage:
        ledger = ChipLedger(storage)
        service = TableService(ledger, TableStore(storage), dealer=seeded_deals(7))
        _follow(service, LeagueService(storage, ledger))
        await service.load()

        def count(applied: object) -> None:
            counter.value += 1

        service.subscribe(count)  # every committed action

        async def keep_playing(table: int) -> None:
            session = service.get(table)
            players = {s.player_id: make_player("easy") for s in session.state.seats if s is not None}
            n = 0
            while not stop.is_set():
                n += 1
                await play_hands(service, table, players, 1, seed=n)
                await asyncio.sleep(0.01)

        results = await asyncio.gather(*(keep_playing(FIRST_TABLE + n) for n in range(tables)), return_exceptions=True)
        failed = [r for r in results if isinstance(r, BaseException)]
        if failed:
            print(f"writer: {len(failed)} tables stopped: {failed[0]!r}")


def writer_main(path: str, tables: int, stop: Any, counter: Any) -> None:
    """The bot's side, in its own process: hands played at every table until ``stop``."""
    asyncio.run(_play(path, tables, stop, counter))


def addresses(seeded: Seeded) -> list[str]:
    table, hand = seeded.shared
    tails = [
        "",
        "standings.png",
        "season/1",
        *(f"player/{u}" for u in seeded.players),
        *(f"player/{u}/chart.png" for u in seeded.players),
        f"tournament/{seeded.tournament}",
        f"hand/{table}/{hand}.json",
        f"hand/{table}/{hand}/end.png",
        *(f"hand/{table}/{hand}?step={s}" for s in range(1, 11)),
        *(f"hand/{table}/{hand}/step/{s}.png" for s in range(1, 6)),
    ]
    return [f"/g/{seeded.token}/{t}" for t in tails]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="pan-bench-web-"))
    path = folder / "pan.sqlite3"
    async with SqliteStorage(path, synchronous="NORMAL") as storage:
        seeded = await seed(storage, hands=8, tables=4)
    started = time.perf_counter()
    await _open_tables(path, args.tables)
    print(f"{args.tables} tables opened in {time.perf_counter() - started:.1f} s")
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    counter = context.Value("q", 0)
    writer = context.Process(target=writer_main, args=(str(path), args.tables, stop, counter), daemon=True)
    writer.start()
    await asyncio.sleep(args.warmup)
    async with SqliteStorage(path, read_only=True) as reader:
        app = make_app(WebReader(reader), cache_seconds=args.cache)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        origin = f"http://127.0.0.1:{runner.addresses[0][1]}"
        urls = addresses(seeded)
        cold: list[float] = []
        warm: list[float] = []
        before = counter.value
        async with aiohttp.ClientSession() as client:

            async def get(url: str, into: list[float]) -> None:
                t0 = time.perf_counter()
                async with client.get(origin + url) as response:
                    await response.read()
                    if response.status != 200:
                        raise RuntimeError(f"{url}: {response.status}")
                into.append(time.perf_counter() - t0)

            for url in urls:  # the first pass builds every page (and fills the cache)
                await get(url, cold)
            queue = [urls[i % len(urls)] for i in range(args.requests)]
            began = time.perf_counter()

            async def worker() -> None:
                while queue:
                    await get(queue.pop(), warm)

            await asyncio.gather(*(worker() for _ in range(args.concurrency)))
            elapsed = time.perf_counter() - began
        committed = counter.value - before
        await runner.cleanup()
    stop.set()
    writer.join(30)
    if writer.is_alive():
        writer.kill()
    ms = [v * 1000 for v in warm]
    print(
        f"cached: {len(ms)} requests, concurrency {args.concurrency}, {len(ms) / elapsed:.0f} req/s: "
        f"p50 {statistics.median(ms):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, "
        f"max {max(ms):.1f} ms"
    )
    cms = [v * 1000 for v in cold]
    print(
        f"first pass (building every page, {len(cms)} addresses): p50 {statistics.median(cms):.1f} ms, "
        f"p95 {percentile(cms, 0.95):.1f} ms, max {max(cms):.1f} ms"
    )
    print(f"meanwhile the writer committed {committed} actions at {args.tables} tables")
    print(f"p95 from cache <= 200 ms: {'yes' if percentile(ms, 0.95) <= 200 else 'NO'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--cache", type=float, default=600.0, help="pan-web's page cache, seconds")
    parser.add_argument("--warmup", type=float, default=8.0, help="seconds of play before measuring")
    asyncio.run(measure(parser.parse_args()))


if __name__ == "__main__":
    main()
