"""Why an action is refused now: one function per action, shared by ``apply`` and the legal-action lists.

Each ``*_refusal`` function returns a :data:`Refusal` (the error and its message) or None when the
action is legal; the engine's handler raises it (:func:`refuse`) and :func:`.queries.plays` lists
the action when it is None. A refusal is a plain tuple, and the exception is built only when it is
raised: the lists ask about many actions that are refused.

The meld plays (``NewMeld``, ``AddToMeld``, ``Borrow``, ``MakeGood``) are refused here for the
turn and the step; whether their cards make a legal meld is :func:`.melding.resolve_play`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ._work import (
    _CLAIM_MODE_AUTO,
    _DRAW_SOURCE_OPTION,
    _FORCE_MODE_MANDATORY,
    _FORCE_MODE_OFF,
    _FORCE_MODE_ON_DEMAND,
    _FOUL_CAUSE_ABANDONED,
    _PHASE_DECLARING,
    _PHASE_PLAYING,
    _PLAYER_STATUS_BUSTED,
    _PLAYER_STATUS_IN,
    _PLAYER_STATUS_RETIRED,
    _PLAYER_STATUS_UNDECLARED,
    _RANK_ACE,
    _RANK_KING,
    _STEP_DRAW,
    _STEP_DRAWN,
    _STEP_MELDING,
    _STEP_MUST_USE,
    Work,
)
from .actions import AddToMeld, Borrow, FoulCause, NewMeld
from .cards import Card, Suit
from .errors import (
    CardsNotInHand,
    DeclarationClosed,
    ForceRefused,
    IllegalMeld,
    MustUse,
    NoCause,
    NoHandInProgress,
    NoHit,
    NotYourTurn,
    OptionRefused,
    RuleViolation,
    SeatError,
    SplitRefused,
    WrongStep,
)
from .melding import resolve_play
from .moves import iter_meld_plays, lay_offs
from .rules import Rules
from .settlement import payout_with
from .state import ForceBack, Turn

Refusal = tuple[type[RuleViolation], str] | tuple[type[RuleViolation], str, object]
"""Why an action is refused: the error to raise and its message, a sentence safe to show (with
``{}`` for the third item, if any: the message is formatted only when the refusal is raised)."""


def refuse(why: Refusal | None) -> None:
    """Raise the refusal, if any.

    Raises:
        RuleViolation: the refusal's error, with its message.
    """
    if why is not None:
        raise why[0](why[1].format(*why[2:]))


# --------------------------------------------------------------------------------------------- the seat


def seat_refusal(w: Work, seat: int) -> Refusal | None:
    if w.seats[seat] if 0 <= seat < len(w.seats) else None:
        return None
    return SeatError, "That seat is empty."


def stand_refusal(w: Work, seat: int) -> Refusal | None:
    why = seat_refusal(w, seat)
    if why is not None or w.h is None:
        return why
    st = w.status(seat)
    if st is None or st in (_PLAYER_STATUS_RETIRED, _PLAYER_STATUS_BUSTED, _PLAYER_STATUS_UNDECLARED):
        return None
    if w.seat(seat).leaving:
        return SeatError, "You are already leaving after this hand."
    return None


def set_away_refusal(w: Work, seat: int, away: bool) -> Refusal | None:
    why = seat_refusal(w, seat)
    if why is not None:
        return why
    if w.seat(seat).away == away:
        return SeatError, "You are already away." if away else "You are already back."
    return None


def slot_free(w: Work, i: int) -> bool:
    if w.seats[i] is not None:
        return False
    return w.h is None or w.players[i] is None


# --------------------------------------------------------------------------------------------- declarations


def declare_refusal(w: Work, seat: int, *, playing: bool) -> Refusal | None:
    """Why ``seat`` may not declare (or change to) ``playing`` now, or None if he may."""
    if w.h is None:
        return NoHandInProgress, "No hand is in progress."
    pl = w.players[seat] if 0 <= seat < len(w.players) else None
    if pl is None:
        return SeatError, "That player is not in this hand."
    order = w.h.order
    if w.phase is _PHASE_DECLARING and order[w.declare_pos] == seat:
        return None
    new = _PLAYER_STATUS_IN if playing else _PLAYER_STATUS_RETIRED
    if pl.status is _PLAYER_STATUS_UNDECLARED:
        return NotYourTurn, "It is not your turn to declare."
    if pl.status not in (_PLAYER_STATUS_IN, _PLAYER_STATUS_RETIRED):
        return DeclarationClosed, "Your declaration can no longer be changed."
    if pl.status is new:
        return DeclarationClosed, "You have already declared that."
    if w.phase is not _PHASE_DECLARING and w.phase is not _PHASE_PLAYING:
        return DeclarationClosed, "Your declaration can no longer be changed."
    if w.last_declarer != seat:
        return DeclarationClosed, "You can change your declaration only until the next player declares."
    if w.phase is _PHASE_PLAYING and (w.draws > 0 or w.make_good is not None):
        return DeclarationClosed, "The last player can change his declaration only until the first card is drawn."
    s = w.seats[seat]
    if s is None:
        return DeclarationClosed, "You have left the table."
    if playing and s.leaving:
        return DeclarationClosed, "You are leaving the table."
    return None


# --------------------------------------------------------------------------------------------- the turn


def turn_refusal(w: Work, seat: int) -> Refusal | None:
    """Why it is not ``seat``'s turn to play now (None: ``w.turn`` is his)."""
    if w.h is None:
        return NoHandInProgress, "No hand is in progress."
    if w.phase is not _PHASE_PLAYING:
        return WrongStep, "The players are still declaring."
    if w.make_good is not None:
        if w.make_good[0] == seat:
            return WrongStep, "You must make your spread good first."
        return NotYourTurn, "A spread is being made good."
    t = w.turn
    if t is None or t.seat != seat:
        return NotYourTurn, "It is not your turn."
    return None


