"""Issue #14.1: the person whose turn it is gets a mention that notifies them (a new message, never an edit)
when they have not acted within the server's grace (``/panadmin config ping_after``, 5 s by default); it goes
out on a person's interaction token at the table when one is valid (not counted), and goes when the turn moves
on; one ping per table is visible; a ping never names a card still in a hand; ``ping_after:0`` pings at once on
the acting player's answer; ``/pan settings ping:off`` and ``dms:turn``.

No test sleeps through a grace: ``Pan.grace_passes`` ends the running graces (``Pings.end_graces``), as the
clock would."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pancog.adapter import pings as pings_module
from pancog.adapter.board import Board, Boards
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.e2e.scenarios import TWO_SHOE
from tests.fakediscord.models import FakeMessage, FakeUser


def pings(pan: Pan, user: FakeUser) -> list[FakeMessage]:
    """The visible (not deleted, public) channel messages that mention ``user``."""
    return [m for m in pan.h.messages() if f"<@{user.id}>" in m.content]


def mentions(pan: Pan) -> list[str]:
    """Every visible message that mentions anyone."""
    return [m.content for m in pan.h.messages() if "<@" in m.content]


def creating_call(pan: Pan, message: FakeMessage) -> Any:
    """The REST call that created ``message`` (its payload carries allowed_mentions)."""
    for call in pan.h.fake.calls:
        body = call.payload or {}
        data = body.get("data") if isinstance(body.get("data"), dict) else body
        if call.method == "POST" and data.get("content") == message.content:
            return call, data
    raise AssertionError(f"no call created {message.content!r}")


def boards(pan: Pan) -> Boards:
    board = pan.rt.boards[pan.session().table_id]
    assert isinstance(board, Board)
    return board.boards


def deletes(pan: Pan, since: int = 0) -> list[Any]:
    return [c for c in pan.h.fake.calls[since:] if c.method == "DELETE"]


async def test_an_attentive_player_is_never_pinged(pan: Pan) -> None:
    """Players who act within the grace get no ping: no public message, no delete, one call per action."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    first = len(pan.h.fake.calls)
    knock = await pan.slash(a, "knock")
    assert private_to(knock, a) and not knock.followups  # the answer alone: no public line for the action
    assert [p.user_id for p in boards(pan).pings.pending_pings()] == [b.id]  # b's ping waits for its grace ...
    assert not pan.rt.busy()  # ... on a timer: a running turn is not work in flight (the harness is idle)
    await pan.slash(b, "knock")  # b acted in time: his ping is dropped unsent
    await pan.slash(a, "draw")
    await pan.slash(a, "meld", cards="AC 2C 3C 4C")
    await pan.slash(a, "discard", card="7C")
    await pan.slash(b, "draw")
    assert mentions(pan) == [] and deletes(pan, first) == []
    assert not any((c.payload or {}).get("allowed_mentions", {}).get("users") for c in pan.h.fake.calls[first:])
    assert [p.user_id for p in boards(pan).pings.pending_pings()] == []  # b is still in his turn (he drew)


async def test_a_player_who_looked_away_is_pinged_on_the_previous_token(pan: Pan) -> None:
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    start = len(pan.h.fake.calls)
    knock = await pan.slash(a, "knock")
    assert mentions(pan) == []
    assert await pan.grace_passes() == 1  # b did not act within the grace
    (ping,) = pings(pan, b)
    assert "your turn to declare" in ping.content and "knocked" in ping.content
    call, data = creating_call(pan, ping)
    assert call.route.startswith("POST /webhooks/") and not call.global_limit  # a followup: not counted
    assert call.interaction_id == knock.interaction.id  # on the token of a's knock, the action that passed the turn
    assert data["allowed_mentions"] == {"parse": [], "users": [b.id]}  # only b: no roles, no @everyone
    first = len(pan.h.fake.calls)
    await pan.slash(b, "knock")  # the turn moves on: b's ping goes
    assert pan.h.fake.messages[ping.id].deleted and mentions(pan) == []
    (delete,) = deletes(pan, first)
    assert not delete.global_limit and delete.interaction_id == knock.interaction.id  # through the same token
    await pan.slash(a, "draw")  # a acted within his grace: no ping for him
    await pan.slash(a, "meld", cards="AC 2C 3C 4C")
    discard = await pan.slash(a, "discard", card="7C")
    await pan.grace_passes()
    (ping_b,) = pings(pan, b)
    assert "discarded 7♣" in ping_b.content
    assert creating_call(pan, ping_b)[0].interaction_id == discard.interaction.id
    hand_cards = {str(c) for c in pan.session().state.hand.players[1].hand}  # type: ignore[union-attr]
    assert not any(card in ping_b.content for card in hand_cards)  # a mention never reveals a card
    assert len(mentions(pan)) == 1  # one ping visible per table
    counted = [c.route for c in pan.h.fake.calls[start:] if c.global_limit and c.channel_id == pan.h.channel.id]
    assert counted == []  # the hand's pings, their deletes and the board: all on interaction tokens


