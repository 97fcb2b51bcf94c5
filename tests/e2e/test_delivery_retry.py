"""App-level delivery retry (pancog/adapter/errors.py ``deliver``): when discord.py gives up on an interaction
answer after its own retries, the bot tries again, so the player still gets exactly one answer and the action
applies once."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import discord
import discord.webhook.async_
import pytest

import pancog.adapter.errors
from pancog.adapter.errors import deliver, is_transient
from tests.e2e.conftest import Pan, PanFactory
from tests.e2e.scenarios import TWO_SHOE

FOLLOWUP = "POST /interactions/*"  # #14.10: the answer is the initial response now (was the followup)


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Our backoff, and discord.py's webhook backoff (1, 3, 5, 7, 9 s after a 5xx), 100 times shorter."""
    monkeypatch.setattr(pancog.adapter.errors, "RETRY_DELAYS", (0.01, 0.03, 0.06))
    shim = types.SimpleNamespace(**{k: getattr(asyncio, k) for k in dir(asyncio) if not k.startswith("__")})

    async def sleep(delay: float, result: Any = None) -> Any:
        return await asyncio.sleep(delay / 100, result)

    shim.sleep = sleep
    monkeypatch.setattr(discord.webhook.async_, "asyncio", shim)


def injected(pan: Pan, status: int) -> int:
    return sum(1 for c in pan.h.fake.calls if c.route.startswith("POST /interactions/") and c.injected == str(status))


async def test_followup_500s_beyond_discordpy_retries_are_retried(pan: Pan) -> None:
    """Six 500s in a row on the followup: discord.py gives up after five, the bot's retry gets the answer through."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    await pan.slash(a, "knock")
    await pan.slash(b, "knock")
    seq = pan.session().state.seq
    pan.h.fake.fail_next(FOLLOWUP, status=500, count=6)
    reply = await pan.slash(a, "draw", timeout=15)
    assert injected(pan, 500) == 6
    assert len(reply.all_messages) == 1, "exactly one answer"
    assert reply.pngs and "Melds with the pluck" in reply.text, "the hand panel (with its image) arrived intact"
    assert pan.session().state.seq == seq + 1, "the draw was applied once"
    hand = pan.session().state.hand
    assert hand is not None and hand.players[0] is not None


async def test_followup_503s_and_429s_are_retried(pan: Pan) -> None:
    """Six 503s / six 429s: discord.py's webhook loop (5 attempts) gives up on both; the player gets one answer."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(b, "pan settings", ping="off")  # a's knock is answered privately (no public turn ping)
    await pan.slash(a, "pan settings", ping="off")
    await pan.slash(a, "pan start")
    before = await pan.fingerprint()
    pan.h.fake.fail_next(FOLLOWUP, status=503, count=6)
    reply = await pan.slash(a, "knock", timeout=10)
    assert injected(pan, 503) == 6 and len(reply.all_messages) == 1 and reply.ephemeral
    after = await pan.fingerprint()
    assert after != before and pan.session().state.seq == before[0].seq + 1  # type: ignore[attr-defined]
    pan.h.fake.fail_next(FOLLOWUP, status=429, count=6, retry_after=0.01)
    board = pan.board()
    reply = await pan.click(b, board, "Knock")  # a board button: the send_ephemeral path
    assert injected(pan, 429) == 6 and len(reply.all_messages) == 1
    assert pan.session().state.seq == before[0].seq + 2  # type: ignore[attr-defined]


async def test_first_board_of_pan_open_is_retried(pan_factory: PanFactory) -> None:
    pan = await pan_factory()
    a = pan.users[0]
    pan.h.fake.fail_next(FOLLOWUP, status=503, count=7)
    reply = await pan.slash(a, "pan open", timeout=10)
    assert injected(pan, 503) == 7
    boards = [m for m in pan.h.messages() if "table.png" in [f for f, _ in m.files]]
    assert len(boards) == 1 and reply.message is not None and reply.message.id == boards[0].id
    assert pan.session().board_message_id == boards[0].id
    assert pan.session().find_seat(a.id) == 0, "the host sat down once"


class FakeResponse:
    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "injected"


def http_error(status: int) -> discord.HTTPException:
    kind = {403: discord.Forbidden, 404: discord.NotFound}.get(status, discord.HTTPException)
    if status >= 500:
        kind = discord.DiscordServerError
    return kind(FakeResponse(status), {"message": "x", "code": 0})  # type: ignore[arg-type]


def test_only_transient_errors_are_retried() -> None:
    assert all(is_transient(http_error(s)) for s in (429, 500, 502, 503, 504))
    assert not any(is_transient(http_error(s)) for s in (400, 401, 403, 404))
    assert is_transient(ConnectionResetError()) and is_transient(TimeoutError())
    assert not is_transient(ValueError())


@pytest.mark.parametrize(("status", "attempts"), [(400, 1), (403, 1), (404, 1), (500, 4), (503, 4)])
async def test_deliver_attempts(status: int, attempts: int) -> None:
    calls = 0

    async def send() -> None:
        nonlocal calls
        calls += 1
        raise http_error(status)

    with pytest.raises(discord.HTTPException):
        await deliver(send)
    assert calls == attempts, "4xx never retried; 5xx retried len(RETRY_DELAYS) more times"


async def test_deliver_returns_the_first_success() -> None:
    results = iter([http_error(502), http_error(429), "sent"])

    async def send() -> str:
        item = next(results)
        if isinstance(item, Exception):
            raise item
        return item

    assert await deliver(send) == "sent"
