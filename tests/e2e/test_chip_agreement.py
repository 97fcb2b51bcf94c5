"""Every chip figure the bot shows for a hand agrees with the ledger, on every hand of a seeded run through the real
bot and the fake Discord.

Four people play at a table from small stacks (a doubles player among them), making random legal moves by commands
and My hand's selects; players force the option card on others when they can, the floor (a moderator) calls fouls,
players bust and buy back in; a second table plays a stacked hand that ends with a bust-out. The run asserts each of
those happened, so it cannot pass vacuously. After every hand, read back from Discord and compared with the ledger's
postings for that hand (``tests/support/ledger_view.py``, read straight from the database):

- the end-of-hand embed (each player's net) and its image's text twin (the alt text: the winner's net, every net);
- the replay's last step (``/pan replay``, ⏭): its text's nets;
- the shared animation (Share): its alt text, and its last frame is pixel for pixel the end-of-hand image drawn
  from the snapshot that alt text is the twin of;
- ``/pan stats`` of every player: net chips (all time) is the sum of the ledger's nets over the hands so far, and
  the conditions collected are the condition chips the log's events paid him.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Sequence

import pytest
from PIL import Image, ImageChops

from pancog.adapter.hand import offered
from pancog.adapter.presenters.replay import outcome_of
from pancog.game import engine
from pancog.game.actions import (
    AcceptSplit,
    Action,
    DeclineDraw,
    DeclineSplit,
    Force,
    FoulCall,
    GoOnTop,
    Knock,
    OfferSplit,
    Pluck,
    TakeOption,
)
from pancog.game.state import Phase, PlayerStatus
from pancog.services.replay import PUBLIC_VIEWER
from renderer import render_outcome
from renderer.animation import to_gif
from tests.e2e.conftest import Pan, PanFactory
from tests.e2e.scenarios import BUST_SHOE, TWO_SHOE
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.support.ledger_view import hand_seqs, ledger_hand_nets, stored_events

SEED = 11
HANDS = 6  # at the random table
VERBS: dict[type, str] = {
    Knock: "knock",
    GoOnTop: "sluff",
    Pluck: "draw",
    TakeOption: "take",
    DeclineDraw: "pass",
    OfferSplit: "split",
    AcceptSplit: "split",
}
NET = re.compile(r"^(?P<name>.+?): \*\*(?P<net>[+-]?[\d,]+)\*\*$")


@pytest.fixture(autouse=True)
def seeded_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAN_DEAL_SEED", str(SEED))


def number(text: str) -> int:
    return int(text.replace(",", ""))


def nets_in(line: str) -> dict[str, int]:
    """{name: net} of a "Net for the hand: A +4, B -4, C 0." line."""
    body = line.split("Net for the hand: ", 1)[1].rstrip(".")
    out = {}
    for part in body.split(", "):
        name, net = part.rsplit(" ", 1)
        out[name] = number(net)
    return out


def line_with(text: str, marker: str) -> str:
    found = [line for line in text.splitlines() if marker in line]
    assert len(found) == 1, f"{marker!r} in {text!r}"
    return found[0]


class Run:
    """The players' side: chooses legal moves with a seeded generator and makes them through Discord."""

    def __init__(self, pan: Pan, channel: FakeChannel, players: Sequence[FakeUser]) -> None:
        self.pan = pan
        self.channel = channel
        self.players = list(players)
        self.rng = random.Random(SEED)
        self.seen = {"forces": 0, "floor_fouls": 0, "busted": 0, "paid_mid_hand": 0, "bust_out": 0}
        self.split_offers: set[int] = set()

    def user(self, seat: int) -> FakeUser:
        occupant = self.pan.session(self.channel).state.seat(seat)
        assert occupant is not None
        return next(u for u in self.players if u.id == occupant.player_id)

    async def slash(self, user: FakeUser, command: str, **options: object) -> None:
        reply = await self.pan.slash(user, command, channel=self.channel, **options)
        assert "went wrong" not in reply.text, reply.text

    async def by_my_hand(self, user: FakeUser, action: Action) -> None:
        """Pick ``action`` in My hand's selects, as a person would."""
        reply = await self.pan.click(user, self.pan.board(self.channel), "My hand")
        panel = reply.message
        assert panel is not None and panel.ephemeral
        session = self.pan.session(self.channel)
        seq = session.state.seq
        menus = offered(engine.observe(session.state, session.seat_of(user.id)), user.id)
        kind, token = next((k, t) for k, entries in menus.items() for t, offer, _ in entries if offer == action)
        menu = next(c for c in panel.iter_components() if str(c.get("custom_id", "")).endswith(f":{kind}"))
        await self.pan.select(user, panel, menu["custom_id"], [token])
        await self.pan.h.until(lambda: self.pan.session(self.channel).state.seq != seq, "the play committed")
        await self.pan.settle()

    async def play(self, seat: int, action: Action) -> None:
        user = self.user(seat)
        verb = VERBS.get(type(action))
        if verb is not None:
            await self.slash(user, verb)
        elif isinstance(action, Force):
            target = action.target if action.target is not None else engine.to_act(self.pan.session(self.channel).state)
            assert target is not None
            await self.slash(user, "force", player=self.user(target))
            self.seen["forces"] += 1
        elif isinstance(action, FoulCall):
            await self.slash(user, "foul", player=self.user(action.target), reason=action.cause.value)
        else:
            await self.by_my_hand(user, action)

    async def step(self) -> None:
        """One move: sometimes an out-of-turn force or a floor foul, else the player in turn's choice."""
        state = self.pan.session(self.channel).state
        hand = state.hand
        assert hand is not None
        actor = engine.to_act(state)
        if hand.phase is Phase.PLAYING and self.rng.random() < 0.5:
            for seat in engine.may_act(state):
                forces = [a for a in engine.legal_actions(state, seat) if isinstance(a, Force)]
                if seat != actor and forces:
                    await self.play(seat, forces[0])
                    return
        in_action = hand.in_action()
        if hand.phase is Phase.PLAYING and len(in_action) >= 3 and self.rng.random() < 0.01:
            target = self.rng.choice([s for s in in_action if s != actor])
            await self.slash(self.pan.h.moderator, "foul", player=self.user(target))  # the floor's call
            self.seen["floor_fouls"] += 1
            return
        assert actor is not None
        menus = offered(engine.observe(state, actor), self.user(actor).id)
        choices = [offer for entries in menus.values() for _, offer, _ in entries]
        choices = [a for a in choices if not (isinstance(a, OfferSplit) and actor in self.split_offers)]
        assert choices, "the player in turn has nothing to do"
        action = choices[0] if self.rng.random() < 0.65 else self.rng.choice(choices)
        if isinstance(action, OfferSplit):
            self.split_offers.add(actor)
        if isinstance(action, DeclineSplit | AcceptSplit):
            self.split_offers.clear()
        await self.play(actor, action)

    async def hand(self) -> int:
        """Deal (buying back in for whoever is short) and play one hand to its end; returns its number."""
        session = self.pan.session(self.channel)
        for seat, occupant in enumerate(session.state.seats):
            if occupant is not None and occupant.stack < 10:
                await self.slash(self.user(seat), "pan rebuy", chips=30)
        await self.slash(self.players[0], "pan start")
        return await self.finish()

    async def finish(self) -> int:
        """Play the hand in progress to its end; returns its number."""
        hand_no = self.pan.session(self.channel).state.hand_no
        self.split_offers.clear()
        for _ in range(600):
            state = self.pan.session(self.channel).state
            if state.hand is None:
                last = state.last_hand
                assert last is not None
                self.seen["busted"] += sum(1 for p in last.players if p is not None and p.status is PlayerStatus.BUSTED)
                return hand_no
            await self.step()
        raise AssertionError(f"hand {hand_no} did not end")


