"""Issue 7 through the fake Discord: the turn clock, away and back, Discord faults, moderators, concurrency."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterable

import pytest

from pancog.adapter.runtime import PanRuntime
from pancog.game.actions import StartHand
from pancog.game.state import PlayerStatus
from pancog.services.clock import ClockNotice
from tests.e2e.conftest import Pan, PanFactory
from tests.e2e.scenarios import TWO_SHOE
from tests.fakediscord.models import FakeUser

STARTING_CHIPS = 1000


class Watch:
    """Collects the clock's notices; ``await watch.until(kind, n)`` waits for the n-th of a kind."""

    def __init__(self, ops: PanRuntime) -> None:
        self.notices: list[ClockNotice] = []
        self._changed = asyncio.Event()
        assert ops.clock is not None
        ops.clock.observe(self._on)

    def _on(self, notice: ClockNotice) -> None:
        self.notices.append(notice)
        self._changed.set()

    def of(self, kind: str) -> list[ClockNotice]:
        return [n for n in self.notices if n.kind == kind]

    async def until(self, kind: str, n: int = 1, timeout: float = 10.0) -> ClockNotice:
        async with asyncio.timeout(timeout):
            while len(self.of(kind)) < n:
                self._changed.clear()
                await self._changed.wait()
        return self.of(kind)[n - 1]


def ops(pan: Pan) -> PanRuntime:
    """The runtime: the turn clock and the health registry are services on it."""
    return pan.rt


async def settle(pan: Pan) -> None:
    """The bot, its boards, DMs, clock actions and board retries have all finished."""
    for _ in range(400):
        await pan.settle()
        await ops(pan).clock.drain()
        if not ops(pan).busy() and not pan.rt.busy():
            await pan.h.idle()
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the bot never settled")


def deal_next(pan: Pan, seed: int = 7, first_seat: int = 0) -> None:
    pan.session().stacked.append(StartHand(seed=seed, first_seat=first_seat))


async def banks(pan: Pan, users: Iterable[FakeUser]) -> dict[int, int]:
    guild = pan.h.guild.id
    return {u.id: await pan.rt.ledger.balance(guild, u.id) for u in users}


def every_interaction_answered_once(pan: Pan) -> None:
    fake = pan.h.fake
    for interaction in fake.interactions.values():
        if interaction.type == 4:
            continue  # autocomplete
        assert interaction.settled, f"{interaction.label} was never answered"
        # Answered by a callback (not a timeout). *When* is the ack policy's business, tested with an injected
        # delay in test_answer_once.py; a wall-clock bound here failed on a starved machine (3.3 s at load 20).
        assert interaction.callback_at is not None, f"{interaction.label} had no callback"
    callbacks = [c for c in fake.calls if c.route.endswith("/callback")]
    assert all(c.status < 400 for c in callbacks), [c.status for c in callbacks if c.status >= 400]
    per_interaction: dict[int | None, int] = {}
    for call in callbacks:
        per_interaction[call.interaction_id] = per_interaction.get(call.interaction_id, 0) + 1
    assert set(per_interaction.values()) <= {1}, per_interaction


# ----------------------------------------------------------------------------- the turn clock


