"""``python -m tests.fakediscord [--port 8765] [--members 20] [--channels 5] [--shards N] [--global-limit 50]``:
serve a fake Discord.

Prints the environment for ``python bot.py`` and runs until interrupted.
"""

from __future__ import annotations

import argparse
import time

from .standalone import FakeDiscordThread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--members", type=int, default=20)
    parser.add_argument("--channels", type=int, default=5)
    parser.add_argument("--shards", type=int, default=1, help="shard count reported by /gateway/bot")
    parser.add_argument("--global-limit", type=int, default=None, help="counted REST calls/s before 429 global")
    args = parser.parse_args()
    with FakeDiscordThread(
        members=args.members, channels=args.channels, port=args.port, shards=args.shards, global_limit=args.global_limit
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
