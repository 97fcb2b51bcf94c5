"""The catalogs of Pan's words and the language the current task speaks.

Catalogs are gettext files: ``pancog/locale/<lang>/LC_MESSAGES/pan.po`` (what a translator edits) compiled to
``pan.mo`` (what the bot reads, with the standard library's :mod:`gettext`) by ``scripts/i18n`` (Babel, a
maintained library, extracts the English sentences and compiles; a test fails when a ``.mo`` is older than its
``.po``). It sits at the bottom of the rings, beside :mod:`pancog.game.words`, because every ring writes words: the
presenters' sentences, the renderer's image labels and text twins.

Presenters wrap each sentence in :func:`tr` (``tr("{name} went out.", name=who)``) or :func:`trn` for a count; the
English text is the message id, its ``{fields}`` are filled after the lookup, so a translator moves them freely.
The language is a context variable: the adapter sets it for an interaction's task (the caller's language) and
around every public post (the server's), so no presenter signature carries it.
"""

from __future__ import annotations

import gettext
import string
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, Token
from functools import cache
from pathlib import Path

from pancog.game.words import plural

__all__ = [
    "DEFAULT",
    "LANGUAGES",
    "N_",
    "catalog",
    "counted",
    "current",
    "fields_of",
    "from_discord",
    "po_path",
    "speak",
    "speaking",
    "tr",
    "trn",
]

DEFAULT = "en"
LANGUAGES: Mapping[str, str] = {"en": "English", "es": "Español", "tl": "Tagalog"}
"""The languages Pan speaks, by code, with their own names. ``tl`` (Tagalog) is no Discord client language:
a player or a server chooses it (``/pan settings language``, ``/panadmin config language``)."""

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "pan"

_language: ContextVar[str] = ContextVar("pan_language", default=DEFAULT)


def po_path(lang: str) -> Path:
    """The catalog a translator edits (its compiled twin: the same path with ``.mo``)."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def catalog(lang: str) -> gettext.NullTranslations:
    """``lang``'s compiled catalog (English, or a language without one: the message ids themselves)."""
    if lang == DEFAULT or lang not in LANGUAGES:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)


def current() -> str:
    """The language of the text being written now."""
    return _language.get()


def speak(lang: str) -> Token[str]:
    """Speak ``lang`` for the rest of this task (an interaction's own task)."""
    return _language.set(lang if lang in LANGUAGES else DEFAULT)


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Speak ``lang`` inside the block (a public post written in the server's language)."""
    token = speak(lang)
    try:
        yield
    finally:
        _language.reset(token)


def tr(msgid: str, /, **fields: object) -> str:
    """``msgid`` in the current language, its ``{fields}`` filled."""
    text = catalog(_language.get()).gettext(msgid)
    return text.format(**fields) if fields else text


def trn(singular: str, plural: str, n: int, /, **fields: object) -> str:
    """The form of a counted sentence for ``n`` (``{n}`` is filled with ``n``, thousands grouped, unless given).
    Pan's languages have two forms, one (``abs(n) == 1``) and many; Tagalog nouns do not change with the number,
    so its two forms agree."""
    text = catalog(_language.get()).ngettext(singular, plural, abs(n))
    return text.format(**({"n": f"{n:,}"} | fields))


def counted(n: int, word: str, many: str = "", *, sign: bool = False) -> str:
    """``n`` with its noun in the current language (:func:`pancog.game.words.plural` in English: the nouns Pan
    counts have catalog entries; any other noun stays English)."""
    number = f"{n:+,}" if sign else f"{n:,}"
    match word:
        case "chip":
            return trn("{n} chip", "{n} chips", n, n=number)
        case "unit":
            return trn("{n} unit", "{n} units", n, n=number)
        case "card":
            return trn("{n} card", "{n} cards", n, n=number)
        case "player":
            return trn("{n} player", "{n} players", n, n=number)
        case "hand":
            return trn("{n} hand", "{n} hands", n, n=number)
        case "entry":
            return trn("{n} entry", "{n} entries", n, n=number)
        case "win":
            return trn("{n} win", "{n} wins", n, n=number)
    return plural(n, word, many, sign=sign)


def N_(msgid: str, /) -> str:  # noqa: N802 - gettext's name for a marker, known to extractors
    """Mark a constant sentence for the catalog; it is said in the task's language where it is sent (the edge)."""
    return msgid


def fields_of(text: str) -> frozenset[str]:
    """The ``{fields}`` of a message (its placeholders): a translation must keep exactly the same."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)


def from_discord(locale: str | None) -> str | None:
    """Pan's language for a Discord locale code (``es-ES``, ``es-419`` -> ``es``; ``en-US``, ``en-GB`` -> ``en``),
    None when Pan does not speak it."""
    if not locale:
        return None
    lang = locale.split("-")[0].lower()
    return lang if lang in LANGUAGES else None
