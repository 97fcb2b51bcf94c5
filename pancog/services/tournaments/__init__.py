"""Community tournaments: Sit & Go and scheduled multi-table events. No discord imports.

Pure parts (no IO, mypy --strict): :mod:`.levels`, :mod:`.payouts`, :mod:`.balancer`, :mod:`.ranking`, :mod:`.rules`
(what may happen and what it posts). Values: :mod:`.model` (config and state), :mod:`.events`. Persistence:
:mod:`.repository`. The service, :class:`~.service.TournamentService` (the door the adapter uses), runs on the
:class:`pancog.services.tables.TableService` through its rooms: :mod:`.registry` (tournaments and entries),
:mod:`.floor` (the tables of a running tournament), :mod:`.clock` (levels, breaks, pauses, scheduled starts), all
changing a tournament only through :mod:`.core` (compute on a draft, commit, then swap into memory).
"""
