"""League benchmark: what recording a hand costs its settlement, the ratings fold, and the rebuild.

Run: .venv/bin/python -m bench.league [--settlements 2000] [--rounds 3] [--rebuild-hands 100000] [--log-hands 60]
     .venv/bin/python -m bench.league --flags [--flag-guilds 10] [--flag-runs 20] [--jobs 1]

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
3. ``--flags`` (only this): the collusion flags' false positives over ``--flag-guilds`` seeded honest guilds of
   each kind (equal skill, mixed levels; the flags computed after every session, i.e. at every moment a moderator
   could look), how close honest pairs came to each threshold, and the detection delays over ``--flag-runs`` seeded
   runs of each colluding scenario (tests/league/guilds.py). ``--jobs`` processes (the machine is shared: 1).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import math
import multiprocessing
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from pancog.ai import make_player
from pancog.infra.storage import Account, Posting, SqliteStorage, StorageTx, transfer
from pancog.services.league import HandDigest, LeagueService, PlayerLine, compute_flags
from pancog.services.league.digest import decode
from pancog.services.league.flags import (
    FLOW_MIN_CHIPS,
    FLOW_MIN_HANDS,
    FLOW_ONE_SIDED,
    FLOW_Z,
    SOFT_GAP,
    SOFT_MIN_HANDS,
    SOFT_Z,
    STRONG_MADE,
    TOGETHER_SHARE,
    TOGETHER_Z,
    Flag,
    Limits,
    sittings,
)
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import ResultNote, TableConfig, TableService, seeded_deals
from tests.services.league import guilds
from tests.support.league_play import Feeder, engine_session, play_hands
from tests.support.wiring import wire_league

GUILD = 1
T = TypeVar("T")
R = TypeVar("R")


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
        wire_league(tables, league)
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
    found = [d for d in (decode(b[0]) for b in bodies) if isinstance(d, HandDigest)]
    return found, elapsed, actions


def remapped(base: list[HandDigest], count: int, players: int = 200) -> list[HandDigest]:
    """``count`` hand digests: the base digests with their players remapped onto random players of a guild of
    ``players`` and fresh keys (tables of 500 hands)."""
    rng = random.Random(7)
    out = []
    for n in range(count):
        src = base[n % len(base)]
        people = rng.sample(range(1, players + 1), len(src.players))
        remap = {p.user_id: people[i] for i, p in enumerate(src.players)}
        out.append(
            HandDigest(
                table_id=100 + n // 500,
                hand_no=n,
                reason=src.reason,
                winner=remap.get(src.winner) if src.winner is not None else None,
                splitters=tuple(remap[s] for s in src.splitters),
                players=[dataclasses.replace(p, user_id=remap[p.user_id]) for p in src.players],
                flows={(remap[a], remap[b]): c for (a, b), c in src.flows.items()},
            )
        )
    return out


def synthesise(path: Path, base: list[HandDigest], count: int) -> None:
    """Write ``count`` hand results to ``league_results`` directly (:func:`remapped`; setup only, not measured)."""
    rows = [
        (d.key, n + 1, GUILD, 0, "hand", d.table_id, d.hand_no, 0, d.encode())
        for n, d in enumerate(remapped(base, count))
    ]
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


LOOSE = Limits(
    flow_z=-math.inf,
    flow_min_chips=0,
    flow_one_sided=0.0,
    together_z=-math.inf,
    together_share=0.0,
    soft_z=-math.inf,
    soft_gap=-math.inf,
)
"""Every criterion but the minimum sample waived: how close honest pairs come to each threshold."""

EFFECT = ("flow", "together", "soft")


def _effect(flag: Flag) -> float:
    """The flag's size criterion (besides its z): flow's one-sidedness, together's smaller share, soft's gap."""
    if flag.kind == "flow":
        return flag.figure("one_sided")
    if flag.kind == "together":
        return min(flag.figure("share_of_first_hands"), flag.figure("share_of_second_hands"))
    return flag.figure("on_top_rate_vs_opponent") - flag.figure("honest_rate")


@dataclasses.dataclass
class HonestRun:
    hands: int
    looks: int
    pairs: int
    raised: list[tuple[int, tuple[str, int, int], tuple[int, str]]]
    closest: dict[str, list[float]]
    tops: dict[tuple[str, str], list[int]]  # (level, situation) -> [declarations, went on top]


def situation(line: PlayerLine, hand: HandDigest) -> str:
    """What the soft flag separates: a dealt meld or not, and whether someone had knocked in before him."""
    contested = any(p.played and (p.position or 0) < (line.position or 0) for p in hand.players)
    return f"{'meld' if (line.made or 0) >= STRONG_MADE else 'no meld'}, {'someone in' if contested else 'nobody in'}"


SESSIONS = 40  # per honest guild, of 15 hands: 600 hands


def honest_run(job: tuple[str, int, int]) -> HonestRun:
    """One honest guild, the flags after every session: what was raised, and the closest honest pair per kind."""
    kind, seed, sessions = job
    styles = {"equal": guilds.EQUAL, "mixed": guilds.MIXED_HARD, "careless": guilds.CARELESS}[kind]
    guild = guilds.honest_guild(seed, styles=styles, pool=8, sessions=sessions, hands=15)
    raised: dict[tuple[str, int, int], tuple[int, str]] = {}
    closest: dict[str, list[float]] = {k: [0.0, 0.0] for k in EFFECT}
    for _, end in guild.sessions:
        for f in compute_flags(guild.hands[:end]):
            who = f"{guild.levels[f.first]}->{guild.levels[f.second]}"
            raised.setdefault((f.kind, f.first, f.second), (end, f"{who} {dict(f.figures)}"))
        for f in compute_flags(guild.hands[:end], LOOSE):
            closest[f.kind][0] = max(closest[f.kind][0], f.score)
            closest[f.kind][1] = max(closest[f.kind][1], _effect(f))
    tops: dict[tuple[str, str], list[int]] = {}
    for d in guild.hands:
        for line in d.players:
            acc = tops.setdefault((guild.levels[line.user_id], situation(line, d)), [0, 0])
            acc[0] += 1
            acc[1] += line.on_top
    pairs = {
        (a, b)
        for d in guild.hands
        for a in (p.user_id for p in d.players)
        for b in (p.user_id for p in d.players)
        if a < b
    }
    return HonestRun(
        hands=len(guild.hands),
        looks=len(guild.sessions),
        pairs=len(pairs),
        raised=[(seed, k, v) for k, v in raised.items()],
        closest=closest,
        tops=tops,
    )


SCENARIOS = {
    "heads-up feeder, table service": "flow feeder->partner through the real table service and league hook",
    "heads-up feeder": "flow feeder->partner, heads-up through the engine (partner easy)",
    "three-handed feeder": "flow feeder->partner, with an honest easy player",
    "soft partner": "soft, a SoftPlayer who only ever sits at his partner's tables (1 in 2 sessions)",
    "inseparable pair": "together, an honest pair that only plays heads-up with each other (4 sessions in 5)",
}


async def service_feeder(seed: int, hands: int) -> list[HandDigest]:
    """A feeder heads-up with an easy partner through the table service (deals seeded by ``seed``), each hand
    recorded by the league's settlement hook; the digests as stored."""
    with tempfile.TemporaryDirectory() as name:
        async with SqliteStorage(Path(name) / "feeder.sqlite3", synchronous="OFF") as storage:
            ledger = ChipLedger(storage)
            tables = TableService(ledger, TableStore(storage), dealer=seeded_deals(seed))
            league = LeagueService(storage, ledger)
            wire_league(tables, league)
            users = (guilds.SOFT, guilds.PARTNER)
            await tables.open_table(1, guild_id=GUILD, channel_id=1, host_id=users[0], config=TableConfig.build())
            for user in users:
                await ledger.grant(GUILD, user, 5000, actor="system", reason="bench")
                await tables.join(1, user, buy_in=5000)
            await play_hands(tables, 1, {users[0]: Feeder(), users[1]: make_player("easy")}, hands, seed=seed)
            await league.drain()
            async with storage.transaction(write=False) as tx:
                bodies = await tx.fetchall("SELECT body FROM league_results ORDER BY ordinal")
    return [d for d in (decode(b[0]) for b in bodies) if isinstance(d, HandDigest)]


