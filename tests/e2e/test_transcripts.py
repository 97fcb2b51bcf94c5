"""`/pan history transcript:True` and `/pan reveal`: who gets which transcript.

Everyone gets the hand history in words, built from what they may know (the public play and their own cards); the
machine notation (``start seed=…``: replaying the seed gives every hidden hand and the stock) goes only to
moderators, and a hand's notation to its players once every one of them agreed to reveal it.
"""

from __future__ import annotations

import re

import pytest

from pancog.game.cards import Card
from pancog.game.state import TableState
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.e2e.test_table_commands import play_two
from tests.fakediscord.harness import Reply

SEED = re.compile(rb"seed=(\d+)")


@pytest.fixture
async def seeded(pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch) -> Pan:
    """A bot dealing random (seeded) hands: the deal's seed is in the table's log."""
    monkeypatch.setenv("PAN_DEAL_SEED", "29")
    return await pan_factory()


def held(state: TableState) -> dict[int, tuple[Card, ...]]:
    """Every dealt-in player's hidden cards now, by player id."""
    hand = state.hand
    assert hand is not None
    out: dict[int, tuple[Card, ...]] = {}
    for player in hand.players:
        seat = state.seat(player.seat) if player is not None else None
        if player is not None and seat is not None:
            out[seat.player_id] = player.hand
    return out


def listing(cards: tuple[Card, ...]) -> str:
    return " ".join(c.pretty for c in cards)


def files_of(reply: Reply) -> dict[str, bytes]:
    return dict(reply.files)


async def mid_hand(pan: Pan) -> tuple[int, dict[int, tuple[Card, ...]]]:
    """Two players seated, a random hand dealt and both declared in; (its seed, the hidden hands)."""
    a, b = await pan.seat(2)
    await pan.slash(a, "pan start")
    for user in (a, b):
        await pan.slash(user, "knock")
    state = pan.session().state
    assert state.hand is not None and state.hand.seed is not None
    return state.hand.seed, held(state)


async def test_transcript_of_a_bystander_mid_hand_holds_no_seed_and_no_hidden_card(seeded: Pan) -> None:
    """A member who is not seated asks mid-hand: the answer is the public play only — no seed, no hidden card, and
    no machine notation (replaying its seed used to give both hidden hands and the stock)."""
    pan = seeded
    seed, hidden = await mid_hand(pan)
    bystander = pan.users[3]
    pan.h.plain_member(bystander)
    reply = await pan.slash(bystander, "pan history", transcript=True)
    assert private_to(reply, bystander)
    files = files_of(reply)
    assert files
    for data in files.values():
        assert not SEED.search(data) and str(seed).encode() not in data, "a deal's seed reached a bystander"
        for cards in hidden.values():
            assert listing(cards) not in data.decode()
    assert list(files) == [f"pan-{pan.session().table_id}-history.txt"]
    text = next(iter(files.values())).decode()
    assert "Hand 1 ·" in text and "knocked" in text
    assert "Your cards" not in text and "was dealt" not in text


async def test_transcript_of_a_player_shows_the_public_play_and_his_own_cards_only(seeded: Pan) -> None:
    """A seated member (not a moderator) sees his own cards in his history, never the other player's, never a seed."""
    pan = seeded
    seed, hidden = await mid_hand(pan)
    a, b = pan.users[:2]
    pan.h.plain_member(a)
    reply = await pan.slash(a, "pan history", transcript=True)
    files = files_of(reply)
    assert list(files) == [f"pan-{pan.session().table_id}-history.txt"]
    text = next(iter(files.values())).decode()
    assert f"Your cards: {listing(hidden[a.id])}" in text
    assert listing(hidden[b.id]) not in text and str(seed) not in text and "seed=" not in text


async def test_transcript_for_a_moderator_has_the_machine_notation(seeded: Pan) -> None:
    """A moderator who is not dealt in gets the table's machine notation (floor rulings), the live deal included;
    one dealt into the hand in progress gets it only up to that hand."""
    pan = seeded
    seed, _hidden = await mid_hand(pan)
    moderator = pan.h.moderator
    reply = await pan.slash(moderator, "pan history", transcript=True)
    assert private_to(reply, moderator)
    files = files_of(reply)
    table_id = pan.session().table_id
    assert set(files) == {f"pan-{table_id}-history.txt", f"pan-{table_id}.pan"}
    assert f"start seed={seed}".encode() in files[f"pan-{table_id}.pan"]
    assert b"was dealt" in files[f"pan-{table_id}-history.txt"]
    # player1 is a moderator too in the fake, but dealt into the hand in progress: no seed of it
    reply = await pan.slash(pan.users[0], "pan history", transcript=True)
    files = files_of(reply)
    assert str(seed).encode() not in files[f"pan-{table_id}.pan"] and b"start" not in files[f"pan-{table_id}.pan"]
    assert str(seed).encode() not in files[f"pan-{table_id}-history.txt"]


async def test_reveal_needs_every_player_of_the_hand(pan: Pan) -> None:
    """/pan reveal: the whole deal and the hand's notation reach its players once both agreed; never a bystander."""
    a, b = await pan.seat(2)
    c = pan.users[3]
    pan.h.plain_member(a, b, c)
    await play_two(pan)
    table_id = pan.session().table_id
    reply = await pan.slash(a, "pan reveal", hand=1)
    assert private_to(reply, a) and "waiting for player2" in reply.text
    assert any("agrees to reveal hand 1" in m.text and not m.ephemeral for m in pan.h.messages())
    reply = await pan.slash(b, "pan history", transcript=True)
    assert list(files_of(reply)) == [f"pan-{table_id}-history.txt"]
    assert b"was dealt" not in files_of(reply)[f"pan-{table_id}-history.txt"]
    reply = await pan.slash(c, "pan reveal", hand=1)
    assert private_to(reply, c) and "Only the players of that hand" in reply.text
    reply = await pan.slash(b, "pan reveal", hand=1)
    assert "Every player of hand 1 agreed" in reply.text
    for player in (a, b):
        files = files_of(await pan.slash(player, "pan history", transcript=True))
        assert set(files) == {f"pan-{table_id}-history.txt", f"pan-{table_id}-hand-1.pan"}
        assert b"player1 was dealt" in files[f"pan-{table_id}-history.txt"]
        assert b"player2 was dealt" in files[f"pan-{table_id}-history.txt"]
        assert b"start first=0 shoe=" in files[f"pan-{table_id}-hand-1.pan"]
    files = files_of(await pan.slash(c, "pan history", transcript=True))
    assert list(files) == [f"pan-{table_id}-history.txt"] and b"was dealt" not in files[f"pan-{table_id}-history.txt"]
    # consents survive a restart
    await pan.h.restart()
    files = files_of(await pan.slash(a, "pan history", transcript=True))
    assert f"pan-{table_id}-hand-1.pan" in files
