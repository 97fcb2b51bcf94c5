"""``python -m tests.fakediscord [--port 8765] [--members 20] [--channels 5] [--shards N] [--global-limit 50]
[--max-concurrency 16] [--identify-window 5]``: serve a fake Discord that any number of bot processes may share.

Prints the environment for ``python bot.py`` (``--port 0``: a free port, printed) and ``FAKE_STATUS_URL``, where
another process reads the fake's counters (``GET /_fake/status``: the global limit's busiest second and its 429s,
IDENTIFY pacing violations, sessions per shard), and runs until interrupted.
"""

from __future__ import annotations

import argparse
import time

from .server import IDENTIFY_WINDOW
from .standalone import FakeDiscordThread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--members", type=int, default=20)
    parser.add_argument("--channels", type=int, default=5)
    parser.add_argument("--shards", type=int, default=1, help="shard count reported by /gateway/bot")
    parser.add_argument("--global-limit", type=int, default=None, help="counted REST calls/s before 429 global")
    parser.add_argument("--max-concurrency", type=int, default=16, help="session_start_limit.max_concurrency")
    parser.add_argument(
        "--identify-window", type=float, default=IDENTIFY_WINDOW, help="seconds between IDENTIFYs of a rate_limit_key"
    )
    args = parser.parse_args()
    with FakeDiscordThread(
        members=args.members,
        channels=args.channels,
        port=args.port,
        shards=args.shards,
        global_limit=args.global_limit,
        max_concurrency=args.max_concurrency,
        identify_window=args.identify_window,
    ) as running:
        for key, value in running.env().items():
            print(f"{key}={value}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
