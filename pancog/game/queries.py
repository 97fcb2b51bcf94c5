"""The menu: every legal action now, with what it collects, and the read-only questions about a state.

:func:`plays` lists an action exactly when its refusal function (:mod:`.legality`) has no reason
to refuse it, and labels each meld play with what the board collects (:mod:`.settlement`):
``apply`` and the menu state each rule once, in the same place.
"""

from __future__ import annotations

from dataclasses import dataclass

from pancog.game.i18n import N_

from ._work import (
    _DISCARD_ACTION,
    _DRAW_SOURCE_OPTION,
    _ENFORCEMENT_PLAYERS,
    _FORCE_MODE_OFF,
    _FOUL_CAUSE_ABANDONED,
    _FOUL_CAUSE_INVALID_MELD,
    _PHASE_DECLARING,
    _PHASE_PLAYING,
    _PLAYER_STATUS_IN,
    _PLAYER_STATUS_RETIRED,
    _PLUCK_ACTION,
    _STEP_DRAW,
    _STEP_DRAWN,
    _STEP_MELDING,
    Work,
)
from .actions import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    Claim,
    DeclineDraw,
    DeclineSplit,
    Force,
    FoulCall,
    GoOnTop,
    Knock,
    MakeGood,
    NewMeld,
    OfferSplit,
    SetAway,
    Stand,
    TakeOption,
)
from .errors import NotYourTurn, RuleViolation
from .legality import (
    accept_split_refusal,
    claim_refusal_in_turn,
    declare_refusal,
    decline_draw_refusal_in_turn,
    decline_split_refusal,
    discard_refusal_in_turn,
    foul_refusals,
    make_good_refusal,
    meld_refusal_in_turn,
    new_meld_only,
    offer_split_refusal,
    option_play_refusal,
    pluck_refusal_in_turn,
    possible_forces,
    set_away_refusal,
    stand_refusal,
    take_option_refusal_in_turn,
    turn_refusal,
    waiting_card,
)
from .melding import resolve_play
from .melds import Meld
from .moves import iter_meld_plays, make_good_options
from .settlement import call_outs_chips, collects
from .state import PlayerHand, TableState


def to_act(state: TableState) -> int | None:
    """The one seat whose move the hand is waiting for (None between hands)."""
    h = state.hand
    if h is None:
        return None
    if h.phase is _PHASE_DECLARING:
        return h.order[h.declare_pos]
    if h.make_good is not None:
        return h.make_good[0]
    return h.turn.seat if h.turn is not None else None


