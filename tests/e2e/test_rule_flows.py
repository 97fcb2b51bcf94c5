"""Every rule flow through Discord: option card, forcing, a foul call, splitting the tops, doubles, bust-out;
and the three- and eight-player hands from /pan open to settlement."""

from __future__ import annotations

from pancog.game.actions import Timeout
from pancog.game.events import WentOut
from pancog.game.state import EndReason, PlayerStatus
from tests.e2e.conftest import Pan, PanFactory
from tests.e2e.privacy import HandRecorder, assert_private
from tests.e2e.scenarios import BUST_SHOE, EIGHT_SHOE, THREE_SHOE
from tests.e2e.test_two_players import choose
from tests.fakediscord.models import FakeMessage, FakeUser


async def test_rule_flows_three_players(pan: Pan, hands: HandRecorder) -> None:
    """Option card, forcing, a foul call for abandoning the hand, and splitting the tops."""
    a, b, c = await pan.seat(3)
    pan.stack(THREE_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    for user in (a, b, c):
        await pan.slash(user, "knock")
    await pan.slash(a, "draw")
    await pan.slash(a, "meld", cards="AC 2C 3C")
    await pan.slash(a, "discard", card="KD")
    await pan.slash(b, "draw")
    await pan.slash(b, "discard", card="KS")
    assert "Take" in [btn["label"] for btn in pan.board().buttons]  # the option card is offered
    reply = await pan.slash(c, "take")
    assert "option card K♠" in reply.text
    await pan.slash(c, "meld", cards="JS QS")
    await pan.slash(c, "discard", card="QC")
    await pan.slash(a, "draw")
    await pan.slash(a, "discard", card="QD")
    await pan.slash(b, "draw")
    await pan.slash(b, "discard", card="3D")
    await pan.slash(c, "draw")
    await pan.slash(c, "discard", card="5C")
    assert "Force" in [btn["label"] for btn in pan.board().buttons]
    reply = await pan.slash(b, "force", player=a)
    assert "You forced 5♣" in reply.text
    assert "forced 5♣ on player1" in pan.board().text
    await pan.slash(a, "add", meld=1)
    await pan.slash(a, "discard", card="JD")
    await pan.slash(b, "draw")
    await pan.slash(b, "discard", card="KH")
    table_id = pan.session().table_id
    await pan.rt.tables.system_act(table_id, Timeout(seat=2))  # the turn clock (issue 7) runs out for C
    await pan.settle()
    for user in (a, b):
        await pan.slash(user, "draw")
        await pan.slash(user, "discard", card="KH")
    await pan.rt.tables.system_act(table_id, Timeout(seat=2))
    await pan.settle()
    reply = await pan.slash(a, "foul", player=c, reason="abandoned")
    hand = pan.session().state.hand
    assert hand is not None and hand.players[2] is not None and hand.players[2].status is PlayerStatus.FOULED
    assert "foul" in pan.board().text
    before = [s.stack for s in pan.session().state.seats if s]
    tops = pan.session().state.singles_tops
    await pan.slash(a, "split")
    assert "offers to split" in pan.board().text
    await pan.slash(b, "split")
    state = pan.session().state
    assert state.last_hand is not None and state.last_hand.end_reason is EndReason.SPLIT
    after = [s.stack for s in state.seats if s]
    assert after[0] - before[0] >= tops // 2 and after[1] - before[1] >= tops // 2
    assert "split the tops" in "\n".join(m.text for m in pan.h.messages()[-3:])
    assert assert_private(pan.h.fake, hands) >= 10


async def test_rule_flows_eight_players(pan_factory: PanFactory) -> None:
    """Eight seated: two play, six go on top; the hand runs to the going out and everyone's books balance."""
    pan = await pan_factory(members=8)
    hands = HandRecorder()
    pan.rt.tables.subscribe(hands)
    players = await pan.seat(8)
    a, b = players[:2]
    pan.stack(EIGHT_SHOE, first_seat=0)
    await pan.click(a, pan.board(), "Start")
    await pan.slash(a, "knock")
    await pan.slash(b, "knock")
    for user in players[2:]:
        await pan.click(user, pan.board(), "Sluff")
    assert "went on top" in pan.board().text
    await pan.slash(a, "draw")
    for cards in ("AC 2C 3C", "4D 5D 6D", "JH QH KH"):
        await pan.slash(a, "meld", cards=cards)
    await pan.slash(a, "discard", card="7C")
    await pan.slash(b, "draw")
    await pan.slash(b, "discard", card="6S")
    await pan.slash(a, "draw")
    await pan.slash(a, "add", meld=1)
    state = pan.session().state
    assert state.last_hand is not None and state.last_hand.end_reason is EndReason.OUT
    stacks = [s.stack for s in state.seats if s]
    assert stacks[2:] == [99] * 6  # the six who went on top lost only their ante
    assert sum(stacks) + state.singles_tops == 800
    assert assert_private(pan.h.fake, hands) >= 8


async def test_rule_flows_doubles_and_bust_out(pan: Pan) -> None:
    """Doubles players ante twice and are paid double; the going-out turn's condition is paid again (bust-out)."""
    a, b = pan.users[:2]
    await pan.slash(a, "pan open")
    await pan.slash(a, "pan leave")
    await pan.slash(a, "pan join", doubles=True)
    await pan.slash(b, "pan join", doubles=True)
    session = pan.session()
    ended: list[WentOut] = []
    pan.rt.tables.subscribe(lambda applied: ended.extend(e for e in applied.events if isinstance(e, WentOut)))
    pan.stack(BUST_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    assert session.state.doubles_tops == 2 and session.state.singles_tops == 2
    for user in (a, b):
        await pan.slash(user, "knock")
    await pan.slash(a, "draw")
    await pan.slash(a, "meld", cards="AC 2C 3C 5C")
    await pan.slash(a, "discard", card="7C")
    await pan.slash(b, "draw")
    await pan.slash(b, "discard", card="6S")
    await pan.slash(a, "draw")
    await pan.slash(a, "meld", cards="QH KH")
    reply = await pan.slash(a, "meld", cards="2S 2H 2D")
    assert "went out" in reply.text
    assert ended and ended[0].bust_out_units > 0
    seats = [s for s in session.state.seats if s]
    assert seats[0].doubles and seats[1].doubles
    gain = seats[0].stack - 200
    assert gain > 0 and gain % 2 == 0 and seats[1].stack == 200 - gain
    assert "bust-out" in "\n".join(m.text for m in pan.h.messages()[-3:])


async def draw_and(pan: Pan, user: FakeUser, *picks: tuple[str, str]) -> FakeMessage:
    """Click Draw on the board, then make ``picks`` ((select kind, label prefix), ...) in the private panel."""
    reply = await pan.click(user, pan.board(), "Draw")
    assert reply.message is not None
    panel = reply.message
    for kind, label in picks:
        panel = await choose(pan, user, panel, kind, label)
    return panel


async def test_rule_flows_three_players_by_clicking(pan: Pan, hands: HandRecorder) -> None:
    """The three-player hand with buttons and selects only: Take, Force, Foul and Split from the board."""
    a, b, c = pan.users[:3]
    await pan.slash(a, "pan open")
    for user in (b, c):
        await pan.click(user, pan.board(), "Join")
    pan.stack(THREE_SHOE, first_seat=0)
    await pan.click(a, pan.board(), "Start")
    for user in (a, b, c):
        await pan.click(user, pan.board(), "Knock")
    await draw_and(pan, a, ("play", "Meld A♣ 2♣ 3♣"), ("discard", "Discard K♦"))
    await draw_and(pan, b, ("discard", "Discard the drawn card"))
    reply = await pan.click(c, pan.board(), "Take")
    assert reply.message is not None
    panel = await choose(pan, c, reply.message, "play", "Meld J♠ Q♠")
    await choose(pan, c, panel, "discard", "Discard Q♣")
    for user in (a, b, c):
        await draw_and(pan, user, ("discard", "Discard the drawn card"))
    await pan.click(b, pan.board(), "Force")
    reply = await pan.click(a, pan.board(), "My hand")
    assert reply.message is not None
    panel = await choose(pan, a, reply.message, "play", "Lay off on meld 1")
    await choose(pan, a, panel, "discard", "Discard J♦")
    table_id = pan.session().table_id
    await draw_and(pan, b, ("discard", "Discard the drawn card"))
    await pan.rt.tables.system_act(table_id, Timeout(seat=2))
    await pan.settle()
    for user in (a, b):
        await draw_and(pan, user, ("discard", "Discard the drawn card"))
    await pan.rt.tables.system_act(table_id, Timeout(seat=2))
    await pan.settle()
    assert "Foul" in [btn["label"] for btn in pan.board().buttons]
    await pan.click(a, pan.board(), "Foul")
    await pan.click(a, pan.board(), "Split")
    await pan.click(b, pan.board(), "Split")
    state = pan.session().state
    assert state.last_hand is not None and state.last_hand.end_reason is EndReason.SPLIT
    last = state.last_hand.players[2]
    assert last is not None and last.status is PlayerStatus.FOULED
    assert assert_private(pan.h.fake, hands) >= 10


async def test_rule_flows_eight_players_by_clicking(pan_factory: PanFactory) -> None:
    """Eight players, every move a click: Join, Start, Knock/Sluff, Draw, the panel's selects."""
    pan = await pan_factory(members=8)
    players = pan.users[:8]
    a, b = players[:2]
    await pan.slash(a, "pan open")
    for user in players[1:]:
        await pan.click(user, pan.board(), "Join")
    pan.stack(EIGHT_SHOE, first_seat=0)
    await pan.click(a, pan.board(), "Start")
    await pan.click(a, pan.board(), "Knock")
    await pan.click(b, pan.board(), "Knock")
    for user in players[2:]:
        await pan.click(user, pan.board(), "Sluff")
    await draw_and(
        pan,
        a,
        ("play", "Meld A♣ 2♣ 3♣"),
        ("play", "Meld 4♦ 5♦ 6♦"),
        ("play", "Meld J♥ Q♥ K♥"),
        ("discard", "Discard 7♣"),
    )
    await draw_and(pan, b, ("discard", "Discard the drawn card"))
    panel = await draw_and(pan, a, ("play", "Lay off on meld 1"))
    assert "went out" in panel.text
    state = pan.session().state
    assert state.last_hand is not None and state.last_hand.end_reason is EndReason.OUT
