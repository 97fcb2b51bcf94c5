"""Shared helpers for engine tests: notation fixtures and a stacked-deck table factory."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pancog.game import (
    Action,
    Card,
    Event,
    Rules,
    Sit,
    StartHand,
    TableState,
    apply,
    initial_state,
    parse_cards,
)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text) if text.strip() else ()


def stacked_shoe(hands: Sequence[str], stock: str = "", filler: str = "2C") -> tuple[Card, ...]:
    """A shoe dealing ``hands[k]`` (10 cards each) to the k-th seat in rotation, then ``stock`` on top."""
    parsed = [cards(h) for h in hands]
    for h in parsed:
        assert len(h) == 10, h
    shoe: list[Card] = []
    for rnd in range(2):
        for h in parsed:
            shoe.extend(h[5 * rnd : 5 * rnd + 5])
    shoe.extend(cards(stock))
    shoe.extend(cards(" ".join([filler] * 40)))
    return tuple(shoe)


def table(
    hands: Sequence[str],
    stock: str = "",
    rules: Rules | None = None,
    stacks: Sequence[int] | None = None,
    doubles: Sequence[bool] | None = None,
    first: int = 0,
) -> TableState:
    """Seats 0..n-1 with ``hands`` dealt from a stacked shoe; seat ``first`` is first hand."""
    rules = rules or Rules()
    s = initial_state(rules)
    for i in range(len(hands)):
        d = bool(doubles[i]) if doubles else False
        s = apply(s, Sit(player_id=1000 + i, buy_in=stacks[i] if stacks else 100, doubles=d, seat=i)).state
    rot = [(first + k) % len(hands) for k in range(len(hands))]
    # hands are given by seat; the shoe deals in rotation from the first hand
    shoe = stacked_shoe([hands[i] for i in rot], stock)
    return apply(s, StartHand(shoe=shoe, first_seat=first)).state


def run(state: TableState, *actions: Action) -> tuple[TableState, list[Event]]:
    events: list[Event] = []
    for a in actions:
        t = apply(state, a)
        state = t.state
        events.extend(t.events)
    return state, events


@pytest.fixture
def rules() -> Rules:
    return Rules()
