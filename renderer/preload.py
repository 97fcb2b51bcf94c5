"""Imported once by the render processes' forkserver (``pancog/infra/renderq/``, process mode): loads the
renderer and draws every card sprite, so each worker forked from the server starts with warm caches
(shared copy-on-write) instead of paying ~0.6 s of drawing in every worker or on a player's first image."""

from renderer import assets, hand, outcome, table  # noqa: F401 - imported for the forkserver's benefit

assets.warm_up()
