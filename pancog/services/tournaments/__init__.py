"""Community tournaments: Sit & Go and scheduled multi-table events. No discord imports.

Pure parts (stdlib only, mypy --strict): :mod:`.levels`, :mod:`.payouts`, :mod:`.balancer`, :mod:`.ranking`.
Services: :mod:`.model` (config and state), :mod:`.repository` (persistence), :mod:`.service`
(:class:`TournamentService`, the orchestration over :class:`pancog.services.tables.TableService`).
"""
