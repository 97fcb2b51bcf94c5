"""Comments and docstrings in the product say why, not which issue asked for it (no "issue 8", "(#14.4)"): an issue
number means nothing to the next reader, and the history is in git."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CITATION = re.compile(r"\bissues? #?\d+|\(#\d+|\B#\d+(\.\d+)? part\b|\bissue #\d+")


def citations(source: str) -> list[int]:
    """Lines of ``source`` whose comments or string literals (docstrings) cite an issue number."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING) and CITATION.search(token.string):
            found.append(token.start[0])
    return found


def test_the_scan_finds_a_citation() -> None:
    assert citations("x = 1  # computer players (issue 8)\n") == [1]
    assert citations('"""The board line (#14.4)."""\n') == [1]
    assert citations("# the chips issue a new bank: no citation\n") == []


def test_no_comment_cites_an_issue() -> None:
    sources = [*sorted((ROOT / "pancog").rglob("*.py")), *sorted((ROOT / "renderer").rglob("*.py")), ROOT / "bot.py"]
    cited = {
        str(path.relative_to(ROOT)): lines for path in sources if (lines := citations(path.read_text(encoding="utf-8")))
    }
    assert cited == {}, "say why in words instead"
