"""A finished, shared hand as JSON: an open hand-history format (``pan-hand-history`` version 1, docs/leagues.md).

Built from a :class:`~pancog.services.replay.HandReplay` for the public viewer, so it holds what a stranger saw at
the table and nothing else: who sat where, every step's public events (engine notation, ``format_event``) and its
line in words, and the result. A deal's seed never appears (the replay scrubs it), nor does any hand of cards: the
replay's Share shares the public play only, so no player's own cards are ``shared``. The chips are the hand's result,
the same figures as the table's end-of-hand message and the ledger (docs/architecture.md, "One source of chip
figures").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pancog.adapter.presenters.common import image_name_of, plain_text
from pancog.adapter.presenters.replay import step_line, summary_line
from pancog.game.events import Event, HandStarted
from pancog.game.notation import format_event
from pancog.services.replay import HandReplay
from pancog.services.web_access import SharedHand

__all__ = ["FORMAT", "VERSION", "hand_export", "hand_nets"]

FORMAT = "pan-hand-history"
VERSION = 1


def hand_nets(replay: HandReplay) -> dict[int, int]:
    """{seat: chips won (+) or lost (-)} over the hand: the hand's result (:class:`~pancog.services.chips.HandResult`,
    the ledger's postings for it), by the seat each player was dealt in; empty while the hand is unfinished."""
    result = replay.result
    first = replay.steps[0] if replay.steps else None
    if result is None or first is None:
        return {}
    seat_of = {seat.player_id: index for index, seat in enumerate(first.seats_after) if seat is not None}
    return {seat_of[user]: net for user, net in result.nets if user in seat_of}


def _event(e: Event) -> dict[str, Any]:
    """One public event: its name, its fields (seed and private markers left out) and its notation line."""
    fields = {f.name: getattr(e, f.name) for f in dataclasses.fields(e) if f.name not in ("private_to", "seed")}
    out: dict[str, Any] = {"type": type(e).__name__}
    for key, value in fields.items():
        if isinstance(value, tuple):
            value = [str(v) if not isinstance(v, int | str | bool) else v for v in value]
        elif value is not None and not isinstance(value, int | str | bool | float):
            value = str(value)
        out[key] = value
    line = format_event(e)
    out["notation"] = " ".join(part for part in line.split(" ") if not part.startswith("seed="))
    return out


def hand_export(replay: HandReplay, shared: SharedHand, names: Mapping[int, str]) -> dict[str, Any]:
    """The JSON document of a finished hand (the caller checked that it is finished and shared)."""
    first = replay.steps[0] if replay.steps else None
    seats = first.seats_after if first is not None else ()
    dealt: tuple[int, ...] = ()
    if first is not None:
        started = next((e for e in first.events if isinstance(e, HandStarted)), None)
        dealt = started.dealt if started is not None else ()
    players = [
        {"seat": index, "player_id": str(seat.player_id), "name": image_name_of(names, seat.player_id)}
        for index, seat in enumerate(seats)
        if seat is not None and index in dealt
    ]
    nets = hand_nets(replay)
    ended = replay.summary.ended
    steps = []
    for step in replay.steps:
        actor = step.actor
        steps.append(
            {
                "step": step.index + 1,
                "seq": step.seq,
                "seat": actor,
                "text": plain_text(step_line(step, names)),
                "events": [_event(e) for e in step.events],
            }
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "table": {"id": str(replay.table_id), "title": replay.title},
        "hand": replay.hand_no,
        "shared_by": str(shared.user_id),
        "shared_at": shared.shared_at,
        "players": players,
        "steps": steps,
        "result": {
            "reason": ended.reason.value if ended is not None else None,
            "winner_seat": ended.winner if ended is not None else None,
            "splitter_seats": list(ended.splitters) if ended is not None else [],
            "summary": plain_text(summary_line(replay.summary, names)),
            "nets": {str(seat): net for seat, net in sorted(nets.items())},
        },
        "hole_cards": {},
    }
