"""Names as Discord text: escaped once per name (the escaping is cached), the default only where nothing shows."""

from __future__ import annotations

from pancog.adapter.presenters.common import name_of
from pancog.adapter.safety import plain, shown


def test_a_name_is_escaped_or_replaced_by_the_default_exactly_as_before() -> None:
    names = {2: "Big Eddie", 3: "Tío_**x**", 4: "\u200b\u202e", 5: "<@123> @everyone"}
    assert name_of(names, 2) == "Big Eddie"
    assert name_of(names, 3) == r"Tío\_\*\*x\*\*"
    assert name_of(names, 4) == "Player 4"  # nothing visible: the default, as typed
    assert name_of(names, 5) == r"\<\@123\> \@everyone"
    assert name_of(names, 77) == "Player 77"  # no stored name
    assert name_of(names, -1001).startswith("🤖 ")
    assert name_of(names, None) == "the floor"


def test_the_same_name_is_cleaned_once() -> None:
    shown.cache_clear()
    plain.cache_clear()
    for _ in range(50):
        assert shown("Rosa *R*") == r"Rosa \*R\*"
        assert plain("Rosa\u202e") == "Rosa"
    assert shown.cache_info().misses == 1 and shown.cache_info().hits == 49
    assert plain.cache_info().hits >= 49
    assert shown("", fallback="?") == "?" and shown("", fallback="") == ""
