"""Fast copies of the engine's frozen, slotted dataclasses (private).

The engine builds a new immutable state on every action; ``dataclasses.replace`` and the generated
frozen ``__init__`` (one ``object.__setattr__`` per field) are a large share of that cost. These
helpers generate, once per class, straight-line functions that set the slots through their
descriptors: the same result (equal, hashable objects), about 2.5x faster for ``replace``.

Only for dataclasses with ``slots=True`` and no ``__post_init__`` (the state classes, melds, turns).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")
_REPLACERS: dict[type, Callable[[Any, dict[str, Any]], Any]] = {}
_BUILDERS: dict[type, Callable[..., Any]] = {}
_POSITIONAL: dict[type, Callable[..., Any]] = {}


def _check(cls: type) -> list[str]:
    if getattr(cls, "__post_init__", None) is not None or not hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__}: fast copies need a slotted dataclass without __post_init__")
    return [f.name for f in dataclasses.fields(cls)]


def _make_replacer(cls: type) -> Callable[[Any, dict[str, Any]], Any]:
    names = _check(cls)
    ns: dict[str, Any] = {"onew": object.__new__, "cls": cls, "names": frozenset(names)}
    lines = [
        "def replace(obj, ch):",
        "    if not names.issuperset(ch):",
        "        raise TypeError(f'{cls.__name__} has no field {sorted(set(ch) - names)[0]}')",
        "    new = onew(cls)",
    ]
    for n in names:
        ns[f"S_{n}"] = getattr(cls, n).__set__
        lines.append(f"    S_{n}(new, ch['{n}'] if '{n}' in ch else obj.{n})")
    lines.append("    return new")
    exec("\n".join(lines), ns)  # noqa: S102 - generated from the dataclass's own field names
    fn: Callable[[Any, dict[str, Any]], Any] = ns["replace"]
    return fn


def _make_builder(cls: type) -> Callable[..., Any]:
    names = _check(cls)
    ns: dict[str, Any] = {"onew": object.__new__, "cls": cls}
    lines = [f"def build(*, {', '.join(names)}):", "    new = onew(cls)"]
    for n in names:
        ns[f"S_{n}"] = getattr(cls, n).__set__
        lines.append(f"    S_{n}(new, {n})")
    lines.append("    return new")
    exec("\n".join(lines), ns)  # noqa: S102 - generated from the dataclass's own field names
    fn: Callable[..., Any] = ns["build"]
    return fn


def _make_positional(cls: type) -> Callable[..., Any]:
    names = _check(cls)
    ns: dict[str, Any] = {"onew": object.__new__, "cls": cls}
    lines = [f"def build({', '.join(names)}, /):", "    new = onew(cls)"]
    for n in names:
        ns[f"S_{n}"] = getattr(cls, n).__set__
        lines.append(f"    S_{n}(new, {n})")
    lines.append("    return new")
    exec("\n".join(lines), ns)  # noqa: S102 - generated from the dataclass's own field names
    fn: Callable[..., Any] = ns["build"]
    return fn


def replace(obj: _T, /, **changes: Any) -> _T:
    """``dataclasses.replace(obj, **changes)`` without running ``__init__``.

    Raises:
        TypeError: for a field the class does not have.
    """
    cls = type(obj)
    fn = _REPLACERS.get(cls)
    if fn is None:
        fn = _REPLACERS[cls] = _make_replacer(cls)
    result: _T = fn(obj, changes)
    return result


def build(cls: type[_T], /, **fields: Any) -> _T:
    """``cls(**fields)`` with every field given, without running ``__init__``.

    Raises:
        TypeError: for a missing or unknown field.
    """
    fn = _BUILDERS.get(cls)
    if fn is None:
        fn = _BUILDERS[cls] = _make_builder(cls)
    result: _T = fn(**fields)
    return result


def builder(cls: type[_T], /) -> Callable[..., _T]:
    """The generated keyword-only constructor of ``cls`` (every field required), for hot paths."""
    fn = _BUILDERS.get(cls)
    if fn is None:
        fn = _BUILDERS[cls] = _make_builder(cls)
    return fn


def positional_builder(cls: type[_T], /) -> Callable[..., _T]:
    """A generated constructor of ``cls`` taking every field positionally, in field order.

    For the widest classes on the hottest paths: a call with 20 keyword arguments costs several
    times more than the same call with positional ones.
    """
    fn = _POSITIONAL.get(cls)
    if fn is None:
        fn = _POSITIONAL[cls] = _make_positional(cls)
    return fn


def working_copy(
    cls: type[_T], /, *, fixed: tuple[str, ...] = (), given: tuple[str, ...] = (), as_list: tuple[str, ...] = ()
) -> tuple[Callable[[Any, _T], None], Callable[..., _T]]:
    """Generated ``load(work, obj)`` and ``freeze(work, obj, *given)`` for a mutable working copy of ``cls``.

    ``load`` copies every field of ``obj`` onto the same-named attribute of ``work``, except the
    ``fixed`` and ``given`` fields (an ``as_list`` field becomes a list, to be changed in place).
    ``freeze`` builds the next ``cls`` from ``work``'s attributes (``as_list`` fields back as
    tuples), taking the ``fixed`` fields from ``obj`` and the ``given`` ones from its arguments, in
    field order. The field list is the dataclass's own: a field added to ``cls`` is copied without
    touching the working copy's code, and the generated functions are as fast as hand-written ones.

    Raises:
        TypeError: for a name that is not a field of ``cls``.
    """
    names = _check(cls)
    unknown = sorted({*fixed, *given, *as_list} - set(names))
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {unknown[0]}")
    ns: dict[str, Any] = {"build": positional_builder(cls)}
    load = ["def load(work, obj):", "    pass"]
    args: list[str] = []
    for n in names:
        if n in fixed:
            args.append(f"obj.{n}")
        elif n in given:
            args.append(n)
        elif n in as_list:
            load.append(f"    work.{n} = list(obj.{n})")
            args.append(f"tuple(work.{n})")
        else:
            load.append(f"    work.{n} = obj.{n}")
            args.append(f"work.{n}")
    given_names = [n for n in names if n in given]  # in field order
    freeze = [f"def freeze({', '.join(['work', 'obj', *given_names])}):", f"    return build({', '.join(args)})"]
    exec("\n".join(load) + "\n" + "\n".join(freeze), ns)  # noqa: S102 - generated from the dataclass's own field names
    return ns["load"], ns["freeze"]