def pluck_refusal(w: Work, seat: int) -> Refusal | None:
    return turn_refusal(w, seat) or pluck_refusal_in_turn(w, seat)


def pluck_refusal_in_turn(w: Work, seat: int) -> Refusal | None:
    """:func:`pluck_refusal` once it is ``seat``'s turn (the menu asks :func:`turn_refusal` once)."""
    t = w.turn
    if t is None or t.step is not _STEP_DRAW:
        return WrongStep, "You have already drawn this turn."
    if t.forced_back:
        return WrongStep, "You must use the forced card."
    if mandatory_option(w, seat):
        return MustUse, "You must take the option card: it fits your board."
    return None


def decline_draw_refusal(w: Work, seat: int) -> Refusal | None:
    """Why ``seat`` may not decline a pluck now: only the double draw's second pluck is a right he may
    waive ([S0] "the right to draw twice"); every other draw is his turn's one move."""
    return turn_refusal(w, seat) or decline_draw_refusal_in_turn(w, seat)


def decline_draw_refusal_in_turn(w: Work, seat: int) -> Refusal | None:
    """:func:`decline_draw_refusal` once it is ``seat``'s turn (the menu asks :func:`turn_refusal` once)."""
    t = w.turn
    if t is None or t.step is not _STEP_DRAW or not t.second_pluck:
        return WrongStep, "Only the second pluck of the first player's double draw may be declined."
    return None


def take_option_refusal(w: Work, seat: int) -> Refusal | None:
    return turn_refusal(w, seat) or take_option_refusal_in_turn(w, seat)


def take_option_refusal_in_turn(w: Work, seat: int) -> Refusal | None:
    """:func:`take_option_refusal` once it is ``seat``'s turn (the menu asks :func:`turn_refusal` once)."""
    t = w.turn
    if not w.rules.option_card:
        return OptionRefused, "This table plays without the option card."
    if t is None or t.step is not _STEP_DRAW or t.forced_back:
        return OptionRefused, "You can take the option card only instead of drawing."
    card = w.option
    if card is None or w.option_from == seat:
        return OptionRefused, "There is no option card for you: only the previous player's unused pluck is one."
    if not usable(w, seat, card, option=True):
        return OptionRefused, "You can take {} only if you can meld it at once.", card
    return None


