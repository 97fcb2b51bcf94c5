"""The hard level: the normal evaluation plus look-ahead by sampling the unseen cards, inside a time budget.

- **The knock** -- determinized roll-outs: :func:`determinize` builds a full :class:`TableState`
  consistent with the seat's observation, the cards it cannot see (other hands, the stock, the
  face-down muck) sampled uniformly from its unseen cards; the hard player knocks in that world and
  :func:`rollout` finishes the hand with a fast greedy policy for every seat. Going on top costs
  nothing more, so the normal declaration is reversed only when the mean roll-out result is more than
  ``z`` standard errors on the other side of ``knock_edge``.
- **Close in-turn choices** (the normal level's best ``top_k`` within ``margin``) -- solitaire
  look-ahead (:mod:`pancog.ai.solitaire`): each candidate's end-of-turn position is played forward
  over the seat's own next ``horizon`` plucks sampled from its unseen cards, the same plucks for every
  candidate (common random numbers); an alternative replaces the normal choice only if its paired mean
  advantage exceeds ``z`` standard errors.

Given the same rng, the choice is deterministic whenever ``samples`` is reached within the budget;
the budget (default and maximum 500 ms) is a hard cap.
"""

from __future__ import annotations

import dataclasses
import math
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from pancog.game.actions import Action, AddToMeld, Borrow, Discard, GoOnTop, Knock, NewMeld, Pluck, TakeOption
from pancog.game.cards import ALL_CARDS, Card
from pancog.game.engine import Observation, apply
from pancog.game.errors import RuleViolation
from pancog.game.melds import Meld
from pancog.game.moves import meld_plays
from pancog.game.rules import StartMode
from pancog.game.state import (
    DrawSource,
    ForceBack,
    HandState,
    Phase,
    PlayerHand,
    PlayerStatus,
    Seat,
    Step,
    TableState,
    Turn,
)

from .base import Level
from .evaluate import CARD_INDEX, hit_chance, made_cards, shoe_counts
from .players import GOING_OUT, TUNING, Seen, normal_reaction, post_turn, rank_actions, seen
from .solitaire import loosest, sample_draws, solitaire_value

DEFAULT_BUDGET_MS = 500.0


# ---------------------------------------------------------------------------------------------
# Determinization: a full table state from one seat's observation plus sampled hidden cards
# ---------------------------------------------------------------------------------------------


def _order(obs: Observation) -> tuple[tuple[int, ...], int]:
    """The dealt-in seats in rotation from the first hand, and the first hand (inferred from the view)."""
    dealt = sorted(p.seat for p in obs.players)
    if not dealt:
        return (), 0
    if obs.phase is Phase.DECLARING and obs.to_act is not None:
        start = dealt.index(obs.to_act)
        circ = dealt[start:] + dealt[:start]
        undeclared = [s for s in circ if _status(obs, s) is PlayerStatus.UNDECLARED]
        declared = [s for s in circ if _status(obs, s) is not PlayerStatus.UNDECLARED]
        order = tuple(declared + undeclared)
        return order, order[0]
    return tuple(dealt), dealt[0]


def _status(obs: Observation, seat: int) -> PlayerStatus:
    return next(p.status for p in obs.players if p.seat == seat)


def hidden_pool(obs: Observation) -> list[Card]:
    """Every card this seat cannot see (the shoe minus its hand, all boards and the face-up cards)."""
    counts = list(shoe_counts(obs.rules))
    visible: list[Card] = list(obs.hand)
    for p in obs.players:
        for m in p.melds:
            visible.extend(m.cards)
    for c in (obs.drawn, obs.muck_top):
        if c is not None:
            visible.append(c)
    for fb in obs.force_backs:
        if fb.card != obs.muck_top:
            visible.append(fb.card)
    for c in visible:
        i = CARD_INDEX[c]
        if counts[i] > 0:
            counts[i] -= 1
    return [ALL_CARDS[i] for i in range(40) for _ in range(counts[i])]


