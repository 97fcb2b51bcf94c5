"""Deterministic example snapshots, for tests, the benchmark and previews (`python -m renderer.samples`)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from pancog.game.cards import parse_cards

from .chart import ChartSeries, ChartSnapshot
from .snapshot import (
    HandSnapshot,
    MeldSnapshot,
    NetSnapshot,
    OutcomeSnapshot,
    PanelSnapshot,
    PaymentSnapshot,
    SeatSnapshot,
    SeatStatus,
    TableSnapshot,
)
from .standings import StandingRow, StandingsSnapshot

NAMES = (
    "Rosa",
    "Big Eddie",
    "Mrs. Kawamoto",
    "Lupe",
    "Chuy the Card Shark of Gardena",
    "Hard bot 1",
    "Manny O.",
    "Grace",
    "Tío Beto",
    "Hank",
    "Yolanda",
    "Sam",
    "Fern",
    "Ike",
    "Bea",
)

_MELDS = (
    ("5S 5S 5S", 4, ""),
    ("KH QH JH", 0, ""),
    ("3D 3D 3D 3D", 2, ""),
    ("AC 2C 3C 4C 5C", 0, ""),
    ("7H 7H 7H", 2, ""),
    ("QD QD QD", 1, ""),
    ("AS AH AD", 0, ""),
    ("2S 3S 4S", 2, "+2"),
    ("JC JC JC", 0, ""),
    ("5D 6D 7D JD", 0, ""),
)

_STATUSES = (SeatStatus.IN, SeatStatus.IN, SeatStatus.FOULED, SeatStatus.ON_TOP, SeatStatus.IN, SeatStatus.BUSTED)


def sample_hand(n_cards: int = 10, *, drawn: bool = True, four_color: bool = False) -> HandSnapshot:
    """A hand of ``n_cards`` (up to 11) with a pluck that melds with three of them."""
    cards = parse_cards("KS 3C 5H 5C QD 7S 2H JH 5S AC 6D")[:n_cards]
    meldable = frozenset(i for i, c in enumerate(cards) if c.rank.letter == "5") if drawn else frozenset()
    return HandSnapshot(
        cards=cards,
        drawn=parse_cards("5D")[0] if drawn else None,
        meldable=meldable,
        four_color=four_color,
    )


def sample_table(n_seats: int = 8, n_melds: int = 30, *, four_color: bool = False) -> TableSnapshot:
    """``n_seats`` seats sharing ``n_melds`` melds round-robin; seat 2 to play with 0:17 left."""
    per_seat: list[list[MeldSnapshot]] = [[] for _ in range(n_seats)]
    for m in range(n_melds):
        text, value, label = _MELDS[m % len(_MELDS)]
        seat_melds = per_seat[m % n_seats]
        seat_melds.append(MeldSnapshot(index=len(seat_melds) + 1, cards=parse_cards(text), value=value, label=label))
    to_act = 2 % n_seats
    seats = tuple(
        SeatSnapshot(
            name=NAMES[i],
            chips=20 + 37 * i if i != 4 else 1250,
            computer=NAMES[i].endswith("bot 1"),
            status=_STATUSES[i % len(_STATUSES)] if i != to_act else SeatStatus.IN,
            doubles=i % 5 == 1,
            is_turn=i == to_act,
            melds=tuple(per_seat[i]),
            hand_count=max(0, 10 - len(per_seat[i]) * 3 + i % 3),
        )
        for i in range(n_seats)
    )
    return TableSnapshot(
        title="Gardena Pan",
        hand_no=42,
        seats=seats,
        to_act=to_act,
        clock_seconds=17,
        in_play=parse_cards("5H")[0],
        in_play_by=NAMES[to_act],
        discard=parse_cards("7H")[0],
        discard_count=12,
        stock_count=187,
        singles_tops=n_seats,
        doubles_tops=2,
        notes=("Rosa melded 5S 5S 5S (+4).", "Lupe went on top.", "Big Eddie fouled: refunds 3."),
        four_color=four_color,
    )


def sample_outcome(n_payers: int = 5, *, four_color: bool = False) -> OutcomeSnapshot:
    """Rosa goes out with a bust-out over three melds; ``n_payers`` others pay."""
    melds = (
        MeldSnapshot(index=1, cards=parse_cards("5S 5S 5S"), value=4),
        MeldSnapshot(index=2, cards=parse_cards("2C 3C 4C 5C 6C")),
        MeldSnapshot(index=3, cards=parse_cards("QD QD QD"), value=1),
        MeldSnapshot(index=4, cards=parse_cards("7H 7H 7H"), value=2),
    )
    payments = tuple(
        PaymentSnapshot(
            payer=NAMES[i + 1],
            chips=(11 if i != 1 else 9) + (4 if i % 2 == 0 else 0),
            note=("conditions 4, " if i % 2 == 0 else "")
            + ("outs 7, going out 2, bust-out 2" if i != 1 else "outs 7, going out 2, fouled: no bust-out"),
        )
        for i in range(n_payers)
    )
    nets = (
        NetSnapshot(name=NAMES[0], chips=sum(p.chips for p in payments) + n_payers + 1 - 1),
        *(NetSnapshot(name=p.payer, chips=-p.chips - 1, computer=p.payer.endswith("bot 1")) for p in payments),
    )
    return OutcomeSnapshot(
        title="Gardena Pan",
        hand_no=42,
        winner="Rosa",
        melds=melds,
        winner_net=nets[0].chips,
        conditions=7,
        bust_out=2,
        going_out=2,
        singles_tops=n_payers + 1,
        doubles_tops=0,
        payments=payments,
        nets=nets,
        notes=("Last play made 7H 7H 7H: a bust-out.",),
        four_color=four_color,
    )


def worst_hand() -> HandSnapshot:
    """11 cards, every one marked as meldable, plus a drawn card: the widest hand image."""
    cards = parse_cards("KS 3C 5H 5C QD 7S 2H JH 5S AC 6D")
    return HandSnapshot(cards=cards, drawn=parse_cards("QS")[0], meldable=frozenset(range(len(cards))))


def worst_table() -> TableSnapshot:
    """15 seats, long names, doubles, 7-digit stacks, five long melds with tags on every seat."""
    melds = (
        MeldSnapshot(index=1, cards=parse_cards("AS 2S 3S 4S 5S 6S 7S JS QS KS"), value=8, label="+8"),
        MeldSnapshot(index=2, cards=parse_cards("KH KH KH KD KC KS KS KH KD KC KH KS"), value=0),
        MeldSnapshot(index=3, cards=parse_cards("5S 5S 5S 5S"), value=12),
        MeldSnapshot(index=4, cards=parse_cards("3D 3D 3D"), value=2),
        MeldSnapshot(index=5, cards=parse_cards("7C 7C 7C"), value=1, label="+1 paid"),
    )
    seats = tuple(
        SeatSnapshot(
            name=f"{NAMES[i]} WWWWWWWWWWWWWWWWWWWW",
            chips=1_234_567,
            status=SeatStatus.ON_TOP if i % 2 else SeatStatus.WAITING,
            doubles=True,
            is_turn=i == 14,
            melds=melds,
            hand_count=11,
        )
        for i in range(15)
    )
    base = sample_table(15, 0)
    return TableSnapshot(
        title=base.title,
        hand_no=base.hand_no,
        seats=seats,
        to_act=14,
        clock_seconds=base.clock_seconds,
        in_play=base.in_play,
        in_play_by=seats[14].name,
        in_play_how="taken",
        discard=base.discard,
        discard_count=base.discard_count,
        stock_count=base.stock_count,
        singles_tops=base.singles_tops,
        doubles_tops=base.doubles_tops,
        notes=("x" * 300,) * 5,
    )


def sample_panel(n_seats: int = 3, n_melds: int = 7, n_cards: int = 11) -> PanelSnapshot:
    """The phone panel: a table in play with the viewer's hand (a pluck waiting, three cards that meld with it)."""
    return PanelSnapshot(table=sample_table(n_seats, n_melds), hand=sample_hand(n_cards))


