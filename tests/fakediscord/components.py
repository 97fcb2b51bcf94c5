"""Components V2 and modals: what Discord accepts, what a person sees, and what a modal submit may carry.

Pure functions over the JSON that discord.py 2.7.1 sends (``discord/components.py`` ``to_dict``, ``ui/*.py``
``to_component_dict``). Facts are from Discord's components reference (/work/shared/DISCORD.md §1.4, §10); where a
rule is not spelled out there, the comment at the rule says what was chosen and why.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

# Component types (discord.enums.ComponentType in 2.7.1)
ACTION_ROW = 1
BUTTON = 2
STRING_SELECT = 3
TEXT_INPUT = 4
SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
SECTION = 9
TEXT_DISPLAY = 10
THUMBNAIL = 11
MEDIA_GALLERY = 12
FILE = 13
SEPARATOR = 14
CONTAINER = 17
LABEL = 18
FILE_UPLOAD = 19
RADIO_GROUP = 21
CHECKBOX_GROUP = 22
CHECKBOX = 23

V2_COMPONENTS_MAX = 40  # every component counts, nested ones too (media gallery items are not components)
V2_TEXT_MAX = 4000  # all text displays of one message share this budget
V2_TOP_LEVEL = frozenset({ACTION_ROW, SECTION, TEXT_DISPLAY, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER})
CONTAINER_CHILDREN = frozenset({ACTION_ROW, SECTION, TEXT_DISPLAY, MEDIA_GALLERY, FILE, SEPARATOR})
SECTION_ACCESSORIES = frozenset({BUTTON, THUMBNAIL})
SECTION_TEXTS = (1, 3)
GALLERY_ITEMS = (1, 10)
MEDIA_DESCRIPTION_MAX = 1024
SEPARATOR_SPACINGS = frozenset({1, 2})
ACCENT_COLOR_MAX = 0xFFFFFF
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
BUTTONS_PER_ROW_MAX = 5
SELECT_OPTIONS_MAX = 25
SELECT_OPTION_TEXT_MAX = 100
SELECT_PLACEHOLDER_MAX = 150
ATTACHMENT_SCHEME = "attachment://"

MODAL_TITLE_MAX = 45
MODAL_COMPONENTS_MAX = 5  # top-level components (discord.py's Modal.add_item refuses a sixth too)
LABEL_TEXT_MAX = 45
LABEL_DESCRIPTION_MAX = 100
TEXT_INPUT_LENGTH_MAX = 4000
TEXT_INPUT_PLACEHOLDER_MAX = 100
TEXT_INPUT_STYLES = frozenset({1, 2})  # short, paragraph
RADIO_OPTIONS = (2, 10)  # discord.py's RadioGroup docstring: "between 2 and 10 items"
CHECKBOX_OPTIONS = (1, 10)
CHECKBOX_VALUES_MAX = 10
FILE_UPLOAD_VALUES_MAX = 10
LABEL_CHILDREN = frozenset({TEXT_INPUT, *SELECT_TYPES, FILE_UPLOAD, RADIO_GROUP, CHECKBOX_GROUP, CHECKBOX})
MODAL_TOP_LEVEL = frozenset({LABEL, TEXT_DISPLAY, ACTION_ROW})


def _len(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def children(component: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The nested components of one component, in reading order (a section's texts, then its accessory)."""
    found = list(component.get("components") or [])
    if isinstance(component.get("accessory"), dict):
        found.append(component["accessory"])
    if isinstance(component.get("component"), dict):  # a modal label's one component
        found.append(component["component"])
    return found


