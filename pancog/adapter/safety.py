"""User-chosen text in Discord messages: shown, never obeyed.

:func:`shown` is the one function every user-chosen string goes through before it is put into Discord text
(display names, table titles, reasons, tournament and season names): it drops control and bidirectional
formatting characters, escapes Markdown and mention syntax with backslashes, and caps the length. Images do the
same job with the renderer's own function (the renderer draws the raw string).

Why not ``discord.utils.escape_markdown`` / ``escape_mentions``: the first leaves ``<@&1>``, ``<#1>``, ``<t:0>``
and line-start ``-#`` alone, and the second only catches 17-20-digit ids and inserts a zero-width space (the
copied text then differs from what was typed). Discord's Markdown treats a backslash before any ASCII
punctuation as "this character, literally", so escaping every syntax character renders the text exactly as
typed and leaves nothing for the parser. No discord import: presenters use it too.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["NAME_MAX", "TEXT_MAX", "code_block", "plain", "shown", "unescaped"]

NAME_MAX = 32
"""Display names and titles, as shown (Discord's own nickname limit is 32)."""

TEXT_MAX = 200
"""Longer user-chosen text (reasons): as shown."""

_SYNTAX = re.compile(r"([\\*_~`|<>#\-\[\]()@:!/])")
"""Markdown (bold, italics, underline, strike, code, spoiler, quote, headings, subtext, lists, masked links) and
mention/emoji/timestamp syntax (``<@…>``, ``<#…>``, ``<:…:…>``, ``<t:…>``, ``@everyone``, ``</cmd:id>``, URLs)."""

_KEEP_FORMAT = {"\u200d"}  # zero-width joiner: part of emoji sequences (👩‍💻)
_BLANK = re.compile(r"\s+")


def _visible(ch: str) -> bool:
    return not ch.isspace() and unicodedata.category(ch) not in {"Cf", "Mn", "Me", "Cc", "Zs", "Co", "Cn"}


# Both are pure and a table's few names come back in every message that shows them (each answer, board line and
# ping names players): the characters are walked once per name, not once per message.
@lru_cache(maxsize=4096)
def plain(text: str, *, limit: int = NAME_MAX) -> str:
    """``text`` without control or bidirectional/zero-width formatting characters, whitespace collapsed to one
    space, cut to ``limit`` characters (an ellipsis marks the cut). '' when nothing visible is left."""
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if category in {"Cc", "Zl", "Zp"}:
            kept.append(" ")
        elif category == "Cf" and ch not in _KEEP_FORMAT and not "\U000e0020" <= ch <= "\U000e007f":  # flag tags
            continue
        else:
            kept.append(ch)
    cleaned = _BLANK.sub(" ", "".join(kept)).strip()
    if not any(_visible(ch) for ch in cleaned):
        return ""
    if len(cleaned) > limit:
        cleaned = cleaned[: limit - 1].rstrip() + "…"
    return cleaned


@lru_cache(maxsize=4096)
def shown(text: str, *, limit: int = NAME_MAX, fallback: str = "?") -> str:
    """``text`` safe to put in a Discord message: :func:`plain`, then every Markdown and mention character
    escaped, so it renders as typed and pings nobody. ``fallback`` when nothing visible is left."""
    cleaned = plain(text, limit=limit)
    return _SYNTAX.sub(r"\\\1", cleaned) if cleaned else fallback


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def unescaped(text: str) -> str:
    """Discord text as it reads (a backslash before ASCII punctuation dropped): board lines drawn in an image."""
    return _ESCAPED.sub(r"\1", text)


_BACKTICKS = re.compile(r"``+")


def code_block(text: str) -> str:
    """``text`` in a Discord code block (shown literally: no Markdown, no mentions). Runs of backticks in it
    (a name can hold some) are split by zero-width spaces, so nothing inside can close the block early."""
    return "```\n" + _BACKTICKS.sub(lambda m: "\u200b".join(m.group()), text) + "\n```"
