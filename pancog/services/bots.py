"""Computer players at tables: the driver that plays computer seats through the TableService.

No discord imports. The :class:`BotDriver` subscribes to :class:`~pancog.services.tables.TableService`; after every
committed action it looks at the table and, for a **computer seat** (``player_id < 0``):

* **in turn** (``engine.to_act`` is a computer seat): after a human-pace ``delay`` it computes
  ``observe(state, seat)`` -> ``player.choose(obs, choices(obs), rng)`` and applies it through
  ``TableService.act`` — the same path as people;
* **out of turn**: every computer seat with ``reactions(observe(...))`` (an option card or a force-back to force,
  a split offer to answer) is asked once per table state; a reaction that is not a pass is applied after the delay;
* **practice tables**: between hands it tops up computer stacks that fell below the minimum buy-in (practice
  chips) and deals the next hand after ``next_hand_delay`` while a person is seated and present.

A table is never wedged by a computer seat: a decision computed for a state that has since changed is dropped
(``StaleAction`` inside the table lock) and recomputed; an exception in a player is logged and the seat falls back
to ``Timeout(seat)`` via ``system_act(expect_seq=...)``; a table where even that fails is left to the turn clock.
The rng of every decision is seeded by ``table:hand:seat:seq``, so play is reproducible and a restart
(``TableService.load`` then :meth:`BotDriver.start`) resumes exactly the pending computer turns.

Player ids encode the level: ``-(1000 * code + n)`` (easy 1, normal 2, hard 3, random 4), so a seat's level and
name (``🤖 Normal bot 1``) survive restarts without extra storage. Any other negative id plays at the normal level.

Practice chips: a practice table is opened in its guild with the practice bank scope (:func:`practice_scope`,
``BankScope.practice(G)``), so every bank posting of that table (buy-in, cash-out, close) uses
``bank:practice:G:U`` — a separate practice bank funded from ``issued:practice:G`` — and never the player's real
``bank:G:U``; leaderboards and balances of ``G`` never see it. The table itself is the guild's (its settings, names
and shard), only its chips are practice chips.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from pancog.ai import Level, Player, choices, hint, make_player, rank_plays, reactions
from pancog.game import engine
from pancog.game.actions import Action, Rebuy, Timeout
from pancog.game.engine import Observation
from pancog.game.errors import PanError
from pancog.game.i18n import N_
from pancog.game.state import TableState
from pancog.infra.storage.base import BankScope, ScopeKind, StorageError
from pancog.infra.tasks import Tasks
from pancog.services.tables import (
    DEFAULT_BUYIN_MINIMUMS,
    Applied,
    NoTableHere,
    NotSeated,
    StaleAction,
    TableClosed,
    TableService,
    TableSession,
)

__all__ = [
    "BOT_LEVELS",
    "BotDriver",
    "BotSettings",
    "PracticeTableIsPrivate",
    "UnknownLevel",
    "computer_id",
    "computer_name",
    "hint_allowed",
    "is_computer",
    "level_of",
    "ordered_legal",
    "ordered_plays",
    "practice_chips",
    "practice_scope",
    "suggest",
    "verify_seat",
]

log = logging.getLogger("pan.bots")

BOT_LEVELS = ("easy", "normal", "hard")
"""Levels people may seat (``random`` exists for measurement only)."""

_CODES: dict[Level, int] = {Level.EASY: 1, Level.NORMAL: 2, Level.HARD: 3, Level.RANDOM: 4}
_LEVELS: dict[int, Level] = {code: level for level, code in _CODES.items()}
_MAX_PER_LEVEL = 999
_MAX_STEPS = 5000  # a driver task never loops forever, whatever the engine does


class UnknownLevel(PanError):
    code = "unknown_level"

    def __init__(self, level: str) -> None:
        super().__init__(N_("There is no computer level {level}; choose easy, normal or hard."), level=repr(level))


class PracticeTableIsPrivate(PanError):
    """A second person tried to sit at a practice table (one person against computer players)."""

    code = "practice_table_private"

    def __init__(self) -> None:
        super().__init__(
            N_(
                "This is a practice table: one person against computer players, so only the player who opened it "
                "can sit here. Start your own with /pan practice in another channel or thread."
            )
        )


# --------------------------------------------------------------------------------------------- ids and names


def is_computer(player_id: int) -> bool:
    return player_id < 0


def computer_id(level: str | Level, n: int) -> int:
    """The player id of the ``n``-th computer player of ``level`` at a table (``n`` from 1)."""
    if not 1 <= n <= _MAX_PER_LEVEL:
        raise ValueError(f"computer player number out of range: {n}")
    return -(1000 * _CODES[Level(level)] + n)


def level_of(player_id: int) -> Level:
    """The level a computer seat plays at (normal for negative ids outside the scheme)."""
    code, n = divmod(-player_id, 1000)
    return _LEVELS.get(code, Level.NORMAL) if n else Level.NORMAL


def computer_name(player_id: int) -> str:
    """``🤖 Normal bot 1`` — how a computer player is named on the board and in every text."""
    code, n = divmod(-player_id, 1000)
    level = _LEVELS.get(code)
    if level is None or not n:
        return f"🤖 Computer {-player_id}"
    return f"🤖 {level.value.capitalize()} bot {n}"


def practice_scope(guild_id: int = 0) -> BankScope:
    """The ledger scope of practice chips played in a guild (``bank:practice:G:U``); 0: not tied to a guild (a
    user-installed app in a DM or a guild the bot is not in)."""
    return BankScope.practice(guild_id)


def practice_chips(session: TableSession) -> bool:
    """True when the table plays with practice chips (not a guild's real bank)."""
    return session.bank_scope.kind is ScopeKind.PRACTICE


def verify_seat(session: TableSession, player_id: int) -> None:
    """Who may sit at ``session``: anyone, except at a practice table — its host and computer players only.

    Raises:
        PracticeTableIsPrivate: a person other than the host at a practice table.
    """
    if session.config.practice and not is_computer(player_id) and player_id != session.host_id:
        raise PracticeTableIsPrivate


# --------------------------------------------------------------------------------------------- hints


def ordered_plays(state: TableState, seat: int, plays: Sequence[tuple[Action, int]]) -> tuple[tuple[Action, int], ...]:
    """``plays`` (the engine's legal actions with what each pays) best first by the normal level's evaluation.

    Falls back to the engine's order if the evaluation fails (a hint must never break My hand).
    """
    if len(plays) < 2:
        return tuple(plays)
    return _best_first(engine.observe(state, seat), plays)


def ordered_legal(obs: Observation) -> tuple[tuple[Action, int], ...]:
    """The observed seat's legal plays (``obs.legal``) best first, as :func:`ordered_plays` orders them: the reply
    path gets whose turn it is and the ordered plays from one :func:`~pancog.game.engine.observe`."""
    if len(obs.legal) < 2:
        return obs.legal
    return _best_first(obs, obs.legal)


def _best_first(obs: Observation, plays: Sequence[tuple[Action, int]]) -> tuple[tuple[Action, int], ...]:
    try:
        ranked = rank_plays(obs, [a for a, _ in plays])
    except Exception:
        log.warning("ranking the legal plays failed; keeping the engine's order", exc_info=True)
        return tuple(plays)
    by_id = {id(a): (a, pays) for a, pays in plays}
    ordered = [by_id.pop(id(a)) for a, _ in ranked if id(a) in by_id]
    return (*ordered, *by_id.values())


def suggest(state: TableState, seat: int) -> tuple[Action, str] | None:
    """The normal level's suggested action for ``seat`` and its one-sentence explanation (None: nothing to do)."""
    return hint(engine.observe(state, seat))


def hint_allowed(session: TableSession, user_id: int) -> bool:
    """Hints are for practice tables where every other seated player is a computer (else it would be coaching)."""
    if not session.config.practice:
        return False
    return all(p == user_id or is_computer(p) for p in session.player_ids())


# --------------------------------------------------------------------------------------------- settings


@dataclass(frozen=True, slots=True, kw_only=True)
class BotSettings:
    """``delay``: seconds a computer player "thinks" before acting (human pace); ``next_hand_delay``: the pause
    before a practice table deals the next hand by itself (None: wait for Start)."""

    delay: float = 1.5
    next_hand_delay: float | None = 6.0
    hard_budget_ms: float = 500.0


@dataclass(frozen=True, slots=True)
class _Plan:
    kind: str  # "turn" | "react" | "deal" | "rebuy"
    seat: int
    player_id: int
    delay: float
    action: Action | None = None


Sleep = Callable[[float], Awaitable[None]]


# --------------------------------------------------------------------------------------------- the driver


class BotDriver:
    """Plays every computer seat of every open table, through the same service path as people."""

    def __init__(
        self,
        tables: TableService,
        settings: BotSettings | None = None,
        *,
        sleep: Sleep = asyncio.sleep,
        player_factory: Callable[[Level], Player] | None = None,
    ) -> None:
        self.tables = tables
        self.settings = settings or BotSettings()
        self._sleep = sleep
        self._factory = player_factory or self._default_player
        self._players: dict[Level, Player] = {}
        self._tasks = Tasks("computer players", logger=log)  # one driver per table at most (keyed by table id)
        self._passed: dict[int, tuple[int, set[int]]] = {}  # table -> (seq, computer seats that passed at it)
        self._gave_up: dict[int, int] = {}  # table -> seq at which nothing more will be tried
        self._seat_lock = asyncio.Lock()
        self._subscribed = False
        self._stopping = False

    def _default_player(self, level: Level) -> Player:
        if level is Level.HARD:
            return make_player(level, budget_ms=self.settings.hard_budget_ms)
        return make_player(level)

    def player(self, level: Level) -> Player:
        found = self._players.get(level)
        if found is None:
            found = self._players[level] = self._factory(level)
        return found

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> int:
        """Subscribe to the service and resume every open table; returns tables poked. (The away stand-in,
        :meth:`stand_in`, and the practice-seat guard, :func:`verify_seat`, are the composition root's to register
        with the table service.)"""
        self._stopping = False
        if not self._subscribed:
            self.tables.subscribe(self._on_applied)
            self._subscribed = True
        return self.resume_all()

    async def stop(self) -> None:
        self._stopping = True
        if self._subscribed:
            self.tables.unsubscribe(self._on_applied)
            self._subscribed = False
        await self._tasks.close()

    def table_closed(self, closed: TableClosed) -> None:
        """A table closed (``TableService.on_close``): its computer players stop at once and what was noted about it
        goes."""
        self._tasks.cancel_key(closed.table_id)
        self._passed.pop(closed.table_id, None)
        self._gave_up.pop(closed.table_id, None)

    def busy(self) -> bool:
        """True while a computer player is thinking or acting somewhere."""
        return self._tasks.busy()

    async def drain(self) -> None:
        """Wait until no computer player has anything left to do (tests, with a zero delay)."""
        await self._tasks.drain()

    def resume_all(self) -> int:
        count = 0
        for session in self.tables.sessions:
            self.poke(session.table_id)
            count += 1
        return count

    def _on_applied(self, applied: Applied) -> None:
        if not self._stopping and any(is_computer(p) for p in applied.session.player_ids()):
            self.poke(applied.session.table_id)  # tables of people only never start a task

    def poke(self, table_id: int) -> None:
        """Look at ``table_id`` again (a running task re-reads the table after each wait by itself)."""
        if self._tasks.running(table_id) is None:
            self._tasks.spawn(self._drive(table_id), name=f"pan-bots-{table_id}", key=table_id)

    # ------------------------------------------------------------------ seating

    async def seat_computer(self, table_id: int, level: str | Level = Level.NORMAL) -> int:
        """Seat a computer player of ``level``; its buy-in comes from its own bank, topped up from ``issued``.

        Returns its player id. Raises: UnknownLevel, NoTableHere, RuleViolation (table full, ...).
        """
        try:
            lv = Level(level)
        except ValueError:
            raise UnknownLevel(str(level)) from None
        async with self._seat_lock:
            session = self.tables.get(table_id)
            taken = set(session.player_ids())
            n = next((k for k in itertools.count(1) if computer_id(lv, k) not in taken), 1)
            player_id = computer_id(lv, n)
            buy_in = DEFAULT_BUYIN_MINIMUMS * session.rules.min_buyin_chips
            await self.fund(session.bank_scope, player_id, buy_in, reason="computer player buy-in")
            await self.tables.join(table_id, player_id, buy_in=buy_in)
            return player_id

    async def fund(self, scope: BankScope | int, player_id: int, amount: int, *, reason: str) -> None:
        """Make sure the player's bank in ``scope`` holds at least ``amount`` (the shortfall is granted from the
        scope's ``issued``)."""
        ledger = self.tables.ledger
        bank = await ledger.ensure_player(scope, player_id)
        if bank < amount:
            await ledger.grant(scope, player_id, amount - bank, actor="system", reason=reason)

    async def fill_practice(self, table_id: int, user_id: int, *, opponents: int, level: str | Level) -> None:
        """Seat the person (practice chips unless the table uses the guild's real bank) and ``opponents`` computer
        players, then deal the first hand. The table must have been opened with ``practice=True``.
        """
        session = self.tables.get(table_id)
        if practice_chips(session):  # top up the practice bank to one default buy-in
            need = DEFAULT_BUYIN_MINIMUMS * session.rules.min_buyin_chips
            await self.fund(session.bank_scope, user_id, need, reason="practice chips")
        await self.tables.join(table_id, user_id)
        for _ in range(opponents):
            await self.seat_computer(table_id, level)
        await self.tables.start_hand(table_id, user_id)

    # ------------------------------------------------------------------ the away stand-in (inside the table lock)

    def stand_in(self, session: TableSession, timeout: Timeout) -> Action | None:
        """On ``away_bot`` tables, the normal level's move replaces the minimal timeout move of an *away* person.

        Called by ``TableService.system_act`` for a ``Timeout``; None keeps the timeout. The expiries that make a
        player away stay real timeouts (the turn clock counts them), so only an away seat is ever played for.
        """
        state = session.state
        seat = state.seat(timeout.seat)
        if not session.config.away_bot or seat is None or not seat.away or is_computer(seat.player_id):
            return None
        try:
            obs = engine.observe(state, timeout.seat)
            legal = choices(obs)
            if not legal:
                return None
            return self.player(Level.NORMAL).choose(obs, legal, self._rng(session.table_id, state, timeout.seat))
        except Exception:
            log.exception("table %s: the stand-in for seat %s failed; the timeout move applies", session.table_id, seat)
            return None

    # ------------------------------------------------------------------ the per-table loop

    @staticmethod
    def _rng(table_id: int, state: TableState, seat: int) -> random.Random:
        return random.Random(f"{table_id}:{state.hand_no}:{seat}:{state.seq}")

    async def _drive(self, table_id: int) -> None:
        try:
            for _ in range(_MAX_STEPS):
                if self._stopping:
                    return
                session = self._session(table_id)
                if session is None:
                    return
                state = session.state
                plan = self._plan(session, state)
                if plan is None:
                    return
                if plan.delay > 0:
                    await self._sleep(plan.delay)
                if self._stopping or self._session(table_id) is not session or session.state.seq != state.seq:
                    continue  # the table moved on while we waited: look again
                await self._carry_out(session, state, plan)
            log.warning("table %s: computer players stopped after %d steps", table_id, _MAX_STEPS)
        except StorageError as exc:  # the database is closing (shutdown): nothing to do
            log.warning("table %s: computer players stopped: %s", table_id, exc)
        except Exception:  # a bug: logged; the next action at the table looks again, the turn clock covers the rest
            log.exception("table %s: the computer-player driver failed", table_id)

    def _session(self, table_id: int) -> TableSession | None:
        try:
            return self.tables.get(table_id)
        except NoTableHere:
            self._passed.pop(table_id, None)
            self._gave_up.pop(table_id, None)
            return None

    def _plan(self, session: TableSession, state: TableState) -> _Plan | None:
        """What a computer seat does next at ``state`` (None: the table waits for a person, or for nobody)."""
        table_id = session.table_id
        if self._gave_up.get(table_id) == state.seq:
            return None
        hand = state.hand
        if hand is None:
            return self._between_hands(session, state)
        passed_seq, passed = self._passed.get(table_id, (-1, set()))
        if passed_seq != state.seq:
            passed = set()
            self._passed[table_id] = (state.seq, passed)
        actor = engine.to_act(state)
        for index, seat in enumerate(state.seats):
            if seat is None or not is_computer(seat.player_id) or index == actor or index in passed:
                continue
            if hand.players[index] is None:
                continue
            obs = engine.observe(state, index)
            legal = reactions(obs)
            action = None
            if legal:
                try:
                    action = self.player(level_of(seat.player_id)).react(obs, legal, self._rng(table_id, state, index))
                except Exception:
                    log.exception("table %s: computer seat %s failed to react; it passes", table_id, index)
            passed.add(index)
            if action is not None:
                return _Plan("react", index, seat.player_id, self.settings.delay, action)
        if actor is not None:
            seat = state.seat(actor)
            if seat is not None and is_computer(seat.player_id):
                return _Plan("turn", actor, seat.player_id, self.settings.delay)
        return None

    def _between_hands(self, session: TableSession, state: TableState) -> _Plan | None:
        if not session.config.practice or state.hand_no < 1:
            return None  # the first hand of a practice table is dealt by /pan practice itself
        computers = [(i, s) for i, s in enumerate(state.seats) if s is not None and is_computer(s.player_id)]
        people = [s for s in state.seats if s is not None and not is_computer(s.player_id)]
        if not computers or not any(not s.away and not s.leaving for s in people):
            return None  # nobody to play with: the turn clock's idle close ends the table
        if practice_chips(session):  # computer players rebuy to the minimum
            for index, seat in computers:
                if seat.stack < session.rules.min_buyin_chips:
                    return _Plan("rebuy", index, seat.player_id, 0.0)
        if self.settings.next_hand_delay is None:
            return None
        return _Plan("deal", computers[0][0], computers[0][1].player_id, self.settings.next_hand_delay)

    async def _carry_out(self, session: TableSession, state: TableState, plan: _Plan) -> None:
        table_id = session.table_id
        if plan.kind == "deal":
            try:
                await self.tables.start_hand(table_id, plan.player_id)
            except PanError as exc:
                log.info("table %s: the next practice hand was not dealt: %s", table_id, exc.message)
                self._gave_up[table_id] = state.seq
            return
        if plan.kind == "rebuy":
            seat = state.seat(plan.seat)
            amount = DEFAULT_BUYIN_MINIMUMS * session.rules.min_buyin_chips - (seat.stack if seat is not None else 0)
            await self.fund(session.bank_scope, plan.player_id, amount, reason="computer player rebuy")
            await self._apply(session, state, plan, Rebuy(seat=plan.seat, amount=amount))
            return
        if plan.kind == "react":
            if plan.action is not None:
                await self._apply(session, state, plan, plan.action)
            return
        # in turn
        obs = engine.observe(state, plan.seat)
        legal = choices(obs)
        level = level_of(plan.player_id)
        rng = self._rng(table_id, state, plan.seat)
        try:
            if not legal:
                raise RuntimeError(f"no in-turn choice for a computer seat at seq {state.seq}")
            player = self.player(level)
            if level is Level.HARD:  # the look-ahead blocks for up to its budget: keep the event loop free
                action = await asyncio.to_thread(player.choose, obs, legal, rng)
            else:
                action = player.choose(obs, legal, rng)
        except Exception:
            log.exception("table %s: computer seat %s failed to choose; playing its timeout move", table_id, plan.seat)
            await self._fallback(session, state, plan.seat)
            return
        if session.state.seq != state.seq:
            return  # stale (the hard level thinks off the loop): recompute
        await self._apply(session, state, plan, action)

    async def _apply(self, session: TableSession, state: TableState, plan: _Plan, action: Action) -> None:
        seq = state.seq

        def make(seat: int) -> Action:
            if seat != plan.seat or session.state.seq != seq:
                raise StaleAction
            return action

        try:
            await self.tables.act(session.table_id, plan.player_id, make)
        except (StaleAction, NoTableHere, NotSeated):
            return  # the loop looks again (or the table / seat is gone)
        except PanError as exc:
            log.warning(
                "table %s: computer seat %s was refused %s: %s", session.table_id, plan.seat, action, exc.message
            )
            if plan.kind == "turn":
                await self._fallback(session, state, plan.seat)
            elif session.state.seq == seq and plan.kind == "rebuy":
                self._gave_up[session.table_id] = seq

    async def _fallback(self, session: TableSession, state: TableState, seat: int) -> None:
        """The minimal timeout move for a computer seat that could not decide; give up on this state if refused."""
        try:
            await self.tables.system_act(session.table_id, Timeout(seat=seat), expect_seq=state.seq)
        except NoTableHere:
            return
        except PanError as exc:
            if session.state.seq == state.seq:
                log.warning("table %s: timeout for computer seat %s refused too: %s", session.table_id, seat, exc)
                self._gave_up[session.table_id] = state.seq
