"""Snapshots cross to the render processes pickled: compactly (cards as their index in the pack, snapshots as
their fields, `renderer.snapshot`), and they come back equal, validated, with the pack's own card objects."""

from __future__ import annotations

# ruff: noqa: S301 - pickles made by the test itself
import copyreg
import pickle
import subprocess
import sys
from dataclasses import replace

import pytest

from pancog.game.cards import ALL_CARDS, Card
from renderer import render_table_png
from renderer.samples import sample_hand, sample_outcome, sample_panel, sample_table, worst_hand, worst_table
from renderer.snapshot import _INIT_FIELDS, HandSnapshot, TableSnapshot, rebuild

SNAPSHOTS = [
    sample_hand(10),
    worst_hand(),
    sample_table(2, 6),
    sample_table(8, 30),
    worst_table(),
    sample_outcome(14),
    sample_panel(),  # the phone panel (a table and a hand, both portrait once drawn)
    replace(sample_table(3, 7), layout="portrait"),
]


@pytest.mark.parametrize("snap", SNAPSHOTS, ids=lambda s: type(s).__name__)
def test_a_pickled_snapshot_comes_back_equal(snap: object) -> None:
    back = pickle.loads(pickle.dumps(snap))
    assert back == snap and type(back) is type(snap)


def test_cards_come_back_as_the_packs_objects_and_the_bytes_are_fewer() -> None:
    snap = sample_table(8, 30)
    back = pickle.loads(pickle.dumps(snap))
    cards = [c for seat in back.seats for meld in seat.melds for c in meld.cards]
    assert cards and all(any(c is p for p in ALL_CARDS) for c in cards)
    assert Card in copyreg.dispatch_table and TableSnapshot in copyreg.dispatch_table
    reducers = {cls: copyreg.dispatch_table.pop(cls) for cls in list(copyreg.dispatch_table) if cls.__module__ in (
        "renderer.snapshot", "pancog.game.cards")}  # fmt: skip
    try:
        default = len(pickle.dumps(snap))
    finally:
        copyreg.dispatch_table.update(reducers)
    assert len(pickle.dumps(snap)) < 0.8 * default


def test_an_invalid_pickled_snapshot_is_refused_on_the_way_back() -> None:
    """Rebuilt through the constructor, so its checks run again: a pickle claiming a meldable index outside
    the hand is refused when loaded, as the constructor refuses it."""
    good = sample_hand(3)
    values = [getattr(good, name) for name in _INIT_FIELDS[HandSnapshot]]
    values[list(_INIT_FIELDS[HandSnapshot]).index("meldable")] = frozenset({7})

    class Forged:
        def __reduce__(self) -> tuple[object, ...]:
            return rebuild, (HandSnapshot, *values)

    with pytest.raises(ValueError, match="meldable"):
        pickle.loads(pickle.dumps(Forged()))
    assert pickle.loads(pickle.dumps(good)) == good


def test_another_process_draws_the_same_png_from_the_pickle() -> None:
    """What a render worker does: import the renderer fresh, unpickle, draw. Same bytes as drawn here."""
    snap = replace(sample_table(6, 20), notes=("Rosa melded 5S 5S 5S (+4).", "Lupe went on top."))
    code = "import pickle, sys; from renderer import render_table_png; "
    code += "sys.stdout.buffer.write(render_table_png(pickle.loads(sys.stdin.buffer.read())))"
    out = subprocess.run(
        [sys.executable, "-c", code], input=pickle.dumps(snap), capture_output=True, check=True, timeout=120
    )
    assert out.stdout == render_table_png(snap)
