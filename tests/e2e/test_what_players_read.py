"""What a player reads through Discord, item by item: a declaration's change window on the panel and the board,
leaving before declaring, the pluck named once, hand listings as the table shows cards, /take offered only when
allowed, /outs for someone not playing, the Force entry naming whom it forces, a new table without "hand 0"."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from tests.e2e.conftest import Pan, private_to
from tests.e2e.scenarios import THREE_SHOE
from tests.e2e.test_two_players import choose, options
from tests.fakediscord.models import FakeUser


def labels(message: object) -> list[str]:
    return [b["label"] for b in getattr(message, "buttons", [])]


async def deal_three(pan: Pan) -> tuple[FakeUser, FakeUser, FakeUser]:
    a, b, c = await pan.seat(3)
    pan.stack(THREE_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    return a, b, c


async def first_round(
    pan: Pan,
    a: FakeUser,
    b: FakeUser,
    c: FakeUser,
    *,
    melded: bool = False,
    before_c_takes: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """THREE_SHOE's first round: a melds A♣ 2♣ 3♣ with his pluck 4♣ and discards K♦; b's unused pluck K♠ is c's
    option card (c holds J♠ Q♠); then a's unused pluck Q♦ is b's option card, which b cannot meld."""
    if not melded:
        await pan.slash(a, "draw")
        await pan.slash(a, "meld", cards="AC 2C 3C")
    await pan.slash(a, "discard", card="KD")
    await pan.slash(b, "draw")
    await pan.slash(b, "discard", card="KS")
    if before_c_takes is not None:
        await before_c_takes()
    await pan.slash(c, "take")
    await pan.slash(c, "meld", cards="JS QS")
    await pan.slash(c, "discard", card="QC")
    await pan.slash(a, "draw")
    await pan.slash(a, "discard", card="QD")


async def check_take_offered(pan: Pan, c: FakeUser) -> None:
    panel = await pan.click(c, pan.board(), "My hand")
    assert "Your turn: /draw or /take the option card." in panel.text


async def test_a_knock_can_change_until_the_next_player_declares_and_the_panel_says_so(pan: Pan) -> None:
    """RULES.md §2.5: the reply, the My hand panel and the board say until when a declaration can change; it can,
    both ways, and then it cannot. The last to declare keeps his window until the first card is drawn."""
    a, b, c = await deal_three(pan)
    reply = await pan.slash(a, "knock")
    assert private_to(reply, a) and reply.text == "You knocked — you can still go on top until player2 declares."
    assert "player1 can still go on top until player2 declares." in pan.board().text
    panel = await pan.click(a, pan.board(), "My hand")
    assert "You knocked — you can still go on top until player2 declares." in panel.text
    assert panel.message is not None and "Go on top (sluff)" in [o["label"] for o in options(panel.message, "play")]
    reply = await pan.slash(a, "sluff")
    assert reply.text == "You went on top — you can still knock until player2 declares."
    assert "player1 can still knock until player2 declares." in pan.board().text
    panel = await pan.click(a, pan.board(), "My hand")
    assert panel.message is not None
    panel = await choose(pan, a, panel.message, "play", "Knock")  # the panel's own menu changes it back
    assert panel.text.count("You knocked — you can still go on top until player2 declares.") == 1
    await pan.slash(b, "knock")
    assert "player1 can still" not in pan.board().text and "player2 can still go on top" in pan.board().text
    panel = await pan.click(a, pan.board(), "My hand")
    assert "can still" not in panel.text
    before = await pan.fingerprint()
    refused = await pan.slash(a, "sluff")
    assert private_to(refused, a) and "only until the next player declares" in refused.text
    assert await pan.fingerprint() == before
    reply = await pan.slash(c, "sluff")  # the last to declare: until the first card is drawn
    assert reply.text.startswith("You went on top — you can still knock until the first card is drawn.")
    assert "player3 can still knock until the first card is drawn." in pan.board().text
    reply = await pan.slash(c, "knock")
    assert reply.text.startswith("You knocked — you can still go on top until the first card is drawn.")
    await pan.slash(a, "draw")
    assert "can still" not in pan.board().text
    refused = await pan.slash(c, "sluff")
    assert "until the first card is drawn" in refused.text and "can no longer" not in refused.text


async def test_leaving_before_declaring_asks_first_and_says_what_the_ante_costs(pan: Pan) -> None:
    a, b, c = await deal_three(pan)
    bank = await pan.rt.ledger.balance(pan.session().bank_scope, b.id)
    stack = pan.session().state.seats[1].stack  # type: ignore[union-attr]
    before = await pan.fingerprint()
    ask = await pan.slash(b, "pan leave")
    assert private_to(ask, b) and ask.message is not None and labels(ask.message) == ["Leave", "Stay"]
    assert "not declared yet" in ask.text and "go on top" in ask.text and "ante (1 chip" in ask.text
    assert await pan.fingerprint() == before  # asking changed nothing
    kept = await pan.click(b, ask.message, "Stay")
    assert kept.type == 7 and await pan.fingerprint() == before
    ask = await pan.click(b, pan.board(), "Leave")  # the board's button asks the same
    assert ask.message is not None and "ante (1 chip" in ask.text
    await pan.click(b, ask.message, "Leave")
    session = pan.session()
    assert session.find_seat(b.id) is None
    assert await pan.rt.ledger.balance(session.bank_scope, b.id) == bank + stack  # the rest of his stack
    assert "player2 went on top" in pan.board().text
    await pan.slash(a, "sluff")  # went on top: leaving now costs nothing more, so no question
    reply = await pan.slash(a, "pan leave")
    assert "stack is back in your bank" in reply.text and not labels(reply.message)
    assert c is not None


async def test_the_pluck_is_named_once_and_hands_read_as_the_table_shows_cards(pan: Pan) -> None:
    a, b, c = await deal_three(pan)
    for user in (a, b, c):
        await pan.slash(user, "knock")
    reply = await pan.slash(a, "draw")
    text = reply.text
    assert text.startswith("You plucked 4♣.")
    assert text.count("4♣") == 1 and "4C" not in text and "Pluck:" not in text  # one mention, with its symbol
    assert "Melds with the pluck: A♣ 2♣ 3♣." in text
    assert "Your hand, 10 cards by suit: A♣ 2♣ 3♣ 2♦ J♦ K♦ 3♥ 6♥ 5♠ 7♠." in text  # no "1 AC, 2 2C" numbering
    assert not re.search(r"\b\d+ [A2-7JQK][CDHS]\b", text)
    assert text.count("Meld the plucked card") == 1  # the next step once, after the hand
    reply = await pan.click(a, pan.board(), "My hand")  # the panel alone names the pluck, once
    assert reply.text.count("4♣") == 1 and "Pluck: 4♣. Melds with it: A♣ 2♣ 3♣." in reply.text
    reply = await pan.slash(a, "meld", cards="AC 2C 3C")
    assert reply.text.startswith("Melded — a condition worth 1 unit.")  # not "1 unit(s)"
    assert "a condition worth 1 unit." in pan.board().text


async def test_take_is_offered_only_when_the_option_card_can_be_taken(pan: Pan) -> None:
    a, b, c = await deal_three(pan)
    for user in (a, b, c):
        await pan.slash(user, "knock")
    await first_round(pan, a, b, c, before_c_takes=lambda: check_take_offered(pan, c))
    assert "Take" in labels(pan.board())  # the public board offers Take whoever is to act: it says nothing of b
    panel = await pan.click(b, pan.board(), "My hand")
    assert "Your turn: /draw." in panel.text and "/take" not in panel.text


async def test_outs_by_a_non_player_and_the_force_entry_naming_whom_it_forces(pan: Pan) -> None:
    a, b, c = await deal_three(pan)
    stranger = pan.users[3]
    reply = await pan.slash(stranger, "outs")
    assert private_to(reply, stranger) and "You are not playing at this table" in reply.text
    assert "/outs player:" in reply.text and "player4 is not seated" not in reply.text
    reply = await pan.slash(stranger, "outs", player=a)
    assert "player1's board would collect 0 chips" in reply.text
    for user in (a, b, c):
        await pan.slash(user, "knock")
    reply = await pan.slash(a, "outs")
    assert reply.text.startswith("Your board would collect")
    await pan.slash(a, "draw")
    await pan.slash(a, "meld", cards="AC 2C 3C")
    reply = await pan.slash(b, "outs", player=a)
    assert reply.text == "player1's board would collect 2 chips on going out now (the outs)."
    await first_round(pan, a, b, c, melded=True)
    await pan.slash(b, "draw")
    await pan.slash(b, "discard", card="3D")
    await pan.slash(c, "draw")
    await pan.slash(c, "discard", card="5C")  # fits player1's A♣-4♣: b may force it on him
    panel = await pan.click(b, pan.board(), "My hand")
    assert panel.message is not None
    forces = [o["label"] for o in options(panel.message, "play") if o["label"].startswith("Force")]
    assert forces == ["Force 5♣ on player1"]
    panel = await choose(pan, b, panel.message, "play", "Force 5♣ on player1")
    assert "You forced 5♣ on player1." in panel.text


async def test_a_new_table_is_not_titled_hand_0(pan: Pan) -> None:
    a, _b = await pan.seat(2)
    board = pan.board()
    (image,) = board.attachments
    assert image.description.startswith("Pan at #general.\n") and "hand 0" not in image.description
    assert "hand 0" not in board.text.lower()
    pan.stack(THREE_SHOE[:20] + THREE_SHOE[30:], first_seat=0)
    await pan.slash(a, "pan start")
    (image,) = pan.board().attachments
    assert image.description.startswith("Pan at #general, hand 1.\n")
