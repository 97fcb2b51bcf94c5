"""The server's image preferences (issue #14.9): the four-colour deck for the public board and end-of-hand image."""

from __future__ import annotations

from pancog.settings import GuildDisplayPrefs, GuildDisplaySettings, MemoryGuildDisplayStore


async def test_four_colour_is_off_by_default_and_kept_per_server() -> None:
    store = MemoryGuildDisplayStore()
    settings = GuildDisplaySettings(store)
    assert (await settings.get(1)).four_color is False
    assert settings.cached(2) == GuildDisplayPrefs()
    await settings.set_four_color(1, True)
    assert settings.cached(1).four_color is True and settings.cached(2).four_color is False
    again = GuildDisplaySettings(store)  # a restart reads what was saved
    assert settings.cached(1) == await again.get(1)
    assert again.cached(1).four_color is True


def test_prefs_round_trip_through_json() -> None:
    on = GuildDisplayPrefs(four_color=True)
    assert GuildDisplayPrefs.from_json(on.to_json()) == on
    assert GuildDisplayPrefs.from_json("{}") == GuildDisplayPrefs()
