"""Bad input and forbidden moves: each gets exactly one private error and changes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.e2e.conftest import Pan, private_to
from tests.e2e.scenarios import TWO_SHOE
from tests.fakediscord.harness import Reply
from tests.fakediscord.models import FakeUser


async def started(pan: Pan) -> tuple[FakeUser, FakeUser, FakeUser]:
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    await pan.slash(a, "knock")
    await pan.slash(b, "knock")
    await pan.slash(a, "draw")
    return a, b, pan.users[2]


async def refused(pan: Pan, user: FakeUser, action: Any) -> Reply:
    before = await pan.fingerprint()
    public_before = len(pan.h.messages())
    reply: Reply = await action()
    assert private_to(reply, user), reply.text
    assert len(reply.all_messages) == 1, [m.text for m in reply.all_messages]
    assert await pan.fingerprint() == before
    assert len(pan.h.messages()) == public_before
    return reply


@pytest.mark.parametrize(
    ("command", "options", "words"),
    [
        ("meld", {"cards": "10H JH QH"}, "no 8s, 9s or 10s"),
        ("meld", {"cards": "ZZ"}, "no Pan rank"),
        ("meld", {"cards": "KS KS"}, "don't hold"),
        ("add", {"meld": 7, "cards": "5D"}, "no meld 7"),
        ("discard", {"card": "QQ"}, "no suit"),
    ],
)
async def test_refusals_bad_cards(pan: Pan, command: str, options: dict[str, Any], words: str) -> None:
    """Unreadable cards, cards not held and a meld that does not exist are refused privately."""
    a, _b, _c = await started(pan)
    reply = await refused(pan, a, lambda: pan.slash(a, command, **options))
    assert words in reply.text


async def test_refusals_out_of_turn_and_unseated(pan: Pan) -> None:
    """Out of turn, unseated, and a double click: one private error each, the table unchanged."""
    a, b, c = await started(pan)
    await refused(pan, b, lambda: pan.slash(b, "draw"))
    await refused(pan, c, lambda: pan.slash(c, "knock"))
    await refused(pan, c, lambda: pan.click(c, pan.board(), "Draw"))
    reply = await refused(pan, a, lambda: pan.click(a, pan.board(), "Draw"))  # already drawn: a double click
    assert "already drawn" in reply.text


async def test_refusals_double_click_declaration(pan: Pan) -> None:
    """The second click of a double click is refused privately and changes nothing."""
    a, _b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    board = pan.board()
    await pan.click(a, board, "Knock")
    await refused(pan, a, lambda: pan.click(a, board, "Knock"))


async def test_refusals_no_table(pan: Pan) -> None:
    """In-hand commands where no table is open get a private hint."""
    a = pan.users[0]
    reply = await pan.slash(a, "draw")
    assert private_to(reply, a) and "/pan open" in reply.text
    reply = await pan.slash(a, "pan join")
    assert private_to(reply, a) and "/pan open" in reply.text


async def test_refusals_unexpected_error_is_logged_and_private(pan: Pan, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug (not a PanError) is logged and answered privately with the safe sentence; nothing changes."""
    a, _b, _c = await started(pan)

    async def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk on fire")

    async def discard_without_harness_error_check() -> Reply:
        # the harness fails any interaction during which the bot logs an ERROR; here that log is the point
        data = pan.h._command_data(pan.h.channel, "discard", {"card": "4C"})
        interaction = await pan.h.fake.create_interaction(
            type=2, user=a, channel=pan.h.channel, data=data, label="/discard (broken store)"
        )
        for _ in range(400):
            if interaction.settled:
                break
            await asyncio.sleep(0.01)
        await pan.settle()
        return Reply(interaction, pan.h.fake)

    monkeypatch.setattr(pan.rt.tables.store, "commit_action", broken)
    reply = await refused(pan, a, discard_without_harness_error_check)
    assert "Something went wrong — the table is unchanged." in reply.text
    found = pan.h.forgive()
    assert any("disk on fire" in line or "unexpected error" in line for line in found)


async def test_refusals_table_in_a_thread(pan: Pan) -> None:
    """A table can live in a thread; the channel next to it has none."""
    a, b = pan.users[:2]
    await pan.slash(a, "pan open", channel=pan.h.thread)
    await pan.slash(b, "pan join", channel=pan.h.thread)
    assert len([s for s in pan.session(pan.h.thread).state.seats if s]) == 2
    reply = await pan.slash(b, "pan join")
    assert private_to(reply, b) and "/pan open" in reply.text
