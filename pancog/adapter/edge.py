"""The one way out: every payload the bot sends to Discord leaves through this module, and is checked first.

Every message, edit, followup, interaction response, DM, autocomplete answer and thread name goes through a function
here (``tests/test_architecture.py`` fails on a Discord send, edit, followup or ``response.*`` call anywhere else in
the adapter). Each knows its payload's **audience** — everyone (a public channel or thread), one person (an
ephemeral answer, a DM) or a moderator (an answer to a member the caller checked is one) — and what the payload is
**about** (:class:`About`: a table, some of its hands, or no table at all). Before anything leaves, :func:`breach`
checks the whole payload (content, embeds, components and select options, autocomplete choices, attachments' alt
text, text files, and the card faces images show, which the renderer records in them: ``renderer/shown.py``)
against what that audience may know of that table now (``pancog/services/knowledge.py``):

- no seed of a hand the audience may not see in full;
- no card face more often, in one listing, than the audience has legitimately seen copies of it (eight decks: the
  same face can be public and hidden at once, so faces are counted, not just looked for). A listing is a run of
  cards with no word between them (a hand, a meld, the cards of one play); the text a person typed into the
  command he is being answered on counts as known to him.

A payload that breaks the rule is **not sent** (fail closed): it is logged at ERROR with the table, the audience and
the rule, and the person waiting on an answer gets a safe sentence instead (:data:`WITHHELD`). The check is pure
and costs a tenth to a third of a millisecond (``bench/edge.py``); it runs on every payload.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import logging
import re
import time
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands
from discord.enums import InteractionResponseType
from discord.http import handle_message_parameters
from discord.utils import MISSING
from discord.webhook.async_ import async_context, interaction_message_response_params

from pancog.adapter.dm_channels import dm_channels
from pancog.adapter.limits import fit_choices, fitted
from pancog.adapter.presenters.common import WITHHELD
from pancog.adapter.safety import plain, shown
from pancog.game.cards import ALL_CARDS, Card
from pancog.game.cards import EXAMPLES as NOTATION_EXAMPLES
from pancog.game.i18n import tr
from pancog.game.state import TableState
from pancog.services.knowledge import Audience, AudienceKind, KnowledgeService, TableKnowledge
from pancog.services.tables import TableService, TableSession
from renderer.shown import shown_cards

__all__ = [
    "STATIC",
    "About",
    "Breach",
    "Document",
    "Guard",
    "Payload",
    "about",
    "archive_thread",
    "attach",
    "breach",
    "card_listings",
    "choices",
    "defer",
    "delete",
    "delete_followup",
    "delete_original",
    "dm",
    "edit",
    "edit_followup",
    "edit_original",
    "followup",
    "modal",
    "payload_of",
    "post",
    "release",
    "respond",
    "start_thread",
    "unlink",
    "update",
]

log = logging.getLogger("pan.edge")

EVERYONE = Audience.everyone()


# --------------------------------------------------------------------------------------------- what a payload is about


@dataclass(frozen=True, slots=True)
class About:
    """What a payload is about: the table whose hands it may show (``session``), older hands of it it names
    (``hands``: a replay, a history), or nothing of any table (``static``: the guide, the rules, stats). Left out,
    an interaction's answer is about the table in its channel."""

    session: TableSession | None = None
    hands: tuple[int, ...] = ()
    static: bool = False
    # the table as the payload was drawn from it (a board captured for its render, the state a hand ended in), or a
    # closed table's last state from its log; default: the session's state now
    state: TableState | None = None

    @property
    def table(self) -> TableState | None:
        if self.state is not None:
            return self.state
        return self.session.state if self.session is not None else None


STATIC = About(static=True)
"""Bot-written text about no table's hands (the guide's examples, a table's rules): no card in it is anyone's."""


def about(session: TableSession | None, *hands: int, state: TableState | None = None) -> About:
    """A payload about ``session``'s table (and, beyond its current and last hand, the hands ``hands``); ``state``:
    the table as the payload was drawn from it, when that may be older than now (a board waits for its render)."""
    return About(session=session, hands=tuple(hands), state=state)


class Document(discord.File):
    """A text file made of sections, each about one hand of the table (None: about the table as a whole), so each
    section is checked against what its audience may know of that hand (a readable transcript)."""

    __slots__ = ("sections",)

    def __init__(
        self, filename: str, sections: Sequence[tuple[int | None, str]], *, description: str | None = None
    ) -> None:
        self.sections = tuple(sections)
        text = "".join(body for _hand, body in self.sections)
        super().__init__(io.BytesIO(text.encode()), filename=filename, description=description)


