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

from pancog.adapter.ack import settle
from pancog.adapter.presenters.admin import NEEDS_MODERATOR
from pancog.adapter.presenters.common import SOMETHING_WRONG
from pancog.adapter.safety import shown
from pancog.game.errors import NotationError, PanError

log = logging.getLogger("pan.cog")


class BadOption(app_commands.AppCommandError):
    """A slash option that could not be read (shown to the user privately)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


T = TypeVar("T")
C = TypeVar("C", str, int, float)

# Discord's limits (/work/shared/DISCORD.md §1.3-1.5; tests/fakediscord/limits.py refuses the same payloads).
CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
OPTIONS_MAX = 25
OPTION_TEXT_MAX = 100
PLACEHOLDER_MAX = 150
BUTTON_LABEL_MAX = 80
CHOICES_MAX = 25
CHOICE_TEXT_MAX = 100
FILE_SIZE_MAX = 10 * 1024 * 1024
FILE_DESCRIPTION_MAX = 1024


def cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters; a cut is marked with ``…``."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fit_embed(embed: discord.Embed, budget: int = EMBED_TOTAL_MAX) -> tuple[discord.Embed, int]:
    """A copy of ``embed`` within the per-field limits and ``budget`` characters in all; (embed, chars used)."""
    data: dict[str, Any] = dict(embed.to_dict())
    used = 0

    def take(text: str, limit: int) -> str:
        nonlocal used
        fitted = cut(text, max(1, min(limit, budget - used)))
        used += len(fitted)
        return fitted

    for key, limit in (("title", EMBED_TITLE_MAX), ("description", EMBED_DESCRIPTION_MAX)):
        if isinstance(data.get(key), str):
            data[key] = take(data[key], limit)
    if isinstance(data.get("author"), dict) and "name" in data["author"]:
        data["author"]["name"] = take(str(data["author"]["name"]), EMBED_AUTHOR_MAX)
    if isinstance(data.get("footer"), dict) and "text" in data["footer"]:
        data["footer"]["text"] = take(str(data["footer"]["text"]), EMBED_FOOTER_MAX)
    fields = []
    for field in list(data.get("fields") or [])[:EMBED_FIELDS_MAX]:
        if budget - used < 2:
            break
        name = take(str(field.get("name") or "-"), EMBED_FIELD_NAME_MAX)
        value = take(str(field.get("value") or "-"), EMBED_FIELD_VALUE_MAX)
        fields.append(dict(field, name=name, value=value))
    if "fields" in data:
        data["fields"] = fields
    return discord.Embed.from_dict(data), used


def fit_view(view: discord.ui.View) -> discord.ui.View:
    """``view`` with every select (≤ 25 options; label, value, description ≤ 100) and button label within limits."""
    for child in view.children:
        item = getattr(child, "item", child)  # a DynamicItem wraps its select or button
        if isinstance(item, discord.ui.Select):
            item.options = [_fit_option(o) for o in item.options[:OPTIONS_MAX]]
            if item.placeholder:
                item.placeholder = cut(item.placeholder, PLACEHOLDER_MAX)
            item.max_values = min(item.max_values, max(1, len(item.options)))
        elif isinstance(item, discord.ui.Button) and item.label:
            item.label = cut(item.label, BUTTON_LABEL_MAX)
    return view


def _fit_option(option: discord.SelectOption) -> discord.SelectOption:
    option.label = cut(option.label, OPTION_TEXT_MAX)
    option.value = option.value[:OPTION_TEXT_MAX]  # values are the bot's own tokens: never long (checked in tests)
    if option.description:
        option.description = cut(option.description, OPTION_TEXT_MAX)
    return option


def fit_choices(choices: Iterable[app_commands.Choice[C]]) -> list[app_commands.Choice[C]]:
    """Autocomplete choices within Discord's limits: ≤ 25, names 1-100 characters, string values ≤ 100."""
    fitted = []
    for choice in list(choices)[:CHOICES_MAX]:
        value = choice.value
        if isinstance(value, str) and len(value) > CHOICE_TEXT_MAX:
            continue  # a cut value would be another value: leave the choice out
        fitted.append(app_commands.Choice(name=cut(choice.name, CHOICE_TEXT_MAX) or "-", value=value))
    return fitted


