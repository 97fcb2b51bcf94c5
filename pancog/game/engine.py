"""The Pan engine: ``apply(state, action) -> Transition(state, events)``, pure and replayable.

An illegal action raises a :class:`RuleViolation` subclass whose message is a plain sentence
safe to show a player, and nothing changes (the input state is never mutated). Chips leave the
engine only as events. Internally each action runs on a mutable working copy (:class:`Work`)
that is frozen into the next :class:`TableState`.

This module holds the transitions. Each rule is stated once, next door:

- :mod:`.legality`: why an action is refused now (one ``*_refusal`` function per action), used by
  the handlers here and by the menu;
- :mod:`.melding`: what a meld play does to a player's cards;
- :mod:`.settlement`: what a board collects and what going out pays;
- :mod:`.queries`: the menu (``plays``, ``legal_actions``) and the other read-only questions;
- :mod:`.observe`: what one seat may see; :mod:`._work`: the working copy.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, assert_never

from pancog.game.i18n import N_

from . import _fast
from ._work import (
    _CARD_PLUCKED,
    _CHIP_REASON_ANTE,
    _CHIP_REASON_BUST_OUT,
    _CHIP_REASON_CONDITION,
    _CHIP_REASON_FORFEIT,
    _CHIP_REASON_FORFEIT_BACK,
    _CHIP_REASON_GOING_OUT,
    _CHIP_REASON_OUTS,
    _CHIP_REASON_RAKE,
    _CHIP_REASON_REFUND,
    _CHIP_REASON_SPLIT,
    _CHIP_REASON_TOPS,
    _CHIP_REASON_TOPS_REFUND,
    _CLAIM_MODE_FORFEIT,
    _DISCARDED,
    _DRAW_SOURCE_FORCED,
    _DRAW_SOURCE_OPTION,
    _DRAW_SOURCE_STOCK,
    _END_REASON_LONE,
    _END_REASON_NOBODY,
    _END_REASON_OUT,
    _END_REASON_SETTLED,
    _END_REASON_SPLIT,
    _END_REASON_VOID,
    _FORCE_BACK,
    _FOUL_CAUSE_INVALID_MELD,
    _FOUL_REFUNDS_PAYERS,
    _MELD_PLAY_KIND_MAKE_GOOD,
    _NEW_TURN,
    _NOBODY_IN_REFUND,
    _ODD_CHIP_NEXT_PLAYER,
    _ONE_LEFT_SETTLE_NOW,
    _PHASE_DECLARING,
    _PHASE_OVER,
    _PHASE_PLAYING,
    _PLAYER_STATUS_BUSTED,
    _PLAYER_STATUS_FOULED,
    _PLAYER_STATUS_IN,
    _PLAYER_STATUS_QUIT,
    _PLAYER_STATUS_RETIRED,
    _PLAYER_STATUS_UNDECLARED,
    _POT_DOUBLES,
    _POT_HOUSE,
    _POT_SINGLES,
    _START_MODE_DOUBLE_DRAW,
    _START_MODE_UPCARD,
    _STEP_DRAW,
    _STEP_DRAWN,
    _STEP_MELDING,
    _STEP_MUST_USE,
    _STOCK_EXHAUSTED_RESHUFFLE_MUCK,
    _UNWON_DOUBLES_TOPS_REFUND,
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
    Discard,
    FloorFoul,
    Force,
    FoulCall,
    GoOnTop,
    Knock,
    MakeGood,
    NewMeld,
    OfferSplit,
    Pluck,
    Rebuy,
    SetAway,
    SetStakes,
    Sit,
    Stand,
    StartHand,
    TakeOption,
    Timeout,
)
from .cards import Card, sort_hand, take_cards
from .errors import (
    ChipsError,
    DeclarationClosed,
    ForceRefused,
    HandInProgress,
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
from .events import (
    AwaySet,
    BoughtIn,
    CardsDealt,
    CashedOut,
    ChipsMoved,
    Declared,
    DrawDeclined,
    Event,
    Forced,
    FoulCalled,
    HandEnded,
    HandFouled,
    HandStarted,
    MakeGoodDemanded,
    MarriedSplitOffered,
    Melded,
    OptionTaken,
    PlayerBusted,
    PlayerQuit,
    PlayStarted,
    PluckVoided,
    SeatLeft,
    SeatTaken,
    SplitDeclined,
    SplitOffered,
    StockReshuffled,
    TimedOut,
    UpcardTurned,
    WentOut,
)
from .legality import (
    accept_split_refusal,
    claim_refusal,
    declare_refusal,
    decline_draw_refusal,
    decline_split_refusal,
    discard_refusal,
    force_refusal,
    foul_refusal,
    make_good_refusal,
    meld_play_refusal,
    offer_split_refusal,
    pluck_refusal,
    possible_forces,
    refuse,
    set_away_refusal,
    slot_free,
    stand_refusal,
    take_option_refusal,
    waiting_card,
)
from .melding import next_meld_id, resolve_play
from .melds import (
    fresh_collection,
    is_valid_run,
    is_valid_set,
    make_meld,
)
from .moves import make_good_cards, meld_plays
from .observe import Observation, PlayerView, observe
from .queries import (
    DeclarationWindow,
    call_outs,
    declaration_window,
    legal_actions,
    may_act,
    play_value,
    plays,
    to_act,
)
from .settlement import bust_out_units, out_pay
from .state import (
    EndReason,
    HandState,
    PlayerHand,
    Seat,
    TableState,
    Turn,
)


@dataclass(frozen=True, slots=True)
class Transition:
    state: TableState
    events: tuple[Event, ...]


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------


def apply(state: TableState, action: Action) -> Transition:
    """Apply ``action``; return the next state and the events it produced.

    Raises:
        RuleViolation: (or a subclass) if the rules forbid the action now; nothing changes.
    """
    seq = state.seq + 1
    if isinstance(action, Timeout):
        return _apply_timeout(state, action, seq)
    w = Work(state, seq)
    _dispatch(w, action)
    return Transition(w.freeze(), tuple(w.events))


def going_out_pay(state: TableState, seat: int, play: Action | None = None) -> tuple[ChipsMoved, ...]:
    """The chips ``seat`` would be paid by going out now, as the settlement would post them to it, computed on a
    scratch copy (nothing changes). Empty when ``seat`` is not in action in a hand being played.

    With ``play`` (a legal meld play that empties the hand): what applying it pays ``seat`` — the play's
    conditions, the bust-out, the outs, the going-out units and the tops. Empty if the play does not go out.
    Without: going out with the board as it lies (there is no play, so no play's conditions and no bust-out):
    what is still unclaimed, the outs and the going-out units from every payer, at each pair's rate and capped by
    his stack, then the tops (``_settle``, the settlement of a real going out).

    Raises:
        RuleViolation: if ``play`` is not legal now.
    """
    h = state.hand
    if h is None or h.phase is not _PHASE_PLAYING or not 0 <= seat < len(h.players):
        return ()
    pl = h.players[seat]
    if pl is None or pl.status is not _PLAYER_STATUS_IN:
        return ()
    if play is not None:
        events = apply(state, play).events
        if not any(isinstance(e, WentOut) and e.seat == seat for e in events):
            return ()
    else:
        w = Work(state, state.seq + 1)
        _settle(w, seat, going_out=True)
        events = tuple(w.events)
    return tuple(e for e in events if isinstance(e, ChipsMoved) and e.payee == seat)


def verify(state: TableState, action: Action) -> None:
    """Raise the RuleViolation ``apply`` would raise, else return None.

    Raises:
        RuleViolation: if the action is illegal now.
    """
    apply(state, action)


def can(state: TableState, action: Action) -> bool:
    """Whether ``action`` is legal now."""
    try:
        apply(state, action)
    except RuleViolation:
        return False
    return True


def _dispatch(w: Work, action: Action) -> None:
    handler = _HANDLERS.get(type(action))
    if handler is not None:
        handler(w, action)
        return
    _dispatch_match(w, action)


def _dispatch_match(w: Work, action: Action) -> None:
    match action:
        case Sit():
            _sit(w, action)
        case Rebuy():
            _rebuy(w, action)
        case Stand():
            _stand(w, action)
        case SetAway():
            _set_away(w, action)
        case SetStakes():
            _set_stakes(w, action)
        case StartHand():
            _start_hand(w, action)
        case Knock() | GoOnTop():
            _declare(w, action.seat, playing=isinstance(action, Knock))
        case Pluck():
            _pluck(w, action)
        case DeclineDraw():
            _decline_draw(w, action)
        case TakeOption():
            _take_option(w, action)
        case NewMeld() | AddToMeld() | Borrow():
            _meld_play(w, action)
        case MakeGood():
            _make_good(w, action)
        case Claim():
            _claim(w, action)
        case Discard():
            _discard(w, action)
        case Force():
            _force(w, action)
        case FoulCall():
            _foul_call(w, action)
        case FloorFoul():
            _floor_foul(w, action)
        case OfferSplit():
            _offer_split(w, action)
        case AcceptSplit():
            _accept_split(w, action)
        case DeclineSplit():
            _decline_split(w, action)
        case Timeout():
            raise RuleViolation(N_("A timeout cannot be nested."))
        case _:
            assert_never(action)


# ---------------------------------------------------------------------------------------------
# Table-level actions
# ---------------------------------------------------------------------------------------------


def _sit(w: Work, a: Sit) -> None:
    r = w.rules
    if any(s is not None and s.player_id == a.player_id for s in w.seats):
        raise SeatError(N_("You are already seated at this table."))
    if a.doubles and not r.allow_doubles:
        raise SeatError(N_("This table does not allow doubles."))
    need = r.min_buyin_chips * (2 if a.doubles else 1)
    if a.buy_in < need:
        raise ChipsError(N_("The buy-in is at least {n} chips."), n=need)
    if a.seat is not None:
        if not 0 <= a.seat < len(w.seats) or not slot_free(w, a.seat):
            raise SeatError(N_("That seat is taken."))
        slot = a.seat
    else:
        free = [i for i in range(len(w.seats)) if slot_free(w, i)]
        if not free:
            raise SeatError(N_("The table is full."))
        slot = free[0]
    w.seats[slot] = Seat(player_id=a.player_id, stack=a.buy_in, doubles=a.doubles)
    w.emit(SeatTaken(seq=w.seq, seat=slot, player_id=a.player_id, doubles=a.doubles))
    w.emit(BoughtIn(seq=w.seq, seat=slot, player_id=a.player_id, amount=a.buy_in))


def _rebuy(w: Work, a: Rebuy) -> None:
    s = w.seat(a.seat)
    if a.amount <= 0:
        raise ChipsError(N_("Rebuy a positive number of chips."))
    if w.h is not None and w.players[a.seat] is not None:
        raise HandInProgress(N_("You can add chips only between hands (table stakes)."))
    w.seats[a.seat] = _fast.replace(s, stack=s.stack + a.amount)
    w.emit(BoughtIn(seq=w.seq, seat=a.seat, player_id=s.player_id, amount=a.amount))


def _cash_out(w: Work, i: int) -> None:
    s = w.seat(i)
    w.emit(CashedOut(seq=w.seq, seat=i, player_id=s.player_id, amount=s.stack))
    w.emit(SeatLeft(seq=w.seq, seat=i, player_id=s.player_id))
    w.seats[i] = None
    if w.previous_winner == i:
        w.previous_winner = None


def _stand(w: Work, a: Stand) -> None:
    refuse(stand_refusal(w, a.seat))
    s = w.seat(a.seat)
    st = w.status(a.seat) if w.h is not None else None
    if st is None or st in (_PLAYER_STATUS_RETIRED, _PLAYER_STATUS_BUSTED):
        _cash_out(w, a.seat)
        return
    if st is _PLAYER_STATUS_UNDECLARED:
        pl = w.p(a.seat)
        w.put(_fast.replace(pl, status=_PLAYER_STATUS_RETIRED))
        w.emit(Declared(seq=w.seq, seat=a.seat, playing=False))
        _charge_forfeit(w, a.seat)
        if w.phase is _PHASE_DECLARING and w.h is not None and w.h.order[w.declare_pos] == a.seat:
            w.last_declarer = a.seat  # leaving in his turn to declare is his declaration: it closes the last window
        _cash_out(w, a.seat)
        _advance_declarations(w)
        return
    w.seats[a.seat] = _fast.replace(s, leaving=True)
    if st is _PLAYER_STATUS_IN:
        w.kill_hand(a.seat, _PLAYER_STATUS_QUIT)
        w.emit(PlayerQuit(seq=w.seq, seat=a.seat))
        if w.phase is _PHASE_PLAYING:
            _after(w)
        elif w.phase is _PHASE_DECLARING:
            _advance_declarations(w)


def _set_away(w: Work, a: SetAway) -> None:
    refuse(set_away_refusal(w, a.seat, a.away))
    w.seats[a.seat] = _fast.replace(w.seat(a.seat), away=a.away)
    w.emit(AwaySet(seq=w.seq, seat=a.seat, away=a.away))


def _set_stakes(w: Work, a: SetStakes) -> None:
    if w.h is not None:
        raise HandInProgress(N_("The stakes can change only between hands."))
    if a.ante_chips < 1:
        raise ChipsError(N_("The ante must be at least one chip."))
    w.rules = dataclasses.replace(w.rules, ante_chips=a.ante_chips)


# ---------------------------------------------------------------------------------------------
# Starting a hand, declarations
# ---------------------------------------------------------------------------------------------


def _start_hand(w: Work, a: StartHand) -> None:
    r = w.rules
    if w.h is not None:
        raise HandInProgress(N_("A hand is already in progress."))
    cost = r.ante + r.rake
    eligible = [i for i, s in enumerate(w.seats) if s is not None and not s.away and not s.leaving and s.stack > cost]
    if len(eligible) < 2:
        raise SeatError(N_("At least two players with chips must be seated and present to deal."))
    n = len(w.seats)
    if a.first_seat is not None:
        if a.first_seat not in eligible:
            raise SeatError(N_("That seat cannot be first hand."))
        first = a.first_seat
    elif w.previous_winner is not None and w.previous_winner in eligible:
        first = w.previous_winner
    elif w.previous_winner is not None or w.previous_first is not None:
        base = w.previous_winner if w.previous_winner is not None else w.previous_first
        if base is None:
            raise RuntimeError("engine invariant broken")
        first = next(i for i in ((base + k) % n for k in range(1, n + 1)) if i in eligible)
    elif a.seed is not None:
        first = random.Random(a.seed).choice(eligible)
    else:
        first = eligible[0]
    order = tuple(i for i in ((first + k) % n for k in range(n)) if i in eligible)
    if a.shoe is not None:
        shoe = list(a.shoe)
    elif a.seed is not None:
        shoe = list(r.shoe())
        random.Random(a.seed).shuffle(shoe)
    else:
        raise RuleViolation(N_("Dealing needs a seed or a stacked shoe."))
    need = 10 * len(order) + (1 if r.start_mode is _START_MODE_UPCARD else 0)
    if len(shoe) < need:
        raise RuleViolation(N_("The shoe is too small to deal this hand."))
    w.hand_no += 1
    mults = {
        i: (2 if w.seat(i).doubles and r.allow_doubles and w.seat(i).stack > 2 * r.ante + r.rake else 1) for i in order
    }
    dealt: dict[int, list[Card]] = {i: [] for i in order}
    pos = 0
    for _round in range(2):
        for i in order:
            dealt[i].extend(shoe[pos : pos + 5])
            pos += 5
    players: list[PlayerHand | None] = [None] * n
    for i in order:
        players[i] = PlayerHand(seat=i, multiplier=mults[i], hand=sort_hand(dealt[i]))
    upcard = shoe[pos] if r.start_mode is _START_MODE_UPCARD else None
    if upcard is not None:
        pos += 1
    w._load(
        HandState(
            hand_no=w.hand_no,
            seed=a.seed,
            first=first,
            order=order,
            players=tuple(players),
            stock=tuple(shoe[pos:]),
            muck=(upcard,) if upcard is not None else (),
            option=upcard,
        )
    )
    w.emit(
        HandStarted(
            seq=w.seq,
            hand_no=w.hand_no,
            first=first,
            dealt=order,
            doubles=tuple(i for i in order if mults[i] == 2),
            seed=a.seed,
        )
    )
    for i in order:
        w.move(i, _POT_SINGLES, r.ante, _CHIP_REASON_ANTE)
        if mults[i] == 2:
            w.move(i, _POT_DOUBLES, r.ante, _CHIP_REASON_ANTE)
        w.move(i, _POT_HOUSE, r.rake, _CHIP_REASON_RAKE)
    for i in order:
        w.emit(CardsDealt(seq=w.seq, private_to=i, seat=i, cards=w.p(i).hand))
    if upcard is not None:
        w.emit(UpcardTurned(seq=w.seq, card=upcard))


def _charge_forfeit(w: Work, seat: int) -> None:
    w.move(seat, _POT_SINGLES, w.rules.retire_forfeit_chips, _CHIP_REASON_FORFEIT)


def _declare(w: Work, seat: int, *, playing: bool) -> None:
    refuse(declare_refusal(w, seat, playing=playing))
    if w.h is None:
        raise RuntimeError("engine invariant broken")
    pl = w.p(seat)
    new = _PLAYER_STATUS_IN if playing else _PLAYER_STATUS_RETIRED
    order = w.h.order
    if w.phase is _PHASE_DECLARING and order[w.declare_pos] == seat:
        w.put(_fast.replace(pl, status=new))
        w.emit(Declared(seq=w.seq, seat=seat, playing=playing))
        if not playing:
            _charge_forfeit(w, seat)
        w.last_declarer = seat  # the previous declarer's window closes; this one's opens
        w.declare_pos += 1
        _advance_declarations(w)
        return
    w.put(_fast.replace(pl, status=new))
    w.emit(Declared(seq=w.seq, seat=seat, playing=playing, changed=True))
    if playing:
        w.move(_POT_SINGLES, seat, w.rules.retire_forfeit_chips, _CHIP_REASON_FORFEIT_BACK)
    else:
        _charge_forfeit(w, seat)
    if w.phase is _PHASE_PLAYING:
        _open_play(w)


def _advance_declarations(w: Work) -> None:
    if w.h is None:
        raise RuntimeError("engine invariant broken")
    order = w.h.order
    while w.declare_pos < len(order) and w.p(order[w.declare_pos]).status is not _PLAYER_STATUS_UNDECLARED:
        w.declare_pos += 1
    if w.declare_pos >= len(order):
        w.declare_pos = len(order) - 1
        _open_play(w)


def _open_play(w: Work) -> None:
    """Declarations are closed: end the hand if fewer than two play, else the first player draws."""
    if w.h is None:
        raise RuntimeError("engine invariant broken")
    playing = [i for i in w.h.order if w.status(i) is _PLAYER_STATUS_IN]
    w.phase = _PHASE_PLAYING
    if not playing:
        if w.rules.nobody_in is _NOBODY_IN_REFUND:
            for i in w.h.order:
                w.move(_POT_SINGLES, i, w.rules.ante, _CHIP_REASON_TOPS_REFUND)
                if w.p(i).multiplier == 2:
                    w.move(_POT_DOUBLES, i, w.rules.ante, _CHIP_REASON_TOPS_REFUND)
        _finish(w, _END_REASON_NOBODY, None)
        return
    if len(playing) == 1:
        _award_tops(w, playing[0])
        _finish(w, _END_REASON_LONE, playing[0])
        return
    first = playing[0]
    w.turn = Turn(seat=first, extra_pluck=w.rules.start_mode is _START_MODE_DOUBLE_DRAW)
    w.emit(PlayStarted(seq=w.seq, seat=first, playing=tuple(playing)))


# ---------------------------------------------------------------------------------------------
# The draw
# ---------------------------------------------------------------------------------------------


def _turn(w: Work) -> Turn:
    """The turn in progress (after a refusal function has found it is the actor's)."""
    t = w.turn
    if t is None:
        raise RuntimeError("engine invariant broken")
    return t


def _note_draw(w: Work, seat: int) -> None:
    w.draws += 1
    if w.force_backs:
        w.force_backs = [
            _FORCE_BACK(fb.card, fb.owner, fb.position, fb.draws + 1, (*fb.drawers, seat), fb.pluck)
            for fb in w.force_backs
            if fb.draws + 1 < 2
        ]


def _remove_from_muck(w: Work, position: int) -> Card:
    card = w.muck[position]
    w.muck = w.muck[:position] + w.muck[position + 1 :]
    w.force_backs = [
        _fast.replace(fb, position=fb.position - 1) if fb.position > position else fb
        for fb in w.force_backs
        if fb.position != position
    ]
    return card


def _pluck(w: Work, a: Pluck) -> None:
    refuse(pluck_refusal(w, a.seat))
    t = _turn(w)
    if not w.stock and not _refill_stock(w):
        _finish(w, _END_REASON_VOID, None)
        return
    card = w.stock[0]
    w.stock = w.stock[1:]
    _note_draw(w, a.seat)
    w.turn = _fast.replace(t, step=_STEP_DRAWN, drawn=card, source=_DRAW_SOURCE_STOCK, second_pluck=False)
    w.events.append(_CARD_PLUCKED(w.seq, None, a.seat, card))


def _refill_stock(w: Work) -> bool:
    """Reshuffle the muck (all but its top card) into a new stock, once. False if the hand is void."""
    if w.rules.stock_exhausted is not _STOCK_EXHAUSTED_RESHUFFLE_MUCK or w.reshuffled or len(w.muck) <= 1:
        return False
    if w.h is None:
        raise RuntimeError("engine invariant broken")
    top = w.muck[-1]
    pool = list(w.muck[:-1])
    random.Random(f"{w.h.seed}:{w.h.hand_no}:reshuffle").shuffle(pool)
    w.stock = tuple(pool)
    w.muck = (top,)
    w.reshuffled = True
    w.force_backs = [_fast.replace(fb, position=0) for fb in w.force_backs if fb.position == len(pool)]
    w.emit(StockReshuffled(seq=w.seq, count=len(pool)))
    return True


def _take_option(w: Work, a: TakeOption) -> None:
    refuse(take_option_refusal(w, a.seat))
    t = _turn(w)
    card = w.option
    if card is None:
        raise RuntimeError("engine invariant broken")
    _remove_from_muck(w, len(w.muck) - 1)
    _note_draw(w, a.seat)
    w.option = None
    w.option_from = None
    w.turn = _fast.replace(t, step=_STEP_MUST_USE, drawn=card, source=_DRAW_SOURCE_OPTION, extra_pluck=False)
    w.emit(OptionTaken(seq=w.seq, seat=a.seat, card=card))


# ---------------------------------------------------------------------------------------------
# Melding
# ---------------------------------------------------------------------------------------------


def _meld_play(w: Work, a: NewMeld | AddToMeld | Borrow) -> None:
    refuse(meld_play_refusal(w, a))
    t = _turn(w)
    drawn = waiting_card(t)
    pl = w.p(a.seat)
    hand, melds, coll, changed, kind = resolve_play(w.rules, pl, drawn, a)
    if not hand and any(not m.valid for m in melds):
        raise IllegalMeld(N_("You cannot go out with a spread that is not valid."))
    w.put(_fast.replace(pl, hand=hand, melds=melds, next_meld_id=next_meld_id(melds, pl.next_meld_id)))
    new_t = _fast.replace(
        t,
        step=_STEP_MELDING,
        drawn=None,
        new_units=t.new_units + coll.new,
        enhanced_units=t.enhanced_units + coll.enhanced,
    )
    w.turn = new_t
    if drawn is not None:
        w.option = None
        w.option_from = None
    w.emit(Melded(seq=w.seq, seat=a.seat, kind=kind, cards=a.cards, drawn=drawn, melds=changed, units=coll.total))
    w.collect(a.seat, coll.total)
    if not hand:
        _go_out(w, a.seat)
        return
    _after(w)


def _make_good(w: Work, a: MakeGood) -> None:
    refuse(make_good_refusal(w, a.seat, a.meld))
    pl = w.p(a.seat)
    m = pl.meld(a.meld)
    if m is None:
        raise RuntimeError("engine invariant broken")
    hand = take_cards(pl.hand, a.cards)
    cards = (*m.cards, *a.cards)
    if not (is_valid_set(cards) or is_valid_run(cards)):
        raise IllegalMeld(N_("Those cards do not make the spread a valid meld."))
    new, coll = fresh_collection(make_meld(m.id, cards, w.rules), w.rules)
    melds = tuple(new if x.id == m.id else x for x in pl.melds)
    if not hand and any(not x.valid for x in melds):
        raise IllegalMeld(N_("You cannot go out with a spread that is not valid."))
    w.put(_fast.replace(pl, hand=hand, melds=melds))
    w.make_good = None
    w.emit(
        Melded(
            seq=w.seq,
            seat=a.seat,
            kind=_MELD_PLAY_KIND_MAKE_GOOD,
            cards=a.cards,
            drawn=None,
            melds=(new,),
            units=coll.total,
        )
    )
    w.collect(a.seat, coll.total)
    if w.turn is not None and w.turn.seat == a.seat:
        w.turn = _fast.replace(
            w.turn, new_units=w.turn.new_units + coll.new, enhanced_units=w.turn.enhanced_units + coll.enhanced
        )
    if not hand:
        _go_out(w, a.seat)
        return
    _after(w)


def _claim(w: Work, a: Claim) -> None:
    refuse(claim_refusal(w, a.seat))
    pl = w.p(a.seat)
    units = pl.unclaimed
    w.put(_fast.replace(pl, unclaimed=0))
    for i in w.payers(a.seat):
        w.pay_units(i, a.seat, units, _CHIP_REASON_CONDITION)
    _after(w)


# ---------------------------------------------------------------------------------------------
# Discard and turn rotation
# ---------------------------------------------------------------------------------------------


def _discard(w: Work, a: Discard) -> None:
    refuse(discard_refusal(w, a.seat, a.card))
    t = _turn(w)
    pl = w.p(a.seat)
    if t.step is _STEP_DRAWN:
        card = t.drawn
        if card is None:
            raise RuntimeError("engine invariant broken")
        w.muck = (*w.muck, card)
        w.force_backs.append(_FORCE_BACK(card, a.seat, len(w.muck) - 1, 0, (), True))
        w.events.append(_DISCARDED(w.seq, None, a.seat, card, True))
        if t.extra_pluck and not t.forced_back:  # the double draw: he may pluck once more, or decline
            w.turn = _fast.replace(t, step=_STEP_DRAW, drawn=None, source=None, extra_pluck=False, second_pluck=True)
            w.option = None
            w.option_from = None
            _after(w)
            return
        _end_turn(w, t, option=card)
        return
    if a.card is None:
        raise RuntimeError("engine invariant broken")
    hand = take_cards(pl.hand, (a.card,))
    w.put(
        _fast.replace(
            pl, hand=hand, unclaimed=0 if w.rules.effective_claim_mode is _CLAIM_MODE_FORFEIT else pl.unclaimed
        )
    )
    w.muck = (*w.muck, a.card)
    w.force_backs.append(_FORCE_BACK(a.card, a.seat, len(w.muck) - 1, 0, (), False))
    w.events.append(_DISCARDED(w.seq, None, a.seat, a.card, False))
    _end_turn(w, t, option=None)


def _end_turn(w: Work, t: Turn, *, option: Card | None) -> None:
    if t.forced_back and w.suspended is not None:
        w.turn = w.suspended
        w.suspended = None
        w.option = None
        w.option_from = None
        _after(w)
        return
    nxt = w.next_active(t.seat)
    if nxt is None:
        _after(w)
        return
    w.turn = _NEW_TURN(nxt, _STEP_DRAW, None, None, False, False, 0, 0, False)  # Turn(seat=nxt)
    if option is not None and nxt != t.seat and w.rules.option_card:
        w.option = option
        w.option_from = t.seat
    else:
        w.option = None
        w.option_from = None
    _after(w)


def _after(w: Work) -> None:
    """Housekeeping after a hand action: busts, players left in action, whose turn it is."""
    if w.h is None or w.phase is not _PHASE_PLAYING:
        return
    busted = [
        pl.seat
        for pl, st in zip(w.players, w.seats, strict=False)
        if pl is not None and pl.status is _PLAYER_STATUS_IN and st is not None and st.stack <= 0
    ]
    for seat in busted:
        w.kill_hand(seat, _PLAYER_STATUS_BUSTED)
        w.emit(PlayerBusted(seq=w.seq, seat=seat))
    if w.make_good is not None and w.status(w.make_good[0]) is not _PLAYER_STATUS_IN:
        w.make_good = None
    active = w.in_action()
    if w.split_offer is not None and (len(active) != 2 or w.split_offer not in active):
        w.split_offer = None
    if not active:
        _finish(w, _END_REASON_VOID, None)
        return
    if len(active) == 1 and not w.solo:
        if w.rules.one_left is _ONE_LEFT_SETTLE_NOW:
            _settle(w, active[0], going_out=False)
            return
        w.solo = True
        w.force_backs = []
    married = len(active) == 2 and w.split_offer is None and _left_married_pair(w, active[0], active[1])
    _fix_turn(w)
    if married:
        _offer_married_split(w, active[0], active[1])


def _fix_turn(w: Work) -> None:
    t = w.turn
    if t is None or w.status(t.seat) is _PLAYER_STATUS_IN:
        return
    if t.drawn is not None:
        w.muck = (*w.muck, t.drawn)
    if t.forced_back and w.suspended is not None:
        w.turn = w.suspended
        w.suspended = None
        _fix_turn(w)
        return
    nxt = w.next_active(t.seat)
    w.option = None
    w.option_from = None
    w.turn = _NEW_TURN(nxt, _STEP_DRAW, None, None, False, False, 0, 0, False) if nxt is not None else None


# ---------------------------------------------------------------------------------------------
# Forcing
# ---------------------------------------------------------------------------------------------


def _force(w: Work, a: Force) -> None:
    options = [
        o
        for o in possible_forces(w, a.seat)
        if (a.target is None or o.target == a.target) and (a.card is None or o.card == a.card)
    ]
    refuse(force_refusal(w, options))
    o = options[0]
    if o.back is None:
        t = w.turn
        if t is None:
            raise RuntimeError("engine invariant broken")
        if t.step is _STEP_DRAWN and t.drawn is not None:
            w.emit(PluckVoided(seq=w.seq, seat=t.seat, card=t.drawn))
            _remove_from_muck(w, len(w.muck) - 1)
            w.muck = (*w.muck, t.drawn)
        else:
            _remove_from_muck(w, len(w.muck) - 1)
            _note_draw(w, t.seat)
        w.option = None
        w.option_from = None
        w.turn = _fast.replace(t, step=_STEP_MUST_USE, drawn=o.card, source=_DRAW_SOURCE_FORCED, extra_pluck=False)
        w.emit(Forced(seq=w.seq, caller=a.seat, target=o.target, card=o.card, back=False))
        return
    top = len(w.muck) - 1
    if o.back.position == top and w.option is not None:
        w.option = None
        w.option_from = None
    _remove_from_muck(w, o.back.position)
    w.suspended = w.turn
    w.turn = Turn(seat=o.target, step=_STEP_MUST_USE, drawn=o.card, source=_DRAW_SOURCE_FORCED, forced_back=True)
    w.emit(Forced(seq=w.seq, caller=a.seat, target=o.target, card=o.card, back=True))


# ---------------------------------------------------------------------------------------------
# Fouls
# ---------------------------------------------------------------------------------------------


def _foul_call(w: Work, a: FoulCall) -> None:
    refuse(foul_refusal(w, a.seat, a.target, a.cause))
    w.emit(FoulCalled(seq=w.seq, caller=a.seat, target=a.target, cause=a.cause))
    target = w.p(a.target)
    bad = next((m for m in target.melds if not m.valid), None) if a.cause is _FOUL_CAUSE_INVALID_MELD else None
    if bad is not None:  # an invalid spread is made good at once if its owner is melding and can
        t = w.turn
        in_turn = t is not None and t.seat == a.target and t.step is _STEP_MELDING
        if in_turn and make_good_cards(bad, target.hand) is not None:
            w.make_good = (a.target, bad.id)
            w.emit(MakeGoodDemanded(seq=w.seq, seat=a.target, meld=bad.id))
            return
    _foul(w, a.target)


def _floor_foul(w: Work, a: FloorFoul) -> None:
    w.require_hand()
    if w.phase is not _PHASE_PLAYING or w.status(a.target) is not _PLAYER_STATUS_IN:
        raise NoCause(N_("That player is not in action."))
    w.emit(FoulCalled(seq=w.seq, caller=None, target=a.target, cause=None))
    _foul(w, a.target)


def _foul(w: Work, seat: int) -> None:
    """Foul penalty (§6.3): dead hand, refunds of collections, stays liable (no bust-out)."""
    pl = w.p(seat)
    w.kill_hand(seat, _PLAYER_STATUS_FOULED)
    w.emit(HandFouled(seq=w.seq, seat=seat))
    owed = [
        (payer, amount)
        for payer, amount in pl.received
        if w.rules.foul_refunds is _FOUL_REFUNDS_PAYERS or w.status(payer) is _PLAYER_STATUS_IN
    ]
    total = sum(x for _, x in owed)
    stack = w.seat(seat).stack
    if total and stack:
        if stack >= total:
            shares = dict(owed)
        else:
            shares = {payer: amount * stack // total for payer, amount in owed}
            left = stack - sum(shares.values())
            ring = [i for i in w.rotation_from(seat) if i in shares]
            k = 0
            while left > 0 and ring:
                payer = ring[k % len(ring)]
                if shares[payer] < dict(owed)[payer]:
                    shares[payer] += 1
                    left -= 1
                k += 1
        for payer in w.rotation_from(seat):
            if shares.get(payer):
                w.move(seat, payer, shares[payer], _CHIP_REASON_REFUND)
    w.put(_fast.replace(w.p(seat), received=()))
    _after(w)


# ---------------------------------------------------------------------------------------------
# Splitting the tops
# ---------------------------------------------------------------------------------------------


def _married(w: Work, a: int, b: int) -> bool:
    pa, pb = w.seat(a).player_id, w.seat(b).player_id
    return (min(pa, pb), max(pa, pb)) in w.married


def _left_married_pair(w: Work, a: int, b: int) -> bool:
    """Whether this action left married splitters ``a`` and ``b`` the last two in action (they were more
    before it), at a table that offers them the split automatically (§7.6, G25)."""
    r = w.rules
    before = w.s.hand
    return (
        r.split_tops
        and r.auto_split_married
        and before is not None
        and len(before.in_action()) > 2
        and _married(w, a, b)
    )


def _offer_married_split(w: Work, a: int, b: int) -> None:
    """Offer the split to a married pair automatically, in the name of the one in turn (or the first in
    rotation): the other may accept or decline it, he may withdraw it; play goes on meanwhile [S0]."""
    t = w.turn
    offerer = t.seat if t is not None and t.seat in (a, b) else a
    w.split_offer = offerer
    w.emit(MarriedSplitOffered(seq=w.seq, seat=offerer, partner=b if offerer == a else a))


def _offer_split(w: Work, a: OfferSplit) -> None:
    refuse(offer_split_refusal(w, a.seat))
    w.split_offer = a.seat
    w.emit(SplitOffered(seq=w.seq, seat=a.seat))


def _accept_split(w: Work, a: AcceptSplit) -> None:
    refuse(accept_split_refusal(w, a.seat))
    if w.split_offer is None:
        raise RuntimeError("engine invariant broken")
    _split(w, w.split_offer, a.seat)


def _decline_split(w: Work, a: DeclineSplit) -> None:
    refuse(decline_split_refusal(w, a.seat))
    w.split_offer = None
    w.emit(SplitDeclined(seq=w.seq, seat=a.seat))


def _split(w: Work, a: int, b: int) -> None:
    """Divide the tops between the last two in action (§7.6); the hand ends."""
    pair = sorted((a, b))
    ma, mb = w.p(pair[0]).multiplier, w.p(pair[1]).multiplier
    t = w.turn
    nxt = t.seat if t is not None and t.seat in pair else pair[0]
    other = pair[1] if nxt == pair[0] else pair[0]
    pots = [_POT_SINGLES]
    if ma == 2 and mb == 2:
        pots.append(_POT_DOUBLES)
    elif ma == 2 or mb == 2:
        w.move(_POT_DOUBLES, pair[0] if ma == 2 else pair[1], w.doubles_tops, _CHIP_REASON_SPLIT)
    for pot in pots:
        amount = w.balance(pot)
        half = amount // 2
        w.move(pot, nxt, half, _CHIP_REASON_SPLIT)
        w.move(pot, other, half, _CHIP_REASON_SPLIT)
        if amount % 2 and w.rules.split_odd_chip is _ODD_CHIP_NEXT_PLAYER:
            w.move(pot, nxt, 1, _CHIP_REASON_SPLIT)
    ida, idb = w.seat(a).player_id, w.seat(b).player_id
    key = (min(ida, idb), max(ida, idb))
    if key not in w.married:
        w.married = (*w.married, key)
    _finish(w, _END_REASON_SPLIT, None, splitters=tuple(pair))


# ---------------------------------------------------------------------------------------------
# Settlement and the end of the hand
# ---------------------------------------------------------------------------------------------


def _award_tops(w: Work, winner: int) -> None:
    w.move(_POT_SINGLES, winner, w.singles_tops, _CHIP_REASON_TOPS)
    if w.p(winner).multiplier == 2:
        w.move(_POT_DOUBLES, winner, w.doubles_tops, _CHIP_REASON_TOPS)
    elif w.rules.unwon_doubles_tops is _UNWON_DOUBLES_TOPS_REFUND and w.doubles_tops:
        if w.h is None:
            raise RuntimeError("engine invariant broken")
        dbl = [i for i in w.h.order if w.p(i).multiplier == 2 and w.seats[i] is not None]
        if dbl:
            share = w.doubles_tops // len(dbl)
            for i in dbl:
                w.move(_POT_DOUBLES, i, share, _CHIP_REASON_TOPS_REFUND)


def _go_out(w: Work, winner: int) -> None:
    t = w.turn
    if t is None:
        raise RuntimeError("engine invariant broken")
    _settle(w, winner, going_out=True, bust_out=bust_out_units(w.rules, t.new_units, t.enhanced_units))


def _settle(w: Work, winner: int, *, going_out: bool, bust_out: int = 0) -> None:
    """Pay ``winner`` what his board collects (:func:`.settlement.out_pay`), award the tops, end the hand."""
    pl = w.p(winner)
    if pl.unclaimed:
        units = pl.unclaimed
        w.put(_fast.replace(pl, unclaimed=0))
        for i in w.payers(winner):
            w.pay_units(i, winner, units, _CHIP_REASON_CONDITION)
    pay = out_pay(w.rules, w.p(winner).melds, going_out=going_out, bust_out=bust_out)
    for i in w.payers(winner):
        if w.status(i) is not _PLAYER_STATUS_FOULED:
            w.pay_units(i, winner, pay.bust_out, _CHIP_REASON_BUST_OUT)
        w.pay_units(i, winner, pay.outs, _CHIP_REASON_OUTS)
        w.pay_units(i, winner, pay.going_out, _CHIP_REASON_GOING_OUT)
    if going_out:
        w.emit(WentOut(seq=w.seq, seat=winner, outs_units=pay.outs, bust_out_units=pay.bust_out))
    _award_tops(w, winner)
    _finish(w, _END_REASON_OUT if going_out else _END_REASON_SETTLED, winner)


def _finish(w: Work, reason: EndReason, winner: int | None, splitters: tuple[int, ...] = ()) -> None:
    if w.h is None:
        raise RuntimeError("engine invariant broken")
    w.phase = _PHASE_OVER
    w.winner = winner
    w.end_reason = reason
    w.make_good = None
    w.split_offer = None
    w.emit(HandEnded(seq=w.seq, hand_no=w.h.hand_no, reason=reason, winner=winner, splitters=splitters))
    finished = w.hand_state()
    w.previous_winner = winner
    w.previous_first = w.h.first
    w.last_hand = finished
    w.h = None
    for i, s in enumerate(w.seats):
        if s is not None and s.leaving:
            _cash_out(w, i)


def _decline_draw(w: Work, a: DeclineDraw) -> None:
    """The first player declines his second pluck: the turn ends; his unused first pluck, still the top
    discard, is the next player's option card."""
    refuse(decline_draw_refusal(w, a.seat))
    t = _turn(w)
    first_pluck = next(
        (fb.card for fb in w.force_backs if fb.pluck and fb.owner == a.seat and fb.position == len(w.muck) - 1), None
    )
    w.emit(DrawDeclined(seq=w.seq, seat=a.seat))
    _end_turn(w, t, option=first_pluck)


def _knock(w: Work, a: Knock) -> None:
    _declare(w, a.seat, playing=True)


def _go_on_top(w: Work, a: GoOnTop) -> None:
    _declare(w, a.seat, playing=False)


_HANDLERS: dict[type, Callable[[Work, Any], None]] = {
    Sit: _sit,
    Rebuy: _rebuy,
    Stand: _stand,
    SetAway: _set_away,
    SetStakes: _set_stakes,
    StartHand: _start_hand,
    Knock: _knock,
    GoOnTop: _go_on_top,
    Pluck: _pluck,
    DeclineDraw: _decline_draw,
    TakeOption: _take_option,
    NewMeld: _meld_play,
    AddToMeld: _meld_play,
    Borrow: _meld_play,
    MakeGood: _make_good,
    Claim: _claim,
    Discard: _discard,
    Force: _force,
    FoulCall: _foul_call,
    FloorFoul: _floor_foul,
    OfferSplit: _offer_split,
    AcceptSplit: _accept_split,
    DeclineSplit: _decline_split,
}
"""Action type -> handler (a dict lookup instead of a long ``match``); Timeout is handled by ``apply``."""


# ---------------------------------------------------------------------------------------------
# Timeout
# ---------------------------------------------------------------------------------------------


def _timeout_step(state: TableState, seat: int) -> Action:
    h = state.hand
    if h is None:
        raise RuntimeError("engine invariant broken")
    if h.phase is _PHASE_DECLARING:
        return GoOnTop(seat=seat)
    if h.make_good is not None:
        pl = h.player(seat)
        m = pl.meld(h.make_good[1])
        if m is None:
            raise RuntimeError("engine invariant broken")
        cards = make_good_cards(m, pl.hand)
        if cards is None:
            raise RuntimeError("engine invariant broken")
        return MakeGood(seat=seat, meld=m.id, cards=cards)
    t = h.turn
    if t is None:
        raise RuntimeError("engine invariant broken")
    if t.step is _STEP_DRAW:
        return TakeOption(seat=seat) if not can(state, Pluck(seat=seat)) else Pluck(seat=seat)
    if t.step is _STEP_DRAWN and can(state, Discard(seat=seat)):
        return Discard(seat=seat)
    if t.step in (_STEP_DRAWN, _STEP_MUST_USE):
        pl = h.player(seat)
        for play in meld_plays(seat, pl.hand, pl.melds, t.drawn, state.rules):
            if can(state, play):
                return play
        raise RuleViolation(N_("No legal play for the timeout."))
    pl = h.player(seat)
    return Discard(seat=seat, card=pl.hand[0])


def _apply_timeout(state: TableState, a: Timeout, seq: int) -> Transition:
    if to_act(state) != a.seat or state.hand is None:
        raise NotYourTurn(N_("It is not that player's turn."))
    hand_no = state.hand.hand_no
    w = Work(state, seq)
    if w.phase is _PHASE_PLAYING:
        pl = w.p(a.seat)
        w.put(_fast.replace(pl, timeouts=pl.timeouts + 1))
    w.emit(TimedOut(seq=seq, seat=a.seat))
    cur = w.freeze()
    events: list[Event] = list(w.events)
    for _ in range(12):
        h = cur.hand
        if h is None or h.hand_no != hand_no or to_act(cur) != a.seat:
            break
        double_draw = h.turn is not None and h.turn.extra_pluck and h.turn.step is _STEP_DRAWN
        step = _timeout_step(cur, a.seat)
        w2 = Work(cur, seq)
        _dispatch(w2, step)
        cur = w2.freeze()
        events.extend(w2.events)
        if isinstance(step, GoOnTop | Knock):
            break
        if isinstance(step, Discard) and not (double_draw and step.card is None):
            break
    return Transition(cur, tuple(events))


__all__ = [
    "ChipsError",
    "DeclarationClosed",
    "DeclarationWindow",
    "ForceRefused",
    "HandInProgress",
    "MustUse",
    "NoCause",
    "NoHandInProgress",
    "NoHit",
    "Observation",
    "OptionRefused",
    "PlayerView",
    "SeatError",
    "SplitRefused",
    "Transition",
    "WrongStep",
    "apply",
    "call_outs",
    "can",
    "declaration_window",
    "going_out_pay",
    "legal_actions",
    "may_act",
    "observe",
    "play_value",
    "plays",
    "to_act",
    "verify",
]