def walk(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every component, depth first in reading order."""
    for component in components:
        if isinstance(component, dict):
            yield component
            yield from walk(children(component))


def media_urls(component: Mapping[str, Any]) -> list[str]:
    """The media URLs one component shows: a thumbnail's, a gallery's items', a file's."""
    kind = component.get("type")
    if kind == THUMBNAIL:
        return [str((component.get("media") or {}).get("url") or "")]
    if kind == MEDIA_GALLERY:
        return [str((item.get("media") or {}).get("url") or "") for item in component.get("items") or []]
    if kind == FILE:
        return [str((component.get("file") or {}).get("url") or "")]
    return []


class _Checker:
    """Collects problems with the path of each, and the custom_ids / ids already used in the payload."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.custom_ids: set[str] = set()
        self.ids: set[int] = set()

    def add(self, problem: str) -> None:
        self.problems.append(problem)

    def unique_id(self, component: Mapping[str, Any], where: str) -> None:
        """The optional integer ``id`` of a component is unique within the message or modal."""
        if "id" not in component or component["id"] is None:
            return
        value = component["id"]
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**31:
            self.add(f"{where}.id {value!r} must be a 32-bit integer")
        elif value in self.ids:
            self.add(f"{where}.id {value} is not unique")
        else:
            self.ids.add(value)

    def custom_id(self, component: Mapping[str, Any], where: str) -> None:
        custom_id = component.get("custom_id")
        if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= CUSTOM_ID_MAX:
            self.add(f"{where}.custom_id {custom_id!r} must be 1..{CUSTOM_ID_MAX} chars")
            return
        if custom_id in self.custom_ids:
            self.add(f"{where}.custom_id {custom_id!r} is not unique in the message")
        self.custom_ids.add(custom_id)

    def button(self, button: Mapping[str, Any], where: str) -> None:
        style = button.get("style")
        if style == 5:  # link
            if not button.get("url"):
                self.add(f"{where} is a link button without url")
        elif style != 6:  # premium buttons carry a sku_id instead
            self.custom_id(button, where)
        if _len(button.get("label")) > BUTTON_LABEL_MAX:
            self.add(f"{where}.label has {_len(button.get('label'))} chars > {BUTTON_LABEL_MAX}")

    def select(self, select: Mapping[str, Any], where: str, *, in_modal: bool = False) -> None:
        self.custom_id(select, where)
        if _len(select.get("placeholder")) > SELECT_PLACEHOLDER_MAX:
            self.add(f"{where}.placeholder > {SELECT_PLACEHOLDER_MAX} chars")
        if in_modal and select.get("disabled"):
            self.add(f"{where} is disabled: a select in a modal cannot be")  # Discord: "results in an error"
        min_values, max_values = select.get("min_values", 1), select.get("max_values", 1)
        if not 0 <= min_values <= SELECT_OPTIONS_MAX or not 1 <= max_values <= SELECT_OPTIONS_MAX:
            self.add(f"{where} min_values/max_values {min_values}/{max_values} out of range")
        elif min_values > max_values:
            self.add(f"{where} min_values {min_values} > max_values {max_values}")
        if select.get("type") != STRING_SELECT:
            return
        options = select.get("options") or []
        if not 1 <= len(options) <= SELECT_OPTIONS_MAX:
            self.add(f"{where} has {len(options)} options (1..{SELECT_OPTIONS_MAX})")
        if max_values > len(options):
            self.add(f"{where}.max_values {max_values} > {len(options)} options")
        self.options(options, where)

    def options(self, options: list[dict[str, Any]], where: str) -> None:
        values: set[str] = set()
        for k, option in enumerate(options):
            label, value = option.get("label"), option.get("value")
            if not isinstance(label, str) or not 1 <= len(label) <= SELECT_OPTION_TEXT_MAX:
                self.add(f"{where}.options[{k}].label must be 1..{SELECT_OPTION_TEXT_MAX} chars")
            if not isinstance(value, str) or not 1 <= len(value) <= SELECT_OPTION_TEXT_MAX:
                self.add(f"{where}.options[{k}].value must be 1..{SELECT_OPTION_TEXT_MAX} chars")
            elif value in values:
                self.add(f"{where}.options[{k}].value {value!r} is duplicated")
            values.add(value if isinstance(value, str) else "")
            if _len(option.get("description")) > SELECT_OPTION_TEXT_MAX:
                self.add(f"{where}.options[{k}].description > {SELECT_OPTION_TEXT_MAX} chars")

    def option_group(
        self, item: Mapping[str, Any], where: str, kind: str, bounds: tuple[int, int]
    ) -> list[dict[str, Any]]:
        """A radio or checkbox group's custom_id and options (their count within ``bounds``); returns the options."""
        self.custom_id(item, where)
        options = list(item.get("options") or [])
        low, high = bounds
        if not low <= len(options) <= high:
            self.add(f"{where} ({kind}) has {len(options)} options ({low}..{high})")
        self.options(options, where)
        return options

    def action_row(self, row: Mapping[str, Any], where: str) -> None:
        items = row.get("components") or []
        if not items:
            self.add(f"{where} is an empty action row")
        selects = [c for c in items if c.get("type") in SELECT_TYPES]
        buttons = [c for c in items if c.get("type") == BUTTON]
        if selects and len(items) > 1:
            self.add(f"{where} mixes a select with other components")
        if len(buttons) > BUTTONS_PER_ROW_MAX:
            self.add(f"{where} has {len(buttons)} buttons > {BUTTONS_PER_ROW_MAX}")
        for j, child in enumerate(items):
            here = f"{where}.components[{j}]"
            self.unique_id(child, here)
            if child.get("type") == BUTTON:
                self.button(child, here)
            elif child.get("type") in SELECT_TYPES:
                self.select(child, here)
            else:
                self.add(f"{here} has type {child.get('type')}, not allowed in a message action row")


def check_legacy(components: list[dict[str, Any]], rows_max: int = 5) -> list[str]:
    """A message without the V2 flag: up to 5 action rows, each 1-5 buttons or one select."""
    check = _Checker()
    if len(components) > rows_max:
        check.add(f"{len(components)} action rows > {rows_max}")
    for i, row in enumerate(components):
        where = f"components[{i}]"
        if row.get("type") != ACTION_ROW:
            check.add(
                f"{where} is type {row.get('type')}, top-level components must be action rows "
                "(other types need the IS_COMPONENTS_V2 flag)"
            )
            continue
        check.unique_id(row, where)
        check.action_row(row, where)
    return check.problems


def count_components(components: list[dict[str, Any]]) -> int:
    """Every component, nested ones included (a section's texts and accessory, a container's children, an action
    row's buttons); media gallery items and select options are not components."""
    return sum(1 for _ in walk(components))


def check_v2(components: list[dict[str, Any]], attachment_names: Collection[str] | None = None) -> list[str]:
    """A message with IS_COMPONENTS_V2: types and nesting, 40 components, 4,000 characters of text displays,
    unique custom_ids and ids, and every ``attachment://name`` uploaded (``attachment_names``: the filenames the
    message has after the request; None skips that check)."""
    check = _Checker()
    if not components:  # its components are all it shows: none (an edit with ``view=None``) is an empty message
        check.add("a V2 message without components is empty (Discord refuses an empty message)")
    count = count_components(components)
    if count > V2_COMPONENTS_MAX:
        check.add(f"{count} components > {V2_COMPONENTS_MAX} (components v2; nested components count)")
    text = sum(_len(c.get("content")) for c in walk(components) if c.get("type") == TEXT_DISPLAY)
    if text > V2_TEXT_MAX:
        check.add(f"text displays have {text} chars in all > {V2_TEXT_MAX}")
    for i, component in enumerate(components):
        where = f"components[{i}]"
        if component.get("type") not in V2_TOP_LEVEL:
            check.add(f"{where} has type {component.get('type')}, not allowed at the top level of a message")
            continue
        _check_v2_component(check, component, where)
    if attachment_names is not None:
        names = set(attachment_names)
        for component in walk(components):
            for url in media_urls(component):
                if url.startswith(ATTACHMENT_SCHEME) and url[len(ATTACHMENT_SCHEME) :] not in names:
                    check.add(f"{url} is neither uploaded with this request nor attached to the message")
    return check.problems


def _check_media(check: _Checker, item: Mapping[str, Any], key: str, where: str, *, attachment_only: bool) -> None:
    url = (item.get(key) or {}).get("url") if isinstance(item.get(key), dict) else None
    if not isinstance(url, str) or not url:
        check.add(f"{where}.{key}.url is required")
    elif attachment_only and not url.startswith(ATTACHMENT_SCHEME):
        check.add(f"{where}.{key}.url must be attachment://<filename> (a file component shows an upload only)")
    elif not url.startswith((ATTACHMENT_SCHEME, "https://", "http://")):
        check.add(f"{where}.{key}.url {url!r} is neither attachment:// nor http(s)")
    if _len(item.get("description")) > MEDIA_DESCRIPTION_MAX:
        check.add(f"{where}.description has {_len(item.get('description'))} chars > {MEDIA_DESCRIPTION_MAX}")


def _check_v2_component(check: _Checker, component: Mapping[str, Any], where: str) -> None:
    check.unique_id(component, where)
    kind = component.get("type")
    inner = component.get("components") or []
    if kind == ACTION_ROW:
        check.action_row(component, where)
    elif kind == TEXT_DISPLAY:
        # An empty text display is refused: Discord's required string fields take at least one character.
        if not isinstance(component.get("content"), str) or not component["content"]:
            check.add(f"{where}.content must be a non-empty string")
    elif kind == SECTION:
        low, high = SECTION_TEXTS
        if not low <= len(inner) <= high:
            check.add(f"{where} (section) has {len(inner)} components ({low}..{high} text displays)")
        for j, child in enumerate(inner):
            here = f"{where}.components[{j}]"
            if child.get("type") != TEXT_DISPLAY:
                check.add(f"{here} has type {child.get('type')}; a section holds text displays only")
            else:
                _check_v2_component(check, child, here)
        accessory = component.get("accessory")
        if not isinstance(accessory, dict):
            check.add(f"{where} (section) needs an accessory (a button or a thumbnail)")
        elif accessory.get("type") not in SECTION_ACCESSORIES:
            check.add(f"{where}.accessory has type {accessory.get('type')}; only a button or a thumbnail")
        elif accessory.get("type") == BUTTON:
            check.unique_id(accessory, f"{where}.accessory")
            check.button(accessory, f"{where}.accessory")
        else:
            _check_v2_component(check, accessory, f"{where}.accessory")
    elif kind == THUMBNAIL:
        _check_media(check, component, "media", where, attachment_only=False)
    elif kind == MEDIA_GALLERY:
        items = component.get("items") or []
        low, high = GALLERY_ITEMS
        if not low <= len(items) <= high:
            check.add(f"{where} (media gallery) has {len(items)} items ({low}..{high})")
        for j, item in enumerate(items):
            _check_media(check, item, "media", f"{where}.items[{j}]", attachment_only=False)
    elif kind == FILE:
        _check_media(check, component, "file", where, attachment_only=True)
    elif kind == SEPARATOR:
        if component.get("spacing", 1) not in SEPARATOR_SPACINGS:
            check.add(f"{where}.spacing {component.get('spacing')!r} must be 1 (small) or 2 (large)")
    elif kind == CONTAINER:
        # An empty container is refused (chosen: Discord documents a container as holding its child components
        # and a container with none shows nothing; the fake errs on the side of refusing it).
        if not inner:
            check.add(f"{where} is an empty container")
        color = component.get("accent_color")
        if color is not None and (not isinstance(color, int) or not 0 <= color <= ACCENT_COLOR_MAX):
            check.add(f"{where}.accent_color {color!r} must be 0..0xFFFFFF")
        for j, child in enumerate(inner):
            here = f"{where}.components[{j}]"
            if child.get("type") not in CONTAINER_CHILDREN:
                check.add(f"{here} has type {child.get('type')}, not allowed in a container")
            else:
                _check_v2_component(check, child, here)


# ---------------------------------------------------------------------------------------------------- what is seen
@dataclass(frozen=True, slots=True)
class SeenImage:
    """An image a person sees in a V2 message: its attachment's name and bytes (None: an external URL)."""

    name: str
    data: bytes | None
    description: str  # the alt text
    url: str


@dataclass(slots=True)
class Seen:
    """What a person sees in a message with components V2, in reading order."""

    texts: list[str] = field(default_factory=list)  # text displays, top to bottom
    images: list[SeenImage] = field(default_factory=list)  # gallery items and thumbnails
    files: list[SeenImage] = field(default_factory=list)  # file components
    buttons: list[dict[str, Any]] = field(default_factory=list)
    selects: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.texts)


