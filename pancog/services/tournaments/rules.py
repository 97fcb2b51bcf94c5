"""The pure rules of a tournament: who may register, what a buy-in, a fee, a refund, a seat's chips and the prizes
post, where a newcomer sits, how the field is drawn to its first tables and how the finish is ranked and paid.

No IO and no clock: a tournament (and figures read elsewhere) in, values out. The rooms that act on them
(:mod:`.registry`, :mod:`.floor`) commit what these return. Levels, balancing, payouts and ranking, the other pure
parts, are :mod:`.levels`, :mod:`.balancer`, :mod:`.payouts` and :mod:`.ranking`.

Chips: a buy-in moves ``bank:G:U -> escrow:T`` (the fee ``escrow:T -> house:G`` at the start, or at once for a late
registration); tournament chips are the tournament's own bank scope, ``BankScope.tournament(T)``:
``issued:tournament:T -> bank:tournament:T:U`` when an entry is first seated, and the tournament's tables buy in from
and cash out to those banks. A bust's leftover (less than the ante) goes back to ``issued:tournament:T``. Prizes
move ``escrow:T -> bank:G:U``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from pancog.game.i18n import N_
from pancog.infra.storage.base import Account, BankScope, Posting

from . import purse
from .bubble import shared_round
from .errors import AlreadyRegistered, BadTournamentOption, RegistrationClosed, TournamentFull
from .model import Entry, EntryStatus, Tournament, TTable
from .payouts import prizes, share_ties
from .ranking import Bust, Finish, standings

__all__ = [
    "Result",
    "buy_in_legs",
    "check_registration",
    "chips_legs",
    "chips_scope",
    "derive",
    "fee_legs",
    "first_tables",
    "payout_legs",
    "player_places",
    "prize_pool",
    "refund_legs",
    "refunded",
    "results",
    "seat_for_newcomer",
    "stub_legs",
]


def derive(*parts: int) -> int:
    """A stable 62-bit id or seed from integers (table ids and deal seeds survive restarts)."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**62 - 1)


def chips_scope(t: Tournament) -> BankScope:
    """The bank scope of the tournament's chips (its tables buy in from and cash out to it)."""
    return BankScope.tournament(t.tournament_id)


def refunded(t: Tournament) -> int:
    return sum(1 for e in t.entries.values() if e.status is EntryStatus.REFUNDED)


def prize_pool(t: Tournament) -> int:
    """The prize pool paid by place: buy-ins less fees and bounties, rebuys and add-ons, or the guarantee."""
    return purse.payout_pool(t)


# ------------------------------------------------------------------ registration


def check_registration(t: Tournament, player_id: int, *, open_: bool) -> None:
    """Refuse a registration (nothing stored yet).

    Raises:
        RegistrationClosed, BadTournamentOption (computer players not allowed), AlreadyRegistered, TournamentFull.
    """
    if not open_:
        raise RegistrationClosed(N_("Registration for this tournament is closed."))
    if player_id < 0 and not t.config.computers:
        raise BadTournamentOption(N_("This tournament does not allow computer players."))
    mine = t.entries_of(player_id)
    if any(e.status in (EntryStatus.REGISTERED, EntryStatus.ALIVE) for e in mine):
        raise AlreadyRegistered
    if len([e for e in mine if e.status is not EntryStatus.REFUNDED]) >= t.config.entries_per_player:
        raise RegistrationClosed(N_("You have used all your entries in this tournament."))
    if len([e for e in t.entries.values() if e.status is not EntryStatus.REFUNDED]) >= t.config.field_limit:
        raise TournamentFull


def buy_in_legs(t: Tournament, player_id: int, *, running: bool) -> list[Posting]:
    """The buy-in: bank -> escrow; a late registration (``running``) pays its fee to the house at once."""
    cfg = t.config
    if not cfg.buy_in:
        return []
    legs = [Posting(Account.bank(t.guild_id, player_id), -cfg.buy_in)]
    if running and cfg.fee:
        legs += [
            Posting(Account.escrow(t.tournament_id), cfg.buy_in - cfg.fee),
            Posting(Account.house(t.guild_id), cfg.fee),
        ]
    else:
        legs += [Posting(Account.escrow(t.tournament_id), cfg.buy_in)]
    return [p for p in legs if p.delta]


def refund_legs(t: Tournament, entry: Entry, *, fee_taken: int) -> list[Posting]:
    """The whole buy-in back to the player's bank: from escrow, and the fee from the house if it was taken (with
    its rebuys and add-on, less any part of its bounty already paid to another player)."""
    extra = purse.refund_extra(t, entry)
    legs = [
        Posting(Account.escrow(t.tournament_id), -(t.config.buy_in - fee_taken + extra)),
        Posting(Account.house(t.guild_id), -fee_taken),
        Posting(Account.bank(t.guild_id, entry.player_id), t.config.buy_in + extra),
    ]
    return [p for p in legs if p.delta]


def fee_legs(t: Tournament, entries: int) -> list[Posting]:
    """The fees of the entries seated at the start: escrow -> house."""
    fees = t.config.fee * entries
    if not fees:
        return []
    return [Posting(Account.escrow(t.tournament_id), -fees), Posting(Account.house(t.guild_id), fees)]


def chips_legs(t: Tournament, player_id: int) -> list[Posting]:
    """An entry's starting stack, issued in the tournament's scope when it is first seated."""
    scope = chips_scope(t)
    stack = t.config.starting_stack
    return [Posting(Account.issued(scope), -stack), Posting(Account.bank(scope, player_id), stack)]


def stub_legs(t: Tournament, player_id: int, held: int) -> list[Posting]:
    """What is left of a busted player's chips (less than an ante) goes back to the scope's issued account."""
    scope = chips_scope(t)
    return [Posting(Account.bank(scope, player_id), -held), Posting(Account.issued(scope), held)] if held else []


