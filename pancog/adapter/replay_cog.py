"""``/pan replay`` and ``/pan history``: a private step-through of any hand at this table, and a Share button that
posts the hand publicly as an animated image (watching a hand with consent: :mod:`.watching`). Thin: parse, call the
replay service, present, respond.

- The step-through is an ephemeral message: the public board at that step (an image and its text twin), one line
  saying what happened, and the requester's own cards if they were dealt in. Its buttons (⏮ ◀ ▶ ⏭, Share) and its
  "jump to turn" select are ``DynamicItem``s whose custom_id carries the table, the hand and the target step
  (``pan:r:<table>:<hand>:<step>:<verb>``, ``pan:r:<table>:<hand>:jump``), so they keep working after a restart.
  Every click rebuilds the replay **for the clicking user** (``pancog/services/replay.py``): no click can show anyone
  another viewer's cards.
- A jump is honoured only to a step the bot offered in that select (the offer is recomputed from the hand).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping
from typing import Any

import discord
from discord import app_commands

from pancog.adapter import ack, edge, language, replay_images
from pancog.adapter.base import PanCog
from pancog.adapter.board import ALT_TEXT_LIMIT
from pancog.adapter.checks import moderator
from pancog.adapter.errors import PanView, answer, deliver, send_ephemeral
from pancog.adapter.groups import IN_ANYWHERE, IN_PAN
from pancog.adapter.layouts import notice
from pancog.adapter.presenters.common import WITHHELD, name_of
from pancog.adapter.presenters.replay import (
    JUMP_NOT_OFFERED,
    JUMP_PLACEHOLDER,
    SHARE_NOT_OVER,
    SHARED,
    history_files_note,
    jump_options,
    replay_button_label,
    replay_history_text,
    reveal_announcement,
    reveal_answer,
    share_alt_text,
    share_caption,
    step_text,
    transcript_intro,
    transcript_section,
)
from pancog.adapter.presenters.table import table_title
from pancog.adapter.runtime import Handler, PanRuntime, runtime_of
from pancog.game import i18n
from pancog.game.errors import PanError
from pancog.game.i18n import tr
from pancog.infra.renderq import Priority
from pancog.services.knowledge import Audience
from pancog.services.replay import PUBLIC_VIEWER, HandReplay, ReplayService
from pancog.services.tables import TableSession

__all__ = ["REPLAY_ITEMS", "ReplayButton", "ReplayCog", "ReplaySelect"]

NAV = {"first": "⏮", "prev": "◀", "next": "▶", "last": "⏭"}
MAX_NOTATION_FILES = 8  # revealed hands' notation files under /pan history (Discord allows 10 files a message)
VERBS = (*NAV, "share", "open")


class NotOffered(PanError):
    code = "not_offered"

    def __init__(self) -> None:
        super().__init__(JUMP_NOT_OFFERED)


class NotOver(PanError):
    code = "hand_not_over"

    def __init__(self) -> None:
        super().__init__(SHARE_NOT_OVER)


class ReplayCog(PanCog, name="PanReplays"):
    """Hand history, replays, sharing a replay, and watching a hand shared with you."""

    def __init__(self, runtime: PanRuntime) -> None:
        super().__init__(runtime)
        if runtime.replays is None:
            raise RuntimeError("the replay cog needs the replay service in the runtime")
        self.replays: ReplayService = runtime.replays

    def handlers(self) -> Mapping[str, Handler]:
        return {"replay": self.on_replay}

    # ------------------------------------------------------------------ commands

    @app_commands.command(name="replay", description="Step through a hand at this table, privately", extras=IN_PAN)
    @app_commands.describe(hand="The hand's number (default: your last hand here); /pan history lists them")
    async def replay(self, interaction: discord.Interaction, hand: app_commands.Range[int, 1] | None = None) -> None:
        await self.step_through(interaction, hand)

    async def step_through(self, interaction: discord.Interaction, hand: int | None) -> None:
        await self.defer(interaction)
        session = self.here(interaction)
        replay = await self.replays.replay(session.table_id, interaction.user.id, hand)
        await self._show(interaction, replay, 0, edit=False)

    @app_commands.command(
        name="replay", description="Step through a hand at this table, privately (DMs too)", extras=IN_ANYWHERE
    )
    @app_commands.describe(hand="The hand's number (default: your last hand here)")
    async def replay_anywhere(
        self, interaction: discord.Interaction, hand: app_commands.Range[int, 1] | None = None
    ) -> None:
        await self.step_through(interaction, hand)

    @app_commands.command(
        name="history", description="Recent hands at this table, each with a Replay button", extras=IN_PAN
    )
    @app_commands.describe(transcript="Also attach this table's hand history as a file (what you may see of it)")
    async def history(self, interaction: discord.Interaction, transcript: bool = False) -> None:
        rt = await self.defer(interaction)
        session = self.here(interaction)
        summaries = await self.replays.history(session.table_id)
        view = PanView()
        for summary in reversed(summaries):
            view.add_item(ReplayButton(session.table_id, summary.hand_no, 0, "open"))
        people = {p for summary in summaries for p in (*summary.dealt, summary.winner_id, *summary.splitter_ids)}
        names = await rt.names.fetch(rt.guild_of(session), {*people, interaction.user.id})
        text = replay_history_text(summaries, names)
        if not transcript:
            await answer(interaction, text, about=edge.about(session), view=view)
            view.stop()
            return
        audience, about, files, note = await self._transcripts(interaction, session, names)

        async def send() -> None:
            await ack.settle(interaction)
            await edge.respond(interaction, text + note, about=about, audience=audience, view=view, files=files())

        await deliver(send)
        view.stop()

    async def _transcripts(
        self, interaction: discord.Interaction[Any], session: TableSession, names: Mapping[int, str]
    ) -> tuple[Audience, edge.About, Callable[[], list[discord.File]], str]:
        """What /pan history transcript:True attaches for this member: the hand history in words, built from what
        they may know of each hand (the public play, their own cards; the whole deal of a hand they may see in
        full); for a moderator the table's machine notation (up to the hand in progress if they are dealt into
        it); for the players of a revealed hand, that hand's machine notation. Returns (the audience, what the
        answer is about, a maker of fresh files, the note saying what is attached)."""
        rt = self.rt
        user = interaction.user.id
        is_mod = await moderator(rt.ledger, interaction, session.guild_id)
        audience = Audience.moderator(user) if is_mod else Audience.person(user)
        if rt.reveals is not None:
            await rt.reveals.load(session.table_id)
        log = await self.replays.log(session.table_id)
        hand_nos = tuple(h.summary.hand_no for h in log.hands)
        knows = rt.knowledge.of(session.state, audience, hands=hand_nos)

        def full(hand_no: int) -> bool:
            view = knows.hands.get(hand_no)
            return view is not None and view.full

        _log, records = await self.replays.records(session.table_id, user, full=full)
        people = {p for r in records for p in (*r.replay.summary.dealt, r.replay.summary.winner_id or 0)}
        # the transcript holds every hand of the table, the history above only the last ones
        names = {**names, **await rt.names.fetch(rt.guild_of(session), people - set(names))}
        channel_name = getattr(interaction.channel, "name", None)
        sections: list[tuple[int | None, str]] = [
            (None, transcript_intro(log.title or table_title(channel_name), name_of(names, user), moderator=is_mod))
        ]
        sections += [(r.replay.hand_no, transcript_section(r, names, user)) for r in records]
        documents = [(f"pan-{session.table_id}-history.txt", sections)]
        revealed: list[int] = []
        if is_mod:
            cut = next((n for n in hand_nos if not full(n)), None)  # the hand in progress they are dealt into
            machine = await self.replays.transcript_sections(session.table_id, before_hand=cut)
            documents.append((f"pan-{session.table_id}.pan", machine))
        else:
            revealed = [n for n in hand_nos if full(n)][-MAX_NOTATION_FILES:]
            for hand_no in revealed:
                notation = await self.replays.hand_notation(session.table_id, hand_no)
                documents.append((f"pan-{session.table_id}-hand-{hand_no}.pan", [(hand_no, notation)]))

        def files() -> list[discord.File]:
            return [edge.Document(name, parts) for name, parts in documents]

        note = history_files_note(machine=is_mod, hands=revealed)
        return audience, edge.About(session=session, hands=hand_nos), files, note

    @app_commands.command(
        name="reveal", description="Agree to show a finished hand's whole deal to its players", extras=IN_PAN
    )
    @app_commands.describe(hand="The hand's number (/pan history lists them)")
    async def reveal(self, interaction: discord.Interaction, hand: app_commands.Range[int, 1]) -> None:
        rt = await self.defer(interaction)
        session = self.here(interaction)
        if rt.reveals is None:
            raise NotOver
        state = await rt.reveals.consent(session.table_id, hand, interaction.user.id)
        names = await rt.names.fetch(rt.guild_of(session), [interaction.user.id, *state.waiting])
        waiting = [name_of(names, p) for p in sorted(state.waiting)]
        channel = interaction.channel
        if isinstance(channel, discord.abc.Messageable):
            with i18n.speaking(language.for_guild(rt, interaction.guild_id)):  # a public post: the server's
                view = notice(reveal_announcement(name_of(names, interaction.user.id), hand, waiting))
            none = discord.AllowedMentions.none()
            await deliver(lambda: edge.post(rt.bot, channel, about=edge.STATIC, view=view, allowed_mentions=none))
        await send_ephemeral(interaction, reveal_answer(hand, waiting), about=edge.about(session))

    async def names_in(self, interaction: discord.Interaction[Any], replay: HandReplay) -> dict[int, str]:
        """The names of everyone a replay shows (a plain dict: the shared animation is drawn in a worker process)."""
        people = {s.player_id for step in replay.steps for s in (*step.seats_before, *step.seats_after) if s}
        people |= {*replay.summary.dealt, replay.summary.winner_id or 0, *replay.summary.splitter_ids}
        return await self.rt.names.fetch(interaction.guild_id or 0, people)

    # ------------------------------------------------------------------ the step-through

    async def on_replay(self, interaction: discord.Interaction[Any], table_id: int, values: tuple[str, ...]) -> None:
        """A replay button or the jump select: ``values`` = (hand, target step, verb) or (hand, chosen, "jump")."""
        hand_no, target, verb = int(values[0]), values[1], values[2]
        if verb in ("open", "share"):  # a new private step-through (history) / a public animation
            await self.defer(interaction)
            if verb == "share":
                await self._share(interaction, table_id, hand_no)
                return
            await self._show(interaction, await self.replays.replay(table_id, interaction.user.id, hand_no), 0)
            return
        await edge.defer(interaction, thinking=False)  # the step-through is edited in place
        self.rt.remember(interaction.guild_id, interaction.user)
        replay = await self.replays.replay(table_id, interaction.user.id, hand_no)
        names = await self.names_in(interaction, replay)
        if verb == "jump" and target not in {value for value, _ in jump_options(replay, names)}:
            raise NotOffered
        index = min(int(target), len(replay.steps) - 1) if target.isdigit() else 0
        await self._show(interaction, replay, index, edit=True)

    async def _show(
        self, interaction: discord.Interaction[Any], replay: HandReplay, index: int, *, edit: bool = False
    ) -> None:
        prefs = await self.rt.settings.get(interaction.user.id)
        names = await self.names_in(interaction, replay)
        snaps = replay_images.step_snapshots(replay, index, names, sort=prefs.sort.value, four_color=prefs.four_color)
        board, hand = await self.rt.renders.render(replay_images.render_step_pngs, snaps, priority=Priority.URGENT)
        text = step_text(replay, index, names)
        view = ReplayView(replay, index, names)

        def files() -> list[discord.File]:
            out = [discord.File(io.BytesIO(board), filename="board.png")]
            if hand is not None:
                out.append(discord.File(io.BytesIO(hand), filename="hand.png"))
            return out

        about = self._about(replay)
        if edit:
            await deliver(lambda: edge.update(interaction, about=about, content=text, attachments=files(), view=view))
        else:

            async def send() -> None:  # the answer itself unless a slow render got it deferred (ack.py)
                await ack.settle(interaction)
                await edge.respond(interaction, text, about=about, files=files(), view=view)

            await deliver(send)
        view.stop()

    async def _share(self, interaction: discord.Interaction[Any], table_id: int, hand_no: int) -> None:
        """Post the finished hand in the channel as an animation of the public board (never anyone's cards)."""
        replay = await self.replays.replay(table_id, PUBLIC_VIEWER, hand_no)
        if not replay.summary.finished:
            raise NotOver
        names = await self.names_in(interaction, replay)
        public = language.for_guild(self.rt, interaction.guild_id)  # a public post: the server's language
        job = (replay, names, public)
        gif = await self.rt.renders.render(replay_images.animation_job, job, priority=Priority.BACKGROUND)
        channel = interaction.channel
        if not isinstance(channel, discord.abc.Messageable):
            raise NotOver
        with i18n.speaking(public):
            caption = share_caption(replay, names, interaction.user.id)
            alt = share_alt_text(replay, names)[:ALT_TEXT_LIMIT]  # the last frame's text twin
        filename = f"pan-hand-{hand_no}.gif"
        about = self._about(replay)

        def send() -> Any:
            file = discord.File(io.BytesIO(gif), filename=filename, description=alt)
            return edge.post(self.rt.bot, channel, about=about, file=file, view=notice(caption, file))

        posted = await deliver(send)
        if posted is None:
            await send_ephemeral(interaction, WITHHELD)
            return
        if self.rt.web is not None and interaction.user.id in replay.summary.dealt:
            # a player of the hand shared it: the league web page may show its replay too
            await self.rt.web.share(interaction.guild_id or 0, table_id, hand_no, interaction.user.id)
        await send_ephemeral(interaction, SHARED)

    def _about(self, replay: HandReplay) -> edge.About:
        """A replay shows one hand of its table: the live table while it is open (the hand in progress as it is
        now), else the table as its log ended."""
        try:
            session = self.rt.tables.get(replay.table_id)
        except PanError:
            return edge.About(hands=(replay.hand_no,), state=self.replays.cached_state(replay.table_id))
        return edge.About(session=session, hands=(replay.hand_no,))


class ReplayView(PanView):
    """The step-through's buttons and jump select (dynamic items only: the view is stopped once sent)."""

    def __init__(self, replay: HandReplay, index: int, names: Mapping[int, str]) -> None:
        super().__init__()
        last = len(replay.steps) - 1
        targets = {"first": 0, "prev": max(0, index - 1), "next": min(last, index + 1), "last": last}
        for verb, step in targets.items():
            at_edge = index == 0 if verb in ("first", "prev") else index == last
            self.add_item(ReplayButton(replay.table_id, replay.hand_no, step, verb, disabled=at_edge))
        if replay.summary.finished:
            self.add_item(ReplayButton(replay.table_id, replay.hand_no, 0, "share"))
        options = [
            discord.SelectOption(label=label, value=value, default=value == str(index))
            for value, label in jump_options(replay, names)
        ]
        self.add_item(ReplaySelect(replay.table_id, replay.hand_no, options))


class ReplayButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pan:r:(?P<table>\d+):(?P<hand>\d+):(?P<step>\d+):(?P<verb>" + "|".join(VERBS) + ")",
):
    def __init__(self, table_id: int, hand_no: int, step: int, verb: str, *, disabled: bool = False) -> None:
        label = NAV.get(verb) or replay_button_label(verb, hand_no)
        style = discord.ButtonStyle.primary if verb in ("share", "open") else discord.ButtonStyle.secondary
        custom_id = f"pan:r:{table_id}:{hand_no}:{step}:{verb}"
        super().__init__(discord.ui.Button(label=label, style=style, disabled=disabled, custom_id=custom_id))
        self.table_id, self.hand_no, self.step, self.verb = table_id, hand_no, step, verb

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReplayButton:
        return cls(int(match["table"]), int(match["hand"]), int(match["step"]), match["verb"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = (str(self.hand_no), str(self.step), self.verb)
        await runtime_of(interaction.client).dispatch(interaction, self.table_id, "replay", values, item=self)


class ReplaySelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"pan:r:(?P<table>\d+):(?P<hand>\d+):jump",
):
    def __init__(self, table_id: int, hand_no: int, options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"pan:r:{table_id}:{hand_no}:jump",
                placeholder=tr(JUMP_PLACEHOLDER),
                options=options or [discord.SelectOption(label="-", value="-")],
            )
        )
        self.table_id, self.hand_no = table_id, hand_no

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReplaySelect:
        return cls(int(match["table"]), int(match["hand"]), list(getattr(item, "options", [])))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        chosen = self.item.values[0] if self.item.values else ""
        values = (str(self.hand_no), chosen, "jump")
        await runtime_of(interaction.client).dispatch(interaction, self.table_id, "replay", values, item=self)


REPLAY_ITEMS = (ReplayButton, ReplaySelect)
"""The dynamic items to register with the bot (old replay buttons keep working after a restart)."""
