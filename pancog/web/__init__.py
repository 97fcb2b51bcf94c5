"""pan-web: the league web pages, a separate read-only process beside the bot (``python -m pancog.web``).

Its own ring: it may import the services, the infra, the engine and the renderer, and the adapter's presenters (the
bot's words and image snapshots, which import no discord) — never discord or the rest of the adapter
(tests/test_architecture.py). See docs/operations.md ("The league web pages") and docs/leagues.md.
"""
