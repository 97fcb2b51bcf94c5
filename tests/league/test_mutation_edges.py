"""Edges of the league the first services mutation sample found untested: the rebuild's ratings cursor, a bank
season's scope settings, statements built before the settlement's transaction, the digest decoder's refusal, the
soft-play flag's minimum sample, and the scripted players and sessions of ``pancog.league.drive``."""

from __future__ import annotations

import random

import pytest

from pancog.game.actions import Action, AddToMeld, Claim, Discard, GoOnTop, Knock, NewMeld, Pluck
from pancog.game.cards import Card, Rank, Suit
from pancog.league import HandDigest, PlayerLine, compute_flags, drive, repo
from pancog.league.digest import decode
from pancog.league.drive import Feeder, GreedyPlayer, engine_session, honest_guild, play_hands
from pancog.league.flags import SOFT_MIN_HANDS

from .conftest import GUILD, Env
from .test_seasons import hand


async def _ratings(env: Env) -> list[tuple[object, ...]]:
    async with env.storage.transaction(write=False) as tx:
        rows = await tx.fetchall(
            "SELECT guild_id, season_no, user_id, mu, sigma, rated, score FROM league_ratings ORDER BY 1,2,3"
        )
    return [tuple(r) for r in rows]


async def test_ratings_after_a_rebuild_are_not_folded_again(env: Env) -> None:
    """A rebuild refolds every result into the ratings and leaves the drain nothing to do: a result is rated once,
    so draining after the rebuild reads no result and changes no rating."""
    for winner, loser in ((1, 2), (2, 3), (3, 1), (1, 3)):
        await env.league.record_hand(GUILD, hand(winner, [loser]))  # recorded, then drained: rated
    assert await env.league.drain() == 0
    before = await _ratings(env)
    assert [r[5] for r in before] == [3, 2, 3]  # users 1, 2, 3: each hand rated once
    assert await env.league.rebuild(from_log=False) == (0, 4)
    assert await _ratings(env) == before  # same results in the same order: the same ratings
    assert await env.league.drain() == 0
    assert await _ratings(env) == before
    card = await env.league.player_card(GUILD, 1)  # a read that drains first
    assert card.rating.rated == 3


async def test_a_season_bank_has_no_daily_grant(env: Env) -> None:
    """A bank season hands out its starting chips once and nothing else: its scope's daily grant is 0, so a daily
    claim there issues nothing (all season banks start, and stay, equal)."""
    season = await env.league.start_season(GUILD, "Equal banks", starting_chips=500, mode="bank")
    assert await env.league.season_bank(GUILD, 1) == 500
    claim = await env.ledger.claim_daily(season.scope_id, 1)
    assert (claim.claimed, claim.amount, claim.balance) == (False, 0, 500)
    assert (await env.ledger.settings(season.scope_id)).daily_amount == 0
    assert await env.league.season_bank(GUILD, 1) == 500


async def test_a_settlement_with_the_season_cached_builds_nothing_inside(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/leagues.md: with the season cached, ``note`` builds the result's text before the transaction; inside it
    nothing is built or read (the writer lock is held for one more column of the journal row), and the drain
    turns that text into the stats."""
    await env.league.record_hand(GUILD, hand(1, [2]))  # the guild's season (none) is now cached
    record = env.league.note(GUILD, hand(2, [1], chips=30))

    def built_inside(*_: object, **__: object) -> object:
        raise AssertionError("the result was built inside the settlement's transaction")

    monkeypatch.setattr(HandDigest, "encode", built_inside)
    monkeypatch.setattr(repo, "active_season", built_inside)
    async with env.storage.transaction() as tx:
        text = await record(tx)
        journal = await tx.insert_journal(
            key="settle:test", reason="hand", actor="system", table_id=None, created_at=env.clock(), result=text
        )
        assert journal is not None
    monkeypatch.undo()
    assert text is not None and text.startswith(f"{GUILD} 0 ")
    card = await env.league.player_card(GUILD, 2)
    assert (card.all_time.hands_dealt, card.all_time.hands_won, card.all_time.net) == (2, 1, 30 - 10)


@pytest.mark.parametrize(
    "text",
    [
        '{"x":1}',
        '{"k":"table","t":1,"n":2,"r":"out","w":null,"s":[],"p":[],"f":[]}',
        '{"t":1,"n":2,"r":"out","w":null,"s":[],"p":[],"f":[]}',
    ],
)
def test_decode_refuses_a_text_that_is_not_a_league_digest(text: str) -> None:
    """Only a hand or a tournament body decodes; anything else is a ValueError naming the text (never a stray
    KeyError, never a hand read from a body of another kind)."""
    with pytest.raises(ValueError, match="not a league digest"):
        decode(text)


def _soft_hands(with_partner: int, without_partner: int) -> list[HandDigest]:
    """Player 1 goes on top in every hand where 2 knocks in, and plays every other hand (against 3)."""
    hands = [
        HandDigest(
            table_id=1,
            hand_no=n,
            reason="out",
            winner=2,
            players=[PlayerLine(user_id=1, on_top=True), PlayerLine(user_id=2, played=True, won=True)],
        )
        for n in range(with_partner)
    ]
    hands += [
        HandDigest(
            table_id=1,
            hand_no=with_partner + n,
            reason="out",
            winner=3,
            players=[PlayerLine(user_id=1, played=True), PlayerLine(user_id=3, played=True, won=True)],
        )
        for n in range(without_partner)
    ]
    return hands


@pytest.mark.parametrize(
    ("with_partner", "without_partner", "flagged"),
    [(SOFT_MIN_HANDS, 0, True), (SOFT_MIN_HANDS - 1, 30, False), (SOFT_MIN_HANDS, 30, True), (60, 40, True)],
)
def test_soft_play_needs_its_minimum_of_hands_with_the_opponent_in(
    with_partner: int, without_partner: int, flagged: bool
) -> None:
    """docs/leagues.md: a 'soft' flag needs SOFT_MIN_HANDS judged hands with the opponent in, and none apart from
    him (the guild's rate is the baseline then); one hand fewer is too small a sample."""
    soft = [(f.first, f.second) for f in compute_flags(_soft_hands(with_partner, without_partner)) if f.kind == "soft"]
    assert soft == ([(1, 2)] if flagged else [])


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

    monkeypatch.setattr(drive, "MAX_STEPS", 25)
    monkeypatch.setattr(env.tables, "act", lost)
    with pytest.raises(RuntimeError, match="hand did not finish"):
        await play_hands(env.tables, table, {21: GreedyPlayer(), 22: GreedyPlayer()}, 1, seed=1)
    assert attempts == 25
