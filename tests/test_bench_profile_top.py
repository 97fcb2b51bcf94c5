"""The profile summary (bench/profile_top.py): self samples by package, as the performance notes quote them."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import profile_top

REPO = Path(profile_top.__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        ("data_received (/x/.venv/lib/python3.11/site-packages/aiohttp/client_proto.py:300)", "aiohttp"),
        ("fn (/usr/lib/python3/dist-packages/yarl/_url.py:1)", "yarl"),
        ("fn (/x/site-packages/_cffi_backend.cpython-311-x86_64-linux-gnu.so:0)", "_cffi_backend"),
        ("_run_once (/usr/lib/python3.11/asyncio/base_events.py:1922)", "stdlib:asyncio"),
        ("update (/usr/lib/python3.11/collections/__init__.py:688)", "stdlib:collections"),
        ("deepcopy (/usr/lib/python3.11/copy.py:128)", "stdlib:copy"),
        (f"apply ({REPO}/pancog/game/engine.py:40)", "pancog/game"),
        (f"put ({REPO}/pancog/infra/renderq/memo.py:45)", "pancog/infra"),
        (f"render_hand_png ({REPO}/renderer/hand.py:300)", "renderer"),
        (f"main ({REPO}/bot.py:575)", "bot.py"),
        ("__init__ (<string>:2)", "<string>"),
        ("__exit__ (<frozen abc>:1)", "<frozen abc>"),
    ],
)
def test_package_of_a_frame(frame: str, expected: str) -> None:
    assert profile_top.package(frame) == expected


def test_self_samples_summed_by_package(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    aio = "x (/v/site-packages/aiohttp/client.py:1)"
    game = f"apply ({REPO}/pancog/game/engine.py:2)"
    cards = f"__hash__ ({REPO}/pancog/game/cards.py:3)"
    profile = tmp_path / "cpu.txt"
    profile.write_text(
        "\n".join(
            [
                f"main (bot.py:1);{game};{cards} 30",  # the top frame counts, not the frames under it
                f"main (bot.py:1);{aio} 50",
                f"main (bot.py:1);{game} 15",
                "main (bot.py:1);__init__ (<string>:2) 5",
                "not a sample line",
            ]
        )
        + "\n"
    )
    profile_top.main([str(profile), "--by-package"])
    out = capsys.readouterr().out
    assert "100 samples, self by package" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("    ")]
    assert rows == [["50.0", "%", "aiohttp"], ["45.0", "%", "pancog/game"], ["5.0", "%", "<string>"]]
