"""Shared helpers for engine tests: notation fixtures and a stacked-deck table factory."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pancog.game import (
    Action,
    Card,
    ChipsMoved,
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


def stacked_shoe(hands: Sequence[str], stock: str = "", filler: str = "2C", filler_count: int = 40) -> tuple[Card, ...]:
    """A shoe dealing ``hands[k]`` (10 cards each) to the k-th seat in rotation, then ``stock`` on top.

    ``filler_count`` copies of ``filler`` follow the stock (0 for an exact stock).
    """
    parsed = [cards(h) for h in hands]
    for h in parsed:
        assert len(h) == 10, h
    shoe: list[Card] = []
    for rnd in range(2):
        for h in parsed:
            shoe.extend(h[5 * rnd : 5 * rnd + 5])
    shoe.extend(cards(stock))
    if filler_count:
        shoe.extend(cards(" ".join([filler] * filler_count)))
    return tuple(shoe)


def table(
    hands: Sequence[str],
    stock: str = "",
    rules: Rules | None = None,
    stacks: Sequence[int] | None = None,
    doubles: Sequence[bool] | None = None,
    first: int = 0,
    filler_count: int = 40,
) -> TableState:
    """Seats 0..n-1 with ``hands`` dealt from a stacked shoe; seat ``first`` is first hand."""
    rules = rules or Rules()
    s = initial_state(rules)
    for i in range(len(hands)):
        d = bool(doubles[i]) if doubles else False
        s = apply(s, Sit(player_id=1000 + i, buy_in=stacks[i] if stacks else 100, doubles=d, seat=i)).state
    rot = [(first + k) % len(hands) for k in range(len(hands))]
    # hands are given by seat; the shoe deals in rotation from the first hand
    shoe = stacked_shoe([hands[i] for i in rot], stock, filler_count=filler_count)
    return apply(s, StartHand(shoe=shoe, first_seat=first)).state


def run(state: TableState, *actions: Action) -> tuple[TableState, list[Event]]:
    events: list[Event] = []
    for a in actions:
        t = apply(state, a)
        state = t.state
        events.extend(t.events)
    return state, events


def chips(events: Sequence[Event], *, payer: object = None, payee: object = None, reason: object = None) -> int:
    """Sum of ChipsMoved amounts matching the given payer / payee / reason (None = any)."""
    return sum(
        e.amount
        for e in events
        if isinstance(e, ChipsMoved)
        and (payer is None or e.payer == payer)
        and (payee is None or e.payee == payee)
        and (reason is None or e.reason is reason)
    )


def of_type(events: Sequence[Event], kind: type) -> list:
    """The events of one type, in order."""
    return [e for e in events if isinstance(e, kind)]


@pytest.fixture
def rules() -> Rules:
    return Rules()
