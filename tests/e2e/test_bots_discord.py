"""Computer players through Discord: /pan practice, /pan addbot, /hint, the leaderboard, and a restart."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pancog.adapter.hand import offered
from pancog.adapter.presenters.common import name_of
from pancog.game import engine
from pancog.game.actions import Action, GoOnTop, Knock, Pluck, TakeOption
from pancog.game.notation import format_action
from pancog.infra.storage.base import Account
from pancog.services.bots import computer_id, suggest
from pancog.services.tables import DEFAULT_BUYIN_MINIMUMS
from tests.e2e.conftest import FAST_EDIT_INTERVAL, Pan, PanFactory, private_to
from tests.fakediscord.models import FakeMessage, FakeUser

BUTTONS = {Knock: "Knock", GoOnTop: "Sluff", Pluck: "Draw", TakeOption: "Take"}


@pytest.fixture(autouse=True)
def fast_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Computer players act at once; practice tables wait for Start; deals are reproducible."""
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    monkeypatch.setenv("PAN_BOT_NEXT_HAND_DELAY", "off")
    monkeypatch.setenv("PAN_DEAL_SEED", "8")


def select_menus(message: FakeMessage) -> list[dict[str, Any]]:
    return [c for c in message.iter_components() if "options" in c]


def menu_token(pan: Pan, user: FakeUser, action: Action) -> str:
    """The option value (a token, issue 18) My hand offers ``user`` for ``action`` in the table as it is."""
    session = pan.session()
    menus = offered(engine.observe(session.state, session.seat_of(user.id)), user.id)
    wanted = format_action(action)
    found = [token for entries in menus.values() for token, offer, _ in entries if format_action(offer) == wanted]
    assert found, f"{format_action(action)} is not offered to {user.name}"
    return found[0]


async def act_by_clicking(pan: Pan, user: FakeUser, action: Action) -> None:
    """Play ``action`` with the board's buttons or My hand's selects only."""
    label = BUTTONS.get(type(action))
    if label is not None:
        await pan.click(user, pan.board(), label)
        return
    reply = await pan.click(user, pan.board(), "My hand")
    panel = reply.message
    assert panel is not None and panel.ephemeral and panel.visible_to == user.id
    value = menu_token(pan, user, action)
    for menu in select_menus(panel):
        if any(o["value"] == value for o in menu["options"]):
            seq = pan.session().state.seq
            await pan.select(user, panel, menu["custom_id"], [value])
            for _ in range(500):  # a select is acknowledged first (type 6); the play commits just after
                if pan.session().state.seq != seq:
                    break
                await asyncio.sleep(0.01)
            await pan.settle()
            return
    raise AssertionError(f"{value} is not offered in My hand: {[m['options'] for m in select_menus(panel)]}")


async def play_hand_by_clicking(pan: Pan, people: list[FakeUser]) -> int:
    """The people follow the normal level's suggestion (by clicking) until the hand ends; returns their moves."""
    hand_no = pan.session().state.hand_no
    for moves in range(400):
        session = pan.session()
        state = session.state
        if state.hand is None or state.hand_no != hand_no:
            return moves
        actor = engine.to_act(state)
        seat = state.seat(actor) if actor is not None else None
        assert seat is not None and seat.player_id > 0, "the hand waits for a computer seat: the driver is wedged"
        user = next(u for u in people if u.id == seat.player_id)
        found = suggest(state, actor)  # type: ignore[arg-type]
        assert found is not None
        await act_by_clicking(pan, user, found[0])
    raise AssertionError("the hand did not end")


async def test_practice_hand_by_clicking(pan_factory: PanFactory) -> None:
    """/pan practice: one person clicks through a whole hand against two computers; the real bank is untouched."""
    pan = await pan_factory()
    me = pan.users[0]
    await pan.slash(me, "pan balance")
    real = await pan.rt.ledger.balance(pan.h.guild.id, me.id)
    assert real > 0
    reply = await pan.slash(me, "pan practice", opponents=2, level="normal")
    assert any(m.ephemeral and "practice chips" in m.text for m in reply.all_messages)
    session = pan.session()
    assert session.config.practice and session.guild_id == -pan.h.guild.id
    bots = [p for p in session.player_ids() if p < 0]
    assert bots == [computer_id("normal", 1), computer_id("normal", 2)]
    assert session.state.hand_no == 1
    board = pan.board()
    assert "Practice" in board.text and "Normal bot 1" in board.text and "Normal bot 2" in board.text
    assert "🤖" in board.text  # clearly labelled (⚙ in the image and its text twin, whose font has no 🤖)
    # My hand lists the legal plays best first (the normal level's order)
    state = session.state
    assert engine.to_act(state) == session.seat_of(me.id)  # the computers before me have declared already
    panel = (await pan.click(me, pan.board(), "My hand")).message
    assert panel is not None
    first = select_menus(panel)[0]["options"][0]["value"]
    found = suggest(state, session.seat_of(me.id))
    assert found is not None and first == menu_token(pan, me, found[0])
    moves = await play_hand_by_clicking(pan, [me])
    state = pan.session().state
    assert state.hand is None and state.hand_no == 1 and state.last_hand is not None
    assert state.last_hand.end_reason is not None
    rows = await pan.rt.store.read_log(session.table_id)
    assert moves > 0 and len(rows) > moves + 4  # the computers moved too (after the sits and the deal)
    summary = [m for m in pan.h.messages() if "outcome.png" in [f for f, _ in m.files]]
    assert len(summary) == 1
    assert await pan.rt.ledger.balance(pan.h.guild.id, me.id) == real  # practice chips only
    assert await pan.rt.ledger.balance(-pan.h.guild.id, me.id) >= 0
    reply = await pan.close(me)
    assert await pan.rt.ledger.balance(pan.h.guild.id, me.id) == real


