"""Beyond a hand, in Spanish and in Tagalog through the fake Discord: a season's stats, standings and leaderboards, a
tournament's lobby, registration and standings, a replay, the setup form (its labels and a refused value) and the
refusals of hostile input. Everything a player reads (his private answers, the public posts of every channel, their
alt text and buttons, the form Discord shows him) is checked with the English oracle of ``test_localized_hand``: no
English catalog sentence and none of English's commonest words."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tests.e2e.conftest import Pan, private_to
from tests.e2e.test_localized_hand import english_lines
from tests.e2e.test_table_commands import play_two
from tests.fakediscord.models import FakeUser


class Reader:
    """Everything one player could read, gathered after every step: every channel's public posts (with their buttons'
    labels), his own private answers and DMs, and the forms opened to him."""

    def __init__(self, pan: Pan, user: FakeUser) -> None:
        self.pan, self.user = pan, user
        self.texts: dict[int, set[str]] = {}
        self.forms: list[str] = []

    def look(self) -> None:
        h = self.pan.h
        public = [m for channel in h.guild.channels for m in h.messages(channel)]
        for message in [*public, *h.ephemerals(self.user), *h.dms(self.user)]:
            seen = self.texts.setdefault(message.id, set())
            seen.add(message.text)
            if message.v2:
                seen.update(str(b.get("label") or "") for b in h.seen(message).buttons)

    def form(self, modal: dict[str, Any]) -> None:
        """A modal's title and every label, description, placeholder and option it shows."""

        def walk(node: object) -> None:
            if isinstance(node, dict):
                for key in ("title", "label", "description", "placeholder"):
                    if isinstance(node.get(key), str):
                        self.forms.append(node[key])
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for item in node:
                    walk(item)

        walk(modal)

    def all(self) -> Iterable[str]:
        for texts in self.texts.values():
            yield from texts
        yield from self.forms


def check(readers: list[Reader], lang: str) -> None:
    read = [text for reader in readers for text in reader.all()]
    assert len(read) > 30  # the season's answers, the tournament's lobby and answers, the replay, the form
    english = english_lines(read, lang)
    assert not english, f"English in a {lang} player's texts:\n" + "\n".join(english)


async def beyond_a_hand(pan: Pan, readers: list[Reader]) -> dict[str, str]:
    """A season, a hand, then every command of the brief by the two players; returns the answers worth a look."""
    a, b = pan.users[:2]
    mod = pan.h.moderator
    lobby = pan.h.guild.channels[1]
    said: dict[str, str] = {}

    def look() -> None:
        for reader in readers:
            reader.look()

    async def step(user: FakeUser, command: str, /, **options: Any) -> str:
        reply = await pan.slash(user, command, **options)
        look()
        return reply.text

    await pan.slash(mod, "panadmin season start", name="Otoño", length=30)
    await pan.seat(2)
    await play_two(pan)
    look()
    said["stats"] = await step(a, "pan stats")
    said["others"] = await step(b, "pan stats", player=a)
    said["standings"] = await step(a, "pan standings")
    said["leaderboard"] = await step(b, "pan leaderboard")
    said["season board"] = await step(b, "pan leaderboard", metric="net", period="season")
    said["rating board"] = await step(a, "pan leaderboard", metric="rating")
    said["replay"] = await step(a, "pan replay", hand=1)
    said["rules"] = await step(b, "pan rules")
    said["guide"] = await step(a, "pan help")
    # hostile input, refused privately in the player's language (a series that is not there, a hostile title)
    said["no series"] = await step(b, "pan standings", series="<@&1> **x** @everyone")
    said["long title"] = await step(a, "tourney create", channel=lobby, title="x" * 2000)
    said["bad start"] = await step(a, "tourney create", channel=lobby, format="scheduled", start="**soon**")
    # a tournament: the lobby (public, the server's language), registration and standings
    await step(a, "tourney create", channel=lobby, title="Copa")
    said["register"] = await step(b, "tourney register", channel=lobby)
    said["info"] = await step(b, "tourney info", channel=lobby)
    said["list"] = await step(a, "tourney list")
    # the setup form: its labels, and a value it refuses
    other = pan.h.guild.channels[2] if len(pan.h.guild.channels) > 2 else lobby
    asked = await pan.slash(b, "pan open", channel=other, form=True)
    assert asked.modal is not None, asked.text
    for reader in readers:
        if reader.user == b:
            reader.form(asked.modal)
    refused = await pan.h.submit_modal(b, asked, {"pan:open:stakes": "abc"})
    await pan.settle()
    look()
    assert private_to(refused, b)
    said["form refused"] = refused.text
    return said


async def test_a_spanish_player_reads_stats_standings_tournaments_replays_and_forms_in_spanish(pan: Pan) -> None:
    a, b = pan.users[:2]
    pan.h.set_locale(a, "es-ES")
    pan.h.set_locale(b, "es-419")
    pan.h.set_locale(a, "es-ES", guild=pan.h.guild)
    readers = [Reader(pan, a), Reader(pan, b)]
    said = await beyond_a_hand(pan, readers)
    assert "Manos repartidas: 1" in said["stats"] and "temporada 1 (Otoño)" in said["stats"]
    assert "Clasificación" in said["standings"] and "1. player1" in said["standings"]
    assert "Clasificación" in said["leaderboard"]
    assert "Estás inscrito en **Copa**" in said["register"]
    assert "registration" not in said["info"] and "Copa" in said["info"]
    assert "Copa" in said["list"]
    check(readers, "es")


async def test_a_tagalog_player_reads_stats_standings_tournaments_replays_and_forms_in_tagalog(pan: Pan) -> None:
    a, b = pan.users[:2]
    await pan.slash(pan.h.moderator, "panadmin config", language="tl")
    await pan.slash(b, "pan settings", language="tl")
    readers = [Reader(pan, a), Reader(pan, b)]
    said = await beyond_a_hand(pan, readers)
    assert "Kamay na naibigay: 1" in said["stats"] and "season 1 (Otoño)" in said["stats"]
    assert "Rehistrado ka na sa **Copa**" in said["register"]
    assert "Copa" in said["info"] and "Copa" in said["list"]
    check(readers, "tl")
