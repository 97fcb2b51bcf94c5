"""``python -m pancog.web``: serve the league web pages on ``PAN_WEB_PORT`` (scripts/run starts it beside the bot).

Reads the same database as the bot, read-only: a SQLite file opened with ``mode=ro`` (the bot keeps it in WAL, so
readers never block the bot's writer), or PostgreSQL through ``PAN_WEB_DATABASE_URL`` with a role that may only
SELECT (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys

from aiohttp import web

from pancog.infra import logs
from pancog.infra.config import Config, ConfigError
from pancog.infra.storage import storage_for
from pancog.web.app import make_app
from pancog.web.reader import WebReader

log = logging.getLogger("pan.web")


async def serve(config: Config, *, port: int | None = None, ready: asyncio.Event | None = None) -> None:
    """Open the storage read-only and serve until cancelled."""
    storage = storage_for(config.web_database, read_only=True)
    await storage.open()
    runner: web.AppRunner | None = None
    try:
        app = make_app(WebReader(storage), cache_seconds=config.web_cache_seconds, public_url=config.web_address)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        bound = port if port is not None else config.web_port or 8090
        await web.TCPSite(runner, config.web_host, bound).start()
        log.info("pan-web listening on %s:%s", config.web_host, bound)
        if ready is not None:
            ready.set()
        await asyncio.Event().wait()
    finally:
        if runner is not None:
            await runner.cleanup()
        await storage.close()


def main(argv: list[str] | None = None) -> int:
    try:
        from dotenv import load_dotenv
    except ImportError:  # pragma: no cover - python-dotenv is in requirements.txt
        pass
    else:
        load_dotenv()  # the bot's .env, as bot.py reads it
    try:
        config = Config.from_env()
    except ConfigError as exc:
        print(f"Bad setting: {exc}", file=sys.stderr)  # noqa: T201 - before logging is set up
        return 2
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logs.install(json_lines=config.log_json)
    if config.web_port is None:
        print("PAN_WEB_PORT is not set: pan-web is off.", file=sys.stderr)  # noqa: T201
        return 2
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(config))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
