"""Modals as discord.py 2.7.1 sends them (labels holding text inputs, selects, radio groups, checkbox groups,
checkboxes): what the fake refuses, and a submit helper that refuses what a person could not have entered."""

from __future__ import annotations

from typing import Any

import discord as dpy
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import components as v2
from tests.fakediscord.harness import Harness

SEATS = [dpy.SelectOption(label=f"{n} seats", value=str(n)) for n in range(2, 9)]


class SetupModal(dpy.ui.Modal, title="Open a table"):
    stakes: dpy.ui.Label[SetupModal] = dpy.ui.Label(
        text="Stakes", component=dpy.ui.TextInput(custom_id="m:stakes", default="1", min_length=1, max_length=6)
    )
    seats: dpy.ui.Label[SetupModal] = dpy.ui.Label(
        text="Seats", component=dpy.ui.Select(custom_id="m:seats", options=SEATS)
    )
    preset: dpy.ui.Label[SetupModal] = dpy.ui.Label(
        text="Preset",
        component=dpy.ui.RadioGroup(
            custom_id="m:preset",
            options=[
                dpy.RadioGroupOption(label="California", value="california", default=True),
                dpy.RadioGroupOption(label="Classic", value="classic"),
            ],
        ),
    )
    extras: dpy.ui.Label[SetupModal] = dpy.ui.Label(
        text="Options",
        component=dpy.ui.CheckboxGroup(
            custom_id="m:extras",
            required=False,
            min_values=0,
            max_values=2,
            options=[
                dpy.CheckboxGroupOption(label="Valle cards", value="valle"),
                dpy.CheckboxGroupOption(label="Force", value="force"),
                dpy.CheckboxGroupOption(label="Double aces", value="aces"),
            ],
        ),
    )
    private: dpy.ui.Label[SetupModal] = dpy.ui.Label(text="Private", component=dpy.ui.Checkbox(custom_id="m:private"))

    async def on_submit(self, interaction: dpy.Interaction) -> None:
        def comp(label: dpy.ui.Label[SetupModal]) -> Any:
            return label.component

        text = (
            f"stakes={comp(self.stakes).value} seats={comp(self.seats).values} preset={comp(self.preset).value} "
            f"extras={comp(self.extras).values} private={comp(self.private).value}"
        )
        await interaction.response.send_message(text, ephemeral=True)


class ModalCog(commands.GroupCog, group_name="md", group_description="modal self-test"):
    @app_commands.command(name="setup", description="Open the setup modal")
    async def setup(self, interaction: dpy.Interaction) -> None:
        await interaction.response.send_modal(SetupModal())

    @app_commands.command(name="bad", description="Open a modal Discord refuses")
    @app_commands.choices(kind=[app_commands.Choice(name=k, value=k) for k in ("loose-select", "long-title")])
    async def bad(self, interaction: dpy.Interaction, kind: str) -> None:
        modal = dpy.ui.Modal(title="T" * 46 if kind == "long-title" else "Seats")
        if kind == "loose-select":  # a Select added straight to a Modal: discord.py wraps it in an action row
            modal.add_item(dpy.ui.Select(custom_id="m:loose", options=SEATS))
        else:
            modal.add_item(dpy.ui.Label(text="x", component=dpy.ui.TextInput(custom_id="m:x")))
        try:
            await interaction.response.send_modal(modal)
        except dpy.HTTPException as exc:
            await interaction.response.send_message(f"refused {exc.status}/{exc.code}", ephemeral=True)


async def add_modal_cog(bot: commands.Bot) -> None:
    await bot.add_cog(ModalCog())


@pytest.fixture
async def h(harness_factory: Any) -> Harness:
    return await harness_factory(setup=add_modal_cog)


def test_the_modal_discord_py_builds_passes_the_checks() -> None:
    payload = SetupModal().to_dict()
    assert [c["type"] for c in payload["components"]] == [18, 18, 18, 18, 18]
    assert v2.check_modal(payload) == []


