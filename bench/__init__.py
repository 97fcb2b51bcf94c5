"""Benchmarks: each module is a command run from the repository root as ``.venv/bin/python -m bench.<name>``
(``--help`` says what it measures). Figures go to docs/performance.md only as a bench prints them.

Shared parts: :mod:`bench.postgres` (the database a benchmark runs on) and :mod:`bench.proc_cpu` (CPU time of a
process tree). Benchmarks may import the tests' support (``tests.fakediscord``, ``tests.support``), never the
other way round.
"""
