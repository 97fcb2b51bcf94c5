"""Several bot processes on one fake Discord: the global REST limit counted over every sliding second across all of
them, IDENTIFY pacing per rate_limit_key, and the counters served to a test in another process."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import discord as dpy
import pytest

from tests.fakediscord.clients import clients_together, plain_client
from tests.fakediscord.server import FakeDiscord, GlobalMeter

ROOT = Path(__file__).resolve().parents[2]
STANDALONE_ARGS = [
    "--port",
    "0",
    "--shards",
    "2",
    "--max-concurrency",
    "1",
    "--identify-window",
    "60",
    "--global-limit",
    "50",
]


KERNEL_TICK = 0.01  # how early a kernel receive stamp may read: one tick (4 ms at HZ=250; 10 ms at HZ=100)


def busiest_second(times: list[float]) -> int:
    """The most request times in any window (t - 1 s, t]: computed here from the records, independently."""
    return max((sum(1 for u in times if t - 1.0 < u <= t) for t in times), default=0)


async def test_the_global_meter_counts_every_sliding_second_and_leaves_interactions_out() -> None:
    fake = FakeDiscord()  # no limit: the fake only counts
    user = fake.add_user("alice")
    guild = fake.add_guild("g", members=[user])
    await fake.start()
    try:
        async with plain_client(fake) as (client, seen):
            channel = client.get_channel(guild.channels[0].id)
            assert isinstance(channel, dpy.TextChannel)
            await asyncio.gather(*(channel.send(f"m{i}") for i in range(30)))
            await fake.create_interaction(type=2, user=user, channel=guild.channels[0], data={"name": "x"}, label="x")
            await asyncio.wait_for(_until(lambda: seen), 10)  # the client answers it (a callback: not counted)
    finally:
        await fake.stop()
    counted = [c.at for c in fake.calls if c.global_limit]
    assert any(not c.global_limit and c.route.endswith("/callback") for c in fake.calls)
    status = fake.status()["global"]
    assert status["requests"] == len(counted) >= 30
    assert status["max_per_window"] == busiest_second(counted) >= 2
    assert status["responses_429"] == 0


def test_the_meter_counts_times_that_come_out_of_order_in_every_window_holding_them() -> None:
    # a request is stamped when it reached the machine and counted when handled: stamps may come out of order
    rng = random.Random(7)
    times = sorted(rng.uniform(0, 5) for _ in range(300))
    shuffled = times[:]
    for i in range(0, len(shuffled) - 3, 3):  # each run of three handled in another order
        shuffled[i : i + 3] = reversed(shuffled[i : i + 3])
    meter = GlobalMeter()
    for t in shuffled:
        meter.arrive(t)
    assert meter.requests == 300
    assert meter.max_per_window == busiest_second(times) > 60


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *pieces: bytes) -> int:
    """Write a raw HTTP/1.1 request (its pieces 0.3 s apart), read the answer whole: its status."""
    for n, piece in enumerate(pieces):
        if n:
            await asyncio.sleep(0.3)
        writer.write(piece)
        await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    await reader.readexactly(
        next(int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length"))
    )
    return int(head.split(b" ")[1])


async def test_a_request_counts_from_when_its_first_bytes_arrived_not_when_the_fake_handled_it() -> None:
    """Discord counts a request when it reaches it. The fake handles a request only once its headers are whole; a
    request whose headers came in two pieces 0.3 s apart arrived with its first piece. The next request on the same
    connection gets its own stamp, also after an answer on another route."""
    fake = FakeDiscord(global_limit=50)
    await fake.start()
    try:
        reader, writer = await asyncio.open_connection(fake.host, fake.port)
        request = (
            f"GET /api/v10/users/@me HTTP/1.1\r\nHost: {fake.host}\r\nAuthorization: Bot {fake.token}\r\n\r\n"
        ).encode()
        sent = [time.monotonic()]
        assert await _exchange(reader, writer, request[:20], request[20:]) == 200
        await asyncio.sleep(0.3)
        sent.append(time.monotonic())
        assert await _exchange(reader, writer, request) == 200
        status_page = f"GET /_fake/status HTTP/1.1\r\nHost: {fake.host}\r\n\r\n".encode()  # not a REST route
        assert await _exchange(reader, writer, status_page) == 200
        await asyncio.sleep(0.3)
        sent.append(time.monotonic())
        assert await _exchange(reader, writer, request) == 200
        writer.close()
    finally:
        await fake.stop()
    first, second, third = [c for c in fake.calls if c.route == "GET /users/@me"]
    # the kernel's receive time is kept at its tick (4 ms here): a stamp may read up to one tick early
    assert sent[0] - KERNEL_TICK <= first.at < sent[0] + 0.2  # its first bytes, not its handling 0.3 s later
    assert second.at >= sent[1] - KERNEL_TICK  # a fresh stamp for the connection's next request (the old: 0.3 s early)
    assert third.at >= sent[2] - KERNEL_TICK  # and after an answer on another route
    assert fake.status()["global"]["requests"] == 3


def _blocking_get(
    host: str, port: int, request: bytes, after: list[float], delay: float, sent: list[float], statuses: list[int]
) -> None:
    """One raw request on its own connection (opened at once), written ``delay`` s after the time in ``after`` (the
    first request's sending; at once if ``after`` is ``sent``): a thread's client, which keeps its own time while the
    fake's event loop is blocked."""
    import socket

    with socket.create_connection((host, port)) as sock:
        if after is not sent:
            while not after:
                time.sleep(0.001)
            time.sleep(max(0.0, after[0] + delay - time.monotonic()))
        sent.append(time.monotonic())
        sock.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += sock.recv(65536)
        statuses.append(int(answer.split(b" ")[1]))


async def test_a_request_counts_from_when_it_reached_the_machine_not_when_a_busy_fake_read_it() -> None:
    """The fake's event loop is this test's, and a load generator's in the bench: blocked 1.1 s (as a busy one is),
    it reads a request that reached the machine at its start only at its end. Counted then, requests 1.05 s apart
    (A, then B) were counted together with a third (C) 0.85 s after B: three in one second, refused at a limit of
    2. The fake stamps each request with the kernel's time of receipt (TCP_INFO), so none is refused, and A's stamp is
    when it was sent, with how late it was read kept beside it."""
    import threading

    fake = FakeDiscord(global_limit=2)
    await fake.start()
    request = (
        f"GET /api/v10/users/@me HTTP/1.1\r\nHost: {fake.host}\r\nAuthorization: Bot {fake.token}\r\n\r\n"
    ).encode()
    sent: list[list[float]] = [[], [], []]
    statuses: list[int] = []
    try:
        threads = [  # B and C timed from A's sending: a late thread only moves them further from A
            threading.Thread(target=_blocking_get, args=(fake.host, fake.port, request, sent[0], dt, box, statuses))
            for dt, box in zip((0.0, 1.05, 1.9), sent, strict=True)
        ]
        for thread in threads:
            thread.start()
        while not sent[0]:
            time.sleep(0.001)  # A is on its way: now block the fake's loop, as a busy load generator does
        time.sleep(1.1)
        for thread in threads:
            await asyncio.to_thread(thread.join, 10)
    finally:
        await fake.stop()
    a, b, c = sorted((call for call in fake.calls if call.route == "GET /users/@me"), key=lambda call: call.at)
    assert statuses == [200, 200, 200] and fake.global_429s == 0
    assert abs(a.at - sent[0][0]) < 0.05 and a.read_lag > 0.9  # stamped when it arrived, read over 0.9 s later
    assert abs(b.at - sent[1][0]) < 0.05 and abs(c.at - sent[2][0]) < 0.05
    assert busiest_second([a.at, b.at, c.at]) == 2
    assert busiest_second([call.at + call.read_lag for call in (a, b, c)]) == 3  # as it was counted before


async def _until(ready: Any) -> None:
    while not ready():
        await asyncio.sleep(0.01)


async def test_two_processes_share_one_global_limit() -> None:
    fake = FakeDiscord(shards=2, global_limit=8)
    user = fake.add_user("alice")
    guilds = [fake.add_guild(f"g{k}", members=[user], shard=k) for k in range(2)]
    await fake.start()
    try:
        async with plain_client(fake, [0]) as (one, _), plain_client(fake, [1]) as (two, _):

            async def send(client: dpy.Client, guild: Any, i: int) -> dpy.Message:
                # discord.py waits the 429s out, but gives up after 5 tries; on a loaded machine two processes'
                # retries can keep colliding, and this test is about the fake's counting, not discord.py's patience
                for _ in range(20):
                    try:
                        return await client.get_channel(guild.channels[0].id).send(f"{guild.name}-{i}")  # type: ignore[union-attr]
                    except dpy.HTTPException as exc:
                        if exc.status != 429:
                            raise
                raise AssertionError("still rate limited after 20 tries")

            sends = [send(client, guild, i) for client, guild in ((one, guilds[0]), (two, guilds[1])) for i in range(6)]
            assert len(await asyncio.gather(*sends)) == 12
    finally:
        await fake.stop()
    status = fake.status()["global"]
    assert status["responses_429"] == fake.global_429s > 0  # each process alone stayed under 8
    accepted = [c.at for c in fake.calls if c.global_limit and c.status == 200]
    assert busiest_second(accepted) <= 8
    assert status["max_per_window"] > 8  # what arrived (the refused included) went over


async def test_identify_pacing_per_rate_limit_key_across_processes() -> None:
    # A long window first, so unpaced identifies break it however slowly a loaded machine starts them
    fake = FakeDiscord(shards=4, max_concurrency=2, identify_window=60.0)
    for k in range(4):
        fake.add_guild(f"g{k}", shard=k)
    await fake.start()
    try:
        async with clients_together(fake, [0, 1], [2, 3]):
            pass  # no pacing: shards 0 and 2 (key 0) and 1 and 3 (key 1) identify together
        unpaced = list(fake.identify_violations)
        assert len(unpaced) == 2 and all("rate_limit_key" in v for v in unpaced)
        assert sorted(fake.status()["identify"]["shards"]) == [0, 1, 2, 3]
        fake.identify_window = 0.3  # then a short one, which the shared queue below keeps with a margin: it paces
        spacing = 1.0  # the hook's return, and a loaded machine may take a while from there to the IDENTIFY
        await asyncio.sleep(fake.identify_window)  # the next round starts with every key free again
        fake.identify_violations.clear()
        last: dict[int, float] = {}
        lock = asyncio.Lock()

        async def shared_queue(shard_id: int | None) -> None:
            """One queue for both processes (what a cross-process identify queue does): a key waits its turn."""
            key = (shard_id or 0) % 2
            async with lock:
                wait = last.get(key, -spacing) + spacing - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                last[key] = time.monotonic()

        async with clients_together(fake, [0, 1], [2, 3], before_identify=shared_queue) as (one, two):
            limits = await two.fetch_session_start_limits()
            assert limits.max_concurrency == 2
            assert one.is_ready() and two.is_ready()
        assert fake.identify_violations == []
    finally:
        await fake.stop()


def test_the_standalone_fake_serves_its_counters_to_another_process() -> None:
    """``python -m tests.fakediscord`` is one fake for every process; a test reads ``FAKE_STATUS_URL``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fakediscord", *STANDALONE_ARGS],
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        env: dict[str, str] = {}
        assert process.stdout is not None
        while "FAKE_STATUS_URL" not in env:
            line = process.stdout.readline()
            assert line, "the standalone fake exited before printing its environment"
            key, _, value = line.strip().partition("=")
            env[key] = value
        fake_view = FakeDiscord(shards=2)  # only to point plain_client at the other process's URLs
        fake_view.port = int(env["DISCORD_API_BASE"].split(":")[2].split("/")[0])
        fake_view.token = env["DISCORD_TOKEN"]

        async def two_processes() -> None:
            async with clients_together(fake_view, [0], [1]):
                pass  # shards 0 and 1 share key 0 with max_concurrency 1, and nobody paces them

        asyncio.run(two_processes())
        with urllib.request.urlopen(env["FAKE_STATUS_URL"], timeout=5) as response:  # noqa: S310 - 127.0.0.1
            assert response.headers["Content-Type"] == "application/json"
            status = json.loads(response.read())
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert status["identify"]["max_concurrency"] == 1 and sorted(status["identify"]["shards"]) == [0, 1]
    assert len(status["identify"]["violations"]) == 1
    assert status["global"]["limit"] == 50 and status["global"]["requests"] >= 2
    assert status["global"]["responses_429"] == 0 and status["unhandled"] == [] and status["violations"] == []


@pytest.mark.parametrize("path", ["/_fake/status"])
async def test_the_status_route_is_not_an_api_call(fake_discord: FakeDiscord, path: str) -> None:
    def get() -> dict[str, Any]:
        with urllib.request.urlopen(fake_discord.base_url + path, timeout=5) as response:  # noqa: S310
            return json.loads(response.read())

    status = await asyncio.to_thread(get)
    assert status["calls"] == 0 and fake_discord.calls == [] and fake_discord.unhandled == []
