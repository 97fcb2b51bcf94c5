"""A whole hand in Spanish and in Tagalog through the fake Discord: every text a player receives (his private
answers, his hand DMs, the public board, its alt text and the end-of-hand result) is checked against the English
catalog's sentences and against English's commonest words, so an untranslated sentence fails the test."""

from __future__ import annotations

import re
from collections.abc import Iterable

import pytest

from pancog.game import i18n
from tests.e2e.conftest import Pan
from tests.e2e.scenarios import TWO_SHOE
from tests.fakediscord.models import FakeUser
from tests.support.catalogs import template

ENGLISH_WORDS = re.compile(r"\b(the|you|your|is|are|and|with|to|of|was|has|nothing|turn)\b", re.IGNORECASE)


def english_sentences(lang: str) -> list[re.Pattern[str]]:
    """A pattern per English sentence of the catalog (its ``{fields}`` match anything) whose translation differs
    from the English and that has at least two words: what must not reach a player who reads ``lang``."""
    patterns = []
    catalog = i18n.catalog(lang)
    for message in template():
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        for n, msgid in enumerate(ids, start=1):
            said = catalog.ngettext(ids[0], ids[-1], n) if len(ids) > 1 else catalog.gettext(msgid)
            if len(re.findall(r"[A-Za-z]{2,}", msgid)) < 2 or said == msgid:
                continue
            parts = re.split(r"\{[a-z_]+\}", msgid)
            patterns.append(re.compile(".+?".join(re.escape(p) for p in parts)))
    return patterns


class Reader:
    """Everything one player could read, gathered after every step (a board is edited in place)."""

    def __init__(self, pan: Pan, user: FakeUser) -> None:
        self.pan, self.user = pan, user
        self.texts: dict[int, set[str]] = {}

    def look(self) -> None:
        h = self.pan.h
        for message in [*h.messages(), *h.ephemerals(self.user), *h.dms(self.user)]:
            self.texts.setdefault(message.id, set()).add(message.text)

    def all(self) -> Iterable[str]:
        for texts in self.texts.values():
            yield from texts


async def whole_hand(pan: Pan, a: FakeUser, b: FakeUser, readers: list[Reader]) -> None:
    """test_two_players_by_commands's hand: both knock, a melds three times and goes out on his next draw."""

    async def step(user: FakeUser, command: str, **options: object) -> None:
        await pan.slash(user, command, **options)
        for reader in readers:
            reader.look()

    await step(a, "pan open")
    await step(b, "pan join")
    pan.stack(TWO_SHOE, first_seat=0)
    await step(a, "pan start")
    await step(a, "knock")
    await step(b, "knock")
    await step(b, "draw")  # not his turn: refused, in his language
    await step(a, "draw")
    await step(a, "meld", cards="AC 2C 3C 4C")
    await step(a, "meld", cards="4D 5D 6D")
    await step(a, "meld", cards="JH QH KH")
    await step(a, "discard", card="7C")
    await step(b, "draw")
    await step(b, "discard", card="6S")
    await step(a, "draw")
    await step(a, "add", meld=1)
    state = pan.session().state
    assert state.hand is None and state.last_hand is not None and state.last_hand.winner == 0


def english_lines(read: Iterable[str], lang: str) -> list[str]:
    """Every line of ``read`` that holds an English catalog sentence or one of English's commonest words."""
    sentences = english_sentences(lang)
    assert len(sentences) > 100
    return sorted(
        {
            line
            for text in read
            for line in text.splitlines()
            if ENGLISH_WORDS.search(line) or any(p.search(line) for p in sentences)
        }
    )


def check(readers: list[Reader], lang: str) -> None:
    read = [text for reader in readers for text in reader.all()]
    assert len(read) > 20  # the board's versions, the answers, the DMs, the result
    english = english_lines(read, lang)
    assert not english, f"English in a {lang} player's texts:\n" + "\n".join(english)


async def test_a_spanish_table_plays_a_whole_hand_in_spanish(pan: Pan) -> None:
    """Two players whose Discord speaks Spanish (Spain and Latin America) in a server whose locale is Spanish:
    the answers follow each player's Discord locale, the board and the result the server's."""
    a, b = pan.users[:2]
    pan.h.set_locale(a, "es-ES")
    pan.h.set_locale(b, "es-419")
    pan.h.set_locale(a, "es-ES", guild=pan.h.guild)
    readers = [Reader(pan, a), Reader(pan, b)]
    await whole_hand(pan, a, b, readers)
    assert any("salió" in text for text in readers[0].all())  # ¡Saliste! / **player1** salió
    assert any("Tu mano" in dm.text for dm in pan.h.dms(b))
    assert any(m.text == "No es tu turno." for m in pan.h.ephemerals(b))  # the engine's refusal
    check(readers, "es")


async def test_a_tagalog_table_plays_a_whole_hand_in_tagalog(pan: Pan) -> None:
    """Discord has no Tagalog locale: the server chooses it (/panadmin config language) and a player may too
    (/pan settings language); a player whose Discord is in English then reads Tagalog."""
    a, b = pan.users[:2]
    await pan.slash(pan.h.moderator, "panadmin config", language="tl")
    await pan.slash(b, "pan settings", language="tl")  # his own choice, as well
    readers = [Reader(pan, a), Reader(pan, b)]
    await whole_hand(pan, a, b, readers)
    assert any("Nakalabas" in text for text in readers[0].all())
    assert any("Baraha mo" in dm.text for dm in pan.h.dms(a))
    assert any(m.text == "Hindi pa ikaw ang titira." for m in pan.h.ephemerals(b))
    check(readers, "tl")


@pytest.mark.parametrize("lang", ["es", "tl"])
def test_the_check_sees_an_english_sentence(lang: str) -> None:
    sentences = english_sentences(lang)
    line = "Hand 1 is over: **player1** went out."
    assert any(p.search(line) for p in sentences)
    assert ENGLISH_WORDS.search("Your turn: /draw.")
    with i18n.speaking(lang):
        translated = i18n.tr("Hand {n} is over: **{name}** went out.", n=1, name="player1")
    assert not any(p.search(translated) for p in sentences) and not ENGLISH_WORDS.search(translated)
