"""The leak oracle: it knows every hidden card and every seed, and checks every payload the fake Discord accepts.

It is written apart from the bot's own check (``pancog/adapter/edge.py`` with ``pancog/services/knowledge.py``)
so that a mistake there is not repeated here:

- **Truth** comes from the table service's events (every deal, every card revealed, every seed), not from the
  table state the bot's check reads. Per hand and per person it counts the distinct copies of each card face that
  person has legitimately seen: everyone, every card turned up, plucked, discarded from a hand or laid from a
  hand; a player, also the ten he was dealt (a card he later laid down is not counted twice); a watcher, also the
  cards the player sharing with him holds while that grant lasts. A moderator may see a finished hand whole, and a
  hand in progress he is not dealt into; the players of a hand, its whole deal once every one of them agreed to
  reveal it.
- **Payloads** are read as the fake received them, at the moment it accepted them (``FakeDiscord.on_accepted``):
  message content, embeds, every string of every component (labels, select options, text displays, alt text),
  autocomplete choices, modal texts, thread names, attachments' alt text, text files, and for images the card
  faces the renderer recorded in them while it drew (``pan:cards``, a PNG text chunk or the GIF comment, read here
  with Pillow). An image without that record is reported: it could not be checked.
- **Who sees it**: a DM, its recipient; an ephemeral message, an autocomplete answer or a modal, the user of the
  interaction; anything else, everyone. A user is a moderator when the fake gives his interactions every
  permission (``Harness.plain_member`` takes them away).
- **The check**: no seed of a hand the audience may not see whole, anywhere; and in each listing of cards (a run of
  cards with no word between them: a hand, a meld, a play) no face more often than the audience has seen copies of
  it, in the hand the text is about (a "hand N" in the text names it; else the hand in progress and the last one).
  Cards the user typed into the interaction being answered count as known to him; the guide's and the table
  rules' fixed texts are taken out first.
"""

from __future__ import annotations

import io
import json
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from pancog.adapter.presenters.guide import GUIDE, GUIDE_INTRO
from pancog.adapter.runtime import PanRuntime
from pancog.game.cards import EXAMPLES as NOTATION_EXAMPLES
from pancog.game.events import (
    CardPlucked,
    CardsDealt,
    Discarded,
    HandEnded,
    HandStarted,
    Melded,
    UpcardTurned,
)
from pancog.game.rules import describe_rules
from pancog.services.tables import Applied
from tests.fakediscord.models import RestCall
from tests.fakediscord.server import FakeDiscord

_SUIT = {"♣": "C", "♦": "D", "♥": "H", "♠": "S", "C": "C", "D": "D", "H": "H", "S": "S"}
CARD = re.compile(r"(?<![0-9A-Za-z])([A2-7JQK])([♣♦♥♠CDHS])(?![0-9A-Za-z])")
TYPED = re.compile(r"(?<![0-9A-Za-z])([A2-7JQKajqk])([♣♦♥♠CDHScdhs])(?![0-9A-Za-z])")
BETWEEN = re.compile(r"[\s\d,;:·|()\[\]+\-–—]*")
HAND_MARK = re.compile(r"\bhand (\d+)\b", re.IGNORECASE)
ANY_DIGITS = re.compile(r"\d{6,}")


def face(rank: str, suit: str) -> str:
    return rank.upper() + _SUIT[suit.upper() if suit.isalpha() else suit]


def listings(text: str) -> Iterator[Counter[str]]:
    """Each run of cards in ``text`` with no word or full stop between them, as counts by face ("5S")."""
    current: Counter[str] = Counter()
    end = 0
    for match in CARD.finditer(text):
        if current and not BETWEEN.fullmatch(text, end, match.start()):
            yield current
            current = Counter()
        current[face(match.group(1), match.group(2))] += 1
        end = match.end()
    if current:
        yield current


# --------------------------------------------------------------------------------------------- truth


@dataclass
class HandTruth:
    """What happened in one hand, card by card, from the table service's events (it sees everything)."""

    table_id: int
    hand_no: int
    seed: int | None
    players: dict[int, int] = field(default_factory=dict)  # seat -> player id
    dealt: dict[int, Counter[str]] = field(default_factory=dict)  # player id -> the ten dealt
    public: Counter[str] = field(default_factory=Counter)  # copies revealed to everyone
    laid: dict[int, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))  # revealed from a hand
    finished: bool = False

    def seen_by(self, user: int) -> Counter[str]:
        """The distinct copies of each face ``user`` has seen in this hand (without what is shared with him)."""
        if user not in self.dealt:
            return Counter(self.public)
        return (self.public - self.laid[user]) + self.dealt[user]


