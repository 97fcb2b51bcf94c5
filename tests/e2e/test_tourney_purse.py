"""Rebuys, the add-on, bounties and a guaranteed pool through the fake Discord: /tourney rebuy and /tourney addon
with their private refusals, the knock-out line's bounty, the overlay in /tourney info and the results; the books
balance at the end and every prize is exact."""

from __future__ import annotations

import pytest

from pancog.infra.storage.base import Account
from pancog.services.tournaments.model import EntryStatus, Status
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.e2e.test_tourney import fast, public, wait_until_over
from tests.fakediscord import server as fake_server

__all__ = ["fast"]  # the fixture: computer players at once, a fast tournament clock

FAST = {"antes": "10,20,40,80,160,320,640,1280", "starting_stack": 60}


async def bank(pan: Pan, user_id: int) -> int:
    return await pan.rt.ledger.balance(pan.h.guild.id, user_id)


async def test_rebuy_and_add_on_through_discord(pan_factory: PanFactory) -> None:
    pan = await pan_factory()
    host, ana, bo, outsider = pan.users
    service = pan.rt.tournaments
    assert service is not None
    reply = await pan.slash(
        host,
        "tourney create",
        seats=3,
        buy_in=100,
        level_minutes=1,
        rebuy_levels=1,
        max_rebuys=1,
        addon=True,
        title="Rebuy night",
        starting_stack=300,
    )
    assert private_to(reply, host)
    (t,) = service.tournaments
    tid = t.tournament_id
    announcement = next(m for m in public(pan, pan.h.channel.id) if "Rebuy night" in m.text)
    assert "Rebuys during levels 1–1 at 300 chips or less (at most 1 each)" in announcement.text
    assert "one add-on" in announcement.text
    reply = await pan.slash(ana, "tourney rebuy")  # not running yet
    assert private_to(reply, ana) and "not running" in reply.text
    for user in (host, ana, bo):
        await pan.slash(user, "tourney register")
    await pan.slash(host, "tourney pause")  # nobody deals while the players buy
    await pan.settle()
    assert service.get(tid).status is Status.RUNNING

    reply = await pan.slash(ana, "tourney rebuy")
    assert private_to(reply, ana) and "Rebuy in **Rebuy night**" in reply.text and "300" in reply.text
    assert await bank(pan, ana.id) == 800
    # hostile: each refused privately, nothing charged or stored
    for user, command, word in [
        (ana, "tourney rebuy", "rebuys"),  # the maximum (and above the limit now)
        (outsider, "tourney rebuy", "not registered"),  # not in the event
        (outsider, "tourney addon", "not registered"),
    ]:
        before = await bank(pan, user.id)
        entries = [repr(e) for e in service.get(tid).entries.values()]
        reply = await pan.slash(user, command)
        assert private_to(reply, user) and word in reply.text.lower(), (command, reply.text)
        assert await bank(pan, user.id) == before
        assert [repr(e) for e in service.get(tid).entries.values()] == entries
    reply = await pan.slash(bo, "tourney addon")
    assert private_to(reply, bo) and "Add-on in **Rebuy night**" in reply.text
    reply = await pan.slash(bo, "tourney addon")
    assert private_to(reply, bo) and "already taken the add-on" in reply.text
    assert await bank(pan, bo.id) == 800
    await pan.settle()
    info = await pan.slash(outsider, "tourney info")
    assert "Rebuys 1 · add-ons 1" in info.text and "prize pool 500" in info.text
    assert await service.audit(tid) == []

    # cancelled: every entry gets back its buy-in with its rebuy and add-on; the escrow ends at 0
    reply = await pan.slash(host, "tourney cancel")
    assert private_to(reply, host)
    await pan.settle()
    assert service.get(tid).status is Status.CANCELLED and await service.audit(tid) == []
    assert [await bank(pan, u.id) for u in (host, ana, bo)] == [1000, 1000, 1000]
    assert await pan.rt.ledger.balances([Account.escrow(tid)]) == {Account.escrow(tid): 0}
    report = await pan.rt.ledger.audit()
    assert report.ok, report.summary()


