"""The engine's working copy: a mutable :class:`Work` of one :class:`TableState` for one action.

Every transition runs on a ``Work`` and :meth:`Work.freeze` builds the next immutable state. Its
attributes carry the names of the ``TableState`` and ``HandState`` fields they hold, and the code
that loads and freezes them is generated from the dataclasses' own field lists
(:func:`._fast.working_copy`), so a field is named here once, with its type.
"""

from __future__ import annotations

from typing import Final

from pancog.game.i18n import N_

from . import _fast
from .actions import Discard, FoulCause, Pluck
from .cards import Card, Rank
from .errors import NoHandInProgress, SeatError
from .events import CardPlucked, ChipReason, ChipsMoved, Discarded, Event, MeldPlayKind
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

# The working copy's load/freeze, generated from the dataclasses' field lists. A hand's identity
# (number, seed, first hand, order) never changes during an action: it is read from the hand itself.
_HAND_FIXED: Final = ("hand_no", "seed", "first", "order")
_LOAD_HAND, _FREEZE_HAND = _fast.working_copy(HandState, fixed=_HAND_FIXED, as_list=("players", "force_backs"))
_LOAD_TABLE, _FREEZE_TABLE = _fast.working_copy(TableState, fixed=("table_id",), given=("hand",), as_list=("seats",))
_VIEW_HAND = _fast.working_copy(HandState, fixed=_HAND_FIXED)[0]  # load only: lists stay tuples
_VIEW_TABLE = _fast.working_copy(TableState, fixed=("table_id",), given=("hand",))[0]


class Work:
    """A mutable copy of a TableState for one action; :meth:`freeze` builds the next state.

    ``h`` is the hand being played (None between hands); the other attributes are the fields of
    ``TableState`` and ``HandState`` of the same names (lists where an action changes them in place;
    the hand's fields are set only while a hand is in progress).
    """

    __slots__ = (
        "events",
        "h",
        "s",
        *(name for name in TableState.__dataclass_fields__ if name not in ("table_id", "hand")),
        *(name for name in HandState.__dataclass_fields__ if name not in _HAND_FIXED),
    )

    # TableState's fields
    rules: Rules
    seats: list[Seat | None]
    singles_tops: int
    doubles_tops: int
    house: int
    married: tuple[tuple[int, int], ...]
    previous_winner: int | None
    previous_first: int | None
    hand_no: int
    last_hand: HandState | None
    seq: int
    # HandState's fields (copy-on-write: the tuples are replaced, never mutated)
    players: list[PlayerHand | None]
    phase: Phase
    declare_pos: int
    draws: int
    stock: tuple[Card, ...]
    muck: tuple[Card, ...]
    dead: tuple[Card, ...]
    option: Card | None
    option_from: int | None
    turn: Turn | None
    suspended: Turn | None
    force_backs: list[ForceBack]
    make_good: tuple[int, int] | None
    split_offer: int | None
    reshuffled: bool
    solo: bool
    winner: int | None
    end_reason: EndReason | None
    last_declarer: int | None

    def __init__(self, s: TableState, seq: int) -> None:
        self.s = s
        _LOAD_TABLE(self, s)
        self.seq = seq
        self.events: list[Event] = []
        self.h: HandState | None = s.hand
        if s.hand is not None:
            _LOAD_HAND(self, s.hand)

    @classmethod
    def view(cls, s: TableState) -> Work:
        """A working copy only to read (the menu's questions): its lists are the state's own tuples."""
        w = object.__new__(cls)
        w.s = s
        _VIEW_TABLE(w, s)
        w.h = s.hand
        if s.hand is not None:
            _VIEW_HAND(w, s.hand)
        return w

    def _load(self, h: HandState) -> None:
        self.h = h
        _LOAD_HAND(self, h)

    def hand_state(self) -> HandState:
        h = self.h
        if h is None:
            raise RuntimeError("engine invariant broken")
        return _FREEZE_HAND(self, h)

    def freeze(self) -> TableState:
        return _FREEZE_TABLE(self, self.s, None if self.h is None else self.hand_state())

    # --- small helpers -------------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def seat(self, i: int) -> Seat:
        s = self.seats[i] if 0 <= i < len(self.seats) else None
        if s is None:
            raise SeatError(N_("That seat is empty."))
        return s

    def require_hand(self) -> None:
        if self.h is None:
            raise NoHandInProgress(N_("No hand is in progress."))

    def p(self, i: int) -> PlayerHand:
        pl = self.players[i] if 0 <= i < len(self.players) else None
        if pl is None:
            raise SeatError(N_("That player is not in this hand."))
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
            return self.singles_tops
        if account is _POT_DOUBLES:
            return self.doubles_tops
        if account is _POT_HOUSE:
            return self.house
        return self.seat(account).stack

    def _adjust(self, account: Account, delta: int) -> None:
        if isinstance(account, Pot):
            if account is _POT_SINGLES:
                self.singles_tops += delta
            elif account is _POT_DOUBLES:
                self.doubles_tops += delta
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
