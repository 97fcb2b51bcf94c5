"""Replays, history, sharing and watching through the fake Discord (the real bot, every REST call recorded).

The privacy checks run over every recorded call: a replay shows a player their own cards only ("Your hand, …" is
checked against the cards each player really held), a stranger's replay shows no hand at all, the shared animation
is public and carries no hand, and a shared hand ("Ana's hand, …") reaches only the member it was shared with.
"""

from __future__ import annotations

import asyncio
import re

from pancog.game.cards import parse_card
from pancog.game.events import CardPlucked, CardsDealt, Discarded, Event, Forced, Melded, OptionTaken, UpcardTurned
from pancog.services.tables import Applied
from tests.e2e.conftest import Pan, private_to
from tests.e2e.privacy import HandRecorder, assert_private, audience
from tests.e2e.scenarios import TWO_SHOE
from tests.e2e.test_table_commands import play_two
from tests.fakediscord.models import FakeMessage, FakeUser

STEP = re.compile(r"step (\d+) of (\d+)")
CARD = re.compile(r"(?<![\w])([A2-7JQK])([CDHS♣♦♥♠])(?![\w])")
SYMBOL = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}


class PublicCards:
    """Every card that was ever public at the table (melded, plucked, discarded, forced, turned up)."""

    def __init__(self) -> None:
        self.cards: set[str] = set()

    def __call__(self, applied: Applied) -> None:
        for e in applied.events:
            self.cards.update(str(c) for c in _public_cards(e))


def _public_cards(e: Event) -> tuple[object, ...]:
    if e.private_to is not None or isinstance(e, CardsDealt):
        return ()
    if isinstance(e, CardPlucked | OptionTaken | Discarded | Forced | UpcardTurned):
        return (e.card,)
    if isinstance(e, Melded):
        return (*e.cards, *([e.drawn] if e.drawn else []))
    return ()


def named_cards(text: str) -> set[str]:
    return {str(parse_card(r + SYMBOL.get(s, s))) for r, s in CARD.findall(text)}


def message(pan: Pan, reply_message: FakeMessage) -> FakeMessage:
    """The current version of a message (an edit changes it in place)."""
    return pan.h.fake.messages[reply_message.id]


def step_of(text: str) -> int:
    match = STEP.search(text)
    assert match is not None, text
    return int(match.group(1))


async def shows_step(pan: Pan, first: FakeMessage, step: int) -> FakeMessage:
    """Wait until the step-through shows ``step`` (1-based): the edit follows the click's acknowledgement."""
    for _ in range(500):
        current = message(pan, first)
        if step_of(current.text) == step:
            return current
        await asyncio.sleep(0.02)
        await pan.settle()
    raise AssertionError(f"the replay never showed step {step}: {message(pan, first).text[:80]!r}")


async def step_through(pan: Pan, user: FakeUser, first: FakeMessage) -> list[str]:
    """Press ▶ to the end; every step's text, in order."""
    texts = [first.text]
    match = STEP.search(first.text)
    assert match is not None, first.text
    total = int(match.group(2))
    current = first
    for step in range(2, total + 1):
        await pan.click(user, current, "▶")
        current = await shows_step(pan, first, step)
        texts.append(current.text)
    last = STEP.search(texts[-1])
    assert last is not None and last.group(1) == str(total), texts[-1]
    return texts


async def test_replay_discord_every_viewer_sees_only_what_was_public(pan: Pan, hands: HandRecorder) -> None:
    """Both players and a stranger step through the whole hand; a player sees their own cards only, a stranger
    none; jumps go only to offered turns; Share posts a public GIF with no hand."""
    public = PublicCards()
    pan.rt.tables.subscribe(public)
    a, b = await pan.seat(2)
    stranger = pan.users[3]
    await play_two(pan)
    for user in (a, b, stranger):
        reply = await pan.slash(user, "pan replay")
        assert private_to(reply, user)
        first = reply.all_messages[-1]
        texts = await step_through(pan, user, first)
        for text in texts:
            assert ("Your hand" in text) == (user is not stranger)
            if user is stranger:
                hidden = named_cards(text) - public.cards
                assert not hidden, f"the stranger's replay names cards never public: {hidden}"
        final = message(pan, first)
        names = [name for name, _ in final.files]
        assert "board.png" in names and (("hand.png" in names) == (user is not stranger))
    # a jump goes where the select offered
    reply = await pan.slash(a, "pan replay", hand=1)
    first = reply.all_messages[-1]
    menu = next(c for c in first.iter_components() if str(c.get("custom_id", "")).endswith(":jump"))
    target = menu["options"][1]
    await pan.select(a, first, menu["custom_id"], [target["value"]])
    await shows_step(pan, first, int(target["value"]) + 1)
    # Share: a public animated image, no hand
    await pan.click(a, message(pan, first), "Share")
    shared = [m for m in pan.h.messages() if any(n.endswith(".gif") for n, _ in m.files)]
    assert len(shared) == 1 and not shared[0].ephemeral
    gif = next(data for n, data in shared[0].files if n.endswith(".gif"))
    assert gif[:6] == b"GIF89a" and len(gif) < 8_000_000
    assert "Your hand" not in shared[0].text and not named_cards(shared[0].text) - public.cards
    assert assert_private(pan.h.fake, hands) >= 10


