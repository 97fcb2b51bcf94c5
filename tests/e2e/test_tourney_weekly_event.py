"""The whole weekly event through the fake Discord, as a host and thirty entrants would run it: a template with
rebuys, the add-on and bounties, scheduled weekly and published as a Discord Scheduled Event; seven people and
twenty-three computer players; people rebuy and take the add-on, a rising ante puts out everyone who did not;
the six left are on the bubble of five places paid at two tables, so the tables play hand-for-hand until it
bursts; the final table makes a deal that every player left accepts with its button; every prize is exact and
the books balance after every step.

Why the field is *brought* to the bubble: reached by play, two tables putting out a player each at the same
moment can jump it (seven left, then five). Here the people who rebought hold five to eight times the ante
that follows the rebuy period, and nobody else can hold it, so exactly those six are left: that is the bubble
every time. The people play their turns through Discord (slash commands and My hand's select), choosing the
play the computer players would; at the final table, once the host has asked for the deal, the shortest stack
knocks and the others go on top, so that the hand before the proposal cannot end the tournament first."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import pytest

from pancog.adapter.presenters.hand import action_label
from pancog.game import engine
from pancog.game.actions import Action, AddToMeld, DeclineDraw, Discard, GoOnTop, Knock, NewMeld, Pluck, TakeOption
from pancog.game.state import Phase
from pancog.infra.storage.base import Account
from pancog.services.bots import ordered_legal
from pancog.services.table_session import NoTableHere
from pancog.services.tournaments.model import EntryStatus, Status, Tournament
from pancog.services.tournaments.payouts import prizes
from pancog.services.tournaments.service import PlayerOut, TournamentService
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.e2e.test_tourney import fast, public  # noqa: F401 (fast: the pace fixture)
from tests.e2e.test_tourney_schedule import moved_to
from tests.fakediscord.models import FakeChannel, FakeUser

SLASH_OF = {Pluck: "draw", TakeOption: "take", Knock: "knock", GoOnTop: "sluff"}
BUY_IN, BOUNTY, STACK = 20, 5, 200
PAYOUTS = (35, 25, 18, 12, 10)
LEVEL_S = 180.0  # three-minute levels: the test moves the clock on a level at a time
TEMPLATE: dict[str, Any] = {
    "format": "scheduled",
    "start": "+60",
    "seats": 5,
    "buy_in": BUY_IN,
    "bounty": str(BOUNTY),
    "payouts": ",".join(map(str, PAYOUTS)),
    "starting_stack": STACK,
    # level 1: ante 1 (the rebuy period); level 2: 300, more than anyone holds without a rebuy; 3 on: the bubble
    "antes": "1,300,600,800,1000,1200",
    "level_minutes": LEVEL_S / 60,
    "rebuy_levels": 1,
    "rebuy_stack": 1_000_000,  # at any stack during the rebuy period
    "max_rebuys": 0,  # no maximum
    "addon": True,
    "title": "The original",
}
PEOPLE, COMPUTERS = 7, 23


class People:
    """The people seated in a tournament play their own turns, through Discord: the play the computer players
    would choose, sent as the slash command for it (or chosen in My hand's select)."""

    def __init__(self, pan: Pan, tid: int, people: list[FakeUser]) -> None:
        self.pan = pan
        self.tid = tid
        self.by_id = {u.id: u for u in people}
        self.service = pan.rt.tournaments
        self.acted: dict[int, object] = {}  # table id -> the state last acted on
        self.moves = 0

    def thread(self, channel_id: int) -> FakeChannel:
        return next(c for c in self.pan.h.guild.channels if c.id == channel_id)

    async def run(self) -> None:
        while True:
            if not await self.step():
                await asyncio.sleep(0.02)

    async def step(self) -> bool:
        assert self.service is not None
        t = self.service.get(self.tid)
        if t.status is not Status.RUNNING:
            return False
        acted = False
        for tt in t.open_tables():
            try:
                session = self.pan.rt.tables.get(tt.table_id)
            except NoTableHere:
                continue
            state = session.state
            seat = engine.to_act(state) if state.hand is not None else None
            s = state.seat(seat) if seat is not None else None
            user = self.by_id.get(s.player_id) if s is not None else None
            if seat is None or user is None or self.acted.get(tt.table_id) is state:
                continue
            if tt.final and self.service.deal(self.tid) is None:
                continue  # the host asks for the deal first (see the module's docstring)
            plays = ordered_legal(engine.observe(state, seat))
            if not plays:
                continue
            action, pays = plays[0]
            if tt.final and state.hand.phase is Phase.DECLARING:
                shortest = min(
                    (i for i, x in enumerate(state.seats) if x is not None and state.hand.players[i] is not None),
                    key=lambda i: (state.seats[i].stack, i),  # type: ignore[union-attr]
                )
                wanted = Knock if seat == shortest else GoOnTop
                action, pays = next(p for p in plays if isinstance(p[0], wanted))
            self.acted[tt.table_id] = state
            await self.play(user, self.thread(session.channel_id), session.board_message_id, action, pays)
            acted = True
        return acted

    async def play(self, user: FakeUser, thread: FakeChannel, board: int | None, action: Action, pays: int) -> None:
        self.moves += 1
        h = self.pan.h
        kind = type(action)
        if kind in SLASH_OF:
            await h.slash(user, SLASH_OF[kind], channel=thread, settle=False)
        elif isinstance(action, Discard):
            session = self.pan.rt.tables.in_channel(thread.id)
            card = action.card if action.card is not None else session.state.hand.turn.drawn
            await h.slash(user, "discard", channel=thread, card=str(card), settle=False)
        elif isinstance(action, NewMeld):
            await h.slash(user, "meld", channel=thread, cards=" ".join(map(str, action.cards)), settle=False)
        elif isinstance(action, AddToMeld) and action.split is None:
            cards = " ".join(map(str, action.cards))
            await h.slash(user, "add", channel=thread, meld=action.meld, cards=cards, settle=False)
        elif isinstance(action, DeclineDraw):
            await h.slash(user, "pass", channel=thread, settle=False)
        else:  # anything else: chosen in My hand's select, as a player would
            reply = await h.slash(user, "hand", channel=thread, settle=False)
            panel = reply.all_messages[-1] if reply.all_messages else None
            label = action_label(action, pays)
            for menu in panel.selects if panel is not None else []:
                for option in menu.get("options") or []:
                    if option["label"] == label:
                        await h.select(user, panel, menu["custom_id"], [option["value"]], settle=False)
                        return


def service_of(pan: Pan) -> TournamentService:
    assert pan.rt.tournaments is not None
    return pan.rt.tournaments


async def audited(pan: Pan, tid: int) -> None:
    """The tournament's own books (escrow, chips issued and held) and the whole ledger balance."""
    assert await service_of(pan).audit(tid) == []
    report = await pan.rt.ledger.audit()
    assert report.ok, report.summary()


async def bank(pan: Pan, user: FakeUser) -> int:
    return await pan.rt.ledger.balance(pan.h.guild.id, user.id)


def idle(pan: Pan, t: Tournament) -> bool:
    for tt in t.open_tables():
        with contextlib.suppress(NoTableHere):
            if pan.rt.tables.get(tt.table_id).in_hand:
                return False
    return True


async def test_a_weekly_event_with_rebuys_add_on_and_bounties_runs_to_a_deal(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAN_TIME_BANK_SECONDS", "9000")  # 30 s a turn for the people (the clock runs 300 times fast)
    pan = await pan_factory(members=PEOPLE + 1)
    service = service_of(pan)
    shift = [0.0]
    service.use_clock(lambda: time.time() + shift[0])
    people, bystander = pan.users[:PEOPLE], pan.users[PEOPLE]
    host = people[0]
    rebuyers = people[:6]  # the six who will be on the bubble; people[6] plays without a rebuy
    pan.h.plain_member(bystander)

    # the host's settings become the template "Weekly Pan", scheduled every week and announced ahead
    reply = await pan.slash(host, "tourney create", **TEMPLATE)
    assert private_to(reply, host)
    (original,) = service.tournaments
    reply = await pan.slash(host, "tourney template save", name="Weekly Pan", tournament=str(original.tournament_id))
    assert private_to(reply, host) and "Weekly Pan" in reply.text
    await pan.slash(host, "tourney cancel", tournament=str(original.tournament_id))
    reply = await pan.slash(host, "tourney schedule weekly", template="Weekly Pan", start="+90", weeks=4)
    assert private_to(reply, host) and "for 4 weeks" in reply.text
    await pan.h.until(lambda: len(pan.h.guild.scheduled_events) == 1, "the week's Discord event", 30)
    await pan.settle()
    (occ,) = [t for t in service.tournaments if t.config.title == "Weekly Pan"]
    tid = occ.tournament_id
    (event,) = pan.h.guild.scheduled_events.values()
    assert event.name == "Weekly Pan" and event.status == 1
    cfg = occ.config
    assert (cfg.rebuy_levels, cfg.addon, cfg.bounty, cfg.seats) == (1, True, BOUNTY, 5)
    announcement = pan.h.fake.messages[occ.announcement[1]] if occ.announcement else None
    assert announcement is not None and "Weekly Pan" in announcement.text

    # thirty entries: seven people through the Register button, twenty-three computer players
    for user in people:
        reply = await pan.click(user, pan.h.fake.messages[announcement.id], "Register")
        assert private_to(reply, user) and "registered" in reply.text
    before = {u.id: await bank(pan, u) + BUY_IN for u in people}  # each bank before its buy-in
    await pan.slash(host, "tourney addbots", count=COMPUTERS, level="easy", tournament=str(tid))
    assert len(service.get(tid).entries) == PEOPLE + COMPUTERS == 30
    await audited(pan, tid)

    outs: list[PlayerOut] = []
    service.subscribe(lambda e: outs.append(e) if isinstance(e, PlayerOut) and e.tournament_id == tid else None)
    players = People(pan, tid, people)
    playing = asyncio.ensure_future(players.run())
    try:
        # the host starts early and pauses at once: the people buy while no hand is dealt
        await pan.h.slash(host, "tourney start", tournament=str(tid), settle=False)
        await pan.h.slash(host, "tourney pause", tournament=str(tid), settle=False)
        await pan.h.until(
            lambda: service.get(tid).paused_ms is not None and idle(pan, service.get(tid)), "paused, hands over", 120
        )
        await pan.h.until(lambda: moved_to(pan, 2), "the event active", 30)
        await audited(pan, tid)

        bought = 0
        for i, user in enumerate(rebuyers):
            for _ in range(6 + i):  # different stacks: 1,600 to 2,600 chips with the add-on
                reply = await pan.h.slash(user, "tourney rebuy", tournament=str(tid), settle=False)
                assert private_to(reply, user) and "Rebuy in **Weekly Pan**" in reply.text, reply.text
                bought += 1
            reply = await pan.h.slash(user, "tourney addon", tournament=str(tid), settle=False)
            assert private_to(reply, user) and "Add-on in **Weekly Pan**" in reply.text, reply.text
            bought += 1
        reply = await pan.h.slash(rebuyers[0], "tourney addon", tournament=str(tid), settle=False)
        assert private_to(reply, rebuyers[0]) and "already taken the add-on" in reply.text
        reply = await pan.h.slash(bystander, "tourney rebuy", tournament=str(tid), settle=False)
        assert private_to(reply, bystander) and "not registered" in reply.text.lower()
        t = service.get(tid)
        assert sum(e.rebuys + e.addons for e in t.entries.values()) == bought
        for i, user in enumerate(rebuyers):
            assert await bank(pan, user) == before[user.id] - BUY_IN * (1 + 6 + i + 1)
        await audited(pan, tid)

        # level 2 (ante 300): everyone without a rebuy is out, table by table; the six left are on the bubble
        await pan.h.slash(host, "tourney resume", tournament=str(tid), settle=False)
        shift[0] += LEVEL_S
        await pan.h.until(lambda: len(service.get(tid).alive()) <= 6, "the field down to six", 120)
        t = service.get(tid)
        assert {e.player_id for e in t.alive()} == {u.id for u in rebuyers}
        assert len(t.open_tables()) >= 2 and service.hand_for_hand(tid) is not None, "on the bubble: hand-for-hand"
        assert all(o.prize == 0 and o.place >= 7 for o in outs) and len(outs) == 24
        await audited(pan, tid)

        # level 3 on: the rebuy period is over; the bubble is played hand-for-hand until it bursts
        shift[0] += LEVEL_S
        busts = len(outs)
        last_bust = asyncio.get_running_loop().time()
        raised = 0
        while not any(tt.final for tt in service.get(tid).open_tables()):
            assert service.get(tid).status is Status.RUNNING, "the tournament ended before its final table"
            await asyncio.sleep(0.05)
            now = asyncio.get_running_loop().time()
            if len(outs) != busts:
                busts, last_bust = len(outs), now
                await audited(pan, tid)
            elif now - last_bust > 40 and raised < 2:  # a slow bubble: the next level, as the clock would
                shift[0] += LEVEL_S
                raised, last_bust = raised + 1, now
        bubble = [o for o in outs if o.place <= 6]
        assert bubble, "the bubble burst"
        posted = [str(c.payload) for c in pan.h.fake.calls if c.payload]
        assert any("Hand-for-hand: waiting for table" in p for p in posted), "a board said which table it waits for"

        # the final table: the host asks for a chip chop; everyone left accepts with the button
        reply = await pan.h.slash(host, "tourney deal", kind="chip", tournament=str(tid), settle=False)
        assert private_to(reply, host) and "deal" in reply.text.lower(), reply.text
        await pan.h.until(
            lambda: (d := service.deal(tid)) is not None and d.status == "proposed", "the deal proposed", 120
        )
        deal = service.deal(tid)
        assert deal is not None
        left = [u for u in people if any(e.player_id == u.id for e in service.get(tid).alive())]
        assert len(left) >= 2
        await pan.settle()
        proposal = next(m for m in pan.h.fake.messages.values() if "Deal proposed" in m.text and not m.ephemeral)
        assert sorted(int(u) for u in proposal.allowed_mentions["users"]) == sorted(u.id for u in left)
        reply = await pan.click(bystander, proposal, "Accept the deal")
        assert private_to(reply, bystander) and "final table" in reply.text
        for user in left:
            reply = await pan.click(user, pan.h.fake.messages[proposal.id], "Accept the deal")
            assert private_to(reply, user)
            await audited(pan, tid)
        await pan.h.until(lambda: service.get(tid).status is Status.FINISHED, "the tournament over", 60)
    finally:
        playing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await playing
    await pan.settle()
    await pan.h.until(lambda: pan.h.guild.scheduled_events[event.id].status == 3, "the event completed", 30)

    # every prize exact: the pool is 15 of each buy-in (5 is the bounty) and every rebuy and add-on whole
    t = service.get(tid)
    pool = (BUY_IN - BOUNTY) * 30 + BUY_IN * bought
    table = prizes(pool, 30, PAYOUTS)
    assert sum(table) == pool and len([p for p in table if p]) == 5
    won = {e.entry_id: e.prize or 0 for e in t.entries.values()}
    assert sum(won.values()) == pool
    # the bubble round: those put out in it share the places they cover (split evenly, an odd chip to the first)
    worst = max(o.place for o in bubble)
    shared = [o for o in bubble if o.place == worst]
    covered = table[worst - 1 : worst - 1 + len(shared)] if worst <= 5 else ()
    split = sum(covered) // len(shared) if covered else 0
    assert all(won[o.entry_id] in (split, split + 1) for o in shared), (bubble, table)
    # the deal: the prizes of the places still open, shared as proposed
    dealt = dict(deal.amounts)
    assert sum(dealt.values()) == sum(table[: len(dealt)])
    assert all(won[k] == v for k, v in dealt.items())
    # each person's bank: what they won and the bounties they collected, less what they paid in
    heads = {u.id: sum(o.bounty for o in outs if o.bounty_to == u.id) for u in people}
    unclaimed = BOUNTY * 30 - sum(o.bounty for o in outs)
    odd = []
    for user in people:
        (entry,) = t.entries_of(user.id)
        paid = BUY_IN * (1 + entry.rebuys + entry.addons)
        expected = before[user.id] - paid + won[entry.entry_id] + heads[user.id]
        if await bank(pan, user) != expected:
            odd.append(await bank(pan, user) - expected)
    assert odd in ([], [unclaimed]), (odd, unclaimed)  # the winner's own head and the unclaimed ones
    assert all(e.status in (EntryStatus.OUT, EntryStatus.ALIVE) for e in t.entries.values())
    assert await pan.rt.ledger.balances([Account.escrow(tid)]) == {Account.escrow(tid): 0}
    await audited(pan, tid)
    results = [m for m in public(pan, pan.h.channel.id) if "Weekly Pan" in m.text and "Deal" in m.text]
    assert results, "the results say the deal"
    assert players.moves > 0 and pan.h.fake.violations == []
