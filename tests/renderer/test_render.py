"""Renderer: golden images, card faces, layouts that fit, text twins that carry every fact.

Refresh the golden PNGs after an intended visual change with ``PAN_UPDATE_GOLDEN=1``; look at
them before committing. A mismatch saves ``<name>.actual.png`` and ``<name>.expected.png`` under
``tests/renderer/_failures/``.
"""

from __future__ import annotations

import doctest
import io
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

import renderer.hand
from pancog.game.cards import ALL_CARDS, Card, Suit, parse_card, parse_cards
from renderer import (
    HandSnapshot,
    MeldSnapshot,
    OutcomeSnapshot,
    PaymentSnapshot,
    SeatSnapshot,
    TableSnapshot,
    assets,
    display_order,
    hand_text,
    layout_hand,
    layout_outcome,
    layout_table,
    outcome_text,
    render_hand,
    render_hand_png,
    render_outcome,
    render_outcome_png,
    render_table,
    render_table_png,
    table_text,
)
from renderer.chart import render_chart
from renderer.layout import Box, first_overlap, inside, overlaps
from renderer.panel import render_panel
from renderer.samples import (
    sample_chart,
    sample_final_standings,
    sample_hand,
    sample_outcome,
    sample_panel,
    sample_standings,
    sample_table,
    worst_hand,
    worst_table,
)
from renderer.standings import render_standings

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
FAILURES = HERE / "_failures"
MAX_MEAN_DIFF = 1.0  # mean absolute difference per channel, 0..255
MAX_BYTES = 300 * 1024


# --------------------------------------------------------------------------- golden images


def between_hands() -> TableSnapshot:
    """Five seats after a hand: no turn, no card in play, no clock."""
    snap = sample_table(5, 9)
    seats = tuple(replace(s, is_turn=False) for s in snap.seats)
    return replace(snap, seats=seats, in_hand=False, to_act=None, in_play=None, clock_seconds=None)


GOLDEN_CASES = {
    "hand_10_pluck": lambda: render_hand(sample_hand()),
    "hand_11_option_rank_four": lambda: render_hand(
        replace(sample_hand(11, four_color=True), sort="rank", drawn_label="option")
    ),
    "hand_empty": lambda: render_hand(HandSnapshot(cards=())),
    "table_3": lambda: render_table(
        replace(sample_table(3, 7), in_play=None, discard=None, discard_count=0, clock_seconds=None, notes=())
    ),
    "table_3_option": lambda: render_table(replace(sample_table(3, 7), in_play=None, discard_is_option=True)),
    "table_5_between_hands": lambda: render_table(between_hands()),
    "table_8_30": lambda: render_table(sample_table(8, 30)),
    "table_15_four": lambda: render_table(sample_table(15, 40, four_color=True)),
    "table_8_30_portrait": lambda: render_table(replace(sample_table(8, 30), layout="portrait")),
    "table_5_between_hands_portrait": lambda: render_table(replace(between_hands(), layout="portrait")),
    "hand_11_portrait": lambda: render_hand(replace(sample_hand(11), layout="portrait")),
    "panel_3_11": lambda: render_panel(sample_panel()),
    "outcome_5": lambda: render_outcome(sample_outcome(5)),
    "outcome_14": lambda: render_outcome(sample_outcome(14)),
    "standings_running": lambda: render_standings(sample_standings()),
    "standings_finished": lambda: render_standings(sample_final_standings()),
    "chart_rating": lambda: render_chart(sample_chart()),
}


def update_golden_png(path: Path, png: bytes, actual: Image.Image) -> None:
    """Update mode never approves itself: an image that differs from its golden beyond the tolerance
    (or has none) is written, the old one is kept under ``_failures/`` to compare, and the test fails
    until it is reviewed and the suite re-run without PAN_UPDATE_GOLDEN. A matching image passes and
    the golden is left alone."""
    if path.exists():
        old = Image.open(path).convert("RGB")
        if old.size == actual.size and _mean_diff(actual, old) <= MAX_MEAN_DIFF:
            return
        FAILURES.mkdir(exist_ok=True)
        old.save(FAILURES / f"{path.stem}.previous.png")
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(png)
    pytest.fail(
        f"PAN_UPDATE_GOLDEN: wrote {path.name} (previous image in {FAILURES.name}/); look at it, then run again "
        "without PAN_UPDATE_GOLDEN.",
        pytrace=False,
    )


