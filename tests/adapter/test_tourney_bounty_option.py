"""The ``bounty`` option of /tourney create carries both the chips and the progressive choice ("25", "25p"): one
option for both keeps the command within Discord's 25 options. Anything else is refused with a clear sentence."""

from __future__ import annotations

import pytest

from pancog.adapter.errors import BadOption
from pancog.adapter.tourney_parts import parse_bounty


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, {"bounty": 0, "progressive": False}),
        ("25", {"bounty": 25, "progressive": False}),
        (" 25p ", {"bounty": 25, "progressive": True}),
        ("40 progressive", {"bounty": 40, "progressive": True}),
        ("0", {"bounty": 0, "progressive": False}),
    ],
)
def test_the_bounty_option_reads_chips_and_progressive(text: str | None, expected: dict[str, object]) -> None:
    assert parse_bounty(text) == expected


@pytest.mark.parametrize("text", ["lots", "25x", "-5", "p", "2.5", "1234567890"])
def test_a_malformed_bounty_is_refused(text: str) -> None:
    with pytest.raises(BadOption) as refused:
        parse_bounty(text)
    assert "25p" in refused.value.message