# --------------------------------------------------------------------------------------------- the check


@dataclass(slots=True)
class Payload:
    """Everything a payload shows, flattened: texts (each with the hands it is about, None: the payload's) and the
    card faces of each image frame."""

    texts: list[tuple[str, tuple[int, ...] | None]] = field(default_factory=list)
    frames: list[tuple[Card, ...]] = field(default_factory=list)

    def add(self, text: object, hands: tuple[int, ...] | None = None) -> None:
        if isinstance(text, str) and text:
            self.texts.append((text, hands))


@dataclass(frozen=True, slots=True)
class Breach:
    """Why a payload may not go: ``rule`` is ``seed`` or ``card``."""

    rule: str
    detail: str


_BY_TOKEN: dict[str, Card] = {}
for _card in ALL_CARDS:
    _BY_TOKEN[str(_card)] = _card
    _BY_TOKEN[_card.pretty] = _card
CARD_TOKEN = re.compile(r"(?<![0-9A-Za-z])([A2-7JQK])([♣♦♥♠CDHS])(?![0-9A-Za-z])")
"""A card as the bot writes it: ``5♠`` (suit symbol) or ``5S`` (notation, upper case only: ``as`` is a word)."""
_SEPARATOR = re.compile(r"[\s\d,;:·|()\[\]+\-–—]*")
"""What may stand between two cards of one listing: spaces, position numbers and punctuation, never a word or a
full stop (two plays told in two sentences are two listings)."""


def card_listings(text: str) -> Iterator[Counter[Card]]:
    """Each listing of cards in ``text`` (a run of cards with no word or full stop between them), as counts."""
    current: Counter[Card] = Counter()
    end = 0
    for match in CARD_TOKEN.finditer(text):
        if current and not _SEPARATOR.fullmatch(text, end, match.start()):
            yield current
            current = Counter()
        current[_BY_TOKEN[match.group(0)]] += 1
        end = match.end()
    if current:
        yield current


def typed_cards(values: Iterable[str]) -> Counter[Card]:
    """The cards a person typed (any case): they know them, whatever they are."""
    typed: Counter[Card] = Counter()
    for value in values:
        for match in re.finditer(r"(?<![0-9A-Za-z])([A2-7JQKajqk])([♣♦♥♠CDHScdhs])(?![0-9A-Za-z])", value):
            rank, suit = match.group(1).upper(), match.group(2)
            found = _BY_TOKEN.get(rank + (suit.upper() if suit.isalpha() else suit))
            if found is not None:
                typed[found] += 1
    return typed


@functools.lru_cache(maxsize=256)
def _secret(seed: str) -> re.Pattern[str]:
    """Where a seed shows: the number itself (a production seed has about 19 digits), or any ``seed=N``; a short
    test seed alone cannot be told from a chip count, so only its ``seed=`` form counts."""
    if len(seed) >= SEED_DIGITS:
        return re.compile(rf"(?<!\d){seed}(?!\d)")
    return re.compile(rf"seed\s*[=:]\s*{seed}(?!\d)", re.IGNORECASE)


SEED_DIGITS = 6


def _over(listing: Counter[Card], allowed: Counter[Card], echo: Counter[Card]) -> str | None:
    for card, n in listing.items():
        if n > allowed[card] + echo[card]:
            return f"{card.pretty} ×{n} > {allowed[card] + echo[card]}"
    return None


def breach(
    payload: Payload,
    knowledge: TableKnowledge | None,
    *,
    echo: Counter[Card] | None = None,
    names: Iterable[str] = (),
    hands: tuple[int, ...] | None = None,
) -> Breach | None:
    """The first way ``payload`` would show its audience more than ``knowledge`` allows (None: it may go).

    ``echo``: cards the audience typed itself; ``names``: user-chosen names that may look like cards (taken out
    before the cards are counted); ``hands``: the hands the payload is about (None: the current and last)."""
    if knowledge is None:
        return None
    echo = echo if echo is not None else Counter()
    for text, _hands in payload.texts:
        for secret in knowledge.secrets:
            # the digits in the text are what any form of the seed shows, so only then is the pattern searched
            if secret in text and _secret(secret).search(text):
                return Breach("seed", f"{len(secret)} digits")
    wordy = [*(n for n in names if n and CARD_TOKEN.search(n)), *NOTATION_EXAMPLES]
    cache: dict[tuple[int, ...] | None, Counter[Card] | None] = {}

    def allowed_for(scope: tuple[int, ...] | None) -> Counter[Card] | None:
        if scope not in cache:
            cache[scope] = knowledge.allowed(scope)
        return cache[scope]

    for text, scope in payload.texts:
        allowed = allowed_for(scope if scope is not None else hands)
        if allowed is None:
            continue
        for name in wordy:
            text = text.replace(name, " ")
        for listing in card_listings(text):
            over = _over(listing, allowed, echo)
            if over is not None:
                return Breach("card", over)
    allowed = allowed_for(hands)
    if allowed is not None:
        for frame in payload.frames:
            over = _over(Counter(frame), allowed, echo)
            if over is not None:
                return Breach("card", f"image: {over}")
    return None


