"""``/pan`` commands and board buttons for a table's life: open, join, leave, rebuy, start, close, the board
again and its rules (its history and replays: replay_cog.py). Thin: parse, call one service method, present, respond."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import discord
from discord import app_commands

from pancog.adapter import ack, edge
from pancog.adapter.base import PRESET_CHOICES, PanCog
from pancog.adapter.board import BoardButton, Boards
from pancog.adapter.checks import refuse_at_tournament_table, require_host_or_moderator
from pancog.adapter.errors import PanView, deliver, send_ephemeral
from pancog.adapter.forms import OpenForm, OpenValues
from pancog.adapter.groups import IN_ANYWHERE, IN_PAN
from pancog.adapter.layouts import notice
from pancog.adapter.presenters.bank import rebought
from pancog.adapter.presenters.common import DONE
from pancog.adapter.presenters.guide import GUIDE, GUIDE_INTRO, GUIDE_PLACEHOLDER, guide_page, rules_top_five
from pancog.adapter.presenters.table import (
    BOARD_REPOSTED,
    CONFIRM_BUTTONS,
    CONFIRM_CLOSE,
    CONFIRM_LEAVE,
    NOTHING_DONE,
    confirm_leave_undeclared,
    could_not_sit,
    hand_dealt,
    left_table,
    rules_text,
    sat_down,
    table_closed,
)
from pancog.adapter.runtime import Handler, PanRuntime, runtime_of
from pancog.game.errors import PanError
from pancog.game.i18n import tr
from pancog.game.rules import describe_rules
from pancog.game.state import PlayerStatus
from pancog.services.ledger import ScopeKind
from pancog.services.tables import NoTableHere, TableAlreadyOpen, TableConfig, TableSession, preset_or_default

__all__ = ["ConfirmButton", "ConfirmView", "GuideSelect", "GuideView", "TableCog", "guide_embed", "leave_question"]

Answer = tuple[str, str | None]
"""A confirmed choice's answer: the private text replacing the question, and a public message (or None)."""


def leave_question(session: TableSession, user_id: int) -> str | None:
    """What leaving now would cost, as the question to confirm it (None: it costs nothing more, leave at once). A
    player in action keeps paying to the hand's end; one dealt in who has not declared yet goes on top: his ante
    (and any forfeit) stays in the tops."""
    state = session.state
    hand = state.hand
    seat = session.find_seat(user_id)
    player = hand.players[seat] if hand is not None and seat is not None else None
    if player is None:
        return None
    if player.status is PlayerStatus.IN:
        return CONFIRM_LEAVE
    if player.status is PlayerStatus.UNDECLARED:
        return confirm_leave_undeclared(state.rules.ante * player.multiplier, state.rules.retire_forfeit_chips)
    return None


def guide_embed(key: str) -> discord.Embed:
    """One page of the in-Discord guide."""
    title, text = guide_page(key)
    return discord.Embed(title=title, description=text, colour=discord.Colour.dark_green())


class GuideView(PanView):
    """PRIVATE: the guide's page picker (a dynamic select: it works after a restart too)."""

    def __init__(self, current: str) -> None:
        super().__init__()
        self.add_item(GuideSelect(current))


class GuideSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"pan:guide"):
    def __init__(self, current: str = "start") -> None:
        options = [discord.SelectOption(label=tr(title), value=key, default=key == current) for key, title, _ in GUIDE]
        super().__init__(discord.ui.Select(custom_id="pan:guide", placeholder=tr(GUIDE_PLACEHOLDER), options=options))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GuideSelect:
        return cls()

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        key = self.item.values[0] if self.item.values else "start"
        view = GuideView(key)
        await edge.update(interaction, about=edge.STATIC, embed=guide_embed(key), view=view)  # the page in place
        view.stop()


class ConfirmView(PanView):
    """PRIVATE: Yes / No under a question (dynamic items: they keep working after a restart)."""

    def __init__(self, table_id: int, verb: str) -> None:
        super().__init__()
        self.add_item(ConfirmButton(table_id, verb, "yes"))
        self.add_item(ConfirmButton(table_id, verb, "no"))


class ConfirmButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pan:c:(?P<table>\d+):(?P<verb>leave|close):(?P<choice>yes|no)",
):
    def __init__(self, table_id: int, verb: str, choice: str) -> None:
        label = CONFIRM_BUTTONS[verb][0 if choice == "yes" else 1]
        style = discord.ButtonStyle.danger if choice == "yes" else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=f"pan:c:{table_id}:{verb}:{choice}"))
        self.table_id, self.verb, self.choice = table_id, verb, choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ConfirmButton:
        return cls(int(match["table"]), match["verb"], match["choice"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await runtime_of(interaction.client).dispatch(
            interaction, self.table_id, f"{self.verb}!{self.choice}", (), item=self
        )


class TableCog(PanCog, name="PanTables"):
    """Opening, joining, leaving, dealing and closing tables."""

    def __init__(self, runtime: PanRuntime, boards: Boards) -> None:
        super().__init__(runtime)
        self.boards = boards

    def handlers(self) -> Mapping[str, Handler]:
        return {
            "join": self.button(lambda i, session: self.join_table(i, session, bank=False)),
            "leave": self.button(self.leave_table),
            "start": self.button(self.start_hand),
            "text": self.button(self.text_view),
            "rules": self.button(self.all_rules),
            "leave!yes": self.confirmed(self._leave_confirmed),
            "close!yes": self.confirmed(self._close_confirmed),
            "leave!no": self.confirmed(self._kept),
            "close!no": self.confirmed(self._kept),
        }

    # -- confirmations of destructive clicks: an ephemeral Yes/No; the choice edits it in place
    def confirmed(self, act: Callable[[discord.Interaction[Any], TableSession], Awaitable[Answer]]) -> Handler:
        """A Yes/No click: ``act`` returns the private text that replaces the question (and a public one)."""

        async def run(interaction: discord.Interaction[Any], table_id: int, _values: tuple[str, ...]) -> None:
            self.rt.remember(interaction.guild_id, interaction.user)
            ack.later(self.rt.tasks, interaction, update=True)
            session = self.rt.tables.get(table_id)
            private, public = await act(interaction, session)
            await ack.settle(interaction)
            await edge.update(interaction, about=edge.about(session), content=private, view=None)
            if public is not None:  # a public followup on the same token: not counted against the global limit
                await deliver(lambda: edge.followup(interaction, about=edge.about(session), view=notice(public)))

        return run

    async def _ask(self, interaction: discord.Interaction[Any], session: TableSession, verb: str, text: str) -> None:
        await self.respond(interaction, text, view=ConfirmView(session.table_id, verb))

    async def _kept(self, interaction: discord.Interaction[Any], session: TableSession) -> Answer:
        return NOTHING_DONE, None

    async def _leave_confirmed(self, interaction: discord.Interaction[Any], session: TableSession) -> Answer:
        await self.rt.tables.leave(session.table_id, interaction.user.id)
        return left_table(session.find_seat(interaction.user.id) is None), None

    async def _close_confirmed(self, interaction: discord.Interaction[Any], session: TableSession) -> Answer:
        rt = self.rt
        moderator = await require_host_or_moderator(rt.ledger, interaction, session)
        returned = await rt.tables.close(session.table_id, interaction.user.id, moderator=moderator)
        return DONE, table_closed(returned, await rt.names.fetch(rt.guild_of(session), returned))

    async def text_view(self, interaction: discord.Interaction[Any], session: TableSession) -> None:
        """The Text view button: the board in words, privately."""
        await self.respond(interaction, self.boards.text_view(session))

    @app_commands.command(
        name="help", description="The Pan guide: a first hand, the words, where help is", extras=IN_PAN
    )
    async def help_(self, interaction: discord.Interaction) -> None:
        await self.guide(interaction)

    async def guide(self, interaction: discord.Interaction) -> None:
        view = GuideView("start")
        await edge.respond(interaction, GUIDE_INTRO, about=edge.STATIC, embed=guide_embed("start"), view=view)
        view.stop()

    @app_commands.command(
        name="guide", description="The Pan rules guide: a first hand, the words (DMs too)", extras=IN_ANYWHERE
    )
    async def guide_anywhere(self, interaction: discord.Interaction) -> None:
        await self.guide(interaction)

    @app_commands.command(name="open", description="Open a Pan table in this channel or thread", extras=IN_PAN)
    @app_commands.describe(
        preset="Rules preset (default: the server's)",
        stakes="Chips per unit: the ante and every pay (buy-in is 20 units)",
        seats="Most players at the table (2-15)",
        turn_seconds="Seconds per turn",
        retire_forfeit="Chips beyond the ante paid into the tops to go on top (default 0: the ante only)",
        away_bot="A computer player (normal level) plays the seat of a player marked away",
        form="Fill in a form instead of options (preset, stakes, seats, seconds per turn, away bot)",
    )
    @app_commands.choices(preset=PRESET_CHOICES)
    async def open_(
        self,
        interaction: discord.Interaction,
        preset: str | None = None,
        stakes: app_commands.Range[int, 1, 100] | None = None,
        seats: app_commands.Range[int, 2, 15] | None = None,
        turn_seconds: app_commands.Range[int, 10, 600] | None = None,
        retire_forfeit: app_commands.Range[int, 0, 20] | None = None,
        away_bot: bool = False,
        form: bool = False,
    ) -> None:
        rt = self.rt
        if rt.tables.find_in_channel(interaction.channel_id or 0) is not None:
            raise TableAlreadyOpen  # checked before the public defer, so the refusal stays private
        if form:  # the modal is the answer; its submit opens the table as the options would
            default = preset_or_default((await rt.ledger.settings(interaction.guild_id or 0)).preset)
            await edge.modal(interaction, OpenForm(default, self._open_from_form), about=edge.STATIC)
            return
        await self.open_here(interaction, preset, stakes, seats, turn_seconds, retire_forfeit, away_bot)

    async def _open_from_form(self, interaction: discord.Interaction[Any], values: OpenValues) -> None:
        if self.rt.tables.find_in_channel(interaction.channel_id or 0) is not None:
            raise TableAlreadyOpen  # opened by someone else while the form was filled in
        await self.open_here(
            interaction, values.preset, values.stakes, values.seats, values.turn_seconds, None, values.away_bot
        )

    async def open_here(
        self,
        interaction: discord.Interaction[Any],
        preset: str | None,
        stakes: int | None,
        seats: int | None,
        turn_seconds: int | None,
        retire_forfeit: int | None,
        away_bot: bool,
    ) -> None:
        rt = self.rt
        guild_id = interaction.guild_id or 0
        default = preset_or_default((await rt.ledger.settings(guild_id)).preset)
        config = TableConfig.build(
            preset or default,
            stakes=stakes,
            seats=seats,
            turn_seconds=turn_seconds,
            retire_forfeit=retire_forfeit,
            away_bot=away_bot,
        )
        # chip leagues: a bank season's tables play from the season banks
        scope = await rt.league.table_scope(guild_id) if rt.league is not None else None
        await self.defer(interaction, ephemeral=False)
        session = await rt.tables.open_table(
            interaction.id,
            guild_id=guild_id,
            channel_id=interaction.channel_id or 0,
            host_id=interaction.user.id,
            config=config,
            scope=scope,
        )
        board = self.boards.get(session)
        board.new_post = False
        _words, file, view, shown = await self.boards.payload(session, [])  # the words are in the V2 layout
        about = edge.about(session, state=shown)
        message = await self.respond(interaction, None, ephemeral=False, about=about, file=file, view=view)
        if message is not None:
            await rt.tables.set_board_message(session.table_id, message.id)
            board.adopt(interaction, message.id)  # edited through this token while it is valid
        else:
            self.boards.repost(session)
        try:  # the host sits down at once; the board is edited by the usual path
            await rt.tables.join(session.table_id, interaction.user.id)
        except PanError as exc:
            await send_ephemeral(interaction, could_not_sit(exc.said()))

    @app_commands.command(name="join", description="Sit down at this table (chips come from your bank)", extras=IN_PAN)
    @app_commands.describe(doubles="Play doubles (needs twice the buy-in)", chips="Chips to bring (default: 5 buy-ins)")
    async def join(
        self, interaction: discord.Interaction, doubles: bool = False, chips: app_commands.Range[int, 1] | None = None
    ) -> None:
        await self.defer(interaction)
        await self.join_table(interaction, self.here(interaction), doubles=doubles, buy_in=chips)

    async def join_table(
        self,
        interaction: discord.Interaction[Any],
        session: TableSession,
        *,
        doubles: bool = False,
        buy_in: int | None = None,
        bank: bool = True,
    ) -> None:
        """/pan join and the Join button."""
        rt = self.rt
        refuse_at_tournament_table(rt, session.table_id)
        applied = await rt.tables.join(session.table_id, interaction.user.id, doubles=doubles, buy_in=buy_in)
        seat = applied.state.seat(session.seat_of(interaction.user.id))
        chips = await rt.ledger.balance(session.bank_scope, interaction.user.id) if bank else None
        season = session.bank_scope.kind is ScopeKind.SEASON  # chip leagues: a bank season's table
        text = sat_down(seat.stack if seat else 0, doubles=doubles, bank=chips, season=season)
        await send_ephemeral(interaction, text)

    @app_commands.command(
        name="leave", description="Leave the table (mid-hand: you still pay to its end)", extras=IN_PAN
    )
    async def leave(self, interaction: discord.Interaction) -> None:
        await self.defer(interaction)
        await self.leave_table(interaction, self.here(interaction))

    async def leave_table(self, interaction: discord.Interaction[Any], session: TableSession) -> None:
        """/pan leave and the Leave button (during a hand, where leaving costs chips: confirm first)."""
        refuse_at_tournament_table(self.rt, session.table_id)
        question = leave_question(session, interaction.user.id)
        if question is not None:
            await self._ask(interaction, session, "leave", question)
            return
        await self.rt.tables.leave(session.table_id, interaction.user.id)
        gone = session.find_seat(interaction.user.id) is None
        await send_ephemeral(interaction, left_table(gone))

    @app_commands.command(name="rebuy", description="Bring more chips from your bank (between hands)", extras=IN_PAN)
    @app_commands.describe(chips="How many chips to add to your stack")
    async def rebuy(self, interaction: discord.Interaction, chips: app_commands.Range[int, 1]) -> None:
        rt = await self.defer(interaction)
        session = self.here(interaction)
        refuse_at_tournament_table(rt, session.table_id)
        applied = await rt.tables.rebuy(session.table_id, interaction.user.id, chips)
        seat = applied.state.seat(session.seat_of(interaction.user.id))
        bank = await rt.ledger.balance(session.bank_scope, interaction.user.id)
        season = session.bank_scope.kind is ScopeKind.SEASON  # a bank season's table: chips from its season bank
        await send_ephemeral(interaction, rebought(chips, seat.stack if seat else 0, bank, season=season))

    @app_commands.command(name="start", description="Deal the next hand", extras=IN_PAN)
    async def start(self, interaction: discord.Interaction) -> None:
        await self.defer(interaction)
        await self.start_hand(interaction, self.here(interaction))

    async def start_hand(self, interaction: discord.Interaction[Any], session: TableSession) -> None:
        """/pan start and the Start button."""
        board = self.boards.get(session)
        board.carried_by(interaction)  # the hand's board goes out on this token once the answer is sent
        try:
            applied = await self.rt.tables.start_hand(session.table_id, interaction.user.id)
            await self.boards.pings.answer(
                interaction,
                applied,
                lambda: send_ephemeral(interaction, hand_dealt(applied.state.hand_no)),
            )
        except BaseException:
            board.ready(failed=True)
            raise
        board.ready()

    @app_commands.command(
        name="close", description="Close this table and return every stack (host or moderator)", extras=IN_PAN
    )
    async def close(self, interaction: discord.Interaction) -> None:
        rt = self.rt
        session = self.here(interaction)
        moderator = await require_host_or_moderator(rt.ledger, interaction, session)  # before the public defer
        if session.state.hand is not None:  # mid-hand: confirm privately first
            await self.defer(interaction)
            await self._ask(interaction, session, "close", CONFIRM_CLOSE)
            return
        await self.defer(interaction, ephemeral=False)
        returned = await rt.tables.close(session.table_id, interaction.user.id, moderator=moderator)
        names = await rt.names.fetch(rt.guild_of(session), returned)
        await self.respond(interaction, None, view=notice(table_closed(returned, names)), ephemeral=False)

    @app_commands.command(name="table", description="Post the table again (the board)", extras=IN_PAN)
    async def table(self, interaction: discord.Interaction) -> None:
        await self.defer(interaction)
        self.boards.repost(self.here(interaction))
        await send_ephemeral(interaction, BOARD_REPOSTED)

    @app_commands.command(name="rules", description="This table's house rules in plain words", extras=IN_PAN)
    async def rules(self, interaction: discord.Interaction) -> None:
        session = self.rt.tables.find_in_channel(interaction.channel_id or 0)
        if session is None:
            raise NoTableHere
        lines = describe_rules(session.rules)
        text = rules_top_five(session.config.preset, session.rules, lines)
        view = PanView()
        view.add_item(BoardButton(session.table_id, "rules"))
        await edge.respond(interaction, text, about=edge.STATIC, view=view)  # the table's rules: no hand's cards
        view.stop()

    async def all_rules(self, interaction: discord.Interaction[Any], session: TableSession) -> None:
        """The All rules button under /pan rules: every house rule of the table."""
        text = rules_text(session.config.preset, describe_rules(session.rules))
        await self.respond(interaction, text, about=edge.STATIC)  # the table's rules: no hand's cards
