"""Which language Pan writes to whom (pancog/adapter/language.py): a player's own choice, else his Discord client's
language when Pan speaks it and it is not English, else his server's; a server's own choice, else its Discord
locale. The choices are stored with the other preferences and survive a reload."""

from __future__ import annotations

from dataclasses import dataclass, field

from pancog.adapter import language
from pancog.services.prefs import (
    GuildDisplayPrefs,
    GuildDisplaySettings,
    MemoryGuildDisplayStore,
    MemoryPrefsStore,
    PlayerPrefs,
    PlayerSettings,
)

GUILD = 7


@dataclass
class Runtime:
    settings: PlayerSettings = field(default_factory=PlayerSettings)
    display: GuildDisplaySettings = field(default_factory=GuildDisplaySettings)


async def test_a_player_reads_his_choice_then_his_client_then_the_server() -> None:
    rt = Runtime()
    await rt.display.get(GUILD)
    assert language.for_user(rt, 1, GUILD) == "en"
    assert language.for_user(rt, 1, GUILD, client="es") == "es"  # Discord in Spanish
    await rt.display.set_language(GUILD, "tl")
    assert language.for_guild(rt, GUILD) == "tl"
    assert language.for_user(rt, 1, GUILD, client="en") == "tl"  # en-US says little: the server's Tagalog
    assert language.for_user(rt, 1, GUILD, client="es") == "es"
    await rt.settings.update(1, language="en")  # his own choice wins
    assert language.for_user(rt, 1, GUILD, client="es") == "en"
    await rt.display.set_language(GUILD, language.chosen("auto"))
    assert language.for_guild(rt, GUILD) == "en" and language.for_user(rt, 2, GUILD) == "en"


async def test_the_choices_are_stored_and_unknown_codes_are_ignored() -> None:
    store = MemoryPrefsStore()
    await PlayerSettings(store).update(3, language="tl")
    assert (await PlayerSettings(store).get(3)).language == "tl"
    assert PlayerPrefs.from_json('{"language": "xx"}').language == ""
    guilds = MemoryGuildDisplayStore()
    await GuildDisplaySettings(guilds).set_language(GUILD, "es")
    assert (await GuildDisplaySettings(guilds).get(GUILD)).language == "es"
    assert GuildDisplayPrefs.from_json('{"language": 5}').language == ""
    assert [c.value for c in language.LANGUAGE_CHOICES] == ["auto", "en", "es", "tl"]
