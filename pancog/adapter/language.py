"""Which language Pan speaks to whom: the caller of an interaction, the reader of a DM, a server's channel.

A person: his ``/pan settings language``, else his Discord client's language when Pan speaks it and it is not
English (``en-US`` is every client's default, so it says little), else his server's language, else English. A
server's public posts: ``/panadmin config language``, else the server's Discord locale, else English. Tagalog is
no Discord locale (Discord has none for Tagalog or Filipino), so it is reached only through those two settings.

The language is a context variable of the task (:mod:`pancog.game.i18n`): :func:`enter` sets it for an
interaction's own task, :func:`for_user` / :func:`for_guild` give the code to wrap a DM or a public post in
``i18n.speaking(...)``. Discord locales seen are remembered (in memory) so a DM outside an interaction can follow
the player's client language too.
"""

from __future__ import annotations

from typing import Any, Protocol

import discord

from pancog.game import i18n
from pancog.services.prefs import GuildDisplaySettings, PlayerSettings

__all__ = ["LANGUAGE_CHOICES", "enter", "for_guild", "for_user", "name_of"]

AUTO = "auto"
LANGUAGE_CHOICES = [
    discord.app_commands.Choice(name="Discord's language / el idioma de Discord", value=AUTO),
    *(discord.app_commands.Choice(name=name, value=code) for code, name in i18n.LANGUAGES.items()),
]
"""A ``language`` option's choices (``auto``: follow Discord's locale, or the server's setting)."""


def name_of(code: str) -> str:
    """A language's own name (``Español``) for the settings' answers."""
    return i18n.LANGUAGES.get(code, i18n.LANGUAGES[i18n.DEFAULT])


def chosen(value: str) -> str:
    """The stored setting for a ``language`` option's value ("" for ``auto``)."""
    return "" if value == AUTO else value


class PanRuntime(Protocol):
    """What choosing a language reads of the runtime (:class:`pancog.adapter.runtime.PanRuntime`)."""

    @property
    def settings(self) -> PlayerSettings: ...

    @property
    def display(self) -> GuildDisplaySettings: ...


_client_language: dict[int, str] = {}  # user id -> Pan's language for his Discord client's locale
_guild_language: dict[int, str] = {}  # guild id -> Pan's language for the server's Discord locale


def _locale(value: Any) -> str | None:
    return i18n.from_discord(str(value.value) if isinstance(value, discord.Locale) else value)


def for_guild(rt: PanRuntime, guild_id: int | None) -> str:
    """The language of a server's public posts (the cached ``/panadmin config`` and the server's Discord locale)."""
    if not guild_id:
        return i18n.DEFAULT
    chosen = rt.display.cached(guild_id).language
    return chosen or _guild_language.get(guild_id) or i18n.DEFAULT


def for_user(rt: PanRuntime, user_id: int, guild_id: int | None = None, *, client: str | None = None) -> str:
    """The language to write to one person in (``client``: his interaction's language, when there is one)."""
    chosen = rt.settings.cached(user_id).language
    if chosen:
        return chosen
    client = client or _client_language.get(user_id)
    if client and client != i18n.DEFAULT:
        return client
    return for_guild(rt, guild_id) if guild_id else client or i18n.DEFAULT


async def enter(rt: PanRuntime, interaction: discord.Interaction[Any]) -> str:
    """Speak the caller's language for the rest of this interaction's task; remember his client's locale and the
    server's."""
    client = _locale(interaction.locale)
    if client:
        _client_language[interaction.user.id] = client
    guild_id = interaction.guild_id
    if guild_id:
        server = _locale(interaction.guild_locale)
        if server:
            _guild_language[guild_id] = server
        await rt.display.get(guild_id)
    await rt.settings.get(interaction.user.id)
    lang = for_user(rt, interaction.user.id, guild_id, client=client)
    i18n.speak(lang)
    return lang


class CommandTranslator(discord.app_commands.Translator):
    """The slash commands' descriptions and their options' in Discord's Spanish locales (``es-ES``, ``es-419``),
    from the same catalogs (context ``command``). Command and option names stay as they are in every language:
    what players type, the guide and the docs name one command the same everywhere. Tagalog, which Discord does
    not offer as a client language, cannot be reached here."""

    async def translate(
        self,
        string: discord.app_commands.locale_str,
        locale: discord.Locale,
        context: discord.app_commands.TranslationContextTypes,
    ) -> str | None:
        described = (
            discord.app_commands.TranslationContextLocation.command_description,
            discord.app_commands.TranslationContextLocation.group_description,
            discord.app_commands.TranslationContextLocation.parameter_description,
        )
        lang = _locale(locale)
        if context.location not in described or lang is None or lang == i18n.DEFAULT:
            return None
        said = i18n.catalog(lang).pgettext(COMMAND_CONTEXT, string.message)
        return said if said != string.message else None


COMMAND_LANGUAGES = ("es",)  # Pan's languages that are Discord client languages (but English, the source)
COMMAND_CONTEXT = "command"
"""The catalogs' context of the slash commands' descriptions (extracted from tests/e2e/command_tree.json)."""
