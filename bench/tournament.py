"""A scheduled multi-table tournament of computer players run to the end by the real bot on the fake Discord.

The host creates a scheduled event (``/tourney create``), registers ``--entries`` computer players
(``/tourney addbots``) and starts it early (``/tourney start``); tables open in threads of the channel, boards are
posted and edited there, tables break and balance until one player holds every chip. Meanwhile a member runs
``/tourney info`` every ``--probe`` seconds: its acknowledgement latency is what a person feels while the bot is
this busy.

The level clock runs on **hands, not on wall time**: computer players decide in microseconds, so a wall clock
(even a scaled one) says nothing about how many hands a level lasts. The tournament service gets the clock of
``bench/tournament_sim.py`` instead: every deal adds ``--hand-overhead`` seconds and every decision
``--seconds-per-action`` seconds, divided by the number of tables open (tables play at the same time). With the
real defaults (300-chip stacks, the default ante schedule, 10-minute levels) a level then lasts as many hands as
it would with people on Discord, and the event as many hands as a real one.

Rebuys and bounties (on by default, ``--rebuy-levels 0 --bounty 0`` for a freezeout): during the first
``--rebuy-levels`` levels a computer player at or below the starting stack rebuys once a hand ends (at most
``--max-rebuys``), every player still in takes the add-on when the last rebuy level begins, and ``--bounty`` chips of
each buy-in are paid to whoever knocks a player out. All of it goes through the service (``TournamentService.rebuy``
/ ``addon``), as a player's command would.

Prints: hands dealt, simulated event length and last level, wall time, balancing moves (players moved between
tables) per hand, and the ack latency p50/p99 overall and while at least ``--live`` tables (threads with live
boards) were open. ``--profile-start``: a cProfile of ``/tourney start`` (seating every entry, opening the
threads, the first boards), top functions by cumulative time.

    .venv/bin/python -m bench.tournament                  # 200 entries, 8 seats: 25 tables at the start
    .venv/bin/python -m bench.tournament --entries 40 --seats 7
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import logging
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pancog.adapter.runtime import runtime_of
from pancog.game.actions import StartHand
from pancog.game.errors import PanError
from pancog.game.events import HandEnded
from pancog.infra.storage.base import Account
from pancog.services.tables import Applied
from pancog.services.tournaments.model import Status
from pancog.services.tournaments.service import LevelUp, PlayerMoved, PlayerOut, TournamentEvent
from tests.fakediscord.harness import Harness
from tests.fakediscord.server import FakeDiscord


class HandClock:
    """The tournament simulation's clock: a deal takes ``overhead`` seconds and a decision ``per_action`` seconds
    at one table, and the tables play at the same time (each adds its time divided by the tables open)."""

    def __init__(self, overhead: float, per_action: float) -> None:
        self.start = self.now = time.time()
        self.overhead = overhead
        self.per_action = per_action

    def __call__(self) -> float:
        return self.now

    def played(self, seconds: float, tables: int) -> None:
        self.now += seconds / max(1, tables)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--seats", type=int, default=8)
    parser.add_argument("--antes", default="", help="ante per level (default: the published schedule from 10)")
    parser.add_argument("--stack", type=int, default=300, help="starting stack (default: the tournament default)")
    parser.add_argument("--level-minutes", type=float, default=10.0, help="level length on the hand clock")
    parser.add_argument("--hand-overhead", type=float, default=10.0, help="simulated seconds a deal takes")
    parser.add_argument("--seconds-per-action", type=float, default=1.5, help="simulated seconds a decision takes")
    parser.add_argument("--profile-start", action="store_true", help="cProfile /tourney start")
    parser.add_argument("--probe", type=float, default=0.5, help="seconds between /tourney info probes")
    parser.add_argument("--live", type=int, default=25, help="the 'busy' window: at least this many tables open")
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--buy-in", type=int, default=10)
    parser.add_argument("--rebuy-levels", type=int, default=3, help="rebuys during the first N levels (0: none)")
    parser.add_argument("--max-rebuys", type=int, default=2)
    parser.add_argument("--bounty", type=int, default=4, help="of the buy-in, paid for each knock-out (0: none)")
    args = parser.parse_args(argv)
    os.environ.setdefault("PAN_DEAL_SEED", str(args.seed))
    os.environ.setdefault("PAN_BOT_DELAY", "0")
    os.environ.setdefault("PAN_CLOCK_SCALE", "100")
    os.environ.setdefault("PAN_TOURNEY_TICK", "0.5")
    logging.basicConfig(level=logging.WARNING)
    fake = FakeDiscord()
    await fake.start()
    h = Harness(fake, members=2, channels=("tournament",), timeout=120.0)
    host, prober = h.users
    with tempfile.TemporaryDirectory() as tmp:
        await h.start_bot(Path(tmp) / "bench.sqlite3")
        rt = runtime_of(h.bot)
        service = rt.tournaments
        assert service is not None
        clock = HandClock(args.hand_overhead, args.seconds_per_action)
        service.use_clock(clock)
        hands = 0
        moves = 0
        peak_tables = 0

        def on_applied(applied: Applied) -> None:
            nonlocal hands
            tid = service.tournament_of_table(applied.session.table_id)
            if tid is None:
                return
            tables = len(service.get(tid).open_tables())
            if isinstance(applied.action, StartHand):
                hands += 1
                clock.played(clock.overhead, tables)
            elif any(isinstance(e, HandEnded) for e in applied.events):
                rebuy_after(applied, tid)
            elif applied.actor is not None:  # a player's decision (system steps take no table time)
                clock.played(clock.per_action, tables)

        buying: set[asyncio.Task[object]] = set()
        bought = {"rebuy": 0, "addon": 0, "refused": 0}
        bounties = {"paid": 0, "chips": 0}

        async def buy(tid: int, player: int, addon: bool) -> None:
            try:
                await (service.addon(tid, player) if addon else service.rebuy(tid, player))
                bought["addon" if addon else "rebuy"] += 1
            except PanError:  # the period closed or the stack grew meanwhile: refused, nothing charged
                bought["refused"] += 1

        def spawn_buy(tid: int, player: int, addon: bool) -> None:
            task = asyncio.get_running_loop().create_task(buy(tid, player, addon))
            buying.add(task)
            task.add_done_callback(buying.discard)

        def rebuy_after(applied: Applied, tid: int) -> None:
            """Computer players at or below the limit rebuy when a hand ends during the rebuy period."""
            tt = service.get(tid)
            if not args.rebuy_levels or service.level(tt)[0] >= args.rebuy_levels:
                return
            for seat in applied.session.state.seats:
                if seat is None or seat.stack > args.stack:
                    continue
                entry = next((e for e in tt.entries_of(seat.player_id) if e.status.value == "alive"), None)
                if entry is not None and entry.rebuys < args.max_rebuys:
                    spawn_buy(tid, seat.player_id, False)

        def on_event(event: TournamentEvent) -> None:
            nonlocal moves
            if isinstance(event, PlayerMoved) and event.from_table is not None:
                moves += 1
            if isinstance(event, PlayerOut) and event.bounty:
                bounties["paid"] += 1
                bounties["chips"] += event.bounty
            if isinstance(event, LevelUp) and args.rebuy_levels and event.level == args.rebuy_levels:
                for e in service.get(event.tournament_id).alive():  # the add-on: everyone still in
                    spawn_buy(event.tournament_id, e.player_id, True)

        rt.tables.subscribe(on_applied)
        service.subscribe(on_event)
        await h.slash(
            host,
            "tourney create",
            format="scheduled",
            start="+60",
            seats=args.seats,
            buy_in=args.buy_in,
            level_minutes=args.level_minutes,
            rebuy_levels=args.rebuy_levels,
            max_rebuys=args.max_rebuys if args.rebuy_levels else 0,
            addon=bool(args.rebuy_levels),
            bounty=args.bounty,
            starting_stack=args.stack,
            title="Bench event",
            **({"antes": args.antes} if args.antes else {}),
        )
        (t,) = service.tournaments
        registering = time.perf_counter()
        left = args.entries
        while left:
            await h.slash(host, "tourney addbots", count=min(50, left), level="easy", timeout=120)
            left -= min(50, left)
        assert len(t.entries) == args.entries, len(t.entries)
        started = time.perf_counter()
        registration = started - registering
        profile = cProfile.Profile() if args.profile_start else None
        if profile is not None:
            profile.enable()
        await h.slash(host, "tourney start", timeout=300, settle=False)  # settling = the whole event
        start_call = time.perf_counter() - started

        def boards_posted() -> bool:
            sessions = {s.table_id: s for s in rt.tables.sessions}
            tables = service.get(t.tournament_id).open_tables()
            return all(tt.table_id in sessions and sessions[tt.table_id].board_message_id for tt in tables)

        while not boards_posted() and time.perf_counter() - started < 300:  # the burst: seats, threads, boards
            await asyncio.sleep(0.05)
        start_burst = time.perf_counter() - started
        if profile is not None:
            profile.disable()
        busy: list[float] = []
        every: list[float] = []
        deadline = started + args.timeout
        while service.get(t.tournament_id).status is Status.RUNNING and time.perf_counter() < deadline:
            open_tables = len(service.get(t.tournament_id).open_tables())
            peak_tables = max(peak_tables, open_tables)
            reply = await h.slash(prober, "tourney info", timeout=60, settle=False)
            if reply.latency is not None:
                every.append(reply.latency)
                if open_tables >= args.live:
                    busy.append(reply.latency)
            await asyncio.sleep(args.probe)
        elapsed = time.perf_counter() - started
        for task in list(buying):  # rebuys still queued when the time ran out: dropped before the books are read
            task.cancel()
        await asyncio.gather(*buying, return_exceptions=True)
        final = service.get(t.tournament_id)
        audit = await service.audit(t.tournament_id)
        books = await rt.ledger.audit()
        print(f"entries={args.entries} seats={args.seats} status={final.status.value} tables at peak={peak_tables}")
        print(
            f"registration of {args.entries} entries: {registration:.1f}s; start answered in {start_call:.1f}s, "
            f"its burst (seats, threads, first boards) settled in {start_burst:.1f}s "
            f"(the host waits {start_burst:.1f}s from /tourney start to the last first board)"
        )
        info = service.info(t.tournament_id)
        escrow = await rt.ledger.balances([Account.escrow(t.tournament_id)])
        print(
            f"rebuys={info.rebuys} add-ons={info.addons} (refused {bought['refused']}); bounties paid at knock-outs="
            f"{bounties['paid']} ({bounties['chips']} chips); prize pool={info.prize_pool}; "
            f"escrow at the end={escrow[Account.escrow(t.tournament_id)]}"
        )
        level = service.level(final)[0] + 1
        print(
            f"hands={hands} wall={elapsed:.1f}s hands/s={hands / max(elapsed, 1e-9):.2f}; simulated length "
            f"{(clock.now - clock.start) / 60:.0f} min, last level {level} (hand clock: {args.hand_overhead:g} s a "
            f"deal + {args.seconds_per_action:g} s a decision, {args.level_minutes:g}-minute levels)"
        )
        print(f"balancing moves={moves} per hand={moves / max(1, hands):.3f}")
        for label, values in (("all", every), (f">={args.live} tables", busy)):
            if values:
                print(
                    f"ack latency ({label}, n={len(values)}): p50={statistics.median(values) * 1000:.1f} ms "
                    f"p99={percentile(values, 0.99) * 1000:.1f} ms max={max(values) * 1000:.1f} ms"
                )
        print(f"tournament audit: {audit or 'ok'}; ledger audit: {'ok' if books.ok else books.summary()}")
        print(f"problems seen by the fake: {h.problems()[:5]}")
        print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if profile is not None:
            out = io.StringIO()
            stats = pstats.Stats(profile, stream=out).sort_stats("cumulative")
            stats.print_stats(25)
            stats.print_stats(r"pancog/(tournaments|tables|store|ledger|storage)", 20)  # the service's own share
            print(out.getvalue())
        await h.close()
    await fake.stop()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
