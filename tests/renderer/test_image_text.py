"""Images get plain, safe text (issues #14.3, #14.9 and #19): every user-chosen string passes
`renderer.text.image_text`, no string drawn has a character the bundled font lacks (read from its cmap), no
text on the board is smaller than a card index, and a hostile name changes nothing but its own box."""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest
from PIL import Image, ImageChops

from pancog.adapter.presenters.table import live_outcome, table_snapshot
from pancog.adapter.presenters.table_events import describe_events
from pancog.game import Rules, Sit, StartHand, apply, initial_state, legal_actions, to_act
from pancog.game.actions import AddToMeld, Borrow, Discard, GoOnTop, Knock, NewMeld
from pancog.game.events import ChipsMoved, Event, HandEnded, HandStarted
from pancog.game.state import EndReason, TableState
from pancog.services.chips import HandChips, HandResult
from renderer import TableLayout, assets, layout_table, render_outcome, render_table
from renderer.samples import sample_outcome, sample_table
from renderer.text import COMPUTER_MARK, MISSING, clean_text, cmap, image_text, missing_glyphs

HOSTILE = {
    "markup": "<@&1> **x** ||y|| @everyone",
    "rlo": "\u202e" + "evil name reversed here" + "x" * 8,  # 32 characters with the override
    "zero_width": "\u200b\u200c\u200d\u2060\ufeff",
    "emoji": "🎉🔥🤖",
}


@contextmanager
def drawn_texts() -> Iterator[list[tuple[str, assets.FontKind, int]]]:
    """Every (text, font, size) the renderer draws while the block runs (caches cleared so nothing hides)."""
    seen: list[tuple[str, assets.FontKind, int]] = []
    real = assets.draw_text_sprite

    def spy(text: str, kind: assets.FontKind, size: int, frac64: int = 0) -> assets.TextSprite:
        seen.append((text, kind, size))
        return real(text, kind, size, frac64)

    caches = (assets.text_sprite, assets.recent_text_sprite, assets.word_sprite, assets.pill)
    for cache in caches:
        cache.cache_clear()
    assets.draw_text_sprite = spy  # type: ignore[assignment]
    try:
        yield seen
    finally:
        assets.draw_text_sprite = real  # type: ignore[assignment]
        for cache in caches:
            cache.cache_clear()


def assert_all_drawable(seen: list[tuple[str, assets.FontKind, int]]) -> None:
    assert seen
    for text, kind, _size in seen:
        assert not missing_glyphs(text, kind), f"{text!r} has glyphs {kind} lacks: {missing_glyphs(text, kind)!r}"


# --------------------------------------------------------------------------- the one function


def test_assert_all_drawable_catches_an_emoji() -> None:
    """The check itself fails on what used to reach the image (the robot emoji in a note)."""
    with pytest.raises(AssertionError, match="lacks"):
        assert_all_drawable([("🤖 Normal bot 1 plucked 5♥.", "regular", 27)])
    assert 0x1F916 not in cmap("regular") and ord("♣") in cmap("bold")


@pytest.mark.parametrize("kind", ["regular", "bold", "cond"])
def test_clean_text_strips_controls_overrides_and_zero_width(kind: assets.FontKind) -> None:
    assert clean_text("\u202eabc\u202c", kind) == "abc"
    assert clean_text("a\u2066b\u2069\u200fc\u200ed", kind) == "abcd"
    assert clean_text(HOSTILE["zero_width"], kind) == ""
    assert clean_text("tab\there\nnew\x00line\x07", kind) == "tab here newline"
    assert clean_text("  lots   of\u3000space ", kind) == "lots of space"
    assert clean_text("heart\ufe0f", kind) == "heart"
    assert clean_text(HOSTILE["markup"], kind) == HOSTILE["markup"]  # shown as typed, never obeyed