def seen(components: list[dict[str, Any]], attachment: Callable[[str], bytes | None]) -> Seen:
    """Read a V2 message the way a person does; ``attachment(name)`` gives an uploaded file's bytes."""
    out = Seen()

    def image(media: Mapping[str, Any], description: Any) -> SeenImage:
        url = str(media.get("url") or "")
        name = url[len(ATTACHMENT_SCHEME) :] if url.startswith(ATTACHMENT_SCHEME) else url
        data = attachment(name) if url.startswith(ATTACHMENT_SCHEME) else None
        return SeenImage(name=name, data=data, description=str(description or ""), url=url)

    for component in walk(components):
        kind = component.get("type")
        if kind == TEXT_DISPLAY:
            out.texts.append(str(component.get("content") or ""))
        elif kind == THUMBNAIL:
            out.images.append(image(component.get("media") or {}, component.get("description")))
        elif kind == MEDIA_GALLERY:
            out.images += [image(i.get("media") or {}, i.get("description")) for i in component.get("items") or []]
        elif kind == FILE:
            out.files.append(image(component.get("file") or {}, None))
        elif kind == BUTTON:
            out.buttons.append(component)
        elif kind in SELECT_TYPES:
            out.selects.append(component)
    return out


# ---------------------------------------------------------------------------------------------------- modals
def check_modal(modal: Mapping[str, Any]) -> list[str]:
    """A MODAL (type 9) callback as discord.py 2.7.1 builds it (``Modal.to_dict``): title 1..45, 1..5 top-level
    components (labels, text displays, or the deprecated action row holding one text input), label texts, text
    input lengths, select / radio group / checkbox group options, unique custom_ids."""
    check = _Checker()
    title = modal.get("title")
    if not isinstance(title, str) or not 1 <= len(title) <= MODAL_TITLE_MAX:
        check.add(f"modal title must be 1..{MODAL_TITLE_MAX} chars (has {_len(title)})")
    check.custom_id(modal, "modal")
    top = modal.get("components") or []
    if not 1 <= len(top) <= MODAL_COMPONENTS_MAX:
        check.add(f"modal has {len(top)} components (1..{MODAL_COMPONENTS_MAX})")
    for i, component in enumerate(top):
        where = f"modal.components[{i}]"
        kind = component.get("type")
        check.unique_id(component, where)
        if kind == LABEL:
            text = component.get("label")
            if not isinstance(text, str) or not 1 <= len(text) <= LABEL_TEXT_MAX:
                check.add(f"{where}.label must be 1..{LABEL_TEXT_MAX} chars (has {_len(text)})")
            if _len(component.get("description")) > LABEL_DESCRIPTION_MAX:
                check.add(f"{where}.description has {_len(component.get('description'))} chars > 100")
            inner = component.get("component")
            if not isinstance(inner, dict) or inner.get("type") not in LABEL_CHILDREN:
                kind_inside = inner.get("type") if isinstance(inner, dict) else None
                check.add(f"{where}.component has type {kind_inside}, not allowed in a label")
            else:
                _check_modal_input(check, inner, f"{where}.component", labelled=True)
        elif kind == TEXT_DISPLAY:
            if not isinstance(component.get("content"), str) or not component["content"]:
                check.add(f"{where}.content must be a non-empty string")
        elif kind == ACTION_ROW:
            # Deprecated but still accepted: an action row holding exactly one text input. A select must be in a
            # label (discord.py 2.7.1 still wraps a Select added straight to a Modal in an action row: refused).
            inner_list = component.get("components") or []
            if len(inner_list) != 1 or inner_list[0].get("type") != TEXT_INPUT:
                kinds = [c.get("type") for c in inner_list]
                check.add(f"{where} is an action row with {kinds}; in a modal it holds one text input only")
            else:
                _check_modal_input(check, inner_list[0], f"{where}.components[0]", labelled=False)
        else:
            check.add(f"{where} has type {kind}, not allowed at the top level of a modal")
    return check.problems


