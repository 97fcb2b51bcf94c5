"""Table balancing for multi-table tournaments (pure, stdlib only, deterministic).

Rules: never move a player whose table is in a hand; between hands keep table sizes within one
of each other (within two while more than four tables remain); break the smallest table as soon as the
other tables can seat its players; move the player who has moved least; when everyone fits at one table,
redraw seats for a final table (once every table is between hands).

:func:`plan` looks at a picture of the tables and returns the moves to make now. Players at a busy table
(a hand in progress) never move; a table that should break but is busy is broken when its hand ends.
Moving *into* a busy table is allowed: the player sits in a free seat and is dealt the next hand.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["BalanceTable", "Move", "Plan", "allowed_spread", "plan", "target_tables"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BalanceTable:
    table_id: int
    players: tuple[tuple[int, int], ...]  # (entry id, moves so far)
    busy: bool = False  # a hand is in progress: nobody here may move


@dataclass(frozen=True, slots=True)
class Move:
    entry_id: int
    from_table: int
    to_table: int


@dataclass(frozen=True, slots=True)
class Plan:
    moves: tuple[Move, ...] = ()
    broken: tuple[int, ...] = ()  # tables emptied by this plan (close them)
    final_table: bool = False  # everyone fits one table: redraw them all at a new final table
    waiting: bool = False  # something must wait for a busy table's hand to end


def target_tables(players: int, seats: int) -> int:
    return max(1, math.ceil(players / seats))


def allowed_spread(tables: int) -> int:
    return 2 if tables > 4 else 1


def plan(tables: Sequence[BalanceTable], seats: int) -> Plan:
    """The moves to make now. Deterministic: ties go to the lower table id and then the lower entry id."""
    live = list(tables)
    total = sum(len(t.players) for t in live)
    if len(live) <= 1:
        return Plan()
    if total <= seats:
        if any(t.busy for t in live):
            return Plan(waiting=True)
        return Plan(final_table=True, broken=tuple(t.table_id for t in live))
    sizes = {t.table_id: len(t.players) for t in live}
    members = {t.table_id: sorted(t.players, key=lambda p: (p[1], p[0])) for t in live}
    busy = {t.table_id for t in live if t.busy}
    moves: list[Move] = []
    broken: list[int] = []
    waiting = False

    def move_one(src: int, dst: int) -> None:
        entry, count = members[src].pop(0)  # the one who has moved least
        members[dst].append((entry, count + 1))
        members[dst].sort(key=lambda p: (p[1], p[0]))
        sizes[src] -= 1
        sizes[dst] += 1
        moves.append(Move(entry, src, dst))

    # 1. break tables while the others can seat their players (smallest first)
    while len(sizes) > target_tables(total, seats):
        idle = [t for t in sizes if t not in busy]
        if not idle:
            waiting = True
            break
        victim = min(idle, key=lambda t: (sizes[t], -t))
        others = [t for t in sizes if t != victim]
        if sum(seats - sizes[t] for t in others) < sizes[victim]:
            break
        while sizes[victim]:
            dst = min(others, key=lambda t: (sizes[t], t))
            move_one(victim, dst)
        del sizes[victim]
        broken.append(victim)
    # 2. even out: from the largest idle table to the smallest table
    while True:
        spread = allowed_spread(len(sizes))
        small = min(sizes, key=lambda t: (sizes[t], t))
        big_all = max(sizes.values())
        if big_all - sizes[small] <= spread:
            break
        sources = [t for t in sizes if t not in busy and sizes[t] - sizes[small] > spread]
        if not sources:
            waiting = True
            break
        src = max(sources, key=lambda t: (sizes[t], -t))
        move_one(src, small)
    return Plan(tuple(moves), tuple(broken), False, waiting)
