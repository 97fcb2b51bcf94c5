"""The pure money rules beyond the buy-in: rebuys and the add-on, knock-out bounties, a guaranteed prize pool and
satellite seats. No IO and no clock: a tournament (and figures read elsewhere) in, values and postings out; the room
that acts on them is :mod:`.cashier`.

Chips (bank chips unless said otherwise):

* a **rebuy** or the **add-on** costs the buy-in, all of it into the prize pool (no fee, no bounty), and gives a
  starting stack of tournament chips: ``bank:G:U -> escrow:T`` and ``issued:tournament:T -> bank:tournament:T:U`` in
  one journal;
* a **bounty** is part of each buy-in (at most the buy-in less the fee): it stays in escrow on the entry's head until
  someone knocks the entry out, then ``escrow:T -> bank:G:<eliminator>`` in the knock-out's journal (progressive:
  half, rounded down, to the eliminator and the rest onto his own head);
* a **guarantee** lifts the prize pool; the **overlay** (guarantee less what was collected) comes from the guild's
  house account ``house:G`` (its fees) in the payout journal, and what the house cannot cover is issued by the
  guild (``issued:guild:G``, as a moderator's grant);
* a **satellite**'s prizes are seats in its target: each seat is the target's buy-in, moved ``escrow:S -> escrow:T``
  (:mod:`.cashier` registers the winners there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pancog.game.i18n import N_
from pancog.infra.storage.base import Account, BankScope, Posting

from .errors import BadTournamentOption, NotRegistered, RebuyRefused

if TYPE_CHECKING:
    from .model import Entry, Tournament, TournamentConfig

__all__ = [
    "addon_open",
    "bounty_split",
    "check_addon",
    "check_rebuy",
    "check_target",
    "collected_pool",
    "deal_legs",
    "finish_legs",
    "overlay",
    "payout_pool",
    "rebuy_legs",
    "rebuy_limit",
    "rebuy_open",
    "refund_extra",
    "satellite_seats",
]


# ------------------------------------------------------------------ the pool


def _bought(t: Tournament) -> int:
    """Rebuys and add-ons bought by the entries that were not refunded."""
    return sum(e.rebuys + e.addons for e in t.entries.values() if e.status.value != "refunded")


def collected_pool(t: Tournament) -> int:
    """What the entries put into the prize pool: each buy-in less its fee and bounty, and every rebuy and add-on."""
    cfg = t.config
    return (cfg.buy_in - cfg.fee - cfg.bounty) * t.paid_entries + cfg.buy_in * _bought(t)


def payout_pool(t: Tournament) -> int:
    """The prize pool paid: what was collected, or the guarantee when that is more."""
    return max(collected_pool(t), t.config.guarantee)


def overlay(t: Tournament) -> int:
    """What the house adds to reach the guarantee (0 when the entries covered it)."""
    return max(0, t.config.guarantee - collected_pool(t))


def refund_extra(t: Tournament, e: Entry) -> int:
    """What a refund of ``e`` adds to its buy-in: its rebuys and add-on, less the part of its bounty already paid to
    someone else (its head in escrow is refunded, a progressive head with what it won on it)."""
    return t.config.buy_in * (e.rebuys + e.addons) - t.config.bounty + e.bounty


# ------------------------------------------------------------------ rebuys and the add-on


def rebuy_limit(cfg: TournamentConfig) -> int:
    """A rebuy is allowed at or below this many tournament chips."""
    return cfg.rebuy_stack or cfg.starting_stack


def rebuy_open(cfg: TournamentConfig, level: int) -> bool:
    """Rebuys during levels 1..rebuy_levels (``level`` 0-based)."""
    return level < cfg.rebuy_levels


def addon_open(cfg: TournamentConfig, level: int) -> bool:
    """The add-on: during the last level of the rebuy period and the level after it (the break between, if any)."""
    return cfg.addon and cfg.rebuy_levels - 1 <= level <= cfg.rebuy_levels


def _alive(t: Tournament, player_id: int) -> Entry:
    entry = next((e for e in t.entries_of(player_id) if e.status.value == "alive"), None)
    if entry is None:
        raise NotRegistered
    return entry


def check_rebuy(t: Tournament, player_id: int, *, level: int, stack: int) -> Entry:
    """The entry that may rebuy now (``stack``: its chips at the table and not yet there).

    Raises:
        NotRegistered (not in the event), RebuyRefused (no rebuys, the period is over, above the limit, the
        maximum reached).
    """
    cfg = t.config
    if not cfg.rebuy_levels:
        raise RebuyRefused(N_("This tournament has no rebuys."))
    entry = _alive(t, player_id)
    if not rebuy_open(cfg, level):
        raise RebuyRefused(N_("The rebuy period is over."))
    if cfg.max_rebuys and entry.rebuys >= cfg.max_rebuys:
        raise RebuyRefused(N_("You have used all your rebuys."))
    if stack > rebuy_limit(cfg):
        raise RebuyRefused(N_("You can rebuy only when your stack is at or below the rebuy limit."))
    return entry


def check_addon(t: Tournament, player_id: int, *, level: int) -> Entry:
    """The entry that may take the add-on now.

    Raises:
        NotRegistered, RebuyRefused (no add-on, not its time, already taken).
    """
    if not t.config.addon:
        raise RebuyRefused(N_("This tournament has no add-on."))
    entry = _alive(t, player_id)
    if not addon_open(t.config, level):
        raise RebuyRefused(N_("The add-on is taken at the end of the rebuy period."))
    if entry.addons:
        raise RebuyRefused(N_("You have already taken the add-on."))
    return entry


def rebuy_legs(t: Tournament, player_id: int) -> list[Posting]:
    """A rebuy or the add-on: the buy-in into escrow and a starting stack issued in the tournament's scope."""
    cfg = t.config
    scope = BankScope.tournament(t.tournament_id)
    legs = [
        Posting(Account.bank(t.guild_id, player_id), -cfg.buy_in),
        Posting(Account.escrow(t.tournament_id), cfg.buy_in),
        Posting(Account.issued(scope), -cfg.starting_stack),
        Posting(Account.bank(scope, player_id), cfg.starting_stack),
    ]
    return [p for p in legs if p.delta]


