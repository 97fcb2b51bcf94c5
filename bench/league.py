"""League benchmark: what recording a hand costs its settlement, the ratings fold, and the rebuild.

Run: .venv/bin/python -m bench.league [--settlements 2000] [--rounds 3] [--rebuild-hands 100000] [--log-hands 60]
                                      [--fp-guilds 0]

1. Settlement cost, back to back with ``bench/ledger.py``'s loop (one ``commit_action`` = log append + 10 postings,
   ``synchronous=FULL``): the same loop with the league's in-transaction work of a four-player hand (the hand's
   result text on the settlement's journal row, what the settlement hook does since migration V8) — alternated
   ``--rounds`` times, medians compared; and the two interleaved commit by commit in one database (each commit's
   process CPU summed per kind: both kinds see the same load, file and caches). The drain (``LeagueService.drain``:
   the results moved into ``league_results`` and ``league_stats``, then the ratings fold; batched, off the settlement
   path) is timed separately, per hand.
2. Rebuild: ``--rebuild-hands`` hand results (digests of real self-played hands, replicated over a 200-player guild
   with fresh keys) refolded into stats and ratings by ``LeagueService.rebuild(from_log=False)``; and the full
   re-derivation from raw action logs (engine replay) of ``--log-hands`` hands played through the table service.
3. ``--fp-guilds N``: false-positive run of the collusion flags over N seeded honest guilds (slow: ~6 s a guild).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from pancog.ai import make_player
from pancog.infra.storage import Account, Posting, SqliteStorage, StorageTx, transfer
from pancog.services.league import HandDigest, LeagueService, PlayerLine, compute_flags
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import ResultNote, TableConfig, TableService, seeded_deals
from tests.support.league_play import engine_session, honest_guild, play_hands

GUILD = 1


def sample_hand(n: int, users: list[int], table: int = 1) -> HandDigest:
    winner = users[n % len(users)]
    players = [
        PlayerLine(user_id=u, played=True, won=u == winner, conditions=1, condition_chips=3, biggest=6, net=-2)
        for u in users
    ]
    return HandDigest(
        table_id=table,
        hand_no=n,
        reason="out",
        winner=winner,
        players=players,
        flows={(u, winner): 2 for u in users if u != winner},
    )


def _settlement_postings(stacks: list[Account], tops: Account, seq: int) -> list[Posting]:
    """``bench/ledger.py``'s settlement: 10 postings (5 transfers between the stacks and the tops)."""
    winner = stacks[((seq + 1) // 2) % 6]
    postings: list[Posting] = []
    for loser in stacks:
        if loser != winner:
            postings += transfer(loser, winner, 1) if seq % 2 else transfer(winner, loser, 1)
    if len(postings) < 10:
        postings += transfer(winner, tops, 1)
    return postings


Variant = str
"""What a league commit of the interleaved loop does (``--breakdown``): "full" (the real hook); "built" (the result
text built, not stored); "empty" (a hook that builds nothing: the bench's own per-hand work, its floor)."""


async def settlements(
    path: Path, count: int, *, league: bool, interleave: bool = False, variant: Variant = "full"
) -> tuple[float, float, float, float]:
    """Seconds per settlement (the ledger bench's loop) with or without the league's in-transaction work, wall and
    process CPU (all threads: the event loop and aiosqlite's worker); the seconds per hand of folding the recorded
    hands into ratings afterwards (0 without the league).

    ``interleave``: one database, the commits alternate bare / with the league, and each commit's process CPU is
    summed per kind — so both kinds see the same machine load, file size and caches (the alternated rounds of whole
    runs drift with the load of a shared machine). Returns (bare CPU, league CPU, 0, fold) per commit then."""
    async with SqliteStorage(path, synchronous="FULL") as storage:
        ledger, store = ChipLedger(storage), TableStore(storage)
        service = LeagueService(storage, ledger)
        if league or interleave:  # a season is running: each player's stats row for all-time and for the season
            await service.start_season(GUILD, "Bench", mode="net")
        table = 1
        await store.open_table(table, guild_id=GUILD, channel_id=table, host_id=1, config="{}")
        players = list(range(1, 7))
        for user in players:
            await ledger.buy_in(table, user, 500, key=f"sit:{user}")
        stacks = [Account.stack(table, u) for u in players]
        tops = Account.tops(table, "singles")
        spent = {False: 0.0, True: 0.0}
        start, cpu = time.perf_counter(), time.process_time()
        for seq in range(1, count + 1):
            postings = _settlement_postings(stacks, tops, seq)
            with_league = league if not interleave else seq % 2 == 0
            c0 = time.process_time()
            note = None
            if with_league:
                note = _variant(service, sample_hand(seq, players[(seq % 3) : (seq % 3) + 4]), variant)

            await store.commit_action(table, seq, f"settle hand {seq}", '[{"e": "HandWon"}]', postings, result=note)
            spent[with_league] += time.process_time() - c0
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        fold = 0.0
        if league or interleave:
            t0 = time.process_time()
            await service.drain()
            fold = (time.process_time() - t0) / (count // 2 if interleave else count)
        assert (await ledger.audit()).ok
    if interleave:
        half = count // 2
        return spent[False] / (count - half), spent[True] / half, 0.0, fold
    return elapsed / count, cpu / count, fold, 0.0


def _variant(service: LeagueService, digest: HandDigest, variant: Variant) -> ResultNote:
    if variant == "empty":

        async def nothing(tx: StorageTx) -> str | None:
            return None

        return nothing
    real = service.note(GUILD, digest)
    if variant == "full":
        return real

    async def built(tx: StorageTx) -> str | None:
        await real(tx)
        return None

    return built


async def breakdown(tmp: Path, count: int, rounds: int) -> None:
    """Where the league's cost per settlement goes: the interleaved CPU figure for each variant (medians)."""
    print(f"where it goes (interleaved CPU per commit, league commit vs bare, medians of {rounds} runs of {count}):")
    for variant in ("empty", "built", "full"):
        ratios = []
        for r in range(rounds):
            bare, league, _, _ = await settlements(
                tmp / f"v{variant}{r}.sqlite3", count * 2, league=False, interleave=True, variant=variant
            )
            ratios.append(100 * (league - bare) / bare)
        print(f"  {variant:<7} {statistics.median(ratios):+5.1f} % (runs {[round(x, 1) for x in ratios]})")


async def ledger_rate(path: Path, count: int, tables: int, mode: str, *, league: bool) -> float:
    """``bench/ledger.py``'s figure — settlements/s of ``tables`` tables settling at once (``count`` in all) at
    ``synchronous=mode`` — with or without the league recording every settlement as a 4-player hand of a running
    season (its result text on the journal row; the drain that turns it into the result row and 8 stats rows runs
    off the settlement path and is not in this figure: see the drain's own line)."""
    async with SqliteStorage(path, synchronous=mode) as storage:
        ledger, store = ChipLedger(storage), TableStore(storage)
        service = LeagueService(storage, ledger)
        if league:
            await service.start_season(GUILD, "Bench", mode="net")
        ids = list(range(1, tables + 1))
        players = list(range(1, 7))
        for user in players:
            await ledger.grant(GUILD, user, 500 * tables, actor="system", reason="bench", key=f"bench:{user}")
        for table in ids:
            await store.open_table(table, guild_id=GUILD, channel_id=table, host_id=1, config="{}")
            for user in players:
                await ledger.buy_in(table, user, 500, key=f"sit:{table}:{user}")
        per_table = max(1, count // tables)

        async def settle(table: int) -> None:
            stacks = [Account.stack(table, u) for u in players]
            tops = Account.tops(table, "singles")
            for seq in range(1, per_table + 1):
                note = None
                if league:
                    note = service.note(GUILD, sample_hand(seq, players[(seq % 3) : (seq % 3) + 4], table))

                postings = _settlement_postings(stacks, tops, seq)
                await store.commit_action(table, seq, f"settle hand {seq}", '[{"e": "HandWon"}]', postings, result=note)

        start = time.perf_counter()
        await asyncio.gather(*(settle(t) for t in ids))
        elapsed = time.perf_counter() - start
        assert (await ledger.audit()).ok
        return per_table * tables / elapsed


async def ledger_figures(tmp: Path, count: int, concurrent: int, rounds: int) -> None:
    """bench/ledger.py's four SQLite figures, bare and with the league, ``rounds`` pairs (medians). Each pair runs
    bare and league back to back, the order swapped every pair (a machine that speeds up or slows down during a
    run then favours neither); the cost is also given per pair, whose median drifts less than a ratio of medians."""
    print(f"bench/ledger.py's settlements/s, bare vs with the league (a season running), {rounds} pairs:")
    for mode in ("FULL", "NORMAL"):
        for tables in (1, concurrent):
            bare, league, costs = [], [], []
            for r in range(rounds):
                order = (False, True) if r % 2 == 0 else (True, False)
                got = {}
                for with_league in order:
                    name = f"r{mode}{tables}{'l' if with_league else 'b'}{r}.sqlite3"
                    got[with_league] = await ledger_rate(tmp / name, count, tables, mode, league=with_league)
                bare.append(got[False])
                league.append(got[True])
                costs.append(100 * (got[False] / got[True] - 1))
            b, lg = statistics.median(bare), statistics.median(league)
            pairs = statistics.median(costs)
            spread = statistics.quantiles(costs, n=4) if len(costs) > 1 else [costs[0]] * 3
            print(
                f"  synchronous={mode:<6} {tables:>3} table(s) at once  {b:7.0f} -> {lg:7.0f} settlements/s: "
                f"cost per settlement {100 * (b / lg - 1):+.1f} % (ratio of medians), {pairs:+.1f} % "
                f"(median of pairs; quartiles {spread[0]:+.1f} / {spread[2]:+.1f}; "
                f"pairs {[round(c, 1) for c in costs]})"
            )


async def real_digests(tmp: Path, hands: int) -> tuple[list[HandDigest], float, int]:
    """Play ``hands`` hands (3 easy-level players) through the table service with the league attached; return their
    digests, the seconds ``rebuild(from_log=True)`` took to re-derive them from the action log, and the log length."""
    async with SqliteStorage(tmp / "real.sqlite3", synchronous="OFF") as storage:
        ledger = ChipLedger(storage)
        tables = TableService(ledger, TableStore(storage), dealer=seeded_deals(5))
        league = LeagueService(storage, ledger)
        league.attach(tables)
        users = [11, 12, 13]
        await tables.open_table(7, guild_id=GUILD, channel_id=7, host_id=11, config=TableConfig.build())
        for u in users:
            await ledger.grant(GUILD, u, 100_000, actor="system", reason="bench")
            await tables.join(7, u, buy_in=100_000)
        actions = await play_hands(tables, 7, {u: make_player("easy") for u in users}, hands, seed=1)
        t0 = time.perf_counter()
        derived, _ = await league.rebuild(from_log=True)
        elapsed = time.perf_counter() - t0
        assert derived == hands
        async with storage.transaction(write=False) as tx:
            bodies = await tx.fetchall("SELECT body FROM league_results ORDER BY ordinal")
    from pancog.services.league.digest import decode

    found = [d for d in (decode(b[0]) for b in bodies) if isinstance(d, HandDigest)]
    return found, elapsed, actions


def synthesise(path: Path, base: list[HandDigest], count: int) -> None:
    """Write ``count`` hand results to ``league_results`` directly: the base digests with their players remapped onto
    random players of a 200-player guild and fresh keys (setup only, not measured)."""
    rng = random.Random(7)
    rows = []
    for n in range(count):
        src = base[n % len(base)]
        people = rng.sample(range(1, 201), len(src.players))
        remap = {p.user_id: people[i] for i, p in enumerate(src.players)}
        d = HandDigest(
            table_id=100 + n // 500,
            hand_no=n,
            reason=src.reason,
            winner=remap.get(src.winner) if src.winner is not None else None,
            splitters=tuple(remap[s] for s in src.splitters),
            players=[dataclasses.replace(p, user_id=remap[p.user_id]) for p in src.players],
            flows={(remap[a], remap[b]): c for (a, b), c in src.flows.items()},
        )
        rows.append((d.key, n + 1, GUILD, 0, "hand", d.table_id, d.hand_no, 0, d.encode()))
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany(
            "INSERT INTO league_results (result_key, ordinal, guild_id, season_no, kind, table_id, hand_no, "
            "created_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    conn.close()


async def rebuild(path: Path) -> tuple[float, float, int]:
    async with SqliteStorage(path, synchronous="NORMAL") as storage:
        league = LeagueService(storage, ChipLedger(storage))
        t0, c0 = time.perf_counter(), time.process_time()
        _, results = await league.rebuild(from_log=False)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        async with storage.transaction(write=False) as tx:
            rated = await tx.fetchall("SELECT COUNT(*), SUM(rated) FROM league_ratings")
        print(f"  ratings rows {rated[0][0]}, rated results {rated[0][1]}")
    return elapsed, cpu, results


def false_positives(guilds: int, first_seed: int = 1000) -> None:
    flagged = 0
    hands = 0
    t0 = time.perf_counter()
    for seed in range(first_seed, first_seed + guilds):
        digests = honest_guild(seed, pool=6, sessions=8, hands=12)
        hands += len(digests)
        found = compute_flags(digests)
        flagged += len(found)
        for f in found:
            print(f"  guild {seed}: {f.kind} {f.first}->{f.second} {f.figures}")
    pairs = guilds * 15
    print(
        f"false positives: {flagged} flags in {guilds} honest guilds ({hands} hands, {pairs} pairs, "
        f"{2 * pairs} ordered pairs) in {time.perf_counter() - t0:.0f} s"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--settlements", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rebuild-hands", type=int, default=100_000)
    parser.add_argument("--log-hands", type=int, default=60)
    parser.add_argument("--fp-guilds", type=int, default=0)
    parser.add_argument("--fp-first-seed", type=int, default=1000)
    parser.add_argument("--concurrent", type=int, default=16, help="tables at once in the ledger figures")
    parser.add_argument(
        "--ledger-rounds",
        type=int,
        default=31,
        help="pairs (a single pair swings by +-10 points on a 2-core VM: 31 pairs take ~7 min); 0: skip them",
    )
    parser.add_argument("--breakdown", action="store_true", help="only where the league's cost goes, then exit")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if args.breakdown:
            await breakdown(tmp, args.settlements, args.rounds)
            return
        if args.ledger_rounds:
            await ledger_figures(tmp, args.settlements, args.concurrent, args.ledger_rounds)
        base_t, league_t, base_c, league_c, folds = [], [], [], [], []
        for r in range(args.rounds):
            wall, cpu, _, _ = await settlements(tmp / f"b{r}.sqlite3", args.settlements, league=False)
            base_t.append(wall)
            base_c.append(cpu)
            wall, cpu, fold, _ = await settlements(tmp / f"l{r}.sqlite3", args.settlements, league=True)
            league_t.append(wall)
            league_c.append(cpu)
            folds.append(fold)
        b, lg, f = statistics.median(base_t), statistics.median(league_t), statistics.median(folds)
        bc, lc = statistics.median(base_c), statistics.median(league_c)
        print(f"settlement (ledger bench loop, FULL), median of {args.rounds} alternated rounds:")
        print(
            f"  wall {b * 1e3:.3f} ms -> {lg * 1e3:.3f} ms with the league ({100 * (lg - b) / b:+.1f} %); rounds "
            f"{[round(x * 1e3, 3) for x in base_t]} vs {[round(x * 1e3, 3) for x in league_t]}"
        )
        print(
            f"  CPU  {bc * 1e3:.3f} ms -> {lc * 1e3:.3f} ms with the league ({100 * (lc - bc) / bc:+.1f} %); rounds "
            f"{[round(x * 1e3, 3) for x in base_c]} vs {[round(x * 1e3, 3) for x in league_c]}"
        )
        pairs = [
            await settlements(tmp / f"i{r}.sqlite3", args.settlements * 2, league=False, interleave=True)
            for r in range(args.rounds)
        ]
        ratios = [100 * (lg_c - b_c) / b_c for b_c, lg_c, _, _ in pairs]
        print(
            f"  interleaved in one database (CPU per commit, bare vs with the league, {args.rounds} runs of "
            f"{args.settlements} each): {statistics.median(p[0] for p in pairs) * 1e3:.3f} ms -> "
            f"{statistics.median(p[1] for p in pairs) * 1e3:.3f} ms, median {statistics.median(ratios):+.1f} % "
            f"(runs {[round(x, 1) for x in ratios]})"
        )
        print(
            f"  drain (result row + 8 stats rows + ratings, batched, off the settlement path): {f * 1e6:.0f} us CPU "
            "per 4-player hand "
            f"= {100 * f / bc:.1f} % of a settlement's CPU if it were counted"
        )
        base, from_log, actions = await real_digests(tmp, args.log_hands)
        print(
            f"rebuild from raw action logs (engine replay): {len(base)} hands / {actions} actions in {from_log:.2f} s "
            f"= {len(base) / from_log:.0f} hands/s"
        )
        extra = engine_session([21, 22, 23, 24], [make_player("easy")] * 4, 40, seed=3, table_id=8)
        path = tmp / "rebuild.sqlite3"
        async with SqliteStorage(path):
            pass
        synthesise(path, base + extra, args.rebuild_hands)
        elapsed, cpu, results = await rebuild(path)
        print(f"rebuild of stats + ratings from {results} hand results: {elapsed:.1f} s wall, {cpu:.1f} s CPU")
    if args.fp_guilds:
        false_positives(args.fp_guilds, args.fp_first_seed)


if __name__ == "__main__":
    asyncio.run(main())
