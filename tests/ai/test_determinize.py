"""The hard level's determinization builds a full state consistent with one seat's observation."""

from __future__ import annotations

import random
from collections import Counter

from pancog.ai import determinize
from pancog.ai.hard import greedy_action, hidden_pool, rollout
from pancog.game.cards import Card
from pancog.game.engine import legal_actions, observe, to_act
from pancog.game.state import TableState


def _all_cards(state: TableState) -> Counter[Card]:
    h = state.hand
    assert h is not None
    cards: Counter[Card] = Counter(h.stock) + Counter(h.muck) + Counter(h.dead)
    for p in h.players:
        if p is not None:
            cards += Counter(p.hand)
            for m in p.melds:
                cards += Counter(m.cards)
    if h.turn is not None and h.turn.drawn is not None:
        cards[h.turn.drawn] += 1
    return cards


def test_world_matches_the_observation(midhand_states: list[TableState]) -> None:
    """Own hand, boards, counts, stacks, turn and the seat's legal actions are those of the real table."""
    for k, state in enumerate(midhand_states):
        seat = to_act(state)
        assert seat is not None
        obs = observe(state, seat)
        world = determinize(obs, random.Random(k))
        wobs = observe(world, seat)
        assert wobs.hand == obs.hand
        assert wobs.players == obs.players
        assert wobs.stock_count == obs.stock_count
        assert wobs.stacks == obs.stacks
        assert (wobs.to_act, wobs.step, wobs.drawn, wobs.option, wobs.muck_top) == (
            obs.to_act,
            obs.step,
            obs.drawn,
            obs.option,
            obs.muck_top,
        )
        in_turn = {a for a, _ in obs.legal}
        assert {a for a, _ in wobs.legal} >= {a for a in in_turn if a.__class__.__name__ != "Force"}


def test_world_conserves_the_shoe(midhand_states: list[TableState]) -> None:
    """Sampled hidden cards are exactly the cards the seat cannot see: the world holds the whole shoe."""
    for k, state in enumerate(midhand_states):
        seat = to_act(state)
        assert seat is not None
        world = determinize(observe(state, seat), random.Random(k))
        assert _all_cards(world) == Counter(state.rules.shoe())


def test_hidden_pool_excludes_what_the_seat_sees(midhand_states: list[TableState]) -> None:
    """The pool to sample from is the shoe minus every card the seat sees."""
    state = midhand_states[-1]
    seat = to_act(state)
    assert seat is not None
    obs = observe(state, seat)
    pool = Counter(hidden_pool(obs))
    shoe = Counter(state.rules.shoe())
    assert sum(pool.values()) == sum(shoe.values()) - len(obs.hand) - sum(
        len(m.cards) for p in obs.players for m in p.melds
    ) - sum(1 for c in (obs.drawn, obs.muck_top) if c is not None) - sum(
        1 for fb in obs.force_backs if fb.card != obs.muck_top
    )


def test_rollout_finishes_the_hand_with_legal_moves(midhand_states: list[TableState]) -> None:
    """Roll-outs from sampled worlds always end the hand; each greedy move is legal in its world."""
    for k, state in enumerate(midhand_states[:8]):
        seat = to_act(state)
        assert seat is not None
        world = determinize(observe(state, seat), random.Random(k))
        actor = to_act(world)
        assert actor is not None
        move = greedy_action(world, actor)
        assert move in legal_actions(world, actor)
        end = rollout(world)
        assert end is not None
        assert end.hand is None or end.hand.hand_no != world.hand_no
