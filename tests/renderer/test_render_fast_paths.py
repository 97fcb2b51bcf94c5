"""The renderer's shortcuts draw exactly what the plain Pillow calls they replace would draw.

`fit_text` bisects with font advances instead of cutting one character at a time through rendered
masks; card sprites are pasted as split bands; panels are cached `rounded_box` images; renders
run concurrently in worker threads over shared caches; `to_png` writes its own PNG (deflated by ISA-L) holding the
very palette indexes, palette and record of faces Pillow's PNG encoder wrote.
"""

from __future__ import annotations

import io
import random
import struct
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
from PIL import Image, ImageDraw, PngImagePlugin

from pancog.game.cards import ALL_CARDS, Suit, parse_card
from pancog.game.i18n import speaking
from renderer import (
    assets,
    image_text,
    labels,
    render_hand,
    render_hand_png,
    render_outcome,
    render_outcome_png,
    render_table,
    render_table_png,
)
from renderer import hand as hand_module
from renderer import table as table_module
from renderer.canvas import IndexCanvas, Overlap, Pill
from renderer.samples import NAMES, sample_hand, sample_outcome, sample_table, worst_hand, worst_table
from renderer.shown import shown_cards
from renderer.snapshot import HandSnapshot, MeldSnapshot, SeatSnapshot, SeatStatus, TableSnapshot

# (kind, size) pairs the images use for cut text: names, header, notes, payments, titles.
FIT_FONTS: list[tuple[assets.FontKind, int]] = [
    ("cond", 20), ("cond", 22), ("bold", 22), ("bold", 28),
    ("regular", 15), ("regular", 16), ("regular", 17), ("cond", 18),
]  # fmt: skip


def _old_fit_text_all(text: str, kind: assets.FontKind, size: int, widths: list[int]) -> list[str]:
    """The previous algorithm (drop one character at a time until ``cut + "…"`` fits) for each width.

    Each prefix is measured once and shared by all the widths; the answers are what the old loop
    gave, one width at a time.
    """
    f = assets.font(kind, size)
    full = round(f.getlength(text))
    with_dots = [round(f.getlength(text[:k] + "…")) for k in range(len(text) + 1)]
    out = []
    for width in widths:
        if full <= width:
            out.append(text)
            continue
        k = len(text)
        while k and with_dots[k] > width:
            k -= 1
        out.append(text[:k].rstrip() + "…" if k else "")
    return out


def _strings() -> list[str]:
    rng = random.Random(20261130)
    alphabet = "AVTWYLPFaeiouvwyjfrt.,;:'\"-–—…  0123456789ÁéñüçØßłŁİıĳ«»ƒfiﬁ漢字🂡♠♥"
    out = list(NAMES) + [f"{n} WWWWWWWWWWWWWWWWWWWW" for n in NAMES]
    out += ["Rosa melded 5S 5S 5S (+4).", "Lupe went on top.", "Big Eddie fouled: refunds 3.", "x" * 300, "", " ", "…"]
    out += ["AVAVAVAVAVAV", "To Ta Te Wa We Yo", "LT LY FA PA", "   trailing spaces then more   text", "a  b  c  d"]
    for _ in range(40):
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 70))))
    return out


@pytest.mark.parametrize(("kind", "size"), FIT_FONTS)
def test_fit_text_matches_the_character_by_character_cut(kind: assets.FontKind, size: int) -> None:
    """Bisection returns the same string as the old linear cut, for every string and many widths."""
    rng = random.Random(size * 31 + len(kind))
    checked = 0
    for text in _strings():
        full = round(assets.font(kind, size).getlength(text))
        widths = {0, 1, 5, full - 1, full, full + 1, *(rng.randint(0, full + 10) for _ in range(12))}
        ordered = sorted(w for w in widths if w >= 0)
        expected = _old_fit_text_all(text, kind, size, ordered)
        for width, old in zip(ordered, expected, strict=True):
            assert assets.fit_text(text, kind, size, width) == old, (text, width)
            checked += 1
    assert checked > 800


