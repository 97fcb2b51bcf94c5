"""The in-hand commands (``/knock``, ``/draw``, ``/meld`` ...) and the buttons and selects that play a hand.

A board button and its slash command call the same method (:meth:`PlayCog.act` with the same action maker); a
choice in the My hand selects goes through :meth:`PlayCog.play_selected`. Every reply is private; the board
shows the public result.
"""

from __future__ import annotations

import functools
import logging
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import discord
from discord import app_commands

from pancog.adapter import ack
from pancog.adapter.base import PanCog
from pancog.adapter.board import Boards
from pancog.adapter.checks import moderator, seat_of_member
from pancog.adapter.errors import deliver, fit_choices, reusable_file, send_ephemeral
from pancog.adapter.hand import Hands, chosen_play
from pancog.adapter.presenters.common import name_of
from pancog.adapter.presenters.hand import CHOOSE_A_PLAY, meld_choice, nothing_to
from pancog.adapter.presenters.table import OUTS_NOT_SEATED, floor_fouled, outs_text, practice_stranger
from pancog.adapter.runtime import Handler, PanRuntime
from pancog.adapter.watching import Watching
from pancog.game import engine
from pancog.game.actions import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    DeclineDraw,
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
from pancog.game.state import Step, TableState
from pancog.services.tables import NotSeated, TableSession

__all__ = ["PlayCog", "cards_choices"]

log = logging.getLogger("pan.cog")

Make = Callable[[TableState, int], Action]
"""Builds the action from the table as it is under the lock and the player's seat."""


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


def first_legal(state: TableState, seat: int, kind: type) -> Action:
    for action in engine.legal_actions(state, seat):
        if isinstance(action, kind):
            return action
    raise PanError(nothing_to({Force: "force", FoulCall: "call foul"}.get(kind, "do that")))


def split_action(state: TableState, seat: int) -> Action:
    hand = state.hand
    if hand is not None and hand.split_offer is not None and hand.split_offer != seat:
        return AcceptSplit(seat=seat)
    return OfferSplit(seat=seat)


# What each board button plays, and whether the reply carries the hand panel to keep playing.
BUTTON_ACTIONS: dict[str, tuple[Make, bool]] = {
    "knock": (lambda state, seat: Knock(seat=seat), False),
    "sluff": (lambda state, seat: GoOnTop(seat=seat), False),
    "draw": (lambda state, seat: Pluck(seat=seat), True),
    "nodraw": (lambda state, seat: DeclineDraw(seat=seat), False),
    "take": (lambda state, seat: TakeOption(seat=seat), True),
    "force": (lambda state, seat: first_legal(state, seat, Force), False),
    "foul": (lambda state, seat: first_legal(state, seat, FoulCall), False),
    "split": (split_action, False),
}