def meld_refusal(w: Work, seat: int) -> Refusal | None:
    """Why ``seat`` may not make a meld play now, whatever its cards."""
    return turn_refusal(w, seat) or meld_refusal_in_turn(w, seat)


def meld_refusal_in_turn(w: Work, seat: int) -> Refusal | None:
    """:func:`meld_refusal` once it is ``seat``'s turn (the menu asks :func:`turn_refusal` once)."""
    t = w.turn
    if t is None or t.step is _STEP_DRAW:
        return NoHit, "Draw first: you can meld only after a hit with the drawn card."
    return None


def waiting_card(t: Turn) -> Card | None:
    """The drawn (plucked, option or forced) card the meld plays of this turn step must use."""
    return t.drawn if t.step is _STEP_DRAWN or t.step is _STEP_MUST_USE else None


def new_meld_only(t: Turn, rules: Rules) -> bool:
    """Whether the waiting card is an option card that must go into a new meld (no lay-off)."""
    return t.drawn is not None and t.source is _DRAW_SOURCE_OPTION and not rules.option_card_layoff


def meld_play_refusal(w: Work, a: NewMeld | AddToMeld | Borrow) -> Refusal | None:
    """Why the meld play ``a`` is refused by the turn and step (its cards: :func:`resolve_play`)."""
    why = meld_refusal(w, a.seat)
    if why is not None:
        return why
    t = w.turn
    if t is not None and t.source is _DRAW_SOURCE_OPTION and waiting_card(t) is not None:
        return option_play_refusal(w.rules, a)
    return None


def option_play_refusal(rules: Rules, a: NewMeld | AddToMeld | Borrow) -> Refusal | None:
    """Why the meld play ``a`` may not use the option card. RULES.md §2.7 (b): the option card goes into
    a new meld with cards from the taker's hand, or is laid off on one of his own melds (G9: new melds
    only at tables without option-card lay-offs); a borrow that puts no hand card into the new meld is
    neither."""
    if isinstance(a, AddToMeld) and not rules.option_card_layoff:
        return OptionRefused, "At this table the option card must go into a new meld."
    if isinstance(a, Borrow) and not a.cards:
        return (
            OptionRefused,
            "The option card must go into a new meld with cards from your hand, or onto one of your melds.",
        )
    return None


def option_plays(w: Work, seat: int, card: Card) -> Iterator[tuple[Card, ...]]:
    """The hand ``seat`` would keep after each legal play of ``card`` as his option card (one per play).

    The one statement of what taking the option card allows: :func:`usable` (may he take it) and
    :func:`goes_out_with_option` (would it put him out) both read it.
    """
    pl = w.p(seat)
    r = w.rules
    for play in iter_meld_plays(seat, pl.hand, pl.melds, card, r, new_meld_only=not r.option_card_layoff):
        if option_play_refusal(r, play) is not None:
            continue
        try:
            hand, melds, _coll, _changed, _kind = resolve_play(r, pl, card, play)
        except RuleViolation:
            continue
        if not hand and any(not m.valid for m in melds):
            continue  # nobody goes out with an invalid spread
        yield hand


def goes_out_with_option(w: Work, seat: int, card: Card) -> bool:
    """Whether ``seat`` could go out by taking ``card`` as the option card (at a table with option cards)."""
    return w.rules.option_card and any(not hand for hand in option_plays(w, seat, card))


def make_good_refusal(w: Work, seat: int, meld: int) -> Refusal | None:
    """Why ``seat`` may not make his spread ``meld`` good now (with whatever cards)."""
    if w.h is None:
        return NoHandInProgress, "No hand is in progress."
    pending = w.make_good
    if pending is not None and pending[0] != seat:
        return NotYourTurn, "A spread is being made good."
    if pending is None:
        t = w.turn
        if t is None or t.seat != seat or t.step is not _STEP_MELDING:
            return WrongStep, "You can make a spread good during your turn, after your hit."
    m = w.p(seat).meld(meld)
    if m is None or m.valid:
        return IllegalMeld, "That meld does not need to be made good."
    if pending is not None and pending[1] != meld:
        return IllegalMeld, "You must make meld {} good.", pending[1]
    return None


def claim_refusal(w: Work, seat: int) -> Refusal | None:
    return turn_refusal(w, seat) or claim_refusal_in_turn(w, seat)