def determinize(obs: Observation, rng: random.Random) -> TableState:
    """A plausible full :class:`TableState` consistent with ``obs``: hidden cards are sampled uniformly.

    Known limits (the observation does not carry them): the face-down muck is sampled like the stock,
    ``draws``, the first player's double draw and a suspended turn (a force-back in progress) are
    approximated.
    """
    pool = hidden_pool(obs)
    rng.shuffle(pool)
    pos = 0
    rules = obs.rules
    seats: list[Seat | None] = []
    mults = {p.seat: p.multiplier for p in obs.players}
    for i, stack in enumerate(obs.stacks):
        pid = obs.player_ids[i]
        if stack is None or pid is None:
            seats.append(None)
        else:
            seats.append(Seat(player_id=pid, stack=stack, doubles=mults.get(i, 1) == 2))
    players: list[PlayerHand | None] = [None] * len(seats)
    for p in obs.players:
        if p.seat == obs.seat:
            cards = obs.hand
        else:
            cards = tuple(sorted(pool[pos : pos + p.hand_count]))
            pos += p.hand_count
        next_id = max((m.id for m in p.melds), default=0) + 1
        players[p.seat] = PlayerHand(
            seat=p.seat, status=p.status, multiplier=p.multiplier, hand=cards, melds=p.melds, next_meld_id=next_id
        )
    stock = tuple(pool[pos : pos + obs.stock_count])
    pos += obs.stock_count
    muck = list(pool[pos:])
    # public discards at their places: force-back cards keep their distance from the top of the muck
    top_pos = max((fb.position for fb in obs.force_backs), default=-1)
    known = [fb for fb in obs.force_backs if fb.card != obs.muck_top or fb.position != top_pos]
    muck_len = len(muck) + len(known) + (1 if obs.muck_top is not None else 0)
    force_backs: list[ForceBack] = []
    layout: list[Card | None] = [None] * muck_len
    if obs.muck_top is not None:
        layout[-1] = obs.muck_top
    for fb in obs.force_backs:
        new_pos = muck_len - 1 - (top_pos - fb.position)
        if 0 <= new_pos < muck_len and (layout[new_pos] is None or layout[new_pos] == fb.card):
            layout[new_pos] = fb.card
            force_backs.append(dataclasses.replace(fb, position=new_pos))
    filler = iter(muck)
    final_muck = tuple(c if c is not None else next(filler) for c in layout)
    order, first = _order(obs)
    turn: Turn | None = None
    if obs.turn_seat is not None and obs.step is not None:
        source: DrawSource | None = None
        if obs.step is Step.DRAWN:
            source = DrawSource.STOCK
        elif obs.step is Step.MUST_USE:
            source = DrawSource.OPTION
        turn = Turn(
            seat=obs.turn_seat,
            step=obs.step,
            drawn=obs.drawn,
            source=source,
            extra_pluck=rules.start_mode is StartMode.DOUBLE_DRAW and obs.step is Step.DRAW and _fresh(obs),
        )
    declare_pos = order.index(obs.to_act) if obs.phase is Phase.DECLARING and obs.to_act in order else 0
    hand = HandState(
        hand_no=obs.hand_no,
        seed=rng.randrange(1 << 30),
        first=first,
        order=order,
        players=tuple(players),
        phase=obs.phase if obs.phase is not None else Phase.DECLARING,
        declare_pos=declare_pos,
        draws=0 if _fresh(obs) else 2,
        stock=stock,
        muck=final_muck,
        option=obs.option,
        option_from=obs.option_from,
        turn=turn,
        force_backs=tuple(force_backs),
        make_good=obs.make_good,
        split_offer=obs.split_offer,
        solo=obs.solo,
    )
    return TableState(
        rules=rules,
        seats=tuple(seats),
        singles_tops=obs.singles_tops,
        doubles_tops=obs.doubles_tops,
        hand_no=obs.hand_no,
        hand=hand,
        seq=obs.seq,
    )


def _fresh(obs: Observation) -> bool:
    """Whether nothing has been drawn yet this hand (no boards, empty muck)."""
    return obs.muck_top is None and all(not p.melds for p in obs.players) and obs.drawn is None


# ---------------------------------------------------------------------------------------------
# Fast greedy roll-out policy over a full (sampled) state
# ---------------------------------------------------------------------------------------------


