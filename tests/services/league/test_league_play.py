"""The scripted players and sessions the league tests play with (``tests.support.league_play``): honest guilds
play every hand, greedy players knock and meld the most cards, a feeder never melds, and ``play_hands`` gives up on a
hand that never finishes."""

from __future__ import annotations

import random

import pytest

from pancog.game.actions import Action, AddToMeld, Claim, Discard, GoOnTop, Knock, NewMeld, Pluck
from pancog.game.cards import Card, Rank, Suit
from tests.support import league_play
from tests.support.league_play import Feeder, GreedyPlayer, engine_session, honest_guild, play_hands

from .conftest import Env


def test_honest_guild_plays_every_hand_of_every_session() -> None:
    """``honest_guild(seed, pool, sessions, hands)``: ``sessions`` tables of 2-4 players drawn from users 1..pool,
    ``hands`` hands each, one digest per hand."""
    digests = honest_guild(3, pool=5, sessions=3, hands=4)
    assert len(digests) == 12
    tables = {d.table_id for d in digests}
    assert len(tables) == 3
    for table in tables:
        at_table = [d for d in digests if d.table_id == table]
        assert len(at_table) == 4
        users = {p.user_id for d in at_table for p in d.players}
        assert 2 <= len(users) <= 4 and users <= set(range(1, 6))


def test_a_greedy_player_that_always_knocks_plays_every_hand() -> None:
    """``GreedyPlayer(knock=1.0)`` knocks in every hand and plays it to the end: each digest has every seat in."""
    digests = engine_session([11, 12, 13], [GreedyPlayer(knock=1.0) for _ in range(3)], 3, seed=5, table_id=9)
    assert len(digests) == 3
    for d in digests:
        assert {p.user_id for p in d.players if p.played} == {11, 12, 13}


def test_a_greedy_player_melds_the_most_cards() -> None:
    """Out of the declarations, the greedy player makes the play melding the most cards."""
    cards = [Card(Rank(r), Suit.SPADES) for r in (1, 2, 3, 4)]
    small = NewMeld(seat=0, cards=tuple(cards[:3]))
    big = NewMeld(seat=0, cards=tuple(cards))
    add = AddToMeld(seat=0, meld=1, cards=(cards[0],))
    for seed in range(5):
        assert GreedyPlayer().pick([add, small, big, Discard(seat=0)], random.Random(seed)) == big


def test_a_feeder_never_melds_when_it_has_another_choice() -> None:
    """The feeder knocks, plucks and throws; offered melds beside a passive action it takes the passive one."""
    cards = tuple(Card(Rank(r), Suit.HEARTS) for r in (5, 6, 7))
    melds: list[Action] = [NewMeld(seat=0, cards=cards), AddToMeld(seat=0, meld=1, cards=cards[:1])]
    for seed in range(10):
        assert Feeder().pick([*melds, Claim(seat=0)], random.Random(seed)) == Claim(seat=0)
        assert Feeder().pick([GoOnTop(seat=0), Knock(seat=0)], random.Random(seed)) == Knock(seat=0)
        assert Feeder().pick([*melds, Pluck(seat=0)], random.Random(seed)) == Pluck(seat=0)


async def test_play_hands_gives_up_on_a_hand_that_never_finishes(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand that does not move on (here every action is lost) stops ``play_hands`` with a RuntimeError after
    MAX_STEPS attempts instead of looping for ever."""
    table = await env.open_table([21, 22])
    attempts = 0

    async def lost(table_id: int, user: int, make: object) -> None:
        nonlocal attempts
        attempts += 1
        if attempts > 1000:
            raise AssertionError("play_hands kept going")

    monkeypatch.setattr(league_play, "MAX_STEPS", 25)
    monkeypatch.setattr(env.tables, "act", lost)
    with pytest.raises(RuntimeError, match="hand did not finish"):
        await play_hands(env.tables, table, {21: GreedyPlayer(), 22: GreedyPlayer()}, 1, seed=1)
    assert attempts == 25
