"""Setup forms: one Discord modal (discord.py 2.7 ``Label`` + text inputs, a radio group, a checkbox) that fills in
what a command's options would, for people who prefer a form to typing options.

Every value is checked here before anything is opened: a text that is not a whole number in range is refused
privately (:class:`FormRefused`, a ``PanError``) and nothing changes. A form that is submitted runs the very code
the command's options run (the ``submit`` callback), so both ways open the same table.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import discord

from pancog.adapter.errors import report
from pancog.adapter.presenters.table import (
    OPEN_FORM_AWAY,
    OPEN_FORM_PRESET,
    OPEN_FORM_SEATS,
    OPEN_FORM_STAKES,
    OPEN_FORM_TITLE,
    OPEN_FORM_TURN,
    form_choice_refused,
    form_number_refused,
    form_range_hint,
)
from pancog.adapter.presenters.tournament import (
    TOURNEY_FORM_BUY_IN,
    TOURNEY_FORM_FORMAT,
    TOURNEY_FORM_NAME,
    TOURNEY_FORM_SCHEDULED,
    TOURNEY_FORM_SEATS,
    TOURNEY_FORM_SNG,
    TOURNEY_FORM_START,
    TOURNEY_FORM_START_HINT,
    TOURNEY_FORM_TITLE,
)
from pancog.adapter.safety import shown
from pancog.game.errors import PanError
from pancog.game.rules import PRESETS

__all__ = ["FormRefused", "OpenForm", "OpenValues", "PanForm", "TourneyForm", "TourneyValues", "whole_number"]


NUMBER_INPUT_MAX = 4  # "600" and a little room: a longer text is no number in range anyway


Submit = Callable[[discord.Interaction[Any], "OpenValues"], Awaitable[None]]
"""What a submitted form runs: the command's own path, with the form's values."""
TourneySubmit = Callable[[discord.Interaction[Any], "TourneyValues"], Awaitable[None]]
BUY_IN_MAX = 1_000_000_000  # far above any bank; only keeps a typed number a number
TITLE_MAX = 60  # as the command's title option


class FormRefused(PanError):
    code = "form_refused"


def whole_number(field: str, text: str, low: int, high: int) -> int | None:
    """The number typed into a form (None when left blank), or :class:`FormRefused` with what was wrong."""
    raw = text.strip()
    if not raw:
        return None
    if raw.isascii() and raw.isdigit() and low <= int(raw) <= high:
        return int(raw)
    raise FormRefused(form_number_refused(field, low, high, shown(raw)))


@dataclass(frozen=True, slots=True)
class OpenValues:
    """What ``/pan open`` takes, read from its form."""

    preset: str | None
    stakes: int | None
    seats: int | None
    turn_seconds: int | None
    away_bot: bool


def _number_input(
    custom_id: str, low: int, high: int, *, max_length: int = NUMBER_INPUT_MAX
) -> discord.ui.TextInput[Any]:
    return discord.ui.TextInput(
        custom_id=custom_id,
        required=False,
        max_length=max_length,
        placeholder=form_range_hint(low, high),
    )


class PanForm(discord.ui.Modal):
    """Base of the setup forms: an error in a submit (a refused value) becomes one private reply."""

    async def on_error(  # type: ignore[override]  # discord.py 2.7's Modal.on_error takes no item
        self, interaction: discord.Interaction[Any], error: Exception, /
    ) -> None:
        await report(interaction, error, context=f"the form {self.title!r}")


class OpenForm(PanForm):
    """``/pan open form:True``: preset (a radio group, the server's default chosen), stakes, seats and seconds per
    turn (blank: the default), and the away bot (a checkbox)."""

    def __init__(self, default_preset: str, submit: Submit) -> None:
        super().__init__(title=OPEN_FORM_TITLE, timeout=900)
        self._submit = submit
        options = [discord.RadioGroupOption(label=n, value=n, default=n == default_preset) for n in PRESETS]
        self.preset: discord.ui.RadioGroup[OpenForm] = discord.ui.RadioGroup(
            custom_id="pan:open:preset", options=options
        )
        self.stakes = _number_input("pan:open:stakes", 1, 100)
        self.seats = _number_input("pan:open:seats", 2, 15)
        self.turn = _number_input("pan:open:turn", 10, 600)
        self.away: discord.ui.Checkbox[OpenForm] = discord.ui.Checkbox(custom_id="pan:open:away")
        for text, component in (
            (OPEN_FORM_PRESET, self.preset),
            (OPEN_FORM_STAKES, self.stakes),
            (OPEN_FORM_SEATS, self.seats),
            (OPEN_FORM_TURN, self.turn),
            (OPEN_FORM_AWAY, self.away),
        ):
            self.add_item(discord.ui.Label(text=text, component=component))

    def values(self) -> OpenValues:
        """The form's values, each checked (:class:`FormRefused` on the first that is not acceptable)."""
        preset = self.preset.value
        if preset is not None and preset not in PRESETS:  # Discord sends only offered values; checked anyway
            raise FormRefused(form_choice_refused(OPEN_FORM_PRESET, shown(preset)))
        return OpenValues(
            preset=preset,
            stakes=whole_number(OPEN_FORM_STAKES, self.stakes.value, 1, 100),
            seats=whole_number(OPEN_FORM_SEATS, self.seats.value, 2, 15),
            turn_seconds=whole_number(OPEN_FORM_TURN, self.turn.value, 10, 600),
            away_bot=bool(self.away.value),
        )

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        await self._submit(interaction, self.values())


@dataclass(frozen=True, slots=True)
class TourneyValues:
    """What ``/tourney create`` takes from its form (the rest keeps the command's defaults)."""

    format: Literal["sng", "scheduled"]
    buy_in: int
    seats: int
    start: str | None
    title: str | None


class TourneyForm(PanForm):
    """``/tourney create form:True``: the format (a radio group), buy-in and seats (blank: 100 and 7), the start
    (checked by the command like its option) and a name."""

    def __init__(self, submit: TourneySubmit) -> None:
        super().__init__(title=TOURNEY_FORM_TITLE, timeout=900)
        self._submit = submit
        self.format: discord.ui.RadioGroup[TourneyForm] = discord.ui.RadioGroup(
            custom_id="pan:tourney:format",
            options=[
                discord.RadioGroupOption(label=TOURNEY_FORM_SNG, value="sng", default=True),
                discord.RadioGroupOption(label=TOURNEY_FORM_SCHEDULED, value="scheduled"),
            ],
        )
        self.buy_in = _number_input("pan:tourney:buy_in", 0, BUY_IN_MAX, max_length=10)
        self.seats = _number_input("pan:tourney:seats", 2, 8)
        self.start: discord.ui.TextInput[TourneyForm] = discord.ui.TextInput(
            custom_id="pan:tourney:start", required=False, max_length=40, placeholder=TOURNEY_FORM_START_HINT
        )
        self.name: discord.ui.TextInput[TourneyForm] = discord.ui.TextInput(
            custom_id="pan:tourney:title", required=False, max_length=TITLE_MAX
        )
        for text, component in (
            (TOURNEY_FORM_FORMAT, self.format),
            (TOURNEY_FORM_BUY_IN, self.buy_in),
            (TOURNEY_FORM_SEATS, self.seats),
            (TOURNEY_FORM_START, self.start),
            (TOURNEY_FORM_NAME, self.name),
        ):
            self.add_item(discord.ui.Label(text=text, component=component))

    def values(self) -> TourneyValues:
        """The form's values, each checked (:class:`FormRefused` on the first that is not acceptable; the start and
        the combination are checked by the command, as for its options)."""
        chosen = self.format.value or "sng"
        if chosen not in ("sng", "scheduled"):
            raise FormRefused(form_choice_refused(TOURNEY_FORM_FORMAT, shown(chosen)))
        fmt: Literal["sng", "scheduled"] = "scheduled" if chosen == "scheduled" else "sng"
        buy_in = whole_number(TOURNEY_FORM_BUY_IN, self.buy_in.value, 0, BUY_IN_MAX)
        seats = whole_number(TOURNEY_FORM_SEATS, self.seats.value, 2, 8)
        return TourneyValues(
            format=fmt,
            buy_in=100 if buy_in is None else buy_in,
            seats=7 if seats is None else seats,
            start=self.start.value.strip() or None,
            title=self.name.value.strip() or None,
        )

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        await self._submit(interaction, self.values())