_STANDING_NAMES = (*NAMES[:5], "⚙ Hard 1", "Tío Beto")


def sample_standings(n: int = 7, tables: int = 2) -> StandingsSnapshot:
    """A running tournament's standings: ``n`` players over ``tables`` tables, the leader first."""
    rows = tuple(
        StandingRow(i + 1, _STANDING_NAMES[i % len(_STANDING_NAMES)], 4200 - 300 * i, i % tables + 1) for i in range(n)
    )
    return StandingsSnapshot(
        "Friday Night Pan",
        "Level 4 · ante 30",
        "Next level in 7:42",
        "40 entries · 7 still in · prize pool 4,000",
        False,
        rows,
        tables=tuple((no, n // tables + (no <= n % tables)) for no in range(1, tables + 1)),
    )


def sample_final_standings() -> StandingsSnapshot:
    """A finished tournament: places and prizes, two players sharing second and third."""
    rows = (
        StandingRow(1, "Rosa", 2600),
        StandingRow(2, "Big Eddie", 700),
        StandingRow(2, "Lupe", 700),
        StandingRow(4, "Mrs. Kawamoto", 0),
    )
    return StandingsSnapshot("Friday Night Pan", "Finished", "", "40 entries · prize pool 4,000", True, rows)


def sample_chart() -> ChartSnapshot:
    """A rating chart: a season of 40 rated results (rising with dips), and 120 all time."""
    season = tuple(round(1.5 * i**0.5 - (i % 3) * 0.6, 3) for i in range(40))
    all_time = tuple(round(-2.0 + 0.1 * i - (i % 7) * 0.3, 3) for i in range(120))
    series = (ChartSeries("This season", season), ChartSeries("All time", all_time))
    return ChartSnapshot("Rosa", "Rating 9.4 · Spring league", series)


def main(out_dir: str = "/tmp/pan-samples") -> None:  # noqa: S108 - a preview folder, not a secret
    """Write sample PNGs and their text twins to ``out_dir`` (for looking at by eye)."""
    from . import (
        outcome_text,
        panel_text,
        render_hand_png,
        render_outcome_png,
        render_panel_png,
        render_table_png,
        table_text,
    )
    from .hand import hand_text

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    items = {
        "hand": (render_hand_png(sample_hand()), hand_text(sample_hand())),
        "hand11_four": (render_hand_png(sample_hand(11, four_color=True)), hand_text(sample_hand(11))),
        "table8": (render_table_png(sample_table()), table_text(sample_table())),
        "table15": (render_table_png(sample_table(15, 45)), table_text(sample_table(15, 45))),
        "table15_worst": (render_table_png(worst_table()), table_text(worst_table())),
        "table3": (render_table_png(sample_table(3, 7)), table_text(sample_table(3, 7))),
        "outcome": (render_outcome_png(sample_outcome()), outcome_text(sample_outcome())),
        "table8_portrait": (render_table_png(replace(sample_table(), layout="portrait")), table_text(sample_table())),
        "hand11_portrait": (render_hand_png(replace(sample_hand(11), layout="portrait")), hand_text(sample_hand(11))),
        "panel": (render_panel_png(sample_panel()), panel_text(sample_panel())),
    }
    for name, (png, text) in items.items():
        (out / f"{name}.png").write_bytes(png)
        (out / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(f"wrote {len(items)} samples to {out}\n")


if __name__ == "__main__":
    main(*sys.argv[1:2])