class PlayCog(PanCog, name="PanPlay"):
    """Top-level commands for playing a hand. Every reply is private; the board shows the public result."""

    def __init__(self, runtime: PanRuntime, hands: Hands, boards: Boards, watching: Watching) -> None:
        super().__init__(runtime)
        self.hands = hands
        self.boards = boards
        self.watching = watching  # My hand for a member watching a hand shared with him

    def handlers(self) -> Mapping[str, Handler]:
        found: dict[str, Handler] = {"hand": self.button(self.show_hand)}
        for verb, (make, with_hand) in BUTTON_ACTIONS.items():
            found[verb] = self.button(self._acting(make, with_hand=with_hand))
        found["play"] = functools.partial(self.play_selected, kind="play")
        found["discard"] = functools.partial(self.play_selected, kind="discard")
        return found

    def _acting(self, make: Make, *, with_hand: bool) -> Callable[[discord.Interaction[Any], TableSession], Any]:
        return lambda interaction, session: self.act(interaction, session, make, with_hand=with_hand)

    async def _act(self, interaction: discord.Interaction[Any], make: Make, *, with_hand: bool = False) -> None:
        await self.defer(interaction)
        await self.act(interaction, self.here(interaction), make, with_hand=with_hand)

    async def _verb(self, interaction: discord.Interaction[Any], verb: str) -> None:
        """A slash command that does what its board button does."""
        make, with_hand = BUTTON_ACTIONS[verb]
        await self._act(interaction, make, with_hand=with_hand)

    async def act(
        self, interaction: discord.Interaction[Any], session: TableSession, make: Make, *, with_hand: bool = False
    ) -> None:
        """Every slash command and board button that plays: the action through the table service, then the
        private result (with the hand panel after a draw or a meld, to keep playing)."""
        self.refuse_strangers(session, interaction.user.id)
        applied = await self.rt.tables.act(
            session.table_id, interaction.user.id, lambda seat: make(session.state, seat)
        )
        await self.boards.pings.reply(
            interaction,
            applied,
            lambda: self.hands.result(interaction, applied, interaction.user.id, with_hand=with_hand),
            keep_private=with_hand,
        )

    def refuse_strangers(self, session: TableSession, user_id: int) -> None:
        """Someone not seated at a practice table is told whose table it is (not to /pan join: nobody else may sit)."""
        if session.config.practice and session.find_seat(user_id) is None:
            raise PanError(practice_stranger(name_of(self.rt.names_at(session), session.host_id)))

    async def show_hand(self, interaction: discord.Interaction[Any], session: TableSession) -> None:
        """/hand and the My hand button (for a member watching a shared hand here: that hand, read-only)."""
        if session.find_seat(interaction.user.id) is None:  # watching with consent: the watcher's view
            grants = self.watching.watch.watching(session.table_id, interaction.user.id)
            if grants:
                await self.watching.show(interaction, session.table_id, grants[0].player_id)
                return
        self.refuse_strangers(session, interaction.user.id)
        await self.hands.show(interaction, session, interaction.user.id)

    async def play_selected(
        self, interaction: discord.Interaction[Any], table_id: int, values: tuple[str, ...], *, kind: str
    ) -> None:
        """A choice in the My hand selects: play it, then edit the private panel in place.

        The value must be a token of the menu the bot offers this user for the table as it is now
        (:func:`~pancog.adapter.hand.chosen_play`); anything else is refused before the engine sees it."""
        rt = self.rt
        rt.remember(interaction.guild_id, interaction.user)
        ack.later(
            self.rt.tasks, interaction, update=True
        )  # answered by editing the private panel in place (type 7) below
        if not values:
            raise PanError(CHOOSE_A_PLAY)
        user_id = interaction.user.id
        session = rt.tables.get(table_id)

        def make(seat: int) -> Action:  # under the table's lock: the state the choice must have been made in
            return chosen_play(session.state, seat, user_id, kind, values)

        applied = await rt.tables.act(table_id, user_id, make)
        content, file, view = await self.hands.panel(session, user_id, after=applied)
        fresh = reusable_file(file) if file is not None else None

        async def edit() -> None:
            await ack.settle(interaction)
            attachments = [fresh()] if fresh else []
            if interaction.response.is_done():
                await interaction.edit_original_response(content=content[:2000], attachments=attachments, view=view)
            else:
                await interaction.response.edit_message(content=content[:2000], attachments=attachments, view=view)

        await self.boards.pings.reply(
            interaction,
            applied,
            lambda: deliver(edit, what=f"hand panel edit for interaction {interaction.id}"),
            keep_private=True,
        )
        view.stop()

    @app_commands.command(name="knock", description="Pan card game: knock (declare in) and play this hand")
    @app_commands.guild_only()
    async def knock(self, interaction: discord.Interaction) -> None:
        await self._verb(interaction, "knock")

    @app_commands.command(name="sluff", description="Pan card game: go on top, sit this hand out (forfeits the ante)")
    @app_commands.guild_only()
    async def sluff(self, interaction: discord.Interaction) -> None:
        await self._verb(interaction, "sluff")

    @app_commands.command(name="draw", description="Pan card game: on your turn, pluck the top card of the stock")
    @app_commands.guild_only()
    async def draw(self, interaction: discord.Interaction) -> None:
        await self._verb(interaction, "draw")

    @app_commands.command(
        name="pass", description="Pan card game: don't draw again after the first pluck of the double draw"
    )
    @app_commands.guild_only()
    async def pass_draw(self, interaction: discord.Interaction) -> None:
        await self._verb(interaction, "nodraw")

    @app_commands.command(name="take", description="Pan card game: take the option card (it must meld at once)")
    @app_commands.guild_only()
    async def take(self, interaction: discord.Interaction) -> None:
        await self._verb(interaction, "take")

    @app_commands.command(name="meld", description="Pan card game: lay a new meld from your hand (with the drawn card)")
    @app_commands.describe(cards="Cards from your hand, e.g. 5S 5S (the drawn card is included for you)")
    @app_commands.guild_only()
    async def meld(self, interaction: discord.Interaction, cards: str) -> None:
        parsed = read_cards(cards)
        await self._act(
            interaction,
            lambda state, seat: NewMeld(seat=seat, cards=without_drawn(state, seat, parsed)),
            with_hand=True,
        )

    @app_commands.command(name="add", description="Pan card game: add cards (or the drawn card) to one of your melds")
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

    @app_commands.command(
        name="borrow", description="Pan card game: borrow a card from one of your melds for a new meld"
    )
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

    @app_commands.command(name="discard", description="Pan card game: discard a card and end your turn")
    @app_commands.describe(card="A card from your hand (or the unused drawn card)")
    @app_commands.guild_only()
    async def discard(self, interaction: discord.Interaction, card: str) -> None:
        parsed = parse_card(card)
        await self._act(interaction, lambda state, seat: Discard(seat=seat, card=parsed))

    @app_commands.command(name="force", description="Pan card game: force a card that fits a player's melds onto them")
    @app_commands.describe(player="Whom to force (needed only when several can be forced)")
    @app_commands.guild_only()
    async def force(self, interaction: discord.Interaction, player: discord.Member | None = None) -> None:
        target = self._seat_of_member(interaction, player) if player is not None else None
        await self._act(interaction, lambda state, seat: Force(seat=seat, target=target))

    @app_commands.command(name="foul", description="Pan card game: call a player's hand foul")
    @app_commands.describe(player="Whose hand", reason="Why")
    @app_commands.choices(
        reason=[
            app_commands.Choice(name="an invalid spread", value="invalid_meld"),
            app_commands.Choice(name="abandoning the hand", value="abandoned"),
        ]
    )
    @app_commands.guild_only()
    async def foul(self, interaction: discord.Interaction, player: discord.Member, reason: str | None = None) -> None:
        rt = self.rt
        target = self._seat_of_member(interaction, player)
        session = self.here(interaction)
        if session.find_seat(interaction.user.id) is None:  # a moderator not seated: the floor's call
            if not await moderator(rt.ledger, interaction, session.guild_id):
                raise NotSeated
            await self.defer(interaction)
            await rt.tables.system_act(session.table_id, FloorFoul(target=target), actor=interaction.user.id)
            await send_ephemeral(interaction, floor_fouled(player.display_name))
            return

        def make(state: TableState, seat: int) -> Action:
            if reason is not None:
                return FoulCall(seat=seat, target=target, cause=FoulCause(reason))
            for action in engine.legal_actions(state, seat):
                if isinstance(action, FoulCall) and action.target == target:
                    return action
            return FoulCall(seat=seat, target=target, cause=FoulCause.INVALID_MELD)

        await self._act(interaction, make)

    @app_commands.command(
        name="split", description="Pan card game: offer (or accept) splitting the tops with the last player"
    )
    @app_commands.guild_only()
    async def split(self, interaction: discord.Interaction) -> None:
        await self._act(interaction, split_action)

    @app_commands.command(name="hand", description="Pan card game: see your hand privately, with every legal play")
    @app_commands.guild_only()
    async def hand(self, interaction: discord.Interaction) -> None:
        await self.defer(interaction)
        await self.show_hand(interaction, self.here(interaction))

    @app_commands.command(
        name="outs", description="Pan card game: call the outs (what a board collects on going out now)"
    )
    @app_commands.describe(player="Whose board (default: yours)")
    @app_commands.guild_only()
    async def outs(self, interaction: discord.Interaction, player: discord.Member | None = None) -> None:
        session = self.here(interaction)
        if player is None and session.find_seat(interaction.user.id) is None:
            raise PanError(OUTS_NOT_SEATED)  # a watcher asking for "his" outs: say how to ask for a player's
        seat = self._seat_of_member(interaction, player or interaction.user)
        state = session.state
        value = engine.call_outs(state, seat)
        you = player is None or player.id == interaction.user.id
        text = outs_text(state, self.rt.names_at(session), seat, value, you=you)
        await send_ephemeral(interaction, text)

    def _seat_of_member(self, interaction: discord.Interaction[Any], member: discord.abc.User) -> int:
        seat = seat_of_member(self.here(interaction), member)
        self.rt.remember(interaction.guild_id, member)
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
            return fit_choices(app_commands.Choice(name=n, value=n) for n in names)
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
            return fit_choices(
                app_commands.Choice(name=meld_choice(m), value=m.id)
                for m in melds
                if str(m.id).startswith(str(current or ""))
            )
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
            return fit_choices(app_commands.Choice(name=n, value=n) for n in names)
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
    return fit_choices(app_commands.Choice(name=c, value=c) for c in choices)
