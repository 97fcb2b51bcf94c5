"""The /pan commands around the game: chips, settings, history, rules, close; DMs; restarts; autocomplete."""

from __future__ import annotations

import pytest

from pancog.game import engine
from pancog.services.prefs import DmMode
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.e2e.scenarios import TWO_SHOE
from tests.fakediscord import server as fake_server
from tests.fakediscord.models import FakeUser


async def play_two(pan: Pan) -> None:
    a, b = pan.users[:2]
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    for user in (a, b):
        await pan.slash(user, "knock")
    await pan.slash(a, "draw")
    for cards in ("AC 2C 3C", "4D 5D 6D", "JH QH KH"):
        await pan.slash(a, "meld", cards=cards)
    await pan.slash(a, "discard", card="7C")
    await pan.slash(b, "draw")
    await pan.slash(b, "discard", card="6S")
    await pan.slash(a, "draw")
    await pan.slash(a, "add", meld=1)


async def test_commands_chips(pan: Pan) -> None:
    """Balance, daily (once a day), leaderboard, and an admin grant recorded in the ledger."""
    a, b = pan.users[:2]
    reply = await pan.slash(a, "pan balance")
    assert private_to(reply, a) and "1,000 chips" in reply.text
    reply = await pan.slash(a, "pan daily")
    assert "claimed 100 chips" in reply.text
    reply = await pan.slash(a, "pan daily")
    assert "Already claimed" in reply.text
    reply = await pan.slash(pan.h.moderator, "panadmin grant", user=b, amount=250, reason="tournament prize")
    assert "Granted 250" in reply.text
    reply = await pan.slash(pan.h.moderator, "panadmin grant", user=b, amount=-50, reason="correction")
    assert "Took 50" in reply.text and "1,200 chips" in reply.text
    reply = await pan.slash(a, "pan leaderboard")
    assert not reply.ephemeral and reply.text.index("player2") < reply.text.index("player1")


async def test_commands_config_and_settings(pan: Pan) -> None:
    """Guild defaults apply to new players and tables; player settings are private and kept."""
    a, b = pan.users[:2]
    reply = await pan.slash(pan.h.moderator, "panadmin config", preset="online", starting_chips=500, daily_amount=10)
    assert private_to(reply, pan.h.moderator) and "online" in reply.text
    reply = await pan.slash(a, "pan balance")
    assert "500 chips" in reply.text
    await pan.slash(a, "pan open")
    assert pan.session().config.preset == "online"
    reply = await pan.slash(a, "pan rules")  # #14.6: the five that matter; the rest behind All rules
    assert private_to(reply, a) and "the five that matter most" in reply.text and reply.message is not None
    reply = await pan.click(a, reply.message, "All rules")
    assert private_to(reply, a) and "mandatory" in reply.text
    reply = await pan.slash(b, "pan settings", dms="off", sort="rank", four_colour=True)
    assert "DMs: off" in reply.text
    prefs = await pan.rt.settings.get(b.id)
    assert prefs.dm_mode is DmMode.OFF and prefs.four_color


async def test_commands_open_with_a_retire_forfeit(pan: Pan) -> None:
    """/pan open retire_forfeit:2 — /pan rules says so, and a player who goes on top pays the ante plus 2 chips into
    the tops (the ledger's tops account after the declarations)."""
    a, b, c = await pan.seat(3, retire_forfeit=2)
    assert pan.session().rules.retire_forfeit_chips == 2
    reply = await pan.slash(b, "pan rules")
    assert reply.message is not None
    full = await pan.click(b, reply.message, "All rules")
    assert "Going on top costs the ante plus 2 chips into the tops." in full.text
    await pan.slash(a, "pan start")
    seats = pan.session().state.seats
    first = seats[engine.to_act(pan.session().state)]
    assert first is not None
    order = sorted((a, b, c), key=lambda u: u.id != first.player_id)
    await pan.slash(order[0], "sluff")
    for user in order[1:]:
        await pan.slash(user, "knock")
    async with pan.rt.storage.transaction(write=False) as tx:
        balances = await tx.table_balances(pan.session().table_id)
    tops = sum(v for k, v in balances.items() if k.kind == "tops")
    assert tops == 3 * 1 + 2  # three antes (1 chip each) and the forfeit


