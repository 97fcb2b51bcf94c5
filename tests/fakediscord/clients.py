"""Plain discord.py clients on a fake Discord, for the fake's own tests (a cluster's processes, other intents)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import discord as dpy
import yarl

from .server import FakeDiscord

IdentifyHook = Callable[[int | None], Awaitable[None]]


async def no_wait(shard_id: int | None) -> None:
    """Identify at once (discord.py's default hook sleeps 5 s before every shard but the first)."""


@contextlib.asynccontextmanager
async def clients_together(
    fake: FakeDiscord, *shard_sets: list[int], before_identify: IdentifyHook = no_wait
) -> AsyncIterator[list[dpy.AutoShardedClient]]:
    """Several clients started at the same moment, as independent processes of a cluster start."""
    async with contextlib.AsyncExitStack() as stack:
        entered = await asyncio.gather(
            *(stack.enter_async_context(plain_client(fake, s, before_identify=before_identify)) for s in shard_sets)
        )
        yield [client for client, _ in entered]


@contextlib.asynccontextmanager
async def plain_client(
    fake: FakeDiscord,
    shard_ids: list[int] | None = None,
    *,
    intents: dpy.Intents | None = None,
    before_identify: IdentifyHook = no_wait,
    timeout: float = 10,
) -> AsyncIterator[tuple[dpy.AutoShardedClient, list[int]]]:
    """A connected ``AutoShardedClient`` owning ``shard_ids`` (default: all) that answers every interaction with an
    ephemeral "ok"; yields it and the guild ids of the interactions it received."""
    dpy.http.Route.BASE = fake.api_base
    dpy.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    shard_ids = list(range(fake.shard_count)) if shard_ids is None else shard_ids
    client = dpy.AutoShardedClient(
        intents=intents or dpy.Intents.default(),
        shard_ids=shard_ids,
        shard_count=fake.shard_count,
        guild_ready_timeout=0.05,
    )
    seen: list[int] = []

    async def hook(shard_id: int | None, *, initial: bool = False) -> None:
        await before_identify(shard_id)

    client.before_identify_hook = hook  # type: ignore[method-assign]

    @client.event
    async def on_interaction(interaction: dpy.Interaction) -> None:
        seen.append(interaction.guild_id or 0)
        await interaction.response.send_message("ok", ephemeral=True)

    task = asyncio.create_task(client.start(fake.token))
    try:
        await asyncio.wait_for(client.wait_until_ready(), timeout)
        yield client, seen
    finally:
        await client.close()
        with contextlib.suppress(Exception):
            await task
