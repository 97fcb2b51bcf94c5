"""Player-facing wording lives in the presenters package (pancog/adapter/presenters/): the rest of the adapter ring
only calls it (STYLE 2.1, 2.6)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from pancog.adapter.presenters.admin import server_config_text
from pancog.adapter.presenters.bank import balance_text, daily_text
from pancog.adapter.presenters.hand import settings_text
from pancog.adapter.presenters.table import hand_dealt, left_table, practice_opened, sat_down, table_closed
from pancog.services.ledger import Holding

ROOT = Path(__file__).resolve().parents[2]
PRESENTERS = ROOT / "pancog" / "adapter" / "presenters"
ADAPTERS = tuple(  # every module of the adapter ring, in any subfolder, but the presenters package
    str(path.relative_to(ROOT))
    for path in sorted((ROOT / "pancog" / "adapter").rglob("*.py"))
    if PRESENTERS not in path.parents
)
REPLIES = {"send_message", "send", "send_ephemeral", "PanError", "BadOption", "tr", "trn"}  # and a catalog's sentences
SENTENCE = re.compile(r"[A-Za-z]{2,}[,:;]? [A-Za-z]{2,}")  # two words in a row: prose, not an id or a filename
NOT_WORDING = {"context", "what", "filename", "name", "description", "thread_name_prefix"}  # logs, files, commands


def wording_in(path: str) -> list[str]:
    """Sentences built or passed to a reply inline: f-strings with prose, and prose literals given to a reply."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[str] = []
    for node in ast.walk(tree):
        parent = parents.get(node)
        if isinstance(parent, ast.keyword) and parent.arg in NOT_WORDING:
            continue
        if isinstance(node, ast.JoinedStr):
            literal = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
            if SENTENCE.search(literal) and not _is_log_call(parent):
                found.append(f"{path}:{node.lineno}: f-string {literal!r}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name not in REPLIES:
                continue
            for arg in node.args:
                branches = [arg.body, arg.orelse] if isinstance(arg, ast.IfExp) else [arg]  # "a" if x else "b"
                for text in branches:
                    if isinstance(text, ast.Constant) and isinstance(text.value, str) and SENTENCE.search(text.value):
                        found.append(f"{path}:{node.lineno}: {name}({text.value!r})")
    return found


def _is_log_call(node: ast.AST | None) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"debug", "info", "warning", "error", "exception"}
    )


def test_every_adapter_module_is_scanned() -> None:
    """The scan follows the adapter ring: a new adapter module is covered without editing this file."""
    assert "pancog/adapter/board.py" in ADAPTERS
    assert not any(path.startswith("pancog/adapter/presenters/") for path in ADAPTERS)
    assert len(ADAPTERS) >= 10


def test_the_scan_finds_the_wording_where_it_lives() -> None:
    """The scan is not blind: run over the presenters package, it finds their sentences."""
    modules = sorted(str(path.relative_to(ROOT)) for path in PRESENTERS.glob("*.py"))
    found = {path: wording_in(path) for path in modules}
    assert found["pancog/adapter/presenters/table.py"] and found["pancog/adapter/presenters/tournament.py"]


@pytest.mark.parametrize("path", ADAPTERS)
def test_adapters_build_no_sentences(path: str) -> None:
    assert wording_in(path) == []


def test_presenters_keep_the_replies_word_for_word() -> None:
    """The texts moved out of the adapters are unchanged."""
    assert sat_down(500, doubles=True, bank=1500) == "You sat down with 500 chips (doubles). Bank: 1,500 chips."
    assert sat_down(1) == "You sat down with 1 chip."
    assert left_table(True) == "You left; your stack is back in your bank."
    assert left_table(False) == "You will leave when this hand ends (you still pay until then)."
    assert hand_dealt(3) == "Hand 3 dealt. Your hand comes by DM; **My hand** on the board shows it too."
    assert table_closed({}, {}) == "Table closed. Chips back to the bank:\nnone"
    assert table_closed({7: 100}, {7: "Ann"}) == "Table closed. Chips back to the bank:\nAnn: 100 chips"
    assert balance_text(Holding(rank=1, user_id=7, bank=900, at_tables=0)) == "Bank: 900 chips."
    assert balance_text(Holding(rank=1, user_id=7, bank=900, at_tables=100)) == (
        "Bank: 900 chips. Plus 100 chips on tables."
    )
    assert daily_text(claimed=False, amount=0, bank=5, hours_left=3) == (
        "Already claimed today; next claim in about 3 h. Bank: 5 chips."
    )
    assert server_config_text("classic", 1000, 100, None) == (
        "Preset: classic. Starting chips: 1,000. Daily: 100. Moderator role: none. Four-colour board: off. "
        "Turn pings: after 5 s without a move."
    )
    assert server_config_text("classic", 1000, 100, None, ping_after=0).endswith("Turn pings: at once.")
    assert settings_text(ping="off", dm_mode="deal", dm_closed=True, sort="rank", four_color=False) == (
        "Turn pings: off. DMs: deal (your DMs are closed: use My hand). Sort: rank. Four-colour: off."
    )
    assert practice_opened(opponents=1, level="easy", real_chips=False, next_hand_delay=6.0) == (
        "Practice table: you against 1 easy computer player, playing practice chips (your bank is untouched). "
        "Your hand is in your DMs and under **My hand**; `/hint` suggests a play; the next hand is dealt 6 s after "
        "each hand ends. `/pan close` ends the session."
    )
