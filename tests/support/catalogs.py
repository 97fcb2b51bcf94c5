"""Pan's gettext catalogs, with Babel: what the code marks (``tr``, ``trn``, ``N_``), the ``.pot`` template, the
merge into each language's ``.po`` and the compiled ``.mo`` the bot reads. Used by ``scripts/i18n`` and by the
catalog tests (Babel is a development dependency: the bot itself reads ``.mo`` files with the standard library)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from pancog.adapter.language import COMMAND_CONTEXT
from pancog.game.i18n import DEFAULT, LANGUAGES, LOCALE_DIR, po_path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pancog", "renderer")
KEYWORDS = {"tr": None, "trn": (1, 2), "N_": None}
PLURAL_FORMS = "nplurals=2; plural=(n != 1);"  # one and many, for English, Spanish and Tagalog alike
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != DEFAULT)


def template() -> Catalog:
    """Every sentence the code marks, with where it is (the English catalog: its ids are the English text)."""
    catalog = Catalog(project="Pan", domain="pan", fuzzy=False)
    for package in SOURCES:
        for path in sorted((ROOT / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "tr(" not in text and "trn(" not in text and "N_(" not in text:
                continue
            where = str(path.relative_to(ROOT))
            for lineno, message, comments, _context in extract_from_file("python", path, keywords=KEYWORDS):
                catalog.add(message, locations=[(where, lineno)], auto_comments=comments)
    for description in command_descriptions():
        catalog.add(description, locations=[("tests/e2e/command_tree.json", 0)], context=COMMAND_CONTEXT)
    return catalog


COMMAND_TREE = ROOT / "tests" / "e2e" / "command_tree.json"


def command_descriptions() -> list[str]:
    """The slash commands' and their options' descriptions, as the recorded command tree has them."""
    found: dict[str, None] = {}

    def walk(node: object) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            if node.get("description"):
                found[str(node["description"])] = None
            walk(node.get("options") or [])

    walk(json.loads(COMMAND_TREE.read_text(encoding="utf-8")))
    return list(found)


def read(lang: str) -> Catalog:
    with po_path(lang).open("rb") as f:
        return read_po(f, locale=lang, domain="pan")


def extract_all() -> None:
    pot = template()
    with (LOCALE_DIR / "pan.pot").open("wb") as f:
        write_po(f, pot, width=120, omit_header=False, sort_output=False)
    for lang in TRANSLATED:
        path = po_path(lang)
        catalog = read(lang) if path.exists() else Catalog(locale=lang, domain="pan", project="Pan", fuzzy=False)
        catalog.update(pot, no_fuzzy_matching=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, catalog, width=120, include_previous=False)


def compiled(lang: str) -> bytes:
    out = io.BytesIO()
    write_mo(out, read(lang))
    return out.getvalue()


def compile_all() -> None:
    for lang in TRANSLATED:
        po_path(lang).with_suffix(".mo").write_bytes(compiled(lang))
