"""Refusals a tournament gives players and hosts (safe to show; tests assert on ``code``)."""

from __future__ import annotations

from pancog.game.errors import PanError

__all__ = [
    "AlreadyRegistered",
    "BadSchedule",
    "BadTournamentOption",
    "NoSuchTournament",
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
        super().__init__("There is no such tournament.")


class AlreadyRegistered(PanError):
    code = "already_registered"

    def __init__(self) -> None:
        super().__init__("You are already registered in this tournament.")


class NotRegistered(PanError):
    code = "not_registered"

    def __init__(self) -> None:
        super().__init__("You are not registered in this tournament.")


class RegistrationClosed(PanError):
    code = "registration_closed"


class TournamentFull(PanError):
    code = "tournament_full"

    def __init__(self) -> None:
        super().__init__("This tournament is full.")


class NotTournamentHost(PanError):
    code = "not_tournament_host"

    def __init__(self) -> None:
        super().__init__("Only the tournament's host or a server moderator can do that.")


class TournamentStateError(PanError):
    """The action does not fit the tournament's state (start twice, pause a finished event, ...)."""

    code = "tournament_state"


class TournamentNotRunning(TournamentStateError):
    code = "tournament_not_running"

    def __init__(self) -> None:
        super().__init__("The tournament is not running.")


class RebuyRefused(PanError):
    """A rebuy or add-on that the tournament's options do not allow now (nothing is charged)."""

    code = "rebuy_refused"