def _walk(component: Any, payload: Payload) -> None:
    if isinstance(component, dict):
        for key, value in component.items():
            if key not in ("type", "custom_id", "url", "style", "id"):
                _walk(value, payload)
    elif isinstance(component, list | tuple):
        for item in component:
            _walk(item, payload)
    elif isinstance(component, str):
        payload.add(component)


def _view_into(view: discord.ui.View, payload: Payload) -> None:
    """A classic view's words: button labels, select placeholders and options (read from the items: a fifth of
    the cost of ``to_components``, which the check would otherwise pay on every board)."""
    for child in view.children:
        item = getattr(child, "item", child)  # a DynamicItem wraps its button or select
        if isinstance(item, discord.ui.Button):
            payload.add(item.label)
        elif isinstance(item, discord.ui.Select):
            payload.add(item.placeholder)
            for option in item.options:
                payload.add(option.label)
                payload.add(option.description)
                payload.add(option.value)
        else:
            _walk(item.to_component_dict(), payload)


def _file_into(file: discord.File, payload: Payload) -> None:
    payload.add(file.description)
    if isinstance(file, Document):
        for hand, text in file.sections:
            payload.add(text, (hand,) if hand is not None else None)
        return
    fp = file.fp
    data = fp.getvalue() if isinstance(fp, io.BytesIO) else b""
    frames = shown_cards(data)
    if frames is not None:
        payload.frames.extend(frames)
    elif data and not data.startswith((b"\x89PNG", b"GIF8")):
        payload.add(data.decode("utf-8", errors="replace"))


def payload_of(content: str | None = None, **kwargs: Any) -> Payload:
    """Everything a send/edit's ``content`` and keyword arguments show (embeds, views, files, choices, a name)."""
    payload = Payload()
    payload.add(content)
    embeds = [kwargs.get("embed"), *(kwargs.get("embeds") or [])]
    for embed in embeds:
        if isinstance(embed, discord.Embed):
            _walk(embed.to_dict(), payload)
    view = kwargs.get("view")
    if isinstance(view, discord.ui.View):
        _view_into(view, payload)
    elif isinstance(view, discord.ui.LayoutView):  # Components V2: text displays, galleries' alt text, sections
        _walk(view.to_components(), payload)  # type: ignore[no-untyped-call]  # unannotated in discord.py 2.7
    files = [kwargs.get("file"), *(kwargs.get("files") or []), *(kwargs.get("attachments") or [])]
    for file in files:
        if isinstance(file, discord.File):
            _file_into(file, payload)
    for choice in kwargs.get("choices") or ():
        payload.add(getattr(choice, "name", None))
        payload.add(getattr(choice, "value", None))
    payload.add(kwargs.get("name"))
    modal = kwargs.get("modal")
    if isinstance(modal, discord.ui.Modal):
        payload.add(modal.title)
        _walk(modal.to_components(), payload)
    return payload


# --------------------------------------------------------------------------------------------- the guard


NamesAt = Callable[[TableSession | None, int | None], Mapping[int, str]]
"""(a table, else the guild an interaction came from) -> the display names the bot holds for that server."""


@dataclass(eq=False, slots=True)
class Guard:
    """What the edge needs to know to check a payload: the tables, what an audience may know, the names seen."""

    knowledge: KnowledgeService
    tables: TableService
    names: NamesAt

    def knowledge_for(self, about: About, audience: Audience) -> TableKnowledge | None:
        state = about.table
        if about.static or state is None:
            return None
        return self.knowledge.of(state, audience, hands=about.hands)

    def name_forms(self, about: About, users: Iterable[int], guild_id: int | None = None) -> list[str]:
        """The forms user-chosen names take in text (raw, escaped, plain), for the players of the table ``about``
        names and ``users`` (names are per server: the table's, else ``guild_id``'s)."""
        ids = set(users)
        session, state = about.session, about.table
        if session is not None:
            ids.update(session.player_ids())
            ids.add(session.host_id)
        if state is not None:
            ids.update(seat.player_id for seat in state.seats if seat is not None)
        if session is None and guild_id is None:
            return []
        names = self.names(session, guild_id)
        out: list[str] = []
        for user_id in ids:
            name = names.get(user_id)
            if name and CARD_TOKEN.search(name):
                out += [name, shown(name), plain(name)]
        return sorted(set(out), key=len, reverse=True)