def claim_refusal_in_turn(w: Work, seat: int) -> Refusal | None:
    """:func:`claim_refusal` once it is ``seat``'s turn (the menu asks :func:`turn_refusal` once)."""
    t = w.turn
    if w.rules.effective_claim_mode is _CLAIM_MODE_AUTO:
        return WrongStep, "Pays are collected automatically at this table."
    if t is None or t.step is not _STEP_MELDING:
        return NoHit, "You can claim pays only after using a card this turn."
    if w.p(seat).unclaimed <= 0:
        return WrongStep, "You have nothing to claim."
    return None


def discard_refusal(w: Work, seat: int, card: Card | None) -> Refusal | None:
    """Why ``seat`` may not discard ``card`` now (None: his unused pluck)."""
    return turn_refusal(w, seat) or discard_refusal_in_turn(w, seat, card)


def discard_refusal_in_turn(w: Work, seat: int, card: Card | None) -> Refusal | None:
    """:func:`discard_refusal` once it is ``seat``'s turn (the menu asks :func:`turn_refusal` once)."""
    t = w.turn
    if card is not None and (t is None or card != t.drawn) and card not in w.p(seat).hand:
        return CardsNotInHand, "You don't hold {}.", card  # before any rule on what may be discarded
    if t is None or t.step is _STEP_DRAW:
        return WrongStep, "Draw first."
    if t.step is _STEP_MUST_USE:
        return MustUse, "You must use that card: it cannot be discarded."
    if t.step is _STEP_DRAWN:
        drawn = t.drawn
        if drawn is None:
            return WrongStep, "There is no drawn card to discard."
        if card is not None and card != drawn:
            return NoHit, "Before a hit you can only discard the card you drew."
        return pluck_discard_refusal(w, seat, drawn)
    if card is None:
        return WrongStep, "Choose a card from your hand to discard."
    return None  # the card must be in his hand: take_cards says which one is not


def pluck_discard_refusal(w: Work, seat: int, card: Card) -> Refusal | None:
    """Why ``seat`` may not discard his unused pluck ``card`` now (it must be used), or None."""
    if w.solo and usable(w, seat, card):
        return MustUse, "Playing out alone, you must use every usable card."
    nxt = w.next_active(seat)
    if (
        nxt is not None
        and nxt != seat
        and is_flat(w, nxt)
        and goes_out_with_option(w, nxt, card)
        and usable(w, seat, card)
    ):
        return MustUse, "You may not give an out card to a flat player when you can use it yourself."
    return None


# --------------------------------------------------------------------------------------------- the draw


def option_fits(w: Work, seat: int) -> bool:
    return w.option is not None and lay_offs(w.p(seat).melds, w.option)


def is_flat(w: Work, seat: int) -> bool:
    pl = w.p(seat)
    return not pl.hand and all(m.valid for m in pl.melds)


def force_out_allowed(w: Work, target: int, card: Card, other: int | None) -> bool:
    """Whether a force that puts ``target`` out is allowed (§5.3): head-up, or the same card puts
    ``other`` out for more."""
    if len(w.in_action()) == 2:
        return True
    if other is None or w.status(other) is not _PLAYER_STATUS_IN:
        return False
    if not (is_flat(w, other) and lay_offs(w.p(other).melds, card)):
        return False
    return payout_with(w, target, card) < payout_with(w, other, card)


def mandatory_option(w: Work, seat: int) -> bool:
    """Under mandatory forcing: the option card fits the board and must be taken."""
    if w.rules.force_mode is not _FORCE_MODE_MANDATORY or not option_fits(w, seat):
        return False
    if w.option is None:
        raise RuntimeError("engine invariant broken")
    if is_flat(w, seat):
        return force_out_allowed(w, seat, w.option, w.option_from)
    return True


