"""Discord's global limit across processes: 2 ``bot.py`` processes over 4 shards on one PostgreSQL, against one fake
that refuses more than 50 counted requests in any second (429, ``global: true``). A moderator deletes every table's
board at once, so both processes post all their boards again together: far more than 50 requests in a second asked
for. With the budget shared through PostgreSQL (``PAN_REST_GLOBAL_RATE``, on by default), the fake counts at most 50
in every 1-second window and answers no 429, and every board is posted again.

Without the budget (``PAN_REST_GLOBAL_RATE=0``) the same run draws 429s from the fake: the load is real.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from pancog.infra.cluster import Launcher
from pancog.infra.storage import PostgresStorage, storage_for
from tests.e2e.helpers import bot_env, logged_spawn
from tests.e2e.test_cluster_kill import wait_connected
from tests.fakediscord.harness import Harness
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.fakediscord.server import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]
SHARDS, PROCESSES = 4, 2
TABLES_PER_SHARD = 20
LIMIT = 50


async def boards(storage: PostgresStorage) -> dict[int, int | None]:
    rows = await storage.fetch("SELECT channel_id, board_message_id FROM tables WHERE status = 'open'")
    return {int(channel): (None if board is None else int(board)) for channel, board in rows}


async def test_processes_together_stay_under_the_global_limit(tmp_path: Path, postgres_url: str) -> None:
    fake = FakeDiscord(shards=SHARDS, global_limit=LIMIT)
    harness = Harness(fake, members=0)
    tables: list[tuple[FakeChannel, FakeUser]] = []
    for shard in range(SHARDS):
        hosts = [fake.add_user(f"host{shard}-{n}") for n in range(TABLES_PER_SHARD)]
        names = tuple(f"pan-{n}" for n in range(TABLES_PER_SHARD))
        guild = fake.add_guild(f"shard {shard}", channels=names, members=hosts, shard=shard)
        tables += list(zip(guild.channels, hosts, strict=True))
    await fake.start()
    env = bot_env(fake, postgres_url)
    env.pop("PAN_REST_GLOBAL_RATE", None)  # the default: on
    logs: list[Path] = []
    spawn = logged_spawn(tmp_path, logs)

    launcher = Launcher(SHARDS, PROCESSES, python=sys.executable, env=env, spawn=spawn)
    storage = storage_for(postgres_url)
    assert isinstance(storage, PostgresStorage)
    launcher.start()
    try:
        await wait_connected(fake, launcher, timeout=60)
        await storage.open()
        await asyncio.gather(*(harness.slash(host, "pan open", channel=channel) for channel, host in tables))
        deadline = time.monotonic() + 60
        while None in (first := await boards(storage)).values() or len(first) < len(tables):
            assert time.monotonic() < deadline, f"boards: {first}"
            await asyncio.sleep(0.2)
        # Every board deleted at once: each process posts all of its boards again as new messages.
        await asyncio.gather(*(fake.delete_message(fake.messages[board]) for board in first.values() if board))
        deadline = time.monotonic() + 90
        while True:
            now = await boards(storage)
            reposted = [
                c for c, board in now.items() if board is not None and board != first[c] and board in fake.messages
            ]
            if len(reposted) == len(tables):
                break
            assert time.monotonic() < deadline, f"{len(reposted)} of {len(tables)} boards posted again"
            await asyncio.sleep(0.2)
        status = fake.status()["global"]
        posts = [c for c in fake.calls if c.route == "POST /channels/{channel_id}/messages" and c.status == 200]
        assert len(posts) >= len(tables)  # every board posted again as a new message
        assert status["max_per_window"] <= LIMIT, status
        assert status["responses_429"] == 0, status
        print(f"the fake's global counters: {status}")  # the figure (pytest -s shows it)
    except BaseException:
        for log in logs:
            print(f"==== {log.name}\n{log.read_text(errors='replace')[-3000:]}")
        print(f"==== the fake's global counters: {fake.status()['global']}")
        raise
    finally:
        launcher.stop(grace=5)
        await storage.close()
        await fake.stop()
    text = "\n".join(log.read_text(errors="replace") for log in logs)
    assert "Traceback" not in text and " ERROR " not in text, text[-4000:]
    assert fake.unhandled == [] and fake.violations == []