_GUARDS: weakref.WeakKeyDictionary[discord.Client, Guard] = weakref.WeakKeyDictionary()


def attach(client: discord.Client, guard: Guard | None) -> None:
    """Make ``guard`` check what ``client`` sends (the composition root; None: forget it)."""
    if guard is None:
        _GUARDS.pop(client, None)
    else:
        _GUARDS[client] = guard


def _guard(client: discord.Client) -> Guard | None:
    return _GUARDS.get(client)


def _echo(interaction: discord.Interaction[Any] | None) -> Counter[Card]:
    if interaction is None:
        return Counter()
    data: Mapping[str, Any] = interaction.data if isinstance(interaction.data, dict) else {}
    values = _option_values(data.get("options"))
    typed: Counter[Card] = Counter()
    for value in values:  # as typed, and as an answer quotes it (control and formatting characters dropped)
        typed += typed_cards([value]) | typed_cards([plain(value, limit=len(value) + 1)])
    return typed


def _option_values(options: Any) -> list[str]:
    """Every string value of a command's options, sub-commands' options included (a loop over a stack, not a
    nested function that calls itself: that one is a cycle, function and cell, left to the garbage collector on
    every payload checked)."""
    values: list[str] = []
    stack = [options]
    while stack:
        for option in stack.pop() or ():
            if isinstance(option, dict):
                if isinstance(option.get("value"), str):
                    values.append(option["value"])
                stack.append(option.get("options"))
    return values


def _withheld(
    client: discord.Client,
    about: About | None,
    audience: Audience,
    payload: Payload,
    *,
    interaction: discord.Interaction[Any] | None = None,
    what: str,
) -> Breach | None:
    """Check a payload; log and return the breach if it may not go."""
    guard = _guard(client)
    if guard is None:
        return None
    if about is None:
        channel = interaction.channel_id if interaction is not None else None
        session = guard.tables.find_in_channel(channel) if channel is not None else None
        about = About(session=session)
    knowledge = guard.knowledge_for(about, audience)
    if knowledge is None:
        return None
    echo = _echo(interaction) if audience.kind is not AudienceKind.EVERYONE else Counter()
    users = [audience.user_id] if audience.user_id is not None else []
    names = guard.name_forms(about, users, interaction.guild_id if interaction is not None else None)
    found = breach(payload, knowledge, echo=echo, names=names, hands=about.hands or None)
    if found is not None:
        log.error(
            "payload withheld (%s): table=%s audience=%s rule=%s: %s",
            what,
            knowledge.table_id,
            audience,
            found.rule,
            found.detail,
        )
    return found


# --------------------------------------------------------------------------------------------- freed at once

# An interaction and a view are each a cycle in discord.py, so without this every click, command and view sent
# would be garbage only the cyclic collector frees, and at 150 actions a second its pauses are the ack's tail
# (docs/performance.md, "Less cyclic garbage"). Both links broken here are discord.py 2.7.1's private attributes
# (``InteractionResponse._parent``, ``Item._view`` and ``_parent``); tests/e2e/test_no_cycles.py fails if an
# interaction, a view or an item of a play is ever left to the collector again.


def unlink(interaction: discord.Interaction[Any]) -> discord.InteractionResponse[Any]:
    """``interaction.response``, made not to point back at ``interaction``: the interaction caches its response and
    the response holds the interaction (``_parent``). The response gets a copy of the interaction without that
    cache as its parent instead: it only reads it (id, token, type, state, session, channel, message, locale) and
    writes nothing to it, and the copy shares every value with the interaction. Idempotent."""
    response = interaction.response
    if response._parent is interaction:
        twin = copy.copy(interaction)
        with contextlib.suppress(AttributeError):
            del twin._cs_response  # type: ignore[attr-defined]  # discord.py's cached_slot_property
        response._parent = twin
    return response


def release(view: discord.ui.View | discord.ui.LayoutView | None) -> None:
    """Break the links between ``view`` and its items (each item points back at its view and its parent), once
    nothing will dispatch through it: a view sent with only dynamic items (:func:`_dispose`), or the view
    discord.py rebuilt from a clicked message for a dynamic item's callback, once the callback ended. The view
    still serializes the same (a retried send may reuse it)."""
    if view is None:
        return
    for item in list(view.walk_children()):
        for part in (item, getattr(item, "item", None)):  # a DynamicItem wraps its button or select
            if isinstance(part, discord.ui.Item):
                part._view = None
                if hasattr(part, "_parent"):
                    part._parent = None


