"""Discord's payload limits as the fake enforces them."""

from __future__ import annotations

from tests.fakediscord import limits


def _row(*children: dict) -> dict:
    return {"type": 1, "components": list(children)}


def _button(custom_id: str, label: str = "b") -> dict:
    return {"type": 2, "style": 1, "custom_id": custom_id, "label": label}


def _select(n_options: int, custom_id: str = "s") -> dict:
    options = [{"label": f"o{i}", "value": f"v{i}"} for i in range(n_options)]
    return {"type": 3, "custom_id": custom_id, "options": options, "min_values": 1, "max_values": 1}


def test_a_valid_message_passes() -> None:
    payload = {"content": "x" * 2000, "components": [_row(*(_button(f"b{i}") for i in range(5))), _row(_select(25))]}
    assert limits.check_message(payload, [("a.png", b"\x89PNG")], creating=True) == []


def test_content_rows_buttons_and_selects() -> None:
    assert limits.check_message({"content": "x" * 2001}, [], creating=True) == ["content has 2001 chars > 2000"]
    six_rows = [_row(_button(f"b{i}")) for i in range(6)]
    assert "6 action rows > 5" in limits.check_components(six_rows)
    assert "components[0] has 6 buttons > 5" in limits.check_components([_row(*(_button(f"b{i}") for i in range(6)))])
    assert any("mixes a select" in p for p in limits.check_components([_row(_select(2), _button("x"))]))
    assert any("26 options" in p for p in limits.check_components([_row(_select(26))]))
    assert any("custom_id" in p for p in limits.check_components([_row(_button("x" * 101))]))
    assert any("not unique" in p for p in limits.check_components([_row(_button("a"), _button("a"))]))
    long_label = _select(1)
    long_label["options"][0]["label"] = "L" * 101
    assert any("label must be" in p for p in limits.check_components([_row(long_label)]))


def test_embeds_files_choices_and_empty() -> None:
    assert limits.check_embeds([{"title": "t" * 257}]) == ["embeds[0].title has 257 chars > 256"]
    assert any("26 fields" in p for p in limits.check_embeds([{"fields": [{"name": "n", "value": "v"}] * 26}]))
    assert any("total" in p for p in limits.check_embeds([{"description": "d" * 4000}, {"description": "d" * 2001}]))
    assert limits.check_files([("big.png", b"0" * (10 * 1024 * 1024 + 1))]) == [
        "file 'big.png' is 10485761 bytes > 10485760"
    ]
    assert limits.check_files([(f"{i}.png", b"") for i in range(11)]) == ["11 files > 10"]
    choices = [{"name": f"c{i}", "value": str(i)} for i in range(26)]
    assert limits.check_choices(choices) == ["26 autocomplete choices > 25"]
    assert limits.check_choices([{"name": "n" * 101, "value": "v"}]) == ["choices[0].name must be 1..100 chars"]
    assert limits.check_message({}, [], creating=True) != []
    assert limits.check_message({}, [], creating=False) == []


def test_attachment_alt_text_and_allowed_mentions() -> None:
    """Alt text over 1,024 characters and malformed allowed_mentions are refused, as Discord refuses them."""
    alt = {"content": "x", "attachments": [{"id": 0, "filename": "a.png", "description": "d" * 1025}]}
    assert limits.check_message(alt, [("a.png", b"\x89PNG")], creating=True) == [
        "attachments[0].description has 1025 chars > 1024"
    ]
    alt["attachments"][0]["description"] = "d" * 1024
    assert limits.check_message(alt, [("a.png", b"\x89PNG")], creating=True) == []
    assert limits.check_allowed_mentions({"parse": []}) == []
    assert limits.check_allowed_mentions({"parse": [], "users": ["123"], "replied_user": False}) == []
    assert limits.check_allowed_mentions({"parse": ["here"]}) != []
    assert limits.check_allowed_mentions({"parse": ["users"], "users": ["1"]}) == [
        "allowed_mentions: parse 'users' and users are mutually exclusive"
    ]
    assert limits.check_allowed_mentions({"users": [str(i) for i in range(101)]}) != []
    assert limits.check_allowed_mentions({"replied_user": "yes"}) != []
    assert limits.check_message({"content": "x", "allowed_mentions": {"parse": "all"}}, [], creating=True) != []
