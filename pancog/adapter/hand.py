"""The private side of a table: hand DMs, the My hand panel, and the private reply after a player's own action.

- :class:`Hands` subscribes to the table service: the deal (and, for players who asked for it, every change of
  their hand) is sent by DM as a rendered image. A closed DM never blocks the game: **My hand** always works.
- The panel is an ephemeral message: the hand image, its text twin, and selects of every legal play (best first,
  with what each pays) and of the discards. The selects are ``DynamicItem``s (``pan:t:<table>:play|discard``)
  whose choice runs the handler the play cog registered (``PanRuntime.handlers``).
- A select's option values are **tokens**, not actions: ``<seq>.<user>.<digest>`` names the table state the menu
  was built for, the user it was built for, and the play (a short digest of its notation). :func:`chosen_play`
  rebuilds the same menu from the table as it is and accepts only a token it contains, so a forged value, one
  from another player's panel or from an older state is refused before anything reaches the engine.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import logging
import re
from collections.abc import Mapping
from typing import Any

import discord

from pancog.adapter import edge, language
from pancog.adapter.board import ALT_TEXT_LIMIT, BoardButton, Boards
from pancog.adapter.errors import PanView, answer, fit_view, send_ephemeral
from pancog.adapter.pings import PING_CLAIM_WAIT
from pancog.adapter.presenters.coach import coach_text, out_now_text, review_text
from pancog.adapter.presenters.common import DONE, seat_names
from pancog.adapter.presenters.hand import (
    DM_CLOSED_NOTICE,
    MENU_OUT_OF_DATE,
    SELECT_PLACEHOLDERS,
    action_label,
    hand_dm_text,
    hand_now,
    hand_snapshot,
    next_step,
    not_in_hand,
    panel_text,
    private_result,
)
from pancog.adapter.runtime import PanRuntime, runtime_of
from pancog.game import engine, i18n
from pancog.game.actions import Action, DeclineDraw, Discard
from pancog.game.engine import Observation
from pancog.game.errors import PanError
from pancog.game.events import CardsDealt, Discarded, HandEnded, HandStarted, Melded, OptionTaken
from pancog.game.notation import format_action
from pancog.game.state import TableState
from pancog.infra.renderq import Priority, RenderQueueClosed
from pancog.services.bots import ordered_legal
from pancog.services.coach import coached_plays, out_now
from pancog.services.prefs import DmMode, Layout
from pancog.services.tables import Applied, TableSession
from renderer import HandSnapshot, PanelSnapshot, hand_text, render_hand_png, render_panel_png
from renderer import panel_text as panel_twin

__all__ = ["HandView", "Hands", "PlaySelect", "chosen_play", "offered"]

log = logging.getLogger("pan.views")

MENU_MAX = 25
"""Options in one select (Discord's limit)."""

Panel = tuple[str, discord.File | None, "HandView"]

MenuEntry = tuple[str, Action, int]
"""(option value token, the action, what it pays) as one select offers it."""


def offered(
    obs: Observation, user_id: int, ordered: tuple[tuple[Action, int], ...] | None = None
) -> dict[str, list[MenuEntry]]:
    """The My hand menus for ``user_id`` in the observed state: ``play`` and ``discard``, best first, at most 25
    each, one option per distinct play. Built the same way for the panel and for checking a choice.
    ``ordered``: ``ordered_legal(obs)`` when the caller has it already."""
    menus: dict[str, list[MenuEntry]] = {"play": [], "discard": []}
    seen: set[str] = set()
    for action, pays in ordered_legal(obs) if ordered is None else ordered:  # computer players: best first
        text = format_action(action)
        if text in seen:
            continue
        seen.add(text)
        menu = menus["discard" if isinstance(action, Discard) else "play"]
        if len(menu) < MENU_MAX:
            digest = hashlib.blake2s(text.encode(), digest_size=6).hexdigest()
            menu.append((f"{obs.seq}.{user_id}.{digest}", action, pays))
    return menus


def chosen_play(state: TableState, seat: int, user_id: int, kind: str, values: tuple[str, ...]) -> Action:
    """The action a My hand choice names, if it is one the bot offers ``user_id`` in ``state`` under ``kind``.

    Raises:
        PanError: "That menu is out of date — open My hand again" for anything else.
    """
    token = values[0] if len(values) == 1 else ""
    seq, _, rest = token.partition(".")
    owner, _, _ = rest.partition(".")
    if kind in ("play", "discard") and seq == str(state.seq) and owner == str(user_id):
        obs = engine.observe(state, seat)
        everything = offered(obs, user_id, obs.legal)  # the engine's order: no ranking needed to check membership
        if any(len(entries) >= MENU_MAX for entries in everything.values()):
            everything = offered(obs, user_id)  # more than a menu holds: only the best 25, as shown, count
        for value, action, _ in everything[kind]:
            if value == token:
                return action
    raise PanError(MENU_OUT_OF_DATE)


class Hands:
    """Hand DMs (a table-service listener), the My hand panel, and the private reply after an action."""

    def __init__(self, runtime: PanRuntime) -> None:
        self.rt = runtime
        self.boards: Boards | None = None  # the public boards, for a phone player's panel (the table over his hand)
        runtime.tables.subscribe(self.on_applied)

    def use_boards(self, boards: Boards) -> None:
        """The boards the phone panel takes its table from (built after this listener: DMs go first)."""
        self.boards = boards

    # -- the service listener (synchronous, inside the table lock)
    def on_applied(self, applied: Applied) -> None:
        session = applied.session
        for e in applied.events:
            if isinstance(e, CardsDealt):
                seat = applied.state.seat(e.seat)
                if seat is not None:
                    self.send_dm(session, seat.player_id, e.seat, applied.state, deal=True)
            elif isinstance(e, HandStarted) and self.rt.coach is not None:
                self.rt.coach.forget(session.table_id)
            elif isinstance(e, HandEnded):
                self._coach_after(session, e.hand_no, applied)
        if applied.actor is not None and not any(isinstance(e, HandStarted) for e in applied.events):
            self._dm_changes(applied)

    # -- the practice coach's note after a hand
    def _coach_after(self, session: TableSession, hand_no: int, applied: Applied) -> None:
        coach = self.rt.coach
        if coach is None:
            return
        for user_id in session.player_ids():
            if coach.coaches(session, user_id):
                note = self._send_review(session, hand_no, user_id, applied)
                self.rt.tasks.spawn(note, name=f"pan-coach-{session.table_id}")

    async def _send_review(self, session: TableSession, hand_no: int, user_id: int, applied: Applied) -> None:
        """PRIVATE: what the person missed in the hand, as an ephemeral followup on his own freshest answered
        interaction at the table (no call counted against the global limit). Without one (or with nothing missed)
        it waits on his My hand panel until the next deal."""
        coach = self.rt.coach
        if coach is None:
            return
        try:
            review = await coach.review(session, hand_no, user_id)
        except PanError:
            return  # the table closed meanwhile
        if review is None or not review.misses or self.boards is None:
            return
        carrier = await self.boards.pings.carrier(session.table_id, applied=applied, wait=PING_CLAIM_WAIT)
        if carrier is None or carrier.interaction.user.id != user_id:
            return
        try:
            text = review_text(review, self.rt.names_at(session))
            await edge.followup(carrier.interaction, text, ephemeral=True, about=edge.about(session))
        except discord.HTTPException as exc:
            log.info("could not send the coach's note on interaction %s: %s", carrier.interaction.id, exc)

    def _dm_changes(self, applied: Applied) -> None:
        session = applied.session
        seat = session.find_seat(applied.actor) if applied.actor is not None else None
        if seat is None or applied.state.hand is None:
            return
        changed = any(
            isinstance(e, Melded | Discarded | OptionTaken) and getattr(e, "seat", None) == seat for e in applied.events
        )
        if changed and self.rt.settings.cached(applied.actor or 0).dm_mode is DmMode.EVERY:
            self.send_dm(session, applied.actor or 0, seat, applied.state, deal=False)

    # -- DMs
    def send_dm(self, session: TableSession, player_id: int, seat: int, state: TableState, *, deal: bool) -> None:
        if player_id < 0:
            return
        prefs = self.rt.settings.cached(player_id)
        if prefs.dm_closed or prefs.dm_mode is DmMode.OFF:
            return
        self.rt.tasks.spawn(self._send_dm(session, player_id, seat, state, deal), name=f"pan-dm-{player_id}")

    async def _send_dm(self, session: TableSession, player_id: int, seat: int, state: TableState, deal: bool) -> None:
        rt = self.rt
        prefs = await rt.settings.get(player_id)
        if prefs.dm_closed or prefs.dm_mode is DmMode.OFF:
            return
        i18n.speak(language.for_user(rt, player_id, session.guild_id))  # this DM task speaks to its reader
        snap = hand_snapshot(state, seat, sort=prefs.sort.value, four_color=prefs.four_color)
        snap = dataclasses.replace(snap, layout=prefs.layout.renderer_layout)
        try:
            png = await rt.renders.render_once(render_hand_png, snap, priority=Priority.DM)
        except RenderQueueClosed:
            return  # the bot is stopping
        guild = rt.bot.get_guild(session.guild_id)
        channel = rt.bot.get_channel(session.channel_id)
        text = hand_dm_text(
            guild.name if guild else "your server",
            getattr(channel, "name", None) or "the table",
            state.hand_no,
            hand_text(snap) if deal else hand_now(hand_text(snap)),
        )
        try:
            file = discord.File(io.BytesIO(png), filename="hand.png")
            await edge.dm(rt.bot, player_id, text, about=edge.about(session, state=state), file=file)
        except discord.Forbidden as exc:
            log.info("DMs closed for user %s (code %s); not retrying", player_id, exc.code)
            await rt.settings.dm_refused(player_id)
        except discord.HTTPException as exc:
            log.warning("hand DM to %s failed: %s", player_id, exc)

    async def notice_prefix(self, user_id: int) -> str:
        """The one-time private notice after a refused DM ('' otherwise)."""
        if await self.rt.settings.take_notice(user_id):
            return DM_CLOSED_NOTICE + "\n"
        return ""

    # -- the panel
    async def panel(self, session: TableSession, user_id: int, *, after: Applied | None = None) -> Panel:
        """PRIVATE: the player's hand image, its text twin, and selects of every legal play.

        ``after``: the player's own action just committed; its private result comes first. Whose turn it is and
        the legal plays come from one engine pass (``engine.observe``) shared by the result and the panel.
        """
        seat = session.seat_of(user_id)
        state = session.state
        obs = engine.observe(state, seat)
        result = ""
        if after is not None:
            to_act = obs.to_act if after.state is state else engine.to_act(after.state)  # a later action landed
            result = private_result(
                after.before,
                after.state,
                seat,
                after.events,
                to_act=to_act,
                names=self.rt.names_at(session),
                step=False,
            )
        return await self._panel(session, user_id, obs, result=result)

    async def _panel(self, session: TableSession, user_id: int, obs: Observation, *, result: str = "") -> Panel:
        seat = obs.seat
        state = session.state
        prefs = await self.rt.settings.get(user_id)
        notice = await self.notice_prefix(user_id)
        view = HandView(session.table_id, obs, user_id, seat_names(state, self.rt.names_at(session)))
        if state.hand is None or state.hand.players[seat] is None:
            text = notice + not_in_hand(dealt=state.hand is not None)
            review = self.rt.coach.last(session.table_id, user_id) if self.rt.coach is not None else None
            if state.hand is None and review is not None:  # between hands: the coach's note on the last one
                text = "\n".join((text, review_text(review, self.rt.names_at(session))))
            return (f"{result}\n{text}" if result else text)[:2000], None, view
        snap = hand_snapshot(state, seat, sort=prefs.sort.value, four_color=prefs.four_color, plays=view.plays)
        file = await self._hand_file(session, snap, prefs.layout, prefs.four_color)
        step = next_step(state, seat, to_act=obs.to_act, names=self.rt.names_at(session))
        content = panel_text(notice=notice, hand_no=state.hand_no, snapshot=snap, step=step, result=result)
        extra = [self._out_now_line(session, seat, obs, view), self._coach_lines(session, user_id, obs, view)]
        content = "\n".join([content, *(line for line in extra if line)])
        return content[:2000], file, view

    def _out_now_line(self, session: TableSession, seat: int, obs: Observation, view: HandView) -> str:
        """What the player would collect by going out now (every table; '' when he is not in action)."""
        state = session.state
        out = out_now(state, seat, view.plays if obs.seq == state.seq else ())
        return out_now_text(state, self.rt.names_at(session), out) if out is not None else ""

    def _coach_lines(self, session: TableSession, user_id: int, obs: Observation, view: HandView) -> str:
        """Practice tables: why the top plays of the menu rank where they do."""
        return coach_text(coached_plays(session, user_id, obs, view.plays), view.plays)

    async def _hand_file(
        self, session: TableSession, snap: HandSnapshot, layout: Layout, four_color: bool
    ) -> discord.File:
        """The panel's image: the hand strip, or for a phone player the table (portrait) over his hand, in one
        image whose alt text is both twins (Discord lays two images of a message side by side, half as wide)."""
        if layout is not Layout.PHONE or self.boards is None:
            png = await self.rt.renders.render_once(render_hand_png, snap, priority=Priority.URGENT)
            return discord.File(io.BytesIO(png), filename="hand.png")
        table = self.boards.table_for(session, four_color=four_color)
        panel = PanelSnapshot(table=table, hand=snap)
        png = await self.rt.renders.render(render_panel_png, panel, priority=Priority.URGENT)
        alt = panel_twin(panel)[:ALT_TEXT_LIMIT]
        return discord.File(io.BytesIO(png), filename="hand.png", description=alt)

    async def show(self, interaction: discord.Interaction[Any], session: TableSession, user_id: int) -> None:
        """Answer privately with the panel."""
        content, file, view = await self.panel(session, user_id)
        await answer(interaction, content, about=edge.about(session), view=view, file=file)
        view.stop()

    async def result(
        self, interaction: discord.Interaction[Any], applied: Applied, user_id: int, *, with_hand: bool = False
    ) -> None:
        """PRIVATE reply after the player's own action (optionally with his hand panel to keep playing)."""
        session = applied.session
        seat = session.find_seat(user_id)
        if with_hand and seat is not None and session.state.hand is not None:
            content, file, view = await self.panel(session, user_id, after=applied)
            await answer(interaction, content[:2000], about=edge.about(session), view=view, file=file)
            view.stop()
            return
        text = ""
        if seat is not None:
            to_act = engine.to_act(applied.state)
            text = private_result(
                applied.before, applied.state, seat, applied.events, to_act=to_act, names=self.rt.names_at(session)
            )
        notice = await self.notice_prefix(user_id)
        await send_ephemeral(interaction, (notice + (text or DONE))[:2000], about=edge.about(session))


class HandView(PanView):
    """PRIVATE: selects of every legal play (best first, with what each pays) and of the discards.

    Made only of dynamic items, so nothing needs the view object once its message is sent: callers ``stop()``
    it right away. Otherwise discord.py gives a view on an ephemeral message a 15-minute timeout whose timer
    keeps the view (selects, options, the state's plays) alive: about 5.5 KiB per panel shown (docs/perf/soak.md).
    """

    def __init__(self, table_id: int, obs: Observation, user_id: int, names: Mapping[int, str] | None = None) -> None:
        super().__init__()
        self.plays = ordered_legal(obs)  # computer players: best first
        menus = offered(obs, user_id, self.plays)
        for kind, entries in menus.items():
            options = [
                discord.SelectOption(label=action_label(action, pays, names), value=token)
                for token, action, pays in entries
            ]
            if options:
                self.add_item(PlaySelect(table_id, kind, options))
        if any(isinstance(action, DeclineDraw) for action, _pays in self.plays):
            self.add_item(BoardButton(table_id, "nodraw"))  # the double draw's second pluck is a right
        fit_view(self)  # labels of long melds within Discord's 100 characters


class PlaySelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"pan:t:(?P<table>\d+):(?P<kind>play|discard)",
):
    def __init__(self, table_id: int, kind: str, options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"pan:t:{table_id}:{kind}",
                placeholder=SELECT_PLACEHOLDERS[kind],
                options=options or [discord.SelectOption(label="-", value="-")],
            )
        )
        self.table_id = table_id
        self.kind = kind

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PlaySelect:
        return cls(int(match["table"]), match["kind"], list(getattr(item, "options", [])))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = tuple(self.item.values)
        await runtime_of(interaction.client).dispatch(interaction, self.table_id, self.kind, values, item=self)
