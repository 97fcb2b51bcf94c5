"""The renderer's record of the card faces an image shows (renderer/shown.py): exactly the faces it drew.

The bot's edge and the tests' leak oracle read this record instead of the pixels, so it must hold every face
drawn and nothing else: it is written by the one function that draws a face (``assets.paste_card``)."""

from __future__ import annotations

import io
from collections import Counter

from PIL import Image

from renderer import layout_outcome, render_hand_png, render_outcome_png, render_table, render_table_png
from renderer.animation import to_gif
from renderer.samples import sample_hand, sample_outcome, sample_table, worst_table
from renderer.shown import shown_cards


def test_shown_a_hand_image_records_every_card_and_the_drawn_one() -> None:
    snap = sample_hand(10, drawn=True)
    frames = shown_cards(render_hand_png(snap))
    assert frames is not None and len(frames) == 1
    assert Counter(frames[0]) == Counter([*snap.cards, snap.drawn])


def test_shown_a_table_image_records_melds_discard_and_the_card_in_play() -> None:
    for snap in (sample_table(), worst_table()):
        frames = shown_cards(render_table_png(snap))
        expected = Counter(c for seat in snap.seats for meld in seat.melds for c in meld.cards)
        for extra in (snap.discard, snap.in_play):
            if snap.in_hand and extra is not None:
                expected[extra] += 1
        assert frames is not None and Counter(frames[0]) == expected


def test_shown_an_outcome_image_records_the_faces_its_layout_draws() -> None:
    snap = sample_outcome()
    frames = shown_cards(render_outcome_png(snap))
    lay = layout_outcome(snap)
    drawn = Counter(
        c
        for meld, boxes in zip(snap.melds, lay.card_boxes, strict=True)
        for c, _ in zip(meld.cards, boxes, strict=False)
    )
    assert frames is not None and Counter(frames[0]) == drawn


def test_shown_a_gif_records_each_frame() -> None:
    small, big = sample_table(2, 3), sample_table(4, 8)
    frames = shown_cards(to_gif([render_table(small), render_table(big)], [100, 100]))
    assert frames is not None and len(frames) == 2
    assert [Counter(f) for f in frames] == [Counter(shown_cards(render_table_png(s))[0]) for s in (small, big)]  # type: ignore[index]


def test_shown_other_bytes_have_no_record() -> None:
    """Bytes that are not an image made here: None (the edge then treats a file as text)."""
    buf = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buf, "PNG")
    assert shown_cards(buf.getvalue()) is None
    assert shown_cards(b"rules california\n") is None
