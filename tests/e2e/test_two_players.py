"""A full two-player hand through Discord: /pan open to settlement, by commands and by clicking."""

from __future__ import annotations

import asyncio
from typing import Any

from pancog.game.state import EndReason
from tests.e2e.conftest import Pan, private_to
from tests.e2e.privacy import HandRecorder, assert_private
from tests.e2e.scenarios import TWO_SHOE
from tests.fakediscord.models import FakeMessage, FakeUser


async def test_two_players_by_commands(pan: Pan, hands: HandRecorder) -> None:
    """Open, join, start, declare, meld, discard, go out — every reply private, the board public."""
    a, b = await pan.seat(2)
    session = pan.session()
    assert [s.player_id for s in session.state.seats if s] == [a.id, b.id]
    pan.stack(TWO_SHOE, first_seat=0)
    reply = await pan.slash(a, "pan start")
    assert reply.message is not None and reply.message.ephemeral  # the hand's board follows it, public (#17.4)
    for user in (a, b):  # both got their hand by DM, naming the server, channel and hand number
        dm = pan.h.dms(user)[-1]
        assert "Pan Test" in dm.text and "general" in dm.text and "hand 1" in dm.text
        assert dm.pngs
    for user in (a, b):  # #14.1: players who act within the grace are not pinged; the answer stays private
        reply = await pan.slash(user, "knock")
        assert private_to(reply, user) and "<@" not in reply.text
    reply = await pan.slash(a, "draw")
    assert private_to(reply, a) and reply.pngs  # the hand panel comes with the pluck
    assert "Melds with the pluck: A♣ 2♣ 3♣." in reply.text
    await pan.slash(a, "meld", cards="AC 2C 3C 4C")  # naming the plucked card too is accepted
    await pan.slash(a, "meld", cards="4D 5D 6D")
    await pan.slash(a, "meld", cards="JH QH KH")
    await pan.slash(a, "discard", card="7C")
    await pan.slash(b, "draw")
    await pan.slash(b, "discard", card="6S")
    await pan.slash(a, "draw")
    reply = await pan.slash(a, "add", meld=1)
    assert "went out" in reply.text
    out = reply.interaction.id
    state = pan.session().state
    assert state.hand is None and state.last_hand is not None
    assert state.last_hand.end_reason is EndReason.OUT and state.last_hand.winner == 0
    summary = [m for m in pan.h.messages() if "outcome.png" in [f for f, _ in m.files]]
    assert len(summary) == 1 and "went out" in summary[0].text
    # #14.4: one V2 message with each player's net for the hand; the payments itemised in the image's alt text
    seen = summary[0].seen()
    assert summary[0].v2 and not summary[0].content and not summary[0].embeds
    assert seen.texts == ["### Hand 1 is over: player1 went out.", "player1: **+5**\nplayer2: **-5**"]  # california
    assert [i.name for i in seen.images] == ["outcome.png"] and "Net for the hand" in (seen.images[0].description or "")
    assert "Net for the hand: player1 +5, player2 -5." in summary[0].attachments[0].description
    (posted,) = [c for c in pan.h.fake.calls if c.method == "POST" and "outcome.png" in [f.filename for f in c.files]]
    assert posted.route.startswith("POST /webhooks/") and not posted.global_limit  # not counted ...
    assert posted.interaction_id == out  # ... a followup on the going-out player's own interaction
    assert "Start" in [btn["label"] for btn in pan.board().buttons]
    assert assert_private(pan.h.fake, hands) >= 6


def options(message: FakeMessage, kind: str) -> list[dict[str, Any]]:
    menu = next(c for c in message.iter_components() if str(c.get("custom_id", "")).endswith(f":{kind}"))
    return list(menu["options"])


async def choose(pan: Pan, user: FakeUser, panel: FakeMessage, kind: str, label: str) -> FakeMessage:
    """Pick the option whose label starts with ``label`` in the hand panel's ``play``/``discard`` select."""
    found = [o for o in options(panel, kind) if o["label"].startswith(label)]
    assert found, f"no {label!r} in {[o['label'] for o in options(panel, kind)]}"
    menu_id = next(c["custom_id"] for c in panel.iter_components() if str(c.get("custom_id", "")).endswith(kind))
    seq = pan.session().state.seq
    await pan.select(user, panel, menu_id, [found[0]["value"]])
    for _ in range(500):  # a select is acknowledged first (type 6); the play commits and the panel is edited after
        if pan.session().state.seq != seq and pan.h.fake.messages[panel.id].edits:
            break
        await asyncio.sleep(0.01)
    await pan.settle()
    return pan.h.fake.messages[panel.id]


async def test_two_players_by_clicking(pan: Pan, hands: HandRecorder) -> None:
    """After /pan open, the whole hand is played with buttons and selects only."""
    a, b = pan.users[:2]
    await pan.slash(a, "pan open")
    await pan.click(b, pan.board(), "Join")
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.click(a, pan.board(), "Start")
    await pan.click(a, pan.board(), "Knock")
    await pan.click(b, pan.board(), "Knock")
    reply = await pan.click(a, pan.board(), "Draw")
    panel = reply.message
    assert panel is not None and panel.ephemeral and panel.visible_to == a.id
    panel = await choose(pan, a, panel, "play", "Meld A♣ 2♣ 3♣")
    assert panel.pngs and "Melded" in panel.text
    panel = await choose(pan, a, panel, "play", "Meld 4♦ 5♦ 6♦")
    panel = await choose(pan, a, panel, "play", "Meld J♥ Q♥ K♥")
    panel = await choose(pan, a, panel, "discard", "Discard 7♣")
    reply = await pan.click(b, pan.board(), "Draw")
    assert reply.message is not None
    await choose(pan, b, reply.message, "discard", "Discard the drawn card")
    reply = await pan.click(a, pan.board(), "Draw")
    assert reply.message is not None
    panel = await choose(pan, a, reply.message, "play", "Lay off on meld 1")
    assert "went out" in panel.text
    last = pan.session().state.last_hand
    assert last is not None and last.end_reason is EndReason.OUT
    assert assert_private(pan.h.fake, hands) >= 6


async def test_two_players_my_hand_button(pan: Pan) -> None:
    """My hand answers privately with the image, its text twin and the legal plays (a declaration here)."""
    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    reply = await pan.click(b, pan.board(), "My hand")
    assert private_to(reply, b) and reply.pngs
    assert "Your hand, 10 cards" in reply.text
    reply = await pan.click(a, pan.board(), "My hand")
    assert reply.message is not None
    labels = [o["label"] for o in options(reply.message, "play")]
    assert labels[:2] == ["Knock (play this hand)", "Go on top (sluff)"]
    panel = await choose(pan, a, reply.message, "play", "Knock")
    assert "You knocked" in panel.text


async def test_hand_panels_do_not_stay_alive(pan: Pan) -> None:
    """A My hand panel's view is released once sent (its selects are dynamic items): a select on the panel still
    works, and no HandView is kept for discord.py's 15-minute ephemeral timeout (memory per table, issue 7)."""
    import gc

    from pancog.adapter.hand import HandView

    a, b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    for _ in range(3):
        await pan.click(b, pan.board(), "My hand")
    reply = await pan.click(a, pan.board(), "My hand")
    assert reply.message is not None
    panel = await choose(pan, a, reply.message, "play", "Knock")  # the released view's select still dispatches
    assert "You knocked" in panel.text
    gc.collect()
    alive = [v for v in gc.get_objects() if isinstance(v, HandView) and not v.is_finished()]
    assert alive == []