async def test_practice_with_real_chips(pan_factory: PanFactory) -> None:
    """real_chips=True buys in from the player's bank (and /pan close returns the stack there)."""
    pan = await pan_factory()
    me = pan.users[1]
    await pan.slash(me, "pan balance")
    before = await pan.rt.ledger.balance(pan.h.guild.id, me.id)
    await pan.slash(me, "pan practice", opponents=1, level="easy", real_chips=True)
    session = pan.session()
    assert session.guild_id == pan.h.guild.id
    minimum = session.rules.min_buyin_chips
    buy_in = max(minimum, min(before, DEFAULT_BUYIN_MINIMUMS * minimum))  # the default /pan join buy-in
    assert await pan.rt.ledger.balance(pan.h.guild.id, me.id) == before - buy_in
    await pan.close(me)
    assert await pan.rt.ledger.balance(-pan.h.guild.id, me.id) == 0  # no practice bank was touched


async def test_addbot_hint_and_leaderboard(pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """/pan addbot at a normal table, a hand of people and computers, /hint refused there, no bot on the board."""
    from tests.fakediscord import server as fake_server

    pan = await pan_factory()
    alice, bob = await pan.seat(2)
    with monkeypatch.context() as m:  # the fake gives every member every permission; take Manage Server away
        m.setattr(fake_server, "ALL_PERMISSIONS", "0")
        reply = await pan.slash(bob, "pan addbot")
    assert private_to(reply, bob) and "host" in reply.text.lower()  # only the host (or a moderator)
    reply = await pan.slash(alice, "pan addbot", level="easy")
    assert private_to(reply, alice) and "🤖 Easy bot 1" in reply.text
    await pan.slash(alice, "pan addbot")
    session = pan.session()
    assert session.player_ids() == (alice.id, bob.id, computer_id("easy", 1), computer_id("normal", 1))
    assert "🤖 Easy bot 1" in pan.board().text
    await pan.slash(alice, "pan start")
    reply = await pan.slash(alice, "hint")
    assert private_to(reply, alice) and "practice" in reply.text.lower()
    await play_hand_by_clicking(pan, [alice, bob])
    state = pan.session().state
    assert state.hand is None and state.last_hand is not None and state.last_hand.end_reason is not None
    rows = await pan.rt.store.read_log(session.table_id)
    assert len(rows) > 8
    # a rich computer bank never makes the leaderboard
    guild = pan.h.guild.id
    await pan.rt.ledger.grant(guild, computer_id("easy", 1), 10_000_000, actor="system", reason="test")
    reply = await pan.slash(alice, "pan leaderboard")
    assert not reply.ephemeral
    assert "bot" not in reply.text.lower() and "Computer" not in reply.text
    assert name_of(pan.rt.names_of(pan.h.guild.id), alice.id) in reply.text
    balances = await pan.rt.ledger.balances([Account.bank(guild, computer_id("easy", 1))])
    assert balances[Account.bank(guild, computer_id("easy", 1))] >= 10_000_000


async def test_hint_on_a_practice_table(pan_factory: PanFactory) -> None:
    """/hint answers privately with the suggested play and one sentence explaining it."""
    pan = await pan_factory()
    me = pan.users[2]
    await pan.slash(me, "pan practice", opponents=1)
    session = pan.session()
    seat = session.seat_of(me.id)
    if engine.to_act(session.state) != seat:
        raise AssertionError("the computer should have moved up to my turn")
    found = suggest(session.state, seat)
    assert found is not None
    reply = await pan.slash(me, "hint")
    assert private_to(reply, me)
    assert reply.text == f"💡 {found[1]}"
    assert found[1].endswith(".") and found[1].count(". ") == 0  # one sentence
    named = {"Knock": "knock", "GoOnTop": "go on top", "Pluck": "pluck", "TakeOption": "option"}
    assert named[type(found[0]).__name__] in found[1].lower()  # it names the play (a declaration, here)


async def test_computer_turn_resumes_after_restart(pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A computer turn pending at shutdown is played after the bot restarts."""
    monkeypatch.setenv("PAN_BOT_DELAY", "60")  # the computer is still 'thinking' when the bot stops
    pan = await pan_factory()
    h = pan.h
    me = pan.users[0]
    await h.slash(me, "pan practice", opponents=1, settle=False)
    await h.idle(ignore=("bots",))  # the table is dealt; the computer may be first to think (for a minute)
    session = pan.session()
    seat = session.seat_of(me.id)
    for _ in range(20):  # play my moves until the computer is to act
        state = pan.session().state
        if engine.to_act(state) != seat:
            break
        found = suggest(state, seat)
        assert found is not None
        label = BUTTONS.get(type(found[0]))
        assert label is not None, "the first moves of a hand are buttons"
        await h.click(me, pan.board(), label, settle=False)
        await h.idle(ignore=("bots",))  # my move is handled; the computer may now think for a minute
    state = pan.session().state
    bot_seat = engine.to_act(state)
    assert bot_seat is not None and bot_seat != seat
    seq = state.seq
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    await h.restart()
    pan.rt.edit_interval = FAST_EDIT_INTERVAL
    await pan.settle()
    state = pan.session().state
    assert state.seq > seq
    assert engine.to_act(state) != bot_seat or state.hand is None or state.hand_no > 1
