"""Check-in through the fake Discord: the announcement's Check in button and /tourney checkin, the refusals (private,
nothing stored), and the no-show refunded in one journal when the host starts the event."""

from __future__ import annotations

import pytest

from pancog.services.tournaments.model import EntryStatus, Status
from tests.e2e.conftest import PanFactory, private_to
from tests.e2e.test_tourney import public


@pytest.fixture(autouse=True)
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    monkeypatch.setenv("PAN_CLOCK_SCALE", "300")
    monkeypatch.setenv("PAN_TIME_BANK_SECONDS", "0")
    monkeypatch.setenv("PAN_TOURNEY_TICK", "0.1")


async def test_check_in_then_the_no_show_is_refunded_at_the_start(pan_factory: PanFactory) -> None:
    pan = await pan_factory()
    host, ana, bo, outsider = pan.users
    service = pan.rt.tournaments
    assert service is not None
    guild = pan.h.guild.id
    reply = await pan.slash(host, "tourney create", format="sng", checkin=10)  # a Sit & Go has no check-in
    assert private_to(reply, host) and service.tournaments == ()
    await pan.slash(
        host, "tourney create", format="scheduled", start="+5", checkin=10, seats=4, buy_in=100, title="Check night"
    )  # the start is 5 minutes away: check-in (the last 10 minutes) is open
    (t,) = service.tournaments
    tid = t.tournament_id
    announcement = next(m for m in public(pan, pan.h.channel.id) if "Check night" in m.text)
    assert "Check-in opens" in announcement.text
    assert [b.get("label") for b in announcement.buttons] == ["Register", "Unregister", "Check in"]
    for user in (host, ana, bo):
        await pan.click(user, announcement, "Register")
    reply = await pan.click(outsider, announcement, "Check in")  # not registered
    assert private_to(reply, outsider) and "not registered" in reply.text
    reply = await pan.click(host, announcement, "Check in")
    assert private_to(reply, host) and "checked in" in reply.text
    reply = await pan.click(host, announcement, "Check in")  # twice
    assert private_to(reply, host) and "already checked in" in reply.text
    reply = await pan.slash(ana, "tourney checkin")
    assert private_to(reply, ana) and "checked in" in reply.text
    assert await pan.rt.ledger.balance(guild, bo.id) == 900
    await pan.slash(host, "tourney addbots", count=1, level="easy")

    await pan.slash(host, "tourney start")
    t = service.get(tid)
    assert t.status in (Status.RUNNING, Status.FINISHED)
    (bo_entry,) = t.entries_of(bo.id)
    assert bo_entry.status is EntryStatus.REFUNDED and await pan.rt.ledger.balance(guild, bo.id) == 1000
    async with pan.rt.storage.transaction(write=False) as tx:
        assert await tx.find_journal(f"tny:{tid}:noshows") is not None
    announcement = pan.h.fake.messages[announcement.id]
    assert "Check in" not in [b.get("label") for b in announcement.buttons]
    assert await service.audit(tid) == []
    await service.cancel(tid, host.id)
    await pan.settle()
