"""Components V2 layouts the adapter builds: ``layouts.notice`` (a public post's words, its image and buttons,
within Discord's limits, which tests/fakediscord/components.py checks on every message a test sends) and the
edge's withheld V2 edit."""

from __future__ import annotations

import io

import discord

from pancog.adapter import edge
from pancog.adapter.layouts import notice
from pancog.adapter.limits import FILE_SIZE_MAX
from pancog.adapter.presenters.common import WITHHELD
from pancog.game.i18n import speaking, tr
from tests.fakediscord import components


def _png(size: int = 64, description: str | None = "the standings") -> discord.File:
    return discord.File(io.BytesIO(b"\x89PNG" + b"\0" * size), filename="standings.png", description=description)


def _seen(layout: discord.ui.LayoutView) -> components.Seen:
    return components.seen(layout.to_components(), lambda _name: b"")  # type: ignore[no-untyped-call]


def test_notice_shows_the_words_then_the_image_with_its_alt_text() -> None:
    layout = notice("<@5> is out of **Spring** in 3rd place.", _png())
    seen = _seen(layout)
    assert seen.texts == ["<@5> is out of **Spring** in 3rd place."]
    assert [(i.name, i.description) for i in seen.images] == [("standings.png", "the standings")]
    assert components.check_v2(layout.to_components(), ["standings.png"]) == []  # type: ignore[no-untyped-call]


def test_notice_keeps_the_alt_text_within_discords_limit() -> None:
    (image,) = _seen(notice("Results", _png(description="x" * 3000))).images
    assert 0 < len(image.description) <= 1024


def test_notice_leaves_out_an_image_too_large_to_send() -> None:
    """The send drops a file over Discord's size (logged): a gallery pointing at it would be refused."""
    layout = notice("Shared hand", _png(size=FILE_SIZE_MAX + 1))
    assert _seen(layout).images == [] and _seen(layout).texts == ["Shared hand"]


def test_a_withheld_v2_edit_says_the_safe_sentence_in_the_users_language() -> None:
    """A V2 message cannot go back to content: the edge's safe sentence becomes its text display, translated like
    the content it replaces (a constant is translated when it is sent)."""
    with speaking("es"):
        content, kwargs = edge._withheld_edit({"view": discord.ui.LayoutView()})
        spanish = tr(WITHHELD)
    assert content is None and spanish != WITHHELD
    assert _seen(kwargs["view"]).texts == [spanish]


def test_notice_says_a_constant_in_the_tasks_language() -> None:
    """A presenter's constant posted as a notice is translated when sent, as content is."""
    with speaking("es"):
        spanish = tr(WITHHELD)
        assert _seen(notice(WITHHELD)).texts == [spanish] != [WITHHELD]