def test_fit_text_draws_nothing() -> None:
    """Measuring and cutting render no mask; only the string finally pasted becomes a sprite."""
    note = "Chuy the Card Shark of Gardena melded QD QD QD QD and discarded 7H, a note drawn once " + "z" * 40
    before = assets.text_sprite.cache_info()
    shown = assets.fit_text(note, "regular", 17, 394)
    assert shown.endswith("…") and len(shown) < len(note)
    assert assets.text_width(shown, "regular", 17) <= 394
    assert assets.text_sprite.cache_info().misses == before.misses
    im = Image.new("RGB", (400, 30), assets.FELT)
    assets.paste_text(im, (0, 0), shown, "regular", 17, assets.INK_LIGHT)
    assert assets.text_sprite.cache_info().misses == before.misses + 1


def test_text_width_is_the_sprite_advance() -> None:
    for text in ("Rosa", "1,234,567", "Mrs. Kawamoto to play", "AV…"):
        for kind, size in FIT_FONTS[:4]:
            assert assets.text_width(text, kind, size) == assets.text_sprite(text, kind, size).advance


def _noise(size: tuple[int, int], seed: int) -> Image.Image:
    return Image.frombytes("RGB", size, random.Random(seed).randbytes(size[0] * size[1] * 3))


def _all_sprites() -> list[tuple[str, assets.Sprite]]:
    """Every card at every size, the backs, and the gold-framed and four-colour variants of a few."""
    out = []
    for size in (assets.LARGE, assets.MEDIUM, assets.SMALL):
        out.append((f"back {size.name}", assets.back_sprite(size)))
        out += [(f"{card} {size.name}", assets.card_sprite(card, size)) for card in ALL_CARDS]
        for card in map(parse_card, ("AD", "5C", "7D", "JC", "QD", "KH")):
            out.append((f"{card} {size.name} four", assets.card_sprite(card, size, True)))
            out.append((f"{card} {size.name} marked", assets.card_sprite(card, size, card.suit is Suit.DIAMONDS, True)))
    return out


@pytest.mark.parametrize("card", ["AS", "7H", "QD", "KC", "JH"])
def test_split_sprite_reassembles_to_the_drawn_card(card: str) -> None:
    for size in (assets.LARGE, assets.MEDIUM, assets.SMALL):
        for four in (False, True):
            drawn = assets._draw_card_face(parse_card(card), size, four, size is assets.LARGE)
            sprite = assets.card_sprite(parse_card(card), size, four, size is assets.LARGE)
            assert sprite.image().tobytes() == drawn.tobytes()
    assert assets.back_sprite(assets.SMALL).image().tobytes() == assets._draw_card_back(assets.SMALL).tobytes()


def test_split_sprites_paste_exactly_like_an_alpha_paste() -> None:
    """Band-wise pasting gives the same pixels as pasting the whole RGBA sprite through its alpha,
    including where the sprite hangs off the canvas."""
    canvas = _noise((150, 200), 7)
    positions = [(5, 9), (-20, -30), (100, 150)]
    for name, sprite in _all_sprites():
        whole = sprite.image()
        assert len(sprite.bands) == 3, name  # corners above and below, an opaque middle
        for xy in positions:
            expected, actual = canvas.copy(), canvas.copy()
            expected.paste(whole, xy, whole)
            sprite.paste(actual, xy)
            assert actual.tobytes() == expected.tobytes(), (name, xy)


def test_split_sprite_on_other_canvases_and_without_opaque_rows() -> None:
    """The ordinary Image.paste path (non-RGB canvas) and a sprite with no opaque rows (one band)."""
    face = assets._draw_card_face(parse_card("QH"), assets.SMALL, False, False)
    sprite = assets.card_sprite(parse_card("QH"), assets.SMALL)
    rgba = Image.new("RGBA", (80, 90), (10, 20, 30, 255))
    expected = rgba.copy()
    expected.paste(face, (3, 4), face)
    sprite.paste(rgba, (3, 4))
    assert rgba.tobytes() == expected.tobytes()
    pill = assets.pill("x2", assets.GOLD, assets.GOLD_DARK, 15)
    whole = assets.Sprite.split(pill)
    assert len(whole.bands) == 1 and whole.bands[0].mode == "RGBA"
    canvas = _noise((60, 40), 3)
    expected = canvas.copy()
    expected.paste(pill, (2, 2), pill)
    whole.paste(canvas, (2, 2))
    assert canvas.tobytes() == expected.tobytes()


