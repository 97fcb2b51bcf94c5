"""The tournament standings image: ``/tourney info`` and the results message.

The adapter builds a :class:`StandingsSnapshot` from the service's picture (already worded, names as shown on
Discord; see ``presenters.tourney_standings``) and renders it on the render queue with
:func:`render_standings_png`; :func:`standings_text` is its text twin, sent as the attachment's description
(alt text). Pure Pillow, no discord. Sized for a phone: 480 px wide, so a 400 px wide chat column shows the row
text at about 17 px.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from pancog.game.i18n import N_, speaking, tr
from renderer.assets import fit_text, paste_text, text_width, to_png
from renderer.stats import FELT, GOLD, INK, MUTED, PANEL  # the card palette of the /pan stats card
from renderer.text import image_text

__all__ = [
    "MAX_ROWS",
    "StandingRow",
    "StandingsSnapshot",
    "render_standings",
    "render_standings_png",
    "standings_text",
]

WIDTH = 480
PAD = 20
TITLE = 26
SMALL = 17
ROW = 20
LINE = 30
HEAD = 15
MAX_ROWS = 20  # rows drawn; the rest are counted ("… and 12 more")
PLACE_W = 40  # the place column, right-aligned
TABLE_W = 52  # the table column ("T12"), right-aligned


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line: a place (equal places repeat), a name, chips (a stack while running, a prize once finished), and
    the table while running."""

    place: int
    name: str
    chips: int
    table: int | None = None


@dataclass(frozen=True, slots=True)
class StandingsSnapshot:
    """A tournament's standings: title, a status line (level, ante), the clock line (time to the next level), the
    field line (entries, players left, prize pool), the rows, how many rows were left out, and the open tables as
    (table number, players seated). Before the start (``started`` false) there are no places or chips yet: the
    image lists ``registered`` instead, the players in the order they registered."""

    title: str
    status: str
    clock: str
    field: str
    finished: bool
    rows: tuple[StandingRow, ...]
    more: int = 0
    tables: tuple[tuple[int, int], ...] = ()
    started: bool = True
    registered: tuple[str, ...] = ()
    lang: str = "en"  # the language of the image's words (a render worker does not share the task's)


NOBODY_REGISTERED = N_("Nobody has registered yet.")


def _rows(snap: StandingsSnapshot) -> tuple[tuple[StandingRow, ...], int]:
    if not snap.started:  # the registered players, numbered in the order they registered
        listed = tuple(StandingRow(n, name, 0) for n, name in enumerate(snap.registered, 1))
        return listed[:MAX_ROWS], max(0, len(listed) - MAX_ROWS)
    return snap.rows[:MAX_ROWS], snap.more + max(0, len(snap.rows) - MAX_ROWS)


def _amount(snap: StandingsSnapshot, row: StandingRow) -> str:
    if snap.finished:
        return tr("wins {prize}", prize=f"{row.chips:,}") if row.chips else "—"
    return f"{row.chips:,}"


def _tables_line(tables: tuple[tuple[int, int], ...]) -> str:
    return tr("Tables (players): {tables}", tables=", ".join(f"{no} ({n})" for no, n in tables))


def standings_text(snap: StandingsSnapshot) -> str:
    """The text twin of the image: the same lines and rows, in the same order (the attachment's alt text)."""
    with speaking(snap.lang):
        return _standings_text(snap)


def _standings_text(snap: StandingsSnapshot) -> str:
    lines = [f"{snap.title} — {snap.status}"]
    lines += [line for line in (snap.clock, snap.field) if line]
    rows, more = _rows(snap)
    if not snap.started:
        lines.append(tr("Registered: {n}", n=len(snap.registered)) if snap.registered else tr(NOBODY_REGISTERED))
        lines += [f"{row.place}. {row.name}" for row in rows]
    for row in rows if snap.started else ():
        table = tr(" (table {number})", number=row.table) if row.table is not None else ""
        lines.append(f"{row.place}. {row.name} — {_amount(snap, row)}{table}")
    if more:
        lines.append(tr("… and {n} more", n=more))
    if snap.tables:
        lines.append(_tables_line(snap.tables))
    return "\n".join(lines)


def _wrap(text: str, size: int, width: int) -> list[str]:
    """``text`` broken at ", " into lines of at most ``width`` pixels (a single piece too long is ellipsised)."""
    lines: list[str] = []
    current = ""
    for piece in text.split(", "):
        candidate = f"{current}, {piece}" if current else piece
        if current and text_width(candidate, "regular", size) > width:
            lines.append(current + ",")
            current = piece
        else:
            current = candidate
    if current:
        lines.append(current)
    return [fit_text(line, "regular", size, width) for line in lines]