# ------------------------------------------------------------------ bounties


def bounty_split(head: int, *, progressive: bool) -> tuple[int, int]:
    """(paid to the eliminator, added to the eliminator's own head) for a knock-out of an entry worth ``head``."""
    if not progressive:
        return head, 0
    paid = head // 2
    return paid, head - paid


# ------------------------------------------------------------------ the finish


def finish_legs(
    t: Tournament,
    won: Mapping[int, int],
    bounties: Mapping[int, int],
    *,
    house_balance: int,
    seats: Sequence[Posting] = (),
    overlay_due: bool = True,
) -> list[Posting]:
    """The payout journal: prizes (entry id -> chips) and the bounties collected at the end (the winner's own head
    and the unclaimed ones) from escrow to the players' banks, the overlay from the house (what it cannot cover
    issued by the guild) unless a deal's journal brought it already (``overlay_due=False``), and satellite ``seats``
    (escrow to the target's escrow)."""
    legs: dict[Account, int] = {}
    _pay(t, legs, [*won.items(), *bounties.items()], house_balance=house_balance, overlay_due=overlay_due)
    for p in seats:
        legs[p.account] = legs.get(p.account, 0) + p.delta
    return [Posting(a, d) for a, d in sorted(legs.items()) if d]


def deal_legs(t: Tournament, dealt: Mapping[int, int], *, house_balance: int) -> list[Posting]:
    """The journal of a deal that leaves a part to play for: the dealt amounts (entry id -> chips) from escrow, and
    the guarantee's overlay with them. The overlay is part of the prize pool the deal divides, so it comes in with
    the first prizes paid out of the pool (escrow never pays chips it does not hold); the finish then does not bring
    it again."""
    legs: dict[Account, int] = {}
    _pay(t, legs, list(dealt.items()), house_balance=house_balance, overlay_due=True)
    return [Posting(a, d) for a, d in sorted(legs.items()) if d]