def test_paste_rgba_is_image_paste() -> None:
    pill = assets.pill("on top", *assets.STATUS_COLOURS["on top"], 15)
    box = assets.rounded_box((30, 20), 3, assets.HAND_ICON, assets.PANEL, assets.CARD_WHITE)
    for canvas in (_noise((120, 60), 1), Image.new("RGBA", (120, 60), (1, 2, 3, 200))):
        for src, mask in ((pill, pill), (box, None)):
            for xy in ((4, 5), (-10, 50)):
                expected, actual = canvas.copy(), canvas.copy()
                expected.paste(src, xy, mask)
                assets.paste_rgba(actual, src, xy)
                assert actual.tobytes() == expected.tobytes()


def test_card_face_is_a_fresh_copy() -> None:
    """Callers get their own image: changing it cannot change a later render."""
    face = assets.card_face(parse_card("5D"), assets.LARGE)
    before = render_hand_png(sample_hand())
    face.paste((255, 0, 0, 255), (0, 0, face.width, face.height))
    assert assets.card_face(parse_card("5D"), assets.LARGE).getpixel((60, 84)) != (255, 0, 0, 255)
    assert render_hand_png(sample_hand()) == before


@pytest.mark.parametrize(
    ("size", "radius", "fill", "bg", "outline", "line"),
    [
        ((387, 120), 10, assets.PANEL, assets.FELT, None, 1),
        ((773, 63), 10, assets.PANEL_TURN, assets.FELT, assets.GOLD, 3),
        ((381, 211), 10, assets.FELT_DARK, assets.FELT, None, 1),
        ((14, 19), 3, assets.HAND_ICON, assets.PANEL, assets.CARD_WHITE, 1),
        ((141, 239), 14, assets.FELT_DARK, assets.FELT, None, 1),
    ],
)
def test_rounded_box_is_the_drawn_rounded_rectangle(
    size: tuple[int, int], radius: int, fill: assets.RGB, bg: assets.RGB, outline: assets.RGB | None, line: int
) -> None:
    """The cached panel equals draw.rounded_rectangle at any position (drawing is translation-invariant)."""
    sprite = assets.rounded_box(size, radius, fill, bg, outline, line)
    for x, y in ((0, 0), (14, 301), (407, 77)):
        expected = Image.new("RGB", (x + size[0] + 5, y + size[1] + 5), bg)
        box = (x, y, x + size[0] - 1, y + size[1] - 1)
        ImageDraw.Draw(expected).rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=line)
        actual = Image.new("RGB", expected.size, bg)
        assets.paste_rgba(actual, sprite, (x, y))
        assert actual.tobytes() == expected.tobytes(), (x, y)


def test_concurrent_renders_match_serial_ones() -> None:
    """Renders in worker threads share the caches (sprites, text, panels) and still draw the same bytes."""
    jobs = []
    for i in range(24):
        notes = (f"{NAMES[i % 15]} melded 5S 5S 5S 5S (+4) at move {i} of a long game.", f"note {i}")
        jobs.append((render_table_png, replace(sample_table(2 + i % 14, 3 * i), notes=notes, clock_seconds=i)))
        jobs.append((render_hand_png, sample_hand(i % 12, four_color=i % 2 == 0)))
    jobs += [(render_table_png, worst_table()), (render_hand_png, worst_hand())]
    jobs.append((render_outcome_png, sample_outcome(9)))
    with ThreadPoolExecutor(max_workers=6) as pool:
        threaded = list(pool.map(lambda job: job[0](job[1]), jobs * 2))
    serial = [fn(snap) for fn, snap in jobs]
    assert threaded == serial * 2
    for png in serial[:3]:
        Image.open(io.BytesIO(png)).verify()