def detect_run(job: tuple[str, int]) -> tuple[int | None, int, int, list[str]]:
    """(guild hands until the pair is flagged or None, the pair's shared hands then, its shared sittings then,
    flags naming anyone else at the end)."""
    scenario, seed = job
    pair = (guilds.SOFT, guilds.PARTNER)
    if scenario == "heads-up feeder, table service":
        hands = asyncio.run(service_feeder(seed, 60))
        looks: list[int] = list(range(1, len(hands) + 1))
        want = guilds.names("flow", *pair)
    elif scenario == "heads-up feeder":
        hands = guilds.feeder_session(seed, hands=80)
        looks = list(range(1, len(hands) + 1))
        want = guilds.names("flow", *pair)
    elif scenario == "three-handed feeder":
        hands = guilds.feeder_session(seed, hands=120, third="easy")
        looks = list(range(1, len(hands) + 1))
        want = guilds.names("flow", *pair)
    elif scenario == "soft partner":
        guild = guilds.soft_guild(seed, sessions=40)
        hands, looks = guild.hands, [end for _, end in guild.sessions]
        want = guilds.names("soft", *pair)
    else:
        guild = guilds.inseparable_guild(seed, sessions=60)
        hands, looks = guild.hands, [end for _, end in guild.sessions]
        want = guilds.names("together", *pair)
    first = guilds.first_flagged(hands, want, looks)
    seen = hands[: first or len(hands)]
    both = [d for d in seen if {guilds.SOFT, guilds.PARTNER} <= {p.user_id for p in d.players}]
    together = sum(1 for people, _ in sittings(seen) if {guilds.SOFT, guilds.PARTNER} <= people)
    wrong = [
        f"{f.kind} {f.first}->{f.second}"
        for f in compute_flags(hands)
        if {f.first, f.second} != set(pair) and not (f.kind == "flow" and f.first == guilds.SOFT)
    ]
    return first, len(both), together, wrong


