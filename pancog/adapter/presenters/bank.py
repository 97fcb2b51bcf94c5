"""The chip bank's words: balance, daily claim, grants, rebuys and the leaderboard (every figure comes from the
ledger: what a player has is his bank plus his chips at tables, :class:`pancog.services.ledger.Holding`)."""

from __future__ import annotations

from pancog.adapter.presenters.common import Names, chips, name_of
from pancog.adapter.safety import shown
from pancog.game.i18n import N_, tr
from pancog.services.league import SeasonRow
from pancog.services.ledger import Holding, Holdings


def rebought(amount: int, stack: int, bank: int, *, season: bool = False) -> str:
    """The private answer to /pan rebuy (``season``: a bank season's table, the chips came from the season bank)."""
    if season:
        return tr(
            "You added {chips}. Your stack is {stack}; season bank: {bank}.",
            chips=chips(amount),
            stack=chips(stack),
            bank=chips(bank),
        )
    return tr(
        "You added {chips}. Your stack is {stack}; bank: {bank}.",
        chips=chips(amount),
        stack=chips(stack),
        bank=chips(bank),
    )


def held_text(total: int, bank: int, at_tables: int, *, season: bool = False) -> str:
    """What a player has, stated as such: "1,119 chips (bank 1,000 + 119 at tables)", "980 chips (all in the bank)"
    (``season``: a bank season's season bank)."""
    if at_tables:
        if season:
            return tr(
                "{chips} (season bank {bank} + {tables} at tables)",
                chips=chips(total),
                bank=f"{bank:,}",
                tables=f"{at_tables:,}",
            )
        return tr(
            "{chips} (bank {bank} + {tables} at tables)", chips=chips(total), bank=f"{bank:,}", tables=f"{at_tables:,}"
        )
    if season:
        return tr("{chips} (all in the season bank)", chips=chips(total))
    return tr("{chips} (all in the bank)", chips=chips(total))


YOU = " ← you"
NO_CHIPS_YET = N_("You have no chips here yet.")


def leaderboard_text(board: Holdings, names: Names) -> str:
    """The public /pan leaderboard message (no league): players ranked by what they have — bank plus chips at
    tables — and the asker's own place when it is not among the lines shown."""
    me = board.caller.user_id if board.caller is not None else None
    lines = [
        f"{h.rank}. {name_of(names, h.user_id)} — {held_text(h.total, h.bank, h.at_tables)}"
        + (" ← " + tr("you") if h.user_id == me else "")
        for h in board.lines
    ]
    head = tr("**Leaderboard — chips (bank + at tables)**")
    text = head + "\n" + ("\n".join(lines) or tr("Nobody has chips yet."))
    if board.caller is None:
        return f"{text}\n{tr(NO_CHIPS_YET)}"
    if board.caller_outside:
        h = board.caller
        text += "\n" + tr("You: #{rank} — {held}", rank=h.rank, held=held_text(h.total, h.bank, h.at_tables))
    return text


def granted(amount: int, who: str, bank: int) -> str:
    """The private answer to /pan grant (a negative amount took chips)."""
    if amount > 0:
        return tr(
            "Granted {chips} to {name}. Their bank: {bank}.", chips=chips(amount), name=shown(who), bank=chips(bank)
        )
    return tr("Took {chips} from {name}. Their bank: {bank}.", chips=chips(-amount), name=shown(who), bank=chips(bank))


AMOUNT_NOT_ZERO = N_("The amount must not be zero.")


def balance_text(held: Holding | None) -> str:
    """PRIVATE: /pan balance (the bank and the chips at tables, from the ledger)."""
    bank, on_tables = (held.bank, held.at_tables) if held is not None else (0, 0)
    extra = " " + tr("Plus {chips} on tables.", chips=chips(on_tables)) if on_tables else ""
    return tr("Bank: {chips}.", chips=chips(bank)) + extra


def season_bank_text(season: SeasonRow, held: Holding | None) -> str:
    """PRIVATE: /pan balance during a bank season — the season bank beside the all-time one."""
    bank, on_tables = (held.bank, held.at_tables) if held is not None else (0, 0)
    extra = " " + tr("Plus {chips} on season tables.", chips=chips(on_tables)) if on_tables else ""
    name = shown(season.name, limit=60)
    return tr("Season {number} ({name}) bank: {chips}.", number=season.number, name=name, chips=chips(bank)) + extra


def daily_text(*, claimed: bool, amount: int, bank: int, hours_left: int) -> str:
    """PRIVATE: /pan daily (claimed now, or already claimed with the hours until the next claim)."""
    if claimed:
        return tr("You claimed {chips}. Bank: {bank}.", chips=chips(amount), bank=chips(bank))
    return tr("Already claimed today; next claim in about {hours} h. Bank: {bank}.", hours=hours_left, bank=chips(bank))