async def check_hand(pan: Pan, channel: FakeChannel, players: Sequence[FakeUser], hand_no: int) -> dict[int, int]:
    """Every figure shown for hand ``hand_no`` at the table in ``channel`` against the ledger; returns the ledger's
    nets (by user id)."""
    session = pan.session(channel)
    table = session.table_id
    first, last = (await hand_seqs(pan.rt.storage, table))[hand_no]
    ledger = await ledger_hand_nets(pan.rt.storage, table, first, last)
    by_name = {u.name: ledger[u.id] for u in players if u.id in ledger}
    assert len(by_name) == len(ledger)

    # the end-of-hand message (Components V2: its heading, then the nets) and its image's text twin
    (summary,) = [m for m in pan.h.messages(channel) if m.v2 and m.seen().texts[0].startswith(f"### Hand {hand_no} ")]
    shown = {}
    for line in summary.seen().texts[1].splitlines():
        match = NET.match(line)
        assert match is not None, line
        shown[match["name"]] = number(match["net"])
    assert shown == by_name, f"hand {hand_no}: the end-of-hand embed"
    images = [a for a in summary.attachments if a.filename == "outcome.png"]
    state_hand = None
    if images:
        alt = images[0].description or ""
        assert nets_in(line_with(alt, "Net for the hand: ")) == by_name, f"hand {hand_no}: the outcome's alt text"
        head = alt.splitlines()[0]
        winner = head.split(": ", 1)[1].split(" goes out")[0]
        assert f" goes out, net {by_name[winner]:+,} for the hand" in head or (
            by_name[winner] == 0 and " goes out, net 0 for the hand" in head
        ), head
        state_hand = winner

    # the replay's last step, by a player dealt in
    viewer = next(u for u in players if u.id in ledger)
    reply = await pan.slash(viewer, "pan replay", hand=hand_no, channel=channel)
    step = reply.message
    assert step is not None and step.ephemeral
    if "⏭" in [b.get("label") for b in step.buttons if not b.get("disabled")]:
        await pan.click(viewer, step, "⏭")
    step = pan.h.fake.messages[step.id]
    assert nets_in(line_with(step.text, "Net for the hand: ")) == by_name, f"hand {hand_no}: the replay's last step"

    # the shared animation: its alt text, and its last frame drawn from the snapshot the alt text is the twin of
    before = {m.id for m in pan.h.messages(channel)}
    await pan.click(viewer, step, "Share")
    (shared,) = [m for m in pan.h.messages(channel) if m.id not in before and m.attachments]
    gif = shared.attachments[0]
    assert gif.filename.endswith(".gif")
    alt = gif.description or ""
    assert nets_in(line_with(alt, "Net for the hand: ")) == by_name, f"hand {hand_no}: the shared animation"
    replay = await pan.rt.replays.replay(table, PUBLIC_VIEWER, hand_no)  # type: ignore[union-attr]
    snapshot = outcome_of(replay, await pan.rt.names.fetch(pan.h.guild.id, replay.summary.dealt))
    assert (snapshot is not None) == (state_hand is not None)
    if snapshot is not None:
        from renderer import outcome_text

        assert outcome_text(snapshot) == alt  # the alt text is the twin of this snapshot ...
        with Image.open(io.BytesIO(shared.files[0][1])) as im:  # ... and the last frame is this snapshot's image
            im.seek(im.n_frames - 1)
            frame = im.convert("RGB")
        expected = Image.open(io.BytesIO(to_gif([render_outcome(snapshot)], [1000]))).convert("RGB")
        frame = frame.crop((0, 0, expected.width, expected.height))
        assert ImageChops.difference(frame, expected).getbbox() is None, f"hand {hand_no}: the GIF's last frame"
    return ledger


