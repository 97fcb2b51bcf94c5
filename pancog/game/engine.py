"""The Pan engine: ``apply(state, action) -> Transition(state, events)``, pure and replayable.

An illegal action raises a :class:`RuleViolation` subclass whose message is a plain sentence
safe to show a player, and nothing changes (the input state is never mutated). Chips leave the
engine only as events. Internally each action runs on a mutable working copy (:class:`_Work`)
that is frozen into the next :class:`TableState`.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, assert_never

from . import _fast
from .actions import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    Claim,
    DeclineSplit,
    Discard,
    FloorFoul,
    Force,
    FoulCall,
    FoulCause,
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
from .cards import Card, Rank, Suit, sort_hand, take_cards
from .errors import IllegalMeld, NotYourTurn, RuleViolation
from .events import (
    AwaySet,
    BoughtIn,
    CardPlucked,
    CardsDealt,
    CashedOut,
    ChipReason,
    ChipsMoved,
    Declared,
    Discarded,
    Event,
    Forced,
    FoulCalled,
    HandEnded,
    HandFouled,
    HandStarted,
    MakeGoodDemanded,
    Melded,
    MeldPlayKind,
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
from .melds import (
    NOTHING,
    Collection,
    Meld,
    borrow_pieces,
    classify,
    extend,
    fresh_collection,
    invalid_meld,
    is_valid_run,
    is_valid_set,
    make_meld,
    outs_units,
    remake,
)
from .moves import iter_meld_plays, lay_offs, make_good_cards, meld_plays
from .rules import (
    BustOut,
    ClaimMode,
    Enforcement,
    ForceMode,
    FoulRefunds,
    NobodyIn,
    OddChip,
    OneLeft,
    Rules,
    StartMode,
    StockExhausted,
    UnwonDoublesTops,
)
from .state import (
    LIABLE,
    Account,
    DrawSource,
    EndReason,
    ForceBack,
    HandState,
    Phase,
    PlayerHand,
    PlayerStatus,
    Pot,
    Seat,
    Step,
    TableState,
    Turn,
)

# ---------------------------------------------------------------------------------------------
# Errors (all RuleViolation: safe to show)
# ---------------------------------------------------------------------------------------------


class NoHandInProgress(RuleViolation):
    code = "no_hand"


class HandInProgress(RuleViolation):
    code = "hand_in_progress"


class SeatError(RuleViolation):
    code = "seat_error"


class ChipsError(RuleViolation):
    code = "chips_error"


class WrongStep(RuleViolation):
    code = "wrong_step"


class NoHit(RuleViolation):
    code = "no_hit"


class OptionRefused(RuleViolation):
    code = "option_refused"


class ForceRefused(RuleViolation):
    code = "force_refused"


class NoCause(RuleViolation):
    code = "no_cause"


class SplitRefused(RuleViolation):
    code = "split_refused"


class MustUse(RuleViolation):
    code = "must_use"


class DeclarationClosed(RuleViolation):
    code = "declaration_closed"


@dataclass(frozen=True, slots=True)
class Transition:
    state: TableState
    events: tuple[Event, ...]


# ---------------------------------------------------------------------------------------------
# The working copy
# ---------------------------------------------------------------------------------------------


# Enum members read on hot paths, as module constants: reading a member through its class is slow
# in Python 3.11 (EnumType.__getattr__ makes every class attribute lookup go through a hook).
_BUST_OUT_NEW_ONLY: Final = BustOut.NEW_ONLY
_BUST_OUT_NEW_OR_ENHANCED: Final = BustOut.NEW_OR_ENHANCED
_BUST_OUT_OFF: Final = BustOut.OFF
_CHIP_REASON_ANTE: Final = ChipReason.ANTE
_CHIP_REASON_BUST_OUT: Final = ChipReason.BUST_OUT
_CHIP_REASON_CONDITION: Final = ChipReason.CONDITION
_CHIP_REASON_FORFEIT: Final = ChipReason.FORFEIT
_CHIP_REASON_FORFEIT_BACK: Final = ChipReason.FORFEIT_BACK
_CHIP_REASON_GOING_OUT: Final = ChipReason.GOING_OUT
_CHIP_REASON_OUTS: Final = ChipReason.OUTS
_CHIP_REASON_RAKE: Final = ChipReason.RAKE
_CHIP_REASON_REFUND: Final = ChipReason.REFUND
_CHIP_REASON_SPLIT: Final = ChipReason.SPLIT
_CHIP_REASON_TOPS: Final = ChipReason.TOPS
_CHIP_REASON_TOPS_REFUND: Final = ChipReason.TOPS_REFUND
_CLAIM_MODE_AUTO: Final = ClaimMode.AUTO
_CLAIM_MODE_FORFEIT: Final = ClaimMode.FORFEIT
_DRAW_SOURCE_FORCED: Final = DrawSource.FORCED
_DRAW_SOURCE_OPTION: Final = DrawSource.OPTION
_DRAW_SOURCE_STOCK: Final = DrawSource.STOCK
_END_REASON_LONE: Final = EndReason.LONE
_END_REASON_NOBODY: Final = EndReason.NOBODY
_END_REASON_OUT: Final = EndReason.OUT
_END_REASON_SETTLED: Final = EndReason.SETTLED
_END_REASON_SPLIT: Final = EndReason.SPLIT
_END_REASON_VOID: Final = EndReason.VOID
_ENFORCEMENT_PLAYERS: Final = Enforcement.PLAYERS
_FORCE_MODE_MANDATORY: Final = ForceMode.MANDATORY
_FORCE_MODE_OFF: Final = ForceMode.OFF
_FORCE_MODE_ON_DEMAND: Final = ForceMode.ON_DEMAND
_FOUL_CAUSE_ABANDONED: Final = FoulCause.ABANDONED
_FOUL_CAUSE_INVALID_MELD: Final = FoulCause.INVALID_MELD
_FOUL_REFUNDS_PAYERS: Final = FoulRefunds.PAYERS
_MELD_PLAY_KIND_ADD: Final = MeldPlayKind.ADD
_MELD_PLAY_KIND_BORROW: Final = MeldPlayKind.BORROW
_MELD_PLAY_KIND_MAKE_GOOD: Final = MeldPlayKind.MAKE_GOOD
_MELD_PLAY_KIND_NEW: Final = MeldPlayKind.NEW
_MELD_PLAY_KIND_SPLIT: Final = MeldPlayKind.SPLIT
_NOBODY_IN_REFUND: Final = NobodyIn.REFUND
_ODD_CHIP_NEXT_PLAYER: Final = OddChip.NEXT_PLAYER
_ONE_LEFT_SETTLE_NOW: Final = OneLeft.SETTLE_NOW
_PHASE_DECLARING: Final = Phase.DECLARING
_PHASE_OVER: Final = Phase.OVER
_PHASE_PLAYING: Final = Phase.PLAYING
_PLAYER_STATUS_BUSTED: Final = PlayerStatus.BUSTED
_PLAYER_STATUS_FOULED: Final = PlayerStatus.FOULED
_PLAYER_STATUS_IN: Final = PlayerStatus.IN
_PLAYER_STATUS_QUIT: Final = PlayerStatus.QUIT
_PLAYER_STATUS_RETIRED: Final = PlayerStatus.RETIRED
_PLAYER_STATUS_UNDECLARED: Final = PlayerStatus.UNDECLARED
_POT_DOUBLES: Final = Pot.DOUBLES
_POT_HOUSE: Final = Pot.HOUSE
_POT_SINGLES: Final = Pot.SINGLES
_RANK_ACE: Final = Rank.ACE
_RANK_KING: Final = Rank.KING
_START_MODE_DOUBLE_DRAW: Final = StartMode.DOUBLE_DRAW
_START_MODE_UPCARD: Final = StartMode.UPCARD
_STEP_DRAW: Final = Step.DRAW
_STEP_DRAWN: Final = Step.DRAWN
_STEP_MELDING: Final = Step.MELDING
_STEP_MUST_USE: Final = Step.MUST_USE
_STOCK_EXHAUSTED_RESHUFFLE_MUCK: Final = StockExhausted.RESHUFFLE_MUCK
_UNWON_DOUBLES_TOPS_REFUND: Final = UnwonDoublesTops.REFUND

_NEW_HAND_POS = _fast.positional_builder(HandState)
_NEW_TABLE_POS = _fast.positional_builder(TableState)
# positional constructors (every field, in field order) for what every pluck and discard builds
_NEW_TURN = _fast.positional_builder(Turn)  # seat, step, drawn, source, extra_pluck, forced_back, new/enhanced units
_FORCE_BACK = _fast.positional_builder(ForceBack)  # card, owner, position, draws, drawers, pluck
_CHIPS_MOVED = _fast.positional_builder(ChipsMoved)  # seq, private_to, payer, payee, amount, reason
_CARD_PLUCKED = _fast.positional_builder(CardPlucked)  # seq, private_to, seat, card
_DISCARDED = _fast.positional_builder(Discarded)  # seq, private_to, seat, card, pluck
_DISCARD_ACTION = _fast.positional_builder(Discard)  # seat, card
_PLUCK_ACTION = _fast.positional_builder(Pluck)  # seat
_NEW_SEAT = _fast.positional_builder(Seat)  # player_id, stack, doubles, away, leaving


class _Work:
    """A mutable copy of a TableState for one action; :meth:`freeze` builds the next state."""

    __slots__ = (
        "dead",
        "declare_pos",
        "doubles",
        "draws",
        "end_reason",
        "events",
        "force_backs",
        "h",
        "hand_no",
        "house",
        "last_hand",
        "make_good",
        "married",
        "muck",
        "option",
        "option_from",
        "phase",
        "players",
        "previous_first",
        "previous_winner",
        "reshuffled",
        "rules",
        "s",
        "seats",
        "seq",
        "singles",
        "solo",
        "split_offer",
        "stock",
        "suspended",
        "turn",
        "winner",
    )

    def __init__(self, s: TableState, seq: int) -> None:
        self.s = s
        self.rules = s.rules
        self.seq = seq
        self.events: list[Event] = []
        self.seats: list[Seat | None] = list(s.seats)
        self.singles = s.singles_tops
        self.doubles = s.doubles_tops
        self.house = s.house
        self.married = s.married
        self.previous_winner = s.previous_winner
        self.previous_first = s.previous_first
        self.hand_no = s.hand_no
        self.last_hand = s.last_hand
        self.h: HandState | None = s.hand
        if s.hand is not None:
            self._load(s.hand)

    def _load(self, h: HandState) -> None:
        self.h = h
        self.players: list[PlayerHand | None] = list(h.players)
        # copy-on-write: these tuples are replaced (never mutated) when they change
        self.stock: tuple[Card, ...] = h.stock
        self.muck: tuple[Card, ...] = h.muck
        self.dead: tuple[Card, ...] = h.dead
        self.phase = h.phase
        self.declare_pos = h.declare_pos
        self.draws = h.draws
        self.option = h.option
        self.option_from = h.option_from
        self.turn = h.turn
        self.suspended = h.suspended
        self.force_backs: list[ForceBack] = list(h.force_backs)
        self.make_good = h.make_good
        self.split_offer = h.split_offer
        self.reshuffled = h.reshuffled
        self.solo = h.solo
        self.winner = h.winner
        self.end_reason = h.end_reason

    def hand_state(self) -> HandState:
        h = self.h
        if h is None:
            raise RuntimeError("engine invariant broken")
        # positional, in HandState's field order (a 22-keyword call costs several microseconds)
        return _NEW_HAND_POS(
            h.hand_no,
            h.seed,
            h.first,
            h.order,
            tuple(self.players),
            self.phase,
            self.declare_pos,
            self.draws,
            self.stock,
            self.muck,
            self.dead,
            self.option,
            self.option_from,
            self.turn,
            self.suspended,
            tuple(self.force_backs),
            self.make_good,
            self.split_offer,
            self.reshuffled,
            self.solo,
            self.winner,
            self.end_reason,
        )

    def freeze(self) -> TableState:
        hand = None
        if self.h is not None:
            hand = self.hand_state()
        # positional, in TableState's field order
        return _NEW_TABLE_POS(
            self.rules,
            self.s.table_id,
            tuple(self.seats),
            self.singles,
            self.doubles,
            self.house,
            self.married,
            self.previous_winner,
            self.previous_first,
            self.hand_no,
            hand,
            self.last_hand,
            self.seq,
        )

    # --- small helpers -------------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def seat(self, i: int) -> Seat:
        s = self.seats[i] if 0 <= i < len(self.seats) else None
        if s is None:
            raise SeatError("That seat is empty.")
        return s

    def require_hand(self) -> None:
        if self.h is None:
            raise NoHandInProgress("No hand is in progress.")

    def p(self, i: int) -> PlayerHand:
        pl = self.players[i] if 0 <= i < len(self.players) else None
        if pl is None:
            raise SeatError("That player is not in this hand.")
        return pl

    def put(self, pl: PlayerHand) -> None:
        self.players[pl.seat] = pl

    def status(self, i: int) -> PlayerStatus | None:
        pl = self.players[i] if 0 <= i < len(self.players) else None
        return None if pl is None else pl.status

    def in_action(self) -> list[int]:
        return [pl.seat for pl in self.players if pl is not None and pl.status is _PLAYER_STATUS_IN]

    def rotation_from(self, start: int) -> list[int]:
        """Seat slots after ``start`` in rotation (excluding start)."""
        n = len(self.seats)
        return [(start + k) % n for k in range(1, n)]

    def next_active(self, after: int) -> int | None:
        players = self.players
        n = len(players)
        for k in range(1, n + 1):  # ends with ``after`` itself
            pl = players[(after + k) % n]
            if pl is not None and pl.status is _PLAYER_STATUS_IN:
                return pl.seat
        return None

    def balance(self, account: Account) -> int:
        if account is _POT_SINGLES:
            return self.singles
        if account is _POT_DOUBLES:
            return self.doubles
        if account is _POT_HOUSE:
            return self.house
        return self.seat(account).stack

    def _adjust(self, account: Account, delta: int) -> None:
        if isinstance(account, Pot):
            if account is _POT_SINGLES:
                self.singles += delta
            elif account is _POT_DOUBLES:
                self.doubles += delta
            else:
                self.house += delta
        else:
            s = self.seat(account)
            self.seats[account] = _NEW_SEAT(s.player_id, s.stack + delta, s.doubles, s.away, s.leaving)

    def move(self, payer: Account, payee: Account, amount: int, reason: ChipReason) -> int:
        amount = min(amount, self.balance(payer))
        if amount <= 0:
            return 0
        self._adjust(payer, -amount)
        self._adjust(payee, amount)
        self.events.append(_CHIPS_MOVED(self.seq, None, payer, payee, amount, reason))
        return amount

    def pair_multiplier(self, payer: int, collector: int) -> int:
        m_c = self.p(collector).multiplier
        m_c_eff = min(m_c, max(1, self.seat(collector).stack))
        return min(self.p(payer).multiplier, m_c_eff)

    def pay_units(self, payer: int, collector: int, units: int, reason: ChipReason) -> int:
        if units <= 0:
            return 0
        paid = self.move(payer, collector, units * self.pair_multiplier(payer, collector), reason)
        if paid and reason is _CHIP_REASON_CONDITION:
            c = self.p(collector)
            got = dict(c.received)
            got[payer] = got.get(payer, 0) + paid
            self.put(_fast.replace(c, received=tuple(sorted(got.items()))))
        return paid

    def payers(self, collector: int) -> list[int]:
        return [
            i
            for i in self.rotation_from(collector)
            if (pl := self.players[i]) is not None and pl.status in LIABLE and self.seat(i).stack > 0
        ]

    def collect(self, collector: int, units: int) -> None:
        """Every other player in the hand pays ``units`` (or it waits to be claimed)."""
        if units <= 0:
            return
        if self.rules.effective_claim_mode is not _CLAIM_MODE_AUTO:
            c = self.p(collector)
            self.put(_fast.replace(c, unclaimed=c.unclaimed + units))
            return
        # pay_units(i, collector, units, CONDITION) for each payer, with the collector's record of
        # what each paid (for foul refunds) updated once at the end
        got: dict[int, int] | None = None
        for i in self.payers(collector):
            paid = self.move(i, collector, units * self.pair_multiplier(i, collector), _CHIP_REASON_CONDITION)
            if paid:
                if got is None:
                    got = dict(self.p(collector).received)
                got[i] = got.get(i, 0) + paid
        if got is not None:
            self.put(_fast.replace(self.p(collector), received=tuple(sorted(got.items()))))

    def kill_hand(self, seat: int, status: PlayerStatus) -> None:
        """Make a player's hand dead (fouled, quit, busted): cards to the dead pile."""
        pl = self.p(seat)
        self.dead = (*self.dead, *pl.hand)
        for t in (self.turn, self.suspended):
            if t is not None and t.seat == seat and t.drawn is not None:
                self.muck = (*self.muck, t.drawn)
        if self.turn is not None and self.turn.seat == seat:
            self.turn = _fast.replace(self.turn, drawn=None)
        if self.suspended is not None and self.suspended.seat == seat:
            self.suspended = _fast.replace(self.suspended, drawn=None)
        self.put(_fast.replace(pl, status=status, hand=()))


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
    w = _Work(state, seq)
    _dispatch(w, action)
    return Transition(w.freeze(), tuple(w.events))


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


