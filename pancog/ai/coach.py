"""The practice coach: why the top plays rank where they do, and what a player missed in a finished hand.

Facts, not sentences: the adapter's presenters word them (one sentence per fact), so they can be translated.

- :func:`play_facts` explains the normal level's ranking of a seat's plays (:func:`pancog.ai.rank_plays`) with
  what separates them: the chips each collects now (the engine's figure), the cards it puts down, whether it goes
  out, the chance that the next card is a hit once the turn ends (the heart of the normal evaluation), and the
  risks of a discard (it fits the next player's board; it can be forced back).
- :func:`review_hand` replays a finished hand with the engine and, at each moment the player could act, judges
  from **that seat's observation only** (what the player saw then): a better meld left on the table, a force the
  normal level would have made and the player let pass, and an option card he discarded that another player took
  and went out with. So a note never names a card the player could not see.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pancog.game import engine
from pancog.game.actions import (
    Action,
    AddToMeld,
    Borrow,
    Discard,
    Force,
    GoOnTop,
    Knock,
    MakeGood,
    NewMeld,
    TakeOption,
)
from pancog.game.cards import Card
from pancog.game.engine import Observation
from pancog.game.events import Discarded, Forced, OptionTaken, WentOut
from pancog.game.state import Step, TableState

from .base import IN_TURN_TYPES, chips_of
from .evaluate import fits_board, hit_chance
from .players import Seen, feed_danger, force_value, post_turn, score_action, seen

MeldPlay = NewMeld | AddToMeld | Borrow | MakeGood

COACHED = 3
"""How many of the top plays the My hand panel explains."""


# --------------------------------------------------------------------------------------------- the panel's reasons


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayFacts:
    """What separates one play from the others in the normal level's ranking (``rank`` 1 is its first choice)."""

    action: Action
    rank: int
    chips: int = 0  # collected now (the engine's figure for the play)
    cards_down: int = 0  # cards the play puts on the board: from the hand and the drawn card
    goes_out: bool = False
    hits_after: float | None = None  # chance the next card is a hit once this turn ends (None: not a meld/discard)
    knock_hits: float | None = None  # declarations: chance the first card is a hit
    option_melds: bool = False  # taking the option card: it melds at once
    dead_card: bool = False  # throwing the drawn card away: it melds with nothing in the hand or on the board
    feeds_next: bool = False  # throwing the drawn card away: it fits the next player's board
    forced_back: bool = False  # discarding a hand card that fits one's own board: it can be forced back


def _drawn_waiting(obs: Observation) -> Card | None:
    return obs.drawn if obs.step in (Step.DRAWN, Step.MUST_USE) else None


def cards_down(obs: Observation, action: Action) -> int:
    """Cards ``action`` puts on the board (hand cards, and the drawn card when it waits to be used)."""
    drawn = 1 if _drawn_waiting(obs) is not None else 0
    match action:
        case NewMeld() | AddToMeld() | Borrow():
            return len(action.cards) + drawn
        case MakeGood():
            return len(action.cards)
        case _:
            return 0


def goes_out(obs: Observation, action: Action) -> bool:
    """Whether the meld play empties the hand (going out: every card on the board)."""
    return isinstance(action, NewMeld | AddToMeld | Borrow | MakeGood) and len(action.cards) == len(obs.hand)


def play_facts(obs: Observation, ranked: Sequence[Action], top: int = COACHED) -> tuple[PlayFacts, ...]:
    """Facts for the first ``top`` in-turn plays of ``ranked`` (the normal level's order, best first).

    Empty unless the hand waits for ``obs.seat`` with at least two plays to choose from (one play needs no
    reason). Out-of-turn actions (forces, split answers) and anything the evaluation does not rank are skipped.
    """
    if obs.to_act != obs.seat:
        return ()
    plays = [a for a in ranked if isinstance(a, IN_TURN_TYPES)]
    if len(plays) < 2:
        return ()
    s = seen(obs)
    out: list[PlayFacts] = []
    for rank, action in enumerate(plays[:top], start=1):
        out.append(_facts(obs, s, action, rank))
    return tuple(out)


