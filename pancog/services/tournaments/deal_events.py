"""What a final-table deal tells the adapter (plain values, emitted after the step that caused them committed)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DealAccepted", "DealDeclined", "DealDone", "DealProposed"]


@dataclass(frozen=True, slots=True)
class DealProposed:
    """A proposal to post, with Accept / Decline buttons: each player's stack and the chips they would take."""

    tournament_id: int
    kind: str  # chip | icm
    keep: int  # chips left to play for
    shares: tuple[tuple[int, int, int], ...]  # (player id, stack, chips dealt), biggest stack first
    waiting: tuple[int, ...]  # the players who have not accepted yet (computer players accept at once)


@dataclass(frozen=True, slots=True)
class DealAccepted:
    tournament_id: int
    player_id: int
    waiting: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DealDeclined:
    tournament_id: int
    player_id: int  # who declined (or withdrew) it


@dataclass(frozen=True, slots=True)
class DealDone:
    """Everyone accepted: the amounts are paid; ``keep`` > 0: play goes on for that part."""

    tournament_id: int
    paid: tuple[tuple[int, int], ...]  # (player id, chips)
    keep: int
