"""Where the slow acks of a ``bench/cluster.py`` run were: laid beside the bot's garbage-collector pauses.

Reads the run's ``BENCH_ACK_DUMP`` file (each counted ack's dispatch time and latency) and the ``gc-<pid>.txt`` logs
of ``bench/gc_probe`` (each collection's start, length, generation and objects collected; both on
``time.monotonic``), and prints: the collector's pauses by generation in the counted window, the ack percentiles,
and how many acks at or over ``--slow`` ms (default: the p99) were in flight during a pause of ``--pause`` ms or
more (default 20), with the second of the window each fell in.

    .venv/bin/python -m bench.ack_tail /tmp/gcp/acks.json /tmp/gcp/gc-*.txt [--slow 150] [--pause 20]

With ``--late`` (``bench/loop_probe``'s log of the bot's event loop: how late each 5 ms tick fired), the loop's
lateness over the window and, for each second with slow acks, the latest tick in it: slow acks where the loop ran
late are acks that waited for the loop or for a core, not for Discord or a render.

With the dump's commands (``bench/cluster.py`` writes each ack's slash command too), the acks by command follow.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("acks", type=Path)
    parser.add_argument("gc_logs", type=Path, nargs="*")
    parser.add_argument("--late", type=Path, help="bench/loop_probe's late-<pid>.json: the bot loop's lateness")
    parser.add_argument("--slow", type=float, default=0.0, help="ms; an ack at least this slow is in the tail (0: p99)")
    parser.add_argument("--pause", type=float, default=20.0, help="ms; the shortest pause counted")
    args = parser.parse_args(argv)
    rows = json.loads(args.acks.read_text())  # [dispatch, latency] or, since 2026-12-04, [dispatch, latency, command]
    acks: list[tuple[float, float]] = [(float(row[0]), float(row[1])) for row in rows]
    commands = [str(row[2]) for row in rows if len(row) > 2]
    if not acks:
        raise SystemExit("no acks in the dump")
    first, last = acks[0][0], acks[-1][0]
    pauses: list[tuple[float, float, int, int]] = []  # start, ms, generation, collected
    for log in args.gc_logs:
        for line in log.read_text().splitlines():
            start, ms, generation, collected = line.split()
            if first - 1 < float(start) < last + 1:
                pauses.append((float(start), float(ms), int(generation), int(collected)))
    for generation in (0, 1, 2) if args.gc_logs else ():
        mine = [p for p in pauses if p[2] == generation]
        print(
            f"generation {generation}: {len(mine)} pauses of 3 ms or more (every full one), longest "
            f"{max((p[1] for p in mine), default=0.0):.1f} ms, {sum(p[1] for p in mine):.0f} ms in all"
        )
    latencies = sorted(lat for _, lat in acks)
    n = len(latencies)
    p99 = latencies[min(n - 1, int(0.99 * n))]
    p50, p95 = latencies[n // 2], latencies[int(0.95 * n)]
    print(f"{n} acks: p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")
    slow = args.slow / 1000 if args.slow > 0 else p99
    tail = [(t, lat) for t, lat in acks if lat >= slow]
    long_pauses = [p for p in pauses if p[1] >= args.pause]

    def in_a_pause(t: float, lat: float) -> bool:
        return any(start <= t + lat and start + ms / 1000 >= t for start, ms, _, _ in long_pauses)

    caught = sum(in_a_pause(t, lat) for t, lat in tail)
    print(
        f"{len(tail)} acks of {slow * 1000:.1f} ms or more"
        + (f"; {caught} of them in flight during a pause of {args.pause:g} ms or more" if args.gc_logs else "")
    )
    by_second = collections.Counter(int(t - first) for t, _ in tail)
    print("slow acks by second of the window: " + ", ".join(f"{s}: {k}" for s, k in sorted(by_second.items())))
    if args.gc_logs:
        print(
            f"pauses of {args.pause:g} ms or more (second, ms, generation, collected): "
            + ", ".join(f"({s - first:.1f}, {ms}, {g}, {c})" for s, ms, g, c in long_pauses)
        )
    if args.late:
        ticks = [(float(t), float(late)) for t, late in json.loads(args.late.read_text()) if first <= t <= last]
        lates = sorted(late for _, late in ticks)
        if lates:
            k = len(lates)
            print(
                f"the bot's event loop, {k} ticks of 5 ms: late by p50 {lates[k // 2] * 1000:.1f}, "
                f"p90 {lates[int(0.9 * k)] * 1000:.1f}, p99 {lates[min(k - 1, int(0.99 * k))] * 1000:.1f}, "
                f"max {lates[-1] * 1000:.1f} ms"
            )
            latest: dict[int, float] = collections.defaultdict(float)
            for t, late in ticks:
                latest[int(t - first)] = max(latest[int(t - first)], late)
            print(
                "seconds with slow acks (second: slow acks, the loop's latest tick ms): "
                + ", ".join(f"{s}: {k_}, {latest[s] * 1000:.0f}" for s, k_ in sorted(by_second.items()))
            )
            calm = sorted(v for s, v in latest.items() if s not in by_second)
            if calm:
                print(f"seconds without: the loop's latest tick median {calm[len(calm) // 2] * 1000:.0f} ms")
    if len(commands) == len(acks):  # by command: which answers make the tail
        by_command: dict[str, list[float]] = collections.defaultdict(list)
        for command, (_t, lat) in zip(commands, acks, strict=True):
            by_command[command].append(lat)
        for command, lats in sorted(by_command.items(), key=lambda kv: -len(kv[1])):
            lats.sort()
            k = len(lats)
            mid, top = lats[k // 2] * 1000, lats[min(k - 1, int(0.99 * k))] * 1000
            in_tail = sum(lat >= slow for lat in lats)
            print(f"  {command}: {k} acks, p50 {mid:.1f} ms, p99 {top:.1f} ms, {in_tail} in the tail")


if __name__ == "__main__":
    main(sys.argv[1:])
