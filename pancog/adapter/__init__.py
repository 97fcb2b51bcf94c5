"""The Discord adapter wing: the only package that imports discord (besides bot.py)."""
