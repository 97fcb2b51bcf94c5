"""The self-play driver plays complete hands and sessions through the engine."""

from __future__ import annotations

from pancog.ai import make_player, play_fresh_hand, play_session


def test_fresh_hand_is_replayable_and_conserves_chips() -> None:
    """Same seed -> same hand; chips won by the seats equal chips lost (the tops stay on the table)."""
    players = [make_player(x) for x in ("normal", "easy", "random", "normal", "easy", "random")]
    a = play_fresh_hand(players, seed=3, first_seat=2)
    b = play_fresh_hand(players, seed=3, first_seat=2)
    assert a.deltas == b.deltas and a.actions == b.actions
    tops = a.state.singles_tops + a.state.doubles_tops
    assert sum(a.deltas) + tops == 0


def test_session_carries_stacks_between_hands() -> None:
    """Stacks and tops carry over: the chips on the table stay what was bought in."""
    players = [make_player("easy") for _ in range(4)]
    results = play_session(players, hands=5, seed=1, buy_in=200)
    assert len(results) == 5
    assert [r.state.hand_no for r in results] == [1, 2, 3, 4, 5]
    final = results[-1].state
    stacks = sum(s.stack for s in final.seats if s is not None)
    assert stacks + final.singles_tops + final.doubles_tops == 4 * 200


def test_decision_timings_are_recorded() -> None:
    """Every decision of every seat is timed when asked."""
    res = play_fresh_hand([make_player("normal") for _ in range(6)], seed=5, timings=True)
    assert sum(len(v) for v in res.decision_ms.values()) >= res.actions - 1
    assert all(t >= 0 for v in res.decision_ms.values() for t in v)