def usable(w: Work, seat: int, card: Card, *, option: bool = False) -> bool:
    """Whether ``seat`` can meld ``card`` now (as an option card: only as :func:`option_plays` allows)."""
    pl = w.p(seat)
    invalid = any(not m.valid for m in pl.melds)
    if not pl.hand and invalid:
        return False  # flat beside a spread that is not valid: the card could only put him out, which is refused
    new_only = option and not w.rules.option_card_layoff
    if not new_only and lay_offs(pl.melds, card):
        return True  # it lays off on its own (the add or add-and-split is always legal)
    if (len(pl.hand) > 2 or not invalid) and makes_new_meld(pl.hand, card):
        return True  # a new meld with two hand cards (legal unless it empties his hand beside an invalid spread)
    if option:
        return any(True for _hand in option_plays(w, seat, card))
    for play in iter_meld_plays(seat, pl.hand, pl.melds, card, w.rules):
        try:
            hand, melds, _coll, _changed, _kind = resolve_play(w.rules, pl, card, play)
        except RuleViolation:
            continue
        if not hand and any(not m.valid for m in melds):
            continue  # nobody goes out with an invalid spread
        return True
    return False


def makes_new_meld(hand: Sequence[Card], card: Card) -> bool:
    """Whether ``card`` and hand cards form a legal meld of three: two of its rank (two of its suit,
    or two other suits; any two for an Ace or King), or two suit neighbours in sequence.

    A sufficient test for :func:`usable` (the new meld is a legal play), not a necessary one.
    """
    rank, suit = card.rank, card.suit
    same = 0
    n_rank = 0
    others: set[Suit] = set()
    near: set[int] = set()
    for c in hand:
        if c.rank is rank:
            n_rank += 1
            if c.suit is suit:
                same += 1
            else:
                others.add(c.suit)
        elif c.suit is suit:
            near.add(c.rank)
    if rank is _RANK_ACE or rank is _RANK_KING:
        if n_rank >= 2:
            return True
    elif same >= 2 or len(others) >= 2:
        return True
    r = int(rank)
    if r - 1 in near:
        return r - 2 in near or r + 1 in near
    return r + 1 in near and r + 2 in near


# --------------------------------------------------------------------------------------------- forcing


@dataclass(frozen=True, slots=True)
class ForceOption:
    target: int
    card: Card
    back: ForceBack | None


def possible_forces(w: Work, caller: int) -> list[ForceOption]:
    """Every force ``caller`` may make now: the option card on the player in turn, force-backs."""
    r = w.rules
    if w.h is None or w.phase is not _PHASE_PLAYING or r.force_mode is _FORCE_MODE_OFF:
        return []
    players = w.players
    me = players[caller] if 0 <= caller < len(players) else None
    if me is None or me.status is not _PLAYER_STATUS_IN or w.make_good is not None:
        return []
    t = w.turn
    if t is None or t.forced_back or (w.option is None and not w.force_backs):
        return []
    out: list[ForceOption] = []
    # the option card on the player in turn
    if (
        r.force_mode is _FORCE_MODE_ON_DEMAND
        and w.option is not None
        and t.seat != caller
        and w.option_from != caller
        and t.step in (_STEP_DRAW, _STEP_DRAWN)
        and option_fits(w, t.seat)
        and (not is_flat(w, t.seat) or force_out_allowed(w, t.seat, w.option, w.option_from))
    ):
        out.append(ForceOption(t.seat, w.option, None))
    # force-back on a discarder
    head_up: bool | None = None
    for fb in reversed(w.force_backs):
        owner = fb.owner
        if owner == caller:  # (the discarder may be the player in turn: head-up, his window can still be open)
            continue
        op = players[owner] if 0 <= owner < len(players) else None
        if op is None or op.status is not _PLAYER_STATUS_IN:
            continue
        if caller in fb.drawers:
            if head_up is None:
                head_up = len(w.in_action()) == 2
            if not head_up:  # head-up: both keep the right
                continue
        if lay_offs(op.melds, fb.card):
            out.append(ForceOption(owner, fb.card, fb))
    return out


def force_refusal(w: Work, options: list[ForceOption]) -> Refusal | None:
    """Why a force is refused, given the :func:`possible_forces` that match the card and player it names."""
    if w.h is None:
        return NoHandInProgress, "No hand is in progress."
    if w.rules.force_mode is _FORCE_MODE_OFF:
        return ForceRefused, "This table plays without forcing."
    if not options:
        return ForceRefused, "There is no card you can force now."
    if len({o.target for o in options}) > 1:
        return ForceRefused, "Say which player you force."
    return None


