"""Hand-for-hand on the bubble through the fake Discord: twelve computer players on three tables, five places paid;
with six left on two tables the boards say which table they wait for, no table deals ahead of the other, and the
tournament ends with every prize exact and the audit balanced."""

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
    left: list[int] = []
    service.subscribe(lambda e: left.append(len(service.get(tid).alive())) if isinstance(e, PlayerOut) else None)
    await pan.slash(host, "tourney addbots", count=12, level="easy")
    await pan.h.slash(host, "tourney start", settle=False)  # the computer players play on: never idle
    await wait_until_over(pan, tid, timeout=300)
    t = service.get(tid)
    assert t.status is Status.FINISHED
    posted = [json.dumps(c.payload) for c in pan.h.fake.calls if c.payload]
    assert 6 in left, "the field passed through the bubble (six left)"
    assert any("Hand-for-hand: waiting for table" in p for p in posted), "a board said which table it waits for"
    assert sum(e.prize or 0 for e in t.entries.values()) == 1200
    assert await service.audit(tid) == []
    report = await pan.rt.ledger.audit()
    assert report.ok, report.summary()