async def test_resilience_turn_clock_warns_and_times_out_on_the_board(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 10 s turn + 60 s bank at 100x: the board counts down, warns, and the timeouts keep the hand moving."""
    monkeypatch.setenv("PAN_CLOCK_SCALE", "100")
    monkeypatch.setenv("PAN_TIME_BANK_SECONDS", "60")
    pan = await pan_factory()
    watch = Watch(ops(pan))
    a, b = await pan.seat(2, turn_seconds=10)
    pan.stack(TWO_SHOE, first_seat=0)
    dealt = time.time()
    await pan.slash(b, "pan start")
    answered = time.time()
    countdown = re.search(r"⏱ (\S+) to play · time runs out <t:(\d+):R>", pan.board().seen().text)
    assert countdown is not None, pan.board().seen().text  # Discord renders the countdown live, no edits needed
    # the deadline is a timestamp the clock computed between the command and its answer (not a speed limit)
    assert countdown[1] in (a.name, b.name) and dealt < int(countdown[2]) + 1 < answered + 2 * 0.7 + 2
    await watch.until("timeout", 2)  # A, then B: nobody answered
    await settle(pan)
    assert [n.player_id for n in watch.of("timeout")] == [a.id, b.id]
    assert {n.player_id for n in watch.of("warning")} == {a.id, b.id}
    last = pan.session().state.last_hand
    assert last is not None and {p.status for p in last.players if p is not None} == {PlayerStatus.RETIRED}
    text = (await pan.click(a, pan.board(), "Text view")).text  # #14.4: the recent events are behind Text view
    assert "time ran out" in text and "s left to play" in text
    assert "Start" in [btn["label"] for btn in pan.board().buttons]
    every_interaction_answered_once(pan)


async def test_resilience_away_back_and_stood_up(pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two expiries in a row: away (told by DM); /pan back returns him; next time he is stood up at the hand's end."""
    monkeypatch.setenv("PAN_CLOCK_SCALE", "10")  # a 10 s turn lasts 1 s: time enough for B and C to answer
    monkeypatch.setenv("PAN_TIME_BANK_SECONDS", "0")
    pan = await pan_factory()
    watch = Watch(ops(pan))
    a, b, c = await pan.seat(3, turn_seconds=10)
    before = await banks(pan, (a, b, c))

    async def hand_where_a_times_out(n: int) -> None:
        deal_next(pan, seed=n)
        await pan.slash(c, "pan start")
        await watch.until("timeout", n)  # A sleeps through his declaration
        await pan.slash(b, "knock")
        await pan.slash(c, "sluff")
        await settle(pan)

    await hand_where_a_times_out(1)
    deal_next(pan, seed=2)
    await pan.slash(c, "pan start")
    await watch.until("away")
    await settle(pan)
    assert pan.session().state.seats[0].away  # type: ignore[union-attr]
    assert any("/pan back" in m.text for m in pan.h.dms(a))
    reply = await pan.slash(a, "pan back")
    assert reply.ephemeral and "Welcome back" in reply.text
    assert not pan.session().state.seats[0].away  # type: ignore[union-attr]
    await pan.slash(b, "knock")
    await pan.slash(c, "sluff")
    await settle(pan)
    assert pan.session().find_seat(a.id) == 0, "back in time: still seated after the hand"
    # Two more expiries: away again, and this time stood up when the hand ends.
    await hand_where_a_times_out(3)
    deal_next(pan, seed=4)
    await pan.slash(c, "pan start")
    await watch.until("away", 2)
    stack = pan.session().state.seats[0].stack  # type: ignore[union-attr]
    await pan.slash(b, "knock")
    await pan.slash(c, "sluff")
    await watch.until("stood")
    await settle(pan)
    assert pan.session().find_seat(a.id) is None
    after = await banks(pan, (a,))
    assert after[a.id] == before[a.id] + stack
    reply = await pan.slash(a, "pan back")
    assert reply.ephemeral and "not seated" in reply.text
    every_interaction_answered_once(pan)


# ----------------------------------------------------------------------------- Discord faults


async def test_resilience_faults_during_a_hand(pan: Pan) -> None:
    """429s, a 500, a 503 that discord.py gives up on, and a gateway drop: the hand finishes, the board is current."""
    fake = pan.h.fake
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    # Dealt without an interaction (as a practice table's next hand is), so the board is a channel message edited
    # by counted calls; a deal by Start is edited through its token instead (test_quiet_board.py).
    await pan.rt.tables.start_hand(pan.session().table_id, a.id)
    await settle(pan)
    edit = "PATCH /channels/*/messages/*"
    fake.fail_next(edit, status=429, count=2, retry_after=0.05)
    fake.fail_next("POST /webhooks/*", status=429, count=1, retry_after=0.05)
    await pan.slash(a, "knock")
    fake.fail_next(edit, status=500, count=1)  # discord.py retries after 1 s
    await pan.slash(b, "knock")
    await settle(pan)
    await fake.drop_gateway()
    fake.fail_next(edit, status=503, count=1)  # not retried by discord.py: the board updater must retry
    await pan.slash(a, "draw")
    await settle(pan)
    board = pan.board()
    assert "Card up" in board.seen().text, "the failed edit was re-rendered with the latest state"
    await pan.slash(a, "meld", cards="AC 2C 3C")
    await pan.slash(a, "meld", cards="4D 5D 6D")
    await fake.drop_gateway()
    await pan.slash(a, "meld", cards="JH QH KH")
    await pan.slash(a, "discard", card="7C")
    await pan.slash(b, "draw")
    fake.fail_next(edit, status=429, count=3, retry_after=0.05)
    await pan.slash(b, "discard", card="6S")
    await pan.slash(a, "draw")
    reply = await pan.slash(a, "add", meld=1)
    assert "went out" in reply.text
    await settle(pan)
    injected = {c.status for c in fake.calls if c.injected}
    assert {429, 500, 503} <= injected
    assert sum("resume" in line for line in fake.gateway_log) >= 2
    assert ops(pan).health.counters["gateway_resumed"] >= 2
    assert ops(pan).health.counters["board_retries"] >= 1
    assert "Start" in [btn["label"] for btn in pan.board().buttons]  # the board shows the finished hand
    last = pan.session().state.last_hand
    assert last is not None and last.winner == 0
    every_interaction_answered_once(pan)


async def test_resilience_deleted_board_is_posted_again(pan: Pan) -> None:
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    old = pan.board()
    await pan.h.fake.delete_message(old)
    await settle(pan)
    new = pan.board()
    assert new.id != old.id and not new.deleted and old.deleted
    assert "Knock" in [btn["label"] for btn in new.buttons]
    reply = await pan.click(a, new, "Knock")
    assert "You knocked" in reply.text and reply.ephemeral  # the reposted board's buttons work
    await pan.grace_passes()  # b looks away: his ping still goes out on a's token
    assert [m for m in pan.h.messages() if f"<@{b.id}>, your turn" in m.content]
    assert ops(pan).health.counters["boards_reposted"] == 1
    every_interaction_answered_once(pan)


async def test_resilience_deleted_channel_closes_the_table(pan: Pan) -> None:
    """Mid-hand, a moderator deletes the channel: the table closes and every chip goes back to a bank."""
    channel = pan.h.channel_named("pan-1")
    a, b = await pan.seat(2, channel=channel)
    before = await banks(pan, (a, b))
    table_id = pan.session(channel).table_id
    stacks = {s.player_id: s.stack for s in pan.session(channel).state.seats if s is not None}
    pan.stack(TWO_SHOE, first_seat=0, channel=channel)
    await pan.slash(a, "pan start", channel=channel)
    await pan.slash(a, "knock", channel=channel)
    await pan.h.fake.delete_channel(channel)
    await settle(pan)
    assert pan.rt.tables.find_in_channel(channel.id) is None
    row = await pan.rt.store.get_table(table_id)
    assert row is not None and row.status == "closed"
    after = await banks(pan, (a, b))
    assert sum(after.values()) == sum(before.values()) + sum(stacks.values())  # nothing lost on the table
    assert any("channel was deleted" in m.text for m in pan.h.dms(a))  # the host is told
    assert ops(pan).health.counters["channels_deleted"] == 1


async def test_resilience_missing_permissions_told_to_the_host(pan: Pan) -> None:
    """The bot cannot post in the channel: logged, on /pan status, the host told by DM; it recovers after."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    pan.h.fake.deny(pan.h.channel)
    # A deal without an interaction (a practice table's next hand): the new board is a channel post, which fails.
    # (A deal by Start posts the board on the Start's token, which needs no channel permission.)
    await pan.rt.tables.start_hand(pan.session().table_id, b.id)
    await settle(pan)
    assert any("missing permissions" in m.text for m in pan.h.dms(a))
    status = await pan.slash(pan.h.moderator, "panadmin status")
    assert status.ephemeral and "last error" in status.text and "hands in progress 1" in status.text
    denied = [c for c in pan.h.fake.calls if c.status == 403]
    assert denied and all(c.channel_id == pan.h.channel.id for c in denied)
    pan.h.fake.deny(pan.h.channel, False)
    await pan.slash(a, "knock")
    await settle(pan)
    board = pan.board()  # the next move brings the board back, showing the current hand
    assert "hand 1, declaring" in board.seen().text and "Knock" in [btn["label"] for btn in board.buttons]
    every_interaction_answered_once(pan)


# ----------------------------------------------------------------------------- admin commands


async def test_resilience_status_and_audit_for_moderators(pan: Pan) -> None:
    await pan.seat(2)
    reply = await pan.slash(pan.h.moderator, "panadmin status")
    assert reply.ephemeral and "open tables 1" in reply.text and "players 2" in reply.text
    assert "idle close" in reply.text
    reply = await pan.slash(pan.h.moderator, "panadmin audit")
    assert reply.ephemeral and reply.text.startswith("Ledger audit: OK")


# ----------------------------------------------------------------------------- concurrency


async def test_resilience_twenty_simultaneous_actions(pan: Pan) -> None:
    """20 clicks and commands at once on one table: each answered once, only legal ones applied, in order."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    board = pan.board()
    session = pan.session()
    seq0 = session.state.seq
    applied: list[tuple[int | None, str]] = []
    pan.rt.tables.subscribe(lambda ap: applied.append((ap.actor, type(ap.action).__name__)))
    h = pan.h
    actions = []
    for i in range(20):
        user = (a, b)[i % 2]
        if i % 4 == 0:
            actions.append(h.click(user, board, "Knock", settle=False))
        elif i % 4 == 1:
            actions.append(h.slash(user, "knock", settle=False))
        elif i % 4 == 2:
            actions.append(h.slash(user, "draw", settle=False))
        else:
            actions.append(h.click(user, board, "Sluff", settle=False))
    replies = await asyncio.gather(*actions)
    await settle(pan)
    assert len(replies) == 20 and all(r.ephemeral or "your turn" in r.text for r in replies)  # #14.1: pings
    state = pan.session().state
    assert state.seq == seq0 + len(applied) and 2 <= len(applied) <= 4
    assert [actor for actor, _ in applied][:2] == [a.id, b.id]  # A declares first, then B, whatever the order
    for reply in replies:
        assert reply.text.strip(), "every action got an answer"
    every_interaction_answered_once(pan)
    fresh = await pan.rt.store.read_log(session.table_id)
    assert [seq for seq, _, _ in fresh] == list(range(1, state.seq + 1))


async def test_resilience_table_in_a_thread_closes_with_its_parent_channel(pan: Pan) -> None:
    a, b = await pan.seat(2, channel=pan.h.thread)
    before = await banks(pan, (a, b))
    stacks = sum(s.stack for s in pan.session(pan.h.thread).state.seats if s is not None)
    await pan.h.fake.delete_channel(pan.h.channel)  # the thread's parent
    await settle(pan)
    assert pan.rt.tables.find_in_channel(pan.h.thread.id) is None
    assert sum((await banks(pan, (a, b))).values()) == sum(before.values()) + stacks