def _check_modal_input(check: _Checker, item: Mapping[str, Any], where: str, *, labelled: bool) -> None:
    check.unique_id(item, where)
    kind = item.get("type")
    if kind == TEXT_INPUT:
        check.custom_id(item, where)
        if item.get("style", 1) not in TEXT_INPUT_STYLES:
            check.add(f"{where}.style {item.get('style')!r} must be 1 (short) or 2 (paragraph)")
        label = item.get("label")
        if not labelled and (not isinstance(label, str) or not 1 <= len(label) <= LABEL_TEXT_MAX):
            check.add(f"{where}.label must be 1..{LABEL_TEXT_MAX} chars (has {_len(label)})")
        low, high = item.get("min_length"), item.get("max_length")
        if low is not None and (not isinstance(low, int) or not 0 <= low <= TEXT_INPUT_LENGTH_MAX):
            check.add(f"{where}.min_length {low!r} must be 0..{TEXT_INPUT_LENGTH_MAX}")
        if high is not None and (not isinstance(high, int) or not 1 <= high <= TEXT_INPUT_LENGTH_MAX):
            check.add(f"{where}.max_length {high!r} must be 1..{TEXT_INPUT_LENGTH_MAX}")
        if isinstance(low, int) and isinstance(high, int) and low > high:
            check.add(f"{where}.min_length {low} > max_length {high}")
        value = item.get("value")
        limit = high if isinstance(high, int) else TEXT_INPUT_LENGTH_MAX
        if _len(value) > limit:
            check.add(f"{where}.value (the pre-filled text) has {_len(value)} chars > {limit}")
        if _len(item.get("placeholder")) > TEXT_INPUT_PLACEHOLDER_MAX:
            check.add(f"{where}.placeholder > {TEXT_INPUT_PLACEHOLDER_MAX} chars")
    elif kind in SELECT_TYPES:
        check.select(item, where, in_modal=True)
    elif kind == RADIO_GROUP:
        options = check.option_group(item, where, "radio group", RADIO_OPTIONS)
        if sum(1 for o in options if o.get("default")) > 1:
            check.add(f"{where} (radio group) has more than one default option")
    elif kind == CHECKBOX_GROUP:
        options = check.option_group(item, where, "checkbox group", CHECKBOX_OPTIONS)
        min_values, max_values = item.get("min_values", 0), item.get("max_values", 1)
        if not 0 <= min_values <= CHECKBOX_VALUES_MAX or not 1 <= max_values <= CHECKBOX_VALUES_MAX:
            check.add(f"{where} min_values/max_values {min_values}/{max_values} out of range")
        elif min_values > max_values or max_values > len(options):
            check.add(f"{where} min_values/max_values {min_values}/{max_values} do not fit {len(options)} options")
    elif kind == CHECKBOX:
        check.custom_id(item, where)
        if not isinstance(item.get("default", False), bool):
            check.add(f"{where}.default must be a boolean")
    elif kind == FILE_UPLOAD:
        check.custom_id(item, where)
        min_values, max_values = item.get("min_values", 1), item.get("max_values", 1)
        if not 0 <= min_values <= FILE_UPLOAD_VALUES_MAX or not 1 <= max_values <= FILE_UPLOAD_VALUES_MAX:
            check.add(f"{where} min_values/max_values {min_values}/{max_values} out of range")