async def test_bounties_and_a_guarantee_through_discord(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    pan = await pan_factory()
    host, ana = pan.users[:2]
    service = pan.rt.tournaments
    assert service is not None
    # hostile: a bounty larger than the buy-in; a guarantee set by someone who is not a moderator
    reply = await pan.slash(host, "tourney create", buy_in=100, bounty="150")
    assert private_to(reply, host) and "bounty" in reply.text.lower()
    with monkeypatch.context() as m:
        m.setattr(fake_server, "ALL_PERMISSIONS", "0")  # nobody has Manage Server: nobody is a moderator
        reply = await pan.slash(ana, "tourney create", buy_in=100, guarantee=2000)
        assert private_to(reply, ana) and "Only moderators" in reply.text
    assert service.tournaments == ()

    reply = await pan.slash(
        host,
        "tourney create",
        seats=5,
        buy_in=100,
        bounty="40",
        guarantee=1000,
        level_minutes=0.05,
        title="Bounty hunt",
        **FAST,
    )
    assert private_to(reply, host)
    (t,) = service.tournaments
    tid = t.tournament_id
    announcement = next(m for m in public(pan, pan.h.channel.id) if "Bounty hunt" in m.text)
    assert "bounty 40 chips a head" in announcement.text and "1,000 chips guaranteed" in announcement.text
    await pan.slash(host, "tourney addbots", count=5, level="easy")
    await wait_until_over(pan, tid)
    done = service.get(tid)
    assert done.status is Status.FINISHED and await service.audit(tid) == []
    pool = 1000  # 5 x 60 collected, the house adds 700
    assert sum(e.prize or 0 for e in done.entries.values()) == pool
    assert sum(e.bounty_won for e in done.entries.values()) == 5 * 40
    assert await pan.rt.ledger.balances([Account.escrow(tid)]) == {Account.escrow(tid): 0}
    knockouts = [m for m in public(pan, pan.h.channel.id) if "is out of" in m.text]
    assert len(knockouts) == 4
    paid = [e for e in done.entries.values() if e.knocked_by is not None]
    lines = [m for m in knockouts if "collects a bounty of 40 chips" in m.text]
    assert len(lines) == len(paid) >= 1  # one line per bounty paid at a knock-out, nobody pinged but the one out
    assert all(len(m.allowed_mentions.get("users", [])) <= 1 for m in lines)
    (results,) = [m for m in public(pan, pan.h.channel.id) if "is over" in m.text]
    assert "overlay of 700 chips" in results.text
    report = await pan.rt.ledger.audit()
    assert report.ok, report.summary()


async def test_a_satellite_through_discord(pan_factory: PanFactory) -> None:
    """A satellite named by its target's title: its winner is registered in the target (the results say so), the
    remainder is paid in chips; an unknown target is refused privately and nothing is announced."""
    pan = await pan_factory()
    host = pan.users[0]
    service = pan.rt.tournaments
    assert service is not None
    reply = await pan.slash(host, "tourney create", seats=6, buy_in=300, title="Main event")
    assert private_to(reply, host)
    (target,) = service.tournaments
    reply = await pan.slash(host, "tourney create", buy_in=100, satellite_for="No such event")
    assert private_to(reply, host) and "satellite" in reply.text.lower()
    assert len(service.tournaments) == 1
    reply = await pan.slash(
        host,
        "tourney create",
        seats=4,
        buy_in=100,
        level_minutes=0.05,
        title="Qualifier",
        satellite_for="Main event",
        **FAST,
    )
    assert private_to(reply, host)
    sat = service.tournaments[-1]
    announcement = next(m for m in public(pan, pan.h.channel.id) if "Qualifier" in m.text)
    assert "prizes are seats in Main event" in announcement.text
    await pan.slash(host, "tourney addbots", count=4, level="easy", tournament=str(sat.tournament_id))
    await wait_until_over(pan, sat.tournament_id)
    done = service.get(sat.tournament_id)
    assert done.status is Status.FINISHED and await service.audit(sat.tournament_id) == []
    first = next(e for e in done.entries.values() if e.place == 1)
    (seat,) = service.get(target.tournament_id).entries.values()
    assert seat.player_id == first.player_id and seat.status is EntryStatus.REGISTERED
    assert await pan.rt.ledger.balances([Account.escrow(sat.tournament_id), Account.escrow(target.tournament_id)]) == {
        Account.escrow(sat.tournament_id): 0,
        Account.escrow(target.tournament_id): 300,
    }
    (results,) = [m for m in public(pan, pan.h.channel.id) if "Qualifier" in m.text and "is over" in m.text]
    assert "Seats in Main event:" in results.text
    assert target.announcement is not None  # its live count follows the seat
    assert "Entries: **1/6**" in pan.h.fake.messages[target.announcement[1]].text