def _dispatch(w: _Work, action: Action) -> None:
    handler = _HANDLERS.get(type(action))
    if handler is not None:
        handler(w, action)
        return
    _dispatch_match(w, action)


def _dispatch_match(w: _Work, action: Action) -> None:
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
            raise RuleViolation("A timeout cannot be nested.")
        case _:
            assert_never(action)


# ---------------------------------------------------------------------------------------------
# Table-level actions
# ---------------------------------------------------------------------------------------------


def _slot_free(w: _Work, i: int) -> bool:
    if w.seats[i] is not None:
        return False
    return w.h is None or w.players[i] is None


def _sit(w: _Work, a: Sit) -> None:
    r = w.rules
    if any(s is not None and s.player_id == a.player_id for s in w.seats):
        raise SeatError("You are already seated at this table.")
    if a.doubles and not r.allow_doubles:
        raise SeatError("This table does not allow doubles.")
    need = r.min_buyin_chips * (2 if a.doubles else 1)
    if a.buy_in < need:
        raise ChipsError(f"The buy-in is at least {need} chips.")
    if a.seat is not None:
        if not 0 <= a.seat < len(w.seats) or not _slot_free(w, a.seat):
            raise SeatError("That seat is taken.")
        slot = a.seat
    else:
        free = [i for i in range(len(w.seats)) if _slot_free(w, i)]
        if not free:
            raise SeatError("The table is full.")
        slot = free[0]
    w.seats[slot] = Seat(player_id=a.player_id, stack=a.buy_in, doubles=a.doubles)
    w.emit(SeatTaken(seq=w.seq, seat=slot, player_id=a.player_id, doubles=a.doubles))
    w.emit(BoughtIn(seq=w.seq, seat=slot, player_id=a.player_id, amount=a.buy_in))


