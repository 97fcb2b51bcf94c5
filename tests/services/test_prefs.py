"""The server's image preferences (issue #14.9): the four-colour deck for the public board and end-of-hand image."""

from __future__ import annotations

import pytest

from pancog.services.prefs import (
    PING_AFTER_DEFAULT,
    GuildDisplayPrefs,
    GuildDisplaySettings,
    Layout,
    MemoryGuildDisplayStore,
    MemoryPrefsStore,
    PlayerPrefs,
    PlayerSettings,
    SortOrder,
)


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


async def test_ping_after_is_kept_per_server_and_refuses_out_of_range() -> None:
    """Issue #14.1: how long the turn ping waits for the player (``/panadmin config ping_after``)."""
    store = MemoryGuildDisplayStore()
    settings = GuildDisplaySettings(store)
    assert (await settings.get(1)).ping_after == PING_AFTER_DEFAULT > 0
    await settings.set_ping_after(1, 0)
    await settings.set_four_color(1, True)  # one setting does not reset the other
    assert settings.cached(1) == GuildDisplayPrefs(four_color=True, ping_after=0.0)
    assert (await GuildDisplaySettings(store).get(1)).ping_after == 0.0  # a restart reads it back
    for bad in (-1.0, 61.0, float("nan")):
        with pytest.raises(ValueError, match="ping_after"):
            await settings.set_ping_after(1, bad)
    assert settings.cached(1).ping_after == 0.0
    assert GuildDisplayPrefs.from_json('{"ping_after": -3}').ping_after == PING_AFTER_DEFAULT  # a bad row: default
    assert GuildDisplayPrefs.from_json('{"ping_after": "x"}').ping_after == PING_AFTER_DEFAULT


async def test_layouts_are_kept_per_player_and_per_server() -> None:
    """The phone layout: a player's own images (``/pan settings layout``) and a server's public board
    (``/panadmin config board_layout``) are kept apart, survive a restart, and an unknown stored value reads as
    the default."""
    players = MemoryPrefsStore()
    settings = PlayerSettings(players)
    assert (await settings.get(7)).layout is Layout.WIDE
    await settings.update(7, layout=Layout.PHONE)
    await settings.update(7, sort=SortOrder.RANK)  # one setting does not reset the other
    again = await PlayerSettings(players).get(7)
    assert again.layout is Layout.PHONE and again.sort is SortOrder.RANK
    assert (await settings.get(8)).layout is Layout.WIDE
    assert PlayerPrefs.from_json('{"layout": "hologram"}').layout is Layout.WIDE
    assert Layout.PHONE.renderer_layout == "portrait" and Layout.WIDE.renderer_layout == "landscape"
    store = MemoryGuildDisplayStore()
    guilds = GuildDisplaySettings(store)
    await guilds.set_four_color(1, True)
    await guilds.set_board_layout(1, Layout.PHONE)
    assert (await GuildDisplaySettings(store).get(1)) == GuildDisplayPrefs(four_color=True, board_layout=Layout.PHONE)
    assert guilds.cached(2).board_layout is Layout.WIDE
    assert GuildDisplayPrefs.from_json('{"board_layout": 3}').board_layout is Layout.WIDE
