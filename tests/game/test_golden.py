"""Golden transcripts: complete hands in notation (``transcripts/*.pan``) replay to the checked-in event logs.

Each ``NAME.pan`` is a transcript (rules line, one action per line, ``#`` comments); ``NAME.events``
beside it is the expected event log, one ``format_event`` line per event. To regenerate the event
logs after an intended engine change, run ``PAN_UPDATE_GOLDEN=1 .venv/bin/python -m pytest
tests/game/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pancog.game import ChipsMoved, EndReason, HandEnded, Sit, format_event
from pancog.game.notation import Transcript, dump_transcript, load_transcript, replay

HERE = Path(__file__).resolve().parent / "transcripts"
UPDATE = os.environ.get("PAN_UPDATE_GOLDEN") == "1"
TRANSCRIPTS = sorted(p.stem for p in HERE.glob("*.pan"))
ENDINGS = {
    "plain_bust_out": EndReason.OUT,
    "option_force_back": EndReason.OUT,
    "foul_split": EndReason.SPLIT,
    "doubles": EndReason.OUT,
}


def test_the_four_golden_hands_exist() -> None:
    """At least the four hands of the issue: bust-out, option + force-back, foul + split, doubles."""
    assert set(ENDINGS) <= set(TRANSCRIPTS)


@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_transcript_replays_to_golden_events(name: str) -> None:
    """Replaying the transcript gives exactly the checked-in event log, and the hand is complete."""
    t = load_transcript((HERE / f"{name}.pan").read_text(encoding="utf-8"))
    state, events = replay(t.rules, t.actions)
    got = "".join(format_event(e) + "\n" for e in events)
    golden = HERE / f"{name}.events"
    if UPDATE:
        golden.write_text(got, encoding="utf-8")
    assert golden.exists(), f"missing {golden.name}: run with PAN_UPDATE_GOLDEN=1"
    assert got == golden.read_text(encoding="utf-8")
    assert state.hand is None, "a golden transcript is a complete hand"
    ended = [e for e in events if isinstance(e, HandEnded)]
    assert len(ended) == 1 and ended[0].reason is ENDINGS.get(name, ended[0].reason)
    # chips only moved between accounts (buy-ins aside): the stacks and pots add up
    moved = [e for e in events if isinstance(e, ChipsMoved)]
    assert all(e.amount > 0 for e in moved)
    buy_ins = sum(a.buy_in for a in t.actions if isinstance(a, Sit))
    total = sum(s.stack for s in state.seats if s is not None) + state.singles_tops + state.doubles_tops + state.house
    assert total == buy_ins


@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_transcript_round_trip(name: str) -> None:
    """load(dump(x)) == x for every golden transcript (comments aside)."""
    t = load_transcript((HERE / f"{name}.pan").read_text(encoding="utf-8"))
    again = load_transcript(dump_transcript(t.rules, t.actions))
    assert again == Transcript(rules=t.rules, actions=t.actions)
    assert dump_transcript(again.rules, again.actions) == dump_transcript(t.rules, t.actions)
    # with the events appended, the transcript also carries the event lines
    _state, events = replay(t.rules, t.actions)
    full = load_transcript(dump_transcript(t.rules, t.actions, events))
    assert full.actions == t.actions and list(full.events) == [format_event(e) for e in events]