def _rebuy(w: _Work, a: Rebuy) -> None:
    s = w.seat(a.seat)
    if a.amount <= 0:
        raise ChipsError("Rebuy a positive number of chips.")
    if w.h is not None and w.players[a.seat] is not None:
        raise HandInProgress("You can add chips only between hands (table stakes).")
    w.seats[a.seat] = _fast.replace(s, stack=s.stack + a.amount)
    w.emit(BoughtIn(seq=w.seq, seat=a.seat, player_id=s.player_id, amount=a.amount))


def _cash_out(w: _Work, i: int) -> None:
    s = w.seat(i)
    w.emit(CashedOut(seq=w.seq, seat=i, player_id=s.player_id, amount=s.stack))
    w.emit(SeatLeft(seq=w.seq, seat=i, player_id=s.player_id))
    w.seats[i] = None
    if w.previous_winner == i:
        w.previous_winner = None


def _stand(w: _Work, a: Stand) -> None:
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
        _cash_out(w, a.seat)
        _advance_declarations(w)
        return
    if s.leaving:
        raise SeatError("You are already leaving after this hand.")
    w.seats[a.seat] = _fast.replace(s, leaving=True)
    if st is _PLAYER_STATUS_IN:
        w.kill_hand(a.seat, _PLAYER_STATUS_QUIT)
        w.emit(PlayerQuit(seq=w.seq, seat=a.seat))
        if w.phase is _PHASE_PLAYING:
            _after(w)
        elif w.phase is _PHASE_DECLARING:
            _advance_declarations(w)


def _set_away(w: _Work, a: SetAway) -> None:
    s = w.seat(a.seat)
    if s.away == a.away:
        raise SeatError("You are already away." if a.away else "You are already back.")
    w.seats[a.seat] = _fast.replace(s, away=a.away)
    w.emit(AwaySet(seq=w.seq, seat=a.seat, away=a.away))


def _set_stakes(w: _Work, a: SetStakes) -> None:
    if w.h is not None:
        raise HandInProgress("The stakes can change only between hands.")
    if a.ante_chips < 1:
        raise ChipsError("The ante must be at least one chip.")
    w.rules = dataclasses.replace(w.rules, ante_chips=a.ante_chips)


# ---------------------------------------------------------------------------------------------
# Starting a hand, declarations
# ---------------------------------------------------------------------------------------------


def _start_hand(w: _Work, a: StartHand) -> None:
    r = w.rules
    if w.h is not None:
        raise HandInProgress("A hand is already in progress.")
    cost = r.ante + r.rake
    eligible = [i for i, s in enumerate(w.seats) if s is not None and not s.away and not s.leaving and s.stack > cost]
    if len(eligible) < 2:
        raise SeatError("At least two players with chips must be seated and present to deal.")
    n = len(w.seats)
    if a.first_seat is not None:
        if a.first_seat not in eligible:
            raise SeatError("That seat cannot be first hand.")
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
        raise RuleViolation("Dealing needs a seed or a stacked shoe.")
    need = 10 * len(order) + (1 if r.start_mode is _START_MODE_UPCARD else 0)
    if len(shoe) < need:
        raise RuleViolation("The shoe is too small to deal this hand.")
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


def _charge_forfeit(w: _Work, seat: int) -> None:
    w.move(seat, _POT_SINGLES, w.rules.retire_forfeit_chips, _CHIP_REASON_FORFEIT)


