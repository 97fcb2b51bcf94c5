"""Rebuild the league's derived data (digests, stats, ratings) from the table logs
(``python -m pancog.services.league``).

    .venv/bin/python -m pancog.services.league rebuild [--db data/pan.sqlite3 | --db postgresql://…] [--results-only]

``rebuild`` replays every table's action log through the engine to re-derive each hand's digest (same key, same
ordinal), then refolds stats and ratings from all results in order — one transaction, so a failure changes nothing.
``--results-only`` skips the replay and only refolds the recorded results (fast; after a fix to the stats or
rating code rather than to the digest code). Stop the bot first, or run it while no hand is being settled.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

from pancog.infra.config import Config, ConfigError
from pancog.infra.storage import POSTGRES_SCHEMES, storage_for
from pancog.services.ledger import ChipLedger

from .service import LeagueService


async def _rebuild(db: str, *, from_log: bool) -> None:
    async with storage_for(db) as storage:
        league = LeagueService(storage, ChipLedger(storage))
        start = time.perf_counter()
        hands, results = await league.rebuild(from_log=from_log)
        elapsed = time.perf_counter() - start
    derived = f"{hands} hands re-derived from the action logs, " if from_log else ""
    print(f"league rebuilt: {derived}{results} results refolded into stats and ratings in {elapsed:.1f} s")  # noqa: T201


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pancog.services.league")
    sub = parser.add_subparsers(dest="command", required=True)
    rebuild = sub.add_parser("rebuild", help="recompute digests, stats and ratings from the table logs")
    try:
        default = Config.from_env().database
    except ConfigError as exc:
        parser.error(str(exc))
    rebuild.add_argument("--db", default=default, help="a SQLite file or a postgresql:// URL (default: as the bot)")
    rebuild.add_argument("--results-only", action="store_true", help="refold the recorded results only")
    args = parser.parse_args(argv)
    if not args.db.startswith(POSTGRES_SCHEMES) and not os.path.exists(args.db):
        print(f"no database at {args.db}", file=sys.stderr)  # noqa: T201
        return 2
    asyncio.run(_rebuild(args.db, from_log=not args.results_only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
