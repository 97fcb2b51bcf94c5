"""The tournament standings image (issue 15): a layout that keeps its width and caps its rows, hostile names, and a
text twin (the alt text) with the same rows in the same order. Its golden images are cases of test_render.py."""

from __future__ import annotations

import io
import re
from dataclasses import replace

from PIL import Image

from pancog.adapter.presenters.tournament import tourney_standings
from pancog.services.tournaments.model import Format, Status
from pancog.services.tournaments.service import TournamentInfo
from renderer.samples import sample_final_standings as finished
from renderer.samples import sample_standings as running
from renderer.standings import (
    MAX_ROWS,
    WIDTH,
    StandingRow,
    StandingsSnapshot,
    render_standings_png,
    standings_text,
)


def image(snap: StandingsSnapshot) -> Image.Image:
    return Image.open(io.BytesIO(render_standings_png(snap))).convert("RGB")


def test_width_is_fixed_rows_grow_the_height_up_to_the_cap() -> None:
    """Phone width whatever the field; one more row, one row taller; past MAX_ROWS only a "… and N more" line."""
    small, more = image(running(3, 1)), image(running(4, 1))
    capped, huge = image(running(MAX_ROWS, 25)), image(running(200, 25))
    assert {small.width, more.width, capped.width, huge.width} == {WIDTH}
    assert more.height > small.height
    assert 0 < huge.height - capped.height <= 40  # the "more" line, not 180 rows
    assert len(render_standings_png(running(200, 25))) < 200 * 1024
    assert len(small.getcolors(maxcolors=10_000) or ()) > 4  # text was drawn, not a blank felt


def test_the_leader_is_drawn_in_gold_and_the_others_are_not() -> None:
    def gold_rows(snap: StandingsSnapshot) -> int:
        """Pixel rows below the title with gold-ish ink in the place column (the PNG palette shifts colours)."""
        im = image(snap)
        return sum(
            1
            for y in range(120, im.height)
            if any((p := im.getpixel((x, y)))[0] > 200 and p[2] < 150 for x in range(20, 70))  # type: ignore[index]
        )

    snap = running(5, 1)
    nobody_first = replace(snap, rows=tuple(replace(r, place=r.place + 1) for r in snap.rows))
    assert gold_rows(snap) > 5 and gold_rows(nobody_first) == 0


def test_hostile_names_are_drawn_safely_and_kept_in_the_text_twin() -> None:
    """A name with overrides, zero-width characters, Zalgo marks, emoji and 300 letters is cleaned and ellipsised
    (image_text): the image keeps its size and the chips and table columns are pixel for pixel those of a plain
    name; the text twin keeps the name as given."""
    evil = "Ev\u202eil\u200b" + "a" + "\u0301" * 30 + "🤖" * 3 + "x" * 300
    plain = StandingsSnapshot("T", "Level 1 · ante 10", "", "2 entries", False, (StandingRow(1, "Evil", 10, 1),))
    hostile = replace(plain, rows=(StandingRow(1, evil, 10, 1),))
    a, b = image(plain), image(hostile)
    assert a.size == b.size
    columns = (WIDTH - 110, 0, WIDTH, a.height)  # "10" and "T1": right of where a name may end
    assert a.crop(columns).tobytes() == b.crop(columns).tobytes()
    assert a.tobytes() != b.tobytes()  # the name itself was drawn differently
    assert evil in standings_text(hostile)


def test_text_twin_has_the_same_rows_in_the_same_order() -> None:
    snap = running(MAX_ROWS + 5, 3)
    text = standings_text(snap)
    lines = text.splitlines()
    assert lines[0] == "Friday Night Pan — Level 4 · ante 30" and lines[1] == "Next level in 7:42"
    rows = [line for line in lines if re.match(r"\d+\. ", line)]
    assert rows[0] == "1. Rosa — 4,200 (table 1)" and len(rows) == MAX_ROWS
    assert "… and 5 more" in lines and lines[-1] == "Tables (players): 1 (9), 2 (8), 3 (8)"
    done = standings_text(finished())
    assert "1. Rosa — wins 2,600" in done and "2. Lupe — wins 700" in done and "4. Mrs. Kawamoto — —" in done


def info(**changes: object) -> TournamentInfo:
    base: dict[str, object] = {
        "tournament_id": 9,
        "title": "Big",
        "format": Format.SCHEDULED,
        "status": Status.RUNNING,
        "level": 3,
        "ante": 20,
        "on_break": False,
        "paused": False,
        "seconds_to_next_level": 125.4,
        "entries": 12,
        "alive": 4,
        "prize_pool": 1200,
        "prizes": (780, 420),
        "registration_open": False,
        "chips": ((1, 900, 1), (2, 500, 2), (3, 500, 1), (4, 100, 2)),
        "tables": ((1, (1, 3)), (2, (2, 4))),
        "results": (),
    }
    return TournamentInfo(**(base | changes))  # type: ignore[arg-type]


def test_the_snapshot_of_a_running_and_a_finished_tournament() -> None:
    """Equal stacks share a place; the clock line says paused or break; once finished the rows are the prizes."""
    names = {1: "Ana", 2: "Bo", 3: "Cy", 4: "Di"}
    snap = tourney_standings(info(), names.__getitem__, "Big")
    assert [(r.place, r.name, r.chips, r.table) for r in snap.rows] == [
        (1, "Ana", 900, 1),
        (2, "Bo", 500, 2),
        (2, "Cy", 500, 1),
        (4, "Di", 100, 2),
    ]
    assert (snap.status, snap.clock, snap.tables) == ("Level 3 · ante 20", "Next level in 2:05", ((1, 2), (2, 2)))
    assert tourney_standings(info(paused=True), names.__getitem__, "Big").clock == "Clock paused by the host"
    assert "break" in tourney_standings(info(on_break=True), names.__getitem__, "Big").clock
    over = info(status=Status.FINISHED, chips=(), tables=(), results=((3, 1, 780), (1, 2, 420), (2, 3, 0)))
    done = tourney_standings(over, names.__getitem__, "Big")
    assert done.finished and done.clock == "" and done.status == "Finished"
    assert [(r.place, r.name, r.chips) for r in done.rows] == [(1, "Cy", 780), (2, "Ana", 420), (3, "Bo", 0)]


def test_before_the_start_the_standings_say_who_is_registered() -> None:
    """No bare headers before the start: the image and its twin list the registered players in registration order,
    or say that nobody has registered yet."""
    names = {1: "Ana", 2: "Bo", 3: "Cy"}
    waiting = info(status=Status.REGISTERING, chips=(), tables=(), entries=3, alive=0, registered=(3, 1, 2))
    snap = tourney_standings(waiting, names.__getitem__, "Big")
    assert not snap.started and snap.registered == ("Cy", "Ana", "Bo")
    text = standings_text(snap)
    assert "Registered: 3" in text and "1. Cy" in text and "3. Bo" in text and "still in" not in text
    empty = tourney_standings(replace(waiting, registered=(), entries=0), names.__getitem__, "Big")
    assert "Nobody has registered yet." in standings_text(empty)
    listed, nobody, headers = image(snap), image(empty), image(replace(snap, started=True, registered=()))
    assert listed.height > nobody.height  # a row per registered player
    assert listed.tobytes() != headers.tobytes() and nobody.tobytes() != headers.tobytes()  # not the bare headers
    crowd = replace(snap, registered=tuple(f"P{i}" for i in range(MAX_ROWS + 4)))
    assert "… and 4 more" in standings_text(crowd)
    assert image(crowd).height > listed.height
