"""The slash-command adapters. Thin: parse, call one service method, present, respond.

``PanCog`` is the ``/pan`` group (tables, chips, settings); ``PlayCog`` holds the in-hand top-level commands
(``/knock``, ``/draw``, ``/meld`` ...). Both share one :class:`~pancog.views.PanRuntime`.
"""

from __future__ import annotations

import io
import logging
import os
from collections import Counter
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from pancog import presenters
from pancog.errors import BadOption, deliver, report, reusable_file, send_ephemeral
from pancog.game import engine
from pancog.game.actions import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    Discard,
    FloorFoul,
    Force,
    FoulCall,
    FoulCause,
    GoOnTop,
    Knock,
    NewMeld,
    OfferSplit,
    Pluck,
    TakeOption,
)
from pancog.game.cards import Card, parse_card, parse_cards
from pancog.game.errors import PanError
from pancog.game.events import HandEnded
from pancog.game.notation import dump_transcript, parse_action
from pancog.game.rules import PRESETS, describe_rules
from pancog.game.state import Step, TableState, initial_state
from pancog.ledger import ChipLedger
from pancog.settings import DmMode, PlayerSettings, SortOrder, StoragePrefsStore
from pancog.storage import storage_for
from pancog.store import TableStore
from pancog.tables import (
    NoTableHere,
    NotHost,
    NotSeated,
    TableAlreadyOpen,
    TableConfig,
    TableService,
    TableSession,
    preset_or_default,
    random_deal,
    seeded_deals,
)
from pancog.views import (
    DYNAMIC_ITEMS,
    RUNTIME_ATTR,
    PanRuntime,
    runtime_of,
    send_hand_panel,
    send_result,
)

log = logging.getLogger("pan.cog")

PRESET_CHOICES = [app_commands.Choice(name=name, value=name) for name in PRESETS]


def is_moderator(interaction: discord.Interaction[Any], moderator_role_id: int | None) -> bool:
    if interaction.permissions.manage_guild:  # resolved in the channel, as Discord sends it
        return True
    member = interaction.user
    if not isinstance(member, discord.Member):
        return False
    return moderator_role_id is not None and any(r.id == moderator_role_id for r in member.roles)


def read_cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)  # NotationError is a PanError: its message is shown privately