def _declare_refusal(w: _Work, seat: int, *, playing: bool) -> RuleViolation | None:
    """Why ``seat`` may not declare (or change to) ``playing`` now, or None if he may."""
    if w.h is None:
        return NoHandInProgress("No hand is in progress.")
    pl = w.players[seat] if 0 <= seat < len(w.players) else None
    if pl is None:
        return SeatError("That player is not in this hand.")
    order = w.h.order
    if w.phase is _PHASE_DECLARING and order[w.declare_pos] == seat:
        return None
    new = _PLAYER_STATUS_IN if playing else _PLAYER_STATUS_RETIRED
    if pl.status is _PLAYER_STATUS_UNDECLARED:
        return NotYourTurn("It is not your turn to declare.")
    if pl.status not in (_PLAYER_STATUS_IN, _PLAYER_STATUS_RETIRED):
        return DeclarationClosed("Your declaration can no longer be changed.")
    if pl.status is new:
        return DeclarationClosed("You have already declared that.")
    if w.phase is _PHASE_DECLARING:
        if w.declare_pos == 0 or order[w.declare_pos - 1] != seat:
            return DeclarationClosed("You can change your declaration only until the next player declares.")
    elif w.phase is _PHASE_PLAYING:
        if order[-1] != seat or w.draws > 0 or w.make_good is not None:
            return DeclarationClosed("The last player can change his declaration only until the first card is drawn.")
    else:
        return DeclarationClosed("Your declaration can no longer be changed.")
    s = w.seats[seat]
    if playing and s is not None and s.leaving:
        return DeclarationClosed("You are leaving the table.")
    return None


def _declare(w: _Work, seat: int, *, playing: bool) -> None:
    refusal = _declare_refusal(w, seat, playing=playing)
    if refusal is not None:
        raise refusal
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


def _advance_declarations(w: _Work) -> None:
    if w.h is None:
        raise RuntimeError("engine invariant broken")
    order = w.h.order
    while w.declare_pos < len(order) and w.p(order[w.declare_pos]).status is not _PLAYER_STATUS_UNDECLARED:
        w.declare_pos += 1
    if w.declare_pos >= len(order):
        w.declare_pos = len(order) - 1
        _open_play(w)


def _open_play(w: _Work) -> None:
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


def _my_turn(w: _Work, seat: int) -> Turn:
    w.require_hand()
    if w.phase is not _PHASE_PLAYING:
        raise WrongStep("The players are still declaring.")
    if w.make_good is not None:
        if w.make_good[0] == seat:
            raise WrongStep("You must make your spread good first.")
        raise NotYourTurn("A spread is being made good.")
    t = w.turn
    if t is None or t.seat != seat:
        raise NotYourTurn("It is not your turn.")
    return t


def _note_draw(w: _Work, seat: int) -> None:
    w.draws += 1
    if w.force_backs:
        w.force_backs = [
            _FORCE_BACK(fb.card, fb.owner, fb.position, fb.draws + 1, (*fb.drawers, seat), fb.pluck)
            for fb in w.force_backs
            if fb.draws + 1 < 2
        ]


def _remove_from_muck(w: _Work, position: int) -> Card:
    card = w.muck[position]
    w.muck = w.muck[:position] + w.muck[position + 1 :]
    w.force_backs = [
        _fast.replace(fb, position=fb.position - 1) if fb.position > position else fb
        for fb in w.force_backs
        if fb.position != position
    ]
    return card


def _option_fits(w: _Work, seat: int) -> bool:
    return w.option is not None and lay_offs(w.p(seat).melds, w.option)


def _is_flat(w: _Work, seat: int) -> bool:
    pl = w.p(seat)
    return not pl.hand and all(m.valid for m in pl.melds)


def _force_out_allowed(w: _Work, target: int, card: Card, other: int | None) -> bool:
    """Whether a force that puts ``target`` out is allowed (§5.3): head-up, or the same card puts
    ``other`` out for more."""
    if len(w.in_action()) == 2:
        return True
    if other is None or w.status(other) is not _PLAYER_STATUS_IN:
        return False
    if not (_is_flat(w, other) and lay_offs(w.p(other).melds, card)):
        return False
    return _payout_with(w, target, card) < _payout_with(w, other, card)


def _payout_with(w: _Work, seat: int, card: Card) -> int:
    """Chips a flat ``seat`` would collect by going out with ``card`` now (out-card case 2, §5.3).

    The full settlement, at the best play of the card: the play's condition collection and the
    bust-out bonus (not from fouled players), the outs and the going-out units, from every player
    in the hand, at each pair's rate and capped by each payer's stack.
    """
    pl = w.p(seat)
    r = w.rules
    best = 0
    for play in meld_plays(seat, pl.hand, pl.melds, card, r):
        try:
            _hand, melds, coll, _changed, _kind = _resolve_play(r, pl, card, play)
        except RuleViolation:
            continue
        bonus = {_BUST_OUT_OFF: 0, _BUST_OUT_NEW_ONLY: coll.new, _BUST_OUT_NEW_OR_ENHANCED: coll.total}[r.bust_out]
        outs = outs_units(melds, r)
        total = 0
        for i in w.payers(seat):
            units = coll.total + outs + r.going_out_units
            if w.status(i) is not _PLAYER_STATUS_FOULED:
                units += bonus
            total += min(units * w.pair_multiplier(i, seat), w.seat(i).stack)
        best = max(best, total)
    return best


def _mandatory_option(w: _Work, seat: int) -> bool:
    """Under mandatory forcing: the option card fits the board and must be taken."""
    if w.rules.force_mode is not _FORCE_MODE_MANDATORY or not _option_fits(w, seat):
        return False
    if w.option is None:
        raise RuntimeError("engine invariant broken")
    if _is_flat(w, seat):
        return _force_out_allowed(w, seat, w.option, w.option_from)
    return True


def _pluck(w: _Work, a: Pluck) -> None:
    t = _my_turn(w, a.seat)
    if t.step is not _STEP_DRAW:
        raise WrongStep("You have already drawn this turn.")
    if w.turn is not None and w.turn.forced_back:
        raise WrongStep("You must use the forced card.")
    if _mandatory_option(w, a.seat):
        raise MustUse("You must take the option card: it fits your board.")
    if not w.stock and not _refill_stock(w):
        _finish(w, _END_REASON_VOID, None)
        return
    card = w.stock[0]
    w.stock = w.stock[1:]
    _note_draw(w, a.seat)
    w.turn = _fast.replace(t, step=_STEP_DRAWN, drawn=card, source=_DRAW_SOURCE_STOCK)
    w.events.append(_CARD_PLUCKED(w.seq, None, a.seat, card))


def _refill_stock(w: _Work) -> bool:
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


def _usable(w: _Work, seat: int, card: Card, *, option: bool = False) -> bool:
    pl = w.p(seat)
    new_only = option and not w.rules.option_card_layoff
    if not new_only and lay_offs(pl.melds, card):
        return True  # it lays off on its own (the add or add-and-split is always legal)
    if _makes_new_meld(pl.hand, card):
        return True  # a new meld with hand cards (always legal: new melds are listed first)
    for play in iter_meld_plays(seat, pl.hand, pl.melds, card, w.rules, new_meld_only=new_only):
        try:
            _resolve_play(w.rules, pl, card, play)
        except RuleViolation:
            continue
        return True
    return False


