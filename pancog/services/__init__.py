"""The service ring: tables, ledger, clock, computer players, replays, leagues, tournaments and the rest.

Services hold the product's state and rules around the pure engine (:mod:`pancog.game`, :mod:`pancog.ai`) and
persist through :mod:`pancog.infra`. They take ids and plain values, never Discord objects: nothing here imports
``discord`` or :mod:`pancog.adapter` (``tests/test_architecture.py``).
"""
