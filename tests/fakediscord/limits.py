"""Discord's payload limits, checked on every outgoing payload the fake receives.

Each ``check_*`` function returns a list of human-readable violations (empty when the payload is one
real Discord would accept). The fake answers a payload with violations with 400 / 50035 and records
the violations, which fails the test. Sources: /work/shared/DISCORD.md §1.4-1.6.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

import discord

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
NONCE_MAX = 25  # a message nonce: an integer, or a string of at most 25 characters

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


def check_nonce(payload: dict[str, Any]) -> list[str]:
    """A message create's ``nonce``: an integer or a string of at most 25 characters; ``enforce_nonce`` a boolean."""
    problems: list[str] = []
    nonce = payload.get("nonce")
    if nonce is not None and not isinstance(nonce, int | str):
        problems.append(f"nonce must be an integer or a string, not {type(nonce).__name__}")
    elif isinstance(nonce, str) and len(nonce) > NONCE_MAX:
        problems.append(f"nonce has {len(nonce)} chars > {NONCE_MAX}")
    if "enforce_nonce" in payload and not isinstance(payload["enforce_nonce"], bool):
        problems.append("enforce_nonce must be a boolean")
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


# ---------------------------------------------------------------------------------------------------- commands
COMMAND_NAME = re.compile(  # discord.py's VALID_SLASH_COMMAND_NAME: Discord's rule for CHAT_INPUT names and options
    r"^[-_\w\u0e31-\u0e3a\u0e47-\u0e4e\u0900-\u0903\u093a\u093b\u093c\u093e\u093f\u0940-\u094f\u0955\u0956\u0957"
    r"\u0962\u0963]{1,32}$"
)
COMMAND_NAME_MAX = 32
COMMAND_DESCRIPTION_MAX = 100
COMMAND_OPTIONS_MAX = 25
COMMAND_CHOICES_MAX = 25
COMMAND_CHARS_MAX = 8000
CHAT_INPUT = 1
SUBCOMMAND, SUBCOMMAND_GROUP = 1, 2
DISCORD_LOCALES = frozenset(str(locale.value) for locale in discord.Locale)  # Discord's client languages


class _CommandChecker:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def name(self, value: Any, where: str, *, chat_input: bool) -> None:
        if chat_input:
            if not isinstance(value, str) or not COMMAND_NAME.match(value) or value != value.lower():
                self.problems.append(f"{where} {value!r}: 1..32 lower-case letters, digits, '-' or '_'")
        elif not isinstance(value, str) or not 1 <= len(value) <= COMMAND_NAME_MAX:
            self.problems.append(f"{where} {value!r} must be 1..{COMMAND_NAME_MAX} chars")

    def description(self, value: Any, where: str, *, required: bool = True) -> None:
        low = 1 if required else 0
        if not isinstance(value, str) or not low <= len(value) <= COMMAND_DESCRIPTION_MAX:
            self.problems.append(f"{where} must be {low}..{COMMAND_DESCRIPTION_MAX} chars (has {_len(value)})")

    def localized(self, entry: dict[str, Any], key: str, where: str, check: Any) -> int:
        """Check ``entry[key]`` and its ``<key>_localizations``; the longest of them counts toward 8,000."""
        found = entry.get(f"{key}_localizations") or {}
        for locale, text in found.items():
            if locale not in DISCORD_LOCALES:
                self.problems.append(f"{where}.{key}_localizations has {locale!r}, not a Discord locale")
            check(text, f"{where}.{key}_localizations[{locale!r}]")
        return max([_len(entry.get(key)), *(_len(t) for t in found.values())])

    def options(self, options: list[dict[str, Any]], where: str) -> int:
        chars = 0
        if len(options) > COMMAND_OPTIONS_MAX:
            self.problems.append(f"{where} has {len(options)} options > {COMMAND_OPTIONS_MAX}")
        seen_optional = False
        names: set[str] = set()
        for i, option in enumerate(options):
            here = f"{where}.options[{i}]"
            chars += self.localized(option, "name", here, lambda v, w: self.name(v, w, chat_input=True))
            chars += self.localized(option, "description", here, lambda v, w: self.description(v, w))
            self.name(option.get("name"), f"{here}.name", chat_input=True)
            self.description(option.get("description"), f"{here}.description")
            if option.get("name") in names:
                self.problems.append(f"{here}.name {option.get('name')!r} is duplicated")
            names.add(option.get("name"))
            if option.get("type") in (SUBCOMMAND, SUBCOMMAND_GROUP):
                chars += self.options(option.get("options") or [], here)
                continue
            if option.get("required"):
                if seen_optional:
                    self.problems.append(f"{here} is required after an optional option")
            else:
                seen_optional = True
            choices = option.get("choices") or []
            if len(choices) > COMMAND_CHOICES_MAX:
                self.problems.append(f"{here} has {len(choices)} choices > {COMMAND_CHOICES_MAX}")
            for j, choice in enumerate(choices):
                spot = f"{here}.choices[{j}]"
                chars += self.localized(choice, "name", spot, self._choice_name)
                self._choice_name(choice.get("name"), f"{spot}.name")
                value = choice.get("value")
                if isinstance(value, str) and len(value) > CHOICE_VALUE_MAX:
                    self.problems.append(f"{spot}.value has {len(value)} chars > {CHOICE_VALUE_MAX}")
                chars += len(str(value))
        return chars

    def _choice_name(self, value: Any, where: str) -> None:
        if not isinstance(value, str) or not 1 <= len(value) <= CHOICE_NAME_MAX:
            self.problems.append(f"{where} must be 1..{CHOICE_NAME_MAX} chars")


def check_commands(commands: list[dict[str, Any]]) -> list[str]:
    """A bulk command sync (PUT .../commands): names (CHAT_INPUT: lower-case, 1..32, letters, digits, - and _),
    descriptions 1..100 (context-menu commands: none), localizations keyed by Discord's locales and held to the same
    rules, 25 options (required ones first), 25 choices, and 8,000 characters per command counted as Discord does
    (names, descriptions and choice values, the longest localization of each)."""
    check = _CommandChecker()
    names: set[tuple[int, str]] = set()
    for i, command in enumerate(commands):
        where = f"commands[{i}]"
        kind = command.get("type", CHAT_INPUT)
        chat_input = kind == CHAT_INPUT
        chars = check.localized(command, "name", where, lambda v, w, c=chat_input: check.name(v, w, chat_input=c))
        check.name(command.get("name"), f"{where}.name", chat_input=chat_input)
        if chat_input:
            chars += check.localized(command, "description", where, lambda v, w: check.description(v, w))
            check.description(command.get("description"), f"{where}.description")
            chars += check.options(command.get("options") or [], where)
        elif command.get("description"):
            check.problems.append(f"{where} is a context-menu command: its description must be empty")
        if (kind, command.get("name")) in names:
            check.problems.append(f"{where}.name {command.get('name')!r} is synced twice")
        names.add((kind, command.get("name")))
        if chars > COMMAND_CHARS_MAX:
            check.problems.append(f"{where} /{command.get('name')} has {chars} chars > {COMMAND_CHARS_MAX}")
    return check.problems
