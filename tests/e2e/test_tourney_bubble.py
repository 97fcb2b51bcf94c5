"""Hand-for-hand on the bubble through the fake Discord: six computer players on two tables, five places paid, so
the tournament is on the bubble from its first hand; the boards say which table they wait for, and the tournament
ends with every prize exact and the audit balanced.

Why six and not twelve: with twelve the field reaches the bubble by chance, and two tables busting a player in the
same moment with seven left jumps it from seven to five without a bubble (a third of the runs on a quiet machine).
How the field comes to the bubble, round by round, is the service test's (tests/services/tournaments/test_bubble.py,
on a controlled clock); this one is what the players see."""

from __future__ import annotations

import json

from pancog.services.tournaments.model import Status
from pancog.services.tournaments.service import PlayerOut
from tests.e2e.conftest import PanFactory
from tests.e2e.test_tourney import fast, wait_until_over  # noqa: F401 (fast: the pace fixture)


async def test_the_boards_show_hand_for_hand_on_the_bubble(pan_factory: PanFactory) -> None:
    pan = await pan_factory()
    host = pan.users[0]
    service = pan.rt.tournaments
    assert service is not None
    await pan.slash(
        host,
        "tourney create",
        format="scheduled",
        start="+30",
        seats=4,
        buy_in=100,
        payouts="30,25,20,15,10",
        starting_stack=150,
        antes="10,12,14,16,18,20,25,30,35,40,50,60,70,80,100,120,140,160,200,250,300,400,500,600,800,1000",
        level_minutes=0.1,
        title="Bubble night",
    )
    (t,) = service.tournaments
    tid = t.tournament_id
    outs: list[PlayerOut] = []
    service.subscribe(lambda e: outs.append(e) if isinstance(e, PlayerOut) else None)
    await pan.slash(host, "tourney addbots", count=6, level="easy")
    await pan.h.slash(host, "tourney start", settle=False)  # the computer players play on: never idle
    await pan.h.until(lambda: len(service.get(tid).open_tables()) == 2, "two tables", 60)
    assert service.hand_for_hand(tid) is not None, "six left, five paid, two tables: hand-for-hand from the start"
    await wait_until_over(pan, tid, timeout=300)
    t = service.get(tid)
    assert t.status is Status.FINISHED
    # the bubble: the one out in sixth gets nothing (two put out in one hand at one table are ranked by their
    # stacks); players put out in one round at both tables share the places down to sixth and split their prizes
    prizes = [180, 150, 120, 90, 60, 0]  # 30,25,20,15,10 % of 600
    worst = max(o.place for o in outs)
    shared = [o for o in outs if o.place == worst]
    assert worst + len(shared) - 1 == 6, outs
    share = sum(prizes[worst - 1 :]) // len(shared)
    assert all(o.prize in (share, share + 1) for o in shared), outs
    posted = [json.dumps(c.payload) for c in pan.h.fake.calls if c.payload]
    assert any("Hand-for-hand: waiting for table" in p for p in posted), "a board said which table it waits for"
    assert sum(e.prize or 0 for e in t.entries.values()) == 600
    assert await service.audit(tid) == []
    report = await pan.rt.ledger.audit()
    assert report.ok, report.summary()