@pytest.mark.parametrize("kind", ["regular", "bold", "cond"])
def test_clean_text_replaces_glyphs_the_font_lacks(kind: assets.FontKind) -> None:
    assert clean_text("🤖 Normal bot 1", kind) == f"{COMPUTER_MARK} Normal bot 1"
    assert clean_text("🎉🔥 party", kind) == f"{MISSING} party"  # one replacement per run
    assert clean_text("ＡＢＣ 𝐁𝐨𝐥𝐝", kind) == "ABC Bold"  # compatibility forms the font draws
    assert clean_text("Zoë Zoe\u0308", kind) == "Zoë Zoë"  # composed (NFC)
    zalgo = clean_text("Z" + "\u0301\u0302\u0303\u0304\u0305" * 4, kind)
    assert sum(1 for c in zalgo if unicodedata.combining(c)) == 2  # at most two marks: nothing climbs out
    assert unicodedata.normalize("NFD", zalgo)[0] == "Z" and len(zalgo) <= 3
    for name in HOSTILE.values():
        assert not missing_glyphs(clean_text(name, kind), kind)


def test_image_text_ellipsises_to_the_width_available() -> None:
    long = "\u202e" + "W" * 60
    shown = image_text(long, "cond", 27, 200)
    assert shown.endswith("…") and "\u202e" not in shown
    assert assets.text_width(shown, "cond", 27) <= 200
    assert image_text("Rosa", "cond", 27, 200) == "Rosa"
    assert unicodedata.category(shown[0]) == "Lu"


# --------------------------------------------------------------------------- hostile names on the board


def _with_names(snap_names: dict[int, str]) -> tuple[Image.Image, TableLayout]:
    base = sample_table(3, 7)
    seats = tuple(replace(s, name=snap_names.get(i, s.name)) for i, s in enumerate(base.seats))
    snap = replace(base, seats=seats, in_play_by=seats[base.to_act or 0].name)
    return render_table(snap), layout_table(snap)


@pytest.mark.parametrize("which", sorted(HOSTILE))
def test_hostile_name_changes_nothing_but_its_own_box(which: str) -> None:
    """A member named to attack the image: every glyph drawn exists in the font, the layout is the same as
    with a plain name, and outside the name's own boxes (seat, header, card in play) not a pixel differs."""
    plain_im, plain_lay = _with_names({2: "Kim"})
    with drawn_texts() as seen:
        im, lay = _with_names({2: HOSTILE[which]})
    assert_all_drawable(seen)
    seat = lay.seats[2]
    assert clean_text(HOSTILE[which], "cond").startswith(seat.name_text.removesuffix("…").rstrip())
    for a, b in zip(lay.seats, plain_lay.seats, strict=True):
        assert a.panel == b.panel and a.melds == b.melds and a.chips_box == b.chips_box
    assert lay.in_play_text_box is not None
    # blank the boxes where the name is drawn; everything else is identical
    masks = [(*seat.name_box[:2], seat.chips_box[0], seat.name_box[3]), lay.header, lay.in_play_text_box]
    for box in masks:
        for img in (im, plain_im):
            img.paste((0, 0, 0), box)
    assert ImageChops.difference(im, plain_im).getbbox() is None


def test_rlo_name_is_drawn_in_stored_order() -> None:
    """The override is gone, so the letters come out left to right: the drawn name starts with what was typed."""
    _im, lay = _with_names({2: HOSTILE["rlo"]})
    assert lay.seats[2].name_text.startswith("evil name")


# --------------------------------------------------------------------------- real notes and outcomes


def _choose(rng: random.Random, actions: tuple[object, ...]) -> object:
    """A keen player: knock, meld whatever melds, otherwise anything (so hands end with someone going out)."""
    melds = [a for a in actions if isinstance(a, NewMeld | AddToMeld | Borrow)]
    if melds:
        return rng.choice(melds)
    knocks = [a for a in actions if isinstance(a, Knock)]
    if knocks and rng.random() < 0.9:
        return knocks[0]
    rest = [a for a in actions if not isinstance(a, GoOnTop)] or list(actions)
    discards = [a for a in rest if isinstance(a, Discard)]
    return rng.choice(discards or rest)


def played_hands(
    n_hands: int, seed: int = 11
) -> Iterator[tuple[TableState, TableState, list[Event], list[Event], HandResult]]:
    """(before, after, the last action's events, the whole hand's events, the hand's chip result) for each hand,
    from real engine play."""
    rng = random.Random(seed)
    s = initial_state(Rules())
    for i in range(5):
        s = apply(s, Sit(player_id=i + 1 if i != 3 else -1001, buy_in=400)).state
    chips = HandChips(0)
    for k in range(n_hands):
        t = apply(s, StartHand(seed=seed * 100 + k))
        chips.feed(s, t.events, t.state)
        s, hand_events = t.state, list(t.events)
        while s.hand is not None:
            seat = to_act(s)
            assert seat is not None
            before = s
            t = apply(s, _choose(rng, legal_actions(s, seat)))  # type: ignore[arg-type]
            s = t.state
            hand_events.extend(t.events)
            result = chips.feed(before, t.events, s)
            if result is not None:
                yield before, s, list(t.events), hand_events, result


