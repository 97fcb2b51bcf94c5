"""Components V2 layouts shared by the commands: words in text displays, an image in a media gallery.

A V2 message shows its words as text displays (readable with images and embeds turned off) and has no ``content``;
the words are cut to what Discord allows (4,000 characters of text displays per message)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from pancog.adapter.limits import cut

__all__ = ["V2_TEXT_MAX", "card_layout"]

V2_TEXT_MAX = 4000  # all text displays of one message together, as Discord limits them


def card_layout(
    text: str,
    image: str | None = None,
    *,
    alt: str | None = None,
    buttons: Sequence[discord.ui.Item[Any]] = (),
) -> discord.ui.LayoutView:
    """One container: ``text`` as a text display, then the uploaded ``image`` (its filename) if any, with ``alt``
    as its alt text (None when the text above already says what it shows), then ``buttons`` in one action row."""
    layout: discord.ui.LayoutView = discord.ui.LayoutView(timeout=None)
    box: discord.ui.Container[Any] = discord.ui.Container(accent_colour=discord.Colour.dark_green())
    box.add_item(discord.ui.TextDisplay(cut(text, V2_TEXT_MAX)))
    if image is not None:
        box.add_item(discord.ui.MediaGallery(discord.MediaGalleryItem(f"attachment://{image}", description=alt)))
    if buttons:
        row: discord.ui.ActionRow[Any] = discord.ui.ActionRow()
        for button in buttons:
            row.add_item(button)
        box.add_item(row)
    layout.add_item(box)
    return layout