def render_standings_png(snap: StandingsSnapshot) -> bytes:
    """:func:`render_standings` as PNG bytes (what the render queue runs)."""
    return to_png(render_standings(snap))


def render_standings(snap: StandingsSnapshot) -> Image.Image:
    """The standings image: title, status and clock lines, a header, one striped row per place (the leader in
    gold), then the open tables."""
    with speaking(snap.lang):
        return _render_standings(snap)


def _render_standings(snap: StandingsSnapshot) -> Image.Image:
    inner = WIDTH - 2 * PAD
    rows, more = _rows(snap)
    info = [(line, INK if i == 0 else MUTED) for i, line in enumerate((snap.status, snap.clock, snap.field)) if line]
    tables = _wrap(_tables_line(snap.tables), SMALL, inner) if snap.tables else []
    height = PAD + TITLE + 10 + len(info) * (SMALL + 8) + 8 + HEAD + 10 + LINE * max(1, len(rows))
    height += (SMALL + 10) * (bool(more) + len(tables)) + PAD
    im = Image.new("RGB", (WIDTH, height), FELT)
    paste_text(im, (PAD, PAD), image_text(snap.title, "bold", TITLE, inner), "bold", TITLE, GOLD, cache=False)
    y = PAD + TITLE + 10
    for line, colour in info:
        paste_text(im, (PAD, y), image_text(line, "regular", SMALL, inner), "regular", SMALL, colour, cache=False)
        y += SMALL + 8
    y += 8
    right = WIDTH - PAD
    amount_right = right if snap.finished else right - TABLE_W - 8
    paste_text(im, (PAD, y), "#", "bold", HEAD, MUTED)
    if not snap.started:  # no chips or tables yet: who is registered
        heading = tr("Registered ({n})", n=len(snap.registered)) if snap.registered else tr(NOBODY_REGISTERED)
        paste_text(im, (PAD + PLACE_W + 8, y), heading, "bold", HEAD, MUTED, cache=False)
        y += HEAD + 10
        for i, row in enumerate(rows):
            if i % 2 == 0:
                im.paste(PANEL, (PAD // 2, y - 5, WIDTH - PAD // 2, y + LINE - 5))
            place = f"{row.place}."
            paste_text(im, (PAD + PLACE_W - text_width(place, "bold", ROW), y), place, "bold", ROW, INK)
            name_x = PAD + PLACE_W + 8
            name = image_text(row.name, "regular", ROW, right - name_x)
            paste_text(im, (name_x, y), name, "regular", ROW, INK, cache=False)
            y += LINE
        if not rows:
            y += LINE
        for line in [tr("… and {n} more", n=more)] if more else []:
            paste_text(im, (PAD, y), line, "regular", SMALL, MUTED, cache=False)
        return im
    paste_text(im, (PAD + PLACE_W + 8, y), tr("Player"), "bold", HEAD, MUTED)
    label = tr("Prize") if snap.finished else tr("Chips")
    paste_text(im, (amount_right - text_width(label, "bold", HEAD), y), label, "bold", HEAD, MUTED)
    if not snap.finished:
        table_head = tr("Table")
        paste_text(im, (right - text_width(table_head, "bold", HEAD), y), table_head, "bold", HEAD, MUTED)
    y += HEAD + 10
    for i, row in enumerate(rows):
        if i % 2 == 0:
            im.paste(PANEL, (PAD // 2, y - 5, WIDTH - PAD // 2, y + LINE - 5))
        colour = GOLD if row.place == 1 else INK
        place = f"{row.place}."
        paste_text(im, (PAD + PLACE_W - text_width(place, "bold", ROW), y), place, "bold", ROW, colour)
        amount = _amount(snap, row)
        amount_w = text_width(amount, "bold", ROW)
        paste_text(im, (amount_right - amount_w, y), amount, "bold", ROW, colour, cache=False)
        if row.table is not None and not snap.finished:
            table = f"T{row.table}"
            paste_text(im, (right - text_width(table, "regular", ROW), y), table, "regular", ROW, MUTED)
        name_x = PAD + PLACE_W + 8
        name = image_text(row.name, "regular", ROW, amount_right - amount_w - 12 - name_x)
        paste_text(im, (name_x, y), name, "regular", ROW, colour, cache=False)
        y += LINE
    if not rows:
        y += LINE
    for line in ([tr("… and {n} more", n=more)] if more else []) + tables:
        paste_text(im, (PAD, y), line, "regular", SMALL, MUTED, cache=False)
        y += SMALL + 10
    return im
