"""Final standings from the elimination log (pure, stdlib only).

Entries knocked out in the same hand are ranked by the stacks that hand left them (less than the next ante, or 0),
then by their stacks at the start of that hand (more chips = better place); entries equal on both share the places
they cover. The busts of one hand-for-hand round at different tables (one group, several tables) all share the
places they cover (:mod:`.bubble`). Eliminations are recorded in order; places are
only fixed at the end (late entries may still join after an early bust).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Bust", "Finish", "standings"]


@dataclass(frozen=True, slots=True)
class Bust:
    """One elimination: ``group`` numbers the hand that knocked the entry out (same hand = same group)."""

    entry_id: int
    group: int
    start_stack: int
    end_stack: int = 0  # what the hand left it: ranks before start_stack
    table: int | None = None  # the table it was put out at (a group from several tables shares its places)


@dataclass(frozen=True, slots=True)
class Finish:
    entry_id: int
    place: int  # best place of the range it shares
    tied: int  # how many share it (1 = alone)


def standings(survivors: Sequence[tuple[int, int]], busts: Sequence[Bust]) -> list[Finish]:
    """Places for everyone, best first. ``survivors``: (entry id, chips) still in, ranked by chips.

    ``busts`` in the order they happened. Returns every entry exactly once.
    """
    out: list[Finish] = []
    place = 1

    def add_group(items: list[tuple[int, tuple[int, int]]]) -> None:
        nonlocal place
        items.sort(key=lambda x: ((-x[1][0], -x[1][1]), x[0]))
        i = 0
        while i < len(items):
            j = i
            while j < len(items) and items[j][1] == items[i][1]:
                j += 1
            for entry, _ in items[i:j]:
                out.append(Finish(entry, place, j - i))
            place += j - i
            i = j

    add_group([(entry, (chips, 0)) for entry, chips in survivors])
    groups: dict[int, list[tuple[int, tuple[int, int]]]] = {}
    order: list[int] = []
    tables: dict[int, set[int]] = {}
    for bust in busts:
        if bust.group not in groups:
            groups[bust.group] = []
            order.append(bust.group)
        groups[bust.group].append((bust.entry_id, (bust.end_stack, bust.start_stack)))
        if bust.table is not None:
            tables.setdefault(bust.group, set()).add(bust.table)
    for group, where in tables.items():
        if len(where) > 1:  # one hand-for-hand round at several tables: everyone in it ties
            groups[group] = [(entry, (0, 0)) for entry, _ in groups[group]]
    for group in reversed(order):
        add_group(groups[group])
    return out