async def test_commands_history_close_and_outs(pan: Pan, monkeypatch: pytest.MonkeyPatch) -> None:
    """History lists the hands (with the hand history in words, and for a moderator the machine notation); /outs
    calls a board; close returns every chip."""
    a, b = await pan.seat(2)
    await play_two(pan)
    reply = await pan.slash(b, "pan history", transcript=True)  # the fake's members are moderators by default
    assert private_to(reply, b) and "Hand 1 — player1 went out" in reply.text
    files = dict(reply.files)
    assert set(files) == {f"pan-{pan.session().table_id}-history.txt", f"pan-{pan.session().table_id}.pan"}
    assert b"\nstart first=0 shoe=" in files[f"pan-{pan.session().table_id}.pan"]
    pan.stack(TWO_SHOE, first_seat=1)
    await pan.slash(a, "pan start")
    reply = await pan.slash(b, "outs", player=a)
    assert private_to(reply, b) and "would collect" in reply.text
    with monkeypatch.context() as m:  # the fake gives every member every permission; take Manage Server away
        m.setattr(fake_server, "ALL_PERMISSIONS", "0")
        reply = await pan.slash(b, "pan close")
    assert private_to(reply, b) and "Only the host" in reply.text
    reply = await pan.slash(b, "pan open")
    assert private_to(reply, b) and "already open" in reply.text
    reply = await pan.close(a)  # mid-hand: asks first (#14.7)
    assert "Table closed" in reply.text
    bank = await pan.rt.ledger.balance(pan.h.guild.id, a.id) + await pan.rt.ledger.balance(pan.h.guild.id, b.id)
    assert bank == 2000


async def test_commands_closed_dms_remembered(pan: Pan) -> None:
    """A refused DM is never retried; the player is told once, privately, to use My hand."""
    a, b = await pan.seat(2)
    pan.h.fake.close_dms(b)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    assert (await pan.rt.settings.get(b.id)).dm_closed
    reply = await pan.click(b, pan.board(), "My hand")
    assert "DMs are closed" in reply.text and reply.pngs
    reply = await pan.click(b, pan.board(), "My hand")
    assert "DMs are closed" not in reply.text
    dm_calls = [c for c in pan.h.fake.calls if c.status == 403]
    await pan.slash(a, "sluff")
    await pan.slash(b, "sluff")
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    assert [c for c in pan.h.fake.calls if c.status == 403] == dm_calls  # never retried
    await pan.slash(a, "sluff")
    await pan.slash(b, "sluff")
    await pan.h.restart()  # remembered across a restart too
    pan.rt.edit_interval = 0.02
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    await pan.settle()
    assert [c for c in pan.h.fake.calls if c.status == 403] == dm_calls
    assert len(pan.h.dms(a)) == 3


async def test_commands_restart_keeps_table_and_buttons(pan: Pan) -> None:
    """After a restart the table resumes exactly and the old board's buttons still work."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    await pan.slash(a, "knock")
    board = pan.board()
    live = pan.session().state
    await pan.h.restart()
    pan.rt.edit_interval = 0.02
    assert pan.session().state == live
    await pan.click(b, board, "Knock")
    reply = await pan.click(a, board, "Draw")
    assert reply.message is not None and reply.message.pngs
    assert pan.session().state.seq == live.seq + 2


async def test_commands_autocomplete(pan: Pan) -> None:
    """Card and meld options complete from the player's own hand and board."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    for user in (a, b):
        await pan.slash(user, "knock")
    await pan.slash(a, "draw")
    choices = await pan.h.autocomplete(a, "meld", "cards", "")
    values = [c["value"] for c in choices]
    assert values[0] == "AC 2C 3C" and "KH" in values
    choices = await pan.h.autocomplete(a, "discard", "card", "4")
    assert {c["value"] for c in choices} == {"4C", "4D"}
    await pan.slash(a, "meld", cards="AC 2C 3C")
    choices = await pan.h.autocomplete(a, "add", "meld", "")
    assert [c["value"] for c in choices] == [1]
    choices = await pan.h.autocomplete(b, "meld", "cards", "J")  # not b's turn: only his own cards
    assert sorted(c["value"] for c in choices) == ["JD", "JS"]