def test_modal_limits() -> None:
    def label(component: dict[str, Any], text: str = "Label") -> dict[str, Any]:
        return {"type": 18, "label": text, "component": component}

    text_input = {"type": 4, "custom_id": "t", "style": 1, "label": None, "required": True}
    base = {"custom_id": "m", "title": "Title", "components": [label(text_input)]}
    assert v2.check_modal(base) == []
    assert any("title must be 1..45" in p for p in v2.check_modal(base | {"title": "x" * 46}))
    six = [label(text_input | {"custom_id": f"t{i}"}) for i in range(6)]
    assert any("6 components (1..5)" in p for p in v2.check_modal(base | {"components": six}))
    assert any("label must be 1..45" in p for p in v2.check_modal(base | {"components": [label(text_input, "L" * 46)]}))
    too_long = text_input | {"max_length": 4001}
    assert any("max_length 4001" in p for p in v2.check_modal(base | {"components": [label(too_long)]}))
    crossed = text_input | {"min_length": 10, "max_length": 5}
    assert any("min_length 10 > max_length 5" in p for p in v2.check_modal(base | {"components": [label(crossed)]}))
    # the deprecated action row holds a text input (with its own label), never a select
    row_text = {"type": 1, "components": [text_input | {"label": "Name"}]}
    assert v2.check_modal(base | {"components": [row_text]}) == []
    select = {"type": 3, "custom_id": "s", "options": [{"label": "a", "value": "a"}], "min_values": 1, "max_values": 1}
    row_select = {"type": 1, "components": [select]}
    assert any("holds one text input only" in p for p in v2.check_modal(base | {"components": [row_select]}))
    assert any("disabled" in p for p in v2.check_modal(base | {"components": [label(select | {"disabled": True})]}))
    radio = {"type": 21, "custom_id": "r", "options": [{"label": "a", "value": "a"}]}
    assert any("radio group) has 1 options (2..10)" in p for p in v2.check_modal(base | {"components": [label(radio)]}))
    boxes = {"type": 22, "custom_id": "c", "options": [{"label": "a", "value": "a"}], "min_values": 0, "max_values": 2}
    assert any("do not fit 1 options" in p for p in v2.check_modal(base | {"components": [label(boxes)]}))
    twice = [label(text_input), label(text_input)]
    assert any("'t' is not unique" in p for p in v2.check_modal(base | {"components": twice}))
    assert any("not allowed in a label" in p for p in v2.check_modal(base | {"components": [label({"type": 10})]}))


async def test_a_modal_submitted_with_every_kind_of_input(h: Harness) -> None:
    user = h.users[0]
    opened = await h.slash(user, "md setup")
    assert opened.type == 9 and opened.modal is not None and opened.modal["title"] == "Open a table"
    reply = await h.submit_modal(
        user,
        opened,
        {"m:stakes": "25", "m:seats": ["4"], "m:preset": "classic", "m:extras": ["valle", "force"], "m:private": True},
    )
    assert reply.content == "stakes=25 seats=['4'] preset=classic extras=['valle', 'force'] private=True"
    # left out, an input submits what the modal pre-filled (the default text, the default radio option)
    again = await h.submit_modal(user, await h.slash(user, "md setup"), {"m:seats": ["2"]})
    assert again.content == "stakes=1 seats=['2'] preset=california extras=[] private=False"


@pytest.mark.parametrize(
    ("values", "refusal"),
    [
        ({"m:seats": ["9"]}, r"\['9'\] not among the options"),
        ({"m:seats": ["2", "3"]}, "2 values outside 1..1"),
        ({"m:seats": []}, "'m:seats' is required"),
        ({}, "'m:seats' is required"),
        ({"m:seats": ["2"], "m:stakes": "1234567"}, "7 chars > max_length 6"),
        ({"m:seats": ["2"], "m:stakes": ""}, "text input 'm:stakes' is required"),
        ({"m:seats": ["2"], "m:preset": "house"}, "'house' not among the options"),
        ({"m:seats": ["2"], "m:extras": ["valle", "force", "aces"]}, "3 values outside 0..2"),
        ({"m:seats": ["2"], "m:private": "yes"}, "takes True or False"),
        ({"m:seats": ["2"], "m:nickname": "x"}, r"has no inputs \['m:nickname'\]"),
    ],
)
async def test_a_submit_a_person_could_not_make_fails_the_test(
    h: Harness, values: dict[str, Any], refusal: str
) -> None:
    opened = await h.slash(h.users[0], "md setup")
    with pytest.raises(v2.ModalRefused, match=refusal):
        await h.submit_modal(h.users[0], opened, values)


async def test_only_the_invoker_can_submit_the_modal(h: Harness) -> None:
    opened = await h.slash(h.users[0], "md setup")
    with pytest.raises(v2.ModalRefused, match="shown to its invoker"):
        await h.submit_modal(h.users[1], opened, {"m:seats": ["2"]})


@pytest.mark.parametrize(
    ("kind", "problem"), [("loose-select", "holds one text input only"), ("long-title", "title must be 1..45")]
)
async def test_a_modal_discord_refuses_is_400_50035(h: Harness, kind: str, problem: str) -> None:
    reply = await h.slash(h.users[0], "md bad", kind=kind)
    assert reply.content == "refused 400/50035" and reply.modal is None
    assert any(problem in p for p in h.forgive())