def plays(state: TableState, seat: int, *, table_actions: bool = False) -> tuple[tuple[Action, int], ...]:
    """Every legal action for ``seat`` with the chips it collects now, best first.

    Meld plays come first (most chips, then most cards), then the draw, discards and out-of-turn
    actions. Every distinct meld play is listed: new melds, adds, splits in both orientations and
    borrows of any number of cards; ``apply`` accepts exactly these (under ``enforcement=players`` it
    also accepts invalid spreads, which are not listed). The table-level system actions
    ``Sit``/``Rebuy``/``StartHand`` (they take free parameters) and ``Timeout`` (the service's turn
    timer) are never listed; ``Stand``/``SetAway`` only with ``table_actions=True``.
    """
    out: list[tuple[Action, int]] = []
    seats = state.seats
    me = seats[seat] if 0 <= seat < len(seats) else None
    if me is None:
        return ()
    h = state.hand
    if h is None and not table_actions:
        return ()
    w = Work.view(state)
    if table_actions:
        if stand_refusal(w, seat) is None:
            out.append((Stand(seat=seat), 0))
        if set_away_refusal(w, seat, not me.away) is None:
            out.append((SetAway(seat=seat, away=not me.away), 0))
    if h is None:
        return tuple(out)
    players = h.players
    pl_or_none = players[seat]
    if pl_or_none is None:
        return tuple(out)
    pl = pl_or_none
    rules = state.rules
    phase = h.phase
    # declarations (incl. the change window)
    if phase is _PHASE_DECLARING or (phase is _PHASE_PLAYING and h.draws == 0 and h.last_declarer == seat):
        for decl in (Knock(seat=seat), GoOnTop(seat=seat)):
            if declare_refusal(w, seat, playing=isinstance(decl, Knock)) is None:
                out.append((decl, 0))
    if phase is not _PHASE_PLAYING:
        return tuple(out)
    t = h.turn
    if h.make_good is not None:
        if h.make_good[0] == seat and make_good_refusal(w, seat, h.make_good[1]) is None:
            m = pl.meld(h.make_good[1])
            if m is not None:
                out.extend([(a, 0) for a in _make_good_plays(pl, m)])
        return tuple(out)
    if t is not None and turn_refusal(w, seat) is None:  # his turn: each in-turn refusal below assumes it
        step = t.step
        if meld_refusal_in_turn(w, seat) is None:
            drawn = waiting_card(t)
            melds_list: list[tuple[Action, int, int]] = []
            chips_for: dict[int, int] = {0: 0}  # units -> chips collected now (same payers for every play)
            n_hand = len(pl.hand)
            option = drawn is not None and t.source is _DRAW_SOURCE_OPTION
            new_only = option and new_meld_only(t, rules)
            for play in iter_meld_plays(seat, pl.hand, pl.melds, drawn, rules, new_meld_only=new_only):
                if option and option_play_refusal(rules, play) is not None:
                    continue
                try:
                    hand, _melds, coll, _c, _k = resolve_play(rules, pl, drawn, play)
                except RuleViolation:
                    continue
                if not hand and any(not m.valid for m in _melds):
                    continue  # going out with a spread that is not valid (apply refuses it)
                units = coll.new + coll.enhanced
                chips = chips_for.get(units)
                if chips is None:
                    chips = chips_for[units] = collects(w, seat, units)
                melds_list.append((play, chips, n_hand - len(hand)))
            if melds_list:
                melds_list.sort(key=_meld_order)
                out.extend([(p, v) for p, v, _n in melds_list])
        if step is _STEP_DRAW:
            if take_option_refusal_in_turn(w, seat) is None:
                out.append((TakeOption(seat=seat), 0))
            if pluck_refusal_in_turn(w, seat) is None:
                out.append((_PLUCK_ACTION(seat), 0))
            if decline_draw_refusal_in_turn(w, seat) is None:
                out.append((DeclineDraw(seat=seat), 0))
        elif step is _STEP_DRAWN:
            if discard_refusal_in_turn(w, seat, None) is None:
                out.append((_DISCARD_ACTION(seat, None), 0))
        elif step is _STEP_MELDING:
            for m in pl.melds:
                if not m.valid and make_good_refusal(w, seat, m.id) is None:  # made good before a call: no penalty
                    out.extend([(a, 0) for a in _make_good_plays(pl, m)])
            # a hand card's discard is never refused for a reason of its own: asking for one asks for all
            if pl.hand and discard_refusal_in_turn(w, seat, pl.hand[0]) is None:
                out.extend([(_DISCARD_ACTION(seat, card), 0) for card in dict.fromkeys(pl.hand)])
            if claim_refusal_in_turn(w, seat) is None:
                out.append((Claim(seat=seat), collects(w, seat, pl.unclaimed)))
    # out of turn
    if rules.force_mode is not _FORCE_MODE_OFF and (h.option is not None or h.force_backs):
        for o in possible_forces(w, seat):
            out.append((Force(seat=seat, target=o.target, card=o.card), 0))
    if pl.status is _PLAYER_STATUS_IN:  # (only a player in action may call a foul)
        # invalid spreads exist only when the players enforce the rules
        if rules.enforcement is _ENFORCEMENT_PLAYERS:
            invalid = foul_refusals(w, seat, _FOUL_CAUSE_INVALID_MELD)
            abandoned = foul_refusals(w, seat, _FOUL_CAUSE_ABANDONED)
            for other, (why_invalid, why_abandoned) in enumerate(zip(invalid, abandoned, strict=True)):
                if why_invalid is None:
                    out.append((FoulCall(seat=seat, target=other, cause=_FOUL_CAUSE_INVALID_MELD), 0))
                if why_abandoned is None:
                    out.append((FoulCall(seat=seat, target=other, cause=_FOUL_CAUSE_ABANDONED), 0))
        else:
            out.extend(
                [
                    (FoulCall(seat=seat, target=other, cause=_FOUL_CAUSE_ABANDONED), 0)
                    for other, why in enumerate(foul_refusals(w, seat, _FOUL_CAUSE_ABANDONED))
                    if why is None
                ]
            )
    if h.split_offer is None:  # (only an offer is answered, and only one offer stands at a time)
        if offer_split_refusal(w, seat) is None:
            out.append((OfferSplit(seat=seat), 0))
    else:
        if accept_split_refusal(w, seat) is None:
            out.append((AcceptSplit(seat=seat), 0))
        if decline_split_refusal(w, seat) is None:
            out.append((DeclineSplit(seat=seat), 0))
    return tuple(out)


