"""bench/multipart.py runs both request classes against its own server and prints a figure for each."""

from __future__ import annotations

import pytest

from bench.multipart import VARIANTS, main


def test_both_variants_are_measured_and_printed(capsys: pytest.CaptureFixture[str]) -> None:
    results = main(["--requests", "20", "--rounds", "2", "--image-kb", "4"])
    assert set(results) == set(VARIANTS)
    assert all(len(values) == 2 and all(v > 0 for v in values) for values in results.values())
    out = capsys.readouterr().out
    assert "aiohttp FormData:" in out and "one piece:" in out and "saved:" in out
