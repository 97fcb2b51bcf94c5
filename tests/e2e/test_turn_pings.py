"""Issue #14.1: the person whose turn it is gets a mention that notifies them (a new message, never an edit),
carried on the acting player's interaction when there is one; one ping per table is visible; a ping never
names a card still in a hand; ``/pan settings ping:off`` and ``dms:turn``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.e2e.scenarios import TWO_SHOE
from tests.fakediscord.models import FakeMessage, FakeUser


def pings(pan: Pan, user: FakeUser) -> list[FakeMessage]:
    """The visible (not deleted, public) channel messages that mention ``user``."""
    return [m for m in pan.h.messages() if f"<@{user.id}>" in m.content]


def creating_call(pan: Pan, message: FakeMessage) -> Any:
    """The REST call that created ``message`` (its payload carries allowed_mentions)."""
    for call in pan.h.fake.calls:
        body = call.payload or {}
        data = body.get("data") if isinstance(body.get("data"), dict) else body
        if call.method == "POST" and data.get("content") == message.content:
            return call, data
    raise AssertionError(f"no call created {message.content!r}")


async def test_the_turn_ping_rides_on_the_acting_players_interaction(pan: Pan) -> None:
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    start = await pan.slash(a, "pan start")  # a declares first: no ping for the player who just acted
    assert start.message is not None and start.message.ephemeral and not pings(pan, a)
    knock = await pan.slash(a, "knock")
    assert not knock.ephemeral and knock.type == 4
    (ping,) = pings(pan, b)
    assert ping.id == knock.message.id if knock.message else False
    assert "your turn to declare" in ping.content and "knocked" in ping.content
    call, data = creating_call(pan, ping)
    assert not call.global_limit  # an interaction response: not counted against the 50/s limit
    assert data["allowed_mentions"] == {"parse": [], "users": [b.id]}  # only b: no roles, no @everyone
    await pan.slash(b, "knock")  # the turn comes back to a: b's ping goes, a's comes
    assert pan.h.fake.messages[ping.id].deleted and not pings(pan, b)
    deletes = [c for c in pan.h.fake.calls if c.method == "DELETE"]
    assert deletes and not deletes[-1].global_limit  # deleted through the token that posted it
    (ping_a,) = pings(pan, a)
    assert "your turn: /draw" in ping_a.content
    await pan.slash(a, "draw")
    assert pings(pan, a) == [ping_a]  # no new ping while it is still a's turn
    await pan.slash(a, "meld", cards="AC 2C 3C 4C")
    await pan.slash(a, "discard", card="7C")
    (ping_b,) = pings(pan, b)
    assert "discarded 7♣" in ping_b.content and not pings(pan, a)
    hand_cards = {str(c) for c in pan.session().state.hand.players[1].hand}  # type: ignore[union-attr]
    assert not any(card in ping_b.content for card in hand_cards)  # a mention never reveals a card
    assert len([m for m in pan.h.messages() if "your turn" in m.content]) == 1  # one ping visible per table


async def test_pings_off_and_dms_every_turn(pan: Pan) -> None:
    a, b = await pan.seat(2)
    reply = await pan.slash(b, "pan settings", ping="off", dms="turn")
    assert "Turn pings: off" in reply.text and "DMs: turn" in reply.text
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    knock = await pan.slash(a, "knock")
    assert private_to(knock, a) and not pings(pan, b)  # no channel mention for b ...
    assert "Your turn at the Pan table in #general." in [m.content for m in pan.h.dms(b)]  # ... a DM instead


async def test_without_a_carrying_interaction_the_ping_is_a_channel_message(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/pan practice deals with the practice player first to declare; that answer does not carry the ping, so
    the bot posts it to the channel (a counted call), mentioning only the player."""
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    monkeypatch.setenv("PAN_BOT_NEXT_HAND_DELAY", "off")
    monkeypatch.setenv("PAN_DEAL_SEED", "8")
    pan = await pan_factory()
    a = pan.users[0]
    await pan.slash(a, "pan practice", opponents=1, level="easy")
    (ping,) = pings(pan, a)
    assert "your turn to declare" in ping.content
    call, data = creating_call(pan, ping)
    assert call.route == "POST /channels/{channel_id}/messages" and call.global_limit
    assert data["allowed_mentions"] == {"parse": [], "users": [a.id]}
    await pan.slash(a, "knock")  # the computer declares next: a's ping is deleted, no new one for a computer
    assert pan.h.fake.messages[ping.id].deleted