def _make_good_plays(pl: PlayerHand, m: Meld) -> list[MakeGood]:
    """Every way to make the invalid spread ``m`` good (not one that goes out beside another invalid spread)."""
    others_invalid = any(not x.valid for x in pl.melds if x.id != m.id)
    return [
        MakeGood(seat=pl.seat, meld=m.id, cards=cards)
        for cards in make_good_options(m, pl.hand)
        if not (others_invalid and len(cards) == len(pl.hand))
    ]


def _meld_order(x: tuple[Action, int, int]) -> tuple[int, int]:
    """Meld plays: most chips, then most cards (a stable sort keeps enumeration order on ties)."""
    return (-x[1], -x[2])


def legal_actions(state: TableState, seat: int, *, table_actions: bool = False) -> tuple[Action, ...]:
    """Every legal action for ``seat`` now, best first (see :func:`plays`)."""
    return tuple([a for a, _ in plays(state, seat, table_actions=table_actions)])


def play_value(state: TableState, action: NewMeld | AddToMeld | Borrow) -> int:
    """Chips the meld play would collect now (0 if it collects nothing).

    Raises:
        RuleViolation: if the play is not legal now.
    """
    h = state.hand
    if h is None or h.turn is None or h.turn.seat != action.seat:
        raise NotYourTurn(N_("It is not your turn."))
    w = Work(state, state.seq)
    _h, _m, coll, _c, _k = resolve_play(state.rules, w.p(action.seat), waiting_card(h.turn), action)
    return collects(w, action.seat, coll.total)


def may_act(state: TableState) -> tuple[int, ...]:
    """Seats that have any legal action now (the one to act plus out-of-turn callers)."""
    return tuple(i for i, s in enumerate(state.seats) if s is not None and plays(state, i))


def call_outs(state: TableState, seat: int) -> int:
    """Chips ``seat``'s board would collect if it went out now: outs plus going-out units from every
    player in the hand (no bust-out), capped by their stacks."""
    h = state.hand
    if h is None or h.players[seat] is None:
        return 0
    return call_outs_chips(Work(state, state.seq), seat)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclarationWindow:
    """A declaration its player may still change (RULES.md §2.5): ``playing`` is what he declared (knocked in, or
    went on top); ``until`` is the seat whose declaration closes the window, or None when he was the last to declare
    and it closes with the first card drawn from the stock."""

    playing: bool
    until: int | None


def declaration_window(state: TableState, seat: int) -> DeclarationWindow | None:
    """``seat``'s declaration while he may still change it (None: he has not declared, or can no longer change).

    >>> from pancog.game import Knock, Rules, Sit, StartHand, apply, initial_state
    >>> s = initial_state(Rules())
    >>> for i in range(3):
    ...     s = apply(s, Sit(seat=i, player_id=i + 1, buy_in=100)).state
    >>> s = apply(s, StartHand(seed=1, first_seat=0)).state
    >>> s = apply(s, Knock(seat=0)).state
    >>> declaration_window(s, 0)
    DeclarationWindow(playing=True, until=1)
    >>> declaration_window(apply(s, Knock(seat=1)).state, 0) is None
    True
    """
    h = state.hand
    pl = h.players[seat] if h is not None and 0 <= seat < len(h.players) else None
    if h is None or pl is None or pl.status not in (_PLAYER_STATUS_IN, _PLAYER_STATUS_RETIRED):
        return None
    if declare_refusal(Work.view(state), seat, playing=pl.status is _PLAYER_STATUS_RETIRED) is not None:
        return None
    until = h.order[h.declare_pos] if h.phase is _PHASE_DECLARING else None
    return DeclarationWindow(playing=pl.status is _PLAYER_STATUS_IN, until=until)