async def check_stats(
    pan: Pan, players: Sequence[FakeUser], totals: dict[int, int], conditions: dict[int, int]
) -> None:
    """/pan stats of every player: net chips all time = the ledger's nets summed; condition chips = the log's."""
    for user in players:
        reply = await pan.slash(user, "pan stats")
        net = number(line_with(reply.text, "Net chips, all time: ").split(": ", 1)[1])
        assert net == totals.get(user.id, 0), f"{user.name}: /pan stats says {net}, the ledger {totals.get(user.id)}"
        collected = line_with(reply.text, "Conditions collected: ").split("(", 1)[1]
        assert number(collected.split(" ")[0]) == conditions.get(user.id, 0), reply.text


async def condition_chips(pan: Pan, table: int) -> dict[int, int]:
    """Condition chips paid to each player at a table, from the events the log stores (seat -> user at the time)."""
    out: dict[int, int] = {}
    seats: dict[str, int] = {}
    for _seq, kind, fields in await stored_events(pan.rt.storage, table):
        if kind == "SeatTaken":
            seats[fields["seat"]] = int(fields["player_id"])
        elif kind == "ChipsMoved" and fields["reason"] == "condition":
            user = seats[fields["payee"]]
            out[user] = out.get(user, 0) + int(fields["amount"])
    return out


