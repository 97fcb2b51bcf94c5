"""The random, easy and normal computer players, and the normal level's evaluation of every legal action.

The normal level scores each candidate action by the position it leaves (see
:func:`pancog.ai.evaluate.position_value`) plus the chips it collects now, minus the danger of feeding
the next player; it knocks with a decent hand and sluffs a hopeless one, always goes out, and forces a
card on an opponent when the lay-off pays him nothing and breaks up a hand he still holds.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pancog.game.actions import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    Claim,
    DeclineDraw,
    DeclineSplit,
    Discard,
    Force,
    GoOnTop,
    Knock,
    MakeGood,
    NewMeld,
    Pluck,
    TakeOption,
)
from pancog.game.cards import Card, Suit
from pancog.game.engine import Observation, PlayerView
from pancog.game.melds import Meld
from pancog.game.moves import meld_plays
from pancog.game.state import LIABLE, PlayerStatus, Step

from .base import Level, chips_of
from .evaluate import (
    WEIGHTS,
    Weights,
    apply_meld_play,
    fits_board,
    forms_with_hand,
    hit_chance,
    layoff_units,
    made_cards,
    near_melds,
    position_value,
    unseen_cards,
)

GOING_OUT = 1000.0


# ---------------------------------------------------------------------------------------------
# What one seat knows, derived from its observation only
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seen:
    """One seat's knowledge, derived from an :class:`Observation` (nothing else)."""

    obs: Observation
    me: PlayerView | None
    board: tuple[Meld, ...]
    hand: tuple[Card, ...]
    unseen: list[int]
    payers: int
    next_seat: int | None


def _next_active(obs: Observation, seat: int) -> int | None:
    active = sorted(p.seat for p in obs.players if p.status is PlayerStatus.IN)
    later = [s for s in active if s > seat]
    if later:
        return later[0]
    earlier = [s for s in active if s != seat]
    return earlier[0] if earlier else None


def seen(obs: Observation) -> Seen:
    """Summarise ``obs`` for the evaluation (unseen cards, payers, next player in rotation)."""
    me = next((p for p in obs.players if p.seat == obs.seat), None)
    board = me.melds if me is not None else ()
    visible: list[Card] = list(obs.hand)
    for p in obs.players:
        for m in p.melds:
            visible.extend(m.cards)
    for c in (obs.drawn, obs.option, obs.muck_top):
        if c is not None:
            visible.append(c)
    payers = sum(1 for p in obs.players if p.seat != obs.seat and p.status in LIABLE and (obs.stacks[p.seat] or 0) > 0)
    return Seen(
        obs=obs,
        me=me,
        board=board,
        hand=obs.hand,
        unseen=unseen_cards(obs.rules, visible),
        payers=max(payers, 1),
        next_seat=_next_active(obs, obs.seat),
    )


def player_view(obs: Observation, seat: int | None) -> PlayerView | None:
    return next((p for p in obs.players if p.seat == seat), None)


# ---------------------------------------------------------------------------------------------
# Random and easy
# ---------------------------------------------------------------------------------------------


