"""The bottom ring: plumbing that knows no game rule and no Discord.

Storage backends and their migrations (:mod:`pancog.infra.storage`), the render queue and its worker processes
(:mod:`pancog.infra.renderq`), logging (:mod:`pancog.infra.logs`), memory housekeeping (:mod:`pancog.infra.memory`)
and the cluster launcher (:mod:`pancog.infra.cluster`). Modules here import the standard library, third-party
libraries and each other, never :mod:`pancog.game`, :mod:`pancog.services` or :mod:`pancog.adapter`
(``tests/test_architecture.py``).
"""