async def test_a_slow_player_is_pinged_at_once_until_he_is_quick_again(pan: Pan) -> None:
    """Adaptive: a person pinged after the grace gets his next pings at once, on the acting player's answer (no
    call of their own); once he acts within the grace of such a ping, his pings wait for the grace again. The pace
    is read from ``Pings.now`` (injected here: 30 s pass without anyone sleeping)."""
    a, b = await pan.seat(2)
    clock = [1000.0]
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    boards(pan).pings.now = lambda: clock[0]
    await pan.slash(a, "knock")
    assert await pan.grace_passes() == 1  # b looked away: pinged after the grace
    await pan.slash(b, "knock")
    await pan.slash(a, "draw")
    for meld in ("AC 2C 3C 4C", "4D 5D 6D", "JH QH KH"):
        await pan.slash(a, "meld", cards=meld)
    discard = await pan.slash(a, "discard", card="7C")  # b was slow: his ping is a's answer itself, at once
    assert not discard.ephemeral and discard.type == 4 and f"<@{b.id}>, your turn" in discard.text
    assert boards(pan).pings.pending_pings() == []
    clock[0] += 30.0  # b takes 30 s over it: still slow
    await pan.slash(b, "draw")
    await pan.slash(b, "discard", card="6S")
    assert [p.user_id for p in boards(pan).pings.pending_pings()] == [a.id]  # a has always been quick: a grace
    await pan.slash(a, "draw")
    await pan.slash(a, "add", meld=1)  # a goes out
    assert pan.session().state.hand is None
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    knock = await pan.slash(a, "knock")
    assert f"<@{b.id}>, your turn" in knock.text and not knock.ephemeral  # still at once for b
    clock[0] += 1.0
    await pan.slash(b, "knock")  # within the grace: b is attentive again
    await pan.slash(a, "draw")
    await pan.slash(a, "meld", cards="AC 2C 3C 4C")
    discard = await pan.slash(a, "discard", card="7C")
    assert private_to(discard, a) and [p.user_id for p in boards(pan).pings.pending_pings()] == [b.id]


async def test_ping_after_zero_rides_on_the_acting_players_answer(pan: Pan) -> None:
    """``/panadmin config ping_after:0``: the ping goes at once, as the acting player's public response."""
    a, b = await pan.seat(2)
    config = await pan.slash(a, "panadmin config", ping_after=0.0)
    assert "Turn pings: at once." in config.text
    pan.stack(TWO_SHOE, first_seat=0)
    start = await pan.slash(a, "pan start")  # a declares first: no ping for the player who just acted
    assert start.message is not None and start.message.ephemeral and not pings(pan, a)
    knock = await pan.slash(a, "knock")
    assert not knock.ephemeral and knock.type == 4
    (ping,) = pings(pan, b)
    assert knock.message is not None and ping.id == knock.message.id
    call, data = creating_call(pan, ping)
    assert not call.global_limit and data["allowed_mentions"] == {"parse": [], "users": [b.id]}
    assert boards(pan).pings.pending_pings() == []
    await pan.slash(b, "knock")  # the turn comes back to a: b's ping goes, a's comes
    assert pan.h.fake.messages[ping.id].deleted and not pings(pan, b)
    assert not deletes(pan)[-1].global_limit  # deleted through the token that posted it
    (ping_a,) = pings(pan, a)
    assert "your turn: /draw" in ping_a.content


