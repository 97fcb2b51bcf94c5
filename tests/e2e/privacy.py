"""The privacy check: no hand is ever shown to anyone but its owner, over every recorded REST call."""

from __future__ import annotations

import re
from collections import defaultdict

from pancog.game.cards import Card, parse_card
from pancog.game.events import CardPlucked, CardsDealt, Forced, OptionTaken
from pancog.services.tables import Applied
from tests.fakediscord.server import FakeDiscord

HAND_LISTING = re.compile(r"Your hand, \d+ cards? by \w+: ([^.]*)\.")


class HandRecorder:
    """Subscribe to the table service: every card each player ever held (dealt, plucked, taken, forced)."""

    def __init__(self) -> None:
        self.held: dict[int, set[Card]] = defaultdict(set)
        self.dealt: list[tuple[int, tuple[Card, ...]]] = []

    def __call__(self, applied: Applied) -> None:
        for e in applied.events:
            seat = None
            cards: tuple[Card, ...] = ()
            if isinstance(e, CardsDealt):
                seat, cards = e.seat, e.cards
            elif isinstance(e, CardPlucked | OptionTaken):
                seat, cards = e.seat, (e.card,)
            elif isinstance(e, Forced):
                seat, cards = e.target, (e.card,)
            if seat is None:
                continue
            s = applied.state.seat(seat) or applied.before.seat(seat)
            if s is not None:
                self.held[s.player_id].update(cards)
                if isinstance(e, CardsDealt):
                    self.dealt.append((s.player_id, e.cards))


def audience(fake: FakeDiscord, call: object) -> int | None:
    """The one user who can see what a call posted (None: everyone in the channel)."""
    channel_id = getattr(call, "channel_id", None)
    channel = fake.channels.get(channel_id) if channel_id is not None else None
    if channel is not None and channel.type == 1:
        return channel.recipient_id
    if getattr(call, "ephemeral", False):
        interaction = fake.interactions.get(getattr(call, "interaction_id", None) or 0)
        return interaction.user_id if interaction else -1
    return None


def assert_private(fake: FakeDiscord, recorder: HandRecorder) -> int:
    """Check every call; returns how many hand views were checked (so a test can insist on some)."""
    checked = 0
    for call in fake.calls:
        if call.method not in ("POST", "PATCH") or call.status >= 400:
            continue
        payload = call.payload or {}
        data = payload.get("data") if isinstance(payload.get("data"), dict) else payload
        text = str((data or {}).get("content") or "")
        names = [f.filename for f in call.files]
        who = audience(fake, call)
        shows_hand = "hand.png" in names or "Your hand" in text
        if who is None:
            assert not shows_hand, f"a hand in a public message: {call.route} {text[:200]!r}"
            for player_id, cards in recorder.dealt:
                listing = " ".join(str(c) for c in cards)
                assert listing not in text, f"player {player_id}'s dealt hand in public: {text[:200]!r}"
            continue
        for match in HAND_LISTING.finditer(text):
            shown = {parse_card(tok) for tok in match.group(1).split()}
            leaked = sorted(map(str, shown - recorder.held[who]))
            assert not leaked, f"user {who} was shown cards they never held: {leaked}"
            checked += 1
    return checked