def test_one_off_notes_do_not_fill_the_sprite_cache() -> None:
    """A board's latest-event lines are never cached whole: a long-running bot renders thousands of distinct lines
    and each line sprite holds kilobytes of pixels (memory per table, issue 7). They are drawn from cached words
    (`assets.word_sprite`, small and bounded); recurring text (names, chips, captions) is cached as before."""
    notes = tuple(f"Player {i} melded 7H 7H 7H and discarded {i}C (unique line {random.random()})" for i in range(3))
    snap = replace(sample_table(6, 6), notes=notes)
    render_table_png(snap)
    before, words_before = assets.text_sprite.cache_info(), assets.word_sprite.cache_info()
    png = render_table_png(replace(snap, notes=tuple(n + " again" for n in notes)))
    after, words_after = assets.text_sprite.cache_info(), assets.word_sprite.cache_info()
    assert after.currsize == before.currsize and after.misses == before.misses  # no line became a text sprite
    assert after.hits > before.hits  # names, chips and captions still come from the cache
    assert words_after.hits - words_before.hits >= 10  # "Player", "melded", "7H", ... drawn already
    assert words_after.misses - words_before.misses <= 6  # only "again" and the unique number, at their offsets
    assert Image.open(io.BytesIO(png)).size[0] > 0
    assert assets.text_sprite.cache_info().maxsize == 4096
    assert assets.word_sprite.cache_info().maxsize == 4096  # words: ~1-2 KiB each
    assert assets.recent_text_sprite.cache_info().maxsize == 64  # lines that cannot be split: small, bounded


def _line_both_ways(text: str, kind: assets.FontKind, size: int) -> tuple[Image.Image, Image.Image, bool]:
    """``text`` drawn whole (`paste_text`) and by words (`paste_line`) on two equal canvases; whether split."""
    width = assets.text_width(text, kind, size) + 40
    whole = Image.new("RGB", (width, size * 2 + 20), assets.FELT)
    words = whole.copy()
    assets.paste_text(whole, (10, 10), text, kind, size, assets.INK_LIGHT, cache=False)
    assets.paste_line(words, (10, 10), text, kind, size, assets.INK_LIGHT)
    return whole, words, assets._line_words(text, kind, size) is not None


def _real_notes() -> list[str]:
    """Every note kind from real engine hands (tests/renderer/test_image_text.py's seeded games)."""
    from pancog.adapter.presenters.common import plain_text
    from pancog.adapter.presenters.table_events import describe_events
    from tests.renderer.test_image_text import NAMES as HOSTILE_NAMES
    from tests.renderer.test_image_text import played_hands

    notes: list[str] = []
    for before, after, _events, hand, _result in played_hands(3):
        notes += describe_events(before, after, HOSTILE_NAMES, hand)
    return [image_text(plain_text(n), "regular", 27, 772) for n in notes]