def fit_file(file: discord.File, size_limit: int = FILE_SIZE_MAX) -> discord.File | None:
    """``file`` with its alt text within 1,024 characters; None (logged) when it is over the size limit."""
    fp = file.fp
    size = len(fp.getbuffer()) if isinstance(fp, io.BytesIO) else 0
    if size > size_limit:
        log.error("attachment %s is %d bytes > %d: not sent", file.filename, size, size_limit)
        return None
    if file.description and len(file.description) > FILE_DESCRIPTION_MAX:
        file.description = cut(file.description, FILE_DESCRIPTION_MAX)
    return file


def fitted(content: str | None, **kwargs: Any) -> tuple[str | None, dict[str, Any]]:
    """``content`` and the send/edit keyword arguments (embed(s), view, file(s)) within Discord's limits."""
    out = dict(kwargs)
    if "embed" in out and out["embed"] is not None:
        out["embed"] = fit_embed(out["embed"])[0]
    if out.get("embeds"):
        embeds, budget = [], EMBED_TOTAL_MAX
        for embed in list(out["embeds"])[:EMBEDS_MAX]:
            if budget <= 0:
                break
            fitted_embed, used = fit_embed(embed, budget)
            embeds.append(fitted_embed)
            budget -= used
        out["embeds"] = embeds
    if isinstance(out.get("view"), discord.ui.View):
        fit_view(out["view"])
    if out.get("file") is not None:
        out["file"] = fit_file(out["file"])
        if out["file"] is None:
            del out["file"]
    if out.get("files"):
        out["files"] = [f for f in (fit_file(f) for f in out["files"]) if f is not None]
    if out.get("attachments"):
        out["attachments"] = [
            a for a in (fit_file(a) if isinstance(a, discord.File) else a for a in out["attachments"]) if a is not None
        ]
    return (cut(content, CONTENT_MAX) if isinstance(content, str) else content), out


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


async def answer(interaction: discord.Interaction[Any], text: str, **kwargs: Any) -> None:
    """Answer privately (the response if not yet answered, else a followup), retrying transient failures.

    Raises what :func:`deliver` raises; a ``file=`` is resent fresh on each attempt.
    """
    content, kwargs = fitted(text, **kwargs)
    text = content or ""
    file = kwargs.pop("file", None)
    fresh = reusable_file(file) if file is not None else None

    async def send() -> None:
        extra = dict(kwargs, file=fresh()) if fresh is not None else kwargs
        await settle(interaction)  # a scheduled defer (ack.later) is cancelled, or awaited if already sent
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, **extra)
        else:
            await interaction.response.send_message(text, ephemeral=True, **extra)

    try:
        await deliver(send, what=f"answer to interaction {interaction.id}", detail=sizes(text, kwargs))
    except discord.HTTPException as exc:
        if exc.status != 400 or text == SOMETHING_WRONG:
            raise
        await answer(interaction, SOMETHING_WRONG)  # logged above; the user still gets a short answer


async def send_ephemeral(interaction: discord.Interaction[Any], text: str, **kwargs: Any) -> None:
    """Answer privately (see :func:`answer`). Never raises on an expired token or after the last retry."""
    try:
        await answer(interaction, text, **kwargs)
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
        return shown(error.message, limit=CONTENT_MAX)
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


async def send_dm(client: discord.Client, user_id: int, text: str) -> None:
    """Send ``text`` to a user by DM; a closed DM or a failure is logged, never raised."""
    try:
        dm = await client.create_dm(discord.Object(id=user_id))
        await dm.send(cut(text, CONTENT_MAX))
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
