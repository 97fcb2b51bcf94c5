"""Hints for people: legal plays ordered by the normal level's evaluation, and one-sentence explanations.

- :func:`rank_plays` orders a seat's legal actions for the "legal plays" menu of My hand;
- :func:`explain` says in one plain sentence why an action is suggested (``/hint`` on practice tables);
- :func:`hint` is the suggested action with its sentence.

The text is plain (no Discord markup), so the presenters can wrap it as they like.
"""

from __future__ import annotations

from collections.abc import Sequence

from pancog.game.actions import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    DeclineDraw,
    DeclineSplit,
    Discard,
    Force,
    GoOnTop,
    Knock,
    NewMeld,
    Pluck,
    TakeOption,
)
from pancog.game.cards import format_cards
from pancog.game.engine import Observation

from .base import IN_TURN_TYPES, chips_of, choices, reactions
from .evaluate import fits_board, made_cards
from .players import (
    GOING_OUT,
    feed_danger,
    force_value,
    knock_strength,
    player_view,
    rank_actions,
    seen,
    wants_to_knock,
)

UNRANKED = -1e9
"""Score given to actions the evaluation does not rank (listed last, in the engine's order)."""


def rank_plays(obs: Observation, legal: Sequence[Action] | None = None) -> list[tuple[Action, float]]:
    """``legal`` (default: every legal action in ``obs``) ordered best first by the normal level's evaluation.

    In-turn actions are scored by the normal evaluation, forces by how much they hurt the target; any
    other action (foul calls, split offers, table actions) follows with score :data:`UNRANKED`. The
    returned actions are the very objects of ``legal`` (callers may match them by identity).
    """
    acts = list(legal) if legal is not None else [a for a, _ in obs.legal]
    in_turn = [a for a in acts if isinstance(a, IN_TURN_TYPES)] if obs.to_act == obs.seat else []
    ranked = rank_actions(obs, in_turn) if in_turn else []
    forces = sorted(((a, force_value(obs, a)) for a in acts if isinstance(a, Force)), key=lambda x: -x[1])
    done = {id(a) for a, _ in ranked} | {id(a) for a, _ in forces}
    rest = [(a, UNRANKED) for a in acts if id(a) not in done]
    return [*ranked, *forces, *rest]


def hint(obs: Observation) -> tuple[Action, str] | None:
    """The normal level's suggested action for ``obs`` and its explanation (None if nothing to do)."""
    legal = choices(obs)
    if legal:
        best = rank_actions(obs, legal)[0][0]
        return best, explain(obs, best)
    for a in reactions(obs):
        if isinstance(a, Force) and force_value(obs, a) > 0:
            return a, explain(obs, a)
    return None


def _pct(x: float) -> str:
    return f"{round(100 * min(1.0, x))}%"


def _chips(n: int) -> str:
    return f"{n} chip" if n == 1 else f"{n} chips"


def explain(obs: Observation, action: Action) -> str:
    """One plain sentence explaining why ``action`` is (or would be) played from ``obs``."""
    s = seen(obs)
    chips = chips_of(obs, action)
    pay = f", collecting {_chips(chips)}" if chips > 0 else ""
    match action:
        case Knock():
            made = made_cards(s.hand)
            return f"Knock: about {_pct(knock_strength(s))} of the unseen cards would give you a hit" + (
                f" and {made} of your cards already form melds." if made else "."
            )
        case GoOnTop():
            if wants_to_knock(s):
                return (
                    f"Go on top: you would lose only your ante, though about {_pct(knock_strength(s))} of the "
                    "unseen cards would give you a hit."
                )
            return (
                f"Go on top: only about {_pct(knock_strength(s))} of the unseen cards would give you a hit, "
                "so playing this hand would likely cost more than your ante."
            )
        case Pluck():
            if obs.option is not None and any(isinstance(a, TakeOption) for a, _ in obs.legal):
                return f"Pluck from the stock: the option card {obs.option} does not help your hand enough."
            if obs.option is not None:
                return f"Pluck from the stock: the option card {obs.option} does not meld with your cards."
            return "Pluck from the stock: there is no option card you can use."
        case DeclineDraw():
            return (
                f"Don't draw again: the next player is flat and your first pluck {obs.muck_top} cannot put him "
                "out, while another card off the stock might."
            )
        case TakeOption():
            card = obs.option
            return f"Take the option card {card}: it melds at once and counts as your hit."
        case NewMeld():
            drawn = f" with the {obs.drawn}" if obs.drawn is not None else ""
            out = " and puts you out" if _goes_out(obs, action) else ""
            return f"Meld {format_cards(action.cards)}{drawn}{pay}{out}."
        case AddToMeld():
            cards = [*([obs.drawn] if obs.drawn is not None else []), *action.cards]
            what = format_cards(cards)
            split = " and split it into two melds" if action.split is not None else ""
            out = " and puts you out" if _goes_out(obs, action) else ""
            return f"Lay {what} off on your meld {action.meld}{split}{pay}{out}."
        case Borrow():
            taken = format_cards(c for _, c in action.taken)
            out = " and puts you out" if _goes_out(obs, action) else ""
            own = [*action.cards, *([obs.drawn] if obs.drawn is not None else [])]
            return f"Borrow {taken} from your board to make a new meld with {format_cards(own)}{pay}{out}."
        case Discard():
            if action.card is None or (action.card == obs.drawn and not obs.hand.count(action.card)):
                card = obs.drawn
                usable = any(isinstance(a, NewMeld | AddToMeld | Borrow) for a, _ in obs.legal)
                danger = feed_danger(s, card) if card is not None else 0.0
                if not usable:
                    return f"Throw the {card} away: it melds with nothing in your hand or on your board."
                tail = (
                    "; watch out, it fits the next player's board"
                    if danger >= 1.0
                    else ", and it gives the next player nothing he can lay off"
                )
                return f"Throw the {card} away: using it would break up more of your hand than it adds{tail}."
            why = (
                "it fits your own board, so it may be forced back on you"
                if fits_board(action.card, s.board)
                else "it helps your hand the least (it is part of no pair or near-sequence you need)"
            )
            return f"Discard {action.card}: {why}."
        case Force():
            target = player_view(obs, action.target)
            held = f" while he still holds {target.hand_count} cards" if target is not None else ""
            return (
                f"Force {action.card} on seat {action.target}: it pays him nothing and makes him break up "
                f"his hand{held}."
            )
        case AcceptSplit():
            return "Accept the split: the other player's board is ahead of yours."
        case DeclineSplit():
            return "Decline the split: your board is as good as the other player's."
        case _:
            return "This is a legal play."


def _goes_out(obs: Observation, action: NewMeld | AddToMeld | Borrow) -> bool:
    s = seen(obs)
    from .players import score_action

    return score_action(s, action) >= GOING_OUT