class Truth:
    """A table-service listener: every hand of every table, with its seed and its cards."""

    def __init__(self) -> None:
        self.hands: dict[tuple[int, int], HandTruth] = {}
        self.current: dict[int, int] = {}  # table -> hand number in progress (or last dealt)
        self.seeds: dict[int, set[tuple[int, int]]] = defaultdict(set)  # seed -> (table, hand)
        self.finished = 0
        self.played: set[tuple[int, int]] = set()  # hands where someone drew a card (past the declarations)

    def __call__(self, applied: Applied) -> None:
        table = applied.session.table_id
        for e in applied.events:
            if isinstance(e, HandStarted):
                truth = HandTruth(table, e.hand_no, e.seed)
                for seat in e.dealt:
                    s = applied.state.seat(seat)
                    truth.players[seat] = s.player_id if s is not None else 0
                self.hands[(table, e.hand_no)] = truth
                self.current[table] = e.hand_no
                if e.seed is not None:
                    self.seeds[e.seed].add((table, e.hand_no))
                continue
            truth = self.hands.get((table, self.current.get(table, -1)))
            if truth is None:
                continue
            match e:
                case CardsDealt():
                    truth.dealt[truth.players.get(e.seat, 0)] = Counter(str(c) for c in e.cards)
                case UpcardTurned() | CardPlucked():
                    truth.public[str(e.card)] += 1
                    if isinstance(e, CardPlucked):
                        self.played.add((table, truth.hand_no))
                case Melded():
                    who = truth.players.get(e.seat, 0)
                    for c in e.cards:  # from the hand (the drawn card was public already)
                        truth.public[str(c)] += 1
                        truth.laid[who][str(c)] += 1
                case Discarded() if not e.pluck:  # from the hand (an unused pluck was public already)
                    who = truth.players.get(e.seat, 0)
                    truth.public[str(e.card)] += 1
                    truth.laid[who][str(e.card)] += 1
                case HandEnded():
                    truth.finished = True
                    self.finished += 1
                case _:
                    pass

    def tables(self) -> set[int]:
        return {t for t, _ in self.hands}

    def table_hands(self, table: int) -> list[HandTruth]:
        return sorted((h for (t, _), h in self.hands.items() if t == table), key=lambda h: h.hand_no)


# --------------------------------------------------------------------------------------------- payloads


@dataclass(frozen=True)
class Leak:
    route: str
    audience: str
    rule: str
    detail: str
    excerpt: str

    def __str__(self) -> str:
        return f"{self.rule} to {self.audience} via {self.route}: {self.detail} — {self.excerpt!r}"


@dataclass
class Shown:
    """Everything one REST call shows: its texts and the faces of each image frame."""

    texts: list[str] = field(default_factory=list)
    frames: list[Counter[str]] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # images without the renderer's record


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in ("custom_id", "url", "proxy_url", "type", "id", "style", "filename", "content_type"):
                _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)
    elif isinstance(value, str):
        out.append(value)


def _image_faces(data: bytes) -> list[Counter[str]] | None:
    with Image.open(io.BytesIO(data)) as im:  # the chunks before the pixels: nothing is decoded
        if im.format == "PNG":
            record = im.info.get("pan:cards")
            return None if record is None else [Counter(str(record).split())]
        comment = im.info.get("comment", b"")
    text = comment.decode("latin-1") if isinstance(comment, bytes) else str(comment)
    if not text.startswith("pan:cards"):
        return None
    return [Counter(part.split()) for part in text[len("pan:cards") :].split("|")]


def shown_by(call: RestCall) -> Shown:
    shown = Shown()
    payload = call.payload or {}
    data = payload.get("data") if isinstance(payload.get("data"), dict) else payload
    _strings(data, shown.texts)
    for file in call.files:
        if file.data.startswith((b"\x89PNG", b"GIF8")):
            faces = _image_faces(file.data)
            if faces is None:
                shown.unreadable.append(file.filename)
            else:
                shown.frames.extend(faces)
        else:
            shown.texts.append(file.data.decode("utf-8", errors="replace"))
    return shown


# --------------------------------------------------------------------------------------------- the oracle