def _kept_open() -> None:
    """What discord.py puts back as a sent in-memory file's ``close`` (see :func:`_dispose`)."""


def _dispose(kwargs: Mapping[str, Any]) -> None:
    """Before a send: a view that discord.py need not keep — no timeout and nothing to dispatch but dynamic items,
    whose clicks find their handler again from the custom_id (the board, the hand panel, a result) — is stopped
    first (so discord.py neither stores it nor starts the 15-minute timer it gives a view on an ephemeral message,
    whose cancelling is garbage too) and released (:func:`release`). An in-memory file (an image) would be a cycle
    once sent: discord.py's ``File.close`` puts the buffer's own bound ``close`` back into the buffer's
    ``__dict__``; it puts a plain function there instead (a buffer it does not own it never closes anyway)."""
    for file in (kwargs.get("file"), *(kwargs.get("files") or ()), *(kwargs.get("attachments") or ())):
        if isinstance(file, discord.File) and not file._owner:
            file._closer = _kept_open
    view = kwargs.get("view")
    if not isinstance(view, discord.ui.View | discord.ui.LayoutView) or view.timeout is not None or view.is_finished():
        return
    for item in view.walk_children():  # as discord.py's ViewStore tells a fully dynamic view
        if not isinstance(item, discord.ui.DynamicItem) and item.is_dispatchable():
            return
    view.stop()
    release(view)


# --------------------------------------------------------------------------------------------- interactions

_THINKING: OrderedDict[int, tuple[bool, float]] = OrderedDict()
"""Interactions deferred with "thinking" whose first followup has not gone yet: (ephemeral, when). Discord makes
that followup replace the loading message, with the defer's visibility whatever the followup asks."""
_ANSWERS: OrderedDict[int, tuple[Audience, float]] = OrderedDict()
"""The audience of each interaction's original response (for edits of it)."""
_TOKEN_LIFE = 15 * 60.0
_REMEMBER = 20_000


def _remember(table: OrderedDict[int, Any], key: int, value: Any) -> None:
    table[key] = value
    table.move_to_end(key)
    now = time.monotonic()
    while table and (len(table) > _REMEMBER or next(iter(table.values()))[1] < now - _TOKEN_LIFE):
        table.popitem(last=False)


def _person(interaction: discord.Interaction[Any], audience: Audience | None) -> Audience:
    """A private answer's audience: the user, or (when the caller checked) the user as a moderator."""
    user = interaction.user.id
    if audience is not None and audience.kind is AudienceKind.MODERATOR and audience.user_id == user:
        return audience
    return Audience.person(user)


def _answer_audience(
    interaction: discord.Interaction[Any], ephemeral: bool, audience: Audience | None, *, consume: bool
) -> Audience:
    """Who sees the next answer on ``interaction`` (a response, or a followup after one)."""
    if unlink(interaction).is_done():
        pending = _THINKING.get(interaction.id)
        if pending is not None:
            ephemeral = pending[0]  # the first followup after a "thinking" defer keeps its visibility
            if consume:
                _THINKING.pop(interaction.id, None)
    return _person(interaction, audience) if ephemeral else EVERYONE


async def defer(interaction: discord.Interaction[Any], *, ephemeral: bool = True, thinking: bool = True) -> None:
    """Acknowledge ``interaction``: "thinking" (its first followup keeps this visibility) or, for a component
    without ``thinking``, a silent update of the clicked message."""
    if thinking:
        _remember(_THINKING, interaction.id, (ephemeral, time.monotonic()))
        await unlink(interaction).defer(ephemeral=ephemeral, thinking=True)
        audience = _person(interaction, None) if ephemeral else EVERYONE
        _remember(_ANSWERS, interaction.id, (audience, time.monotonic()))
    else:
        await unlink(interaction).defer()


def _clicked_audience(interaction: discord.Interaction[Any]) -> Audience:
    message = interaction.message
    return _person(interaction, None) if message is not None and message.flags.ephemeral else EVERYONE


