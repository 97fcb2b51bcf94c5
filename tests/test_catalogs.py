"""The translation catalogs (pancog/locale): every sentence the code marks is translated in every language, with
the same ``{fields}``; the compiled ``.mo`` the bot reads says what its ``.po`` says; the language follows the
task (a context variable), and a language without a catalog falls back to English."""

from __future__ import annotations

import asyncio
import gettext
import io

import pytest

from pancog.adapter.language import COMMAND_CONTEXT, COMMAND_LANGUAGES
from pancog.game import i18n
from tests.support.catalogs import TRANSLATED, command_descriptions, compiled, read, template


def english_ids(lang: str = "es") -> list[str | tuple[str, ...]]:
    """The catalog's English ids; the slash commands' descriptions (context ``command``) only for the languages
    Discord offers as a client language (no Tagalog: Discord cannot show it there)."""
    return [m.id for m in template() if m.id and (m.context != COMMAND_CONTEXT or lang in COMMAND_LANGUAGES)]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_marked_sentence_is_translated(lang: str) -> None:
    catalog = read(lang)
    commands = set(command_descriptions())
    missing = []
    for msgid in english_ids(lang):
        message = catalog.get(msgid, context=COMMAND_CONTEXT if msgid in commands else None)
        forms = message.string if message is not None else None
        done = (isinstance(forms, tuple) and all(forms)) or (isinstance(forms, str) and bool(forms))
        if message is None or message.fuzzy or not done:
            missing.append(msgid)
    assert not missing, f"{lang}: {len(missing)} sentences not translated (scripts/i18n extract): {missing[:10]}"


@pytest.mark.parametrize("lang", [lang for lang in TRANSLATED if lang in COMMAND_LANGUAGES])
def test_command_descriptions_fit_discords_100_characters(lang: str) -> None:
    """Discord refuses the whole command sync (50035) if one localized description is over 100 characters: every
    command would be gone, so the catalog is held to it here, where the translator sees which sentence."""
    catalog = read(lang)
    long = [
        (m.id, len(m.string))
        for m in catalog
        if m.context == COMMAND_CONTEXT and isinstance(m.string, str) and not 1 <= len(m.string) <= 100
    ]
    assert not long, long


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_translation_keeps_the_placeholders(lang: str) -> None:
    wrong = []
    for message in read(lang):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = i18n.fields_of(ids[-1]) | i18n.fields_of(ids[0])
        for text in strings:
            if text and i18n.fields_of(text) != wanted:
                wrong.append((ids[0], text))
    assert not wrong, f"{lang}: placeholders differ: {wrong[:5]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalog_says_what_the_po_says(lang: str) -> None:
    """``scripts/i18n compile`` was run after the last edit of the ``.po``."""
    fresh = gettext.GNUTranslations(io.BytesIO(compiled(lang)))
    on_disk = i18n.catalog.__wrapped__(lang)
    assert isinstance(on_disk, gettext.GNUTranslations)
    assert on_disk._catalog == fresh._catalog  # type: ignore[attr-defined]


def test_the_checks_see_a_missing_sentence_and_a_changed_placeholder() -> None:
    assert i18n.fields_of("{name} sat down with {chips}.") == {"name", "chips"}
    assert i18n.fields_of("{nombre} se sentó con {chips}.") != i18n.fields_of("{name} sat down with {chips}.")
    assert "You sat down with {chips}." in english_ids()  # the extraction sees presenters' sentences ...
    assert ("{n} chip", "{n} chips") in english_ids()  # ... counted ones ...
    assert "Done." in english_ids()  # ... and marked constants


def test_the_language_follows_the_task_and_falls_back_to_english() -> None:
    assert i18n.tr("Done.") == "Done."
    with i18n.speaking("es"):
        assert i18n.tr("Done.") == "Hecho."
        assert i18n.trn("{n} chip", "{n} chips", 1500) == "1,500 fichas"
        with i18n.speaking("tl"):
            assert i18n.tr("You sat down with {chips}.", chips="5 chips") == "Umupo ka dala ang 5 chips."
        assert i18n.tr("not in any catalog") == "not in any catalog"
    with i18n.speaking("xx"):  # not a language Pan speaks
        assert i18n.tr("Done.") == "Done."

    async def one(lang: str) -> str:
        i18n.speak(lang)
        await asyncio.sleep(0)
        return i18n.tr("Done.")

    async def both() -> list[str]:
        return list(await asyncio.gather(one("es"), one("tl")))

    assert asyncio.run(both()) == ["Hecho.", "Tapos na."]
    assert i18n.current() == "en"


@pytest.mark.parametrize(
    ("locale", "lang"),
    [("es-ES", "es"), ("es-419", "es"), ("en-US", "en"), ("en-GB", "en"), ("fr", None), ("tl", "tl"), (None, None)],
)
def test_discord_locales_map_to_pans_languages(locale: str | None, lang: str | None) -> None:
    assert i18n.from_discord(locale) == lang