async def test_ping_after_out_of_range_is_refused_and_changes_nothing(pan: Pan) -> None:
    a, _ = await pan.seat(2)
    for bad in (-1.0, 61.0):  # Discord enforces the range; a forged value is refused by the bot too
        reply = await pan.slash(a, "panadmin config", ping_after=bad, preset="classic")
        assert private_to(reply, a) and "from 0 (ping at once) to 60" in reply.text
    assert (await pan.rt.display.get(pan.h.guild.id)).ping_after == 5.0
    shown = await pan.slash(a, "panadmin config", ping_after=12.5)
    assert "Turn pings: after 12.5 s without a move." in shown.text
    assert pan.rt.display.cached(pan.h.guild.id).ping_after == 12.5


async def test_pings_off_and_dms_every_turn(pan: Pan) -> None:
    a, b = await pan.seat(2)
    reply = await pan.slash(b, "pan settings", ping="off", dms="turn")
    assert "Turn pings: off" in reply.text and "DMs: turn" in reply.text
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    knock = await pan.slash(a, "knock")
    assert private_to(knock, a)
    assert "Your turn at the Pan table in #general." not in [m.content for m in pan.h.dms(b)]  # not within grace
    await pan.grace_passes()
    assert not pings(pan, b)  # no channel mention for b ...
    assert "Your turn at the Pan table in #general." in [m.content for m in pan.h.dms(b)]  # ... a DM instead


async def test_practice_pings_and_next_deals_ride_on_the_players_tokens(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/pan practice: the first board and the first ping go out on the practice command's token; when the
    practice player's turn comes back after the computer's, the ping rides on his last action's token."""
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    monkeypatch.setenv("PAN_BOT_NEXT_HAND_DELAY", "off")
    monkeypatch.setenv("PAN_DEAL_SEED", "8")
    pan = await pan_factory()
    a = pan.users[0]
    practice = await pan.slash(a, "pan practice", opponents=1, level="easy")
    board = pan.board()
    assert board.id in [m.id for m in practice.followups]  # the board: a followup on /pan practice
    assert await pan.grace_passes() == 1
    (ping,) = pings(pan, a)
    assert "your turn to declare" in ping.content
    call, data = creating_call(pan, ping)
    assert call.interaction_id == practice.interaction.id and not call.global_limit
    assert data["allowed_mentions"] == {"parse": [], "users": [a.id]}
    knock = await pan.slash(a, "knock")  # the computer declares next: a's ping is deleted, none for a computer
    assert pan.h.fake.messages[ping.id].deleted
    assert pan.session().state.hand is not None
    # a's turn again after the computer's declaration; a was slow last time, so his ping goes at once, on the
    # table's freshest *answered* token: the knock's if its answer is out by the time the computer has declared,
    # else the practice command's (a followup needs the interaction answered first; both are uncounted).
    assert await pan.grace_passes() == 0
    (again,) = pings(pan, a)
    carrier = creating_call(pan, again)[0]
    assert carrier.interaction_id in (knock.interaction.id, practice.interaction.id) and not carrier.global_limit
    counted = [c for c in pan.h.fake.calls if c.global_limit and c.channel_id == pan.h.channel.id]
    assert counted == []  # board, pings and deletes all on interaction tokens


async def test_without_a_valid_token_the_ping_and_the_result_go_to_the_channel(
    pan: Pan, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No token at the table is valid any more (their 15 minutes are over: ``TOKEN_LIFE`` 0 here): the late ping,
    its delete and the end-of-hand embed fall back to channel calls (counted), the ping still naming only b."""
    monkeypatch.setattr(pings_module, "TOKEN_LIFE", 0.0)
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    await pan.slash(a, "knock")
    assert await pan.grace_passes() == 1
    (ping,) = pings(pan, b)
    call, data = creating_call(pan, ping)
    assert call.route == "POST /channels/{channel_id}/messages" and call.global_limit
    assert data["allowed_mentions"] == {"parse": [], "users": [b.id]}
    await pan.slash(b, "sluff")  # b sits out: a alone plays, the hand ends
    assert pan.session().state.hand is None and pan.h.fake.messages[ping.id].deleted
    (delete,) = deletes(pan)
    assert delete.global_limit and delete.route.startswith("DELETE /channels/")
    ends = [c for c in pan.h.fake.calls if c.method == "POST" and "### Hand 1 is over" in json.dumps(c.payload or {})]
    assert len(ends) == 1 and ends[0].global_limit and ends[0].route == "POST /channels/{channel_id}/messages"