async def respond(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    ephemeral: bool = True,
    about: About | None = None,
    audience: Audience | None = None,
    **kwargs: Any,
) -> discord.abc.Snowflake | None:
    """Answer ``interaction``: its initial response if not given yet, else a followup. Returns the message sent, or
    for an initial response just its id (:func:`_send_answer`; None when Discord did not say).
    Withheld: the safe sentence, privately, instead (and None: what the caller meant to post was not posted)."""
    content, kwargs = fitted(content, **kwargs)
    _dispose(kwargs)
    who = _answer_audience(interaction, ephemeral, audience, consume=False)
    payload = payload_of(content, **kwargs)
    withheld = _withheld(interaction.client, about, who, payload, interaction=interaction, what="answer")
    if withheld:
        content, kwargs, ephemeral = WITHHELD, {}, True
    _answer_audience(interaction, ephemeral, audience, consume=True)
    if unlink(interaction).is_done():
        text = content if content is not None else discord.utils.MISSING
        sent = await interaction.followup.send(text, ephemeral=ephemeral, wait=True, **kwargs)
        return None if withheld else sent
    _remember(_ANSWERS, interaction.id, (who, time.monotonic()))
    message_id = await _send_answer(interaction, content, ephemeral=ephemeral, **kwargs)
    return discord.Object(message_id) if message_id is not None and not withheld else None


async def followup(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    ephemeral: bool = False,
    about: About | None = None,
    **kwargs: Any,
) -> discord.Message | None:
    """A followup on an answered interaction (a public one carries a board, a ping, a hand's result on a token
    not counted against the global limit). Withheld: nothing is sent (None)."""
    content, kwargs = fitted(content, **kwargs)
    _dispose(kwargs)
    who = _answer_audience(interaction, ephemeral, None, consume=False)
    payload = payload_of(content, **kwargs)
    if _withheld(interaction.client, about, who, payload, interaction=interaction, what="followup"):
        return None
    _answer_audience(interaction, ephemeral, None, consume=True)
    text = content if content is not None else discord.utils.MISSING
    return await interaction.followup.send(text, ephemeral=ephemeral, wait=True, **kwargs)


async def edit_followup(
    interaction: discord.Interaction[Any],
    message_id: int,
    *,
    about: About | None = None,
    audience: Audience = EVERYONE,
    **kwargs: Any,
) -> bool:
    """Edit a message the interaction's token posted (``audience``: who sees it). Withheld: not edited (False)."""
    content = kwargs.pop("content", None)
    content, kwargs = fitted(content, **kwargs)
    _dispose(kwargs)
    if _withheld(interaction.client, about, audience, payload_of(content, **kwargs), what="followup edit"):
        return False
    _set_content(kwargs, content)
    await _edit_by_token(interaction, message_id, **kwargs)
    return True


async def update(interaction: discord.Interaction[Any], *, about: About | None = None, **kwargs: Any) -> None:
    """Edit the message whose component was used (the response itself, or an edit after a silent defer).
    Withheld: the message says the safe sentence instead."""
    content = kwargs.pop("content", None)
    content, kwargs = fitted(content, **kwargs)
    _dispose(kwargs)
    who = _clicked_audience(interaction)
    if _withheld(interaction.client, about, who, payload_of(content, **kwargs), interaction=interaction, what="update"):
        content, kwargs = _withheld_edit(kwargs, embed=None)
    _set_content(kwargs, content)
    if unlink(interaction).is_done():
        await interaction.edit_original_response(**kwargs)
    else:
        await interaction.response.edit_message(**kwargs)


async def edit_original(interaction: discord.Interaction[Any], *, about: About | None = None, **kwargs: Any) -> None:
    """Edit the interaction's original response (for as long as its token lives). Withheld: the safe sentence."""
    content = kwargs.pop("content", None)
    content, kwargs = fitted(content, **kwargs)
    _dispose(kwargs)
    known = _ANSWERS.get(interaction.id)
    who = known[0] if known is not None else _clicked_audience(interaction)
    if _withheld(interaction.client, about, who, payload_of(content, **kwargs), interaction=interaction, what="edit"):
        content, kwargs = _withheld_edit(kwargs)
    _set_content(kwargs, content)
    await interaction.edit_original_response(**kwargs)


def _set_content(kwargs: dict[str, Any], content: str | None) -> None:
    """An edit's content: left as it is when None, except under a Components V2 layout, which clears it (a V2
    message has none, and a classic message becomes V2 only with its content cleared)."""
    if content is not None:
        kwargs["content"] = content
    elif isinstance(kwargs.get("view"), discord.ui.LayoutView):
        kwargs["content"] = None


