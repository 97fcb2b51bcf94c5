"""Issue #14.4 and #14.8: the board is one line of what happened and whose turn (the text twin is the image's alt
text and, in full, behind Text view), the end of a hand is one embed of nets, and old boards lose their buttons."""

from __future__ import annotations

from pancog.adapter.safety import unescaped
from tests.e2e.conftest import Pan, private_to
from tests.e2e.scenarios import TWO_SHOE


async def test_the_board_is_one_line_with_the_twin_as_alt_text(pan: Pan) -> None:
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    opened = pan.board()
    await pan.slash(a, "pan start")
    board = pan.board()
    assert board.id != opened.id and opened.buttons == []  # the old board lost its buttons
    await pan.slash(a, "knock")
    board = pan.board()
    assert "\n" not in board.seen().text and "```" not in board.seen().text and "•" not in board.seen().text
    # the table's name is user-chosen text, escaped (`\#` reads as `#` in Discord)
    assert unescaped(board.seen().text).startswith("**Pan at #general** — hand 1, declaring. player1 knocked — plays.")
    assert "**player2** to act." in board.seen().text
    (image,) = board.attachments
    assert image.filename == "table.png" and 0 < len(image.description) <= 1024
    assert "Pan at #general, hand 1." in image.description and "player2 to play" in image.description
    assert "Text view" in [btn["label"] for btn in board.buttons]
    view = await pan.click(b, board, "Text view")
    assert private_to(view, b) and "**Recent**" in view.text and "• player1 knocked — plays." in view.text
    assert "```" in view.text and "player2 to play" in view.text
    hand_cards = {str(c) for c in pan.session().state.hand.players[0].hand}  # type: ignore[union-attr]
    assert not any(f" {card} " in view.text for card in hand_cards)  # the public twin shows counts, never cards


async def test_the_end_of_a_hand_is_one_v2_message_of_nets(pan: Pan) -> None:
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    await pan.slash(a, "sluff")
    await pan.slash(b, "sluff")  # nobody plays: no outcome image, the embed alone
    ends = [m for m in pan.h.messages() if m.v2 and m.seen().texts[0].startswith("### Hand")]
    assert len(ends) == 1 and not ends[0].attachments
    assert ends[0].seen().texts == [
        "### Hand 1 is over: nobody played; the tops carry over.",
        "player1: **-1**\nplayer2: **-1**",  # each paid the ante
    ]
    assert not ends[0].content and not ends[0].embeds


async def test_a_board_dealt_by_start_rides_on_its_token(pan: Pan) -> None:
    """#17 part 4: the hand's board is posted on the Start interaction's token and edited through it, so a hand
    played by people costs no counted call for the board (until the token's 15 minutes run out)."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    start = await pan.slash(a, "pan start")
    board = pan.board()
    assert board.id in [m.id for m in start.followups] and not board.ephemeral
    first = len(pan.h.fake.calls)
    await pan.slash(a, "knock")
    await pan.slash(b, "knock")
    await pan.slash(a, "draw")
    assert "hand 1, playing" in pan.board().seen().text and pan.board().id == board.id
    dms = {c.id for c in pan.h.fake.channels.values() if c.type == 1}
    counted = [c.route for c in pan.h.fake.calls[first:] if c.global_limit and c.channel_id not in dms]
    assert counted == []  # answers, pings, ping deletes and board edits all went through interaction tokens
    edits = [c for c in pan.h.fake.calls[first:] if c.method == "PATCH"]
    assert edits and all(c.route.startswith("PATCH /webhooks/") for c in edits)
