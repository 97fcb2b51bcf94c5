"""A hand's chip result: the one source of every chip figure shown for a hand (no discord import).

The ledger is the truth about chips. What one committed action did to the ledger is :func:`engine_postings` of its
events (``ChipsMoved`` between seats and pots -> ``stack``/``tops``/``issued`` accounts; ``BoughtIn``/``CashedOut``
-> the player's bank and stack), and :class:`pancog.services.tables.TableService` commits exactly those postings.
:class:`HandChips` folds a table's committed transitions, in order, into the :class:`HandResult` of each hand:

- each dealt-in player's **net** for the hand is the sum of the hand's postings on his own accounts (his stack at the
  table and his bank: a buy-in or a cash-out moves chips between the two and adds nothing), so it is the ledger's
  figure by construction;
- the **flows** are the ``ChipsMoved`` events those postings came from (who paid whom, why, in which action), for
  what a figure is made of: what the winner collected from each player, the tops taken, conditions collected, the
  biggest single collection, the chips that went from one player to another.

Every presenter takes its chip figures from a :class:`HandResult` — the live end-of-hand embed and image
(``Applied.result``, built from the postings the table service has just committed), a replay's last step and the
shared animation (:class:`pancog.services.replay.ReplayService`, from the table's log through the same mapping), and
the league's per-hand digest behind ``/pan stats``, standings and leaderboards — so none can disagree with the ledger.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pancog.game.events import (
    BoughtIn,
    CashedOut,
    ChipReason,
    ChipsMoved,
    Event,
    HandEnded,
    HandStarted,
)
from pancog.game.state import Account as EngineAccount
from pancog.game.state import EndReason, Pot, TableState
from pancog.infra.storage.base import Account, AccountKind, Posting

__all__ = [
    "COLLECTING",
    "Flow",
    "HandChips",
    "HandResult",
    "engine_postings",
    "player_deltas",
]

COLLECTING = frozenset(
    {
        ChipReason.CONDITION,
        ChipReason.OUTS,
        ChipReason.BUST_OUT,
        ChipReason.GOING_OUT,
        ChipReason.TOPS,
        ChipReason.SPLIT,
    }
)
"""Chip reasons that count as collecting (a player's biggest single collection sums these within one action)."""


# --------------------------------------------------------------------------------------------- the ledger mapping


def _ledger_account(
    account: EngineAccount, table_id: int, guild_id: int, before: TableState, after: TableState
) -> Account:
    if isinstance(account, Pot):
        if account is Pot.SINGLES:
            return Account.tops(table_id, "singles")
        if account is Pot.DOUBLES:
            return Account.tops(table_id, "doubles")
        return Account.issued(guild_id)  # the house (rake) takes chips out of play
    seat = before.seat(account) or after.seat(account)
    if seat is None:
        raise LookupError(f"table {table_id}: chips moved for empty seat {account}")
    return Account.stack(table_id, seat.player_id)


def engine_postings(
    events: Sequence[Event], *, table_id: int, guild_id: int, before: TableState, after: TableState
) -> list[Posting]:
    """Ledger postings for the chip events of one transition, netted per account (zero-sum).

    ``ChipsMoved`` between seats and pots -> stack/tops accounts (the house's rake -> ``issued``); ``BoughtIn``
    bank -> stack; ``CashedOut`` stack -> bank. ``guild_id`` is the scope of the table's banks.
    """
    net: dict[Account, int] = {}

    def move(payer: Account, payee: Account, amount: int) -> None:
        net[payer] = net.get(payer, 0) - amount
        net[payee] = net.get(payee, 0) + amount

    for event in events:
        if isinstance(event, ChipsMoved) and event.amount:
            move(
                _ledger_account(event.payer, table_id, guild_id, before, after),
                _ledger_account(event.payee, table_id, guild_id, before, after),
                event.amount,
            )
        elif isinstance(event, BoughtIn) and event.amount:
            move(Account.bank(guild_id, event.player_id), Account.stack(table_id, event.player_id), event.amount)
        elif isinstance(event, CashedOut) and event.amount:
            move(Account.stack(table_id, event.player_id), Account.bank(guild_id, event.player_id), event.amount)
    return [Posting(account, delta) for account, delta in sorted(net.items()) if delta]


def player_deltas(postings: Iterable[Posting]) -> dict[int, int]:
    """Each player's gain (+) or loss (−) in ``postings``: the deltas of his stack and bank accounts together, so
    chips moved between his own bank and stack (a buy-in, a cash-out) count for nothing."""
    out: dict[int, int] = {}
    for posting in postings:
        account = posting.account
        if account.kind in (AccountKind.STACK, AccountKind.BANK) and account.user_id is not None:
            out[account.user_id] = out.get(account.user_id, 0) + posting.delta
    return out


# --------------------------------------------------------------------------------------------- values


Party = int | Pot
"""Who paid or was paid in a :class:`Flow`: a player (user id; computer players negative) or a pot."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Flow:
    """One chip movement of a hand (a ``ChipsMoved`` event), with players named by user id."""

    seq: int  # the action that moved them
    payer: Party
    payee: Party
    amount: int
    reason: ChipReason


@dataclass(frozen=True, slots=True, kw_only=True)
class HandResult:
    """The chips of one finished hand, per player: what every figure shown for the hand is read from.

    ``nets`` are from the hand's ledger postings (every dealt-in player, in the order dealt; 0 included); ``flows``
    are the chip events those postings came from. For every player ``received − paid`` over the flows equals his
    net (``tests/services/test_chips.py`` checks it on random hands).
    """

    table_id: int
    hand_no: int
    first_seq: int  # the deal
    last_seq: int  # the action that ended the hand
    reason: EndReason
    winner: int | None  # user id
    splitters: tuple[int, ...] = ()  # user ids
    nets: tuple[tuple[int, int], ...] = ()  # (user id, net chips for the hand)
    flows: tuple[Flow, ...] = ()

    @property
    def key(self) -> str:
        """The league's key of this hand (``hand:<table>:<hand_no>``)."""
        return f"hand:{self.table_id}:{self.hand_no}"

    @property
    def players(self) -> tuple[int, ...]:
        """The user ids dealt in, in the order dealt."""
        return tuple(user for user, _ in self.nets)

    def net(self, user_id: int) -> int:
        """The player's net for the hand (0 if he was not dealt in)."""
        return next((n for user, n in self.nets if user == user_id), 0)

    def received(self, user_id: int) -> int:
        """Every chip the player collected in the hand (gross: before what he paid)."""
        return sum(f.amount for f in self.flows if f.payee == user_id and not isinstance(f.payee, Pot))

    def paid(self, user_id: int) -> int:
        """Every chip the player paid in the hand (antes, conditions, outs, refunds, ...)."""
        return sum(f.amount for f in self.flows if f.payer == user_id and not isinstance(f.payer, Pot))

    def received_from(self, user_id: int) -> dict[Party, dict[ChipReason, int]]:
        """What the player collected, by payer (a player or a pot) and reason, in the order first paid."""
        out: dict[Party, dict[ChipReason, int]] = {}
        for f in self.flows:
            if f.payee == user_id and not isinstance(f.payee, Pot):
                items = out.setdefault(f.payer, {})
                items[f.reason] = items.get(f.reason, 0) + f.amount
        return out

    def collected(self, user_id: int, reason: ChipReason) -> int:
        """Chips the player collected for one reason (e.g. conditions)."""
        return sum(f.amount for f in self.flows if f.payee == user_id and f.reason is reason)

    def biggest(self, user_id: int) -> int:
        """The most chips the player collected in one action (conditions, outs, going out, bust-out, tops, split)."""
        per_action: dict[int, int] = {}
        for f in self.flows:
            if f.payee == user_id and f.reason in COLLECTING and not isinstance(f.payee, Pot):
                per_action[f.seq] = per_action.get(f.seq, 0) + f.amount
        return max(per_action.values(), default=0)

    def between_players(self) -> dict[tuple[int, int], int]:
        """Chips that went directly from one player to another: (payer, payee) user ids -> chips."""
        out: dict[tuple[int, int], int] = {}
        for f in self.flows:
            if not isinstance(f.payer, Pot) and not isinstance(f.payee, Pot):
                out[(f.payer, f.payee)] = out.get((f.payer, f.payee), 0) + f.amount
        return out


# --------------------------------------------------------------------------------------------- the fold

_CHIP_EVENTS = (ChipsMoved, BoughtIn, CashedOut)


class HandChips:
    """Folds one table's committed transitions, in seq order, into each hand's :class:`HandResult`.

    Feed it every transition from a hand's deal on; a hand whose deal it did not see (it started folding in the
    middle of one) yields no result: the caller rebuilds that hand from the table's log.
    """

    __slots__ = ("_first_seq", "_flows", "_nets", "guild_id", "hand_no", "table_id")

    def __init__(self, table_id: int, guild_id: int = 0) -> None:
        """``guild_id``: the scope of the table's banks, for :func:`engine_postings` when no postings are given (the
        nets do not depend on it)."""
        self.table_id = table_id
        self.guild_id = guild_id
        self.hand_no: int | None = None  # the hand being folded (None: no deal seen since the last end)
        self._first_seq = 0
        self._nets: dict[int, int] = {}
        self._flows: list[Flow] = []

    def copy(self) -> HandChips:
        other = HandChips(self.table_id, self.guild_id)
        other.hand_no = self.hand_no
        other._first_seq = self._first_seq
        other._nets = dict(self._nets)
        other._flows = list(self._flows)
        return other

    def feed(
        self,
        before: TableState,
        events: Sequence[Event],
        after: TableState,
        postings: Sequence[Posting] | None = None,
    ) -> HandResult | None:
        """Fold one transition (the table before and after it, its events); returns the hand's result when the hand
        ended in it. ``postings``: the ledger postings committed for it (default: :func:`engine_postings` of the
        events, the same mapping the table service commits)."""
        ended: HandEnded | None = None
        moved = False
        for event in events:
            if isinstance(event, _CHIP_EVENTS):
                moved = True
            elif isinstance(event, HandStarted):
                self.hand_no = event.hand_no
                self._first_seq = after.seq
                self._flows = []
                self._nets = {}
                for seat in event.dealt:
                    occupant = after.seat(seat) or before.seat(seat)
                    if occupant is not None:
                        self._nets[occupant.player_id] = 0
            elif isinstance(event, HandEnded):
                ended = event
        if self.hand_no is None:
            return None  # between hands, or the deal was not seen
        if not moved and ended is None:
            return None  # most actions (a pluck, a discard) move no chips
        if postings is None:
            postings = engine_postings(
                events, table_id=self.table_id, guild_id=self.guild_id, before=before, after=after
            )
        for player, delta in player_deltas(postings).items():
            self._nets[player] = self._nets.get(player, 0) + delta
        for event in events:
            if isinstance(event, ChipsMoved) and event.amount:
                self._flows.append(
                    Flow(
                        seq=event.seq,
                        payer=_party(event.payer, before, after),
                        payee=_party(event.payee, before, after),
                        amount=event.amount,
                        reason=event.reason,
                    )
                )
        if ended is None:
            return None
        if ended.hand_no != self.hand_no:
            self.hand_no = None
            return None

        def user(seat: int) -> int:
            return _party_user(seat, before, after)

        result = HandResult(
            table_id=self.table_id,
            hand_no=ended.hand_no,
            first_seq=self._first_seq,
            last_seq=after.seq,
            reason=ended.reason,
            winner=user(ended.winner) if ended.winner is not None else None,
            splitters=tuple(user(s) for s in ended.splitters),
            nets=tuple(self._nets.items()),
            flows=tuple(self._flows),
        )
        self.hand_no = None
        self._nets = {}
        self._flows = []
        return result


def _party_user(seat: int, before: TableState, after: TableState) -> int:
    occupant = before.seat(seat) or after.seat(seat)
    if occupant is None:
        raise LookupError(f"no player in seat {seat}")
    return occupant.player_id


def _party(account: EngineAccount, before: TableState, after: TableState) -> Party:
    return account if isinstance(account, Pot) else _party_user(account, before, after)