@pytest.mark.parametrize(("kind", "size"), [("regular", 27), ("regular", 17), ("cond", 27), ("bold", 22)])
def test_a_line_drawn_by_words_is_the_line_drawn_whole(kind: assets.FontKind, size: int) -> None:
    """`paste_line` places each cached word at the line's exact sub-pixel pen position: the same pixels as
    drawing the line at once, for real notes, kerning pairs across spaces, accents, CJK and symbols; lines
    it cannot split (right to left, doubled spaces) fall back to the whole line, still the same pixels."""
    rng = random.Random(17)
    lines = _real_notes() + [s for s in _strings() if s and len(s) < 120]
    lines += ["T. A. V. W. Y. To Ta AV", "Ä Å Ø ß ĳ ﬁ “quoted” ‘x’ — – …", "漢字 漢字 ♠ ♥ 🂡 x", "a  b", " lead", "end "]
    lines += ["Rosa שלום עולם melded", "Rosa مرحبا melded"]
    alphabet = "AVTWYLPFaeiouvwyjfrt.,;:'-–—…0123456789ÁéñüçØßł"
    for _ in range(60):
        lines.append(" ".join("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9))) for _ in range(8)))
    split = 0
    for text in lines:
        whole, words, was_split = _line_both_ways(text, kind, size)
        assert whole.tobytes() == words.tobytes(), text
        split += was_split
        if was_split:
            assert assets.line_width(text, kind, size) == assets.text_width(text, kind, size), text
    assert split >= len(lines) - 10  # only the lines built to fall back did
    assert assets._line_words("Rosa שלום עולם melded", kind, size) is None
    assert assets._line_words("a  b", kind, size) is None


def test_a_note_shown_again_on_the_next_board_is_not_drawn_again() -> None:
    """Each board edit shows the note the previous edit added: its words are all in `word_sprite`'s cache."""
    first = f"Rosa discarded 7H ({random.random()})."
    render_table_png(replace(sample_table(3, 3), notes=("x", first)))
    before = assets.word_sprite.cache_info()
    render_table_png(replace(sample_table(3, 3), notes=(first, f"Lupe plucked 5H ({random.random()}).")))
    after = assets.word_sprite.cache_info()
    assert after.hits - before.hits >= 4  # the first note's four words, at the same places as before
    assert after.misses - before.misses <= 4  # at most the second note's words


def _pillow_png(im: Image.Image) -> bytes:
    """What `to_png` wrote before it wrote PNGs itself: Pillow's encoder, zlib level 2, the faces as a text chunk."""
    buf = io.BytesIO()
    info = PngImagePlugin.PngInfo()
    info.add_text(assets.CARDS_KEY, " ".join(map(str, assets.drawn_cards(im))))
    im.quantize(palette=assets.palette(), dither=Image.Dither.NONE).save(buf, "PNG", compress_level=2, pnginfo=info)
    return buf.getvalue()


def _chunks(png: bytes) -> list[bytes]:
    """The chunk types in order, each chunk's CRC checked."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    kinds, pos = [], 8
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, body = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body), f"bad CRC on {kind!r}"
        kinds.append(kind)
        pos += 12 + length
    assert pos == len(png)
    return kinds


def _blank() -> Image.Image:
    im = Image.new("RGB", (3, 2), (10, 90, 50))
    im.putpixel((2, 1), (255, 255, 255))
    return im


@pytest.mark.parametrize(
    "make",
    [
        lambda: render_hand(sample_hand(10)),
        lambda: render_hand(worst_hand()),
        lambda: render_table(sample_table(2, 6)),
        lambda: render_table(replace(sample_table(4, 12), layout="portrait")),
        lambda: render_table(worst_table()),
        lambda: render_outcome(sample_outcome(14)),
        _blank,  # no card drawn: an empty record; a tiny, odd-sized image
    ],
    ids=["hand", "hand-worst", "table-2", "table-4-portrait", "table-worst", "outcome", "blank"],
)
def test_to_png_holds_what_pillows_encoder_held(make: Callable[[], Image.Image]) -> None:
    """Same size, palette, palette index of every pixel and record of faces as Pillow's own PNG of the image; chunks
    in Pillow's order (the record before the image data, where `renderer.shown` stops reading), every CRC right,
    and a file Pillow verifies and decodes."""
    im = make()
    ours, theirs = assets.to_png(im), _pillow_png(im)
    assert _chunks(ours) == [b"IHDR", b"PLTE", b"tEXt", b"IDAT", b"IEND"]
    with Image.open(io.BytesIO(ours)) as check:
        check.verify()
    with Image.open(io.BytesIO(ours)) as a, Image.open(io.BytesIO(theirs)) as b:
        assert (a.mode, a.size) == (b.mode, b.size) == ("P", im.size)
        assert a.getpalette() == b.getpalette()
        assert a.tobytes() == b.tobytes()
        assert a.info[assets.CARDS_KEY] == b.info[assets.CARDS_KEY]
    assert shown_cards(ours) == shown_cards(theirs) == [assets.drawn_cards(im)]
    assert len(ours) <= 1.1 * len(theirs)  # the same compression, give or take


def test_to_png_rows_are_the_image_rows() -> None:
    """A pixel moved by one column or one row moves in the decoded file: each row's leading filter byte is not
    mistaken for a pixel, nor a row for its neighbour."""
    for x, y in ((0, 0), (1, 0), (0, 1), (4, 2)):
        im = Image.new("RGB", (5, 3), (10, 90, 50))
        im.putpixel((x, y), (255, 255, 255))
        with Image.open(io.BytesIO(assets.to_png(im))) as decoded:
            rgb = decoded.convert("RGB")
            assert [(i, j) for j in range(3) for i in range(5) if rgb.getpixel((i, j)) == (255, 255, 255)] == [(x, y)]


def _random_hand(rng: random.Random) -> HandSnapshot:
    n = rng.choice([1, 2, 5, 9, 10, 11, 12, 15])
    cards = tuple(rng.choice(ALL_CARDS) for _ in range(n))
    drawn = rng.choice([None, rng.choice(ALL_CARDS)])
    meldable = frozenset(i for i in range(n) if drawn is not None and rng.random() < 0.3)
    return HandSnapshot(
        cards=cards,
        drawn=drawn,
        drawn_label=rng.choice(["pluck", "option"]),
        sort=rng.choice(["suit", "rank"]),
        meldable=meldable,
        four_color=rng.random() < 0.5,
        layout=rng.choice(["landscape", "portrait"]),
        lang=rng.choice(["en", "es", "tl"]),
    )


def _hand_drawn_whole(snapshot: HandSnapshot) -> bytes:
    with speaking(snapshot.lang):
        return assets.to_png(render_hand(snapshot))


def test_a_hand_composed_from_mapped_pieces_is_the_hand_drawn_whole() -> None:
    """`render_hand_png` pastes cached pieces of palette indexes (each card's strip with the card under it, the
    numbers, the drawn card's panel) instead of drawing and mapping the hand: the file is byte for byte the one of
    the hand drawn whole, for hands of every length, lifted cards, both layouts and deck colourings, every language
    (the drawn card's tag), a hand again after its cards moved (the caches hold pieces, not hands)."""
    rng = random.Random(7)
    hands = [_random_hand(rng) for _ in range(160)]
    hands += [sample_hand(10), worst_hand(), replace(worst_hand(), layout="portrait"), HandSnapshot(cards=())]
    for snapshot in hands + hands[:20]:
        assert render_hand_png(snapshot) == _hand_drawn_whole(snapshot), snapshot


def test_every_hand_with_cards_is_composed() -> None:
    """The pieces tile every hand the bot shows (no silent fall back to drawing it whole); only an empty hand,
    whose words are not a piece, is drawn whole."""
    rng = random.Random(8)
    for snapshot in [_random_hand(rng) for _ in range(80)] + [worst_hand(), replace(worst_hand(), layout="portrait")]:
        assert hand_module._composed(snapshot, hand_module.layout_hand(snapshot)) is not None, snapshot
    empty = HandSnapshot(cards=())
    assert hand_module._composed(empty, hand_module.layout_hand(empty)) is None


def test_pieces_that_would_overlap_are_refused() -> None:
    """The check that keeps the shortcut exact: two pieces sharing a pixel, or a piece past the image's edge, and the
    hand is drawn whole instead."""
    one = Image.new("P", (10, 10))
    assert hand_module._tiles([((0, 0, 10, 10), one), ((10, 0, 20, 10), one)], 20, 10)
    assert not hand_module._tiles([((0, 0, 10, 10), one), ((9, 9, 19, 19), one)], 20, 20)
    assert not hand_module._tiles([((0, 0, 10, 10), one), ((0, 5, 10, 15), one)], 20, 20)
    assert not hand_module._tiles([((15, 0, 25, 10), one)], 20, 10)


# ----------------------------------------------------------------------------- boards drawn as palette indexes


_BOARD_NAMES = (*NAMES, "Ñoño Pérez", "José María de la Cruz y Santos", "李小龍", "Zoë", "O'Brien", "A", "W" * 14)


def _random_board(rng: random.Random) -> TableSnapshot:
    """A board as a table shows it at any moment: 1-15 seats, each with 0-5 melds of 3-12 cards (tags on some), any
    status, the turn anywhere, piles or none, a clock or none, notes of any length, both layouts and colourings,
    three languages."""
    deck = list(ALL_CARDS)
    n = rng.randint(1, 15)
    to_act = rng.choice([None, *range(n)])
    seats = []
    for i in range(n):
        melds = tuple(
            MeldSnapshot(
                index=m + 1,
                cards=tuple(rng.choice(deck) for _ in range(rng.randint(3, 12))),
                value=rng.choice([0, 0, 1, 2, 4, 12]),
                label=rng.choice(["", "", "+1 paid"]),
            )
            for m in range(rng.choice([0, 0, 1, 2, 3, 5]))
        )
        seats.append(
            SeatSnapshot(
                name=rng.choice(_BOARD_NAMES),
                chips=rng.choice([0, 7, 20, 131, 1250, 1_234_567]),
                computer=rng.random() < 0.2,
                status=SeatStatus.IN if i == to_act else rng.choice(list(SeatStatus)),
                doubles=rng.random() < 0.2,
                is_turn=i == to_act,
                melds=melds,
                hand_count=rng.randint(0, 11),
            )
        )
    in_hand = rng.random() < 0.85
    discard = rng.choice([None, rng.choice(deck)]) if in_hand else None
    notes = ("Rosa melded 5S 5S 5S (+4).", "Lupe went on top.", "Big Eddie fouled: refunds 3.", "x" * 300, "שלום עולם")
    return TableSnapshot(
        title=rng.choice(["Gardena Pan", "Friday night · Table 12 of the Spring League"]),
        hand_no=rng.randint(0, 300),
        seats=tuple(seats),
        to_act=to_act,
        clock_seconds=rng.choice([None, 5, 17, 95]),
        in_hand=in_hand,
        in_play=rng.choice([None, rng.choice(deck)]) if in_hand else None,
        in_play_by=rng.choice(_BOARD_NAMES),
        in_play_how=rng.choice(["plucked", "taken", "forced"]),
        discard=discard,
        discard_count=rng.choice([0, 1, 2, 30]) if discard is not None else 0,
        discard_is_option=rng.random() < 0.3,
        stock_count=rng.randint(0, 300),
        singles_tops=rng.randint(0, 8),
        doubles_tops=rng.randint(0, 3),
        notes=tuple(rng.sample(notes, rng.randint(0, 3))),
        four_color=rng.random() < 0.5,
        layout=rng.choice(["landscape", "portrait"]),
        lang=rng.choice(["en", "es", "tl"]),
    )


def _boards() -> list[TableSnapshot]:
    rng = random.Random(11)
    boards = [_random_board(rng) for _ in range(150)]
    for n in (1, 2, 4, 5, 8, 15):
        for lang in ("en", "es", "tl"):
            board = replace(sample_table(n, 2 * n), lang=lang)
            boards += [board, replace(board, layout="portrait"), replace(board, four_color=True)]
    return [*boards, worst_table(), replace(worst_table(), layout="portrait")]


def _board_drawn_whole(snapshot: TableSnapshot) -> bytes:
    with speaking(snapshot.lang):
        return assets.to_png(render_table(snapshot))


def _drawn_as_indexes(snapshot: TableSnapshot) -> bytes:
    """The board through `IndexCanvas` only (an `Overlap` fails the test: no silent fall back to RGB)."""
    with speaking(snapshot.lang):
        lay = table_module.layout_table(snapshot)
        canvas = IndexCanvas((lay.width, lay.height), assets.FELT)
        table_module._draw(canvas, snapshot, lay)
        return assets.png_of_indexes(canvas.im, canvas.cards)


def test_a_board_drawn_as_palette_indexes_is_the_board_drawn_whole() -> None:
    """`render_table_png` draws the board straight onto palette indexes (`renderer.canvas.IndexCanvas`): fills by
    their colours' indexes, each sprite mapped once on the ground it lies on, overlapping sprites as groups. The file
    is byte for byte the one of the board drawn on RGB and mapped whole, for boards of every shape — and none of
    them falls back to RGB. Each board twice: the second time from the kept pieces."""
    boards = _boards()
    for snapshot in boards + boards[:40]:
        whole = _board_drawn_whole(snapshot)
        assert _drawn_as_indexes(snapshot) == whole, snapshot
        assert render_table_png(snapshot) == whole


def test_a_sprite_on_something_else_than_its_ground_falls_back_to_rgb(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check that keeps the index canvas exact: with the piles' captions pushed into one another (no gap between
    slots: Spanish "Descartes" then runs into "En juego"), laying the second caption over the first one's ink raises
    `Overlap`, and `render_table_png` draws that board on RGB instead — still the very file of the board drawn
    whole."""
    monkeypatch.setattr(table_module, "CAPTION_GAP", -30)
    board = replace(sample_table(4, 6), lang="es")
    with pytest.raises(Overlap):
        _drawn_as_indexes(board)
    assert render_table_png(board) == _board_drawn_whole(board)


def test_the_index_canvas_refuses_a_sprite_off_its_ground() -> None:
    """Each way a sprite could land on other than its plain ground: another sprite's ink, a fill of another
    colour, even a faint edge that mapped to the ground's own index."""
    size, felt = (200, 60), assets.FELT
    canvas = IndexCanvas(size, felt)
    canvas.text((10, 10), "Rosa", "bold", 28, assets.INK_LIGHT, felt)
    with pytest.raises(Overlap):
        canvas.text((14, 10), "Rosa", "bold", 28, assets.GOLD, felt)  # on the first one's ink
    canvas = IndexCanvas(size, felt)
    canvas.rectangle((0, 0, 199, 29), assets.PANEL)
    with pytest.raises(Overlap):
        canvas.text((10, 10), "Rosa", "bold", 28, assets.INK_LIGHT, felt)  # half on the panel, not on felt
    canvas.text((10, 35), "Rosa", "bold", 20, assets.INK_LIGHT, felt)  # wholly on felt: laid
    sprite = assets.text_sprite("Rosa", "bold", 20)
    faint = [(x, y) for y in range(sprite.mask.height) for x in range(sprite.mask.width)
             if 0 < sprite.mask.getpixel((x, y)) <= 5]  # fmt: skip
    x, y = 10 + sprite.dx + faint[0][0], 35 + sprite.dy + faint[0][1]
    assert canvas.im.getpixel((x, y)) == canvas.im.getpixel((0, 59))  # mapped to the felt's own index...
    assert canvas.shadow.getpixel((x, y)) != canvas.shadow.getpixel((0, 59))  # ...but the shadow knows
    with pytest.raises(Overlap):  # a pill with its top-left corner on that one pixel
        canvas.pill((x, y), Pill("1", assets.GOLD, assets.GOLD_DARK, 20), felt)


def test_captions_of_the_piles_never_run_into_each_other() -> None:
    """In every language, a pile's caption ends at least `CAPTION_GAP` before the next pile's: Spanish "Descartes"
    and Tagalog "Bunutan" are wider than the English slots, which once made the captions touch."""
    for lang in ("en", "es", "tl"):
        for layout in ("landscape", "portrait"):
            board = replace(sample_table(4, 6), lang=lang, layout=layout, discard_is_option=False)
            with speaking(lang):
                lay = table_module.layout_table(board)
                assert lay.stock_box is not None and lay.discard_box is not None and lay.in_play_box is not None
                stock_w = assets.text_width(labels.stock(), "cond", table_module.TEXT_SIZE)
                pile_w = max(assets.text_width(labels.discards(), "cond", table_module.TEXT_SIZE),
                             assets.text_width(labels.option(), "cond", table_module.TEXT_SIZE))  # fmt: skip
            assert lay.stock_box[0] + stock_w + table_module.CAPTION_GAP <= lay.discard_box[0], (lang, layout)
            assert lay.discard_box[0] + pile_w + table_module.CAPTION_GAP <= lay.in_play_box[0], (lang, layout)


def test_the_kept_groups_stay_within_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Meld groups are kept least recently used out, at most `GROUPS_KEPT`; a board whose groups were dropped is drawn
    again from new ones, the same file; renders in several threads share the groups (`PAN_RENDER_MODE=thread`)."""
    from renderer import canvas as canvas_module

    monkeypatch.setattr(canvas_module, "GROUPS_KEPT", 5)
    monkeypatch.setattr(canvas_module, "_GROUPS", {})
    boards = [replace(sample_table(n, 3 * n), lang="en") for n in (2, 4, 6, 8)]
    for snapshot in boards + boards:
        assert render_table_png(snapshot) == _board_drawn_whole(snapshot)
        assert len(canvas_module._GROUPS) <= 5
    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(pool.map(render_table_png, boards * 3))
    assert threaded == [_board_drawn_whole(b) for b in boards] * 3
    assert len(canvas_module._GROUPS) <= 5


def test_the_hand_warm_up_loads_the_pieces_of_both_colourings() -> None:
    """`renderer.hand.warm_up` (run on a thread when the bot draws hands on its event loop): after it, a hand's
    strips, numbers and drawn-card panels are cached in both colourings."""
    cached = (hand_module._strip, hand_module._number, hand_module._drawn_piece)
    for fn in cached:
        fn.cache_clear()
    hand_module.warm_up()
    assert all(fn.cache_info().currsize > 0 for fn in cached), [fn.cache_info() for fn in cached]
    misses = [fn.cache_info().misses for fn in cached]
    cards = tuple(ALL_CARDS[i] for i in range(0, 40, 4))
    for four_color in (True, False):  # the hands the warm-up drew, drawn again: every piece a hit
        render_hand_png(HandSnapshot(cards=cards, drawn=ALL_CARDS[1], four_color=four_color))
    assert [fn.cache_info().misses for fn in cached] == misses
    render_hand_png(HandSnapshot(cards=cards, drawn=ALL_CARDS[2], four_color=True))  # another drawn card: a new piece
    assert hand_module._drawn_piece.cache_info().misses > misses[2]
