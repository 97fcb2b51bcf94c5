"""Fixtures for Pan end-to-end tests: the real bot on the fake Discord, plus table-aware helpers.

``pan`` (4 members) and ``pan_factory(members=8)`` give a :class:`Pan` driver. Every driver checks at
teardown that the ledger audit balances, that every open table's engine stacks equal its ledger stacks, and
that every interaction was answered (its latency is a benchmark figure: bench/discord_calls.py), and that
every public message the bot posted was Components V2 or on the allowlist (``tests/e2e/public_posts.py``).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import pytest

from pancog.adapter.board import Board
from pancog.adapter.runtime import PanRuntime, runtime_of
from pancog.game.cards import Card
from pancog.services.tables import TableSession
from tests.e2e.public_posts import classic_posts
from tests.fakediscord.harness import Harness, Reply
from tests.fakediscord.models import FakeChannel, FakeMessage, FakeUser

FAST_EDIT_INTERVAL = 0.02


class Pan:
    """Drive a table like players would, waiting for the bot (boards, DMs) to settle after each step."""

    def __init__(self, harness: Harness) -> None:
        self.h = harness
        if "PAN_BOARD_INTERVAL" not in os.environ:  # fast boards, unless the test configures them as an admin would
            self.rt.edit_interval = FAST_EDIT_INTERVAL

    @property
    def rt(self) -> PanRuntime:
        return runtime_of(self.h.bot)

    @property
    def users(self) -> list[FakeUser]:
        return self.h.users

    async def settle(self) -> None:
        """Wait until the bot is quiescent (the harness awaits its handlers and the runtime's in-flight work)."""
        await self.h.idle()

    async def slash(self, user: FakeUser, command: str, /, **options: Any) -> Reply:
        reply = await self.h.slash(user, command, **options)
        await self.settle()
        return reply

    async def click(self, user: FakeUser, message: FakeMessage, target: str) -> Reply:
        reply = await self.h.click(user, message, target)
        await self.settle()
        return reply

    async def select(self, user: FakeUser, message: FakeMessage, custom_id: str, values: list[str]) -> Reply:
        reply = await self.h.select(user, message, custom_id, values)
        await self.settle()
        return reply

    async def close(self, user: FakeUser, channel: FakeChannel | None = None) -> Reply:
        """``/pan close``, confirming with "Close the table" when it asks (mid-hand, issue #14.7)."""
        reply = await self.slash(user, "pan close", **({"channel": channel} if channel else {}))
        ask = reply.message
        if ask is not None and "Close the table" in [b.get("label") for b in ask.buttons]:
            reply = await self.click(user, ask, "Close the table")
        return reply

    def session(self, channel: FakeChannel | None = None) -> TableSession:
        return self.rt.tables.in_channel((channel or self.h.channel).id)

    def board(self, channel: FakeChannel | None = None) -> FakeMessage:
        session = self.session(channel)
        assert session.board_message_id is not None, "no board posted"
        message = self.h.fake.messages[session.board_message_id]
        assert not message.deleted
        return message

    def stack(self, shoe: Sequence[Card], *, first_seat: int | None = 0, channel: FakeChannel | None = None) -> None:
        self.rt.tables.stack_next_hand(self.session(channel).table_id, shoe, first_seat=first_seat)

    async def seat(self, n: int, *, channel: FakeChannel | None = None, **open_options: Any) -> list[FakeUser]:
        """``users[0]`` opens (and is seated); ``users[1..n-1]`` join. Returns the n players."""
        players = self.users[:n]
        await self.slash(players[0], "pan open", channel=channel, **open_options)
        for player in players[1:]:
            await self.slash(player, "pan join", channel=channel)
        return players

    async def grace_passes(self) -> int:
        """The player to act lets the turn ping's grace (``/panadmin config ping_after``) run out: every ping
        still waiting goes out now (the injectable clock of the pings: no test sleeps through a grace). Returns
        how many were sent, once the bot has settled."""
        boards = next((b.boards for b in self.rt.boards.values() if isinstance(b, Board)), None)
        sent = boards.pings.end_graces() if boards is not None else 0
        await self.settle()
        return sent

    async def fingerprint(self, channel: FakeChannel | None = None) -> tuple[object, object]:
        """(engine state, table balances in the ledger): equal before and after a refused action."""
        session = self.session(channel)
        async with self.rt.storage.transaction(write=False) as tx:
            balances = await tx.table_balances(session.table_id)
        return session.state, balances

    def check_acks(self) -> None:
        """Every interaction was answered. (How fast, against Discord's 3 seconds, is a benchmark figure: a test
        asserts no wall-clock time, which a loaded machine would break.)"""
        for interaction in self.h.fake.interactions.values():
            if interaction.abandoned:
                continue
            assert interaction.callback_at is not None, f"{interaction.label} was never answered"

    def check_public_v2(self) -> None:
        """Every public message the bot posted was Components V2, or is on the allowlist (a turn ping)."""
        classic = classic_posts(self.h.fake)
        assert not classic, "public messages posted without Components V2:\n  " + "\n  ".join(classic)

    async def check_books(self) -> None:
        report = await self.rt.ledger.audit()
        assert report.ok, report.summary()
        for session in self.rt.tables.sessions:
            assert await self.rt.tables.check_books(session.table_id) == []


PanFactory = Callable[..., Awaitable[Pan]]


@pytest.fixture
async def pan_factory(harness_factory: Callable[..., Awaitable[Harness]]) -> AsyncIterator[PanFactory]:
    made: list[Pan] = []

    async def make(**options: Any) -> Pan:
        driver = Pan(await harness_factory(**options))
        made.append(driver)
        return driver

    yield make
    for driver in made:
        if driver.h.bot is not None:
            await driver.settle()
            await driver.check_books()
            driver.check_acks()
        driver.check_public_v2()


@pytest.fixture
async def pan(pan_factory: PanFactory) -> Pan:
    return await pan_factory()


def private_to(reply: Reply, user: FakeUser) -> bool:
    """Every message of a reply is ephemeral and visible only to ``user``."""
    return all(m.ephemeral and m.visible_to == user.id for m in reply.all_messages)


@pytest.fixture
def hands(pan: Pan) -> Any:
    """Record every player's cards (for the privacy check)."""
    from tests.e2e.privacy import HandRecorder

    recorder = HandRecorder()
    pan.rt.tables.subscribe(recorder)
    return recorder
