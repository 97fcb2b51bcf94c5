"""Who may do what: who is a moderator, who is the host, who is seated. The engine still checks every move."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from pancog.adapter.presenters.table import not_seated_here
from pancog.adapter.presenters.tournament import TOURNEY_TABLE_REFUSAL
from pancog.game.errors import PanError
from pancog.services.ledger import ChipLedger
from pancog.services.tables import NotHost, TableSession

if TYPE_CHECKING:
    from pancog.adapter.runtime import PanRuntime

__all__ = [
    "TournamentTable",
    "is_moderator",
    "moderator",
    "refuse_at_tournament_table",
    "require_host_or_moderator",
    "seat_of_member",
]


def is_moderator(interaction: discord.Interaction[Any], moderator_role_id: int | None) -> bool:
    """Manage Server in this channel (as Discord resolves it), or the server's moderator role."""
    if interaction.permissions.manage_guild:  # resolved in the channel, as Discord sends it
        return True
    member = interaction.user
    if not isinstance(member, discord.Member):
        return False
    return moderator_role_id is not None and any(r.id == moderator_role_id for r in member.roles)


async def moderator(ledger: ChipLedger, interaction: discord.Interaction[Any], guild_id: int | None = None) -> bool:
    """:func:`is_moderator` with the configured moderator role of ``guild_id`` (default: the interaction's server;
    a table passes its own ledger scope, which for a practice table is the negated server id)."""
    settings = await ledger.settings(interaction.guild_id or 0 if guild_id is None else guild_id)
    return is_moderator(interaction, settings.moderator_role_id)


async def require_host_or_moderator(
    ledger: ChipLedger, interaction: discord.Interaction[Any], session: TableSession
) -> bool:
    """Raise :class:`NotHost` unless the user hosts the table or is a moderator; returns whether a moderator."""
    is_mod = await moderator(ledger, interaction, session.guild_id)
    if interaction.user.id != session.host_id and not is_mod:
        raise NotHost
    return is_mod


def seat_of_member(session: TableSession, member: discord.abc.User) -> int:
    """The seat of ``member`` at the table (a private error naming them if they are not seated)."""
    seat = session.find_seat(member.id)
    if seat is None:
        raise PanError(not_seated_here(member.display_name))
    return seat


class TournamentTable(PanError):
    code = "tournament_table"

    def __init__(self) -> None:
        super().__init__(TOURNEY_TABLE_REFUSAL)


def refuse_at_tournament_table(rt: PanRuntime, table_id: int) -> None:
    """/pan join, rebuy and leave (commands and buttons) at a tournament's table: a private refusal."""
    if rt.tournaments is not None and rt.tournaments.tournament_of_table(table_id) is not None:
        raise TournamentTable
