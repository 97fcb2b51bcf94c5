"""The tournament cog's parts that are not commands: the table threads (made, remembered, archived once), the
announcement's Register / Unregister buttons and layout, and the parsing of /tourney create's text options.
Split from tourney_cog.py, which keeps the commands and the event handlers."""

from __future__ import annotations

import datetime as dt
import logging
import re
from typing import Any

import discord

from pancog.adapter import edge
from pancog.adapter.errors import BadOption
from pancog.adapter.layouts import card_layout
from pancog.adapter.presenters.tournament import (
    TOURNEY_BAD_NUMBERS,
    TOURNEY_BAD_START,
    TOURNEY_REGISTER_BUTTON,
    TOURNEY_START_PAST,
    TOURNEY_UNREGISTER_BUTTON,
    tourney_plain_title,
    tourney_thread_name,
)
from pancog.adapter.presenters.tourney_purse import (
    TOURNEY_BAD_BOUNTY,
)
from pancog.adapter.runtime import PanRuntime, runtime_of
from pancog.adapter.tourney_buttons import CheckInButton
from pancog.game.i18n import tr
from pancog.services.tables import NoTableHere
from pancog.services.tournaments.model import Status, Tournament

__all__ = [
    "ARCHIVE_WAIT_SECONDS",
    "TourneyButton",
    "TourneyThreads",
    "announcement_view",
    "parse_bounty",
    "parse_numbers",
    "parse_start",
]

log = logging.getLogger("pan.tourney")

ARCHIVE_WAIT_SECONDS = 30.0
"""How long a closed table's thread waits for its board's last summary before it is archived anyway."""


class TourneyThreads:
    """The service's channel factory (``TournamentService(channel_factory=threads.create)``): one public thread per
    table in the tournament's channel; archives them."""

    def __init__(self, bot: discord.Client) -> None:
        self.bot = bot
        self.threads: dict[int, int] = {}  # TableService table id -> thread id
        self.archived: set[int] = set()

    async def create(self, t: Tournament, table_no: int) -> int:
        title = tourney_plain_title(t.config.title, t.tournament_id)
        final = t.tables[table_no].final if table_no in t.tables else False
        name = tourney_thread_name(title, table_no, final)
        thread_id = await edge.start_thread(self.bot, t.channel_id, name=name, reason="tournament table")
        self.threads[t.tables[table_no].table_id] = thread_id
        return thread_id

    def remember(self, table_id: int, channel_id: int) -> None:
        self.threads.setdefault(table_id, channel_id)

    async def archive_closed(self, t: Tournament, rt: PanRuntime) -> None:
        """Archive (and lock) the thread of every closed table of the tournament, once: only once the table service
        has closed that table too (until then its board may still be edited: an edit in an archived thread is
        refused) and its board has posted the last hand's summary (a post there would reopen the thread)."""
        for tt in t.tables.values():
            if tt.status != "closed" and t.status not in (Status.FINISHED, Status.CANCELLED):
                continue
            thread = self.threads.get(tt.table_id)
            if thread is None or thread in self.archived or thread == t.channel_id:
                continue
            try:
                rt.tables.get(tt.table_id)
            except NoTableHere:
                pass
            else:
                continue  # still open (its last hand, a final-table draw after a restart): a later event archives it
            board = rt.boards.get(tt.table_id)
            if board is not None:
                await board.finished(timeout=ARCHIVE_WAIT_SECONDS)
            if thread in self.archived:
                continue
            self.archived.add(thread)
            try:
                await edge.archive_thread(self.bot, thread, reason="tournament table closed")
            except discord.HTTPException as exc:
                log.warning("tournament %s: archiving thread %s failed: %s", t.tournament_id, thread, exc)


class TourneyButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pan:tny:(?P<tid>\d+):(?P<verb>register|unregister)",
):
    """Register / Unregister on the announcement (dynamic: works on old messages after a restart)."""

    def __init__(self, tournament_id: int, verb: str) -> None:
        label, style = (
            (tr(TOURNEY_REGISTER_BUTTON), discord.ButtonStyle.success)
            if verb == "register"
            else (
                tr(TOURNEY_UNREGISTER_BUTTON),
                discord.ButtonStyle.secondary,
            )
        )
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=f"pan:tny:{tournament_id}:{verb}"))
        self.tournament_id = tournament_id
        self.verb = verb

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TourneyButton:
        return cls(int(match["tid"]), match["verb"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await runtime_of(interaction.client).dispatch(
            interaction, self.tournament_id, "tny_" + self.verb, (), item=self
        )


def announcement_view(tournament_id: int, open_: bool, text: str, *, checkin: bool = False) -> discord.ui.LayoutView:
    """The lobby as a Components V2 message: its words, and Register / Unregister while registration is open (and
    Check in when the tournament has a check-in)."""
    buttons: list[discord.ui.Item[Any]] = (
        [TourneyButton(tournament_id, "register"), TourneyButton(tournament_id, "unregister")] if open_ else []
    )
    if checkin:
        buttons.append(CheckInButton(tournament_id))
    return card_layout(text, buttons=buttons)


def parse_bounty(text: str | None) -> dict[str, Any]:
    """The ``bounty`` option: chips per head, ``p`` after them for a progressive bounty ("25", "25p"). One option
    for both keeps /tourney create within Discord's 25 options per command."""
    if text is None:
        return {"bounty": 0, "progressive": False}
    m = re.fullmatch(r"\s*(\d{1,9})\s*(p|progressive)?\s*", text, flags=re.IGNORECASE)
    if m is None:
        raise BadOption(TOURNEY_BAD_BOUNTY)
    return {"bounty": int(m.group(1)), "progressive": m.group(2) is not None}


def parse_numbers(text: str | None) -> tuple[int, ...]:
    if not text:
        return ()
    try:
        return tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError:
        raise BadOption(TOURNEY_BAD_NUMBERS) from None


def parse_start(text: str | None, now: float) -> int | None:
    """Epoch milliseconds of ``+30`` (minutes from now), a Unix time, or ``YYYY-MM-DD HH:MM`` (UTC)."""
    if not text:
        return None
    text = text.strip()
    try:
        if text.startswith("+"):
            when = now + float(text[1:]) * 60
        elif text.isdigit():
            when = float(text)
        else:
            parsed = dt.datetime.fromisoformat(text)
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=dt.UTC)
            when = parsed.timestamp()
    except ValueError:
        raise BadOption(TOURNEY_BAD_START) from None
    if when <= now:
        raise BadOption(TOURNEY_START_PAST)
    return int(when * 1000)
