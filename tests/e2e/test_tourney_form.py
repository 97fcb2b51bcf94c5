"""``/tourney create form:True``: one modal (the format as a radio group, buy-in, seats, start, name) that announces
the tournament the options would; a bad value is refused privately and nothing is announced."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import PanFactory, private_to


async def test_the_form_announces_the_tournament_it_describes(pan_factory: PanFactory) -> None:
    pan = await pan_factory()
    host = pan.users[0]
    asked = await pan.slash(host, "tourney create", form=True)
    assert asked.modal is not None and asked.modal["title"] == "Announce a tournament"
    done = await pan.h.submit_modal(
        host,
        asked,
        {"pan:tourney:buy_in": "50", "pan:tourney:seats": "4", "pan:tourney:title": "Form SnG"},
    )
    await pan.settle()
    assert private_to(done, host) and "Form SnG" in done.text
    (announcement,) = [m for m in pan.h.messages() if not m.ephemeral and "Form SnG" in m.text]
    cog = pan.h.bot.get_cog("PanTourney")
    assert cog is not None
    (t,) = cog.service.tournaments  # type: ignore[attr-defined]
    assert (t.config.buy_in, t.config.seats, t.config.title, t.host_id) == (50, 4, "Form SnG", host.id)
    assert announcement.id is not None


@pytest.mark.parametrize(
    ("values", "said"),
    [
        ({"pan:tourney:seats": "9"}, "Players per table: “9” is not a whole number from 2 to 8."),
        ({"pan:tourney:buy_in": "lots"}, "Buy-in (bank chips per entry): “lots” is not a whole number"),
        ({"pan:tourney:format": "scheduled", "pan:tourney:start": "soon"}, "Give the start as minutes from now"),
    ],
)
async def test_a_bad_value_is_refused_privately(pan_factory: PanFactory, values: dict[str, str], said: str) -> None:
    pan = await pan_factory()
    host = pan.users[1]
    asked = await pan.slash(host, "tourney create", form=True)
    refused = await pan.h.submit_modal(host, asked, values)
    await pan.settle()
    assert private_to(refused, host) and refused.text.startswith(said), refused.text
    cog = pan.h.bot.get_cog("PanTourney")
    assert cog is not None and list(cog.service.tournaments) == []  # type: ignore[attr-defined]
    assert [m for m in pan.h.messages() if not m.ephemeral] == []
