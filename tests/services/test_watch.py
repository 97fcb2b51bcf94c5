"""Watching with consent (pancog/services/watch.py): one named member sees a player's cards for the hand in progress."""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pancog.adapter.presenters.replay import watch_announcement, watched_hand_text
from pancog.game.cards import parse_cards
from pancog.game.errors import PanError
from pancog.game.events import HandEnded
from pancog.infra.storage import SqliteStorage
from pancog.services.ledger import ChipLedger
from pancog.services.store import TableStore
from pancog.services.tables import TableConfig, TableService, seeded_deals
from pancog.services.watch import (
    CannotWatchSelf,
    ComputerCannotWatch,
    GrantEnd,
    NotInHand,
    NotSharing,
    NotWatching,
    WatcherCannotSit,
    WatcherSeated,
    WatchService,
)
from renderer import HandSnapshot
from tests.services.test_replay import choose
from tests.support.wiring import wire_watch

GUILD = 800
TABLE = 801
A, B, C = 41, 42, 43
WATCHER, OTHER = 50, 51


class Env:
    def __init__(self, storage: SqliteStorage) -> None:
        self.ledger = ChipLedger(storage)
        self.tables = TableService(self.ledger, TableStore(storage), dealer=seeded_deals(3))
        self.watch = WatchService(self.tables)
        wire_watch(self.tables, self.watch)  # as the composition root does
        self.watch.start()
        self.ended: list[tuple[int, int, GrantEnd]] = []
        self.watch.on_end(lambda g, why: self.ended.append((g.player_id, g.watcher_id, why)))


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    async with SqliteStorage(tmp_path / "pan.sqlite3") as storage:
        e = Env(storage)
        await e.tables.open_table(TABLE, guild_id=GUILD, channel_id=TABLE, host_id=A, config=TableConfig.build())
        for user in (A, B, C):
            await e.tables.join(TABLE, user)
        yield e
        e.watch.stop()
        report = await e.ledger.audit()
        assert report.ok, report.summary()


def _hand_of(env: Env, user: int) -> tuple[object, ...]:
    session = env.tables.get(TABLE)
    hand = session.state.hand
    assert hand is not None
    player = hand.players[session.seat_of(user)]
    assert player is not None
    return player.hand


async def _finish_hand(env: Env) -> None:
    rng = random.Random(4)
    while True:
        applied = await env.tables.system_act(TABLE, choose(env.tables.get(TABLE).state, rng))
        if any(isinstance(e, HandEnded) for e in applied.events):
            return


async def test_watch_named_member_sees_the_hand_until_it_ends(env: Env) -> None:
    """The watcher sees exactly the player's cards, live; nobody else does; the grant ends with the hand."""
    await env.tables.start_hand(TABLE, A)
    grant, replaced = env.watch.grant(TABLE, B, WATCHER)
    assert replaced is None and grant.hand_no == 1
    watched = env.watch.watched_hand(TABLE, WATCHER)
    assert watched.grant.player_id == B and watched.cards == _hand_of(env, B)
    for nobody in (OTHER, A, C, B):
        with pytest.raises(NotWatching):
            env.watch.watched_hand(TABLE, nobody)
    with pytest.raises(NotWatching):
        env.watch.watched_hand(TABLE, WATCHER, player_id=A)
    rng = random.Random(1)
    for _ in range(6):  # the view follows the hand as it changes
        await env.tables.system_act(TABLE, choose(env.tables.get(TABLE).state, rng))
        if env.tables.get(TABLE).state.hand is None:
            break
        assert env.watch.watched_hand(TABLE, WATCHER).cards == _hand_of(env, B)
    await _finish_hand(env)
    with pytest.raises(NotWatching):
        env.watch.watched_hand(TABLE, WATCHER)
    assert (B, WATCHER, GrantEnd.HAND_ENDED) in env.ended
    await env.tables.start_hand(TABLE, A)  # a new hand does not revive it
    with pytest.raises(NotWatching):
        env.watch.watched_hand(TABLE, WATCHER)