NAMES = {1: HOSTILE["markup"], 2: HOSTILE["rlo"], 3: HOSTILE["emoji"], 5: HOSTILE["zero_width"]}


def test_every_note_kind_renders_with_glyphs_the_font_has() -> None:
    """Notes from real play (every kind the hands produce, Markdown and 🤖 included) reach the image as plain
    text: no `**`, and every character drawn is in the font's cmap."""
    kinds: set[str] = set()
    notes: list[str] = []
    for before, after, events, hand, _ in played_hands(6):
        lines = describe_events(before, after, NAMES, hand)
        kinds |= {type(e).__name__ for e in hand}
        notes.extend(lines)
        del before, events
    assert {"CardPlucked", "Melded", "Discarded", "Declared", "HandEnded", "ChipsMoved"} <= kinds
    assert any("**" in n for n in notes) and any("🤖" in n for n in notes)
    state = initial_state(Rules())
    for i in range(3):
        state = apply(state, Sit(player_id=-1001 - i, buy_in=100)).state
    with drawn_texts() as seen:
        for i in range(0, len(notes), 2):
            snap = table_snapshot(state, NAMES, title="**T** 🤖", notes=notes[i : i + 2])
            # the bot's own Markdown is gone; a name typed with ** keeps it (shown as typed, issue 19)
            assert not any("**" in n.replace(HOSTILE["markup"], "") for n in snap.notes)
            render_table(snap)
    assert_all_drawable(seen)


def test_board_text_is_never_smaller_than_a_card_index() -> None:
    """#14.9: at a phone's 400 px every glyph on the board is at least a card index's size."""
    with drawn_texts() as seen:
        render_table(sample_table(8, 30))
        render_table(replace(sample_table(15, 40), in_hand=False))
    assert {size for _t, _k, size in seen} == {assets.MINI_INDEX_SIZE}


def test_outcome_totals_equal_the_items_and_nets_match_real_events() -> None:
    """#14.4: what the winner collected is the sum of the itemised payments and tops (every chip paid to him this
    hand), each payment is the sum of its items, and each player's net is what the hand's real chip movements add up
    to for them; the header's figure is the winner's net."""
    checked = 0
    for _before, after, events, hand, result in played_hands(12, seed=5):
        ended = next(e for e in events if isinstance(e, HandEnded))
        snap = live_outcome(result, after, events, NAMES, title="t", four_color=False)
        if ended.reason is not EndReason.OUT:
            continue
        assert snap is not None
        winner = ended.winner
        moves = [e for e in hand if isinstance(e, ChipsMoved)]
        got = sum(m.amount for m in moves if m.payee == winner)
        assert snap.total == got
        for p in snap.payments:
            assert p.chips == sum(int(part.rsplit(" ", 1)[1]) for part in p.note.split(", "))
        assert snap.total == snap.singles_tops + snap.doubles_tops + sum(p.chips for p in snap.payments)
        start = next(e for e in hand if isinstance(e, HandStarted))
        real = dict.fromkeys(start.dealt, 0)
        for m in moves:
            if isinstance(m.payer, int):
                real[m.payer] -= m.amount
            if isinstance(m.payee, int):
                real[m.payee] += m.amount
        seats = {after.seats[seat].player_id: seat for seat in start.dealt}  # type: ignore[union-attr]
        assert {seats[user]: net for user, net in result.nets} == real
        assert sorted(n.chips for n in snap.nets) == sorted(real.values())
        assert snap.winner_net == real[winner]  # type: ignore[index]
        with drawn_texts() as seen:
            render_outcome(snap)
        assert_all_drawable(seen)
        checked += 1
    assert checked >= 3


def test_outcome_wording_counts_chips() -> None:
    from renderer import outcome_text

    text = outcome_text(replace(sample_outcome(2), doubles_tops=1))
    assert "Doubles tops 1 chip;" in text and "1 chips" not in text
