"""The edge's information-flow check: what it costs on every payload the bot sends.

Run: .venv/bin/python -m bench.edge [--runs N] [--cpu]
Pins itself to one CPU core. Plays an 8-seat hand from a seeded deal (bench/replay.py's long hand), then at every
step checks, as ``pancog/adapter/edge.py`` does before a send (what the audience may know: ``KnowledgeService.of``;
the payload read: ``payload_of``; the check: ``breach``), the payloads the bot sends most:

- the public board: its line, the table image (its card record read from the PNG) and its buttons;
- a player's My hand panel: the text twin, the hand image and the selects of every legal play (best first);
- the hand's readable transcript for one player (the document /pan history attaches), once per run.

Also printed: ordering a panel's legal plays best first (``ordered_legal``, the normal level's evaluation of every
play), the main process's share of a panel that is not the check.

Printed beside the cost of drawing the board the check guards (table_snapshot + render + PNG), so the figure can
be read as a share of the work a payload costs anyway.
"""

from __future__ import annotations

import io
import platform
import statistics
import time
from collections.abc import Callable

import discord

from bench.replay import NAMES, PLAYERS, empty_log, long_hand, options
from pancog.adapter import edge
from pancog.adapter.presenters.hand import action_label, hand_snapshot
from pancog.adapter.presenters.replay import transcript_section
from pancog.adapter.presenters.table import board_text, table_snapshot
from pancog.game import engine
from pancog.game.state import TableState
from pancog.services.bots import ordered_legal
from pancog.services.knowledge import Audience, KnowledgeService
from pancog.services.replay import HandRecord, build_replay
from renderer import hand_text, render_hand_png, render_table, render_table_png, to_png

_clock = time.perf_counter


def _p99(xs: list[float]) -> float:
    return xs[min(len(xs) - 1, round(0.99 * (len(xs) - 1)))]


Sent = tuple[str, dict[str, object]]
"""(content, the send's keyword arguments): what a cog hands the edge."""


def board_payload(state: TableState) -> Sent:
    snap = table_snapshot(state, NAMES, title="Bench")
    png = render_table_png(snap)
    view = discord.ui.View()
    for label in ("Draw", "Take", "My hand", "Leave", "Text view"):
        view.add_item(discord.ui.Button(label=label, custom_id=f"pan:t:7:{label}"))
    text = board_text(state, NAMES, title="Bench", lines=[], host_id=PLAYERS[0])
    return text, {"file": discord.File(io.BytesIO(png), filename="table.png"), "view": view}


def panel_payload(state: TableState, seat: int) -> Sent:
    obs = engine.observe(state, seat)
    plays = ordered_legal(obs)
    snap = hand_snapshot(state, seat, plays=plays)
    png = render_hand_png(snap)
    view = discord.ui.View()
    options = [discord.SelectOption(label=action_label(a, p), value=str(i)) for i, (a, p) in enumerate(plays[:25])]
    if options:
        view.add_item(discord.ui.Select(custom_id="pan:t:7:play", options=options))
    text = f"Hand 1. {hand_text(snap)}"
    return text, {"file": discord.File(io.BytesIO(png), filename="hand.png"), "view": view}


def main() -> None:
    args = options()
    global _clock
    if args.cpu:
        _clock = time.process_time
    texts, states = long_hand(args.min_actions)
    log = empty_log()
    log.extend([(i + 1, text, "") for i, text in enumerate(texts)])
    service = KnowledgeService()
    everyone, ana = Audience.everyone(), Audience.person(PLAYERS[0])
    boards = [board_payload(s) for s in states[:-1]]  # built once: only the check is timed
    seat_of_ana = 0
    panels = [panel_payload(s, seat_of_ana) for s in states[:-1]]
    replay = build_replay(log, 1, PLAYERS[0])
    record = HandRecord(replay=replay, times=(None,) * len(replay.steps))
    document = edge.Document("h.txt", [(1, transcript_section(record, NAMES, PLAYERS[0]))])
    transcript: Sent = ("", {"file": document})
    render_table(table_snapshot(states[0], NAMES, title="Bench"))  # warm the sprites and fonts

    def check(state: TableState, audience: Audience, sent: Sent) -> None:
        """What the edge does before a send: read the payload, what its audience may know, the check."""
        content, kwargs = sent
        payload = edge.payload_of(content, **kwargs)
        known = service.of(state, audience)
        found = edge.breach(payload, known)
        assert found is None, found  # the bot's own payloads are within what their audience may know

    results: dict[str, list[float]] = {"board": [], "panel": [], "transcript": [], "render": [], "rank": []}
    ana_turns = [obs for s in states[:-1] if len((obs := engine.observe(s, seat_of_ana)).legal) >= 2]

    def timed(key: str, fn: Callable[[], object]) -> None:
        start = _clock()
        fn()
        results[key].append((_clock() - start) * 1e6)

    for _ in range(args.runs):
        for i, state in enumerate(states[:-1]):  # interleaved, so machine noise hits all alike
            timed("board", lambda s=state, p=boards[i]: check(s, everyone, p))  # type: ignore[misc]
            timed("panel", lambda s=state, p=panels[i]: check(s, ana, p))  # type: ignore[misc]
            timed("render", lambda s=state: to_png(render_table(table_snapshot(s, NAMES, title="Bench"))))  # type: ignore[misc]
        for obs in ana_turns:
            timed("rank", lambda o=obs: ordered_legal(o))  # type: ignore[misc]
        timed("transcript", lambda: check(log.state, ana, transcript))
    clock = "CPU time" if args.cpu else "wall time"
    n = len(states) - 1
    print(f"Python {platform.python_version()}, discord.py {discord.__version__}, 1 core, {clock}")
    print(f"hand: 8 seats, {n} steps; transcript {len(document.sections[0][1]):,} characters")
    print("| figure | median / p99 µs |")
    print("|---|---|")
    for key, label in (
        ("board", "check of the public board (line + table PNG + buttons), everyone"),
        ("panel", "check of a My hand panel (text + hand PNG + 25-option select), the player"),
        ("transcript", "check of a hand's readable transcript, the player"),
        ("render", "drawing the board (table_snapshot + render + PNG), for scale"),
        ("rank", f"ordering a My hand panel's legal plays best first ({len(ana_turns)} states with 2 or more)"),
    ):
        xs = sorted(results[key])
        print(f"| {label} | {statistics.median(xs):,.0f} / {_p99(xs):,.0f} |")


if __name__ == "__main__":
    main()
