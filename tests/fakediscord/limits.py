"""Discord's payload limits, checked on every outgoing payload the fake receives.

Each ``check_*`` function returns a list of human-readable violations (empty when the payload is one
real Discord would accept). The fake answers a payload with violations with 400 / 50035 and records
the violations, which fails the test. Sources: /work/shared/DISCORD.md §1.4-1.6.
"""

from __future__ import annotations

from typing import Any

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
ACTION_ROWS_MAX = 5
BUTTONS_PER_ROW_MAX = 5
V2_COMPONENTS_MAX = 40
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_OPTIONS_MAX = 25
SELECT_OPTION_TEXT_MAX = 100
SELECT_PLACEHOLDER_MAX = 150
FILES_MAX = 10
FILE_SIZE_MAX = 10 * 1024 * 1024
REQUEST_SIZE_MAX = 25 * 1024 * 1024
CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
CHOICE_VALUE_MAX = 100
ATTACHMENT_DESCRIPTION_MAX = 1024
MENTION_PARSE = frozenset({"roles", "users", "everyone"})
MENTION_IDS_MAX = 100
MODAL_TITLE_MAX = 45
MODAL_COMPONENTS_MAX = 5
TEXT_INPUT_LABEL_MAX = 45

BUTTON = 2
SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
TEXT_INPUT = 4
EPHEMERAL = 1 << 6
IS_COMPONENTS_V2 = 1 << 15


