"""``/pan open form:True``: one modal (a radio group of presets, number inputs, a checkbox) that opens the same table
the options would; every value is checked, and a bad one is refused privately with nothing opened."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Pan, private_to


async def test_the_form_opens_the_table_its_values_describe(pan: Pan) -> None:
    host = pan.users[0]
    asked = await pan.slash(host, "pan open", form=True)
    modal = asked.modal
    assert modal is not None and modal["title"] == "Open a Pan table"
    assert pan.rt.tables.find_in_channel(pan.h.channel.id) is None  # nothing opened by asking
    await pan.h.submit_modal(
        host,
        asked,
        {"pan:open:preset": "classic", "pan:open:stakes": "5", "pan:open:seats": "4", "pan:open:away": True},
    )
    await pan.settle()
    session = pan.session()
    config = session.config
    assert (config.preset, config.away_bot) == ("classic", True)
    assert dict(config.overrides) == {"ante_chips": 5, "min_buyin_chips": 100, "max_players": 4}
    assert session.find_seat(host.id) is not None  # the host sits down, as with the options
    board = pan.board()
    assert board.v2 and "Join" in [b.get("label") for b in board.buttons]


@pytest.mark.parametrize(
    ("field", "typed", "said"),
    [
        ("pan:open:stakes", "abc", "Stakes (chips per unit): “abc” is not a whole number from 1 to 100."),
        ("pan:open:stakes", "101", "Stakes (chips per unit): “101” is not a whole number from 1 to 100."),
        ("pan:open:seats", "1", "Most players: “1” is not a whole number from 2 to 15."),
        ("pan:open:turn", "-30", "Seconds per turn: “\\-30” is not a whole number from 10 to 600."),
        ("pan:open:turn", "**9", "Seconds per turn: “\\*\\*9” is not a whole number from 10 to 600."),
    ],
)
async def test_a_bad_value_is_refused_privately_and_opens_nothing(pan: Pan, field: str, typed: str, said: str) -> None:
    host = pan.users[1]
    asked = await pan.slash(host, "pan open", form=True)
    refused = await pan.h.submit_modal(host, asked, {field: typed})
    await pan.settle()
    assert private_to(refused, host) and refused.text.startswith(said), refused.text
    assert "Nothing was opened" in refused.text
    assert pan.rt.tables.find_in_channel(pan.h.channel.id) is None
    assert [m for m in pan.h.messages() if not m.ephemeral] == []  # no board, nothing public


async def test_blank_inputs_take_the_defaults_and_the_options_still_work(pan: Pan) -> None:
    host = pan.users[2]
    asked = await pan.slash(host, "pan open", form=True)
    await pan.h.submit_modal(host, asked, {})
    await pan.settle()
    assert pan.session().config.overrides == () and pan.session().config.preset == "california"
    other = pan.h.guild.channels[1]
    await pan.slash(host, "pan open", channel=other, stakes=3)
    assert dict(pan.session(other).config.overrides)["ante_chips"] == 3
