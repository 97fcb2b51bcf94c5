"""Counts read right everywhere a player sees one: "1 chip", "1 unit", "1 entry", never "1 chips" or "unit(s)".

Every presenter, renderer text and rules line that writes a count goes through one helper
(``pancog.game.words.plural``); here each is called with a count of 1 (and of 2) and read back."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from pancog.adapter.presenters import hand as hand_words
from pancog.adapter.presenters import league, tournament
from pancog.adapter.presenters.replay import summary_line
from pancog.adapter.presenters.table import confirm_leave_undeclared, practice_opened
from pancog.adapter.presenters.table_events import describe_events
from pancog.game import Rules, Sit, StartHand, TableState, apply, describe_rules, initial_state
from pancog.game.events import Melded, MeldPlayKind, StockReshuffled
from pancog.game.rules import PRESETS
from pancog.game.words import plural
from pancog.services.health import HealthReport, TableHealth
from pancog.services.league.service import Board, BoardLine, Metric
from pancog.services.replay import HandSummary
from renderer import SeatSnapshot, SeatStatus, table_text
from renderer.outcome import breakdown_lines
from renderer.samples import sample_outcome, sample_table

NOUNS = "chips|units|hands|cards|players|actions|entries|wins|timeouts|sets|tables|more tables"
WRONG = re.compile(rf"(?<![\d,.])[+-]?1 ({NOUNS})\b|\b1 [\w ]*computer players\b|\(s\)|\bentrys\b")


def _board(metric: Metric) -> Board:
    return Board(metric=metric, period="all", season=None, lines=(), caller=None)


def test_the_helper() -> None:
    assert [plural(n, "chip") for n in (0, 1, 2, 1000)] == ["0 chips", "1 chip", "2 chips", "1,000 chips"]
    assert plural(1, "entry", "entries") == "1 entry" and plural(3, "entry", "entries") == "3 entries"
    assert plural(1, "chip", sign=True) == "+1 chip" and plural(-1, "chip", sign=True) == "-1 chip"


def three_seats() -> TableState:
    s = initial_state(Rules())
    for i in range(3):
        s = apply(s, Sit(seat=i, player_id=i + 1, buy_in=100)).state
    return apply(s, StartHand(seed=3, first_seat=0)).state


def one_texts() -> list[str]:
    """Every text with a count, written with a count of 1."""
    state = three_seats()
    names = {1: "Ana", 2: "Bo", 3: "Cy"}
    texts = [
        describe_events(state, state, names, [StockReshuffled(seq=1, count=1)])[0],
        practice_opened(opponents=1, level="easy", real_chips=False, next_hand_delay=None),
        confirm_leave_undeclared(1, 1),
        tournament.tourney_bots_added(1, "T"),
        tournament.tourney_cancelled("T", 1),
        tournament.tourney_registered("T", 1, 5, False),
        tournament.tourney_unregistered("T", 1),
        tournament.tourney_announcement("T", "sng", 1, 0, 6, 1, 0, None, "registering", "Ana"),
        tournament.tourney_list_text([("T", "registering", 1, "#pan")]),
        league._league_value(_board("wins"), BoardLine(rank=1, user_id=1, value=1)),
        league._league_value(_board("net"), BoardLine(rank=1, user_id=1, value=1)),
        summary_line(
            HandSummary(hand_no=1, first_seq=1, last_seq=2, dealt=(1,), ended=None, winner_id=None, actions=1), names
        ),
        *describe_rules(Rules(ante_chips=1, rake=1, retire_forfeit_chips=1, going_out_units=1, abandon_timeouts=1)),
        *describe_rules(PRESETS["online"]),
        table_text(sample_table(3, 7)),
        "\n".join(v for _, v in breakdown_lines(sample_outcome(5))),
    ]
    seat = SeatSnapshot(name="Ana", chips=1, status=SeatStatus.IN, hand_count=1)
    texts.append(table_text(replace(sample_table(3, 7), seats=(seat,), to_act=None, stock_count=1)))
    melded = Melded(seq=1, seat=0, kind=MeldPlayKind.NEW, melds=(), cards=(), drawn=None, units=1)
    texts.append(hand_words.private_result(state, state, 0, [melded], to_act=None))
    texts.append(describe_events(state, state, names, [melded])[0])
    table = TableHealth(
        table_id=1, guild_id=1, channel_id=1, players=2, hand_no=1, in_hand=False, to_act=None, seconds_left=None,
        away=0, last_error=None, last_error_at=None,
    )  # fmt: skip
    texts.append(HealthReport(now=0.0, started_at=0.0, tables=(table,) * 16).summary().splitlines()[-1])
    return texts


@pytest.mark.parametrize("index", range(len(one_texts())))
def test_a_count_of_one_reads_right(index: int) -> None:
    text = one_texts()[index]
    assert not WRONG.search(text), text


def test_the_checks_read_the_counts() -> None:
    """The texts above do hold counts of 1 (so the test is not vacuous)."""
    joined = "\n".join(one_texts())
    for phrase in ("1 card from", "1 easy computer player,", "1 computer player registered", "1 entry", "1 chip"):
        assert phrase in joined, phrase
    assert "1 win" in joined and "worth 1 unit." in joined and "1 player, 1 action" in joined
    assert "Stock: 1 card." in joined and "1 card in hand" in joined and "… and 1 more table" in joined
