"""Discord's payload limits, checked on every outgoing payload the fake receives.

Each ``check_*`` function returns a list of human-readable violations (empty when the payload is one
real Discord would accept). The fake answers a payload with violations with 400 / 50035 and records
the violations, which fails the test. Sources: /work/shared/DISCORD.md §1.4-1.6.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from . import components as v2

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
FILES_MAX = 10
FILE_SIZE_MAX = 10 * 1024 * 1024
REQUEST_SIZE_MAX = 25 * 1024 * 1024
CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
CHOICE_VALUE_MAX = 100
ATTACHMENT_DESCRIPTION_MAX = 1024
MENTION_PARSE = frozenset({"roles", "users", "everyone"})
MENTION_IDS_MAX = 100

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


def check_components(
    components: list[dict[str, Any]], flags: int = 0, attachment_names: Collection[str] | None = None
) -> list[str]:
    """Legacy messages: action rows only. With IS_COMPONENTS_V2: the V2 layout rules (``components.check_v2``)."""
    if flags & IS_COMPONENTS_V2:
        return v2.check_v2(components, attachment_names)
    return v2.check_legacy(components, ACTION_ROWS_MAX)


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
    payload: dict[str, Any],
    files: list[tuple[str, bytes]],
    *,
    creating: bool,
    size_limit: int = FILE_SIZE_MAX,
    flags: int | None = None,
    content: str | None = None,
    embeds: list[dict[str, Any]] | None = None,
    components: list[dict[str, Any]] | None = None,
    attachment_names: Collection[str] | None = None,
) -> list[str]:
    """Limits for a message create or edit (channel message, interaction response, followup).

    For an edit the caller passes what the message holds after it (``flags``, ``content``, ``embeds``,
    ``components``, ``attachment_names``): Discord checks the message that results, so a V2 message edited without
    ``flags`` is still held to the V2 rules. Omitted, they come from the payload (a new message)."""
    problems: list[str] = []
    sent_content = payload.get("content")
    if isinstance(sent_content, str) and len(sent_content) > CONTENT_MAX:
        problems.append(f"content has {len(sent_content)} chars > {CONTENT_MAX}")
    problems += check_embeds(payload.get("embeds") or [])
    flags = (payload.get("flags") or 0) if flags is None else flags
    content = sent_content if content is None else content
    embeds = (payload.get("embeds") or []) if embeds is None else embeds
    components = (payload.get("components") or []) if components is None else components
    if attachment_names is None:
        attachment_names = [name for name, _ in files]
    problems += check_components(components, flags, attachment_names)
    problems += check_files(files, size_limit)
    problems += check_attachments(payload.get("attachments") or [])
    problems += check_allowed_mentions(payload.get("allowed_mentions"))
    if flags & IS_COMPONENTS_V2:
        if content:
            problems.append("content is not allowed with the IS_COMPONENTS_V2 flag (use text displays)")
        if embeds:
            problems.append("embeds are not allowed with the IS_COMPONENTS_V2 flag")
        if payload.get("poll") or payload.get("sticker_ids"):
            problems.append("polls and stickers are not allowed with the IS_COMPONENTS_V2 flag")
    if creating and not (content or embeds or files or components or payload.get("poll")):
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
    return v2.check_modal(modal)
