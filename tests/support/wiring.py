"""The service wiring of the composition root (pancog/adapter/extension.py), for tests and benchmarks that build
services without the Discord side: the same registration calls, one helper per service."""

from __future__ import annotations

from pancog.services.bots import BotDriver, verify_seat
from pancog.services.league import LeagueService
from pancog.services.tables import TableService
from pancog.services.tournaments.service import TournamentService
from pancog.services.watch import WatchService

__all__ = ["wire_bots", "wire_league", "wire_tournament_results", "wire_watch"]


def wire_league(tables: TableService, league: LeagueService) -> None:
    """Every hand of ``tables`` recorded by ``league`` from now on (call before the tables are used)."""
    tables.subscribe(league.on_applied)
    tables.set_settlement_hook(league.settlement_note)
    tables.on_close(league.table_closed)


def wire_tournament_results(tournaments: TournamentService, league: LeagueService) -> None:
    """Every finished tournament of ``tournaments`` recorded by ``league``, with its prizes."""
    tournaments.set_finish_hook(league.tournament_note)


def wire_bots(tables: TableService, driver: BotDriver) -> None:
    """The practice-seat guard, the away stand-in and the close listener of the computer players."""
    tables.add_seat_guard(verify_seat)
    tables.set_stand_in(driver.stand_in)
    tables.on_close(driver.table_closed)


def wire_watch(tables: TableService, watch: WatchService) -> None:
    """The watcher's seat guard and the end of a closed table's grants."""
    tables.add_seat_guard(watch.verify_seat)
    tables.on_close(watch.table_closed)