# --------------------------------------------------------------------------------------------- fouls


_OWN_HAND: Refusal = (NoCause, "No player may call his own hand foul.")
_NOT_IN_ACTION: Refusal = (NoCause, "That player is not in action.")
_NOT_ABANDONED: Refusal = (NoCause, "That player has not abandoned the hand.")
_NO_INVALID_SPREAD: Refusal = (NoCause, "That player has no invalid spread.")
_MAKING_GOOD: Refusal = (NoCause, "A spread is already being made good.")


def foul_refusals(w: Work, caller: int, cause: FoulCause) -> list[Refusal | None]:
    """Why ``caller`` may not call each seat's hand foul for ``cause`` now, by seat slot (None: he may).

    One answer for every seat at once, in one pass: the menu asks it at every step.
    """
    why: Refusal | None = None
    if w.h is None:
        why = (NoHandInProgress, "No hand is in progress.")
    elif w.phase is not _PHASE_PLAYING:
        why = (NoCause, "Fouls can be called only while the hand is played.")
    else:
        me = w.players[caller] if 0 <= caller < len(w.players) else None
        if me is None or me.status is not _PLAYER_STATUS_IN:
            why = (NoCause, "Only a player in action may call a foul.")
    if why is not None:
        return [why] * len(w.seats)
    if cause is _FOUL_CAUSE_ABANDONED:  # away, or timed out too often
        abandon = w.rules.abandon_timeouts
        return [
            _OWN_HAND
            if target == caller
            else _NOT_IN_ACTION
            if pl is None or pl.status is not _PLAYER_STATUS_IN
            else None
            if (s is not None and s.away) or pl.timeouts >= abandon
            else _NOT_ABANDONED
            for target, (pl, s) in enumerate(zip(w.players, w.seats, strict=False))
        ]
    making_good = w.make_good is not None  # an invalid spread not made good
    return [
        _OWN_HAND
        if target == caller
        else _NOT_IN_ACTION
        if pl is None or pl.status is not _PLAYER_STATUS_IN
        else _NO_INVALID_SPREAD
        if all(m.valid for m in pl.melds)
        else _MAKING_GOOD
        if making_good
        else None
        for target, pl in enumerate(w.players)
    ]


def foul_refusal(w: Work, caller: int, target: int, cause: FoulCause) -> Refusal | None:
    """Why ``caller`` may not call ``target``'s hand foul for ``cause`` now (see :func:`foul_refusals`)."""
    whys = foul_refusals(w, caller, cause)
    return whys[target] if 0 <= target < len(whys) else _NOT_IN_ACTION


# --------------------------------------------------------------------------------------------- splitting the tops


def offer_split_refusal(w: Work, seat: int) -> Refusal | None:
    if w.h is None:
        return NoHandInProgress, "No hand is in progress."
    if not w.rules.split_tops:
        return SplitRefused, "This table does not allow splitting the tops."
    me = w.players[seat] if 0 <= seat < len(w.players) else None
    if w.phase is not _PHASE_PLAYING or me is None or me.status is not _PLAYER_STATUS_IN:
        return SplitRefused, "Only the last two players in action may split the tops."
    if w.split_offer is not None:
        return SplitRefused, "A split is already offered."
    if len(w.in_action()) != 2:
        return SplitRefused, "Only the last two players in action may split the tops."
    return None


def accept_split_refusal(w: Work, seat: int) -> Refusal | None:
    """Why ``seat`` may not accept a split offer now."""
    if w.h is None:
        return NoHandInProgress, "No hand is in progress."
    if w.split_offer is None:
        return SplitRefused, "Nobody has offered to split the tops."
    if seat == w.split_offer or seat not in w.in_action():
        return SplitRefused, "Only the other player in action can answer the split offer."
    return None


def decline_split_refusal(w: Work, seat: int) -> Refusal | None:
    """Why ``seat`` may not decline (or, as the one who offered it, withdraw) a split offer now."""
    if w.h is not None and w.split_offer == seat:
        return None
    return accept_split_refusal(w, seat)