def _withheld_edit(kwargs: dict[str, Any], **cleared: Any) -> tuple[str | None, dict[str, Any]]:
    """What an edit that was withheld says instead: the safe sentence, as content, or as a V2 message's only text
    display when the edit was a V2 layout (a V2 message cannot go back to content)."""
    if isinstance(kwargs.get("view"), discord.ui.LayoutView):
        layout = discord.ui.LayoutView(timeout=None)
        layout.add_item(discord.ui.TextDisplay(tr(WITHHELD)))  # a constant: said in the language of this task
        return None, {"attachments": [], "view": layout}
    return WITHHELD, {"attachments": [], "view": None, **cleared}


async def delete_original(interaction: discord.Interaction[Any]) -> None:
    await interaction.delete_original_response()


async def delete_followup(interaction: discord.Interaction[Any], message_id: int) -> None:
    await interaction.followup.delete_message(message_id)


async def modal(interaction: discord.Interaction[Any], form: discord.ui.Modal, *, about: About | None = None) -> bool:
    """Open a modal for the interaction's user (its title, labels, placeholders and pre-filled values are checked).
    Withheld: the safe sentence, privately, instead (False)."""
    who = _person(interaction, None)
    unlink(interaction)
    if _withheld(interaction.client, about, who, payload_of(modal=form), interaction=interaction, what="modal"):
        await interaction.response.send_message(WITHHELD, ephemeral=True)
        return False
    await interaction.response.send_modal(form)
    return True


def choices(
    interaction: discord.Interaction[Any], found: Iterable[app_commands.Choice[Any]], *, about: About | None = None
) -> list[app_commands.Choice[Any]]:
    """Autocomplete choices for ``interaction``, fitted and checked (withheld: none at all)."""
    fitted_choices = fit_choices(found)
    unlink(interaction)  # discord.py answers with these choices through the response
    who = Audience.person(interaction.user.id)
    payload = payload_of(choices=fitted_choices)
    if _withheld(interaction.client, about, who, payload, interaction=interaction, what="autocomplete"):
        return []
    return fitted_choices


# --------------------------------------------------------------------------------------------- sent lean
#
# An interaction's answer and a token's message edit, sent as discord.py sends them, without building the message
# objects nobody reads. discord.py 2.7 turns the body Discord returns for each into a whole message:
# ``InteractionResponse.send_message`` builds an ``InteractionCallbackResponse`` whose ``resource`` is an
# ``InteractionMessage`` (components, embeds, attachments, author, flags), and ``Webhook.edit_message`` a
# ``WebhookMessage``. The bot reads the id of an answer (a turn ping's, a new board's) and nothing of an edit, and
# sends one of each for nearly every action: building them was ~3.5 % of the main process's CPU (docs/performance.md,
# "Answers and board edits without the message objects"). These do what discord.py's do — the same parameter
# builders, the same request through discord.py's webhook adapter (its rate limits, retries and file rewinds), the
# same view registration — and return the message's id instead; anything else asked for (``tts``, ``delete_after``,
# a poll, a thread…) goes through discord.py itself. They read private attributes of discord.py 2.7.1, which
# requirements.txt pins; tests/e2e/test_lean_transport.py checks what arrives, what is built and what is registered.

_LEAN_ANSWER_KEYS = frozenset({"embed", "embeds", "file", "files", "view", "allowed_mentions"})
_LEAN_EDIT_KEYS = frozenset({"content", "attachments", "embed", "embeds", "view", "allowed_mentions"})
EPHEMERAL_VIEW_TIMEOUT = 15 * 60.0  # what discord.py gives a view on an ephemeral answer that has none


async def _send_answer(
    interaction: discord.Interaction[Any], content: str | None, *, ephemeral: bool, **kwargs: Any
) -> int | None:
    """``interaction.response.send_message(content, ephemeral=ephemeral, **kwargs)``; the id of the message sent
    (None if Discord did not say)."""
    if not _LEAN_ANSWER_KEYS.issuperset(kwargs):
        callback = await interaction.response.send_message(content, ephemeral=ephemeral, **kwargs)
        return callback.message_id
    response = interaction.response
    if response._response_type:
        raise discord.InteractionResponded(interaction)
    parent = response._parent
    flags: discord.MessageFlags = MISSING
    if ephemeral:
        flags = discord.MessageFlags._from_value(0)
        flags.ephemeral = True
    view = kwargs.get("view", MISSING)
    params = interaction_message_response_params(
        type=InteractionResponseType.channel_message.value,
        content=content,
        previous_allowed_mentions=parent._state.allowed_mentions,
        flags=flags,
        **kwargs,
    )
    http = parent._state.http
    data = await async_context.get().create_interaction_response(
        parent.id, parent.token, session=parent._session, proxy=http.proxy, proxy_auth=http.proxy_auth, params=params
    )
    response._response_type = InteractionResponseType.channel_message
    answered = data.get("interaction") if isinstance(data, dict) else None
    message_id = discord.utils._get_as_snowflake(answered, "response_message_id") if answered else None
    if view is not MISSING and view is not None and not view.is_finished():
        if ephemeral and view.timeout is None:
            view.timeout = EPHEMERAL_VIEW_TIMEOUT
        parent._state.store_view(view, message_id)
    return message_id


