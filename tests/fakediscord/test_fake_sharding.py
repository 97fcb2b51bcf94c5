"""The fake's sharded gateway and global rate limit, driven by real discord.py clients.

Two ``AutoShardedClient`` processes' worth of clients (two clients in one event loop here), each owning
two of four shards, as a cluster would run them: each sees only its own shards' guilds, an interaction in
a guild reaches only the client that owns its shard, and the fake's global 50 req/s counter answers 429
``global: true`` past the limit, which discord.py waits out.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import discord as dpy
import pytest

from tests.fakediscord.clients import plain_client
from tests.fakediscord.models import FakeGuild
from tests.fakediscord.server import FakeDiscord, shard_of


@pytest.fixture
async def sharded() -> AsyncIterator[tuple[FakeDiscord, list[FakeGuild]]]:
    fake = FakeDiscord(shards=4)
    user = fake.add_user("alice")
    guilds = [fake.add_guild(f"g{k}", members=[user], shard=k) for k in range(4)]
    await fake.start()
    try:
        yield fake, guilds
    finally:
        await fake.stop()


async def test_each_cluster_process_sees_only_its_shards(sharded: tuple[FakeDiscord, list[FakeGuild]]) -> None:
    fake, guilds = sharded
    assert [shard_of(g.id, 4) for g in guilds] == [0, 1, 2, 3]
    async with plain_client(fake, [0, 1]) as (low, low_seen), plain_client(fake, [2, 3]) as (high, high_seen):
        assert sorted(g.id for g in low.guilds) == sorted(g.id for g in guilds[:2])
        assert sorted(g.id for g in high.guilds) == sorted(g.id for g in guilds[2:])
        assert fake.sessions_by_shard() == {0: 1, 1: 1, 2: 1, 3: 1}
        for guild in guilds:
            user = fake.users[guild.member_ids[1]]
            await fake.create_interaction(
                type=2, user=user, channel=guild.channels[0], data={"id": "1", "name": "x", "type": 1}, label="x"
            )
        for _ in range(200):
            if len(low_seen) + len(high_seen) == 4:
                break
            await asyncio.sleep(0.01)
        assert low_seen == [guilds[0].id, guilds[1].id]
        assert high_seen == [guilds[2].id, guilds[3].id]
    identifies = [line for line in fake.gateway_log if line.startswith("identify")]
    assert sorted(line.split()[-1] for line in identifies) == ["shard=0/4", "shard=1/4", "shard=2/4", "shard=3/4"]


async def test_gateway_bot_reports_the_shard_count(sharded: tuple[FakeDiscord, list[FakeGuild]]) -> None:
    fake, _ = sharded
    async with plain_client(fake, [0, 1, 2, 3]) as (client, _seen):
        shards, _url, limits = await client.http.get_bot_gateway()
    assert shards == 4
    assert limits["max_concurrency"] >= 4


async def test_global_limit_answers_429_global_and_discord_py_waits_it_out() -> None:
    fake = FakeDiscord(global_limit=8)  # low, so 12 concurrent sends exceed it even on a loaded machine
    user = fake.add_user("alice")
    guild = fake.add_guild("g", members=[user])
    await fake.start()
    try:
        async with plain_client(fake, [0]) as (client, _seen):
            channel = client.get_channel(guild.channels[0].id)
            assert isinstance(channel, dpy.TextChannel)
            sent = await asyncio.gather(*(channel.send(f"m{i}") for i in range(12)))
        assert len(sent) == 12
        assert fake.global_429s > 0
        refused = [c for c in fake.calls if c.injected == "global"]
        assert refused and all(c.status == 429 for c in refused)
        accepted = sorted(c.at for c in fake.calls if c.global_limit and c.status == 200)
        # never more than 8 accepted counted calls in any one-second window
        assert max(sum(1 for t in accepted if start <= t < start + 1.0) for start in accepted) <= 8
    finally:
        await fake.stop()


@pytest.mark.parametrize("compress", ["zstd-stream", "zlib-stream", None])
async def test_the_gateway_compresses_as_asked(compress: str | None) -> None:
    """Discord compresses the gateway with the stream the client asks for (discord.py asks for zstd-stream when
    ``zstandard`` is installed, else zlib-stream): each message a binary frame that one decompressor per
    connection turns back into the JSON; without ``compress``, text frames."""
    import zlib

    import aiohttp
    import zstandard

    fake = FakeDiscord()
    await fake.start()
    try:
        query = "?v=10&encoding=json" + (f"&compress={compress}" if compress else "")
        async with aiohttp.ClientSession() as session, session.ws_connect(fake.gateway_url + query) as ws:
            msg = await ws.receive(timeout=5)
            if compress is None:
                assert msg.type is aiohttp.WSMsgType.TEXT
                text = msg.data
            else:
                assert msg.type is aiohttp.WSMsgType.BINARY
                if compress == "zstd-stream":
                    text = zstandard.ZstdDecompressor().decompressobj().decompress(msg.data).decode()
                else:
                    assert msg.data.endswith(b"\x00\x00\xff\xff")
                    text = zlib.decompressobj().decompress(msg.data).decode()
    finally:
        await fake.stop()
    assert '"op": 10' in text and "heartbeat_interval" in text