def _pay(
    t: Tournament, legs: dict[Account, int], paid: Sequence[tuple[int, int]], *, house_balance: int, overlay_due: bool
) -> None:
    escrow = Account.escrow(t.tournament_id)

    def add(account: Account, delta: int) -> None:
        legs[account] = legs.get(account, 0) + delta

    for entry_id, amount in paid:
        add(Account.bank(t.guild_id, t.entries[entry_id].player_id), amount)
        add(escrow, -amount)
    extra = overlay(t) if overlay_due else 0
    if extra:
        from_house = min(extra, max(0, house_balance))
        add(Account.house(t.guild_id), -from_house)
        add(Account.issued(BankScope.guild(t.guild_id)), -(extra - from_house))
        add(escrow, extra)


def check_target(target: Tournament | None, guild_id: int) -> None:
    """A satellite's target: a tournament of the same server, not started yet, with a buy-in (a seat's value).

    Raises:
        BadTournamentOption.
    """
    if target is None or target.guild_id != guild_id or target.status.value not in ("announced", "registering"):
        raise BadTournamentOption(N_("A satellite's target must be a tournament of this server that has not started."))
    if target.config.buy_in <= 0 or target.config.satellite_for is not None:
        raise BadTournamentOption(N_("A satellite's target needs a buy-in and cannot be a satellite itself."))


def satellite_seats(pool: int, seat_price: int, finishers: Sequence[int]) -> tuple[list[int], dict[int, int]]:
    """A satellite's prizes: ``pool // seat_price`` seats to the best finishers (entry ids, in order), the remainder in
    chips to the next finisher (or the last seat winner when nobody is left). Returns (seat winners, chips)."""
    if seat_price <= 0:
        return [], {}
    n = min(pool // seat_price, len(finishers))
    winners = list(finishers[:n])
    rest = pool - n * seat_price
    chips: dict[int, int] = {}
    if rest:
        to = finishers[n] if n < len(finishers) else finishers[-1]
        chips[to] = rest
    return winners, chips


# ------------------------------------------------------------------ reads and the audit


def bounty_board(t: Tournament) -> tuple[tuple[int, int, int], ...]:
    """(player id, bounty on his head, bounties he won) of each player with either, most won first."""
    if not t.config.bounty:
        return ()
    rows: dict[int, list[int]] = {}
    for e in t.entries.values():
        if e.status.value == "refunded":
            continue
        row = rows.setdefault(e.player_id, [0, 0])
        row[0] += e.bounty if e.status.value in ("alive", "registered") else 0
        row[1] += e.bounty_won
    ranked = sorted(rows.items(), key=lambda kv: (-kv[1][1], -kv[1][0], kv[0]))
    return tuple((p, head, won) for p, (head, won) in ranked if head or won)


def purse_audit(t: Tournament, payout: Sequence[Posting]) -> list[str]:
    """A finished tournament's money: every prize paid (the pool, the guarantee's overlay included), every bounty
    collected by someone, and the payout journal paying exactly the prizes and the final bounties, the overlay
    coming from the house (or the guild's issue)."""
    problems: list[str] = []
    pool = payout_pool(t)
    entries = [e for e in t.entries.values() if e.status.value != "refunded"]
    paid = sum(e.prize or 0 for e in entries)
    if paid != pool:
        problems.append(f"prizes {paid} differ from the prize pool {pool}")
    heads = sum(e.bounty for e in entries)
    if heads:
        problems.append(f"bounties {heads} left on heads after the end")
    won = sum(e.bounty_won for e in entries)
    if won != t.config.bounty * len(entries):
        problems.append(f"bounties paid {won} differ from the bounties bought {t.config.bounty * len(entries)}")
    credits = sum(p.delta for p in payout if p.account.kind.value == "bank")
    house = -sum(p.delta for p in payout if p.account.kind.value == "house" or p.account == Account.issued(t.guild_id))
    if house != overlay(t):
        problems.append(f"the payout journal takes {house} from the house, the overlay is {overlay(t)}")
    seats = sum(p.delta for p in payout if p.account.kind.value == "escrow" and p.account.scope_id != t.tournament_id)
    if credits + seats < paid:
        problems.append(f"the payout journal pays {credits + seats}, the prizes are {paid}")
    return problems