def greedy_action(state: TableState, seat: int) -> Action:
    """A cheap, legal-by-construction move for ``seat`` (the roll-out policy)."""
    h = state.hand
    if h is None:
        raise ValueError("no hand in progress")
    pl = h.player(seat)
    if h.phase is Phase.DECLARING:
        strong = (
            made_cards(pl.hand) >= TUNING.knock_made
            or hit_chance(pl.hand, (), shoe_counts(state.rules), state.rules) >= TUNING.knock_hits
        )
        return Knock(seat=seat) if strong else GoOnTop(seat=seat)
    t = h.turn
    if t is None:
        raise ValueError("no turn in progress")
    if t.step is Step.DRAW:
        option_ok = h.option is not None and h.option_from != seat and not t.forced_back and state.rules.option_card
        if option_ok and meld_plays(seat, pl.hand, pl.melds, h.option, state.rules):
            return TakeOption(seat=seat)
        return Pluck(seat=seat)
    drawn = t.drawn if t.step in (Step.DRAWN, Step.MUST_USE) else None
    plays = meld_plays(seat, pl.hand, pl.melds, drawn, state.rules)
    if plays:
        return max(plays, key=_play_key)
    if t.step is Step.DRAWN:
        return Discard(seat=seat)
    return Discard(seat=seat, card=loosest(pl.hand))


def _play_key(p: NewMeld | AddToMeld | Borrow) -> tuple[int, int]:
    taken = len(p.taken) if isinstance(p, Borrow) else 0
    split = 1 if isinstance(p, AddToMeld) and p.split is not None else 0
    return (len(p.cards), -taken - split)


def rollout(state: TableState, max_steps: int = 2000, deadline: float | None = None) -> TableState | None:
    """Finish the current hand of ``state`` with :func:`greedy_action` for every seat (no forcing).

    Returns None if ``deadline`` (a ``time.perf_counter()`` value) passes first.
    """
    h = state.hand
    if h is None:
        return state
    hand_no = h.hand_no
    for step in range(max_steps):
        if deadline is not None and step % 8 == 7 and time.perf_counter() > deadline:
            return None
        h = state.hand
        if h is None or h.hand_no != hand_no:
            return state
        seat = _actor(state)
        if seat is None:
            return state
        action = greedy_action(state, seat)
        try:
            state = apply(state, action).state
        except RuleViolation:
            state = apply(state, _fallback(state, seat)).state
    return state


def _actor(state: TableState) -> int | None:
    h = state.hand
    if h is None:
        return None
    if h.phase is Phase.DECLARING:
        return h.order[h.declare_pos]
    if h.make_good is not None:
        return h.make_good[0]
    return h.turn.seat if h.turn is not None else None


def _fallback(state: TableState, seat: int) -> Action:
    """A legal move when the greedy one is refused (e.g. an out card may not be given to a flat player)."""
    from pancog.game.engine import legal_actions

    legal = [a for a in legal_actions(state, seat) if not isinstance(a, Knock | GoOnTop) or _declaring(state)]
    in_turn = [a for a in legal if isinstance(a, NewMeld | AddToMeld | Borrow | Discard | Pluck | TakeOption)]
    pool = in_turn or legal
    return pool[0]


def _declaring(state: TableState) -> bool:
    return state.hand is not None and state.hand.phase is Phase.DECLARING


# ---------------------------------------------------------------------------------------------
# The hard player
# ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class SearchStats:
    """What the last search did (for tests and the benchmark)."""

    candidates: int = 0
    samples: int = 0
    elapsed_ms: float = 0.0