def _hits_after(obs: Observation, s: Seen, action: Action) -> float | None:
    after = post_turn(s, action)
    if after is None:
        return None
    board, hand = after
    if not hand:
        return None
    return hit_chance(hand, board, s.unseen, obs.rules, payers=s.payers, unit_weight=0.0)


def _facts(obs: Observation, s: Seen, action: Action, rank: int) -> PlayFacts:
    chips = chips_of(obs, action)
    match action:
        case Knock() | GoOnTop():
            hits = hit_chance(s.hand, (), s.unseen, obs.rules, payers=s.payers, unit_weight=0.0)
            return PlayFacts(action=action, rank=rank, knock_hits=hits)
        case TakeOption():
            return PlayFacts(action=action, rank=rank, option_melds=True)
        case NewMeld() | AddToMeld() | Borrow() | MakeGood():
            out = goes_out(obs, action)
            return PlayFacts(
                action=action,
                rank=rank,
                chips=chips,
                cards_down=cards_down(obs, action),
                goes_out=out,
                hits_after=None if out else _hits_after(obs, s, action),
            )
        case Discard() if action.card is None or obs.step is Step.DRAWN:
            card = obs.drawn
            usable = any(isinstance(a, NewMeld | AddToMeld | Borrow) for a, _ in obs.legal)
            feeds = card is not None and feed_danger(s, card) >= 1.0
            return PlayFacts(
                action=action,
                rank=rank,
                dead_card=not usable,
                feeds_next=feeds,
                hits_after=_hits_after(obs, s, action),
            )
        case Discard():
            return PlayFacts(
                action=action,
                rank=rank,
                forced_back=action.card is not None and fits_board(action.card, s.board),
                hits_after=_hits_after(obs, s, action),
            )
        case _:
            return PlayFacts(action=action, rank=rank, chips=chips)


# --------------------------------------------------------------------------------------------- after the hand


@dataclass(frozen=True, slots=True, kw_only=True)
class BetterMeld:
    """At one of the player's turns a meld play went out, or collected more chips, than what he played, and the
    normal level ranks it above his play too."""

    hand_turn: int  # the player's turn of the hand (1 = his first turn)
    played: Action
    played_chips: int
    better: Action
    better_chips: int
    better_goes_out: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class MissedForce:
    """A card the player could force on another player, when forcing it pays that player nothing and breaks up
    a hand he still holds (the normal level forces it), and the player let the chance pass."""

    card: Card
    target: int  # the seat it could be forced on


@dataclass(frozen=True, slots=True, kw_only=True)
class OutCardGiven:
    """An unused pluck the player discarded became another player's option card, and that player went out with
    it (taken, or forced on him)."""

    card: Card
    taker: int  # the seat that went out with it


Miss = BetterMeld | MissedForce | OutCardGiven

MAX_MISSES = 3
"""A short note: at most this many, the costliest first (an out card given, then better melds, then forces)."""


