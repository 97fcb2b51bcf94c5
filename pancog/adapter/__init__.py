"""The Discord adapter wing: the only package that imports discord (besides bot.py).

The extension and composition root is :mod:`pancog.adapter.extension`; see docs/architecture.md.
"""
