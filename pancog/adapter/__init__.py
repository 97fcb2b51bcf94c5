"""The adapter ring: the only package that imports discord (besides bot.py), and may import every other ring.

The extension and composition root is :mod:`pancog.adapter.extension`; see docs/architecture.md.
"""
