"""Adapter-level error mapping: PanError -> its message, privately; anything else -> logged + a safe sentence.

Shared by the slash-command tree handler (``PanCog``) and by every button/select (``PanView`` and the
dynamic items), because View and DynamicItem errors never reach the tree handler.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from pancog.game.errors import PanError
from pancog.presenters import NEEDS_MODERATOR, SOMETHING_WRONG

log = logging.getLogger("pan.cog")


class BadOption(app_commands.AppCommandError):
    """A slash option that could not be read (shown to the user privately)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


async def send_ephemeral(interaction: discord.Interaction[Any], text: str, **kwargs: Any) -> None:
    """Answer privately: the first response if not yet answered, else a followup. Never raises on an expired token."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, **kwargs)
        else:
            await interaction.response.send_message(text, ephemeral=True, **kwargs)
    except discord.NotFound:  # the interaction expired (15 min) or was never acknowledged in time
        log.warning("interaction %s expired before the reply %r", interaction.id, text[:60])
    except discord.HTTPException as exc:
        log.warning("could not answer interaction %s: %s", interaction.id, exc)


def user_message(error: BaseException) -> str | None:
    """The text a user may see for ``error`` (None: not a user-facing error)."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, PanError | BadOption):
        return error.message
    if isinstance(error, app_commands.MissingPermissions):
        return NEEDS_MODERATOR
    if isinstance(error, app_commands.CheckFailure | app_commands.TransformerError):
        return str(error) or "You can't use that here."
    return None


async def report(interaction: discord.Interaction[Any], error: BaseException, *, context: str = "") -> None:
    """Map ``error`` to a private reply; log anything that is not a PanError as a bug."""
    text = user_message(error)
    if text is None:
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        log.error(
            "unexpected error %r (%s) user=%s channel=%s",
            original,
            context or "interaction",
            interaction.user.id,
            interaction.channel_id,
            exc_info=original,
        )
        text = SOMETHING_WRONG
    await send_ephemeral(interaction, text)


async def guarded(
    interaction: discord.Interaction[Any], run: Callable[[], Awaitable[None]], *, context: str = ""
) -> None:
    """Run a component callback, turning every error into one private reply."""
    try:
        await run()
    except Exception as exc:
        await report(interaction, exc, context=context)