async def test_watch_watcher_cannot_sit_while_it_lasts(env: Env) -> None:
    """The seat guard refuses the watcher (nothing changes: no seat, bank untouched); after the grant, they may sit."""
    await env.tables.start_hand(TABLE, A)
    env.watch.grant(TABLE, A, WATCHER)
    bank_before = await env.ledger.ensure_player(GUILD, WATCHER)
    seq_before = env.tables.get(TABLE).state.seq
    with pytest.raises(WatcherCannotSit) as refused:
        await env.tables.join(TABLE, WATCHER)
    assert refused.value.code == "watcher_cannot_sit"
    assert env.tables.get(TABLE).find_seat(WATCHER) is None
    assert env.tables.get(TABLE).state.seq == seq_before
    assert await env.ledger.ensure_player(GUILD, WATCHER) == bank_before
    await env.tables.join(TABLE, OTHER)  # anyone else may still sit
    env.watch.revoke(TABLE, A)
    await env.tables.join(TABLE, WATCHER)
    assert env.tables.get(TABLE).find_seat(WATCHER) is not None


async def test_watch_a_closed_tables_grants_end_at_once(env: Env) -> None:
    """A table closing mid-hand ends its grants then (GrantEnd.CLOSED, told to the listeners), not at the next read."""
    await env.tables.start_hand(TABLE, A)
    env.watch.grant(TABLE, A, WATCHER)
    await env.tables.close(TABLE, A)
    assert env.ended == [(A, WATCHER, GrantEnd.CLOSED)]
    assert env.watch.watching(TABLE, WATCHER) == ()


async def test_watch_revoke_and_replace(env: Env) -> None:
    """Revoking ends it at once; naming another member replaces the first watcher; revoking nothing is refused."""
    await env.tables.start_hand(TABLE, A)
    env.watch.grant(TABLE, C, WATCHER)
    _new, old = env.watch.grant(TABLE, C, OTHER)
    assert old is not None and old.watcher_id == WATCHER
    assert (C, WATCHER, GrantEnd.REPLACED) in env.ended
    with pytest.raises(NotWatching):
        env.watch.watched_hand(TABLE, WATCHER)
    assert env.watch.watched_hand(TABLE, OTHER).cards == _hand_of(env, C)
    env.watch.revoke(TABLE, C)
    assert (C, OTHER, GrantEnd.REVOKED) in env.ended
    with pytest.raises(NotWatching):
        env.watch.watched_hand(TABLE, OTHER)
    with pytest.raises(NotSharing):
        env.watch.revoke(TABLE, C)


@pytest.mark.parametrize(
    ("player", "watcher", "in_hand", "error"),
    [
        (A, A, True, CannotWatchSelf),
        (A, B, True, WatcherSeated),
        (A, -3, True, ComputerCannotWatch),
        (A, WATCHER, False, NotInHand),
        (OTHER, WATCHER, True, NotInHand),
    ],
)
async def test_watch_refusals(env: Env, player: int, watcher: int, in_hand: bool, error: type[PanError]) -> None:
    """Sharing with oneself, a seated member or a computer, or without a hand in play, is refused; no grant exists."""
    if in_hand:
        await env.tables.start_hand(TABLE, A)
    with pytest.raises(error):
        env.watch.grant(TABLE, player, watcher)
    assert env.watch.watching(TABLE, watcher) == ()
    assert env.ended == []


async def test_watch_ends_when_the_player_leaves(env: Env) -> None:
    """A player who leaves mid-hand stops sharing at once."""
    await env.tables.start_hand(TABLE, A)
    env.watch.grant(TABLE, B, WATCHER)
    await env.tables.leave(TABLE, B)
    with pytest.raises(NotWatching):
        env.watch.watched_hand(TABLE, WATCHER)
    assert env.ended and env.ended[-1][:2] == (B, WATCHER)


async def test_watch_ends_when_the_table_closes(env: Env) -> None:
    """A closed table ends every grant (checked on read)."""
    await env.tables.start_hand(TABLE, A)
    env.watch.grant(TABLE, A, WATCHER)
    await env.tables.close(TABLE, A)
    assert env.watch.active(TABLE, A) is None
    assert (A, WATCHER, GrantEnd.CLOSED) in env.ended


def test_watch_wording_names_the_owner_not_you() -> None:
    """The watcher's view says whose hand it is (never "Your hand"); the public announcement names no card."""
    snap = HandSnapshot(cards=parse_cards("5S 2C 5H"))
    text = watched_hand_text("Ana", snap)
    assert text.startswith("Ana's hand, 3 cards by suit: 2♣ 5♥ 5♠.") and "Your hand" not in text
    announcement = watch_announcement("Ana", "<@50>")
    assert "<@50>" in announcement and not re.search(r"\b[A2-7JQK][CDHS♣♦♥♠]", announcement)