async def test_every_figure_of_every_hand_agrees_with_the_ledger(pan_factory: PanFactory) -> None:
    pan = await pan_factory(members=6)
    a, b, c, d, e, f = pan.users
    table = pan.h.channel
    await pan.slash(a, "pan open", channel=table)
    await pan.slash(b, "pan join", chips=20, channel=table)
    await pan.slash(c, "pan join", chips=25, channel=table)
    await pan.slash(d, "pan join", doubles=True, chips=40, channel=table)
    run = Run(pan, table, [a, b, c, d])
    totals: dict[int, int] = {}
    by_hand: dict[int, dict[int, int]] = {}
    for _ in range(HANDS):
        hand_no = await run.hand()
        by_hand[hand_no] = await check_hand(pan, table, run.players, hand_no)
        for user, net in by_hand[hand_no].items():
            totals[user] = totals.get(user, 0) + net
        await check_stats(pan, run.players, totals, await condition_chips(pan, pan.session(table).table_id))
    reply = await pan.slash(a, "pan history", channel=table)  # each winner's net, in the hand's history line
    names = {u.name: u.id for u in run.players}
    won = 0
    for line in reply.text.splitlines():
        found = re.match(r"• Hand (\d+) — (\S+) (?:went out|won) \(net ([+-]?[\d,]+)\)", line)
        if found:
            won += 1
            assert by_hand[int(found[1])][names[found[2]]] == number(found[3]), line
    assert won >= 3, reply.text

    # a second table, stacked: player6 loses 5 a hand from 20 chips; the fourth hand's going out makes a new
    # condition (a bust-out) and takes his last chips; back in with 2, he busts paying the fifth hand's first condition
    other = pan.h.channel_named("pan-1")
    await pan.slash(e, "pan open", channel=other)
    await pan.slash(f, "pan join", chips=20, channel=other)
    stacked = Run(pan, other, [e, f])
    two = [(e, "knock"), (f, "knock"), (e, "draw"), (e, "meld", "AC 2C 3C"), (e, "meld", "4D 5D 6D")]
    two += [(e, "meld", "JH QH KH"), (e, "discard", "7C"), (f, "draw"), (f, "discard", "6S"), (e, "draw")]
    two += [(e, "add", 1)]
    bust = [(e, "knock"), (f, "knock"), (e, "draw"), (e, "meld", "AC 2C 3C 5C"), (e, "discard", "7C"), (f, "draw")]
    bust += [(f, "discard", "6S"), (e, "draw"), (e, "meld", "QH KH"), (e, "meld", "2S 2H 2D")]
    option = {"meld": "cards", "discard": "card", "add": "meld"}
    for shoe, script in [(TWO_SHOE, two)] * 3 + [(BUST_SHOE, bust), (BUST_SHOE, bust[:4])]:
        if pan.session(other).state.seat(1).stack == 0:  # type: ignore[union-attr]
            await pan.slash(f, "pan rebuy", chips=2, channel=other)
        pan.stack(shoe, first_seat=0, channel=other)
        await pan.slash(e, "pan start", channel=other)
        for user, command, *arg in script:
            await pan.slash(user, command, channel=other, **({option[command]: arg[0]} if arg else {}))
        hand_no = await stacked.finish()  # the busted hand: the last one in action plays it out
        for user, net in (await check_hand(pan, other, [e, f], hand_no)).items():
            totals[user] = totals.get(user, 0) + net
        await check_stats(pan, [e, f], totals, await condition_chips(pan, pan.session(other).table_id))
    run.seen["busted"] += stacked.seen["busted"]

    # what the run went through: conditions paid on turns before the hand's end, forces, fouls, busts, a bust-out
    for channel in (table, other):
        events = await stored_events(pan.rt.storage, pan.session(channel).table_id)
        spans = (await hand_seqs(pan.rt.storage, pan.session(channel).table_id)).values()
        run.seen["paid_mid_hand"] += sum(
            1
            for seq, kind, fields in events
            if kind == "ChipsMoved" and fields["reason"] == "condition" and any(s < seq < t for s, t in spans)
        )
        run.seen["bust_out"] += sum(
            1 for _, kind, fields in events if kind == "WentOut" and fields["bust_out_units"] != "0"
        )
        run.seen["fouled"] = run.seen.get("fouled", 0) + sum(1 for _, kind, _ in events if kind == "HandFouled")
    assert run.seen["paid_mid_hand"] >= 5 and run.seen["forces"] >= 1 and run.seen["floor_fouls"] >= 1, run.seen
    assert run.seen["fouled"] >= 1 and run.seen["busted"] >= 1 and run.seen["bust_out"] >= 1, run.seen
