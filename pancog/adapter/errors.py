"""Adapter-level error mapping and delivery: PanError -> its message, privately; anything else -> logged + a safe
sentence; transient Discord failures retried.

:func:`report` is the one error path. The cogs call it from ``cog_app_command_error`` (every slash command is a
cog method, see :class:`pancog.adapter.cogs.PanCog`); every button and select runs inside :func:`guarded`
(``PanRuntime.dispatch``), and :class:`PanView` catches the rest, because View and DynamicItem errors never reach
a command error handler.

It is also the safe-send layer: :func:`fitted` cuts every reply to Discord's limits before it leaves (content 2,000;
embeds; select options; button labels; attachments), :func:`fit_choices` does the same for autocomplete, a 400 from
Discord on the bot's own answer is logged at ERROR with the route and the sizes sent (and the user still gets a
short answer), and :func:`pings` is the only way to let a message notify anyone (the client-wide default,
``bot.py``, is ``AllowedMentions.none()``).
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import aiohttp
import discord
from discord import app_commands

from pancog.adapter import edge
from pancog.adapter.ack import settle
from pancog.adapter.limits import CONTENT_MAX, cut, fit_choices, fit_embed, fit_file, fit_view, fitted
from pancog.adapter.presenters.admin import NEEDS_MODERATOR
from pancog.adapter.presenters.common import SOMETHING_WRONG
from pancog.adapter.safety import shown
from pancog.game.errors import NotationError, PanError
from pancog.game.i18n import N_, tr

__all__ = [
    "BadOption",
    "PanView",
    "answer",
    "cut",
    "deliver",
    "fit_choices",
    "fit_embed",
    "fit_file",
    "fit_view",
    "fitted",
    "guarded",
    "is_transient",
    "pings",
    "refused_route",
    "report",
    "reusable_file",
    "send_dm",
    "send_ephemeral",
    "user_message",
]

log = logging.getLogger("pan.cog")
CANNOT_USE_HERE = N_("You can't use that here.")


class BadOption(app_commands.AppCommandError):
    """A slash option that could not be read (shown to the user privately)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


T = TypeVar("T")


def pings(user_ids: Iterable[int]) -> discord.AllowedMentions:
    """The mentions a message may notify: exactly these users (never roles, @everyone or @here). The client-wide
    default is ``AllowedMentions.none()``; a message that must notify (a turn ping, a table call) passes this."""
    return discord.AllowedMentions(
        everyone=False, roles=False, replied_user=False, users=[discord.Object(id=u) for u in dict.fromkeys(user_ids)]
    )


_TOKEN = re.compile(r"/(webhooks|interactions)/(\d+)/[^/?]+")


def refused_route(error: discord.HTTPException) -> str:
    """``METHOD /path`` of the request Discord refused, with interaction tokens blanked out."""
    response = getattr(error, "response", None)
    method = getattr(response, "method", "?")
    url = getattr(response, "url", None)
    path = getattr(url, "path", "?") if url is not None else "?"
    return f"{method} " + _TOKEN.sub(r"/\1/\2/<token>", str(path))


def sizes(content: str | None, kwargs: dict[str, Any]) -> str:
    """The lengths that Discord limits, for the log line of a refused answer."""
    parts = [f"content {len(content or '')} chars"]
    embeds = [e for e in [kwargs.get("embed"), *(kwargs.get("embeds") or [])] if e is not None]
    if embeds:
        parts.append(f"embeds {sum(len(e) for e in embeds)} chars")
    view = kwargs.get("view")
    if isinstance(view, discord.ui.View):
        longest = max(
            (len(o.label) for c in view.children for o in getattr(getattr(c, "item", c), "options", [])), default=0
        )
        parts.append(f"components={len(view.children)} longest_option_label={longest}")
    return ", ".join(parts)


def log_refusal(error: discord.HTTPException, what: str, detail: str = "") -> None:
    """A 400 on the bot's own answer is a bug: say which route and what was sent."""
    log.error(
        "Discord refused %s (HTTP %s, code %s) on %s: %s; %s",
        what,
        error.status,
        error.code,
        refused_route(error),
        detail or "sizes unknown",
        (error.text or "")[:300],
    )


RETRY_DELAYS: tuple[float, ...] = (1.0, 3.0, 6.0)
"""Pauses before the app-level retries of an interaction answer (after discord.py's own retries): ~10 s."""


def is_transient(error: BaseException) -> bool:
    """A failure worth retrying: 5xx, 429 (after discord.py's own waits) or a connection problem. Never a 4xx."""
    if isinstance(error, discord.HTTPException):
        return error.status == 429 or error.status >= 500
    if isinstance(error, discord.RateLimited):  # a rate limit longer than discord.py is willing to wait
        return True
    return isinstance(error, aiohttp.ClientError | ConnectionError | TimeoutError)


