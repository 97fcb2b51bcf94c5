"""Issue 13 item 4 through Discord: the first player may decline his double draw's second pluck ("Don't draw
again" in My hand, or /pass); his unused first pluck is then the next player's option card."""

from __future__ import annotations

from pancog.game.state import Step
from tests.e2e.conftest import Pan
from tests.e2e.scenarios import TWO_A, TWO_B, stacked_shoe
from tests.e2e.test_two_players import choose, options
from tests.fakediscord.models import FakeMessage, FakeUser

# A's first pluck QS melds with none of his cards; it completes B's JS KS.
DOUBLE_DRAW_SHOE = stacked_shoe([TWO_A, TWO_B], "QS 6S", filler="QD")


async def _first_pluck_discarded(pan: Pan) -> tuple[FakeUser, FakeUser, FakeMessage]:
    a, b = await pan.seat(2)
    pan.stack(DOUBLE_DRAW_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    await pan.slash(a, "knock")
    await pan.slash(b, "knock")
    reply = await pan.click(a, pan.board(), "Draw")
    panel = reply.message
    assert panel is not None and panel.ephemeral and panel.visible_to == a.id
    panel = await choose(pan, a, panel, "discard", "Discard the drawn card")
    return a, b, panel


async def test_dont_draw_again_button_in_my_hand(pan: Pan) -> None:
    a, b, panel = await _first_pluck_discarded(pan)
    labels = [btn["label"] for btn in panel.buttons]
    assert "Don't draw again" in labels, labels
    assert any(o["label"].startswith("Draw from the stock") for o in options(panel, "play"))  # or pluck once more
    await pan.click(a, panel, "Don't draw again")
    hand = pan.session().state.hand
    assert hand is not None and hand.turn is not None and hand.turn.seat == 1 and hand.turn.step is Step.DRAW
    assert hand.option is not None and hand.option.pretty == "Q♠"
    assert "did not draw again" in pan.board().text
    assert "Take" in [btn["label"] for btn in pan.board().buttons]
    reply = await pan.slash(b, "take")
    assert "option card Q♠" in reply.text


async def test_pass_command_declines_the_second_pluck(pan: Pan) -> None:
    a, b, _panel = await _first_pluck_discarded(pan)
    reply = await pan.slash(b, "pass")  # not his turn: refused privately, nothing changes
    assert reply.message is not None and reply.message.ephemeral
    hand = pan.session().state.hand
    assert hand is not None and hand.turn is not None and hand.turn.seat == 0
    await pan.slash(a, "pass")
    hand = pan.session().state.hand
    assert hand is not None and hand.turn is not None and hand.turn.seat == 1 and hand.option is not None
    reply = await pan.slash(a, "pass")  # once only, and only the double draw's second pluck
    assert reply.message is not None and reply.message.ephemeral
    assert pan.session().state.hand is not None and pan.session().state.hand.turn.seat == 1
