"""The Pan cog package. ``setup`` is the discord.py extension entry point: it hands on to the adapter's.

Importing ``pancog`` (or any service in it) imports nothing of Discord: only :mod:`pancog.adapter` does.
"""

from __future__ import annotations

from typing import Any


async def setup(bot: Any) -> None:
    from pancog.adapter.extension import setup as adapter_setup

    await adapter_setup(bot)