def _mean_diff(a: Image.Image, b: Image.Image) -> float:
    stat = ImageStat.Stat(ImageChops.difference(a.convert("RGB"), b.convert("RGB")))
    return sum(stat.mean) / len(stat.mean)


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_render_matches_golden(name: str) -> None:
    """Each sample renders (through the PNG encoder) like its checked-in golden image."""
    png = assets.to_png(GOLDEN_CASES[name]())
    actual = Image.open(io.BytesIO(png)).convert("RGB")
    path = GOLDEN / f"{name}.png"
    if os.environ.get("PAN_UPDATE_GOLDEN") == "1":
        update_golden_png(path, png, actual)
    assert path.exists(), f"missing golden {path.name}; run with PAN_UPDATE_GOLDEN=1 and look at it"
    expected = Image.open(path).convert("RGB")
    diff = _mean_diff(actual, expected) if actual.size == expected.size else float("inf")
    if diff > MAX_MEAN_DIFF:
        FAILURES.mkdir(exist_ok=True)
        actual.save(FAILURES / f"{name}.actual.png")
        expected.save(FAILURES / f"{name}.expected.png")
    assert actual.size == expected.size, f"{name}: size {actual.size} != golden {expected.size}"
    assert diff <= MAX_MEAN_DIFF, f"{name}: mean pixel difference {diff:.2f} > {MAX_MEAN_DIFF}"


def test_golden_comparison_detects_a_changed_card() -> None:
    """The tolerance is tight enough that one different card fails the comparison."""
    base = render_hand(sample_hand())
    cards = list(sample_hand().cards)
    cards[0] = parse_card("QD")
    changed = render_hand(replace(sample_hand(), cards=tuple(cards)))
    assert _mean_diff(base, changed) > MAX_MEAN_DIFF / 4  # clearly visible even if small on the whole image
    assert _mean_diff(base, render_hand(sample_hand())) == 0


# --------------------------------------------------------------------------- card faces


def _face_bytes(card: Card, size: assets.CardSize, four: bool) -> bytes:
    return assets.card_face(card, size, four).tobytes()


@pytest.mark.parametrize("size", [assets.LARGE, assets.MEDIUM, assets.SMALL], ids=lambda s: s.name)
@pytest.mark.parametrize("four", [False, True])
def test_card_faces_all_40_distinct(size: assets.CardSize, four: bool) -> None:
    """Every one of the 40 faces differs from every other, at every size, in both decks."""
    faces = {_face_bytes(card, size, four) for card in ALL_CARDS}
    assert len(ALL_CARDS) == 40
    assert len(faces) == 40


@pytest.mark.parametrize("size", [assets.LARGE, assets.SMALL], ids=lambda s: s.name)
def test_four_colour_deck_differs_only_for_diamonds_and_clubs(size: assets.CardSize) -> None:
    """Spades and hearts are identical in both decks; every diamond and club changes colour."""
    for card in ALL_CARDS:
        same = _face_bytes(card, size, False) == _face_bytes(card, size, True)
        assert same == (card.suit in (Suit.SPADES, Suit.HEARTS)), str(card)
    assert assets.suit_colour(Suit.DIAMONDS, True) != assets.suit_colour(Suit.HEARTS, True)
    assert assets.suit_colour(Suit.CLUBS, True) != assets.suit_colour(Suit.SPADES, True)


