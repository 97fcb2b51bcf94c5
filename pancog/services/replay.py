"""Hand replays and the hand history, rebuilt from a table's durable action log (no discord import).

A table's log (:meth:`pancog.services.store.TableStore.read_log`) is the action notation of every change since the table
opened. :class:`ReplayService` replays it through the engine once per table (then only the new tail) and keeps,
per hand, the table state just before the deal and the hand's actions: enough to list recent hands
(:meth:`ReplayService.history`) and to rebuild any one of them step by step (:meth:`ReplayService.replay`).

**Privacy by construction.** A :class:`ReplayStep` never holds an engine ``TableState`` (which knows every hand
and the stock). It holds what a stranger may see — the engine's own observation for a non-seat
(:func:`pancog.game.engine.observe` with ``seat=-1``: melds, counts, the face-up card, stacks, tops) — plus the
viewer's *own* cards when the viewer was dealt into that hand, and only the events visible to the viewer's seat
(the deal's ``seed`` is scrubbed: it would reveal the whole shoe). Whatever presents a step
(``pancog/adapter/presenters/replay.py``) therefore cannot show another player's hidden cards: they are not there.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from pancog.game import engine
from pancog.game.actions import Action, StartHand
from pancog.game.cards import Card
from pancog.game.engine import Observation
from pancog.game.errors import PanError
from pancog.game.events import CardsDealt, Event, HandEnded, HandStarted
from pancog.game.i18n import N_
from pancog.game.notation import dump_transcript, format_action, format_rules, parse_action
from pancog.game.rules import Rules
from pancog.game.state import DrawSource, HandState, Seat, TableState, initial_state
from pancog.infra.storage.base import BankScope
from pancog.services.chips import HandChips, HandResult
from pancog.services.store import TableStore
from pancog.services.tables import NoTableHere, TableClosed, TableConfig

__all__ = [
    "PUBLIC_VIEWER",
    "HandNotFound",
    "HandRecord",
    "HandReplay",
    "HandSummary",
    "ReplayService",
    "ReplayStep",
    "TableLog",
    "build_replay",
    "dealt_hands",
]

STRANGER = -1
"""The seat index a viewer without a seat in the hand is observed as (sees the public board only)."""
PUBLIC_VIEWER = 0
"""A viewer id no player has (Discord ids are positive, computer players negative): a replay for everyone."""


class HandNotFound(PanError):
    code = "hand_not_found"

    def __init__(self, hand_no: int | None) -> None:
        if hand_no is None:
            super().__init__(N_("No hand has been dealt at this table yet."))
        else:
            super().__init__(N_("There is no hand {n} at this table. /pan history lists the recent hands."), n=hand_no)
        self.hand_no = hand_no


# --------------------------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSummary:
    """One hand of a table's log, as the history lists it (public facts only)."""

    hand_no: int
    first_seq: int  # the deal's seq
    last_seq: int  # the seq that ended the hand (or the latest one, while it is in progress)
    dealt: tuple[int, ...]  # player ids dealt in, in rotation from the first hand
    ended: HandEnded | None  # None: still in progress
    winner_id: int | None
    splitter_ids: tuple[int, ...] = ()
    actions: int = 0  # actions in the hand, the deal included
    # a finished hand's chips per player (pancog.services.chips: from the same postings mapping the table service
    # commits): every chip figure shown for the hand comes from here
    result: HandResult | None = None

    @property
    def finished(self) -> bool:
        return self.ended is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayStep:
    """The board after one action of a hand, as one viewer may see it.

    ``board`` is a stranger's observation (public only); ``own`` the viewer's own cards (empty unless the viewer
    was dealt in); ``events`` the events the viewer's seat may see (public ones, plus the viewer's own deal).
    ``seats_before`` / ``seats_after`` are the public seats (ids, stacks, doubles, away) for naming.
    """

    index: int  # 0-based; step 0 is the deal
    seq: int
    actor: int | None  # the acting seat (None: a table action such as the deal or a floor foul)
    board: Observation
    own: tuple[Card, ...]
    events: tuple[Event, ...]
    seats_before: tuple[Seat | None, ...]
    seats_after: tuple[Seat | None, ...]
    # public facts the observation does not carry: how many cards the discard pile holds, and how the face-up
    # card in play came (plucked from the stock, taken as the option, forced on the player)
    muck_count: int = 0
    in_play_source: DrawSource | None = None

    @property
    def ended(self) -> HandEnded | None:
        return next((e for e in self.events if isinstance(e, HandEnded)), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class HandReplay:
    """One hand, step by step, for one viewer (``viewer_seat`` None: a stranger to that hand)."""

    table_id: int
    title: str
    summary: HandSummary
    viewer_id: int
    viewer_seat: int | None
    steps: tuple[ReplayStep, ...]

    @property
    def hand_no(self) -> int:
        return self.summary.hand_no

    @property
    def result(self) -> HandResult | None:
        """The hand's chip result (None while it is in progress)."""
        return self.summary.result


@dataclass(slots=True, kw_only=True)
class _Hand:
    summary: HandSummary
    start: TableState  # the table just before the deal
    actions: list[tuple[int, Action]]  # (seq, action), the deal first
    players: dict[int, int] = dataclasses.field(default_factory=dict)  # seat -> player id, as dealt
    end: HandState | None = None  # the finished hand (its melds, discards and every hand as they ended)


@dataclass(slots=True)
class TableLog:
    """A table's log, replayed: every hand's starting state and actions. Extended in place as the log grows."""

    table_id: int
    title: str
    rules: Rules
    state: TableState  # after ``last_seq``
    last_seq: int = 0
    hands: list[_Hand] = dataclasses.field(default_factory=list)
    bank_scope: BankScope | int = 0  # the ledger scope of the table's banks (what its buy-ins and cash-outs post to)
    chips: HandChips = dataclasses.field(init=False)  # the hands' chips, folded as the log is replayed

    def __post_init__(self) -> None:
        self.chips = HandChips(self.table_id, self.bank_scope)

    def extend(self, rows: Sequence[tuple[int, str, str]]) -> None:
        """Apply the log rows after ``last_seq`` (``(seq, action, events)`` from the store)."""
        for seq, text, _events in rows:
            if seq <= self.last_seq:
                continue
            action = parse_action(text)
            before = self.state
            transition = engine.apply(before, action)
            after = transition.state
            result = self.chips.feed(before, transition.events, after)
            if isinstance(action, StartHand):
                started = next(e for e in transition.events if isinstance(e, HandStarted))
                dealt = tuple(_player_id(after, s) for s in started.dealt)
                summary = HandSummary(
                    hand_no=started.hand_no,
                    first_seq=seq,
                    last_seq=seq,
                    dealt=dealt,
                    ended=None,
                    winner_id=None,
                    actions=1,
                )
                players = {s: _player_id(after, s) for s in started.dealt}
                self.hands.append(_Hand(summary=summary, start=before, actions=[(seq, action)], players=players))
            elif self.hands and self.hands[-1].summary.ended is None and before.hand is not None:
                current = self.hands[-1]
                summary = dataclasses.replace(current.summary, last_seq=seq, actions=current.summary.actions + 1)
                ended = next((e for e in transition.events if isinstance(e, HandEnded)), None)
                if ended is not None:
                    summary = _with_result(summary, ended, before, after, result)
                    current.end = after.last_hand
                current.summary = summary
                current.actions.append((seq, action))
            self.state = after
            self.last_seq = seq

    def find(self, hand_no: int) -> _Hand:
        for hand in self.hands:
            if hand.summary.hand_no == hand_no:
                return hand
        raise HandNotFound(hand_no)


def _player_id(state: TableState, seat: int) -> int:
    s = state.seat(seat)
    return s.player_id if s is not None else 0


def _with_result(
    summary: HandSummary, ended: HandEnded, before: TableState, after: TableState, result: HandResult | None
) -> HandSummary:
    def who(seat: int) -> int:
        s = before.seat(seat) or after.seat(seat)
        return s.player_id if s is not None else 0

    return dataclasses.replace(
        summary,
        ended=ended,
        winner_id=who(ended.winner) if ended.winner is not None else None,
        splitter_ids=tuple(who(s) for s in ended.splitters),
        result=result,
    )


# --------------------------------------------------------------------------------------------- steps


def _in_play_source(state: TableState) -> DrawSource | None:
    turn = state.hand.turn if state.hand is not None else None
    return turn.source if turn is not None and turn.drawn is not None else None


def _public_seats(state: TableState) -> tuple[Seat | None, ...]:
    return state.seats  # Seat holds only public facts: player id, stack, doubles, away, leaving


def _board(state: TableState) -> Observation:
    """What a stranger sees: between hands, the finished hand's board (melds and counts, never the cards)."""
    if state.hand is None and state.last_hand is not None:
        state = dataclasses.replace(state, hand=state.last_hand)
    return engine.observe(state, STRANGER)


def _own(state: TableState, seat: int | None) -> tuple[Card, ...]:
    if seat is None:
        return ()
    hand = state.hand if state.hand is not None else state.last_hand
    if hand is None or not 0 <= seat < len(hand.players):
        return ()
    player = hand.players[seat]
    return player.hand if player is not None else ()


def _visible(events: Sequence[Event], seat: int | None) -> tuple[Event, ...]:
    out: list[Event] = []
    for e in events:
        if not e.visible_to(seat):
            continue
        if isinstance(e, HandStarted) and e.seed is not None:
            e = dataclasses.replace(e, seed=None)  # the seed would reveal every card of the shoe
        out.append(e)
    return tuple(out)


def _actor(action: Action) -> int | None:
    seat = getattr(action, "seat", None)
    return seat if isinstance(seat, int) else None


def build_replay(log: TableLog, hand_no: int, viewer_id: int) -> HandReplay:
    """The steps of hand ``hand_no`` as ``viewer_id`` may see them (CPU work: run it in a thread).

    Raises:
        HandNotFound: no such hand in the log.
    """
    hand = log.find(hand_no)
    state = hand.start
    steps: list[ReplayStep] = []
    seat: int | None = None
    for index, (seq, action) in enumerate(tuple(hand.actions)):  # a copy: the log may grow meanwhile
        transition = engine.apply(state, action)
        after = transition.state
        if index == 0 and viewer_id in hand.summary.dealt:
            started = next(e for e in transition.events if isinstance(e, HandStarted))
            seat = next(s for s in started.dealt if _player_id(after, s) == viewer_id)
        steps.append(
            ReplayStep(
                index=index,
                seq=seq,
                actor=_actor(action),
                board=_board(after),
                own=_own(after, seat),
                events=_visible(transition.events, seat),
                seats_before=_public_seats(state),
                seats_after=_public_seats(after),
                muck_count=len(after.hand.muck) if after.hand is not None else 0,
                in_play_source=_in_play_source(after),
            )
        )
        state = after
    return HandReplay(
        table_id=log.table_id,
        title=log.title,
        summary=hand.summary,
        viewer_id=viewer_id,
        viewer_seat=seat,
        steps=tuple(steps),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class HandRecord:
    """One hand of a readable transcript as one viewer may know it: the viewer's replay (public steps, his own
    cards), the commit time of each step (Unix seconds; None if unknown), and ``dealt`` — every player's dealt
    cards by player id — only when the viewer may see the whole deal (None otherwise)."""

    replay: HandReplay
    times: tuple[float | None, ...]
    dealt: Mapping[int, tuple[Card, ...]] | None = None


def dealt_hands(log: TableLog, hand_no: int) -> dict[int, tuple[Card, ...]]:
    """FULL DEAL: every player's ten cards as hand ``hand_no`` was dealt (player id -> cards).

    Raises:
        HandNotFound.
    """
    hand = log.find(hand_no)
    _seq, deal = hand.actions[0]
    transition = engine.apply(hand.start, deal)
    return {hand.players.get(e.seat, 0): e.cards for e in transition.events if isinstance(e, CardsDealt)}


# --------------------------------------------------------------------------------------------- the service


class ReplayService:
    """Recent hands and hand replays of any table (open or closed), from its durable log.

    Keeps the replayed logs of the ``cache_tables`` most recently used tables and reads only the log's new tail
    on each request, so a replay at a long session costs one pass over the log the first time only.
    """

    def __init__(self, store: TableStore, *, cache_tables: int = 16) -> None:
        self.store = store
        self._cache: OrderedDict[int, TableLog] = OrderedDict()
        self._cache_tables = cache_tables
        self._locks: dict[int, asyncio.Lock] = {}

    async def log(self, table_id: int) -> TableLog:
        """The table's replayed log, up to its last committed action.

        Raises:
            NoTableHere: no table with that id was ever opened.
        """
        lock = self._locks.setdefault(table_id, asyncio.Lock())
        async with lock:
            cached = self._cache.get(table_id)
            if cached is None:
                row = await self.store.get_table(table_id)
                if row is None:
                    raise NoTableHere
                config = TableConfig.from_json(row.config)
                rules = config.rules()
                cached = TableLog(
                    table_id=table_id,
                    title=config.title,
                    rules=rules,
                    state=initial_state(rules, table_id=table_id),
                    bank_scope=row.bank_scope,
                )
            rows = await self.store.read_log(table_id, cached.last_seq)
            if rows:
                await asyncio.to_thread(cached.extend, rows)
            self._cache[table_id] = cached
            self._cache.move_to_end(table_id)
            while len(self._cache) > self._cache_tables:
                old, _ = self._cache.popitem(last=False)
                self._locks.pop(old, None)
            return cached

    def table_closed(self, closed: TableClosed) -> None:
        """A table closed (``TableService.on_close``): its replayed log leaves the cache (a later replay of one of
        its hands reads the log again)."""
        self._cache.pop(closed.table_id, None)

    async def history(self, table_id: int, *, limit: int = 10) -> list[HandSummary]:
        """The last ``limit`` hands dealt at the table, oldest first (the last one may be in progress)."""
        log = await self.log(table_id)
        return [h.summary for h in log.hands[-limit:]]

    async def result(self, table_id: int, hand_no: int) -> HandResult | None:
        """Hand ``hand_no``'s chips per player (None while it is in progress), from the table's log.

        Raises:
            NoTableHere, HandNotFound.
        """
        log = await self.log(table_id)
        return log.find(hand_no).summary.result

    async def transcript(self, table_id: int, *, before_hand: int | None = None) -> str:
        """The table's log as a replayable transcript (``pancog.game.notation``: rules line, one action a line), up
        to the deal of hand ``before_hand`` if given. FULL DEAL (every ``start seed=…``): for moderators only.

        Raises:
            NoTableHere.
        """
        return "".join(text for _hand, text in await self.transcript_sections(table_id, before_hand=before_hand))

    async def transcript_sections(
        self, table_id: int, *, before_hand: int | None = None
    ) -> list[tuple[int | None, str]]:
        """:meth:`transcript` cut where the hands are: (hand number, its lines) for the actions of a hand, (None,
        lines) for the rules line and what happens between hands (sitting down, leaving). Joined, the transcript.

        Raises:
            NoTableHere.
        """
        log = await self.log(table_id)
        rows = await self.store.read_log(table_id)
        if before_hand is not None:
            cut = next((h.summary.first_seq for h in log.hands if h.summary.hand_no == before_hand), None)
            if cut is not None:
                rows = [row for row in rows if row[0] < cut]
        spans = [(h.summary.first_seq, h.summary.last_seq, h.summary.hand_no) for h in log.hands]
        sections: list[tuple[int | None, str]] = [(None, format_rules(log.rules) + "\n")]
        for seq, text, _events in rows:
            hand_no = next((n for first, last, n in spans if first <= seq <= last), None)
            line = format_action(parse_action(text)) + "\n"
            if sections[-1][0] == hand_no:
                sections[-1] = (hand_no, sections[-1][1] + line)
            else:
                sections.append((hand_no, line))
        return sections

    def cached_state(self, table_id: int) -> TableState | None:
        """The table as its cached log ends (None: not cached)."""
        log = self._cache.get(table_id)
        return log.state if log is not None else None

    def past_hands(self, table_id: int, hand_nos: Collection[int]) -> list[tuple[HandState, dict[int, int]]]:
        """The finished hands ``hand_nos`` of a table whose log is cached (final state, seat -> player id): what the
        knowledge service needs of older hands, without I/O (a hand not cached or not finished is left out)."""
        log = self._cache.get(table_id)
        if log is None:
            return []
        wanted = set(hand_nos)
        return [(h.end, dict(h.players)) for h in log.hands if h.end is not None and h.summary.hand_no in wanted]

    async def hand_notation(self, table_id: int, hand_no: int) -> str:
        """One hand's machine notation: the rules line, then the hand's actions from its deal (the seed included)
        to its end. FULL DEAL: for moderators and for the players of a revealed hand only.

        Raises:
            NoTableHere, HandNotFound.
        """
        log = await self.log(table_id)
        hand = log.find(hand_no)
        header = f"# table {table_id}, hand {hand_no} (seq {hand.summary.first_seq}-{hand.summary.last_seq})"
        return header + "\n" + dump_transcript(log.rules, [a for _seq, a in hand.actions])

    async def records(
        self, table_id: int, viewer_id: int, *, full: Callable[[int], bool] = lambda _hand_no: False
    ) -> tuple[TableLog, list[HandRecord]]:
        """Every hand of the table as ``viewer_id`` may know it (public play, his own cards; the whole deal of the
        hands ``full(hand_no)`` allows), with the time of each action: a readable transcript's material.

        Raises:
            NoTableHere.
        """
        log = await self.log(table_id)
        times = dict(await self.store.read_log_times(table_id))
        hands = [h.summary.hand_no for h in log.hands]
        deals = {n: full(n) for n in hands}

        def build() -> list[HandRecord]:
            out = []
            for hand_no in hands:
                replay = build_replay(log, hand_no, viewer_id)
                dealt = dealt_hands(log, hand_no) if deals[hand_no] else None
                when = tuple(times.get(step.seq) for step in replay.steps)
                out.append(HandRecord(replay=replay, times=when, dealt=dealt))
            return out

        return log, await asyncio.to_thread(build)

    async def replay(self, table_id: int, viewer_id: int, hand_no: int | None = None) -> HandReplay:
        """Hand ``hand_no`` (default: the viewer's last hand here, else the table's last hand) for ``viewer_id``.

        Raises:
            NoTableHere, HandNotFound.
        """
        log = await self.log(table_id)
        if hand_no is None:
            hand_no = default_hand(log, viewer_id)
        return await asyncio.to_thread(build_replay, log, hand_no, viewer_id)


def default_hand(log: TableLog, viewer_id: int) -> int:
    """The viewer's last hand at the table (finished or not), else the table's last hand.

    Raises:
        HandNotFound: nothing was dealt yet.
    """
    for hand in reversed(log.hands):
        if viewer_id in hand.summary.dealt:
            return hand.summary.hand_no
    if not log.hands:
        raise HandNotFound(None)
    return log.hands[-1].summary.hand_no