async def deliver(send: Callable[[], Awaitable[T]], *, what: str = "interaction answer", detail: str = "") -> T:
    """Run ``send()`` (one interaction response, followup or edit), retrying transient failures.

    discord.py already retries a 5xx/429 a few times inside one request; if it still gives up, the user would be
    left on "thinking…", so this tries again ``len(RETRY_DELAYS)`` more times with backoff. ``send`` must build
    its request afresh each time (a ``discord.File`` is consumed by a send: see :func:`reusable_file`). Only the
    delivery is repeated, never the action behind it. 4xx errors (400, 403, 404 …) are raised at once.
    """
    for delay in (*RETRY_DELAYS, None):
        try:
            return await send()
        except Exception as exc:
            if isinstance(exc, discord.HTTPException) and exc.status == 400:
                log_refusal(exc, what, detail)
            if delay is None or not is_transient(exc):
                raise
            log.warning("%s failed (%s); trying again in %.1fs", what, exc, delay)
            await asyncio.sleep(delay)
    raise AssertionError("unreachable")


def reusable_file(file: discord.File) -> Callable[[], discord.File]:
    """A factory of fresh copies of an in-memory ``file`` (for :func:`deliver`'s retries)."""
    fp = file.fp
    data = fp.getvalue() if isinstance(fp, io.BytesIO) else fp.read()
    name, description = file.filename, file.description
    return lambda: discord.File(io.BytesIO(data), filename=name, description=description)


async def answer(
    interaction: discord.Interaction[Any], text: str, *, about: edge.About | None = None, **kwargs: Any
) -> None:
    """Answer privately (the response if not yet answered, else a followup), through the edge, retrying transient
    failures. ``about``: what it shows (default: the table of the interaction's channel).

    Raises what :func:`deliver` raises; a ``file=`` is resent fresh on each attempt.
    """
    content, kwargs = fitted(text, **kwargs)
    text = content or ""
    file = kwargs.pop("file", None)
    fresh = reusable_file(file) if file is not None else None

    async def send() -> None:
        extra = dict(kwargs, file=fresh()) if fresh is not None else kwargs
        await settle(interaction)  # a scheduled defer (ack.later) is cancelled, or awaited if already sent
        await edge.respond(interaction, text, ephemeral=True, about=about, **extra)

    try:
        await deliver(send, what=f"answer to interaction {interaction.id}", detail=sizes(text, kwargs))
    except discord.HTTPException as exc:
        if exc.status != 400 or text == SOMETHING_WRONG:
            raise
        await answer(interaction, SOMETHING_WRONG)  # logged above; the user still gets a short answer


async def send_ephemeral(
    interaction: discord.Interaction[Any], text: str, *, about: edge.About | None = None, **kwargs: Any
) -> None:
    """Answer privately (see :func:`answer`). Never raises on an expired token or after the last retry."""
    try:
        await answer(interaction, text, about=about, **kwargs)
    except discord.NotFound:  # the interaction expired (15 min) or was never acknowledged in time
        log.warning("interaction %s expired before the reply %r", interaction.id, text[:60])
    except discord.HTTPException as exc:
        log.warning("could not answer interaction %s: %s", interaction.id, exc)
    except (aiohttp.ClientError, ConnectionError, TimeoutError) as exc:
        log.warning("could not reach Discord to answer interaction %s: %s", interaction.id, exc)


def user_message(error: BaseException) -> str | None:
    """The text a user may see for ``error`` (None: not a user-facing error)."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, NotationError):  # it quotes what the player typed: shown, never obeyed
        return shown(error.said(), limit=CONTENT_MAX)
    if isinstance(error, PanError):
        return error.said()  # in the reader's language
    if isinstance(error, BadOption):
        return error.message
    if isinstance(error, app_commands.MissingPermissions):
        return NEEDS_MODERATOR
    if isinstance(error, app_commands.CheckFailure | app_commands.TransformerError):
        return str(error) or tr(CANNOT_USE_HERE)
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


async def send_dm(client: discord.Client, user_id: int, text: str, *, about: edge.About = edge.STATIC) -> None:
    """Send ``text`` to a user by DM (through the edge); a closed DM or a failure is logged, never raised."""
    try:
        await edge.dm(client, user_id, cut(text, CONTENT_MAX), about=about)
    except discord.HTTPException as exc:
        log.info("could not DM user %s: %s", user_id, exc)


class PanView(discord.ui.View):
    """Base of every Pan view: errors become one private reply (View errors never reach a command handler)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    async def on_error(self, interaction: discord.Interaction[Any], error: Exception, item: Any) -> None:
        await report(interaction, error, context=f"view item {getattr(item, 'custom_id', item)}")


async def guarded(
    interaction: discord.Interaction[Any], run: Callable[[], Awaitable[None]], *, context: str = ""
) -> None:
    """Run a component callback, turning every error into one private reply."""
    try:
        await run()
    except Exception as exc:
        await report(interaction, exc, context=context)