def without_drawn(state: TableState, seat: int, cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """Players often name the drawn card too; drop one copy when the hand does not hold that many."""
    hand = state.hand
    if hand is None or hand.turn is None or hand.turn.seat != seat or hand.turn.drawn is None:
        return cards
    if hand.turn.step not in (Step.DRAWN, Step.MUST_USE):
        return cards
    pl = hand.players[seat]
    drawn = hand.turn.drawn
    if pl is None or drawn not in cards or Counter(cards)[drawn] <= Counter(pl.hand)[drawn]:
        return cards
    rest = list(cards)
    rest.remove(drawn)
    return tuple(rest)


async def _setup_runtime(bot: commands.Bot) -> PanRuntime:
    existing = getattr(bot, RUNTIME_ATTR, None)
    if isinstance(existing, PanRuntime):
        return existing
    storage = storage_for(getattr(bot, "db_path", "data/pan.sqlite3"))  # a SQLite path or a DATABASE_URL
    await storage.open()
    ledger = ChipLedger(storage)
    store = TableStore(storage)
    deal_seed = os.environ.get("PAN_DEAL_SEED", "").strip()  # reproducible deals (tests, benchmarks) when set
    tables = TableService(ledger, store, dealer=seeded_deals(int(deal_seed)) if deal_seed else random_deal)
    runtime = PanRuntime(bot, storage, ledger, store, tables, PlayerSettings(StoragePrefsStore(storage)))
    await tables.load()
    for stored in await store.load_open_tables():
        runtime.load_names(stored.row.meta)
    setattr(bot, RUNTIME_ATTR, runtime)
    return runtime


async def _defer(interaction: discord.Interaction[Any], *, ephemeral: bool = True) -> PanRuntime:
    await interaction.response.defer(ephemeral=ephemeral, thinking=True)
    rt = runtime_of(interaction.client)
    rt.remember(interaction.user)
    await rt.settings.get(interaction.user.id)  # load the player's preferences (DM mode) into the cache
    return rt


def _here(rt: PanRuntime, interaction: discord.Interaction[Any]) -> TableSession:
    return rt.tables.in_channel(interaction.channel_id or 0)


# --------------------------------------------------------------------------------------------- /pan


@app_commands.guild_only()
class PanCog(commands.GroupCog, group_name="pan", group_description="Panguingue card tables"):
    def __init__(self, bot: commands.Bot, runtime: PanRuntime) -> None:
        self.bot = bot
        self.rt = runtime
        super().__init__()

    @classmethod
    async def create(cls, bot: commands.Bot) -> PanCog:
        return cls(bot, await _setup_runtime(bot))

    async def cog_load(self) -> None:
        self._old_tree_error = self.bot.tree.on_error
        self.bot.tree.on_error = self.on_tree_error  # type: ignore[method-assign]

    async def cog_unload(self) -> None:
        self.bot.tree.on_error = self._old_tree_error  # type: ignore[method-assign]
        await self.rt.close()
        await self.rt.storage.close()

    async def on_tree_error(self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError) -> None:
        """Every Pan slash-command error: a PanError's message privately, anything else logged + a safe sentence.

        Commands of other cogs keep the tree's previous handler.
        """
        binding = getattr(interaction.command, "binding", None)
        if binding is None or not type(binding).__module__.startswith("pancog."):
            await self._old_tree_error(interaction, error)
            return
        command = interaction.command.qualified_name if interaction.command else "?"
        await report(interaction, error, context=f"/{command} channel={interaction.channel_id}")

    @app_commands.command(name="help", description="How to play Pan, in short")
    async def help_(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(presenters.HOW_TO_PLAY, ephemeral=True)

    # -- tables

    @app_commands.command(name="open", description="Open a Pan table in this channel or thread")
    @app_commands.describe(
        preset="Rules preset (default: the server's)",
        stakes="Chips per unit: the ante and every pay (buy-in is 20 units)",
        seats="Most players at the table (2-15)",
        turn_seconds="Seconds per turn",
        away_bot="A computer player (normal level) plays the seat of a player marked away",  # issue 8
    )
    @app_commands.choices(preset=PRESET_CHOICES)
    async def open_(
        self,
        interaction: discord.Interaction,
        preset: str | None = None,
        stakes: app_commands.Range[int, 1, 100] | None = None,
        seats: app_commands.Range[int, 2, 15] | None = None,
        turn_seconds: app_commands.Range[int, 10, 600] | None = None,
        away_bot: bool = False,  # computer players (issue 8)
    ) -> None:
        rt = runtime_of(interaction.client)
        guild_id = interaction.guild_id or 0
        if rt.tables.find_in_channel(interaction.channel_id or 0) is not None:
            raise TableAlreadyOpen  # checked before the public defer, so the refusal stays private
        default = preset_or_default((await rt.ledger.settings(guild_id)).preset)
        config = TableConfig.build(
            preset or default, stakes=stakes, seats=seats, turn_seconds=turn_seconds, away_bot=away_bot
        )  # computer players (issue 8): away_bot
        await _defer(interaction, ephemeral=False)
        session = await rt.tables.open_table(
            interaction.id,
            guild_id=guild_id,
            channel_id=interaction.channel_id or 0,
            host_id=interaction.user.id,
            config=config,
        )
        board = rt.board(session)
        board.new_post = False
        content, file, view = await rt.board_payload(session, [])
        fresh = reusable_file(file)  # app-level retry of the first board (pancog/errors.py deliver)
        message = await deliver(lambda: interaction.followup.send(content, file=fresh(), view=view, wait=True))
        await rt.tables.set_board_message(session.table_id, message.id)
        try:  # the host sits down at once; the board is edited by the usual path
            await rt.tables.join(session.table_id, interaction.user.id)
            await rt.save_names(session)
        except PanError as exc:
            await send_ephemeral(interaction, presenters.could_not_sit(exc.message))

    @app_commands.command(name="join", description="Sit down at this table (chips come from your bank)")
    @app_commands.describe(doubles="Play doubles (needs twice the buy-in)", chips="Chips to bring (default: 5 buy-ins)")
    async def join(
        self, interaction: discord.Interaction, doubles: bool = False, chips: app_commands.Range[int, 1] | None = None
    ) -> None:
        rt = await _defer(interaction)
        session = _here(rt, interaction)
        applied = await rt.tables.join(session.table_id, interaction.user.id, doubles=doubles, buy_in=chips)
        await rt.save_names(session)
        seat = applied.state.seat(session.seat_of(interaction.user.id))
        bank = await rt.ledger.balance(session.guild_id, interaction.user.id)
        text = presenters.sat_down(seat.stack if seat else 0, doubles=doubles, bank=bank)
        await send_ephemeral(interaction, text)

    @app_commands.command(name="leave", description="Leave the table (mid-hand: you still pay to its end)")
    async def leave(self, interaction: discord.Interaction) -> None:
        rt = await _defer(interaction)
        session = _here(rt, interaction)
        await rt.tables.leave(session.table_id, interaction.user.id)
        gone = session.find_seat(interaction.user.id) is None
        await send_ephemeral(interaction, presenters.left_table(gone))

    @app_commands.command(name="rebuy", description="Bring more chips from your bank (between hands)")
    @app_commands.describe(chips="How many chips to add to your stack")
    async def rebuy(self, interaction: discord.Interaction, chips: app_commands.Range[int, 1]) -> None:
        rt = await _defer(interaction)
        session = _here(rt, interaction)
        applied = await rt.tables.rebuy(session.table_id, interaction.user.id, chips)
        seat = applied.state.seat(session.seat_of(interaction.user.id))
        bank = await rt.ledger.balance(session.guild_id, interaction.user.id)
        await send_ephemeral(interaction, presenters.rebought(chips, seat.stack if seat else 0, bank))

    @app_commands.command(name="start", description="Deal the next hand")
    async def start(self, interaction: discord.Interaction) -> None:
        rt = await _defer(interaction)
        session = _here(rt, interaction)
        applied = await rt.tables.start_hand(session.table_id, interaction.user.id)
        await send_ephemeral(interaction, presenters.hand_dealt(applied.state.hand_no))

    @app_commands.command(name="close", description="Close this table and return every stack (host or moderator)")
    async def close(self, interaction: discord.Interaction) -> None:
        rt = runtime_of(interaction.client)
        session = _here(rt, interaction)
        settings = await rt.ledger.settings(session.guild_id)
        moderator = is_moderator(interaction, settings.moderator_role_id)
        if interaction.user.id != session.host_id and not moderator:
            raise NotHost  # before the public defer, so the refusal stays private
        await _defer(interaction, ephemeral=False)
        returned = await rt.tables.close(session.table_id, interaction.user.id, moderator=moderator)
        rt.drop_board(session.table_id)
        await deliver(lambda: interaction.followup.send(presenters.table_closed(returned, rt.names)))

    @app_commands.command(name="table", description="Post the table again (the board)")
    async def table(self, interaction: discord.Interaction) -> None:
        rt = await _defer(interaction)
        session = _here(rt, interaction)
        board = rt.board(session)
        board.new_post = True
        board.kick()
        await send_ephemeral(interaction, presenters.BOARD_REPOSTED)

    @app_commands.command(name="rules", description="This table's house rules in plain words")
    async def rules(self, interaction: discord.Interaction) -> None:
        rt = runtime_of(interaction.client)
        session = rt.tables.find_in_channel(interaction.channel_id or 0)
        if session is None:
            raise NoTableHere
        text = presenters.rules_text(session.config.preset, describe_rules(session.rules))
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(name="history", description="Recent hands at this table")
    @app_commands.describe(transcript="Also attach the full transcript file of those hands")
    async def history(self, interaction: discord.Interaction, transcript: bool = False) -> None:
        rt = await _defer(interaction)
        session = _here(rt, interaction)
        log_rows = await rt.store.read_log(session.table_id)
        text, file_text = presenters_history(session, rt, log_rows)
        kwargs: dict[str, Any] = {}
        if transcript:
            kwargs["file"] = discord.File(io.BytesIO(file_text.encode()), filename=f"pan-{session.table_id}.txt")
        await send_ephemeral(interaction, text[:2000], **kwargs)

    # -- chips

    @app_commands.command(name="balance", description="Your chips in this server")
    async def balance(self, interaction: discord.Interaction) -> None:
        rt = await _defer(interaction)
        guild_id = interaction.guild_id or 0
        bank = await rt.ledger.ensure_player(guild_id, interaction.user.id)
        on_tables = [s for s in rt.tables.tables_of(interaction.user.id) if s.guild_id == guild_id]
        stacks = 0
        for s in on_tables:
            seat = s.state.seat(s.seat_of(interaction.user.id))
            stacks += seat.stack if seat is not None else 0
        await send_ephemeral(interaction, presenters.balance_text(bank, stacks))

    @app_commands.command(name="daily", description="Claim your daily chips")
    async def daily(self, interaction: discord.Interaction) -> None:
        rt = await _defer(interaction)
        claim = await rt.ledger.claim_daily(interaction.guild_id or 0, interaction.user.id)
        hours = int(claim.next_claim_in.total_seconds() // 3600)
        text = presenters.daily_text(claimed=claim.claimed, amount=claim.amount, bank=claim.balance, hours_left=hours)
        await send_ephemeral(interaction, text)

    @app_commands.command(name="leaderboard", description="The richest players in this server")
    async def leaderboard(self, interaction: discord.Interaction) -> None:
        rt = await _defer(interaction, ephemeral=False)
        rows = await rt.ledger.leaderboard(interaction.guild_id or 0, 10)
        await deliver(lambda: interaction.followup.send(presenters.leaderboard(rows, rt.names)))

    @app_commands.command(name="grant", description="Admin: give (or take, if negative) chips, with a reason")
    @app_commands.describe(user="Who", amount="Chips (negative takes)", reason="Why (kept in the ledger)")
    @app_commands.default_permissions(manage_guild=True)
    async def grant(self, interaction: discord.Interaction, user: discord.Member, amount: int, reason: str) -> None:
        rt = await _defer(interaction)
        guild_id = interaction.guild_id or 0
        if not is_moderator(interaction, (await rt.ledger.settings(guild_id)).moderator_role_id):
            raise BadOption(presenters.NEEDS_MODERATOR)
        if amount == 0:
            raise BadOption(presenters.AMOUNT_NOT_ZERO)
        rt.remember(user)
        await rt.ledger.ensure_player(guild_id, user.id)
        if amount > 0:
            await rt.ledger.grant(guild_id, user.id, amount, actor=interaction.user.id, reason=reason)
        else:
            await rt.ledger.take(guild_id, user.id, -amount, actor=interaction.user.id, reason=reason)
        bank = await rt.ledger.balance(guild_id, user.id)
        await send_ephemeral(interaction, presenters.granted(amount, user.display_name, bank))

    @app_commands.command(name="config", description="Admin: server defaults for Pan")
    @app_commands.describe(
        preset="Rules preset for new tables",
        starting_chips="Chips a new player starts with",
        daily_amount="Chips per /pan daily",
        moderator_role="Role that may close tables and grant chips",
    )
    @app_commands.choices(preset=PRESET_CHOICES)
    @app_commands.default_permissions(manage_guild=True)
    async def config(
        self,
        interaction: discord.Interaction,
        preset: str | None = None,
        starting_chips: app_commands.Range[int, 0, 1_000_000] | None = None,
        daily_amount: app_commands.Range[int, 0, 1_000_000] | None = None,
        moderator_role: discord.Role | None = None,
    ) -> None:
        rt = await _defer(interaction)
        guild_id = interaction.guild_id or 0
        current = await rt.ledger.settings(guild_id)
        if not is_moderator(interaction, current.moderator_role_id):
            raise BadOption(presenters.NEEDS_MODERATOR)
        changes: dict[str, Any] = {}
        for key, value in (("preset", preset), ("starting_chips", starting_chips), ("daily_amount", daily_amount)):
            if value is not None:
                changes[key] = value
        if moderator_role is not None:
            changes["moderator_role_id"] = moderator_role.id
        new = await rt.ledger.update_settings(guild_id, **changes) if changes else current
        text = presenters.server_config_text(
            preset_or_default(new.preset), new.starting_chips, new.daily_amount, new.moderator_role_id
        )
        await send_ephemeral(interaction, text)

    @app_commands.command(name="settings", description="Your Pan settings: hand DMs, sort order, four-colour deck")
    @app_commands.describe(
        dms="Hand DMs: every change, at the deal only, or off",
        sort="Sort your hand by suit or by rank",
        four_colour="Four-colour deck (clubs green, diamonds blue)",
    )
    async def settings(
        self,
        interaction: discord.Interaction,
        dms: Literal["every", "deal", "off"] | None = None,
        sort: Literal["suit", "rank"] | None = None,
        four_colour: bool | None = None,
    ) -> None:
        rt = await _defer(interaction)
        changes: dict[str, object] = {}
        if dms is not None:
            changes["dm_mode"] = DmMode(dms)
        if sort is not None:
            changes["sort"] = SortOrder(sort)
        if four_colour is not None:
            changes["four_color"] = four_colour
        prefs = await rt.settings.update(interaction.user.id, **changes)
        text = presenters.settings_text(
            dm_mode=prefs.dm_mode.value, dm_closed=prefs.dm_closed, sort=prefs.sort.value, four_color=prefs.four_color
        )
        await send_ephemeral(interaction, text)


def presenters_history(session: TableSession, rt: PanRuntime, rows: list[tuple[int, str, str]]) -> tuple[str, str]:
    """Recent hands (replayed from the durable log) in plain words, plus the transcript of the session."""
    actions = [parse_action(a) for _s, a, _e in rows]
    state = initial_state(session.rules, table_id=session.table_id)
    results: list[str] = []
    for action in actions:
        transition = engine.apply(state, action)
        for event in transition.events:
            if isinstance(event, HandEnded):
                results.append(presenters.end_text(state, rt.names, event))
        state = transition.state
    in_progress = state.hand.hand_no if state.hand is not None else None
    return presenters.history_text(results, state.hand_no, in_progress), dump_transcript(session.rules, actions)


# --------------------------------------------------------------------------------------------- in-hand commands


class PlayCog(commands.Cog):
    """Top-level commands for playing a hand. Every reply is private; the board shows the public result."""

    def __init__(self, bot: commands.Bot, runtime: PanRuntime) -> None:
        self.bot = bot
        self.rt = runtime

    async def _act(self, interaction: discord.Interaction[Any], make: Any, *, with_hand: bool = False) -> None:
        rt = await _defer(interaction)
        session = _here(rt, interaction)
        applied = await rt.tables.act(session.table_id, interaction.user.id, lambda seat: make(session.state, seat))
        await send_result(interaction, applied, interaction.user.id, with_hand=with_hand)

    @app_commands.command(name="knock", description="Declare in: play this hand")
    @app_commands.guild_only()
    async def knock(self, interaction: discord.Interaction) -> None:
        await self._act(interaction, lambda state, seat: Knock(seat=seat))

    @app_commands.command(name="sluff", description="Go on top: sit this hand out (forfeits the ante)")
    @app_commands.guild_only()
    async def sluff(self, interaction: discord.Interaction) -> None:
        await self._act(interaction, lambda state, seat: GoOnTop(seat=seat))

    @app_commands.command(name="draw", description="Pluck the top card of the stock")
    @app_commands.guild_only()
    async def draw(self, interaction: discord.Interaction) -> None:
        await self._act(interaction, lambda state, seat: Pluck(seat=seat), with_hand=True)

    @app_commands.command(name="take", description="Take the option card (it must meld at once)")
    @app_commands.guild_only()
    async def take(self, interaction: discord.Interaction) -> None:
        await self._act(interaction, lambda state, seat: TakeOption(seat=seat), with_hand=True)

    @app_commands.command(name="meld", description="Lay a new meld: cards from your hand (with the drawn card)")
    @app_commands.describe(cards="Cards from your hand, e.g. 5S 5S (the drawn card is included for you)")
    @app_commands.guild_only()
    async def meld(self, interaction: discord.Interaction, cards: str) -> None:
        parsed = read_cards(cards)
        await self._act(
            interaction,
            lambda state, seat: NewMeld(seat=seat, cards=without_drawn(state, seat, parsed)),
            with_hand=True,
        )

    @app_commands.command(name="add", description="Add cards (or just the drawn card) to one of your melds")
    @app_commands.describe(
        meld="Your meld's number", cards="Cards from your hand (leave empty to lay off the drawn card)"
    )
    @app_commands.guild_only()
    async def add(self, interaction: discord.Interaction, meld: int, cards: str = "") -> None:
        parsed = read_cards(cards) if cards.strip() else ()
        await self._act(
            interaction,
            lambda state, seat: AddToMeld(seat=seat, meld=meld, cards=without_drawn(state, seat, parsed)),
            with_hand=True,
        )

    @app_commands.command(name="borrow", description="Borrow a card from one of your melds to make a new meld")
    @app_commands.describe(meld="The meld you borrow from", card="The card you borrow", cards="Cards from your hand")
    @app_commands.guild_only()
    async def borrow(self, interaction: discord.Interaction, meld: int, card: str, cards: str = "") -> None:
        taken = parse_card(card)
        parsed = read_cards(cards) if cards.strip() else ()
        await self._act(
            interaction,
            lambda state, seat: Borrow(seat=seat, cards=without_drawn(state, seat, parsed), taken=((meld, taken),)),
            with_hand=True,
        )

    @app_commands.command(name="discard", description="Discard a card and end your turn")
    @app_commands.describe(card="A card from your hand (or the unused drawn card)")
    @app_commands.guild_only()
    async def discard(self, interaction: discord.Interaction, card: str) -> None:
        parsed = parse_card(card)
        await self._act(interaction, lambda state, seat: Discard(seat=seat, card=parsed))

    @app_commands.command(name="force", description="Force a card that fits a player's board onto it")
    @app_commands.describe(player="Whom to force (needed only when several can be forced)")
    @app_commands.guild_only()
    async def force(self, interaction: discord.Interaction, player: discord.Member | None = None) -> None:
        rt = runtime_of(interaction.client)
        target = self._seat_of_member(rt, interaction, player) if player is not None else None
        await self._act(interaction, lambda state, seat: Force(seat=seat, target=target))

    @app_commands.command(name="foul", description="Call a player's hand foul")
    @app_commands.describe(player="Whose hand", reason="Why")
    @app_commands.choices(
        reason=[
            app_commands.Choice(name="an invalid spread", value="invalid_meld"),
            app_commands.Choice(name="abandoning the hand", value="abandoned"),
        ]
    )
    @app_commands.guild_only()
    async def foul(self, interaction: discord.Interaction, player: discord.Member, reason: str | None = None) -> None:
        rt = runtime_of(interaction.client)
        target = self._seat_of_member(rt, interaction, player)
        session = _here(rt, interaction)
        if session.find_seat(interaction.user.id) is None:  # a moderator not seated: the floor's call
            settings = await rt.ledger.settings(session.guild_id)
            if not is_moderator(interaction, settings.moderator_role_id):
                raise NotSeated
            await interaction.response.defer(ephemeral=True, thinking=True)
            await rt.tables.system_act(session.table_id, FloorFoul(target=target), actor=interaction.user.id)
            await send_ephemeral(interaction, presenters.floor_fouled(player.display_name))
            return

        def make(state: TableState, seat: int) -> Action:
            if reason is not None:
                return FoulCall(seat=seat, target=target, cause=FoulCause(reason))
            for action in engine.legal_actions(state, seat):
                if isinstance(action, FoulCall) and action.target == target:
                    return action
            return FoulCall(seat=seat, target=target, cause=FoulCause.INVALID_MELD)

        await self._act(interaction, make)

    @app_commands.command(name="split", description="Offer (or accept) splitting the tops with the last other player")
    @app_commands.guild_only()
    async def split(self, interaction: discord.Interaction) -> None:
        def make(state: TableState, seat: int) -> Action:
            hand = state.hand
            if hand is not None and hand.split_offer is not None and hand.split_offer != seat:
                return AcceptSplit(seat=seat)
            return OfferSplit(seat=seat)

        await self._act(interaction, make)

    @app_commands.command(name="hand", description="See your hand privately, with every legal play")
    @app_commands.guild_only()
    async def hand(self, interaction: discord.Interaction) -> None:
        rt = await _defer(interaction)
        session = _here(rt, interaction)
        await send_hand_panel(interaction, session, interaction.user.id)

    @app_commands.command(name="outs", description="Call the outs: what a board would collect on going out now")
    @app_commands.describe(player="Whose board (default: yours)")
    @app_commands.guild_only()
    async def outs(self, interaction: discord.Interaction, player: discord.Member | None = None) -> None:
        rt = runtime_of(interaction.client)
        session = _here(rt, interaction)
        who = player or interaction.user
        seat = self._seat_of_member(rt, interaction, who)
        value = engine.call_outs(session.state, seat)
        await send_ephemeral(interaction, presenters.outs_text(session.state, rt.names, seat, value))

    @staticmethod
    def _seat_of_member(rt: PanRuntime, interaction: discord.Interaction[Any], member: discord.abc.User) -> int:
        session = _here(rt, interaction)
        seat = session.find_seat(member.id)
        if seat is None:
            raise PanError(presenters.not_seated_here(member.display_name))
        rt.remember(member)
        return seat

    # -- autocomplete (never raises: a failure just offers nothing)

    def _my_state(self, interaction: discord.Interaction[Any]) -> tuple[TableState, int] | None:
        session = self.rt.tables.find_in_channel(interaction.channel_id or 0)
        if session is None:
            return None
        seat = session.find_seat(interaction.user.id)
        return (session.state, seat) if seat is not None else None

    @meld.autocomplete("cards")
    @borrow.autocomplete("cards")
    @add.autocomplete("cards")
    async def cards_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            return cards_choices(self._my_state(interaction), current)
        except Exception:
            log.warning("cards autocomplete failed", exc_info=True)
            return []

    @discard.autocomplete("card")
    async def discard_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            found = self._my_state(interaction)
            if found is None:
                return []
            state, seat = found
            pl = state.hand.players[seat] if state.hand else None
            options = list(dict.fromkeys(pl.hand)) if pl else []
            turn = state.hand.turn if state.hand else None
            if turn is not None and turn.seat == seat and turn.drawn is not None:
                options.insert(0, turn.drawn)
            names = [str(c) for c in options if str(c).lower().startswith(current.strip().lower())]
            return [app_commands.Choice(name=n, value=n) for n in names[:25]]
        except Exception:
            log.warning("discard autocomplete failed", exc_info=True)
            return []

    @add.autocomplete("meld")
    @borrow.autocomplete("meld")
    async def meld_autocomplete(
        self, interaction: discord.Interaction, current: int | str
    ) -> list[app_commands.Choice[int]]:
        try:
            found = self._my_state(interaction)
            if found is None or found[0].hand is None:
                return []
            state, seat = found
            pl = state.hand.players[seat] if state.hand else None
            melds = pl.melds if pl else ()
            return [
                app_commands.Choice(name=presenters.meld_choice(m), value=m.id)
                for m in melds
                if str(m.id).startswith(str(current or ""))
            ][:25]
        except Exception:
            log.warning("meld autocomplete failed", exc_info=True)
            return []

    @borrow.autocomplete("card")
    async def borrow_card_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            found = self._my_state(interaction)
            if found is None or found[0].hand is None:
                return []
            state, seat = found
            pl = state.hand.players[seat] if state.hand else None
            cards = dict.fromkeys(c for m in (pl.melds if pl else ()) for c in m.cards)
            names = [str(c) for c in cards if str(c).lower().startswith(current.strip().lower())]
            return [app_commands.Choice(name=n, value=n) for n in names[:25]]
        except Exception:
            log.warning("borrow autocomplete failed", exc_info=True)
            return []


def cards_choices(found: tuple[TableState, int] | None, current: str) -> list[app_commands.Choice[str]]:
    """Suggestions from the player's own hand: whole legal melds first, then the next card to type."""
    if found is None:
        return []
    state, seat = found
    hand = state.hand
    pl = hand.players[seat] if hand is not None else None
    if pl is None:
        return []
    typed = current.strip().upper()
    choices: list[str] = []
    if hand is not None and hand.turn is not None and hand.turn.seat == seat:
        for action in engine.legal_actions(state, seat):
            if isinstance(action, NewMeld | AddToMeld | Borrow) and action.cards:
                text = " ".join(str(c) for c in action.cards)
                if text.startswith(typed) and text not in choices:
                    choices.append(text)
    head, _, last = typed.rpartition(" ")
    for card in dict.fromkeys(pl.hand):
        if str(card).startswith(last):
            text = f"{head} {card}".strip()
            if text not in choices:
                choices.append(text)
    return [app_commands.Choice(name=c[:100], value=c[:100]) for c in choices[:25]]


async def setup_cogs(bot: commands.Bot) -> None:
    """Add both cogs and register the dynamic buttons/selects so old messages keep working."""
    pan = await PanCog.create(bot)
    await bot.add_cog(pan)
    await bot.add_cog(PlayCog(bot, pan.rt))
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
    from pancog.ops_cog import setup_ops  # resilience (issue 7): turn clock, faults, /pan back|status|audit

    await setup_ops(bot)
    from pancog.practice_cog import setup_practice  # computer players (issue 8): /pan practice|addbot, /hint

    await setup_practice(bot)


async def setup(bot: commands.Bot) -> None:
    """The discord.py extension entry point (``bot.load_extension("pancog.cog")``)."""
    await setup_cogs(bot)