def review_hand(start: TableState, actions: Sequence[Action], seat: int) -> tuple[Miss, ...]:
    """What ``seat`` missed in the hand played from ``start`` by ``actions`` (the deal first), the costliest first.

    Each judgement reads ``engine.observe(state, seat)`` at that moment (the player's own view), and the public
    events of the hand; nothing else of the states is looked at.
    """
    state = start
    better: list[BetterMeld] = []
    forces_open: dict[tuple[int, Card], bool] = {}  # an open chance -> taken
    missed_forces: list[MissedForce] = []
    given: list[OutCardGiven] = []
    pending: dict[int, Card] = {}  # seat -> the player's discarded pluck it holds this turn
    discards = 0  # the player's turns so far (each ends with his discard)
    turn_misses: list[BetterMeld] = []  # this turn's: a miss only if the better play is not made later in the turn
    turn_played: list[Action] = []
    for action in actions:
        before = state
        transition = engine.apply(before, action)
        state = transition.state
        hand = before.hand
        if hand is None or hand.players[seat] is None:
            continue
        obs = engine.observe(before, seat)
        chances = _force_chances(obs)
        for key in [k for k in forces_open if k not in chances]:  # the chance passed
            if not forces_open.pop(key):
                missed_forces.append(MissedForce(card=key[1], target=key[0]))
        for key in chances:
            forces_open.setdefault(key, False)
        if isinstance(action, Force) and action.seat == seat and action.card is not None:
            forces_open[(action.target if action.target is not None else -1, action.card)] = True
        if obs.to_act == seat and getattr(action, "seat", None) == seat:
            turn_played.append(action)
            found = _better_meld(obs, action, transition.events, discards + 1)
            if found is not None:
                turn_misses.append(found)
        option_mine = hand.option is not None and hand.option_from == seat
        for e in transition.events:
            match e:
                case OptionTaken() if option_mine and e.seat != seat and e.card == hand.option:
                    pending[e.seat] = e.card
                case Forced() if option_mine and not e.back and e.target != seat and e.card == hand.option:
                    pending[e.target] = e.card
                case WentOut() if e.seat in pending:
                    given.append(OutCardGiven(card=pending.pop(e.seat), taker=e.seat))
                case Discarded():
                    pending.pop(e.seat, None)
                    if e.seat == seat:
                        discards += 1
                        better.extend(_not_made(turn_misses, turn_played))
                        turn_misses, turn_played = [], []
                case _:
                    pass
    better.extend(_not_made(turn_misses, turn_played))
    missed_forces.extend(MissedForce(card=c, target=t) for (t, c), taken in forces_open.items() if not taken)
    better.sort(key=lambda b: (not b.better_goes_out, -(b.better_chips - b.played_chips)))
    misses: list[Miss] = [*given, *better, *_unique(missed_forces)]
    return tuple(misses[:MAX_MISSES])


def _not_made(misses: Sequence[BetterMeld], played: Sequence[Action]) -> list[BetterMeld]:
    """A turn's better melds the player did not make later in the turn (melding in another order misses nothing),
    one per better play."""
    out: dict[Action, BetterMeld] = {}
    for miss in misses:
        if miss.better not in played and miss.better not in out:
            out[miss.better] = miss
    return list(out.values())


def _unique(misses: Iterable[MissedForce]) -> list[MissedForce]:
    return list(dict.fromkeys(misses))


def _force_chances(obs: Observation) -> set[tuple[int, Card]]:
    """(target, card) of every force the normal level would make now from this seat's view."""
    return {
        (a.target if a.target is not None else -1, a.card)
        for a, _ in obs.legal
        if isinstance(a, Force) and a.card is not None and force_value(obs, a) > 0
    }


def _better_meld(obs: Observation, action: Action, events: Sequence[object], turn: int) -> BetterMeld | None:
    """The meld play the player should have made instead of ``action`` (a meld play or a discard), if any."""
    if not isinstance(action, NewMeld | AddToMeld | Borrow | MakeGood | Discard):
        return None
    melds = [(a, pays) for a, pays in obs.legal if isinstance(a, NewMeld | AddToMeld | Borrow | MakeGood)]
    if not melds:
        return None
    played_out = any(isinstance(e, WentOut) for e in events)
    if played_out:
        return None
    played_chips = chips_of(obs, action)
    outs = [(a, pays) for a, pays in melds if goes_out(obs, a)]
    best, best_chips = max(outs or melds, key=lambda x: x[1])  # the engine lists them best first; max keeps the first
    best_out = bool(outs)
    if not best_out and best_chips <= played_chips:
        return None
    s = seen(obs)
    if not best_out and score_action(s, best) <= score_action(s, action):
        return None  # the normal level prefers the player's play: not a miss
    return BetterMeld(
        hand_turn=turn,
        played=action,
        played_chips=played_chips,
        better=best,
        better_chips=best_chips,
        better_goes_out=best_out,
    )