def test_card_face_is_high_contrast_and_rounded() -> None:
    """The index ink is dark against white, and the corners are transparent (rounded)."""
    face = assets.card_face(parse_card("5D"), assets.LARGE)
    assert face.getpixel((0, 0))[3] == 0  # type: ignore[index]
    assert face.getpixel((face.width // 2, face.height // 2))[3] == 255  # type: ignore[index]
    for four in (False, True):
        for suit in Suit:
            r, g, b = assets.suit_colour(suit, four)
            assert 0.2126 * r + 0.7152 * g + 0.0722 * b < 120  # dark enough on white (>= ~4.5:1)


def test_card_back_differs_from_every_face() -> None:
    back = assets.card_back(assets.LARGE).tobytes()
    assert all(back != _face_bytes(card, assets.LARGE, False) for card in ALL_CARDS)


# --------------------------------------------------------------------------- hand


def test_hand_display_order_by_suit_and_by_rank() -> None:
    """Position numbers follow suit-then-rank or rank-then-suit order; meldable indexes follow the input."""
    cards = parse_cards("KS 3C 5H 5C")
    assert [str(cards[i]) for i in display_order(cards, "suit")] == ["3C", "5C", "5H", "KS"]
    assert [str(cards[i]) for i in display_order(cards, "rank")] == ["3C", "5C", "5H", "KS"]
    cards = parse_cards("2S AH 2C")
    assert [str(cards[i]) for i in display_order(cards, "suit")] == ["2C", "AH", "2S"]
    assert [str(cards[i]) for i in display_order(cards, "rank")] == ["AH", "2C", "2S"]


def test_hand_meldable_cards_are_lifted_and_marked() -> None:
    """Exactly the cards that meld with the drawn card are raised (by index into the snapshot)."""
    snap = sample_hand()
    lay = layout_hand(snap)
    fives = {pos for pos, i in enumerate(lay.order) if snap.cards[i].rank.letter == "5"}
    assert {pos for pos, m in enumerate(lay.marked) if m} == fives
    tops = {box[1] for box in lay.card_boxes}
    assert len(tops) == 2
    for pos, box in enumerate(lay.card_boxes):
        assert (box[1] == min(tops)) == (pos in fives)


def test_hand_worst_case_fits_without_overlap() -> None:
    """11 cards all marked plus a drawn card: visible strips, labels and the drawn card never collide."""
    snap = worst_hand()
    lay = layout_hand(snap)
    canvas: Box = (0, 0, lay.width, lay.height)
    assert len(lay.card_boxes) == 11
    assert first_overlap(lay.index_boxes) is None
    assert first_overlap(lay.label_boxes) is None
    assert lay.drawn_box is not None and lay.drawn_label_box is not None
    assert first_overlap([*lay.card_boxes[-1:], lay.drawn_box]) is None
    assert all(b[2] <= lay.drawn_box[0] for b in lay.card_boxes)
    assert first_overlap([*lay.label_boxes, lay.drawn_label_box]) is None
    assert first_overlap([*lay.index_boxes, *lay.label_boxes]) is None
    for box in (*lay.card_boxes, *lay.label_boxes, lay.drawn_box, lay.drawn_label_box):
        assert inside(box, canvas), box
    im = render_hand(snap)
    assert im.size == (lay.width, lay.height)
    assert lay.width <= 1000  # stays readable when a phone scales it to ~400 px


def test_hand_rejects_meldable_outside_the_hand() -> None:
    with pytest.raises(ValueError, match="meldable"):
        HandSnapshot(cards=parse_cards("5S 5H"), meldable=frozenset({2}))


def test_hand_text_carries_every_card_and_mark() -> None:
    """The twin lists every card in the image's order, as the table shows cards (suit symbols, no position
    numbers), the drawn card and its label, and the meldable ones."""
    snap = replace(worst_hand(), meldable=frozenset({0, 3}), drawn_label="option")
    text = hand_text(snap)
    lay = layout_hand(snap)
    listing = text.split(": ", 1)[1].split(".", 1)[0]
    assert listing.split() == [snap.cards[i].pretty for i in lay.order]
    assert not re.search(r"\d [A2-7JQK][CDHS]\b", text), "no position numbers, no letter suits"
    assert f"Option: {snap.drawn.pretty}" in text
    melds_part = text.split("Melds with it:")[1]
    assert melds_part.split(".")[0].split() == [snap.cards[i].pretty for p, i in enumerate(lay.order) if lay.marked[p]]
    assert "empty" in hand_text(HandSnapshot(cards=()))
    assert "Nothing in your hand melds" in hand_text(replace(snap, meldable=frozenset()))


def test_hand_text_names_the_drawn_card_once() -> None:
    """After "You plucked 5♦." the panel does not name the card again: only what melds with it."""
    snap = replace(worst_hand(), meldable=frozenset({0}))
    assert snap.drawn is not None
    text = hand_text(snap, name_drawn=False)
    assert snap.drawn.pretty not in text.splitlines()[1] and str(snap.drawn) not in text.splitlines()[1]
    assert text.splitlines()[1].startswith("Melds with the pluck: ")
    option = replace(snap, drawn_label="option", meldable=frozenset())
    assert hand_text(option, name_drawn=False).endswith("Nothing in your hand melds with the option card.")


def test_hand_text_doctest() -> None:
    assert doctest.testmod(renderer.hand).failed == 0


# --------------------------------------------------------------------------- table


def _seat_boxes(seat_layout: object) -> list[Box]:
    from renderer.table import SeatLayout

    assert isinstance(seat_layout, SeatLayout)
    boxes = [seat_layout.name_box, seat_layout.chips_box]
    for box in (seat_layout.status_box, seat_layout.count_box, seat_layout.doubles_box):
        if box is not None:
            boxes.append(box)
    return boxes


def test_table_fifteen_seat_worst_case_fits_without_overlap() -> None:
    """15 seats with long names, doubles, 7-digit stacks and 5 melds each: nothing collides or spills."""
    snap = worst_table()
    lay = layout_table(snap)
    canvas: Box = (0, 0, lay.width, lay.height)
    assert len(lay.seats) == 15
    assert lay.columns == 2
    centre = [lay.stock_box, lay.discard_box, lay.in_play_box, lay.in_play_text_box, lay.tops_box, lay.notes_box]
    fixed = [lay.header, *(box for box in centre if box is not None)]
    assert len(fixed) == 7
    assert first_overlap(fixed) is None
    assert first_overlap([s.panel for s in lay.seats] + fixed) is None
    for seat in lay.seats:
        assert inside(seat.panel, canvas)
        head = _seat_boxes(seat)
        assert first_overlap(head) is None, seat.name_text
        meld_boxes = [m.box for m in seat.melds]
        assert first_overlap(head + meld_boxes) is None
        for meld in seat.melds:
            assert inside(meld.box, seat.panel)
            for box in meld.card_boxes:
                assert inside(box, meld.box)
            assert inside(meld.number_box, meld.box)
            assert not any(overlaps(meld.number_box, box) for box in meld.card_boxes)
            if meld.tag_box is not None:
                assert inside(meld.tag_box, meld.box)
                # the tag may cover the last card's lower right, never any card's index (its top-left)
                for box in meld.card_boxes:
                    index = (box[0], box[1], box[0] + 28, box[1] + 52)
                    assert not overlaps(meld.tag_box, index)
        for box in head:
            assert inside(box, seat.panel)
        assert seat.name_text.endswith("…")  # the long name was cut to fit, not drawn over the chips
        assert seat.name_box[2] - seat.name_box[0] >= 100  # ...and still shows a readable part of it
    for box in fixed:
        assert inside(box, canvas)
    assert render_table(snap).size == (lay.width, lay.height)


def test_table_eight_seats_thirty_melds_layout() -> None:
    """The benchmark table: every meld gets a box; one tag per paying meld."""
    snap = sample_table(8, 30)
    lay = layout_table(snap)
    assert sum(len(s.melds) for s in lay.seats) == 30
    tags = sum(1 for s in lay.seats for m in s.melds if m.tag_box is not None)
    assert tags == sum(1 for s in snap.seats for m in s.melds if m.shown_label)
    for seat in lay.seats:
        assert first_overlap([m.box for m in seat.melds]) is None


def test_table_rejects_more_than_fifteen_seats() -> None:
    seats = tuple(SeatSnapshot(name=str(i), chips=1) for i in range(16))
    with pytest.raises(ValueError, match="15"):
        TableSnapshot(title="t", hand_no=1, seats=seats)


def test_table_text_carries_every_fact() -> None:
    """Every name, stack, status, value tag, numbered meld, the card in play, discards, stock, tops and clock."""
    snap = sample_table(15, 40)
    text = table_text(snap)
    for i, seat in enumerate(snap.seats):
        head = f"Seat {i + 1}: {seat.name}" + (" (computer)," if seat.computer else ",")
        line = next(ln for ln in text.splitlines() if ln.startswith(head))
        assert f"{seat.chips:,} chips" in line
        assert seat.status.value in line
        assert f"{seat.hand_count} card" in line
        assert ("doubles" in line) == seat.doubles
        assert ("to play" in line) == seat.is_turn
        for meld in seat.melds:
            cards = f"{meld.index}: " + " ".join(str(c) for c in meld.cards)
            assert (f"{cards} ({meld.shown_label})" if meld.shown_label else cards) in line
    assert f"In play: {snap.in_play}, plucked by Mrs. Kawamoto." in text
    assert f"Discards: {snap.discard_count}, {snap.discard} on top." in text
    assert f"Stock: {snap.stock_count}" in text
    assert f"singles {snap.singles_tops}, doubles {snap.doubles_tops}" in text
    assert "Mrs. Kawamoto to play, 0:17 left" in text
    for note in snap.notes:
        assert note in text
    plain = replace(snap, in_play=None, discard=None, clock_seconds=None)
    assert "Discards: none" in table_text(plain) and "In play" not in table_text(plain)
    assert "left" not in table_text(plain).splitlines()[1]
    option = table_text(replace(plain, discard=snap.discard, discard_is_option=True))
    assert f"{snap.discard} the option card" in option
    between = table_text(replace(snap, in_hand=False))
    assert "Between hands." in between and "Stock" not in between and "Discards" not in between
    assert "card in hand" not in between and "cards in hand" not in between


def test_between_hands_the_board_has_no_stock_or_discards() -> None:
    """#14.2: no "Stock 0" between hands: no pile is laid out, and nothing is drawn where they stood."""
    snap = replace(sample_table(3, 7), in_play=None)
    lay = layout_table(replace(snap, in_hand=False))
    assert lay.stock_box is None and lay.discard_box is None and lay.in_play_box is None
    assert all(s.count_box is None for s in lay.seats)
    during = layout_table(snap)
    assert during.stock_box is not None and during.discard_box is not None


def test_card_in_play_is_drawn_apart_from_the_discard_pile() -> None:
    """#14.2: the plucked card and the top discard are two different cards in two places."""
    snap = sample_table(3, 7)
    lay = layout_table(snap)
    assert lay.in_play_box is not None and lay.discard_box is not None
    assert not overlaps(lay.in_play_box, lay.discard_box)
    assert lay.in_play_name == "Mrs. Kawamoto"
    im = render_table(snap)
    without = render_table(replace(snap, in_play=None))
    assert ImageChops.difference(im.crop(lay.in_play_box), without.crop(lay.in_play_box)).getbbox() is not None
    assert ImageChops.difference(im.crop(lay.discard_box), without.crop(lay.discard_box)).getbbox() is None


def test_melds_are_numbered_as_the_commands_take_them() -> None:
    """#14.9: each meld shows its number (`MeldSnapshot.index`, the engine's meld id /add and /borrow take)."""
    base = sample_table(3, 7)
    seat = base.seats[0]
    renumbered = replace(seat, melds=tuple(replace(m, index=m.index + 6) for m in seat.melds))
    a = render_table(base)
    b = render_table(replace(base, seats=(renumbered, *base.seats[1:])))
    lay = layout_table(base).seats[0]
    for meld in lay.melds:
        assert ImageChops.difference(a.crop(meld.number_box), b.crop(meld.number_box)).getbbox() is not None
        for box in meld.card_boxes:
            assert ImageChops.difference(a.crop(box), b.crop(box)).getbbox() is None


def test_meld_label_defaults_to_value() -> None:
    assert MeldSnapshot(index=1, cards=parse_cards("5S 5S 5S"), value=4).shown_label == "+4"
    assert MeldSnapshot(index=1, cards=parse_cards("5S 5S 5S"), value=4, label="+8").shown_label == "+8"
    assert MeldSnapshot(index=1, cards=parse_cards("2C 3C 4C")).shown_label == ""


# --------------------------------------------------------------------------- outcome


def test_outcome_layout_fits_without_overlap() -> None:
    snap = sample_outcome(14)
    lay = layout_outcome(snap)
    canvas: Box = (0, 0, lay.width, lay.height)
    tags = [t for t in lay.tag_boxes if t is not None]
    assert first_overlap(lay.meld_boxes) is None
    sections = [lay.header, *lay.meld_boxes, lay.breakdown_box, lay.nets_box, lay.paid_box, lay.notes_box]
    assert first_overlap(sections) is None
    assert all(inside(b, lay.paid_box) for b in lay.payment_boxes)
    assert all(inside(b, lay.nets_box) for b in lay.net_boxes) and len(lay.net_boxes) == 15
    assert not any(overlaps(t, b) for t in tags for boxes in lay.card_boxes for b in boxes)
    assert first_overlap(tags) is None
    for box in (*lay.meld_boxes, *tags, lay.breakdown_box, *lay.payment_boxes, lay.notes_box):
        assert inside(box, canvas)
    assert len(lay.payment_boxes) == 15  # 14 payers and the singles tops


def test_outcome_text_carries_every_fact() -> None:
    snap = sample_outcome(14)
    text = outcome_text(snap)
    assert f"{snap.winner} goes out, net {snap.winner_net:+,} for the hand (collected {snap.total:,} chips)" in text
    for meld in snap.melds:
        cards = " ".join(str(c) for c in meld.cards)
        assert (f"{cards} ({meld.shown_label})" if meld.shown_label else cards) in text
    for payment in snap.payments:
        assert f"{payment.payer} {payment.chips} chips ({payment.note})" in text
    for net in snap.nets:
        assert f"{net.name} {net.chips:+}" in text
    assert f"conditions on board {snap.conditions} units" in text
    assert f"bust-out {snap.bust_out} units" in text
    assert f"going out {snap.going_out} units" in text
    assert f"Singles tops {snap.singles_tops} chips" in text
    assert f"collected {snap.total} chips." in text
    for note in snap.notes:
        assert note in text


def test_outcome_never_shows_a_collection_as_a_win() -> None:
    """The header and the first line of the text twin give the winner's net; what he collected is labelled
    "Collected" (a winner who collected 4 chips and paid 4 is "net 0", never "+4 chips")."""
    snap = OutcomeSnapshot(
        title="t", hand_no=3, winner="W", melds=(), winner_net=0, payments=(PaymentSnapshot(payer="A", chips=4),)
    )
    text = outcome_text(snap)
    assert text.startswith("t, hand 3: W goes out, net 0 for the hand (collected 4 chips).")
    assert "+4" not in text and "collected 4 chips." in text
    render_outcome_png(snap)


def test_outcome_total_is_tops_plus_payments() -> None:
    snap = OutcomeSnapshot(
        title="t",
        hand_no=1,
        winner="W",
        melds=(),
        singles_tops=5,
        doubles_tops=2,
        payments=(PaymentSnapshot(payer="A", chips=7), PaymentSnapshot(payer="B", chips=3)),
    )
    assert snap.total == 17
    assert "Doubles tops 2 chips" in outcome_text(snap)
    assert "no melds" in outcome_text(snap)
    render_outcome_png(snap)


# --------------------------------------------------------------------------- sizes


@pytest.mark.parametrize(
    "make",
    [
        lambda: render_hand_png(worst_hand()),
        lambda: render_hand_png(sample_hand(11, four_color=True)),
        lambda: render_table_png(sample_table(8, 30)),
        lambda: render_table_png(worst_table()),
        lambda: render_outcome_png(sample_outcome(14)),
    ],
    ids=["hand_worst", "hand_11", "table_8_30", "table_15_worst", "outcome_14"],
)
def test_png_is_small_and_valid(make: object) -> None:
    """Every image is a valid PNG of at most 300 KB."""
    assert callable(make)
    png = make()
    assert isinstance(png, bytes)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(png) <= MAX_BYTES, len(png)
    Image.open(io.BytesIO(png)).verify()


def test_png_update_mode_writes_and_still_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PAN_UPDATE_GOLDEN never approves itself: a new or changed image is written and the test fails;
    an image within the tolerance passes and its golden is not rewritten."""
    import sys

    monkeypatch.setattr(sys.modules[__name__], "FAILURES", tmp_path / "failures")
    png = assets.to_png(render_hand(sample_hand()))
    actual = Image.open(io.BytesIO(png)).convert("RGB")
    path = tmp_path / "hand.png"
    with pytest.raises(pytest.fail.Exception, match=r"wrote hand\.png"):
        update_golden_png(path, png, actual)
    assert path.read_bytes() == png
    update_golden_png(path, png, actual)  # the same image: passes
    cards = list(sample_hand().cards)
    cards[0] = parse_card("QD")
    other_png = assets.to_png(render_hand(replace(sample_hand(), cards=tuple(cards))))
    other = Image.open(io.BytesIO(other_png)).convert("RGB")
    with pytest.raises(pytest.fail.Exception, match="look at it"):
        update_golden_png(path, other_png, other)
    assert path.read_bytes() == other_png
    assert (tmp_path / "failures" / "hand.previous.png").exists()
