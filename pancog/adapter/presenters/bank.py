"""The chip bank's words: balance, daily claim, grants, rebuys and the leaderboard (every figure comes from the
ledger)."""

from __future__ import annotations

from collections.abc import Sequence

from pancog.adapter.presenters.common import Names, chips, name_of
from pancog.adapter.safety import shown
from pancog.services.league import SeasonRow


def rebought(amount: int, stack: int, bank: int, *, season: bool = False) -> str:
    """The private answer to /pan rebuy (``season``: a bank season's table, the chips came from the season bank)."""
    which = "season bank" if season else "bank"
    return f"You added {chips(amount)}. Your stack is {chips(stack)}; {which}: {chips(bank)}."


def leaderboard_text(rows: Sequence[tuple[int, int]], names: Names) -> str:
    """The public /pan leaderboard message."""
    lines = [f"{i + 1}. {name_of(names, u)} — {chips(n)}" for i, (u, n) in enumerate(rows)]
    return "**Leaderboard**\n" + ("\n".join(lines) or "Nobody has chips yet.")


def granted(amount: int, who: str, bank: int) -> str:
    """The private answer to /pan grant (a negative amount took chips)."""
    verb, prep = ("Granted", "to") if amount > 0 else ("Took", "from")
    return f"{verb} {chips(abs(amount))} {prep} {shown(who)}. Their bank: {chips(bank)}."


AMOUNT_NOT_ZERO = "The amount must not be zero."


def balance_text(bank: int, on_tables: int) -> str:
    """PRIVATE: /pan balance."""
    extra = f" Plus {chips(on_tables)} on tables." if on_tables else ""
    return f"Bank: {chips(bank)}.{extra}"


def season_bank_text(season: SeasonRow, bank: int, on_tables: int) -> str:
    """PRIVATE: /pan balance during a bank season — the season bank beside the all-time one."""
    extra = f" Plus {chips(on_tables)} on season tables." if on_tables else ""
    return f"Season {season.number} ({season.name}) bank: {chips(bank)}.{extra}"


def daily_text(*, claimed: bool, amount: int, bank: int, hours_left: int) -> str:
    """PRIVATE: /pan daily (claimed now, or already claimed with the hours until the next claim)."""
    if claimed:
        return f"You claimed {chips(amount)}. Bank: {chips(bank)}."
    return f"Already claimed today; next claim in about {hours_left} h. Bank: {chips(bank)}."
