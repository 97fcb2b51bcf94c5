"""Refusals a tournament gives players and hosts (safe to show; tests assert on ``code``)."""

from __future__ import annotations

from pancog.game.errors import PanError
from pancog.game.i18n import N_

__all__ = [
    "AlreadyRegistered",
    "AlreadySeated",
    "BadDeal",
    "BadSchedule",
    "BadTournamentOption",
    "DealAlreadyAccepted",
    "NoDeal",
    "NoSuchTournament",
    "NotInDeal",
    "NotRegistered",
    "NotTournamentHost",
    "RebuyRefused",
    "RegistrationClosed",
    "TournamentFull",
    "TournamentNotRunning",
    "TournamentStateError",
]


class BadSchedule(PanError):
    code = "bad_schedule"


class BadTournamentOption(PanError):
    code = "bad_tournament_option"


class NoSuchTournament(PanError):
    code = "no_tournament"

    def __init__(self) -> None:
        super().__init__(N_("There is no such tournament."))


class AlreadyRegistered(PanError):
    code = "already_registered"

    def __init__(self) -> None:
        super().__init__(N_("You are already registered in this tournament."))


class NotRegistered(PanError):
    code = "not_registered"

    def __init__(self) -> None:
        super().__init__(N_("You are not registered in this tournament."))


class RegistrationClosed(PanError):
    code = "registration_closed"


class TournamentFull(PanError):
    code = "tournament_full"

    def __init__(self) -> None:
        super().__init__(N_("This tournament is full."))


class NotTournamentHost(PanError):
    code = "not_tournament_host"

    def __init__(self) -> None:
        super().__init__(N_("Only the tournament's host or a server moderator can do that."))


class TournamentStateError(PanError):
    """The action does not fit the tournament's state (start twice, pause a finished event, ...)."""

    code = "tournament_state"


class TournamentNotRunning(TournamentStateError):
    code = "tournament_not_running"

    def __init__(self) -> None:
        super().__init__(N_("The tournament is not running."))


class BadDeal(PanError):
    """A deal that cannot be proposed now (not at the final table, one pending, a part left to play for too big)."""

    code = "bad_deal"


class NoDeal(PanError):
    code = "no_deal"

    def __init__(self) -> None:
        super().__init__(N_("There is no deal waiting for an answer in this tournament."))


class NotInDeal(PanError):
    code = "not_in_deal"

    def __init__(self) -> None:
        super().__init__(N_("Only the players left at the final table answer this deal."))


class DealAlreadyAccepted(PanError):
    code = "deal_already_accepted"

    def __init__(self) -> None:
        super().__init__(N_("You have already accepted this deal."))


class AlreadySeated(PanError):
    """A registration while the player still sits at a table of the same event (an entry put out whose seat is not
    cleared yet): a second entry would sit twice and the first one's chips would follow it."""

    code = "already_seated"

    def __init__(self, table_no: int) -> None:
        super().__init__(
            N_("You are still seated at table {table} of this tournament: register again once you have left it."),
            table=table_no,
        )
        self.table_no = table_no


class RebuyRefused(PanError):
    """A rebuy or add-on that the tournament's options do not allow now (nothing is charged)."""

    code = "rebuy_refused"