class RandomPlayer:
    """Uniform over the legal actions (and, out of turn, over passing and each legal action)."""

    level = Level.RANDOM

    def choose(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
        return legal[rng.randrange(len(legal))]

    def react(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action | None:
        k = rng.randrange(len(legal) + 1)
        return legal[k] if k < len(legal) else None


def _meld_plays(legal: Sequence[Action]) -> list[Action]:
    return [a for a in legal if isinstance(a, NewMeld | AddToMeld | Borrow | MakeGood)]


class EasyPlayer:
    """Legal and simple, a little random: knocks with a pair or two, melds what it can, discards loose cards."""

    level = Level.EASY

    def __init__(self, noise: float = 0.2) -> None:
        self.noise = noise

    def choose(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
        if any(isinstance(a, Knock) for a in legal):
            knock = next(a for a in legal if isinstance(a, Knock))
            sluff = next((a for a in legal if isinstance(a, GoOnTop)), knock)
            return knock if near_melds(obs.hand) + made_cards(obs.hand) // 3 >= 3 else sluff
        take = next((a for a in legal if isinstance(a, TakeOption)), None)
        if take is not None:
            return take
        pluck = next((a for a in legal if isinstance(a, Pluck)), None)
        if pluck is not None:
            return pluck
        plays = _meld_plays(legal)
        if plays:
            # the engine lists meld plays best first (chips, then cards)
            return plays[0] if rng.random() >= self.noise else plays[rng.randrange(len(plays))]
        discards = [a for a in legal if isinstance(a, Discard)]
        hand_discards = [a for a in discards if a.card is not None]
        if hand_discards:
            loose = [a for a in hand_discards if a.card is not None and _is_loose(a.card, obs.hand)]
            pool = loose or hand_discards
            return pool[rng.randrange(len(pool))]
        return discards[0] if discards else legal[0]

    def react(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action | None:
        return next((a for a in legal if isinstance(a, DeclineSplit)), None)


def _is_loose(card: Card, hand: Sequence[Card]) -> bool:
    rest = Counter(hand)
    rest[card] -= 1
    return near_melds(tuple(rest.elements())) == near_melds(hand) and not forms_with_hand(card, rest)


# ---------------------------------------------------------------------------------------------
# Normal: the evaluation
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Tuning:
    """Knobs of the normal level (besides the position weights)."""

    knock_hits: float = 0.30  # knock when the chance of a hit on the first card (weighted) is at least this ...
    knock_made: int = 3  # ... or the hand already holds this many made cards
    knock_sluff_step: float = 0.0  # lower the knock threshold by this per player who went on top before us
    knock_in_step: float = 0.0  # raise it by this per player who knocked before us
    lone_knock: bool = True  # knock when everyone else went on top (the tops are free)
    feed_penalty: float = 1.6  # giving the next player an option card that fits his board
    feed_unit: float = 0.5  # ... per unit it would collect from us
    force_min_hand: int = 4  # force only on a player still holding this many cards
    forceback_risk: float = 0.25  # discarding a card that fits one's own board (it can be forced back)


TUNING = Tuning()


def after_turn_value(s: Seen, board: Sequence[Meld], hand: Sequence[Card], weights: Weights = WEIGHTS) -> float:
    """Value once the turn ends: out if the board holds 11, else the best discard from ``hand``."""
    if sum(len(m.cards) for m in board) >= 11 and not hand:
        return GOING_OUT
    if not hand:
        return position_value(board, hand, s.unseen, s.obs.rules, payers=s.payers, weights=weights)
    best = -1e9
    for card in dict.fromkeys(hand):
        rest = list(hand)
        rest.remove(card)
        v = position_value(board, rest, s.unseen, s.obs.rules, payers=s.payers, weights=weights)
        if fits_board(card, board):
            v -= TUNING.forceback_risk
        best = max(best, v)
    return best


def post_turn(s: Seen, action: Action) -> tuple[tuple[Meld, ...], tuple[Card, ...]] | None:
    """The board and hand at the end of this turn if ``action`` is played and the turn then ends with the
    normal level's best discard (None for draws and for plays that cannot be simulated)."""
    obs = s.obs
    match action:
        case Discard():
            if action.card is None or obs.step is Step.DRAWN:
                return tuple(s.board), tuple(s.hand)
            rest = list(s.hand)
            if action.card not in rest:
                return None
            rest.remove(action.card)
            return tuple(s.board), tuple(rest)
        case NewMeld() | AddToMeld() | Borrow():
            drawn = obs.drawn if obs.step in (Step.DRAWN, Step.MUST_USE) else None
            out = apply_meld_play(s.board, s.hand, drawn, action, obs.rules)
            if out is None:
                return None
            if not out.hand:
                return out.board, out.hand
            best: tuple[float, tuple[Card, ...]] | None = None
            for card in dict.fromkeys(out.hand):
                rest = list(out.hand)
                rest.remove(card)
                v = position_value(out.board, rest, s.unseen, obs.rules, payers=s.payers)
                if best is None or v > best[0]:
                    best = (v, tuple(rest))
            return (out.board, best[1]) if best is not None else None
        case _:
            return None


def declines_second_pluck(s: Seen) -> bool:
    """Whether to waive the double draw's second pluck. Declining leaves the next player the unused first
    pluck (the top discard) as his option card; plucking again is another chance to hit, but an unknown card
    the next player may get instead. A card-room player declines only when the first pluck is harmless to the
    next player and the next player is flat (any fitting card off the stock would put him out)."""
    first = s.obs.muck_top
    nxt = player_view(s.obs, s.next_seat)
    if first is None or nxt is None:
        return False
    flat = nxt.hand_count == 0 and all(m.valid for m in nxt.melds)
    return flat and not fits_board(first, nxt.melds)


def feed_danger(s: Seen, card: Card) -> float:
    """How much an unused pluck helps the next player, who may take it as his option card."""
    nxt = player_view(s.obs, s.next_seat)
    if nxt is None:
        return 0.0
    danger = 0.0
    if fits_board(card, nxt.melds):
        danger += TUNING.feed_penalty + TUNING.feed_unit * layoff_units(card, nxt.melds, s.obs.rules)
    if card.is_valle:
        danger += 0.1
    if card.suit is Suit.SPADES:
        danger += 0.05
    return danger


def knock_strength(s: Seen) -> float:
    """How good a dealt hand is to play: the weighted chance its first card is a hit."""
    return hit_chance(s.hand, (), s.unseen, s.obs.rules, payers=s.payers)


def knock_threshold(obs: Observation) -> float:
    """The hit chance needed to knock, given the declarations so far (sluffs before us make it cheaper)."""
    others = [p for p in obs.players if p.seat != obs.seat]
    ins = sum(1 for p in others if p.status is PlayerStatus.IN)
    sluffs = sum(1 for p in others if p.status is PlayerStatus.RETIRED)
    return TUNING.knock_hits - TUNING.knock_sluff_step * sluffs + TUNING.knock_in_step * ins


def wants_to_knock(s: Seen) -> bool:
    """Knock with a decent hand, sluff a hopeless one; always knock when everyone else went on top
    (a lone player wins the tops)."""
    others = [p for p in s.obs.players if p.seat != s.obs.seat]
    if others and all(p.status is PlayerStatus.RETIRED for p in others) and TUNING.lone_knock:
        return True
    if made_cards(s.hand) >= TUNING.knock_made:
        return True
    return knock_strength(s) >= knock_threshold(s.obs)


def score_action(s: Seen, action: Action, weights: Weights = WEIGHTS) -> float:
    """The normal level's score of one legal in-turn action (higher is better)."""
    obs = s.obs
    rules = obs.rules
    chips = chips_of(obs, action)
    match action:
        case Knock():
            return 1.0 if wants_to_knock(s) else -1.0
        case GoOnTop():
            return 0.0
        case Pluck():
            return position_value(s.board, s.hand, s.unseen, rules, payers=s.payers, weights=weights) + 0.5
        case DeclineDraw():
            base = position_value(s.board, s.hand, s.unseen, rules, payers=s.payers, weights=weights)
            return base + (1.0 if declines_second_pluck(s) else -1.0)
        case TakeOption():
            if obs.option is None:
                return -1e9
            return _best_use(s, obs.option, weights) + 0.3
        case NewMeld() | AddToMeld() | Borrow():
            drawn = obs.drawn if obs.step in (Step.DRAWN, Step.MUST_USE) else None
            out = apply_meld_play(s.board, s.hand, drawn, action, rules)
            if out is None:
                return weights.chip * chips
            board_cards = sum(len(m.cards) for m in out.board)
            if board_cards >= 11 and not out.hand:
                return GOING_OUT + chips
            return after_turn_value(s, out.board, out.hand, weights) + weights.chip * chips
        case MakeGood():
            return 0.0
        case Claim():
            return GOING_OUT / 2 + chips  # collect unclaimed pays before the discard
        case Discard():
            if action.card is None or obs.step is Step.DRAWN:
                card = obs.drawn
                base = position_value(s.board, s.hand, s.unseen, rules, payers=s.payers, weights=weights)
                return base - (feed_danger(s, card) if card is not None else 0.0)
            rest = list(s.hand)
            if action.card in rest:
                rest.remove(action.card)
            v = position_value(s.board, rest, s.unseen, rules, payers=s.payers, weights=weights)
            if fits_board(action.card, s.board):
                v -= TUNING.forceback_risk
            return v
        case _:
            return -1e9


def _best_use(s: Seen, card: Card, weights: Weights) -> float:
    """Best after-turn value of using ``card`` (a taken option card) in any simulated meld play."""
    best = -1e9
    for play in meld_plays(s.obs.seat, s.hand, s.board, card, s.obs.rules):
        out = apply_meld_play(s.board, s.hand, card, play, s.obs.rules)
        if out is None:
            continue
        if sum(len(m.cards) for m in out.board) >= 11 and not out.hand:
            return GOING_OUT
        best = max(best, after_turn_value(s, out.board, out.hand, weights) + weights.chip * out.units * s.payers)
    return best


def rank_actions(obs: Observation, legal: Sequence[Action], weights: Weights = WEIGHTS) -> list[tuple[Action, float]]:
    """Every action of ``legal`` with the normal level's score, best first (stable for ties)."""
    s = seen(obs)
    scored = [(a, score_action(s, a, weights)) for a in legal]
    order = sorted(range(len(scored)), key=lambda i: (-scored[i][1], i))
    return [scored[i] for i in order]


def force_value(obs: Observation, action: Force) -> float:
    """How much forcing ``action.card`` on its target hurts him (positive: worth forcing)."""
    target = player_view(obs, action.target)
    if target is None or action.card is None:
        return -1.0
    units = layoff_units(action.card, target.melds, obs.rules)
    if units > 0:
        return -1.0 - units
    if target.hand_count < TUNING.force_min_hand:
        return -0.5
    return 0.5 + 0.1 * (target.hand_count - TUNING.force_min_hand)


def split_wanted(obs: Observation) -> bool:
    """Accept a split of the tops when the opponent's board is ahead of ours."""
    me = player_view(obs, obs.seat)
    other = next((p for p in obs.players if p.seat != obs.seat and p.status is PlayerStatus.IN), None)
    if me is None or other is None:
        return False
    mine = sum(len(m.cards) for m in me.melds)
    theirs = sum(len(m.cards) for m in other.melds)
    return theirs > mine + 1


class NormalPlayer:
    """Card-room heuristics: value conditions, keep pairs and near-sequences, don't feed the next player."""

    level = Level.NORMAL

    def __init__(self, weights: Weights = WEIGHTS) -> None:
        self.weights = weights

    def choose(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action:
        ranked = rank_actions(obs, legal, self.weights)
        return ranked[0][0]

    def react(self, obs: Observation, legal: Sequence[Action], rng: random.Random) -> Action | None:
        return normal_reaction(obs, legal)


def normal_reaction(obs: Observation, legal: Sequence[Action]) -> Action | None:
    """The normal level's out-of-turn choice: force when it hurts, answer split offers, else pass."""
    best: tuple[float, Action] | None = None
    for a in legal:
        if isinstance(a, Force):
            v = force_value(obs, a)
            if v > 0 and (best is None or v > best[0]):
                best = (v, a)
    if best is not None:
        return best[1]
    if any(isinstance(a, AcceptSplit) for a in legal) and split_wanted(obs):
        return next(a for a in legal if isinstance(a, AcceptSplit))
    return next((a for a in legal if isinstance(a, DeclineSplit)), None)
