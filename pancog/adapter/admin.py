"""Subcommand groups that feature cogs hang under ``/panadmin`` (the group itself is ``AdminCog.admin`` in
admin_cog.py: Manage Server by default, guild only). Chip leagues add ``season start|end|info`` and ``flags``.
"""

from __future__ import annotations

from discord import app_commands

__all__ = ["season"]

season = app_commands.Group(name="season", description="League seasons: start, end, info")