def _len(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def check_embeds(embeds: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    if len(embeds) > EMBEDS_MAX:
        problems.append(f"{len(embeds)} embeds > {EMBEDS_MAX}")
    total = 0
    for i, embed in enumerate(embeds):
        where = f"embeds[{i}]"
        title, description = _len(embed.get("title")), _len(embed.get("description"))
        if title > EMBED_TITLE_MAX:
            problems.append(f"{where}.title has {title} chars > {EMBED_TITLE_MAX}")
        if description > EMBED_DESCRIPTION_MAX:
            problems.append(f"{where}.description has {description} chars > {EMBED_DESCRIPTION_MAX}")
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS_MAX:
            problems.append(f"{where} has {len(fields)} fields > {EMBED_FIELDS_MAX}")
        total += title + description
        for j, field in enumerate(fields):
            name, value = _len(field.get("name")), _len(field.get("value"))
            if not name or name > EMBED_FIELD_NAME_MAX:
                problems.append(f"{where}.fields[{j}].name has {name} chars (1..{EMBED_FIELD_NAME_MAX})")
            if not value or value > EMBED_FIELD_VALUE_MAX:
                problems.append(f"{where}.fields[{j}].value has {value} chars (1..{EMBED_FIELD_VALUE_MAX})")
            total += name + value
        footer = _len((embed.get("footer") or {}).get("text"))
        author = _len((embed.get("author") or {}).get("name"))
        if footer > EMBED_FOOTER_MAX:
            problems.append(f"{where}.footer.text has {footer} chars > {EMBED_FOOTER_MAX}")
        if author > EMBED_AUTHOR_MAX:
            problems.append(f"{where}.author.name has {author} chars > {EMBED_AUTHOR_MAX}")
        total += footer + author
    if total > EMBED_TOTAL_MAX:
        problems.append(f"embeds total {total} chars > {EMBED_TOTAL_MAX}")
    return problems


def _check_custom_id(component: dict[str, Any], where: str, seen: set[str], problems: list[str]) -> None:
    custom_id = component.get("custom_id")
    if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= CUSTOM_ID_MAX:
        problems.append(f"{where}.custom_id {custom_id!r} must be 1..{CUSTOM_ID_MAX} chars")
        return
    if custom_id in seen:
        problems.append(f"{where}.custom_id {custom_id!r} is not unique in the message")
    seen.add(custom_id)


def _check_button(button: dict[str, Any], where: str, seen: set[str], problems: list[str]) -> None:
    if button.get("style") == 5:  # link
        if not button.get("url"):
            problems.append(f"{where} is a link button without url")
    elif button.get("style") != 6:  # premium buttons carry a sku_id instead
        _check_custom_id(button, where, seen, problems)
    if _len(button.get("label")) > BUTTON_LABEL_MAX:
        problems.append(f"{where}.label has {_len(button.get('label'))} chars > {BUTTON_LABEL_MAX}")


def _check_select(select: dict[str, Any], where: str, seen: set[str], problems: list[str]) -> None:
    _check_custom_id(select, where, seen, problems)
    if _len(select.get("placeholder")) > SELECT_PLACEHOLDER_MAX:
        problems.append(f"{where}.placeholder > {SELECT_PLACEHOLDER_MAX} chars")
    min_values, max_values = select.get("min_values", 1), select.get("max_values", 1)
    if not 0 <= min_values <= SELECT_OPTIONS_MAX or not 1 <= max_values <= SELECT_OPTIONS_MAX:
        problems.append(f"{where} min_values/max_values {min_values}/{max_values} out of range")
    if select.get("type") != 3:
        return
    options = select.get("options") or []
    if not 1 <= len(options) <= SELECT_OPTIONS_MAX:
        problems.append(f"{where} has {len(options)} options (1..{SELECT_OPTIONS_MAX})")
    if max_values > len(options):
        problems.append(f"{where}.max_values {max_values} > {len(options)} options")
    values: set[str] = set()
    for k, option in enumerate(options):
        label, value = option.get("label"), option.get("value")
        if not isinstance(label, str) or not 1 <= len(label) <= SELECT_OPTION_TEXT_MAX:
            problems.append(f"{where}.options[{k}].label must be 1..{SELECT_OPTION_TEXT_MAX} chars")
        if not isinstance(value, str) or not 1 <= len(value) <= SELECT_OPTION_TEXT_MAX:
            problems.append(f"{where}.options[{k}].value must be 1..{SELECT_OPTION_TEXT_MAX} chars")
        elif value in values:
            problems.append(f"{where}.options[{k}].value {value!r} is duplicated")
        values.add(value if isinstance(value, str) else "")
        if _len(option.get("description")) > SELECT_OPTION_TEXT_MAX:
            problems.append(f"{where}.options[{k}].description > {SELECT_OPTION_TEXT_MAX} chars")


def check_components(components: list[dict[str, Any]], flags: int = 0) -> list[str]:
    problems: list[str] = []
    seen: set[str] = set()
    if flags & IS_COMPONENTS_V2:
        count = _count_components(components)
        if count > V2_COMPONENTS_MAX:
            problems.append(f"{count} components > {V2_COMPONENTS_MAX} (components v2)")
        return problems
    if len(components) > ACTION_ROWS_MAX:
        problems.append(f"{len(components)} action rows > {ACTION_ROWS_MAX}")
    for i, row in enumerate(components):
        where = f"components[{i}]"
        if row.get("type") != 1:
            problems.append(f"{where} is type {row.get('type')}, top-level components must be action rows")
            continue
        children = row.get("components") or []
        if not children:
            problems.append(f"{where} is an empty action row")
        selects = [c for c in children if c.get("type") in SELECT_TYPES]
        buttons = [c for c in children if c.get("type") == BUTTON]
        if selects and (len(children) > 1):
            problems.append(f"{where} mixes a select with other components")
        if len(buttons) > BUTTONS_PER_ROW_MAX:
            problems.append(f"{where} has {len(buttons)} buttons > {BUTTONS_PER_ROW_MAX}")
        for j, child in enumerate(children):
            here = f"{where}.components[{j}]"
            if child.get("type") == BUTTON:
                _check_button(child, here, seen, problems)
            elif child.get("type") in SELECT_TYPES:
                _check_select(child, here, seen, problems)
            else:
                problems.append(f"{here} has type {child.get('type')}, not allowed in a message action row")
    return problems


def _count_components(components: list[dict[str, Any]]) -> int:
    total = 0
    for component in components:
        total += 1 + _count_components(component.get("components") or [])
        if "accessory" in component:
            total += 1
    return total


def check_files(files: list[tuple[str, bytes]], size_limit: int = FILE_SIZE_MAX) -> list[str]:
    problems: list[str] = []
    if len(files) > FILES_MAX:
        problems.append(f"{len(files)} files > {FILES_MAX}")
    for name, data in files:
        if len(data) > size_limit:
            problems.append(f"file {name!r} is {len(data)} bytes > {size_limit}")
    if sum(len(data) for _, data in files) > REQUEST_SIZE_MAX:
        problems.append(f"files total > {REQUEST_SIZE_MAX} bytes")
    return problems


def check_attachments(attachments: list[dict[str, Any]]) -> list[str]:
    """The ``attachments`` array of a message payload: alt text (``description``) at most 1,024 characters."""
    problems: list[str] = []
    for i, attachment in enumerate(attachments):
        description = attachment.get("description")
        if description is not None and (
            not isinstance(description, str) or len(description) > ATTACHMENT_DESCRIPTION_MAX
        ):
            problems.append(
                f"attachments[{i}].description has {_len(description)} chars > {ATTACHMENT_DESCRIPTION_MAX}"
            )
    return problems


def check_allowed_mentions(allowed: Any) -> list[str]:
    """``allowed_mentions`` as Discord validates it: ``parse`` ⊆ {roles, users, everyone}; ``users``/``roles`` lists
    of at most 100 snowflakes, each not also named in ``parse``; ``replied_user`` a boolean."""
    if allowed is None:
        return []
    if not isinstance(allowed, dict):
        return [f"allowed_mentions must be an object, not {type(allowed).__name__}"]
    problems: list[str] = []
    parse = allowed.get("parse", [])
    if not isinstance(parse, list) or not set(parse) <= MENTION_PARSE:
        problems.append(f"allowed_mentions.parse {parse!r} must be a list of {sorted(MENTION_PARSE)}")
        parse = []
    for key in ("users", "roles"):
        ids = allowed.get(key)
        if ids is None:
            continue
        if not isinstance(ids, list) or len(ids) > MENTION_IDS_MAX or not all(str(i).isdigit() for i in ids):
            problems.append(f"allowed_mentions.{key} must be a list of at most {MENTION_IDS_MAX} snowflakes")
        elif key in parse:
            problems.append(f"allowed_mentions: parse {key!r} and {key} are mutually exclusive")
    if "replied_user" in allowed and not isinstance(allowed["replied_user"], bool):
        problems.append("allowed_mentions.replied_user must be a boolean")
    return problems


def check_message(
    payload: dict[str, Any], files: list[tuple[str, bytes]], *, creating: bool, size_limit: int = FILE_SIZE_MAX
) -> list[str]:
    """Limits for a message create or edit (channel message, interaction response, followup)."""
    problems: list[str] = []
    content = payload.get("content")
    if isinstance(content, str) and len(content) > CONTENT_MAX:
        problems.append(f"content has {len(content)} chars > {CONTENT_MAX}")
    problems += check_embeds(payload.get("embeds") or [])
    problems += check_components(payload.get("components") or [], payload.get("flags") or 0)
    problems += check_files(files, size_limit)
    problems += check_attachments(payload.get("attachments") or [])
    problems += check_allowed_mentions(payload.get("allowed_mentions"))
    is_v2 = bool((payload.get("flags") or 0) & IS_COMPONENTS_V2)
    if is_v2 and (content or payload.get("embeds")):
        problems.append("content/embeds are not allowed with the components v2 flag")
    if creating and not (content or payload.get("embeds") or files or payload.get("components") or payload.get("poll")):
        problems.append("cannot send an empty message (no content, embeds, files or components)")
    return problems


def check_choices(choices: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    if len(choices) > CHOICES_MAX:
        problems.append(f"{len(choices)} autocomplete choices > {CHOICES_MAX}")
    for i, choice in enumerate(choices):
        name, value = choice.get("name"), choice.get("value")
        if not isinstance(name, str) or not 1 <= len(name) <= CHOICE_NAME_MAX:
            problems.append(f"choices[{i}].name must be 1..{CHOICE_NAME_MAX} chars")
        if isinstance(value, str) and len(value) > CHOICE_VALUE_MAX:
            problems.append(f"choices[{i}].value has {len(value)} chars > {CHOICE_VALUE_MAX}")
    return problems


def check_modal(modal: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    title = modal.get("title")
    if not isinstance(title, str) or not 1 <= len(title) <= MODAL_TITLE_MAX:
        problems.append(f"modal title must be 1..{MODAL_TITLE_MAX} chars")
    seen: set[str] = set()
    _check_custom_id(modal, "modal", seen, problems)
    rows = modal.get("components") or []
    if not 1 <= len(rows) <= MODAL_COMPONENTS_MAX:
        problems.append(f"modal has {len(rows)} components (1..{MODAL_COMPONENTS_MAX})")
    for i, row in enumerate(rows):
        children = row.get("components") or ([row["component"]] if "component" in row else [])
        for child in children:
            _check_custom_id(child, f"modal.components[{i}]", seen, problems)
            label = row.get("label") if row.get("type") == 18 else child.get("label")
            if _len(label) > TEXT_INPUT_LABEL_MAX:
                problems.append(f"modal.components[{i}] label > {TEXT_INPUT_LABEL_MAX} chars")
    return problems
