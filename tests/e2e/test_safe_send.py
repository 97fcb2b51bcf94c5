"""The safe-send layer (pancog/adapter/errors.py): every reply within Discord's limits; a 400 on the bot's own
answer is logged at ERROR with its route and sizes, and the user still gets a short answer."""

from __future__ import annotations

import io
import logging
import types

import discord
import pytest
from discord import app_commands

from pancog.adapter.errors import cut, fit_choices, fit_embed, fit_file, fit_view, fitted, pings, refused_route
from pancog.adapter.presenters.common import SOMETHING_WRONG
from tests.e2e.conftest import Pan
from tests.e2e.scenarios import TWO_SHOE
from tests.fakediscord import limits

CALLBACK = "POST /interactions/*"


async def test_a_400_on_the_answer_is_logged_and_the_user_still_answered(pan: Pan) -> None:
    a, _b = await pan.seat(2)
    pan.stack(TWO_SHOE, first_seat=0)
    await pan.slash(a, "pan start")
    before = pan.session().state
    pan.h.fake.fail_next(CALLBACK, status=400)  # /meld refuses unreadable cards before it defers
    channel = pan.h.channel
    data = pan.h._command_data(channel, "meld", {"cards": "ZZ"})
    interaction = await pan.h.fake.create_interaction(type=2, user=a, channel=channel, data=data, label="/meld ZZ")
    await pan.h.until(
        lambda: interaction.settled and bool(interaction.original_id or interaction.followup_ids),
        "an answer after the 400",
    )
    await pan.settle()
    answered = [pan.h.fake.messages[i] for i in [interaction.original_id, *interaction.followup_ids] if i]
    assert [m.content for m in answered if m.content] == [SOMETHING_WRONG]
    assert all(m.ephemeral and m.visible_to == a.id for m in answered)
    logged = [r for r in pan.h.errors.records if r.levelno >= logging.ERROR]
    assert len(logged) == 1, [r.getMessage() for r in logged]
    line = logged[0].getMessage()
    assert "Discord refused answer to interaction" in line and "HTTP 400" in line
    assert "POST /api/v10/interactions/" in line and "<token>" in line and interaction.token not in line
    assert "content" in line and "chars" in line
    assert pan.session().state is before
    pan.h.forgive()  # the ERROR above was provoked on purpose


def test_fitted_cuts_everything_to_discords_limits() -> None:
    """Content, embeds, select options, button labels, choices and alt text: cut within Discord's limits, with a
    visible cut; the fake's own checks then find nothing."""
    embed = discord.Embed(title="t" * 300, description="d" * 5000)
    embed.set_footer(text="f" * 3000)
    embed.set_author(name="a" * 300)
    for i in range(30):
        embed.add_field(name="n" * 300, value=f"{i}" + "v" * 2000)
    view = discord.ui.View()
    select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
        custom_id="s",
        placeholder="p" * 200,
        options=[discord.SelectOption(label="L" * 150, value=f"v{i}", description="D" * 150) for i in range(30)],
    )
    view.add_item(select)
    view.add_item(discord.ui.Button(label="B" * 100, custom_id="b"))
    content, kwargs = fitted("x" * 5000, embeds=[embed, embed.copy()], view=view)
    assert content is not None and len(content) == 2000 and content.endswith("…")
    payload = {"content": content, "embeds": [e.to_dict() for e in kwargs["embeds"]]}
    payload["components"] = kwargs["view"].to_components()
    assert limits.check_message(payload, [], creating=True) == []
    assert len(select.options) == 25 and all(len(o.label) == 100 for o in select.options)
    assert fit_embed(discord.Embed(title="ok"))[0].title == "ok"
    choices = [app_commands.Choice(name="c" * 200, value=f"{i}") for i in range(30)]
    choices.append(app_commands.Choice(name="long value", value="v" * 101))
    fitted_choices = fit_choices(choices)
    as_json = [{"name": c.name, "value": c.value} for c in fitted_choices]
    assert len(fitted_choices) == 25 and limits.check_choices(as_json) == []
    file = discord.File(io.BytesIO(b"\x89PNG"), filename="a.png", description="alt " * 400)
    kept = fit_file(file)
    assert kept is not None and kept.description is not None and len(kept.description) == 1024
    assert fit_file(discord.File(io.BytesIO(b"0" * 11), filename="big"), size_limit=10) is None
    assert fit_view(discord.ui.View()).children == []
    assert cut("abc", 3) == "abc" and cut("abcd", 3) == "ab…"


def test_pings_allow_exactly_the_named_users() -> None:
    allowed: dict[str, object] = dict(pings([5, 7, 5]).to_dict())
    assert allowed == {"parse": [], "users": [5, 7]}  # no roles, no @everyone/@here, each user once
    assert limits.check_allowed_mentions(allowed) == []


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/api/v10/webhooks/1/tok-secret/messages/@original", "/api/v10/webhooks/1/<token>/messages/@original"),
        ("/api/v10/interactions/2/tok-secret/callback", "/api/v10/interactions/2/<token>/callback"),
        ("/api/v10/channels/3/messages", "/api/v10/channels/3/messages"),
    ],
)
def test_refused_route_blanks_tokens(path: str, shown: str) -> None:
    response = types.SimpleNamespace(
        status=400, reason="Bad Request", method="POST", url=types.SimpleNamespace(path=path)
    )
    error = discord.HTTPException(response, {"message": "bad", "code": 50035})  # type: ignore[arg-type]
    assert refused_route(error) == f"POST {shown}"
