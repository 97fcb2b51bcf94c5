"""Issue #14.10: an interaction is answered once (the initial response carries the answer, files included), and
a slow answer is still acknowledged in time (a scheduled defer, then the followup)."""

from __future__ import annotations

import asyncio

import pytest

from pancog.adapter import ack
from tests.e2e.conftest import Pan, private_to
from tests.e2e.scenarios import TWO_SHOE
from tests.fakediscord.models import FakeUser


def interaction_calls(pan: Pan, interaction_id: int) -> list[str]:
    return [c.route for c in pan.h.fake.calls if c.interaction_id == interaction_id]


async def started(pan: Pan) -> tuple[FakeUser, FakeUser]:
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    return a, b


async def test_a_command_and_a_click_cost_one_interaction_call(pan: Pan) -> None:
    a, b = await started(pan)
    await pan.slash(b, "pan settings", ping="off")  # so that a's knock is answered privately (no turn ping)
    reply = await pan.slash(a, "knock")
    assert reply.type == 4 and private_to(reply, a)  # the answer itself, not "thinking…" then a followup
    assert len(interaction_calls(pan, reply.interaction.id)) == 1
    reply = await pan.click(b, pan.board(), "Knock")  # a is not pinged before his grace ends: the answer alone
    assert reply.type == 4 and private_to(reply, b) and "<@" not in reply.text
    assert len(interaction_calls(pan, reply.interaction.id)) == 1
    reply = await pan.slash(a, "draw")  # the hand panel's image goes in the initial response
    assert reply.type == 4 and reply.pngs and not reply.followups
    panel = reply.message
    assert panel is not None
    menu = next(c for c in panel.iter_components() if str(c.get("custom_id", "")).endswith(":play"))
    choice = next(o for o in menu["options"] if o["label"].startswith("Meld A♣ 2♣ 3♣"))
    chosen = await pan.select(a, panel, menu["custom_id"], [choice["value"]])
    assert chosen.type == 7  # the panel is edited in place by the response itself (no defer, no second call)
    assert len(interaction_calls(pan, chosen.interaction.id)) == 1
    assert "Melded" in pan.h.fake.messages[panel.id].text


async def test_a_slow_answer_is_deferred_then_followed_up(pan: Pan, monkeypatch: pytest.MonkeyPatch) -> None:
    a, _b = await started(pan)
    monkeypatch.setattr(ack, "ACK_AFTER", 0.05)
    real_act = pan.rt.tables.act

    async def slow_act(*args: object, **kwargs: object) -> object:
        await asyncio.sleep(0.3)  # the database or the table lock is slow
        return await real_act(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pan.rt.tables, "act", slow_act)
    await pan.slash(pan.users[1], "pan settings", ping="off")
    reply = await pan.slash(a, "knock")
    assert reply.type == 5  # acknowledged ("thinking…") before the answer was ready
    assert private_to(reply, a) and "knocked" in reply.text
    assert interaction_calls(pan, reply.interaction.id) == [
        "POST /interactions/{interaction_id}/{token}/callback",
        "POST /webhooks/{app_id}/{token}",
    ]


async def test_a_slow_answer_still_carries_the_turn_ping_publicly(pan: Pan, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ping_after:0`` (ping at once): deferred privately ("thinking…"), the first followup stays private; the
    ping is a second, public one."""
    a, b = await pan.seat(2)
    await pan.slash(a, "panadmin config", ping_after=0.0)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    monkeypatch.setattr(ack, "ACK_AFTER", 0.05)
    real_act = pan.rt.tables.act

    async def slow_act(*args: object, **kwargs: object) -> object:
        await asyncio.sleep(0.3)
        return await real_act(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pan.rt.tables, "act", slow_act)
    reply = await pan.slash(a, "knock")
    private, public = reply.all_messages
    assert private.ephemeral and private.visible_to == a.id and "You knocked" in private.text
    assert not public.ephemeral and f"<@{b.id}>, your turn" in public.content