def modal_inputs(modal: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The inputs of a modal by custom_id (text inputs, selects, radio groups, checkbox groups, checkboxes, file
    uploads)."""
    return {
        c["custom_id"]: c
        for c in walk(list(modal.get("components") or []))
        if c.get("type") in LABEL_CHILDREN and isinstance(c.get("custom_id"), str)
    }


class ModalRefused(AssertionError):
    """A test tried to submit values the modal did not offer (a person could not have submitted them)."""


def submitted_value(item: Mapping[str, Any], value: Any) -> tuple[str, Any]:
    """(key, value) one input submits: what a person could enter there, or :class:`ModalRefused`.

    ``value`` is None when the test leaves the input as the modal opened (its pre-filled text or default options).
    Selects of users, roles, channels and file uploads take ids (already resolved by the caller)."""
    kind, cid = item.get("type"), item.get("custom_id")
    if kind == TEXT_INPUT:
        text = (item.get("value") or "") if value is None else value
        if not isinstance(text, str):
            raise ModalRefused(f"text input {cid!r} takes a string, not {text!r}")
        high = item.get("max_length") or TEXT_INPUT_LENGTH_MAX
        low = item.get("min_length") or 0
        if len(text) > high:
            raise ModalRefused(f"text input {cid!r}: {len(text)} chars > max_length {high}")
        if not text and item.get("required", True):
            raise ModalRefused(f"text input {cid!r} is required")
        if text and len(text) < low:
            raise ModalRefused(f"text input {cid!r}: {len(text)} chars < min_length {low}")
        return "value", text
    if kind in SELECT_TYPES or kind in (CHECKBOX_GROUP, FILE_UPLOAD):
        defaults = [o["value"] for o in item.get("options") or [] if o.get("default")]
        chosen = defaults if value is None else value
        if isinstance(chosen, str) or not isinstance(chosen, list | tuple):
            raise ModalRefused(f"{cid!r} takes a list of values, not {chosen!r}")
        chosen = [str(v) for v in chosen]
        if kind in (STRING_SELECT, CHECKBOX_GROUP):
            offered = [o.get("value") for o in item.get("options") or []]
            strangers = [v for v in chosen if v not in offered]
            if strangers:
                raise ModalRefused(f"{cid!r}: {strangers} not among the options {offered}")
            if len(set(chosen)) != len(chosen):
                raise ModalRefused(f"{cid!r}: a value chosen twice in {chosen}")
        low = item.get("min_values", 0 if kind == CHECKBOX_GROUP else 1)
        high = item.get("max_values", 1)
        required = item.get("required", True)
        if not chosen and required and kind != CHECKBOX_GROUP:
            raise ModalRefused(f"{cid!r} is required")
        if (chosen or required) and not low <= len(chosen) <= high:
            raise ModalRefused(f"{cid!r}: {len(chosen)} values outside {low}..{high}")
        return "values", chosen
    if kind == RADIO_GROUP:
        default = next((o["value"] for o in item.get("options") or [] if o.get("default")), None)
        choice = default if value is None else value
        offered = [o.get("value") for o in item.get("options") or []]
        if choice is None:
            if item.get("required", True):
                raise ModalRefused(f"radio group {cid!r} is required")
        elif choice not in offered:
            raise ModalRefused(f"radio group {cid!r}: {choice!r} not among the options {offered}")
        return "value", choice
    if kind == CHECKBOX:
        ticked = bool(item.get("default", False)) if value is None else value
        if not isinstance(ticked, bool):
            raise ModalRefused(f"checkbox {cid!r} takes True or False, not {ticked!r}")
        return "value", ticked
    raise ModalRefused(f"{cid!r} has type {kind}, which takes no input")


def modal_submission(modal: Mapping[str, Any], values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``data.components`` of a MODAL_SUBMIT (interaction type 5) for ``values`` by custom_id: the modal's structure
    (labels, action rows, text displays) with each input's submitted value. Raises :class:`ModalRefused` for a
    custom_id the modal does not have or a value a person could not have submitted.

    Discord numbers components that were sent without an ``id`` (1, 2, ... in reading order, skipping ids in use);
    the submission carries those ids, as discord.py's typed payloads expect."""
    inputs = modal_inputs(modal)
    unknown = sorted(set(values) - set(inputs))
    if unknown:
        raise ModalRefused(f"the modal {modal.get('custom_id')!r} has no inputs {unknown}; it has {sorted(inputs)}")
    taken = {c["id"] for c in walk(list(modal.get("components") or [])) if isinstance(c.get("id"), int)}
    counter = iter(n for n in range(1, 10_000) if n not in taken)
    numbered: dict[int, int] = {}

    def number(component: Mapping[str, Any]) -> int:
        if isinstance(component.get("id"), int):
            return int(component["id"])
        return numbered.setdefault(id(component), next(counter))

    def submit(item: Mapping[str, Any]) -> dict[str, Any]:
        key, value = submitted_value(item, values.get(item["custom_id"]))
        return {"type": item["type"], "id": number(item), "custom_id": item["custom_id"], key: value}

    out: list[dict[str, Any]] = []
    for component in modal.get("components") or []:
        kind = component.get("type")
        if kind == LABEL:
            out.append({"type": LABEL, "id": number(component), "component": submit(component["component"])})
        elif kind == ACTION_ROW:
            row = {"type": ACTION_ROW, "id": number(component)}
            out.append(row | {"components": [submit(c) for c in component.get("components") or []]})
        elif kind == TEXT_DISPLAY:
            out.append({"type": TEXT_DISPLAY, "id": number(component), "content": component.get("content")})
    return out
