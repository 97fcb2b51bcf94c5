"""Table state codec: one compact JSON text per :class:`TableState`, for start-up snapshots.

``load_state(dump_state(s)) == s`` for every reachable state: every field of every state class is
written (cards as two-letter codes run together, ``"5SJHKD"``; enums by value; tuples as JSON arrays
and read back as tuples). The text carries a format version (``"v"``). Reading is strict: an object
must hold exactly the fields its class has, so a snapshot written before a field was added (or after
one was removed) is refused with :class:`StateFormatError` and the caller replays the action log
instead. Bump :data:`FORMAT_VERSION` whenever the layout changes.

>>> from .state import initial_state
>>> s = initial_state(table_id=7)
>>> load_state(dump_state(s)) == s
True
"""

from __future__ import annotations

import dataclasses
import json
import operator
import types
import typing
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, Final, TypeVar

from . import _fast
from .cards import ALL_CARDS, Card, Suit
from .errors import RuleViolation
from .melds import Condition, Meld, MeldKind
from .rules import Rules
from .state import (
    DrawSource,
    EndReason,
    ForceBack,
    HandState,
    Phase,
    PlayerHand,
    PlayerStatus,
    Seat,
    Step,
    TableState,
    Turn,
)

__all__ = ["FORMAT_VERSION", "StateFormatError", "dump_state", "load_state"]

FORMAT_VERSION: Final = 3
"""The layout written by :func:`dump_state`; :func:`load_state` reads only this version."""


class StateFormatError(ValueError):
    """A state text that is not valid JSON, has another format version, or does not describe a valid state."""


_E = TypeVar("_E", bound=Enum)
_T = TypeVar("_T")

_CARD_BY_CODE: Final[dict[str, Card]] = {str(c): c for c in ALL_CARDS}
_CODE_BY_CARD: Final[dict[Card, str]] = {c: code for code, c in _CARD_BY_CODE.items()}


def _names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


# --------------------------------------------------------------------------------------------- writing


def dump_state(state: TableState) -> str:
    """The state as compact JSON text (ASCII), with the format version."""
    return json.dumps({"v": FORMAT_VERSION, "state": _w_table(state)}, separators=(",", ":"))


def _w_cards(cards: Sequence[Card]) -> str:
    return "".join([_CODE_BY_CARD[c] for c in cards])


def _w_card(card: Card | None) -> str | None:
    return None if card is None else _CODE_BY_CARD[card]


def _w_enum(value: Enum | None) -> object:
    return None if value is None else value.value


def _w_rules(rules: Rules) -> dict[str, object]:
    out: dict[str, object] = {}
    for f in dataclasses.fields(Rules):
        value = getattr(rules, f.name)
        if isinstance(value, Enum):
            out[f.name] = value.value
        elif isinstance(value, tuple):
            out[f.name] = _w_cards(value)
        else:
            out[f.name] = value
    return out


# --------------------------------------------------------------------------------------------- reading