def _run(jobs: int, fn: Callable[[T], R], work: list[T]) -> list[R]:
    if jobs <= 1:
        return [fn(w) for w in work]
    with multiprocessing.Pool(jobs) as pool:
        return pool.map(fn, work)


def flag_figures(guild_count: int, runs: int, jobs: int, careless: int, cost_hands: int) -> None:
    t0 = time.perf_counter()
    print(
        f"collusion flags: flow z >= {FLOW_Z} (chips or hands), one-sided >= {FLOW_ONE_SIDED}, "
        f">= {FLOW_MIN_HANDS} hands, >= {FLOW_MIN_CHIPS} chips; together z >= {TOGETHER_Z}, share >= "
        f"{TOGETHER_SHARE} of each one's hands; soft z >= {SOFT_Z}, gap >= {SOFT_GAP}, >= {SOFT_MIN_HANDS} hands"
    )
    print(
        f"honest guilds (8 players, {SESSIONS} sessions of 2-4 of them, 15 hands each; flags computed after every "
        "session):"
    )
    kinds = [("equal", guild_count), ("mixed", guild_count)] + ([("careless", careless)] if careless else [])
    for kind, count in kinds:
        t1 = time.perf_counter()
        out = _run(jobs, honest_run, [(kind, 2000 + seed, SESSIONS) for seed in range(count)])
        raised = [r for o in out for r in o.raised]
        closest = {k: [max(o.closest[k][i] for o in out) for i in (0, 1)] for k in EFFECT}
        label = {"equal": "equal (all easy)", "mixed": "mixed (easy/normal/hard)", "careless": "careless"}[kind]
        print(
            f"  {label}: {count} guilds, {sum(o.hands for o in out):,} hands, "
            f"{sum(o.pairs for o in out)} pairs, {sum(o.looks for o in out)} looks: "
            f"{len(raised)} flags ({time.perf_counter() - t1:.0f} s)"
        )
        print(
            "    closest honest pair (each criterion alone): "
            f"flow z {closest['flow'][0]:.2f}, one-sided {closest['flow'][1]:.2f}; "
            f"together z {closest['together'][0]:.2f}, share {closest['together'][1]:.2f}; "
            f"soft z {closest['soft'][0]:.2f}, gap {closest['soft'][1]:.2f}"
        )
        for seed, (flag_kind, first, second), (at, text) in raised:
            print(f"    guild {seed}: {flag_kind} {first}->{second} from hand {at}: {text}")
        tops: dict[tuple[str, str], list[int]] = {}
        for o in out:
            for key, (n, top) in o.tops.items():
                acc = tops.setdefault(key, [0, 0])
                acc[0] += n
                acc[1] += top
        rates = "; ".join(
            f"{level} {where} {100 * top / n:.1f} % of {n:,}" for (level, where), (n, top) in sorted(tops.items())
        )
        print(f"    on top (honest declarations): {rates}")
    base = guilds.honest_guild(1, styles=guilds.EQUAL, pool=8, sessions=10, hands=15).hands
    for count in (10_000, cost_hands):
        big = remapped(base, count)
        t1, c1 = time.perf_counter(), time.process_time()
        found = compute_flags(big)
        print(
            f"cost: compute_flags over {count:,} hands of a 200-player guild (every hand its own sitting): "
            f"{time.perf_counter() - t1:.2f} s wall, {time.process_time() - c1:.2f} s CPU, {len(found)} flags"
        )
    print(f"detection ({runs} seeded runs each; delay = guild hands until flagged):")
    for scenario, what in SCENARIOS.items():
        out2 = _run(jobs, detect_run, [(scenario, seed) for seed in range(runs)])
        found = sorted(o[0] for o in out2 if o[0] is not None)
        shared = sorted(o[1] for o in out2 if o[0] is not None)
        sits = sorted(o[2] for o in out2 if o[0] is not None)
        wrong = [w for o in out2 for w in o[3]]
        if found:
            print(
                f"  {scenario} ({what}): flagged in {len(found)}/{runs}; hands: median "
                f"{statistics.median(found):.0f}, max {found[-1]}; the pair's shared hands: median "
                f"{statistics.median(shared):.0f}, max {shared[-1]}; shared sittings: median "
                f"{statistics.median(sits):.0f}, max {sits[-1]}; flags naming anyone else: {len(wrong)} {wrong[:5]}"
            )
        else:
            print(f"  {scenario} ({what}): never flagged in {runs} runs")
    print(f"({time.perf_counter() - t0:.0f} s)")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--settlements", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rebuild-hands", type=int, default=100_000)
    parser.add_argument("--log-hands", type=int, default=60)
    parser.add_argument("--flags", action="store_true", help="only the collusion flags' figures, then exit")
    parser.add_argument("--flag-guilds", type=int, default=10, help="honest guilds of each kind")
    parser.add_argument("--flag-runs", type=int, default=20, help="seeded runs of each colluding scenario")
    parser.add_argument("--careless", type=int, default=0, help="honest guilds with a careless player (known limit)")
    parser.add_argument("--jobs", type=int, default=1, help="processes for --flags")
    parser.add_argument("--concurrent", type=int, default=16, help="tables at once in the ledger figures")
    parser.add_argument(
        "--ledger-rounds",
        type=int,
        default=31,
        help="pairs (a single pair swings by +-10 points on a 2-core VM: 31 pairs take ~7 min); 0: skip them",
    )
    parser.add_argument("--breakdown", action="store_true", help="only where the league's cost goes, then exit")
    args = parser.parse_args()
    if args.flags:
        # in a thread: its table-service runs start event loops of their own
        await asyncio.to_thread(
            flag_figures, args.flag_guilds, args.flag_runs, args.jobs, args.careless, args.rebuild_hands
        )
        return
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


if __name__ == "__main__":
    asyncio.run(main())
