"""Golden transcripts: complete hands in notation (``transcripts/*.pan``) replay to the checked-in event logs.

Each ``NAME.pan`` is a transcript (rules line, one action per line, ``#`` comments); ``NAME.events``
beside it is the expected event log, one ``format_event`` line per event. To regenerate the event
logs after an intended engine change, run ``PAN_UPDATE_GOLDEN=1 .venv/bin/python -m pytest
tests/game/test_golden.py``: every changed file is written and its test fails showing the diff;
review it (``git diff``) and run again without the variable. The hand-written expectations of
``test_rules_cases.py`` are never regenerated.
"""

from __future__ import annotations

import difflib
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


def update_golden(path: Path, text: str) -> None:
    """Update mode never approves itself: a changed (or new) golden file is written, then the test
    fails with the diff, so the change is reviewed (``git diff``) and the suite re-run without
    PAN_UPDATE_GOLDEN before anything passes. An unchanged file passes and is not rewritten."""
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old == text:
        return
    path.write_text(text, encoding="utf-8")
    diff = "".join(difflib.unified_diff((old or "").splitlines(True), text.splitlines(True), "golden", "now", n=1))
    pytest.fail(
        f"PAN_UPDATE_GOLDEN: wrote {path.name}; review the change and run again without PAN_UPDATE_GOLDEN.\n{diff}",
        pytrace=False,
    )


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
        update_golden(golden, got)
    assert golden.exists(), f"missing {golden.name}: run with PAN_UPDATE_GOLDEN=1, then review it"
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


def test_update_mode_writes_and_still_fails(tmp_path: Path) -> None:
    """A changed golden file is written and the test fails; an unchanged one passes untouched."""
    golden = tmp_path / "x.events"
    golden.write_text("1 old\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match="review the change"):
        update_golden(golden, "1 new\n")
    assert golden.read_text(encoding="utf-8") == "1 new\n"
    update_golden(golden, "1 new\n")  # now equal: passes
    missing = tmp_path / "y.events"
    with pytest.raises(pytest.fail.Exception, match=r"\+1 new"):
        update_golden(missing, "1 new\n")
    assert missing.exists()
