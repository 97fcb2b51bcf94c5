"""Rating decay through the fake Discord: /panadmin league decay: after: turns it on (privately), and a day before an
established player's rating starts to decay he gets one DM (in his language, through the outbox) — none for a player
who turned Pan's DMs off, none again on the next tick."""

from __future__ import annotations

import pytest

from pancog.services.league.decay import DAY
from pancog.services.prefs import DmMode
from tests.e2e.conftest import Pan, private_to


async def test_decay_is_configured_and_warned_by_dm_once(pan: Pan, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, c = pan.users[:3]
    mod = pan.h.moderator
    league = pan.rt.league
    assert league is not None
    guild = pan.h.guild.id
    reply = await pan.slash(mod, "panadmin league")
    assert private_to(reply, mod) and "Rating decay: off." in reply.text
    reply = await pan.slash(mod, "panadmin league", established=1, decay=7.0, after=3)
    assert private_to(reply, mod)
    assert "loses 7 rating points a week after 3 days without a result" in reply.text
    await league.record_tournament(guild, 601, [(a.id, 1), (c.id, 2), (b.id, 3)])
    await league.record_tournament(guild, 602, [(a.id, 1), (c.id, 2), (b.id, 3)])
    await pan.rt.settings.update(c.id, dm_mode=DmMode.OFF)  # c takes no DMs from Pan
    scores = {u.id: (await league.player_card(guild, u.id)).rating.score for u in (a, b, c)}
    assert scores[a.id] > 0 and scores[c.id] > 0 and scores[b.id] <= 0  # b's 0.0 cannot decay: not warned
    last = int(max(h.created_at for h in await league.history(guild, a.id)))
    monkeypatch.setattr(league, "_clock", lambda: float(last + 3 * DAY + 60))  # three days later
    cog = pan.h.bot.get_cog("PanLeague")
    await cog.tick()  # type: ignore[union-attr]
    await pan.settle()
    await pan.rt.deliveries.deliver_due()
    await pan.settle()
    (dm,) = pan.h.dms(a)
    assert f"starts to decay <t:{last + 4 * DAY}:R>: 7 points a week" in dm.text
    assert pan.h.dms(b) == [] and pan.h.dms(c) == []
    await cog.tick()  # type: ignore[union-attr]
    await pan.settle()
    await pan.rt.deliveries.deliver_due()
    await pan.settle()
    assert len(pan.h.dms(a)) == 1  # once per inactivity spell
