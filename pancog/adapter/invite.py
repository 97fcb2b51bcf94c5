"""The bot's invite link: the scopes and every permission its features use, in one place (docs/admin.md lists them
with the same number; tests/e2e/test_docs_match_the_bot.py keeps the two equal)."""

from __future__ import annotations

import discord

__all__ = ["INVITE_PERMISSIONS", "INVITE_SCOPES", "invite_url"]

INVITE_SCOPES = ("bot", "applications.commands")
INVITE_PERMISSIONS = discord.Permissions(
    view_channel=True,  # see the table's channel
    send_messages=True,  # the board, the end-of-hand summary, turn pings
    send_messages_in_threads=True,  # tables in threads, and every tournament table
    create_public_threads=True,  # a thread per tournament table
    manage_threads=True,  # archive and lock a tournament's table threads when they close
    embed_links=True,  # the end-of-hand embed, the guide, the rules
    attach_files=True,  # table, hand, replay and standings images
    read_message_history=True,  # edit its own board in place
    manage_roles=True,  # season and tournament winner roles
    manage_events=True,  # scheduled tournaments published as Discord scheduled events
)
"""Never Mention Everyone or Administrator: nothing the bot posts pings a role or everyone (docs/admin.md)."""


def invite_url(application_id: int) -> str:
    """The link that adds the bot to a server: ``application_id`` is the application's id (the developer portal's
    *Application ID*, also the bot user's id)."""
    return discord.utils.oauth_url(application_id, permissions=INVITE_PERMISSIONS, scopes=INVITE_SCOPES)