# ------------------------------------------------------------------ seating


def seat_for_newcomer(t: Tournament) -> int:
    """The table a late entry goes to: the emptiest open table with a free seat; -1 when every table is full (a new
    table opens for it)."""
    counts = {tt.table_no: sum(1 for e in t.alive() if e.table_no == tt.table_no) for tt in t.open_tables()}
    room = [n for n, c in counts.items() if c < t.config.seats]
    if not room:
        return -1
    return min(room, key=lambda n: (counts[n], n))


def first_tables(t: Tournament) -> tuple[list[TTable], dict[int, int]]:
    """The start: as many tables as the registered entries need, and each entry's table (drawn with the
    tournament's seed, dealt round the tables)."""
    entries = [e for e in t.entries.values() if e.status is EntryStatus.REGISTERED]
    random.Random(t.seed).shuffle(entries)
    n_tables = max(1, -(-len(entries) // t.config.seats))
    tables = [TTable(table_no=i + 1, table_id=derive(t.tournament_id, i + 1)) for i in range(n_tables)]
    return tables, {e.entry_id: 1 + i % n_tables for i, e in enumerate(entries)}


def free_seat(t: Tournament, entry: Entry, free: Sequence[int]) -> int | None:
    """The seat an entry takes among ``free`` ones (drawn, reproducibly), None when there is none."""
    return random.Random(derive(t.seed, entry.entry_id, entry.moves)).choice(free) if free else None


# ------------------------------------------------------------------ the finish


@dataclass(frozen=True, slots=True)
class Result:
    """The finish: every place (ties shared) and the chips each entry wins."""

    finishes: tuple[Finish, ...]
    prizes: dict[int, int]  # entry id -> chips won (only those with a prize)


def results(t: Tournament, survivors: Sequence[tuple[int, int]]) -> Result:
    """Rank the field — ``survivors`` (entry id, chips) first, then the busts by hand (later = better) and by their
    stack at that hand's start — and share the prize pool by place, ties splitting the places they cover."""
    busts = [
        Bust(e.entry_id, e.bust_group or 0, e.start_stack or 0, e.end_stack or 0, e.table_no)
        for e in sorted(t.entries.values(), key=lambda x: (x.bust_group or 0, x.entry_id))
        if e.status is EntryStatus.OUT
    ]
    finishes = standings(survivors, busts)
    place_prizes = prizes(prize_pool(t), t.paid_entries, t.config.payouts or None)
    groups: list[int] = []
    i = 0
    while i < len(finishes):
        groups.append(finishes[i].tied)
        i += finishes[i].tied
    amounts = share_ties(place_prizes, groups)
    won = {f.entry_id: amount for f, amount in zip(finishes, amounts, strict=True) if amount}
    return Result(tuple(finishes), won)


def player_places(
    t: Tournament, finishes: Sequence[Finish], won: dict[int, int]
) -> tuple[list[tuple[int, int]], frozenset[int]]:
    """(player, place) of every player, best first, and the players paid a prize: a player who re-entered finished
    where his best entry did (a league ranks players, not entries)."""
    best: dict[int, int] = {}
    for f in finishes:
        player = t.entries[f.entry_id].player_id
        best[player] = min(best.get(player, f.place), f.place)
    cashed = frozenset(t.entries[entry_id].player_id for entry_id, amount in won.items() if amount)
    return sorted(best.items(), key=lambda pp: (pp[1], pp[0])), cashed


def knockout_places(t: Tournament, entry_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
    """The places of entries put out by one hand (after it is stored), as things stand, with how many share each:
    below everyone still in, ranked by what the hand left them, then by their start (equal on both share the places
    they cover); put out at different tables in one hand-for-hand round, they all share (:mod:`.bubble`)."""
    alive = len(t.alive())
    shared = shared_round(t.entries[i].table_no for i in entry_ids)

    def key(i: int) -> tuple[int, int]:
        e = t.entries[i]
        return (0, 0) if shared else (-(e.end_stack or 0), -(e.start_stack or 0))

    keyed = sorted(entry_ids, key=lambda i: (key(i), i))
    places: dict[int, tuple[int, int]] = {}
    n = 0
    while n < len(keyed):
        m = n
        while m < len(keyed) and key(keyed[m]) == key(keyed[n]):
            m += 1
        for entry_id in keyed[n:m]:
            places[entry_id] = (alive + n + 1, m - n)
        n = m
    return places


def knockout_prizes(t: Tournament, places: dict[int, tuple[int, int]]) -> dict[int, int]:
    """What each knocked-out entry wins with the field as it is: a place shared by k entries splits the prizes of the
    k places it covers evenly (the odd chip to the entry that registered first, as at the finish)."""
    table = prizes(prize_pool(t), t.paid_entries, t.config.payouts or None)
    won: dict[int, int] = {}
    for entry_id, (place, tied) in places.items():
        group = sorted(i for i, p in places.items() if p == (place, tied))
        covered = sum(table[place - 1 : place - 1 + tied]) if place >= 1 else 0
        share, rest = divmod(covered, tied)
        won[entry_id] = share + (rest if entry_id == group[0] else 0)
    return won


def payout_legs(t: Tournament, won: dict[int, int]) -> list[Posting]:
    """Escrow -> each winner's guild bank (one leg per player, entries of one player together)."""
    if not won:
        return []
    legs: dict[Account, int] = {}
    for entry_id, amount in won.items():
        bank = Account.bank(t.guild_id, t.entries[entry_id].player_id)
        legs[bank] = legs.get(bank, 0) + amount
    return [
        Posting(Account.escrow(t.tournament_id), -sum(won.values())),
        *(Posting(a, d) for a, d in sorted(legs.items())),
    ]
