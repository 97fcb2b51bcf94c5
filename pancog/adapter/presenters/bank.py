"""The chip bank's words: balance, daily claim, grants, rebuys and the leaderboard (every figure comes from the
ledger: what a player has is his bank plus his chips at tables, :class:`pancog.services.ledger.Holding`)."""

from __future__ import annotations

from pancog.adapter.presenters.common import Names, chips, name_of
from pancog.adapter.safety import shown
from pancog.services.league import SeasonRow
from pancog.services.ledger import Holding, Holdings


def rebought(amount: int, stack: int, bank: int, *, season: bool = False) -> str:
    """The private answer to /pan rebuy (``season``: a bank season's table, the chips came from the season bank)."""
    which = "season bank" if season else "bank"
    return f"You added {chips(amount)}. Your stack is {chips(stack)}; {which}: {chips(bank)}."


def held_text(total: int, bank: int, at_tables: int, *, season: bool = False) -> str:
    """What a player has, stated as such: "1,119 chips (bank 1,000 + 119 at tables)", "980 chips (all in the bank)"
    (``season``: a bank season's season bank)."""
    which = "season bank" if season else "bank"
    if at_tables:
        return f"{chips(total)} ({which} {bank:,} + {at_tables:,} at tables)"
    return f"{chips(total)} (all in the {which})"


YOU = " ← you"
NO_CHIPS_YET = "You have no chips here yet."


def leaderboard_text(board: Holdings, names: Names) -> str:
    """The public /pan leaderboard message (no league): players ranked by what they have — bank plus chips at
    tables — and the asker's own place when it is not among the lines shown."""
    me = board.caller.user_id if board.caller is not None else None
    lines = [
        f"{h.rank}. {name_of(names, h.user_id)} — {held_text(h.total, h.bank, h.at_tables)}"
        + (YOU if h.user_id == me else "")
        for h in board.lines
    ]
    text = "**Leaderboard — chips (bank + at tables)**\n" + ("\n".join(lines) or "Nobody has chips yet.")
    if board.caller is None:
        return f"{text}\n{NO_CHIPS_YET}"
    if board.caller_outside:
        h = board.caller
        text += f"\nYou: #{h.rank} — {held_text(h.total, h.bank, h.at_tables)}"
    return text


def granted(amount: int, who: str, bank: int) -> str:
    """The private answer to /pan grant (a negative amount took chips)."""
    verb, prep = ("Granted", "to") if amount > 0 else ("Took", "from")
    return f"{verb} {chips(abs(amount))} {prep} {shown(who)}. Their bank: {chips(bank)}."


AMOUNT_NOT_ZERO = "The amount must not be zero."


def balance_text(held: Holding | None) -> str:
    """PRIVATE: /pan balance (the bank and the chips at tables, from the ledger)."""
    bank, on_tables = (held.bank, held.at_tables) if held is not None else (0, 0)
    extra = f" Plus {chips(on_tables)} on tables." if on_tables else ""
    return f"Bank: {chips(bank)}.{extra}"


def season_bank_text(season: SeasonRow, held: Holding | None) -> str:
    """PRIVATE: /pan balance during a bank season — the season bank beside the all-time one."""
    bank, on_tables = (held.bank, held.at_tables) if held is not None else (0, 0)
    extra = f" Plus {chips(on_tables)} on season tables." if on_tables else ""
    return f"Season {season.number} ({shown(season.name, limit=60)}) bank: {chips(bank)}.{extra}"


def daily_text(*, claimed: bool, amount: int, bank: int, hours_left: int) -> str:
    """PRIVATE: /pan daily (claimed now, or already claimed with the hours until the next claim)."""
    if claimed:
        return f"You claimed {chips(amount)}. Bank: {chips(bank)}."
    return f"Already claimed today; next claim in about {hours_left} h. Bank: {chips(bank)}."
