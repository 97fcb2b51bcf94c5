"""Discord's limits on what the bot sends, and the functions that fit a payload within them.

Every payload is fitted here on its way out (:mod:`pancog.adapter.edge` calls :func:`fitted`), so nothing is
refused by Discord for its size: content 2,000; embeds; select options (≤ 25 of ≤ 100 characters); button labels
(80); alt text (1,024); file size; autocomplete choices. ``tests/fakediscord/limits.py`` refuses the same payloads.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterable
from typing import Any, TypeVar

import discord
from discord import app_commands

from pancog.game.i18n import tr

log = logging.getLogger("pan.cog")

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
    if content:  # a fixed sentence (a presenter's constant) in the language this task speaks
        content = tr(content)
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