async def _edit_by_token(interaction: discord.Interaction[Any], message_id: int, **kwargs: Any) -> None:
    """``interaction.followup.edit_message(message_id, **kwargs)``, the edited message not built."""
    webhook = interaction.followup
    if webhook.token is None or not _LEAN_EDIT_KEYS.issuperset(kwargs):
        await webhook.edit_message(message_id, **kwargs)
        return
    view = kwargs.get("view", MISSING)
    state = webhook._state
    with handle_message_parameters(previous_allowed_mentions=getattr(state, "allowed_mentions", None), **kwargs) as p:
        await async_context.get().edit_webhook_message(
            webhook.id,
            webhook.token,
            message_id,
            session=webhook.session,
            proxy=webhook.proxy,
            proxy_auth=webhook.proxy_auth,
            payload=p.payload,
            multipart=p.multipart,
            files=p.files,
            thread_id=None,
            with_components=bool(view),
        )
    if view and not view.is_finished() and view.is_dispatchable():
        state.store_view(view, message_id)


# --------------------------------------------------------------------------------------------- channels and DMs


async def post(
    client: discord.Client, channel: discord.abc.Messageable, content: str | None = None, *, about: About, **kwargs: Any
) -> discord.Message | None:
    """A message in a channel or thread: everyone there sees it. Withheld: nothing is sent (None)."""
    content, kwargs = fitted(content, **kwargs)
    _dispose(kwargs)
    if _withheld(client, about, EVERYONE, payload_of(content, **kwargs), what="channel message"):
        return None
    return await channel.send(content, **kwargs)


async def edit(
    client: discord.Client,
    message: discord.PartialMessage | discord.Message,
    *,
    about: About,
    audience: Audience = EVERYONE,
    **kwargs: Any,
) -> bool:
    """Edit a message the bot posted in a channel. Withheld: left as it was (False)."""
    content = kwargs.pop("content", None)
    content, kwargs = fitted(content, **kwargs)
    _dispose(kwargs)
    if _withheld(client, about, audience, payload_of(content, **kwargs), what="message edit"):
        return False
    _set_content(kwargs, content)
    await message.edit(**kwargs)
    return True


async def delete(message: discord.PartialMessage | discord.Message) -> None:
    await message.delete()


async def dm(
    client: discord.Client, user_id: int, content: str | None = None, *, about: About, **kwargs: Any
) -> discord.Message | None:
    """A DM to one user (raises what discord.py raises: a closed DM is ``Forbidden`` 50007). Withheld: nothing is
    sent (None)."""
    content, kwargs = fitted(content, **kwargs)
    _dispose(kwargs)
    if _withheld(client, about, Audience.person(user_id), payload_of(content, **kwargs), what="DM"):
        return None
    channels = dm_channels(client)  # opened once per person, not once per DM (pancog/adapter/dm_channels.py)
    channel_id = channels.get(user_id)
    if channel_id is not None:
        try:
            return await client.get_partial_messageable(channel_id, type=discord.ChannelType.private).send(
                content, **kwargs
            )
        except discord.NotFound:  # a remembered channel Discord no longer knows: open it again, once
            channels.forget(client, user_id)
            for file in [kwargs.get("file"), *(kwargs.get("files") or ())]:
                if isinstance(file, discord.File):
                    file.reset()
    opened = await client.create_dm(discord.Object(id=user_id))
    channels.remember(user_id, opened.id)
    return await opened.send(content, **kwargs)


async def start_thread(client: discord.Client, channel_id: int, *, name: str, reason: str) -> int:
    """A public thread in ``channel_id`` (its name is public text); returns the thread's id."""
    if _withheld(client, STATIC, EVERYONE, payload_of(name=name), what="thread name"):
        name = "Pan table"
    data = await client.http.start_thread_without_message(
        channel_id,
        name=name,
        auto_archive_duration=1440,
        type=discord.ChannelType.public_thread.value,
        reason=reason,
    )
    return int(data["id"])


async def archive_thread(client: discord.Client, thread_id: int, *, reason: str) -> None:
    await client.http.edit_channel(thread_id, archived=True, locked=True, reason=reason)
