"""Words every feature shares: player and seat names (escaped for Discord text, plain for images), chip amounts,
cards as text, melds and status pills for the renderer's snapshots, and the few replies every command can give."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pancog.adapter.safety import plain, shown
from pancog.game.cards import Card, format_cards
from pancog.game.i18n import N_, counted, tr
from pancog.game.melds import Meld, meld_value
from pancog.game.queries import declaration_window
from pancog.game.rules import Rules
from pancog.game.state import PlayerStatus, TableState
from renderer import MeldSnapshot, SeatStatus

SOMETHING_WRONG = N_("Something went wrong — the table is unchanged.")
"""Constants are English message ids: the edge (``limits.fitted``) says them in the task's language."""
WITHHELD = N_(
    "That answer was held back: it would have shown something that is not yours to see. The problem is logged; "
    "the game itself is not affected."
)
Names = Mapping[int, str]


def _default_name(player_id: int) -> str:
    if player_id < 0:  # computer players: "🤖 Normal bot 1", derived from the id (no Discord member)
        from pancog.services.bots import computer_name

        return computer_name(player_id)
    return tr("Player {number}", number=player_id % 10000)


def name_of(names: Names, player_id: int | None) -> str:
    """A player's name for Discord text: escaped (Markdown and mentions), capped, never empty."""
    if player_id is None:
        return tr("the floor")
    name = names.get(player_id)
    if name:  # the default ("Player 1234") is only written when the stored name shows nothing
        return shown(name, fallback="") or _default_name(player_id)
    default = _default_name(player_id)
    return shown(default, fallback=default)


def image_name_of(names: Names, player_id: int | None) -> str:
    """A player's name for images: no control or bidirectional characters, capped, never empty (no escaping: the
    renderer draws it as it is)."""
    if player_id is None:
        return tr("the floor")
    default = _default_name(player_id)
    return plain(names.get(player_id) or default) or default


def seat_name(state: TableState, names: Names, seat: int | None) -> str:
    if seat is None:
        return tr("nobody")
    s = state.seat(seat)
    if s is None:
        return tr("seat {number}", number=seat + 1)
    return name_of(names, s.player_id)


def declaration_note(state: TableState, names: Names, seat: int, *, you: bool) -> str:
    """The declaration ``seat`` may still change and until when ('' when he cannot): "You knocked — you can still
    go on top until bob declares." to him (``you``), "alice can still go on top until bob declares." to the table.
    Only what everyone saw (the declarations and the rotation), so it may be PUBLIC."""
    window = declaration_window(state, seat)
    if window is None:
        return ""
    if window.until is None:
        if you:
            if window.playing:
                return tr("You knocked — you can still go on top until the first card is drawn.")
            return tr("You went on top — you can still knock until the first card is drawn.")
        if window.playing:
            return tr("{name} can still go on top until the first card is drawn.", name=seat_name(state, names, seat))
        return tr("{name} can still knock until the first card is drawn.", name=seat_name(state, names, seat))
    until = seat_name(state, names, window.until)
    if you:
        if window.playing:
            return tr("You knocked — you can still go on top until {next} declares.", next=until)
        return tr("You went on top — you can still knock until {next} declares.", next=until)
    name = seat_name(state, names, seat)
    if window.playing:
        return tr("{name} can still go on top until {next} declares.", name=name, next=until)
    return tr("{name} can still knock until {next} declares.", name=name, next=until)


def seat_names(state: TableState, names: Names) -> dict[int, str]:
    """Every occupied seat's player name by seat, plain (a select option's label shows Markdown as typed, so it is
    not escaped): for the labels that name whom a play aims at."""
    return {i: image_name_of(names, s.player_id) for i, s in enumerate(state.seats) if s is not None}


def cards_text(cards: Sequence[Card]) -> str:
    return format_cards(cards, pretty=True)


def plural(n: int, word: str, many: str = "", *, sign: bool = False) -> str:
    """``n`` with its noun, in the language of the task (:func:`pancog.game.i18n.counted`)."""
    return counted(n, word, many, sign=sign)


def chips(n: int) -> str:
    return plural(n, "chip")


def units(n: int) -> str:
    return plural(n, "unit")


def signed(n: int) -> str:
    """A net figure: ``+4``, ``-4``, and ``0`` (never ``+0``) — as the end-of-hand image writes it."""
    return f"{n:+,}" if n else "0"


def status_pill(status: PlayerStatus, *, flat: bool) -> SeatStatus:
    """A dealt-in player's pill (``flat``: ten cards on the board, none in hand)."""
    match status:
        case PlayerStatus.IN:
            return SeatStatus.FLAT if flat else SeatStatus.IN
        case PlayerStatus.RETIRED:
            return SeatStatus.ON_TOP
        case PlayerStatus.FOULED | PlayerStatus.QUIT:
            return SeatStatus.FOULED
        case PlayerStatus.BUSTED:
            return SeatStatus.BUSTED
        case _:
            return SeatStatus.WAITING


def meld_snapshots(melds: Sequence[Meld], rules: Rules) -> tuple[MeldSnapshot, ...]:
    return tuple(
        MeldSnapshot(
            index=m.id, cards=m.cards, value=meld_value(m, rules) if m.valid else 0, label="" if m.valid else "?"
        )
        for m in melds
    )


_MARKUP = re.compile(r"\\(.)|\*\*|__|\|\||~~|`")
_COMPUTER_MARK = "🤖 "


def plain_text(line: str) -> str:
    """A board line without its Discord Markdown (``**bold**``, ``||spoiler||``, escapes), for images."""
    return _MARKUP.sub(lambda m: m.group(1) or "", line)


def image_name(names: Names, player_id: int) -> tuple[str, bool]:
    """(name, is a computer player) for an image: the renderer draws a robot mark, not the 🤖 the font lacks."""
    name = image_name_of(names, player_id)
    if player_id < 0:
        return name.removeprefix(_COMPUTER_MARK), True
    return name, False


DONE = N_("Done.")  # said in the task's language by the edge, as every constant here