def load_state(text: str) -> TableState:
    """The state written by :func:`dump_state`.

    Raises:
        StateFormatError: not JSON, an unknown format version, or a missing, extra or ill-typed field.
    """
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as exc:  # JSONDecodeError is a ValueError
        raise StateFormatError(f"state text is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.keys() != {"v", "state"}:
        raise StateFormatError("state text must be an object with 'v' and 'state'")
    version = data["v"]
    if type(version) is not int or version != FORMAT_VERSION:
        raise StateFormatError(f"unknown state format version {version!r} (this code reads {FORMAT_VERSION})")
    return _r_table(_Obj(data["state"], None, "state", _NAMES_OF["TableState"]))


def _fail(where: str, expected: str, value: object) -> StateFormatError:
    return StateFormatError(f"{where}: expected {expected}, got {repr(value)[:60]}")


def _enum_values(cls: type[_E]) -> dict[object, _E]:
    return {m.value: m for m in cls}


# A member by value, without EnumType.__call__ (slow in Python 3.11).
_ENUMS: Final[dict[type[Enum], dict[object, Any]]] = {
    cls: _enum_values(cls) for cls in (DrawSource, EndReason, Phase, PlayerStatus, Step, Condition, MeldKind, Suit)
}
_RULES_SEEN: dict[tuple[tuple[str, type, object], ...], Rules] = {}
"""Rules already read, by their JSON fields: tables sharing a configuration share one ``Rules`` object."""


class _Obj:
    """One JSON object that must hold exactly ``names``, with typed readers of its fields.

    The path shown in errors (``state.hand.players[2].melds[0].cards``) is only built when reading fails.
    """

    __slots__ = ("_d", "_key", "_parent")

    def __init__(self, value: object, parent: _Obj | None, key: str | int, names: frozenset[str]) -> None:
        self._parent = parent
        self._key = key
        if not isinstance(value, dict):
            raise _fail(self.path(), "an object", value)
        if value.keys() != names:
            missing = sorted(names - value.keys())
            extra = sorted(value.keys() - names)
            raise StateFormatError(f"{self.path()}: missing fields {missing}, unknown fields {extra}")
        self._d: dict[str, Any] = value

    def path(self, name: str | int | None = None) -> str:
        parts: list[str] = [] if name is None else [f"[{name}]" if isinstance(name, int) else f".{name}"]
        node: _Obj | None = self
        while node is not None:
            key = node._key
            parts.append(f"[{key}]" if isinstance(key, int) else (f".{key}" if node._parent is not None else key))
            node = node._parent
        return "".join(reversed(parts))

    def integer(self, name: str) -> int:
        v = self._d[name]
        if type(v) is int:
            return v
        raise _fail(self.path(name), "an integer", v)

    def opt_int(self, name: str) -> int | None:
        v = self._d[name]
        if v is None or type(v) is int:
            return v
        raise _fail(self.path(name), "an integer or null", v)

    def flag(self, name: str) -> bool:
        v = self._d[name]
        if v is True or v is False:
            return v
        raise _fail(self.path(name), "true or false", v)

    def text(self, name: str) -> str:
        v = self._d[name]
        if type(v) is str:
            return v
        raise _fail(self.path(name), "a string", v)

    def enum(self, cls: type[_E], name: str) -> _E:
        v = self._d[name]
        member: _E | None = _ENUMS[cls].get(v) if isinstance(v, str) else None
        if member is None:
            raise _fail(self.path(name), f"a {cls.__name__}", v)
        return member

    def opt_enum(self, cls: type[_E], name: str) -> _E | None:
        return None if self._d[name] is None else self.enum(cls, name)

    def cards(self, name: str) -> tuple[Card, ...]:
        v = self._d[name]
        if type(v) is str and not len(v) % 2:
            chars = iter(v)
            try:
                return tuple(map(_CARD_BY_CODE.__getitem__, map(operator.add, chars, chars)))  # "5SJH" -> 5S, JH
            except KeyError:
                pass
        raise _fail(self.path(name), "two-letter card codes", v)

    def card(self, name: str) -> Card:
        v = self._d[name]
        card = _CARD_BY_CODE.get(v) if type(v) is str else None
        if card is None:
            raise _fail(self.path(name), "one card", v)
        return card

    def opt_card(self, name: str) -> Card | None:
        return None if self._d[name] is None else self.card(name)

    def _list(self, name: str) -> list[Any]:
        v = self._d[name]
        if type(v) is list:
            return v
        raise _fail(self.path(name), "an array", v)

    def ints(self, name: str) -> tuple[int, ...]:
        items = self._list(name)
        if all(type(v) is int for v in items):
            return tuple(items)
        raise _fail(self.path(name), "an array of integers", items)

    def pair(self, name: str) -> tuple[int, int] | None:
        v = self._d[name]
        if v is None:
            return None
        return _pair(v, self.path, name)

    def pairs(self, name: str) -> tuple[tuple[int, int], ...]:
        return tuple([_pair(v, self.path, name) for v in self._list(name)])

    def obj(self, name: str, names: frozenset[str], read: Callable[[_Obj], _T]) -> _T:
        return read(_Obj(self._d[name], self, name, names))

    def opt_obj(self, name: str, names: frozenset[str], read: Callable[[_Obj], _T]) -> _T | None:
        v = self._d[name]
        return None if v is None else read(_Obj(v, self, name, names))

    def objs(self, name: str, names: frozenset[str], read: Callable[[_Obj], _T]) -> tuple[_T, ...]:
        node = _Obj._item(self, name)
        return tuple([read(_Obj(v, node, i, names)) for i, v in enumerate(self._list(name))])

    def opt_objs(self, name: str, names: frozenset[str], read: Callable[[_Obj], _T]) -> tuple[_T | None, ...]:
        node = _Obj._item(self, name)
        return tuple([None if v is None else read(_Obj(v, node, i, names)) for i, v in enumerate(self._list(name))])

    @staticmethod
    def _item(parent: _Obj, name: str) -> _Obj:
        """A path node standing for the array ``parent.name`` (its elements hang under it by index)."""
        node = object.__new__(_Obj)
        node._parent = parent
        node._key = name
        node._d = {}
        return node

    def rules(self) -> Rules:
        key = tuple([(k, type(v), v) for k, v in self._d.items()])  # typed: 1 and true must not match
        try:
            cached = _RULES_SEEN.get(key)
        except TypeError:  # an unhashable value: reported below
            cached = None
        if cached is not None:
            return cached
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(Rules):
            default = f.default
            if isinstance(default, Enum):
                kwargs[f.name] = self._rules_enum(type(default), f.name)
            elif isinstance(default, bool):
                kwargs[f.name] = self.flag(f.name)
            elif isinstance(default, int):
                kwargs[f.name] = self.integer(f.name)
            elif isinstance(default, str):
                kwargs[f.name] = self.text(f.name)
            elif isinstance(default, tuple):
                kwargs[f.name] = self.cards(f.name)
            else:  # pragma: no cover - a new kind of rules field needs a reader here
                raise TypeError(f"Rules.{f.name}: no codec for {type(default).__name__}")
        try:
            rules = Rules(**kwargs)
        except RuleViolation as exc:
            raise StateFormatError(f"{self.path()}: invalid rules: {exc}") from None
        if len(_RULES_SEEN) >= 256:
            _RULES_SEEN.clear()
        _RULES_SEEN[key] = rules
        return rules

    def _rules_enum(self, cls: type[_E], name: str) -> _E:
        v = self._d[name]
        try:
            return cls(v)
        except ValueError:
            raise _fail(self.path(name), f"a {cls.__name__}", v) from None


def _pair(value: object, path: Callable[[str], str], name: str) -> tuple[int, int]:
    if type(value) is list and len(value) == 2 and type(value[0]) is int and type(value[1]) is int:
        return value[0], value[1]
    raise _fail(path(name), "a pair of integers", value)


# --------------------------------------------------------------------------------------------- the field codecs

# What the codec writes and reads, derived from each state class's own fields and their types: a
# field added to a dataclass is stored without touching this module (a type it does not know is a
# TypeError at import). The writer and reader of each class are generated once, as straight-line
# functions, so that they are as fast as hand-written ones.

_STATE_CLASSES: Final = (Seat, Meld, PlayerHand, Turn, ForceBack, HandState, TableState)
_NAMES_OF: Final = {cls.__name__: _names(cls) for cls in (*_STATE_CLASSES, Rules)}


def _field_codec(tp: object, v: str, n: str) -> tuple[str, str]:
    """(write expression of the value ``v``, read expression of the field ``n`` of ``o``) for a field of type ``tp``."""
    args = typing.get_args(tp)
    if typing.get_origin(tp) in (types.UnionType, typing.Union) and type(None) in args and len(args) == 2:
        inner = next(a for a in args if a is not type(None))
        if inner is int:
            return v, f"o.opt_int('{n}')"
        if inner is Card:
            return f"_w_card({v})", f"o.opt_card('{n}')"
        if isinstance(inner, type) and issubclass(inner, Enum):
            return f"_w_enum({v})", f"o.opt_enum({inner.__name__}, '{n}')"
        if inner == tuple[int, int]:
            return f"None if {v} is None else list({v})", f"o.pair('{n}')"
        if isinstance(inner, type) and inner.__name__ in _NAMES_OF:
            return (
                f"None if {v} is None else _w_{inner.__name__}({v})",
                f"o.opt_obj('{n}', N_{inner.__name__}, _r_{inner.__name__})",
            )
    elif tp is bool:
        return v, f"o.flag('{n}')"
    elif tp is int:
        return v, f"o.integer('{n}')"
    elif tp is Card:
        return f"_CODE_BY_CARD[{v}]", f"o.card('{n}')"
    elif tp is Rules:
        return f"_w_rules({v})", f"o.obj('{n}', N_Rules, _Obj.rules)"
    elif isinstance(tp, type) and issubclass(tp, Enum):
        return f"{v}.value", f"o.enum({tp.__name__}, '{n}')"
    elif typing.get_origin(tp) is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = args[0]
        if item is Card:
            return f"_w_cards({v})", f"o.cards('{n}')"
        if item is int:
            return f"list({v})", f"o.ints('{n}')"
        if item == tuple[int, int]:
            return f"[list(x) for x in {v}]", f"o.pairs('{n}')"
        if isinstance(item, type) and item.__name__ in _NAMES_OF:
            return f"[_w_{item.__name__}(x) for x in {v}]", f"o.objs('{n}', N_{item.__name__}, _r_{item.__name__})"
        item_args = typing.get_args(item)
        if len(item_args) == 2 and item_args[1] is type(None) and item_args[0].__name__ in _NAMES_OF:
            name = item_args[0].__name__
            return f"[None if x is None else _w_{name}(x) for x in {v}]", f"o.opt_objs('{n}', N_{name}, _r_{name})"
    raise TypeError(f"the state codec cannot store a field of type {tp}")  # pragma: no cover - a new kind of field


def _generate() -> dict[str, Any]:
    ns: dict[str, Any] = {
        **{f"N_{name}": names for name, names in _NAMES_OF.items()},
        **{cls.__name__: cls for cls in _ENUMS},
        "_CODE_BY_CARD": _CODE_BY_CARD,
        "_Obj": _Obj,
        "_w_card": _w_card,
        "_w_cards": _w_cards,
        "_w_enum": _w_enum,
        "_w_rules": _w_rules,
    }
    lines: list[str] = []
    for cls in _STATE_CLASSES:
        name = cls.__name__
        ns[f"new_{name}"] = _fast.builder(cls)
        hints = typing.get_type_hints(cls)
        codecs = [(f.name, *_field_codec(hints[f.name], f"obj.{f.name}", f.name)) for f in dataclasses.fields(cls)]
        lines.append(f"def _w_{name}(obj):")
        lines.append("    return {" + ", ".join(f"'{n}': {w}" for n, w, _r in codecs) + "}")
        lines.append(f"def _r_{name}(o):")
        lines.append(f"    return new_{name}(" + ", ".join(f"{n}={r}" for n, _w, r in codecs) + ")")
    exec("\n".join(lines), ns)  # noqa: S102 - generated from the dataclasses' own fields
    return ns


_GENERATED: Final = _generate()
_w_table: Final[Callable[[TableState], dict[str, object]]] = _GENERATED["_w_TableState"]
_r_table: Final[Callable[[_Obj], TableState]] = _GENERATED["_r_TableState"]
