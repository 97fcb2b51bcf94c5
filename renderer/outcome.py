"""The end-of-hand image: the winner's board as it lies, and how the outs were worked out."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from . import assets
from .layout import Box
from .snapshot import MeldSnapshot, OutcomeSnapshot

WIDTH = 800
MARGIN = 14
HEADER_H = 64
CARD = assets.MEDIUM
TAG_SIZE = 20
MELD_GAP = 16
ROW_GAP = 10
LINE_H = 28
TEXT_SIZE = 18


@dataclass(frozen=True, slots=True, kw_only=True)
class OutcomeLayout:
    width: int
    height: int
    header: Box
    meld_boxes: tuple[Box, ...]
    card_boxes: tuple[tuple[Box, ...], ...]
    tag_boxes: tuple[Box | None, ...]
    breakdown_box: Box
    payment_boxes: tuple[Box, ...]
    notes_box: Box


def breakdown_lines(snapshot: OutcomeSnapshot) -> tuple[tuple[str, str], ...]:
    """(label, value) rows of the breakdown, shared by the image and the text twin."""
    rows = [("Conditions on board", f"{snapshot.conditions} units")]
    if snapshot.bust_out:
        rows.append(("Bust-out", f"{snapshot.bust_out} units"))
    rows.append(("Going out", f"{snapshot.going_out} units"))
    rows.append(("Each player pays", f"{snapshot.units_per_payer} units"))
    rows.append(("Singles tops", f"{snapshot.singles_tops} chips"))
    if snapshot.doubles_tops:
        rows.append(("Doubles tops", f"{snapshot.doubles_tops} chips"))
    return tuple(rows)


def _payment_text(payer: str, chips: int, note: str) -> str:
    return f"{payer} pays {chips}" + (f" ({note})" if note else "")


def _tag(meld: MeldSnapshot) -> Image.Image | None:
    label = meld.shown_label
    return assets.pill(label, assets.GOLD, assets.GOLD_DARK, TAG_SIZE) if label else None


def layout_outcome(snapshot: OutcomeSnapshot) -> OutcomeLayout:
    """Boxes for the header, each board meld (cards and value tag), the breakdown and payments."""
    inner = WIDTH - 2 * MARGIN
    x, y = MARGIN, HEADER_H + 14
    meld_boxes: list[Box] = []
    card_boxes: list[tuple[Box, ...]] = []
    tag_boxes: list[Box | None] = []
    for meld in snapshot.melds:
        tag = _tag(meld)
        tag_w = tag.width + 6 if tag else 0
        n = max(1, len(meld.cards))
        step = CARD.step
        if (n - 1) * step + CARD.width + tag_w > inner:
            step = max(8, (inner - tag_w - CARD.width) // max(1, n - 1))
        width = (n - 1) * step + CARD.width + tag_w
        if x > MARGIN and x + width > MARGIN + inner:
            x, y = MARGIN, y + CARD.height + ROW_GAP
        card_boxes.append(tuple((x + i * step, y, x + i * step + CARD.width, y + CARD.height) for i in range(n)))
        right = x + (n - 1) * step + CARD.width
        if tag is not None:
            ty = y + CARD.height - tag.height - 4
            tag_boxes.append((right + 6, ty, right + 6 + tag.width, ty + tag.height))
        else:
            tag_boxes.append(None)
        meld_boxes.append((x, y, x + width, y + CARD.height))
        x += width + MELD_GAP
    y = (y + CARD.height if snapshot.melds else y) + 18
    rows = breakdown_lines(snapshot)
    label_w = max(assets.text_width(label, "bold", TEXT_SIZE) for label, _ in rows)
    value_w = max(assets.text_width(value, "bold", TEXT_SIZE) for _, value in rows)
    breakdown_box = (MARGIN, y, MARGIN + label_w + 16 + value_w, y + 26 + LINE_H * len(rows))
    pay_left = breakdown_box[2] + 32
    columns = 1 if len(snapshot.payments) <= max(len(rows), 6) else 2
    per_col = -(-len(snapshot.payments) // columns)
    col_w = (WIDTH - MARGIN - pay_left - (columns - 1) * 16) // columns
    payment_boxes = []
    for i, _ in enumerate(snapshot.payments):
        col, row = divmod(i, per_col)
        px = pay_left + col * (col_w + 16)
        py = y + 26 + row * LINE_H
        payment_boxes.append((px, py, px + col_w, py + LINE_H))
    bottom = max([breakdown_box[3], *(b[3] for b in payment_boxes)])
    notes_box = (MARGIN, bottom + 8, WIDTH - MARGIN, bottom + 8 + LINE_H * len(snapshot.notes))
    return OutcomeLayout(
        width=WIDTH,
        height=notes_box[3] + MARGIN,
        header=(0, 0, WIDTH, HEADER_H),
        meld_boxes=tuple(meld_boxes),
        card_boxes=tuple(card_boxes),
        tag_boxes=tuple(tag_boxes),
        breakdown_box=breakdown_box,
        payment_boxes=tuple(payment_boxes),
        notes_box=notes_box,
    )


def render_outcome(snapshot: OutcomeSnapshot) -> Image.Image:
    """The end-of-hand image as RGB (see `render_outcome_png`)."""
    lay = layout_outcome(snapshot)
    im = Image.new("RGB", (lay.width, lay.height), assets.FELT)
    draw = ImageDraw.Draw(im)
    draw.rectangle(lay.header, fill=assets.FELT_DARK)
    total = f"+{snapshot.total:,} chips"
    total_w = assets.text_width(total, "bold", 28)
    assets.paste_text(im, (WIDTH - MARGIN - total_w, 8), total, "bold", 28, assets.GOLD)
    head = assets.fit_text(f"{snapshot.winner} goes out", "bold", 28, WIDTH - 3 * MARGIN - total_w)
    assets.paste_text(im, (MARGIN, 8), head, "bold", 28, assets.INK_LIGHT)
    sub = f"{snapshot.title} · hand {snapshot.hand_no} · the winner's board"
    assets.paste_text(im, (MARGIN, 42), assets.fit_text(sub, "regular", 15, WIDTH - 2 * MARGIN), "regular", 15,
                      assets.INK_MUTED, cache=False)  # fmt: skip
    for meld, boxes, tag_box in zip(snapshot.melds, lay.card_boxes, lay.tag_boxes, strict=True):
        for card, box in zip(meld.cards, boxes, strict=False):
            assets.card_sprite(card, CARD, snapshot.four_color).paste(im, box[:2])
        tag = _tag(meld)
        if tag is not None and tag_box is not None:
            assets.paste_rgba(im, tag, tag_box[:2])
    bb = lay.breakdown_box
    assets.paste_text(im, (bb[0], bb[1]), "OUTS, PER PLAYER", "bold", 15, assets.INK_MUTED)
    for i, (label, value) in enumerate(breakdown_lines(snapshot)):
        y = bb[1] + 26 + i * LINE_H
        strong = label == "Each player pays"
        assets.paste_text(im, (bb[0], y), label, "bold" if strong else "regular", TEXT_SIZE, assets.INK_LIGHT)
        vw = assets.text_width(value, "bold", TEXT_SIZE)
        assets.paste_text(im, (bb[2] - vw, y), value, "bold", TEXT_SIZE, assets.GOLD if strong else assets.INK_LIGHT)
    if lay.payment_boxes:
        assets.paste_text(im, (lay.payment_boxes[0][0], bb[1]), "PAID TO THE WINNER", "bold", 15, assets.INK_MUTED)
    for payment, box in zip(snapshot.payments, lay.payment_boxes, strict=True):
        chips = f"{payment.chips:,}"
        cw = assets.text_width(chips, "bold", TEXT_SIZE)
        name = payment.payer + (f" ({payment.note})" if payment.note else "")
        name = assets.fit_text(name, "cond", TEXT_SIZE, box[2] - box[0] - cw - 12)
        assets.paste_text(im, (box[0], box[1]), name, "cond", TEXT_SIZE, assets.INK_LIGHT)
        assets.paste_text(im, (box[2] - cw, box[1]), chips, "bold", TEXT_SIZE, assets.GOLD)
    nb = lay.notes_box
    for i, note in enumerate(snapshot.notes):
        shown = assets.fit_text(note, "regular", 16, nb[2] - nb[0])
        assets.paste_text(im, (nb[0], nb[1] + i * LINE_H), shown, "regular", 16, assets.INK_MUTED, cache=False)
    return im


def render_outcome_png(snapshot: OutcomeSnapshot) -> bytes:
    """PNG bytes of the end-of-hand image."""
    return assets.to_png(render_outcome(snapshot))


def outcome_text(snapshot: OutcomeSnapshot) -> str:
    """The end-of-hand image as plain text."""
    lines = [f"{snapshot.title}, hand {snapshot.hand_no}: {snapshot.winner} goes out, +{snapshot.total:,} chips."]
    melds = []
    for meld in snapshot.melds:
        cards = " ".join(str(c) for c in meld.cards)
        melds.append(f"{cards} ({meld.shown_label})" if meld.shown_label else cards)
    lines.append("Board: " + ("; ".join(melds) if melds else "no melds") + ".")
    lines.append(
        "Outs per player: " + ", ".join(f"{label.lower()} {value}" for label, value in breakdown_lines(snapshot)) + "."
    )
    if snapshot.payments:
        lines.append("Paid: " + "; ".join(_payment_text(p.payer, p.chips, p.note) for p in snapshot.payments) + ".")
    lines.extend(snapshot.notes)
    return "\n".join(lines)
