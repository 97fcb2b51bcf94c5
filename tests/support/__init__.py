"""Support shared by the tests and the benchmarks (never imported by the product): scripted play and other
helpers that drive the real services. The fake Discord has its own package, ``tests/fakediscord``."""