class HardPlayer:
    """Determinized roll-outs over the normal level's best candidates, inside ``budget_ms`` per decision."""

    level = Level.HARD

    def __init__(
        self,
        budget_ms: float = DEFAULT_BUDGET_MS,
        *,
        samples: int = 24,
        top_k: int = 3,
        margin: float = 1.0,
        z: float = 1.0,
        knock_edge: float = 0.0,
        search_declare: bool = True,
        search_play: bool = True,
        rollouts: bool = False,
        horizon: int = 8,
    ) -> None:
        if budget_ms <= 0:
            raise ValueError("budget_ms must be positive")
        self.budget_ms = min(budget_ms, DEFAULT_BUDGET_MS)
        self.samples = samples
        self.top_k = top_k
        self.margin = margin
        self.z = z
        self.knock_edge = knock_edge
        self.search_declare = search_declare
        self.search_play = search_play
        self.rollouts = rollouts
        self.horizon = horizon
        self.last = SearchStats()

    def choose(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
        t0 = time.perf_counter()
        deadline = t0 + 0.9 * self.budget_ms / 1000.0
        ranked = rank_actions(obs, legal)
        best = ranked[0][0]
        self.last = SearchStats()
        if len(ranked) == 1 or ranked[0][1] >= GOING_OUT:
            return best
        if obs.phase is Phase.DECLARING:
            return self._declare(obs, ranked, rng, t0, deadline) if self.search_declare else best
        if not self.search_play:
            return best
        top = ranked[0][1]
        cands = [a for a, v in ranked[: self.top_k] if top - v <= self.margin]
        if len(cands) < 2:
            return best
        s = seen(obs)
        positions = [post_turn(s, a) for a in cands]
        if all(p is not None for p in positions):
            results = self._solitaire(obs, s, [p for p in positions if p is not None], rng, deadline)
        elif self.rollouts:
            results = self._search(obs, cands, rng, deadline)
        else:
            return best
        n = len(results)
        self.last = SearchStats(candidates=len(cands), samples=n, elapsed_ms=(time.perf_counter() - t0) * 1000.0)
        if n < 2:
            return best
        # paired (common random numbers) comparison against the normal level's choice: switch only
        # when an alternative is ahead by more than ``self.z`` standard errors
        choice, best_gain = best, 0.0
        for k in range(1, len(cands)):
            diffs = [r[k] - r[0] for r in results]
            mean = statistics.fmean(diffs)
            se = statistics.stdev(diffs) / math.sqrt(n)
            if mean > self.z * se and mean > best_gain:
                choice, best_gain = cands[k], mean
        return choice

    def _solitaire(
        self,
        obs: Observation,
        s: Seen,
        positions: Sequence[tuple[tuple[Meld, ...], tuple[Card, ...]]],
        rng: random.Random,
        deadline: float,
    ) -> list[list[float]]:
        """Solitaire values of each end-of-turn position over the same sampled plucks."""
        out: list[list[float]] = []
        tops = obs.singles_tops
        while len(out) < self.samples:
            draws = sample_draws(s.unseen, self.horizon, random.Random(rng.randrange(1 << 62)))
            row: list[float] = []
            for board, hand in positions:
                value = solitaire_value(board, hand, draws, obs.rules, payers=s.payers, tops=tops, deadline=deadline)
                if time.perf_counter() > deadline:
                    break  # this sample may be cut short: drop it
                row.append(value)
            if len(row) < len(positions):
                break
            out.append(row)
            if time.perf_counter() > deadline:
                break
        return out

    def _declare(
        self, obs: Observation, ranked: list[tuple[Action, float]], rng: random.Random, t0: float, deadline: float
    ) -> Action:
        """Knock or go on top by the roll-outs' result of knocking (going on top costs nothing more).

        The normal level's declaration stands unless the roll-outs' mean is more than ``z`` standard
        errors on the other side of ``knock_edge``.
        """
        knock = next((a for a, _ in ranked if isinstance(a, Knock)), None)
        sluff = next((a for a, _ in ranked if isinstance(a, GoOnTop)), None)
        if knock is None or sluff is None:
            return ranked[0][0]
        results = self._search(obs, [knock], rng, deadline)
        n = len(results)
        self.last = SearchStats(candidates=2, samples=n, elapsed_ms=(time.perf_counter() - t0) * 1000.0)
        if n < 4:
            return ranked[0][0]
        values = [r[0] for r in results]
        mean = statistics.fmean(values) - self.knock_edge
        se = statistics.stdev(values) / math.sqrt(n)
        if ranked[0][0] == knock:
            return sluff if mean < -self.z * se else knock
        return knock if mean > self.z * se else sluff

    def _search(
        self, obs: Observation, cands: Sequence[Action], rng: random.Random, deadline: float
    ) -> list[list[float]]:
        """Chip results of each candidate per sampled world (same world and roll-out for every candidate)."""
        out: list[list[float]] = []
        me = obs.seat
        while len(out) < self.samples:
            world = determinize(obs, random.Random(rng.randrange(1 << 62)))
            start = world.seats[me]
            if start is None:
                break
            row: list[float] = []
            for a in cands:
                try:
                    after = apply(world, a).state
                except RuleViolation:
                    row.append(-1e6)
                    continue
                end = rollout(after, deadline=deadline)
                if end is None:
                    break
                seat = end.seats[me]
                row.append(float((seat.stack if seat is not None else 0) - start.stack))
            if len(row) < len(cands):
                break
            out.append(row)
            if time.perf_counter() > deadline:
                break
        return out

    def react(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action | None:
        return normal_reaction(obs, legal)
