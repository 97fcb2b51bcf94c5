"""Issue #14.7: leaving during a hand and closing a table mid-hand ask first (an ephemeral Yes / No)."""

from __future__ import annotations

from tests.e2e.conftest import Pan, private_to
from tests.e2e.scenarios import THREE_SHOE, TWO_SHOE


def labels(message: object) -> list[str]:
    return [b["label"] for b in getattr(message, "buttons", [])]


async def test_leave_mid_hand_asks_first(pan: Pan) -> None:
    a, b, c = await pan.seat(3)  # three, so the hand goes on without b
    pan.stack(THREE_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    for user in (a, b, c):
        await pan.slash(user, "knock")
    before = await pan.fingerprint()
    ask = await pan.click(b, pan.board(), "Leave")
    assert private_to(ask, b) and "keep paying to its end" in ask.text
    assert ask.message is not None and labels(ask.message) == ["Leave", "Stay"]
    assert await pan.fingerprint() == before  # asking changed nothing
    kept = await pan.click(b, ask.message, "Stay")
    assert kept.type == 7 and "Nothing changed." in pan.h.fake.messages[ask.message.id].text
    assert labels(pan.h.fake.messages[ask.message.id]) == [] and await pan.fingerprint() == before
    ask = await pan.slash(b, "pan leave")
    assert ask.message is not None
    done = await pan.click(b, ask.message, "Leave")
    assert done.type == 7 and "leave when this hand ends" in pan.h.fake.messages[ask.message.id].text
    hand = pan.session().state.hand
    assert hand is not None and hand.players[1] is not None and hand.players[1].status.value == "quit"


async def test_leave_between_hands_needs_no_confirmation(pan: Pan) -> None:
    _a, b = await pan.seat(2)
    reply = await pan.slash(b, "pan leave")
    assert private_to(reply, b) and "stack is back in your bank" in reply.text and not reply.components


async def test_close_mid_hand_asks_first(pan: Pan) -> None:
    a, _b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    ask = await pan.slash(a, "pan close")
    assert private_to(ask, a) and "middle of a hand" in ask.text and ask.message is not None
    assert labels(ask.message) == ["Close the table", "Keep playing"]
    assert pan.rt.tables.find_in_channel(pan.h.channel.id) is not None
    done = await pan.click(a, ask.message, "Close the table")
    assert pan.rt.tables.find_in_channel(pan.h.channel.id) is None
    public = [m for m in done.followups if not m.ephemeral]
    assert len(public) == 1 and "Table closed" in public[0].text  # everyone sees it, on the same token
