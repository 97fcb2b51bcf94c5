"""A final-table deal through the fake Discord: /tourney deal, the proposal with its buttons in the table's thread,
a bystander's and a second click refused privately with nothing stored, the last acceptance paying the deal and
ending the tournament with the results; the audit balances."""

from __future__ import annotations

import asyncio

import pytest

from pancog.infra.storage.base import Account
from pancog.services.tournaments.model import Status
from tests.e2e.conftest import PanFactory, private_to
from tests.e2e.test_tourney import fast, public, wait_until_over  # noqa: F401 (fast: the pace fixture)
from tests.fakediscord import server as fake_server


async def test_a_deal_proposed_and_accepted_at_the_final_table(
    pan_factory: PanFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    pan = await pan_factory()
    host, ana, _bo, outsider = pan.users
    service = pan.rt.tournaments
    assert service is not None
    guild = pan.h.guild.id
    await pan.slash(
        host, "tourney create", seats=3, buy_in=100, payouts="65,35", starting_stack=5000, title="Deal night"
    )
    (t,) = service.tournaments
    tid = t.tournament_id
    reply = await pan.slash(ana, "tourney deal", kind="icm")
    assert private_to(reply, ana) and "final table" in reply.text and service.deal(tid) is None  # not running yet
    await pan.slash(host, "tourney register")
    await pan.slash(ana, "tourney register")
    await pan.slash(host, "tourney addbots", count=1, level="easy")  # full: it starts
    assert service.get(tid).status is Status.RUNNING
    with monkeypatch.context() as m:  # the fake gives every member Manage Server: the outsider is no moderator here
        m.setattr(fake_server, "ALL_PERMISSIONS", "0")
        reply = await pan.slash(outsider, "tourney deal", kind="icm")  # neither a player left nor the host
    assert private_to(reply, outsider) and "host" in reply.text.lower() and service.deal(tid) is None
    reply = await pan.slash(ana, "tourney deal", kind="icm")
    assert private_to(reply, ana) and "deal" in reply.text.lower()

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while (deal := service.deal(tid)) is None or deal.status != "proposed":
        assert loop.time() < deadline
        await asyncio.sleep(0.1)
    await pan.settle()
    (thread_id,) = {m.channel_id for m in pan.h.fake.messages.values() if "Deal proposed" in m.text}
    proposal = next(m for m in public(pan, thread_id) if "Deal proposed" in m.text)
    assert [b.get("label") for b in proposal.buttons] == ["Accept the deal", "Decline"]
    assert sorted(int(u) for u in proposal.allowed_mentions["users"]) == sorted([host.id, ana.id])
    assert sum(deal.amounts.values()) == 300
    hands = service.info(tid).chips

    reply = await pan.click(outsider, proposal, "Accept the deal")  # a bystander: refused, nothing stored
    assert private_to(reply, outsider) and "final table" in reply.text
    reply = await pan.click(ana, proposal, "Accept the deal")
    assert private_to(reply, ana) and "accepted" in reply.text
    reply = await pan.click(ana, proposal, "Accept the deal")  # a second click
    assert private_to(reply, ana) and "already accepted" in reply.text
    assert service.deal(tid).accepted == {ana.id} | {p for p in deal.accepted if p < 0}
    assert service.info(tid).chips == hands  # play waits
    assert await service.audit(tid) == []

    banks = {u.id: await pan.rt.ledger.balance(guild, u.id) for u in (host, ana)}
    await pan.click(host, proposal, "Accept the deal")
    await wait_until_over(pan, tid)
    t = service.get(tid)
    assert t.status is Status.FINISHED
    by_player = {t.entries[k].player_id: v for k, v in deal.amounts.items()}
    for u in (host, ana):
        assert await pan.rt.ledger.balance(guild, u.id) == banks[u.id] + by_player[u.id]
    assert await pan.rt.ledger.balances([Account.escrow(tid)]) == {Account.escrow(tid): 0}
    assert any("Deal made" in m.text for m in public(pan, pan.h.channel.id))
    assert await service.audit(tid) == []
    report = await pan.rt.ledger.audit()
    assert report.ok, report.summary()