def _makes_new_meld(hand: Sequence[Card], card: Card) -> bool:
    """Whether ``card`` and hand cards form a legal meld of three: two of its rank (two of its suit,
    or two other suits; any two for an Ace or King), or two suit neighbours in sequence.

    A sufficient test for :func:`_usable` (the new meld is a legal play), not a necessary one.
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


def _take_option(w: _Work, a: TakeOption) -> None:
    t = _my_turn(w, a.seat)
    if not w.rules.option_card:
        raise OptionRefused("This table plays without the option card.")
    if t.step is not _STEP_DRAW or t.forced_back:
        raise OptionRefused("You can take the option card only instead of drawing.")
    if w.option is None or w.option_from == a.seat:
        raise OptionRefused("There is no option card for you: only the previous player's unused pluck is one.")
    card = w.option
    if not _usable(w, a.seat, card, option=True):
        raise OptionRefused(f"You can take {card} only if you can meld it at once.")
    _remove_from_muck(w, len(w.muck) - 1)
    _note_draw(w, a.seat)
    w.option = None
    w.option_from = None
    w.turn = _fast.replace(t, step=_STEP_MUST_USE, drawn=card, source=_DRAW_SOURCE_OPTION, extra_pluck=False)
    w.emit(OptionTaken(seq=w.seq, seat=a.seat, card=card))


# ---------------------------------------------------------------------------------------------
# Melding
# ---------------------------------------------------------------------------------------------


def _resolve_play(
    rules: Rules, pl: PlayerHand, drawn: Card | None, a: NewMeld | AddToMeld | Borrow
) -> tuple[tuple[Card, ...], tuple[Meld, ...], Collection, tuple[Meld, ...], MeldPlayKind]:
    """Validate a meld play; return (hand after, melds after, collection, changed melds, kind).

    Raises:
        RuleViolation: CardsNotInHand / IllegalMeld with a reason.
    """
    hand = take_cards(pl.hand, a.cards)
    extra = (drawn,) if drawn is not None else ()
    melds = list(pl.melds)
    next_id = pl.next_meld_id
    match a:
        case NewMeld():
            cards = (*a.cards, *extra)
            if rules.enforcement is _ENFORCEMENT_PLAYERS and len(cards) >= 3:
                try:
                    classify(cards)
                except IllegalMeld:
                    bad = invalid_meld(next_id, cards)
                    return hand, (*melds, bad), NOTHING, (bad,), _MELD_PLAY_KIND_NEW
            new, coll = fresh_collection(make_meld(next_id, cards, rules), rules)
            return hand, (*melds, new), coll, (new,), _MELD_PLAY_KIND_NEW
        case AddToMeld():
            idx = next((k for k, m in enumerate(melds) if m.id == a.meld), None)
            if idx is None:
                raise IllegalMeld(f"You have no meld {a.meld}. You can only add to your own melds.")
            old = melds[idx]
            if not old.valid:
                raise IllegalMeld(f"Meld {a.meld} is not valid yet: make it good first.")
            added = (*a.cards, *extra)
            if not added:
                raise IllegalMeld("Add at least one card.")
            if a.split is None:
                grown, coll = extend(old, added, rules)
                melds[idx] = grown
                return hand, tuple(melds), coll, (grown,), _MELD_PLAY_KIND_ADD
            # multiset arithmetic with plain dicts (as Counter would: the same piece_a, in the same order)
            old_counts = _counts(old.cards)
            combined = dict(old_counts)
            for c in added:
                combined[c] = combined.get(c, 0) + 1
            piece_b = _counts(a.split)
            if any(n > combined.get(c, 0) for c, n in piece_b.items()):
                raise IllegalMeld("The split part must be made of the meld's cards and the added cards.")
            rest = {c: n - piece_b.get(c, 0) for c, n in combined.items()}
            piece_a = tuple(c for c, n in rest.items() for _ in range(n))  # range(n) is empty for n <= 0
            if not piece_b or not piece_a:
                raise IllegalMeld("A split must leave two melds.")
            if {c: n for c, n in rest.items() if n > 0} == old_counts or piece_b == old_counts:
                raise IllegalMeld("A split must change the meld: that is a new meld, not a split.")
            pieces, coll = remake(old, [(old.id, piece_a), (next_id, tuple(a.split))], rules)
            melds[idx] = pieces[0]
            melds.append(pieces[1])
            return hand, tuple(melds), coll, tuple(pieces), _MELD_PLAY_KIND_SPLIT
        case Borrow():
            if not a.taken:
                raise IllegalMeld("Name the cards you borrow.")
            per: dict[int, list[Card]] = {}
            for mid, card in a.taken:
                per.setdefault(mid, []).append(card)
            coll = NOTHING
            changed: list[Meld] = []
            for mid, lent in per.items():
                idx = next((k for k, m in enumerate(melds) if m.id == mid), None)
                if idx is None:
                    raise IllegalMeld(f"You have no meld {mid}. You can only borrow from your own melds.")
                src = melds[idx]
                left = borrow_pieces(src, lent, rules)
                if left is None:
                    raise IllegalMeld(f"Borrowing from meld {mid} must leave a valid meld.")
                ids = [src.id] + [next_id + 1 + k for k in range(len(left) - 1)]
                pieces, c = remake(src, list(zip(ids, left, strict=True)), rules)
                coll = coll + c
                melds[idx] = pieces[0]
                melds.extend(pieces[1:])
                changed.extend(pieces)
                next_id += len(left) - 1
            if not a.cards and not extra:
                raise IllegalMeld(
                    "A borrowed card must complete a new meld with a card from your hand or the drawn card."
                )
            cards = (*a.cards, *extra, *(c for _, c in a.taken))
            new, c2 = fresh_collection(make_meld(pl.next_meld_id, cards, rules), rules)
            return hand, (*melds, new), coll + c2, (*changed, new), _MELD_PLAY_KIND_BORROW
        case _:
            assert_never(a)


def _counts(cards: Sequence[Card]) -> dict[Card, int]:
    """The multiset ``cards`` as a dict in first-seen order (what Counter holds, without its overhead)."""
    out: dict[Card, int] = {}
    for c in cards:
        out[c] = out.get(c, 0) + 1
    return out


def _next_meld_id(melds: Sequence[Meld], current: int) -> int:
    return max([current - 1, *(m.id for m in melds)]) + 1


def _meld_play(w: _Work, a: NewMeld | AddToMeld | Borrow) -> None:
    t = _my_turn(w, a.seat)
    if t.step is _STEP_DRAW:
        raise NoHit("Draw first: you can meld only after a hit with the drawn card.")
    drawn = t.drawn if t.step in (_STEP_DRAWN, _STEP_MUST_USE) else None
    if (
        drawn is not None
        and t.source is _DRAW_SOURCE_OPTION
        and not w.rules.option_card_layoff
        and isinstance(a, AddToMeld)
    ):
        raise OptionRefused("At this table the option card must go into a new meld.")
    pl = w.p(a.seat)
    hand, melds, coll, changed, kind = _resolve_play(w.rules, pl, drawn, a)
    if not hand and any(not m.valid for m in melds):
        raise IllegalMeld("You cannot go out with a spread that is not valid.")
    w.put(_fast.replace(pl, hand=hand, melds=melds, next_meld_id=_next_meld_id(melds, pl.next_meld_id)))
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


def _make_good(w: _Work, a: MakeGood) -> None:
    w.require_hand()
    pending = w.make_good
    if pending is not None and pending[0] != a.seat:
        raise NotYourTurn("A spread is being made good.")
    if pending is None:
        t = w.turn
        if t is None or t.seat != a.seat or t.step is not _STEP_MELDING:
            raise WrongStep("You can make a spread good during your turn, after your hit.")
    pl = w.p(a.seat)
    m = pl.meld(a.meld)
    if m is None or m.valid:
        raise IllegalMeld("That meld does not need to be made good.")
    if pending is not None and pending[1] != a.meld:
        raise IllegalMeld(f"You must make meld {pending[1]} good.")
    hand = take_cards(pl.hand, a.cards)
    cards = (*m.cards, *a.cards)
    if not (is_valid_set(cards) or is_valid_run(cards)):
        raise IllegalMeld("Those cards do not make the spread a valid meld.")
    new, coll = fresh_collection(make_meld(m.id, cards, w.rules), w.rules)
    melds = tuple(new if x.id == m.id else x for x in pl.melds)
    if not hand and any(not x.valid for x in melds):
        raise IllegalMeld("You cannot go out with a spread that is not valid.")
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


def _claim(w: _Work, a: Claim) -> None:
    t = _my_turn(w, a.seat)
    if w.rules.effective_claim_mode is _CLAIM_MODE_AUTO:
        raise WrongStep("Pays are collected automatically at this table.")
    if t.step is not _STEP_MELDING:
        raise NoHit("You can claim pays only after using a card this turn.")
    pl = w.p(a.seat)
    if pl.unclaimed <= 0:
        raise WrongStep("You have nothing to claim.")
    units = pl.unclaimed
    w.put(_fast.replace(pl, unclaimed=0))
    for i in w.payers(a.seat):
        w.pay_units(i, a.seat, units, _CHIP_REASON_CONDITION)
    _after(w)


# ---------------------------------------------------------------------------------------------
# Discard and turn rotation
# ---------------------------------------------------------------------------------------------


def _discard(w: _Work, a: Discard) -> None:
    t = _my_turn(w, a.seat)
    if t.step is _STEP_DRAW:
        raise WrongStep("Draw first.")
    if t.step is _STEP_MUST_USE:
        raise MustUse("You must use that card: it cannot be discarded.")
    pl = w.p(a.seat)
    if t.step is _STEP_DRAWN:
        card = t.drawn
        if card is None:
            raise RuntimeError("engine invariant broken")
        if a.card is not None and a.card != card:
            raise NoHit("Before a hit you can only discard the card you drew.")
        refusal = _pluck_discard_refusal(w, a.seat, card)
        if refusal is not None:
            raise refusal
        w.muck = (*w.muck, card)
        w.force_backs.append(_FORCE_BACK(card, a.seat, len(w.muck) - 1, 0, (), True))
        w.events.append(_DISCARDED(w.seq, None, a.seat, card, True))
        if t.extra_pluck and not t.forced_back:
            w.turn = _fast.replace(t, step=_STEP_DRAW, drawn=None, source=None, extra_pluck=False)
            w.option = None
            w.option_from = None
            _after(w)
            return
        _end_turn(w, t, option=card)
        return
    if a.card is None:
        raise WrongStep("Choose a card from your hand to discard.")
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


def _pluck_discard_refusal(w: _Work, seat: int, card: Card) -> RuleViolation | None:
    """Why ``seat`` may not discard his unused pluck ``card`` now (it must be used), or None."""
    if w.solo and _usable(w, seat, card):
        return MustUse("Playing out alone, you must use every usable card.")
    nxt = w.next_active(seat)
    if (
        nxt is not None
        and nxt != seat
        and _is_flat(w, nxt)
        and lay_offs(w.p(nxt).melds, card)
        and _usable(w, seat, card)
    ):
        return MustUse("You may not give an out card to a flat player when you can use it yourself.")
    return None


def _end_turn(w: _Work, t: Turn, *, option: Card | None) -> None:
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
    w.turn = _NEW_TURN(nxt, _STEP_DRAW, None, None, False, False, 0, 0)  # Turn(seat=nxt)
    if option is not None and nxt != t.seat and w.rules.option_card:
        w.option = option
        w.option_from = t.seat
    else:
        w.option = None
        w.option_from = None
    _after(w)


def _after(w: _Work) -> None:
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
    if len(active) == 2 and w.rules.split_tops and w.rules.auto_split_married and _married(w, active[0], active[1]):
        _split(w, active[0], active[1])
        return
    _fix_turn(w)


def _fix_turn(w: _Work) -> None:
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
    w.turn = _NEW_TURN(nxt, _STEP_DRAW, None, None, False, False, 0, 0) if nxt is not None else None


# ---------------------------------------------------------------------------------------------
# Forcing
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _ForceOption:
    target: int
    card: Card
    back: ForceBack | None


def _possible_forces(w: _Work, caller: int) -> list[_ForceOption]:
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
    out: list[_ForceOption] = []
    # the option card on the player in turn
    if (
        r.force_mode is _FORCE_MODE_ON_DEMAND
        and w.option is not None
        and t.seat != caller
        and w.option_from != caller
        and t.step in (_STEP_DRAW, _STEP_DRAWN)
        and _option_fits(w, t.seat)
        and (not _is_flat(w, t.seat) or _force_out_allowed(w, t.seat, w.option, w.option_from))
    ):
        out.append(_ForceOption(t.seat, w.option, None))
    # force-back on a discarder
    head_up: bool | None = None
    for fb in reversed(w.force_backs):
        owner = fb.owner
        if owner == caller or owner == t.seat:
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
            out.append(_ForceOption(owner, fb.card, fb))
    return out


def _force(w: _Work, a: Force) -> None:
    w.require_hand()
    if w.rules.force_mode is _FORCE_MODE_OFF:
        raise ForceRefused("This table plays without forcing.")
    options = _possible_forces(w, a.seat)
    if a.target is not None:
        options = [o for o in options if o.target == a.target]
    if a.card is not None:
        options = [o for o in options if o.card == a.card]
    if not options:
        raise ForceRefused("There is no card you can force now.")
    if len({o.target for o in options}) > 1:
        raise ForceRefused("Say which player you force.")
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


def _foul_call(w: _Work, a: FoulCall) -> None:
    w.require_hand()
    if w.phase is not _PHASE_PLAYING:
        raise NoCause("Fouls can be called only while the hand is played.")
    if a.seat == a.target:
        raise NoCause("No player may call his own hand foul.")
    if w.status(a.seat) is not _PLAYER_STATUS_IN:
        raise NoCause("Only a player in action may call a foul.")
    if w.status(a.target) is not _PLAYER_STATUS_IN:
        raise NoCause("That player is not in action.")
    target = w.p(a.target)
    if a.cause is _FOUL_CAUSE_ABANDONED:
        if not (w.seat(a.target).away or target.timeouts >= w.rules.abandon_timeouts):
            raise NoCause("That player has not abandoned the hand.")
        w.emit(FoulCalled(seq=w.seq, caller=a.seat, target=a.target, cause=a.cause))
        _foul(w, a.target)
        return
    if a.cause is _FOUL_CAUSE_INVALID_MELD:
        bad = next((m for m in target.melds if not m.valid), None)
        if bad is None:
            raise NoCause("That player has no invalid spread.")
        if w.make_good is not None:
            raise NoCause("A spread is already being made good.")
        w.emit(FoulCalled(seq=w.seq, caller=a.seat, target=a.target, cause=a.cause))
        t = w.turn
        in_turn = t is not None and t.seat == a.target and t.step is _STEP_MELDING
        if in_turn and make_good_cards(bad, target.hand) is not None:
            w.make_good = (a.target, bad.id)
            w.emit(MakeGoodDemanded(seq=w.seq, seat=a.target, meld=bad.id))
            return
        _foul(w, a.target)
        return
    assert_never(a.cause)


def _floor_foul(w: _Work, a: FloorFoul) -> None:
    w.require_hand()
    if w.phase is not _PHASE_PLAYING or w.status(a.target) is not _PLAYER_STATUS_IN:
        raise NoCause("That player is not in action.")
    w.emit(FoulCalled(seq=w.seq, caller=None, target=a.target, cause=None))
    _foul(w, a.target)


def _foul(w: _Work, seat: int) -> None:
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


def _married(w: _Work, a: int, b: int) -> bool:
    pa, pb = w.seat(a).player_id, w.seat(b).player_id
    return (min(pa, pb), max(pa, pb)) in w.married


def _offer_split(w: _Work, a: OfferSplit) -> None:
    w.require_hand()
    if not w.rules.split_tops:
        raise SplitRefused("This table does not allow splitting the tops.")
    active = w.in_action()
    if w.phase is not _PHASE_PLAYING or len(active) != 2 or a.seat not in active:
        raise SplitRefused("Only the last two players in action may split the tops.")
    if w.split_offer is not None:
        raise SplitRefused("A split is already offered.")
    w.split_offer = a.seat
    w.emit(SplitOffered(seq=w.seq, seat=a.seat))


def _split_responder(w: _Work, seat: int) -> None:
    w.require_hand()
    if w.split_offer is None:
        raise SplitRefused("Nobody has offered to split the tops.")
    active = w.in_action()
    if seat not in active or seat == w.split_offer:
        raise SplitRefused("Only the other player in action can answer the split offer.")


def _accept_split(w: _Work, a: AcceptSplit) -> None:
    _split_responder(w, a.seat)
    if w.split_offer is None:
        raise RuntimeError("engine invariant broken")
    _split(w, w.split_offer, a.seat)


def _decline_split(w: _Work, a: DeclineSplit) -> None:
    if w.h is not None and w.split_offer == a.seat:
        w.split_offer = None
        w.emit(SplitDeclined(seq=w.seq, seat=a.seat))
        return
    _split_responder(w, a.seat)
    w.split_offer = None
    w.emit(SplitDeclined(seq=w.seq, seat=a.seat))


def _split(w: _Work, a: int, b: int) -> None:
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
        w.move(_POT_DOUBLES, pair[0] if ma == 2 else pair[1], w.doubles, _CHIP_REASON_SPLIT)
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


def _award_tops(w: _Work, winner: int) -> None:
    w.move(_POT_SINGLES, winner, w.singles, _CHIP_REASON_TOPS)
    if w.p(winner).multiplier == 2:
        w.move(_POT_DOUBLES, winner, w.doubles, _CHIP_REASON_TOPS)
    elif w.rules.unwon_doubles_tops is _UNWON_DOUBLES_TOPS_REFUND and w.doubles:
        if w.h is None:
            raise RuntimeError("engine invariant broken")
        dbl = [i for i in w.h.order if w.p(i).multiplier == 2 and w.seats[i] is not None]
        if dbl:
            share = w.doubles // len(dbl)
            for i in dbl:
                w.move(_POT_DOUBLES, i, share, _CHIP_REASON_TOPS_REFUND)


def _go_out(w: _Work, winner: int) -> None:
    t = w.turn
    if t is None:
        raise RuntimeError("engine invariant broken")
    r = w.rules
    bonus = {
        _BUST_OUT_OFF: 0,
        _BUST_OUT_NEW_ONLY: t.new_units,
        _BUST_OUT_NEW_OR_ENHANCED: t.new_units + t.enhanced_units,
    }[r.bust_out]
    _settle(w, winner, going_out=True, bonus=bonus)


def _settle(w: _Work, winner: int, *, going_out: bool, bonus: int = 0) -> None:
    pl = w.p(winner)
    if pl.unclaimed:
        units = pl.unclaimed
        w.put(_fast.replace(pl, unclaimed=0))
        for i in w.payers(winner):
            w.pay_units(i, winner, units, _CHIP_REASON_CONDITION)
    outs = outs_units(w.p(winner).melds, w.rules)
    for i in w.payers(winner):
        if going_out and w.status(i) is not _PLAYER_STATUS_FOULED:
            w.pay_units(i, winner, bonus, _CHIP_REASON_BUST_OUT)
        w.pay_units(i, winner, outs, _CHIP_REASON_OUTS)
        if going_out:
            w.pay_units(i, winner, w.rules.going_out_units, _CHIP_REASON_GOING_OUT)
    if going_out:
        w.emit(WentOut(seq=w.seq, seat=winner, outs_units=outs, bust_out_units=bonus))
    _award_tops(w, winner)
    _finish(w, _END_REASON_OUT if going_out else _END_REASON_SETTLED, winner)


def _finish(w: _Work, reason: EndReason, winner: int | None, splitters: tuple[int, ...] = ()) -> None:
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


def _knock(w: _Work, a: Knock) -> None:
    _declare(w, a.seat, playing=True)


def _go_on_top(w: _Work, a: GoOnTop) -> None:
    _declare(w, a.seat, playing=False)


_HANDLERS: dict[type, Callable[[_Work, Any], None]] = {
    Sit: _sit,
    Rebuy: _rebuy,
    Stand: _stand,
    SetAway: _set_away,
    SetStakes: _set_stakes,
    StartHand: _start_hand,
    Knock: _knock,
    GoOnTop: _go_on_top,
    Pluck: _pluck,
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
        raise RuleViolation("No legal play for the timeout.")
    pl = h.player(seat)
    return Discard(seat=seat, card=pl.hand[0])


def _apply_timeout(state: TableState, a: Timeout, seq: int) -> Transition:
    if to_act(state) != a.seat or state.hand is None:
        raise NotYourTurn("It is not that player's turn.")
    hand_no = state.hand.hand_no
    w = _Work(state, seq)
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
        w2 = _Work(cur, seq)
        _dispatch(w2, step)
        cur = w2.freeze()
        events.extend(w2.events)
        if isinstance(step, GoOnTop | Knock):
            break
        if isinstance(step, Discard) and not (double_draw and step.card is None):
            break
    return Transition(cur, tuple(events))


# ---------------------------------------------------------------------------------------------
# Queries: legal actions, values, observation, outs
# ---------------------------------------------------------------------------------------------


def _play_chips(w: _Work, seat: int, units: int) -> int:
    if units <= 0:
        return 0
    total = 0
    for i in w.payers(seat):
        total += min(units * w.pair_multiplier(i, seat), w.seat(i).stack)
    return total


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
    if table_actions and me is not None:
        out.append((Stand(seat=seat), 0))
        out.append((SetAway(seat=seat, away=not me.away), 0))
    h = state.hand
    if h is None or me is None:
        return tuple(out)
    players = h.players
    pl_or_none = players[seat]
    if pl_or_none is None:
        return tuple(out)
    pl = pl_or_none
    rules = state.rules
    w = _Work(state, state.seq)
    phase = h.phase
    # declarations (incl. the change window)
    if phase is _PHASE_DECLARING or (phase is _PHASE_PLAYING and h.draws == 0 and h.order[-1] == seat):
        for decl in (Knock(seat=seat), GoOnTop(seat=seat)):
            if _declare_refusal(w, seat, playing=isinstance(decl, Knock)) is None:
                out.append((decl, 0))
    if phase is not _PHASE_PLAYING:
        return tuple(out)
    t = h.turn
    if h.make_good is not None:
        if h.make_good[0] == seat:
            m = pl.meld(h.make_good[1])
            cards = make_good_cards(m, pl.hand) if m is not None else None
            if cards is not None:
                out.append((MakeGood(seat=seat, meld=h.make_good[1], cards=cards), 0))
        return tuple(out)
    if t is not None and t.seat == seat:
        step = t.step
        if step is not _STEP_DRAW:
            drawn = t.drawn if step is _STEP_DRAWN or step is _STEP_MUST_USE else None
            new_only = drawn is not None and t.source is _DRAW_SOURCE_OPTION and not rules.option_card_layoff
            melds_list: list[tuple[Action, int, int]] = []
            chips_for: dict[int, int] = {0: 0}  # units -> chips collected now (same payers for every play)
            n_hand = len(pl.hand)
            for play in iter_meld_plays(seat, pl.hand, pl.melds, drawn, rules, new_meld_only=new_only):
                try:
                    hand, _melds, coll, _c, _k = _resolve_play(rules, pl, drawn, play)
                except RuleViolation:
                    continue
                units = coll.new + coll.enhanced
                chips = chips_for.get(units)
                if chips is None:
                    chips = chips_for[units] = _play_chips(w, seat, units)
                melds_list.append((play, chips, n_hand - len(hand)))
            if melds_list:
                melds_list.sort(key=_meld_order)
                out.extend([(p, v) for p, v, _n in melds_list])
        if step is _STEP_DRAW:
            if (
                rules.option_card
                and h.option is not None
                and h.option_from != seat
                and not t.forced_back
                and _usable(w, seat, h.option, option=True)
            ):
                out.append((TakeOption(seat=seat), 0))
            if not t.forced_back and not _mandatory_option(w, seat):
                out.append((_PLUCK_ACTION(seat), 0))
        elif step is _STEP_DRAWN:
            if t.drawn is not None and _pluck_discard_refusal(w, seat, t.drawn) is None:
                out.append((_DISCARD_ACTION(seat, None), 0))
        elif step is _STEP_MELDING:
            out.extend([(_DISCARD_ACTION(seat, card), 0) for card in dict.fromkeys(pl.hand)])
            if rules.effective_claim_mode is not _CLAIM_MODE_AUTO and pl.unclaimed > 0:
                out.append((Claim(seat=seat), _play_chips(w, seat, pl.unclaimed)))
    # out of turn
    if rules.force_mode is not _FORCE_MODE_OFF and (h.option is not None or h.force_backs):
        for o in _possible_forces(w, seat):
            out.append((Force(seat=seat, target=o.target, card=o.card), 0))
    if pl.status is _PLAYER_STATUS_IN:
        active = [p.seat for p in players if p is not None and p.status is _PLAYER_STATUS_IN]
        invalid_possible = rules.enforcement is _ENFORCEMENT_PLAYERS and h.make_good is None
        abandon = rules.abandon_timeouts
        if invalid_possible:
            for other in active:
                if other == seat:
                    continue
                op = players[other]
                other_seat = seats[other]
                if op is None or other_seat is None:
                    continue
                if any(not m.valid for m in op.melds):
                    out.append((FoulCall(seat=seat, target=other, cause=_FOUL_CAUSE_INVALID_MELD), 0))
                if other_seat.away or op.timeouts >= abandon:
                    out.append((FoulCall(seat=seat, target=other, cause=_FOUL_CAUSE_ABANDONED), 0))
        else:  # the same, for the only cause possible (one comprehension: this runs at every step)
            out.extend(
                [
                    (FoulCall(seat=seat, target=other, cause=_FOUL_CAUSE_ABANDONED), 0)
                    for other in active
                    if other != seat
                    and (op := players[other]) is not None
                    and (other_seat := seats[other]) is not None
                    and (other_seat.away or op.timeouts >= abandon)
                ]
            )
        if rules.split_tops and len(active) == 2 and seat in active:
            if h.split_offer is None:
                out.append((OfferSplit(seat=seat), 0))
            elif h.split_offer != seat:
                out.append((AcceptSplit(seat=seat), 0))
                out.append((DeclineSplit(seat=seat), 0))
            else:
                out.append((DeclineSplit(seat=seat), 0))
    return tuple(out)


def _meld_order(x: tuple[Action, int, int]) -> tuple[int, int]:
    """Meld plays: most chips, then most cards (a stable sort keeps enumeration order on ties)."""
    return (-x[1], -x[2])


_FOUL_CAUSES: tuple[FoulCause, ...] = tuple(FoulCause)


def _foul_cause_exists(w: _Work, target: int, cause: FoulCause) -> bool:
    pl = w.p(target)
    if cause is _FOUL_CAUSE_ABANDONED:
        return w.seat(target).away or pl.timeouts >= w.rules.abandon_timeouts
    return w.make_good is None and any(not m.valid for m in pl.melds)


def _ok(state: TableState, action: Action) -> bool:
    return can(state, action)


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
        raise NotYourTurn("It is not your turn.")
    t = h.turn
    drawn = t.drawn if t.step in (_STEP_DRAWN, _STEP_MUST_USE) else None
    w = _Work(state, state.seq)
    _h, _m, coll, _c, _k = _resolve_play(state.rules, w.p(action.seat), drawn, action)
    return _play_chips(w, action.seat, coll.total)


def may_act(state: TableState) -> tuple[int, ...]:
    """Seats that have any legal action now (the one to act plus out-of-turn callers)."""
    return tuple(i for i, s in enumerate(state.seats) if s is not None and plays(state, i))


def call_outs(state: TableState, seat: int) -> int:
    """Chips ``seat``'s board would collect if it went out now: outs plus going-out units from every
    player in the hand (no bust-out), capped by their stacks."""
    h = state.hand or state.last_hand
    if h is None or h.players[seat] is None or state.hand is None:
        return 0
    w = _Work(state, state.seq)
    outs = outs_units(w.p(seat).melds, state.rules) + state.rules.going_out_units
    return _play_chips(w, seat, outs)


# ---------------------------------------------------------------------------------------------
# Observation
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerView:
    """What everyone may see of one dealt-in player."""

    seat: int
    player_id: int
    status: PlayerStatus
    multiplier: int
    hand_count: int
    melds: tuple[Meld, ...]
    board_value: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Observation:
    """Everything ``seat`` may see, and nothing more (computer players see only this)."""

    seat: int
    rules: Rules
    seq: int
    hand_no: int
    stacks: tuple[int | None, ...]  # by seat slot (None = empty)
    player_ids: tuple[int | None, ...]
    singles_tops: int
    doubles_tops: int
    phase: Phase | None  # None between hands
    to_act: int | None
    turn_seat: int | None
    step: Step | None
    drawn: Card | None  # the face-up drawn / option / forced card waiting to be used
    hand: tuple[Card, ...]  # this seat's own cards
    players: tuple[PlayerView, ...]
    stock_count: int
    muck_top: Card | None
    option: Card | None
    option_from: int | None
    force_backs: tuple[ForceBack, ...]
    split_offer: int | None
    make_good: tuple[int, int] | None
    solo: bool
    legal: tuple[tuple[Action, int], ...]  # this seat's legal actions with what each pays


def observe(state: TableState, seat: int) -> Observation:
    """What ``seat`` may see (its own hand, the public board, counts, stacks, tops, its legal actions)."""
    h = state.hand
    views: list[PlayerView] = []
    hand: tuple[Card, ...] = ()
    if h is not None:
        for pl in h.players:
            if pl is None:
                continue
            s = state.seats[pl.seat]
            views.append(
                PlayerView(
                    seat=pl.seat,
                    player_id=s.player_id if s is not None else 0,
                    status=pl.status,
                    multiplier=pl.multiplier,
                    hand_count=len(pl.hand),
                    melds=pl.melds,
                    board_value=outs_units(pl.melds, state.rules),
                )
            )
        mine = h.players[seat] if 0 <= seat < len(h.players) else None
        hand = mine.hand if mine is not None else ()
    t = h.turn if h is not None else None
    return Observation(
        seat=seat,
        rules=state.rules,
        seq=state.seq,
        hand_no=state.hand_no,
        stacks=tuple(s.stack if s is not None else None for s in state.seats),
        player_ids=tuple(s.player_id if s is not None else None for s in state.seats),
        singles_tops=state.singles_tops,
        doubles_tops=state.doubles_tops,
        phase=h.phase if h is not None else None,
        to_act=to_act(state),
        turn_seat=t.seat if t is not None else None,
        step=t.step if t is not None else None,
        drawn=t.drawn if t is not None else None,
        hand=hand,
        players=tuple(views),
        stock_count=len(h.stock) if h is not None else 0,
        muck_top=h.muck[-1] if h is not None and h.muck else None,
        option=h.option if h is not None else None,
        option_from=h.option_from if h is not None else None,
        force_backs=h.force_backs if h is not None else (),
        split_offer=h.split_offer if h is not None else None,
        make_good=h.make_good if h is not None else None,
        solo=h.solo if h is not None else False,
        legal=plays(state, seat) if state.seat(seat) is not None else (),
    )


__all__ = [
    "ChipsError",
    "DeclarationClosed",
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
    "legal_actions",
    "may_act",
    "observe",
    "play_value",
    "plays",
    "to_act",
    "verify",
]