class Oracle:
    """Subscribe it to the tables and the fake; ``leaks`` lists every payload that told someone too much."""

    def __init__(self, fake: FakeDiscord, rt: PanRuntime, *, moderators: Iterable[int] = ()) -> None:
        self.fake = fake
        self.rt = rt
        self.truth = Truth()
        self.leaks: list[Leak] = []
        self.checked = 0
        self.images = 0
        self.listings = 0
        self.moderators = set(moderators)  # users whose interactions carry every permission
        self.channels: dict[int, int] = {}  # table -> its channel (kept after it closes)
        self._allowed: dict[tuple[tuple[int, ...], int | None, frozenset[int] | None], Counter[str] | None] = {}
        self.statics = [GUIDE_INTRO, *(text for _key, _title, text in GUIDE), *NOTATION_EXAMPLES]
        rt.tables.subscribe(self.truth)
        fake.on_accepted.append(self.check)

    def close(self) -> None:
        self.rt.tables.unsubscribe(self.truth)
        if self.check in self.fake.on_accepted:
            self.fake.on_accepted.remove(self.check)

    # -- who and what
    def audience(self, call: RestCall) -> int | None:
        """The one user who sees what the call sent (None: everyone in the channel)."""
        channel = self.fake.channels.get(call.channel_id) if call.channel_id is not None else None
        if channel is not None and channel.type == 1:
            return channel.recipient_id
        interaction = self.fake.interactions.get(call.interaction_id or 0)
        payload = call.payload or {}
        if interaction is not None and payload.get("type") in (8, 9):  # autocomplete, modal: that user only
            return interaction.user_id
        if call.ephemeral:
            return interaction.user_id if interaction is not None else -1
        return None

    def typed(self, call: RestCall, user: int | None) -> Counter[str]:
        interaction = self.fake.interactions.get(call.interaction_id or 0)
        if interaction is None or user is None or interaction.user_id != user:
            return Counter()
        values: list[str] = []

        def collect(options: Any) -> None:
            for option in options or ():
                if isinstance(option, dict):
                    if isinstance(option.get("value"), str):
                        values.append(option["value"])
                    collect(option.get("options"))

        collect(interaction.data.get("options"))
        typed: Counter[str] = Counter()
        for value in values:  # as typed, and as quoted back (formatting characters dropped, spaces collapsed)
            bare = re.sub(r"\s+", " ", "".join(ch for ch in value if unicodedata.category(ch) not in ("Cf", "Cc")))
            typed += Counter(face(r, s) for r, s in TYPED.findall(value)) | Counter(
                face(r, s) for r, s in TYPED.findall(bare)
            )
        return typed

    def tables_of(self, call: RestCall) -> list[int]:
        """The tables a call may be about: its channel's, else every table (a DM names none)."""
        interaction = self.fake.interactions.get(call.interaction_id or 0)
        channel = interaction.channel_id if interaction is not None else call.channel_id
        found = [h.table_id for h in self.truth.hands.values() if self._channel(h.table_id) == channel]
        return sorted(set(found)) or sorted(self.truth.tables())

    def _channel(self, table_id: int) -> int | None:
        try:
            return self.rt.tables.get(table_id).channel_id
        except Exception:
            return self.channels.get(table_id)

    def remember_channels(self) -> None:
        """Note each open table's channel (a table that closes later keeps its channel here)."""
        for session in self.rt.tables.sessions:
            self.channels[session.table_id] = session.channel_id

    # -- knowledge
    def whole(self, hand: HandTruth, user: int | None) -> bool:
        """Whether ``user`` may see ``hand`` whole (its seed included)."""
        if user is None:
            return False
        if user in self.moderators and (hand.finished or user not in hand.dealt):
            return True
        reveals = self.rt.reveals
        return hand.finished and reveals is not None and user in reveals.revealed_to(hand.table_id, hand.hand_no)

    def known(self, hand: HandTruth, user: int | None) -> Counter[str] | None:
        """What ``user`` (None: everyone) may know of ``hand``; None: all of it."""
        if user is None:
            return hand.public
        if self.whole(hand, user):
            return None
        seen = hand.seen_by(user)
        if not hand.finished and self.rt.watch is not None:
            for grant in self.rt.watch.watching(hand.table_id, user):
                seen += self._holding(hand, grant.player_id)
        return seen

    def _holding(self, hand: HandTruth, player: int) -> Counter[str]:
        try:
            state = self.rt.tables.get(hand.table_id).state
        except Exception:
            return Counter()
        live = state.hand
        if live is None or live.hand_no != hand.hand_no:
            return Counter()
        seat = next((s for s, p in hand.players.items() if p == player), None)
        held = live.players[seat] if seat is not None and seat < len(live.players) else None
        return Counter(str(c) for c in held.hand) if held is not None else Counter()

    def allowed(self, tables: list[int], user: int | None, scope: set[int] | None) -> Counter[str] | None:
        """The most of each face ``user`` may see at once in a listing about ``scope`` (None: the hand in progress
        and the last one) of ``tables`` (kept for the call being checked: the world does not move meanwhile)."""
        key = (tuple(tables), user, frozenset(scope) if scope else None)
        if key not in self._allowed:
            self._allowed[key] = self._allowed_now(tables, user, scope)
        return self._allowed[key]

    def _allowed_now(self, tables: list[int], user: int | None, scope: set[int] | None) -> Counter[str] | None:
        best: Counter[str] = Counter()
        for table in tables:
            hands = self.truth.table_hands(table)
            chosen = [h for h in hands if h.hand_no in scope] if scope else []
            for hand in chosen or hands[-2:]:
                known = self.known(hand, user)
                if known is None:
                    return None
                best |= known
        return best

    def secrets(self, tables: list[int], user: int | None) -> list[str]:
        out = []
        for table in tables:
            for hand in self.truth.table_hands(table):
                if hand.seed is not None and not self.whole(hand, user):
                    out.append(str(hand.seed))
        return out

    # -- the check
    def check(self, call: RestCall) -> None:
        try:
            self._check(call)
        except Exception as exc:  # never break the fake's request: report it as a failure of the oracle
            self.leaks.append(Leak(call.route, "?", "oracle-error", repr(exc), ""))

    def _check(self, call: RestCall) -> None:
        if call.method not in ("POST", "PATCH", "PUT") or not self.truth.hands:
            return
        self.remember_channels()
        self._allowed = {}
        shown = shown_by(call)
        if not shown.texts and not shown.frames and not shown.unreadable:
            return
        self.checked += 1
        user = self.audience(call)
        who = "everyone" if user is None else f"user {user}"
        tables = self.tables_of(call)
        for name in shown.unreadable:
            self.leaks.append(Leak(call.route, who, "unchecked-image", f"{name} has no card record", ""))
        typed = self.typed(call, user)
        secrets = self.secrets(tables, user)
        statics = list(self.statics)
        for table in tables:
            session = next((s for s in self.rt.tables.sessions if s.table_id == table), None)
            if session is not None:
                statics += describe_rules(session.rules)
        texts = []
        for text in shown.texts:
            for static in statics:
                if static and static in text:
                    text = text.replace(static, " ")
            texts.append(text)
        marks = {int(n) for text in texts for n in HAND_MARK.findall(text)}
        unmarked = (marks | self._recent(tables)) if marks else None  # a label of a message about hand N
        for text in texts:
            for seed in secrets:
                shows = re.search(rf"(?<!\d){seed}(?!\d)", text) if len(seed) >= 6 else f"seed={seed}" in text
                if shows:
                    self.leaks.append(Leak(call.route, who, "seed", f"seed {seed}", _around(text, seed)))
            for section, scope in _sections(text, unmarked):
                allowed = self.allowed(tables, user, scope)
                if allowed is None:
                    continue
                for listing in listings(section):
                    self.listings += 1
                    over = _over(listing, allowed, typed)
                    if over is not None:
                        self.leaks.append(Leak(call.route, who, "card", over, section[:300]))
        if shown.frames:
            self.images += 1
            allowed = self.allowed(tables, user, unmarked)
            for frame in shown.frames:
                if allowed is None:
                    break
                over = _over(frame, allowed, typed)
                if over is not None:
                    self.leaks.append(Leak(call.route, who, "card", f"an image shows {over}", json.dumps(frame)))

    def _recent(self, tables: list[int]) -> set[int]:
        return {h.hand_no for t in tables for h in self.truth.table_hands(t)[-2:]}


def _sections(text: str, before: set[int] | None) -> list[tuple[str, set[int] | None]]:
    """``text`` cut at each "hand N": the part before the first about ``before`` (None: the current hands), each
    part after one about hand N."""
    parts: list[tuple[str, set[int] | None]] = []
    last, scope = 0, before
    for match in HAND_MARK.finditer(text):
        parts.append((text[last : match.start()], scope))
        last, scope = match.start(), {int(match.group(1))}
    parts.append((text[last:], scope))
    return [(t, s) for t, s in parts if t]


def _over(listing: Counter[str], allowed: Counter[str], typed: Counter[str]) -> str | None:
    for card, n in listing.items():
        if n > allowed[card] + typed[card]:
            return f"{card} ×{n}, may know {allowed[card] + typed[card]}"
    return None


def _around(text: str, needle: str) -> str:
    at = text.find(needle)
    return text[max(0, at - 60) : at + len(needle) + 20]