async def test_replay_discord_refuses_a_jump_it_did_not_offer(pan: Pan) -> None:
    """A select value the bot did not offer (a forged interaction) is refused privately; the replay is unchanged."""
    a, _b = await pan.seat(2)
    await play_two(pan)
    reply = await pan.slash(a, "pan replay")
    first = reply.all_messages[-1]
    before = message(pan, first).text
    menu = next(c for c in first.iter_components() if str(c.get("custom_id", "")).endswith(":jump"))
    offered = {o["value"] for o in menu["options"]}
    forged = next(str(i) for i in range(1, 500) if str(i) not in offered)
    channel = pan.h.fake.channels[first.channel_id]
    data = {"custom_id": menu["custom_id"], "component_type": 3, "values": [forged]}
    interaction = await pan.h.fake.create_interaction(
        type=3, user=a, channel=channel, data=data, label="forged jump", message=first
    )
    refused = await pan.h._settle(interaction, None, settle=True)
    await pan.settle()
    assert private_to(refused, a) and "Pick a turn from the list" in refused.text
    assert message(pan, first).text == before


async def test_replay_discord_history_has_a_replay_button_per_hand(pan: Pan) -> None:
    """/pan history lists the hands with their result; each Replay button opens that hand's step-through."""
    a, _b = await pan.seat(2)
    await play_two(pan)
    reply = await pan.slash(a, "pan history", transcript=True)
    assert private_to(reply, a) and "Hand 1 — player1 went out" in reply.text
    assert any(name.endswith(".txt") for name, _ in reply.files)
    listing = reply.all_messages[-1]
    opened = await pan.click(a, listing, "Replay hand 1")
    assert private_to(opened, a) and "Hand 1 · step 1 of" in opened.text


async def test_watch_discord_shared_cards_reach_only_the_named_member(pan: Pan, hands: HandRecorder) -> None:
    """/pan settings share_hand is announced publicly (no card named); only the named member sees the cards, read-only;
    they cannot sit meanwhile; it ends with the hand."""
    a, b = await pan.seat(2)
    watcher, other = pan.users[2], pan.users[3]
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    reply = await pan.slash(b, "pan settings", share_hand=watcher)
    assert private_to(reply, b)
    announcement = next(m for m in reversed(pan.h.messages()) if "lets" in m.text and "see their cards" in m.text)
    assert not announcement.ephemeral and not named_cards(announcement.text)
    seen = await pan.click(watcher, announcement, "👁 See the shared hand")
    assert private_to(seen, watcher) and seen.text.startswith("player2's hand, 10 cards")
    mine = await pan.click(watcher, pan.board(), "My hand")  # the board's My hand shows the watcher the same
    assert private_to(mine, watcher) and mine.text.startswith("player2's hand, 10 cards")
    refused = await pan.click(other, announcement, "👁 See the shared hand")
    assert private_to(refused, other) and "Nobody is sharing" in refused.text
    refused = await pan.slash(watcher, "pan join")
    assert private_to(refused, watcher) and "cannot sit here" in refused.text
    assert pan.session().find_seat(watcher.id) is None
    for user in (a, b):
        await pan.slash(user, "knock")
    await pan.slash(a, "draw")
    for cards in ("AC 2C 3C", "4D 5D 6D", "JH QH KH"):
        await pan.slash(a, "meld", cards=cards)
    await pan.slash(a, "discard", card="7C")
    await pan.slash(b, "draw")
    seen_again = await pan.click(watcher, announcement, "👁 See the shared hand")
    assert seen_again.text.startswith("player2's hand, 10 cards") and "Pluck" in seen_again.text
    await pan.slash(b, "discard", card="6S")
    await pan.slash(a, "draw")
    await pan.slash(a, "add", meld=1)  # a goes out: the hand ends, and the sharing with it
    ended = await pan.click(watcher, announcement, "👁 See the shared hand")
    assert "Nobody is sharing" in ended.text
    # over every recorded call: b's cards (as the watcher's listing) reached the watcher only
    listing = re.compile(r"player2's hand, \d+ cards? by \w+: ([^.]*)\.")
    checked = 0
    for call in pan.h.fake.calls:
        if call.method not in ("POST", "PATCH") or call.status >= 400:
            continue
        payload = call.payload or {}
        data = payload.get("data") if isinstance(payload.get("data"), dict) else payload
        text = str((data or {}).get("content") or "")
        if listing.search(text) or any(name == "watched.png" for name in [f.filename for f in call.files]):
            assert audience(pan.h.fake, call) == watcher.id, f"a shared hand went to {audience(pan.h.fake, call)}"
            checked += 1
    assert checked >= 2
    assert assert_private(pan.h.fake, hands) >= 4


async def test_watch_discord_stop_sharing_is_announced_and_frees_the_seat(pan: Pan) -> None:
    """stop_sharing ends it at once (announced publicly); the former watcher is refused the cards and may sit; a
    seated member cannot be named; a refused /pan settings changes nothing."""
    a, b = await pan.seat(2)
    watcher = pan.users[2]
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    refused = await pan.slash(a, "pan settings", share_hand=b)
    assert private_to(refused, a) and "seated at this table" in refused.text
    await pan.slash(a, "pan settings", share_hand=watcher)
    announcement = next(m for m in reversed(pan.h.messages()) if "see their cards" in m.text)
    reply = await pan.slash(a, "pan settings", stop_sharing=True)
    assert private_to(reply, a) and "no longer share" in reply.text
    stopped = pan.h.last_message()
    assert not stopped.ephemeral and "no longer shares their cards" in stopped.text
    gone = await pan.click(watcher, announcement, "👁 See the shared hand")
    assert private_to(gone, watcher) and "Nobody is sharing" in gone.text
    joined = await pan.slash(watcher, "pan join")
    assert private_to(joined, watcher) and "You sat down" in joined.text
    again = await pan.slash(a, "pan settings", stop_sharing=True)
    assert private_to(again, a) and "not sharing" in again.text
