"""Practice tables through Discord: one board per hand, and one person against the computer players only."""

from __future__ import annotations

import json

import pytest

from pancog.services.ledger import BankScope
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.fakediscord.models import FakeChannel, FakeMessage


@pytest.fixture(autouse=True)
def fast_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Computer players act at once; practice tables wait for Start; deals are reproducible."""
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    monkeypatch.setenv("PAN_BOT_NEXT_HAND_DELAY", "off")
    monkeypatch.setenv("PAN_DEAL_SEED", "8")


def board_posts(pan: Pan, channel: FakeChannel | None = None) -> list[FakeMessage]:
    """Every public message in the channel that carries the table image (a board), deleted or not."""
    channel_id = (channel or pan.h.channel).id
    return [
        m
        for m in pan.h.fake.messages.values()
        if m.channel_id == channel_id and not m.ephemeral and "table.png" in [name for name, _ in m.files]
    ]


async def test_practice_posts_one_board_for_the_first_hand(pan_factory: PanFactory) -> None:
    """/pan practice: the seating and the first deal end in exactly one board message, showing hand 1.

    (Seating the computers used to post a "waiting to deal" board, with a Join button, before the deal posted
    the hand's own board; whether it did depended on timing, so four channels are tried.)
    """
    pan = await pan_factory()
    channels = [*pan.h.guild.channels[:3], pan.h.thread]
    for me, channel in zip(pan.users, channels, strict=True):
        await pan.slash(me, "pan practice", channel=channel, opponents=3)
    for channel in channels:
        posts = board_posts(pan, channel)
        assert len(posts) == 1, (channel.name, [m.content[:60] for m in posts])
        assert posts[0].id == pan.board(channel).id and "hand 1" in posts[0].text
        assert "Join" not in [b.get("label") for b in posts[0].buttons]


async def test_practice_posts_one_board_per_hand(pan_factory: PanFactory) -> None:
    """The second hand (Start between hands) gets its own board: one more, not two."""
    pan = await pan_factory()
    me = pan.users[0]
    await pan.slash(me, "pan practice", opponents=1)
    session = pan.session()
    seat = session.seat_of(me.id)
    for _ in range(40):  # sluff until the hand is over (the computer then takes the tops)
        state = pan.session().state
        if state.hand is None:
            break
        board = pan.board()
        labels = [b.get("label") for b in board.buttons]
        if "Sluff" in labels and state.seat(seat) is not None:
            await pan.click(me, board, "Sluff")
        else:
            break
    if pan.session().state.hand is not None:
        pytest.skip("this deal does not end by sluffing")  # pragma: no cover - the seeded deal does
    await pan.click(me, pan.board(), "Start")
    posts = board_posts(pan)
    assert len(posts) == 2 and "hand 2" in posts[-1].text
    # the old board keeps its words and image (a V2 message cannot lose every component) but nothing to click
    old = posts[0].seen()
    assert posts[0].v2 and "Hand 1 is over" in old.text and [i.name for i in old.images] == ["table.png"]
    assert old.buttons == [] and posts[-1].seen().buttons


async def test_second_person_cannot_join_a_practice_table_by_command(pan_factory: PanFactory) -> None:
    """/pan join at someone's practice table: refused privately; no seat, no chips move anywhere."""
    pan = await pan_factory()
    me, other = pan.users[0], pan.users[1]
    await pan.slash(other, "pan balance")
    await pan.slash(me, "pan practice", opponents=1)
    guild = pan.h.guild.id
    banks = (
        await pan.rt.ledger.balance(guild, other.id),
        await pan.rt.ledger.balance(BankScope.practice(guild), other.id),
    )
    before = await pan.fingerprint()
    reply = await pan.slash(other, "pan join")
    assert private_to(reply, other) and "practice table" in reply.text.lower()
    assert "/pan practice" in reply.text
    assert await pan.fingerprint() == before
    assert pan.session().find_seat(other.id) is None
    assert (
        await pan.rt.ledger.balance(guild, other.id),
        await pan.rt.ledger.balance(BankScope.practice(guild), other.id),
    ) == banks


async def test_second_person_cannot_click_join_on_a_practice_board(pan_factory: PanFactory) -> None:
    """The Join button of a practice board between hands: the same private refusal, nothing changes."""
    pan = await pan_factory()
    me, other = pan.users[0], pan.users[1]
    await pan.slash(me, "pan practice", opponents=1, real_chips=True)
    session = pan.session()
    seat = session.seat_of(me.id)
    for _ in range(40):
        state = pan.session().state
        if state.hand is None:
            break
        labels = [b.get("label") for b in pan.board().buttons]
        if "Sluff" not in labels or engine_to_act(pan) != seat:
            break
        await pan.click(me, pan.board(), "Sluff")
    assert pan.session().state.hand is None, "the seeded deal ends when the only person sluffs"
    board = pan.board()
    assert "Join" not in [b.get("label") for b in board.buttons]  # #14.8: a practice board offers no Join
    assert "Press **Start** to deal it." in board.seen().text and "Join, then" not in board.seen().text
    guild = pan.h.guild.id
    bank = await pan.rt.ledger.ensure_player(guild, other.id)
    before = await pan.fingerprint()
    reply = await pan.slash(other, "pan join")
    assert private_to(reply, other) and "practice table" in reply.text.lower()
    reply = await pan.slash(other, "draw")  # #14.8: told whose practice table it is, not to /pan join
    assert private_to(reply, other) and "practice table" in reply.text and "/pan join" not in reply.text
    assert await pan.fingerprint() == before
    assert await pan.rt.ledger.balance(guild, other.id) == bank
    # the person who opened it may still sit down again after leaving
    await pan.click(me, pan.board(), "Leave")
    assert pan.session().find_seat(me.id) is None
    reply = await pan.slash(me, "pan join")
    assert private_to(reply, me) and "sat down" in reply.text
    assert pan.session().find_seat(me.id) is not None


def engine_to_act(pan: Pan) -> int | None:
    from pancog.game import engine

    return engine.to_act(pan.session().state)


async def test_practice_next_deal_rides_on_the_players_token(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #14 follow-up: a practice table deals its next hand by itself; that hand's board, and the hand's
    result before it, go out as followups on the practice player's last interaction (not counted)."""
    monkeypatch.setenv("PAN_BOT_NEXT_HAND_DELAY", "0")
    pan = await pan_factory()
    me = pan.users[0]
    await pan.slash(me, "pan practice", opponents=1)
    seat = pan.session().seat_of(me.id)
    last = None
    for _ in range(40):  # sluff until the hand is over (the computer then takes the tops)
        state = pan.session().state
        if state.hand_no > 1 or state.hand is None:
            break
        board = pan.board()
        if "Sluff" not in [b.get("label") for b in board.buttons] or state.seat(seat) is None:
            break
        last = await pan.click(me, board, "Sluff")
    if pan.session().state.hand_no < 2 or last is None:
        pytest.skip("this deal does not end by sluffing")  # pragma: no cover - the seeded deal does
    posts = board_posts(pan)
    assert len(posts) == 2 and "hand 2" in posts[-1].text  # dealt by the computer player, nobody pressed Start
    calls = pan.h.fake.calls
    second = [c for c in calls if c.method == "POST" and "table.png" in [f.filename for f in c.files]][-1]
    assert "hand 2" in json.dumps(second.payload)  # in the V2 layout's text display
    assert second.route.startswith("POST /webhooks/") and not second.global_limit
    assert second.interaction_id == last.interaction.id  # the sluff that ended hand 1
    ends = [c for c in calls if c.method == "POST" and "### Hand 1 is over" in json.dumps(c.payload or {})]
    assert len(ends) == 1 and ends[0].interaction_id == last.interaction.id and not ends[0].global_limit
