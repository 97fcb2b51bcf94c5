"""The end-of-hand image: the winner's board as it lies, and how the outs were worked out."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from pancog.game.i18n import N_, speaking, tr
from pancog.game.i18n import counted as plural

from . import assets
from .layout import Box
from .snapshot import MeldSnapshot, OutcomeSnapshot
from .text import clean_text, image_text

WIDTH = 800
MARGIN = 14
HEADER_H = 70
CARD = assets.MEDIUM
TAG_SIZE = 22
MELD_GAP = 16
ROW_GAP = 10
LINE_H = 34
TEXT_SIZE = 24
CAPTION_SIZE = 20
HEAD_SIZE = 30
SECTION_GAP = 16
ROBOT = 22
ITEMS_LEFT = 230  # where a payment's items start, from the left margin
COLLECTED = N_("Collected")  # the label of the winner's gross (the payments and tops above it), never a net


@dataclass(frozen=True, slots=True, kw_only=True)
class OutcomeLayout:
    width: int
    height: int
    header: Box
    meld_boxes: tuple[Box, ...]
    card_boxes: tuple[tuple[Box, ...], ...]
    tag_boxes: tuple[Box | None, ...]
    breakdown_box: Box
    nets_box: Box
    net_boxes: tuple[Box, ...]
    paid_box: Box  # the payments, the tops taken and the total (one row each)
    payment_boxes: tuple[Box, ...]
    notes_box: Box


def _chips(n: int) -> str:
    return plural(n, "chip")


def breakdown_lines(snapshot: OutcomeSnapshot) -> tuple[tuple[str, str], ...]:
    """(label, value) rows of the breakdown, shared by the image and the text twin."""
    rows = [(tr("Conditions on board"), plural(snapshot.conditions, "unit"))]
    if snapshot.bust_out:
        rows.append((tr("Bust-out"), plural(snapshot.bust_out, "unit")))
    rows.append((tr("Going out"), plural(snapshot.going_out, "unit")))
    rows.append((tr("Each player pays"), plural(snapshot.units_per_payer, "unit")))
    return tuple(rows)


def paid_lines(snapshot: OutcomeSnapshot) -> tuple[tuple[str, str, int], ...]:
    """(who or what, its items, chips) for each payment and each tops taken: they add up to `total`."""
    rows = [(p.payer, p.note, p.chips) for p in snapshot.payments]
    if snapshot.singles_tops:
        rows.append((tr("Singles tops"), "", snapshot.singles_tops))
    if snapshot.doubles_tops:
        rows.append((tr("Doubles tops"), "", snapshot.doubles_tops))
    return tuple(rows)


def net_text(chips: int) -> str:
    return f"{chips:+,}" if chips else "0"


def _tag(meld: MeldSnapshot) -> Image.Image | None:
    label = meld.shown_label
    return assets.pill(label, assets.GOLD, assets.GOLD_DARK, TAG_SIZE) if label else None


def layout_outcome(snapshot: OutcomeSnapshot) -> OutcomeLayout:
    """Boxes for the header, each board meld (cards and value tag), the breakdown, nets and payments."""
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
    breakdown_box = (MARGIN, y, MARGIN + label_w + 16 + value_w, y + 30 + LINE_H * len(rows))
    nets_left = breakdown_box[2] + 40
    columns = 1 if len(snapshot.nets) <= 8 else 2
    per_col = -(-len(snapshot.nets) // columns) if snapshot.nets else 0
    col_w = (WIDTH - MARGIN - nets_left - (columns - 1) * 16) // columns
    net_boxes = []
    for i, _ in enumerate(snapshot.nets):
        col, row = divmod(i, per_col)
        px = nets_left + col * (col_w + 16)
        py = y + 30 + row * LINE_H
        net_boxes.append((px, py, px + col_w, py + LINE_H))
    nets_box = (nets_left, y, WIDTH - MARGIN, y + 30 + LINE_H * per_col)
    y = max(breakdown_box[3], nets_box[3]) + SECTION_GAP
    paid = paid_lines(snapshot)
    payment_boxes = tuple(
        (MARGIN, y + 30 + i * LINE_H, WIDTH - MARGIN, y + 30 + (i + 1) * LINE_H) for i in range(len(paid))
    )
    paid_box = (MARGIN, y, WIDTH - MARGIN, y + 30 + LINE_H * (len(paid) + 1))
    bottom = paid_box[3]
    notes_box = (MARGIN, bottom + 8, WIDTH - MARGIN, bottom + 8 + LINE_H * len(snapshot.notes))
    return OutcomeLayout(
        width=WIDTH,
        height=notes_box[3] + MARGIN,
        header=(0, 0, WIDTH, HEADER_H),
        meld_boxes=tuple(meld_boxes),
        card_boxes=tuple(card_boxes),
        tag_boxes=tuple(tag_boxes),
        breakdown_box=breakdown_box,
        nets_box=nets_box,
        net_boxes=tuple(net_boxes),
        paid_box=paid_box,
        payment_boxes=payment_boxes,
        notes_box=notes_box,
    )


def _amount_row(
    im: Image.Image, box: Box, name: str, items: str, amount: str, ink: assets.RGB, *, computer: bool = False
) -> None:
    """One row: a name (cut to fit; a robot mark first for a computer player), its items (muted, cut to fit)
    and an amount at the right."""
    aw = assets.text_width(amount, "bold", TEXT_SIZE)
    assets.paste_text(im, (box[0] + box[2] - box[0] - aw, box[1]), amount, "bold", TEXT_SIZE, ink)
    x = box[0]
    if computer:
        assets.paste_rgba(im, assets.robot_icon(ROBOT), (x, box[1] + 3))
        x += ROBOT + 6
    name_room = (box[0] + ITEMS_LEFT - 12 - x) if items else box[2] - x - aw - 12
    shown = image_text(name, "cond", TEXT_SIZE, name_room)
    assets.paste_text(im, (x, box[1]), shown, "cond", TEXT_SIZE, assets.INK_LIGHT)
    if items:
        room = box[2] - aw - 12 - box[0] - ITEMS_LEFT
        shown = image_text(items, "regular", TEXT_SIZE - 4, room)
        assets.paste_text(im, (box[0] + ITEMS_LEFT, box[1] + 3), shown, "regular", TEXT_SIZE - 4, assets.INK_MUTED)


def render_outcome(snapshot: OutcomeSnapshot) -> Image.Image:
    """The end-of-hand image as RGB (see `render_outcome_png`)."""
    lay = layout_outcome(snapshot)
    im = Image.new("RGB", (lay.width, lay.height), assets.FELT)
    draw = ImageDraw.Draw(im)
    draw.rectangle(lay.header, fill=assets.FELT_DARK)
    head_net = tr(
        "net {net}", net=net_text(snapshot.winner_net)
    )  # the header's figure is the net: never "+4" for a net of 0
    net_w = assets.text_width(head_net, "bold", HEAD_SIZE)
    ink = assets.GOLD if snapshot.winner_net > 0 else assets.INK_LIGHT
    assets.paste_text(im, (WIDTH - MARGIN - net_w, 6), head_net, "bold", HEAD_SIZE, ink)
    suffix = " " + tr("goes out")
    room = WIDTH - 3 * MARGIN - net_w - assets.text_width(suffix, "bold", HEAD_SIZE)
    head = image_text(snapshot.winner, "bold", HEAD_SIZE, room) + suffix
    assets.paste_text(im, (MARGIN, 6), head, "bold", HEAD_SIZE, assets.INK_LIGHT)
    sub = f"{clean_text(snapshot.title, 'regular')} · " + tr("hand {n} · the winner's board", n=snapshot.hand_no)
    assets.paste_text(im, (MARGIN, 42), assets.fit_text(sub, "regular", CAPTION_SIZE, WIDTH - 2 * MARGIN), "regular",
                      CAPTION_SIZE, assets.INK_MUTED, cache=False)  # fmt: skip
    for meld, boxes, tag_box in zip(snapshot.melds, lay.card_boxes, lay.tag_boxes, strict=True):
        for card, box in zip(meld.cards, boxes, strict=False):
            assets.paste_card(im, card, box[:2], CARD, snapshot.four_color)
        tag = _tag(meld)
        if tag is not None and tag_box is not None:
            assets.paste_rgba(im, tag, tag_box[:2])
    bb = lay.breakdown_box
    assets.paste_text(im, (bb[0], bb[1]), "OUTS, PER PLAYER", "bold", CAPTION_SIZE, assets.INK_MUTED)
    for i, (label, value) in enumerate(breakdown_lines(snapshot)):
        y = bb[1] + 30 + i * LINE_H
        strong = label == "Each player pays"
        assets.paste_text(im, (bb[0], y), label, "bold" if strong else "regular", TEXT_SIZE, assets.INK_LIGHT)
        vw = assets.text_width(value, "bold", TEXT_SIZE)
        assets.paste_text(im, (bb[2] - vw, y), value, "bold", TEXT_SIZE, assets.GOLD if strong else assets.INK_LIGHT)
    if lay.net_boxes:
        assets.paste_text(im, lay.nets_box[:2], tr("NET FOR THE HAND"), "bold", CAPTION_SIZE, assets.INK_MUTED)
    for net, box in zip(snapshot.nets, lay.net_boxes, strict=True):
        ink = assets.GOLD if net.chips > 0 else assets.INK_MUTED
        _amount_row(im, box, net.name, "", net_text(net.chips), ink, computer=net.computer)
    pb = lay.paid_box
    assets.paste_text(im, pb[:2], tr("PAID TO THE WINNER"), "bold", CAPTION_SIZE, assets.INK_MUTED)
    for (who, items, chips), box in zip(paid_lines(snapshot), lay.payment_boxes, strict=True):
        _amount_row(im, box, who, items, f"{chips:,}", assets.GOLD)
    total_y = pb[3] - LINE_H
    draw.line((pb[2] - 160, total_y - 2, pb[2], total_y - 2), fill=assets.INK_MUTED, width=2)
    assets.paste_text(im, (pb[0], total_y), tr(COLLECTED), "bold", TEXT_SIZE, assets.INK_LIGHT)
    total = _chips(snapshot.total)
    tw = assets.text_width(total, "bold", TEXT_SIZE)
    assets.paste_text(im, (pb[2] - tw, total_y), total, "bold", TEXT_SIZE, assets.GOLD)
    nb = lay.notes_box
    for i, note in enumerate(snapshot.notes):
        shown = image_text(note, "regular", CAPTION_SIZE, nb[2] - nb[0])
        assets.paste_text(im, (nb[0], nb[1] + i * LINE_H), shown, "regular", CAPTION_SIZE, assets.INK_MUTED,
                          cache=False)  # fmt: skip
    return im


def render_outcome_png(snapshot: OutcomeSnapshot) -> bytes:
    """PNG bytes of the end-of-hand image."""
    with speaking(snapshot.lang):  # a render worker does not share the task's language: the snapshot carries it
        return assets.to_png(render_outcome(snapshot))


def outcome_text(snapshot: OutcomeSnapshot) -> str:
    """The end-of-hand image as plain text (in the snapshot's language)."""
    with speaking(snapshot.lang):
        return _outcome_text(snapshot)


def _outcome_text(snapshot: OutcomeSnapshot) -> str:
    lines = [
        tr(
            "{title}, hand {n}: {name} goes out, net {net} for the hand (collected {chips}).",
            title=snapshot.title,
            n=snapshot.hand_no,
            name=snapshot.winner,
            net=net_text(snapshot.winner_net),
            chips=_chips(snapshot.total),
        )
    ]
    melds = []
    for meld in snapshot.melds:
        cards = " ".join(str(c) for c in meld.cards)
        melds.append(f"{cards} ({meld.shown_label})" if meld.shown_label else cards)
    lines.append(tr("Board: {melds}.", melds="; ".join(melds) if melds else tr("no melds")))
    outs = ", ".join(f"{label.lower()} {value}" for label, value in breakdown_lines(snapshot))
    lines.append(tr("Outs per player: {outs}.", outs=outs))
    paid = [f"{who} {_chips(chips)}" + (f" ({items})" if items else "") for who, items, chips in paid_lines(snapshot)]
    if paid:
        collected = f"{tr(COLLECTED).lower()} {_chips(snapshot.total)}"
        lines.append(tr("Paid to the winner: {paid}; {collected}.", paid="; ".join(paid), collected=collected))
    if snapshot.nets:
        nets = ", ".join(f"{n.name} {net_text(n.chips)}" for n in snapshot.nets)
        lines.append(tr("Net for the hand: {nets}.", nets=nets))
    lines.extend(snapshot.notes)
    return "\n".join(lines)
