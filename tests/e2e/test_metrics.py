"""``/metrics`` and ``/healthz`` scraped over HTTP from a running bot on the fake Discord (``PAN_METRICS_PORT``).

In process, on SQLite: the counters follow what happened (actions, acks, REST answers by route, a 429), the render
queue and leases are there, and ``/healthz`` turns 503 naming the gateway during a gateway outage and 200 again once
it is back. As ``bot.py`` of a cluster, on PostgreSQL: the process holds its two shard leases, and when another
process takes one of them ``/healthz`` says so with a 503 (an orchestrator restarts or replaces it).
"""

from __future__ import annotations

import asyncio
import gc
import re
import socket
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from pancog.adapter.runtime import runtime_of
from pancog.infra.cluster import Launcher
from pancog.infra.storage import PostgresStorage, ShardSet, storage_for
from pancog.services.store import TableStore
from tests.e2e.helpers import bot_env, logged_spawn
from tests.fakediscord.harness import Harness
from tests.fakediscord.plugin import HarnessFactory
from tests.fakediscord.server import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of one sample of the Prometheus text format (None: not there)."""
    for line in text.splitlines():
        match = re.match(r"^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$", line)
        if match is None or match.group(1) != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2) or ""))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(match.group(3))
    return None


async def until(url: str, status: int, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        code, text = await get(url)
        if code == status:
            return text
        assert time.monotonic() < deadline, f"{url}: {code} {text!r}, waited for {status}"
        await asyncio.sleep(0.1)


async def test_metrics_and_health_of_a_running_bot(
    harness_factory: HarnessFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAN_METRICS_PORT", "0")  # any free port: read back from the runtime
    monkeypatch.setenv("PAN_METRICS_HOST", "127.0.0.1")
    h: Harness = await harness_factory()
    observability = runtime_of(h.bot).observability
    assert observability is not None
    base = f"http://127.0.0.1:{observability.server.port}"
    code, text = await get(f"{base}/healthz")
    assert (code, text) == (200, "ok\n")
    a, b = h.users[:2]
    await h.slash(a, "pan open")
    await h.slash(b, "pan join")
    h.fake.fail_next("POST /interactions/*", status=429, count=1)  # Discord asks the next answer to wait
    await h.slash(a, "pan start")
    await h.idle()
    code, text = await get(f"{base}/metrics")
    assert code == 200
    assert (sample(text, "pan_actions_total", actor="player") or 0) >= 2  # the host's and the guest's seats, the deal
    assert (sample(text, "pan_ack_seconds_count") or 0) >= 3  # one answer per interaction
    assert sample(text, "pan_ack_seconds_bucket", le="+Inf") == sample(text, "pan_ack_seconds_count")
    callbacks = [
        line for line in text.splitlines() if line.startswith("pan_rest_requests_total{") and "/callback" in line
    ]
    assert any('route="/interactions/{id}/{token}/callback"' in line for line in callbacks), callbacks
    assert sample(text, "pan_rest_429_total", scope="user") == 1.0
    refused = [line for line in text.splitlines() if line.startswith("pan_rest_requests_total{") and "429" in line]
    assert refused == [
        'pan_rest_requests_total{method="POST",route="/interactions/{id}/{token}/callback",status="429"} 1.0'
    ]
    assert sample(text, "pan_render_queue_depth", priority="urgent") == 0.0
    assert sample(text, "pan_shard_leases_held") == 0.0  # one process, unsharded: no leases
    assert sample(text, "pan_shard_lease_takeovers_total") == 0.0
    assert sample(text, "pan_rest_budget_granted_total") is None  # SQLite: no shared budget
    # Every pause of the garbage collector is timed: a full collection now shows in the oldest generation's count.
    full = sample(text, "pan_gc_pause_seconds_count", generation="2") or 0.0
    gc.collect()
    _, text = await get(f"{base}/metrics")
    assert (sample(text, "pan_gc_pause_seconds_count", generation="2") or 0.0) >= full + 1
    assert (sample(text, "pan_gc_pause_seconds_sum", generation="2") or 0.0) > 0.0
    # The gateway goes down: the probe says so, then recovers with it.
    await h.fake.gateway_down()
    reason = await until(f"{base}/healthz", 503)
    assert reason.startswith("gateway"), reason
    h.fake.gateway_outage = False
    assert await until(f"{base}/healthz", 200, timeout=60) == "ok\n"
    # discord.py logs each refused reconnection at ERROR: provoked here, and nothing else
    forgiven = h.forgive()
    assert forgiven and all("Attempting a reconnect" in line for line in forgiven), forgiven


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_health_of_a_cluster_process_that_loses_a_lease(tmp_path: Path, postgres_url: str) -> None:
    fake = FakeDiscord(shards=2)
    Harness(fake, members=2)
    await fake.start()
    port = free_port()
    env = bot_env(fake, postgres_url, PAN_METRICS_PORT=str(port), PAN_METRICS_HOST="127.0.0.1")
    logs: list[Path] = []
    spawn = logged_spawn(tmp_path, logs)

    launcher = Launcher(2, 1, python=sys.executable, env=env, spawn=spawn)
    storage = storage_for(postgres_url)
    assert isinstance(storage, PostgresStorage)
    launcher.start()
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while fake.sessions_by_shard() != {0: 1, 1: 1}:
            launcher.poll()
            assert time.monotonic() < deadline, fake.sessions_by_shard()
            await asyncio.sleep(0.05)
        assert await until(f"{base}/healthz", 200) == "ok\n"
        _, text = await get(f"{base}/metrics")
        assert sample(text, "pan_shard_leases_held") == 2.0
        assert sample(text, "pan_rest_budget_granted_total") is not None  # PostgreSQL: the shared budget is on
        await storage.open()
        await TableStore(storage).take_leases(ShardSet(2, (1,)), holder="another process")
        reason = await until(f"{base}/healthz", 503)
        assert reason == "shard leases lost: 1\n"
        _, text = await get(f"{base}/metrics")
        assert sample(text, "pan_shard_leases_held") == 1.0
    except BaseException:
        for log in logs:
            print(log.read_text(errors="replace")[-3000:])
        raise
    finally:
        launcher.stop(grace=5)
        await storage.close()
        await fake.stop()