async def test_commands_dm_every_change_and_leave_mid_hand(pan: Pan) -> None:
    """With DMs on every change a player gets his new hand after each meld; leaving mid-hand still pays."""
    a, b = await pan.seat(2)
    await pan.slash(a, "pan settings", dms="every")
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    for user in (a, b):
        await pan.slash(user, "knock")
    await pan.slash(a, "draw")
    dms = len(pan.h.dms(a))
    await pan.slash(a, "meld", cards="AC 2C 3C")
    assert len(pan.h.dms(a)) == dms + 1 and "Your hand now" in pan.h.dms(a)[-1].text
    ask = await pan.slash(b, "pan leave")  # #14.7: mid-hand, leaving asks first
    assert "keep paying" in ask.text and ask.message is not None
    await pan.click(b, ask.message, "Leave")
    assert "left the hand" in pan.board().text


async def quick_actions(pan: Pan, a: FakeUser, b: FakeUser) -> None:
    """Six actions sent one after the other without waiting for the boards (TWO_SHOE, seat 0 first): a ends up with
    J♥ Q♥ K♥ melded."""
    for user, command, options in [
        (a, "knock", {}),
        (b, "knock", {}),
        (a, "draw", {}),
        (a, "meld", {"cards": "AC 2C 3C"}),
        (a, "meld", {"cards": "4D 5D 6D"}),
        (a, "meld", {"cards": "JH QH KH"}),
    ]:
        await pan.h.slash(user, command, settle=False, **options)


async def test_commands_board_edits_coalesced_and_reposted(pan: Pan) -> None:
    """Quick actions share one board edit per interval; /pan table posts the board again."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    pan.rt.edit_interval = 0.5
    board = pan.board()
    edits_before = board.edits
    await quick_actions(pan, a, b)
    await pan.settle()
    assert board.edits - edits_before <= 3  # six actions, at most one edit per 0.5 s
    assert "melded J♥ Q♥ K♥" in board.text
    reply = await pan.slash(b, "pan table")
    assert private_to(reply, b)
    assert pan.board().id != board.id and "melded J♥ Q♥ K♥" in pan.board().text


async def test_commands_board_interval_from_the_environment(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PAN_BOARD_INTERVAL sets how often a board may be edited: six quick actions in 5 s are one or two edits."""
    monkeypatch.setenv("PAN_BOARD_INTERVAL", "5")
    pan = await pan_factory()
    assert pan.rt.edit_interval == 5.0
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    await pan.settle()
    board = pan.board()
    edits_before = board.edits
    await quick_actions(pan, a, b)
    await pan.settle()  # waits for the coalesced edit
    assert 1 <= board.edits - edits_before <= 2  # six actions well inside 5 s: the first edit and at most one more
    assert "melded J♥ Q♥ K♥" in board.text


async def test_commands_rebuy_between_hands_only(pan: Pan) -> None:
    """/pan rebuy moves chips bank -> stack between hands; mid-hand or beyond the bank it is refused, unchanged."""
    a, _b = await pan.seat(2)
    seat = pan.session().seat_of(a.id)
    stack_before = pan.session().state.seats[seat].stack
    bank_before = await pan.rt.ledger.balance(pan.session().guild_id, a.id)
    reply = await pan.slash(a, "pan rebuy", chips=30)
    assert private_to(reply, a) and "30 chips" in reply.text
    assert pan.session().state.seats[seat].stack == stack_before + 30
    assert await pan.rt.ledger.balance(pan.session().guild_id, a.id) == bank_before - 30

    before = await pan.fingerprint()
    reply = await pan.slash(a, "pan rebuy", chips=bank_before * 10)
    assert private_to(reply, a) and await pan.fingerprint() == before

    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    before = await pan.fingerprint()
    reply = await pan.slash(a, "pan rebuy", chips=5)
    assert private_to(reply, a) and "between hands" in reply.text
    assert await pan.fingerprint() == before
    reply = await pan.slash(pan.users[3], "pan rebuy", chips=5)
    assert private_to(reply, pan.users[3]) and await pan.fingerprint() == before
