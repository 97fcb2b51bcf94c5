"""Structured logging: every log line carries the guild, table, hand and seat it is about.

The context lives in :mod:`contextvars`, so it follows the asyncio task that set it (an interaction handler,
a clock expiry) and never leaks into another task::

    with logs.context(guild=g, table=t, hand=3, seat=1):
        log.info("timeout applied")      # ... guild=G table=T hand=3 seat=1

:func:`install` adds a :class:`ContextFilter` to the root handlers (it puts ``pan_guild``, ``pan_table``,
``pan_hand``, ``pan_seat`` and ``pan_ctx`` on every record) and wraps their formatters so the text ends with
``[guild=.. table=.. hand=.. seat=..]``; ``install(json_lines=True)`` switches to one JSON object per line.
:class:`TableLogger` is a ``LoggerAdapter`` for code that knows its table but runs outside such a context.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

__all__ = [
    "FIELDS",
    "ContextFilter",
    "ContextFormatter",
    "TableLogger",
    "bind",
    "context",
    "current",
    "install",
    "install_record_factory",
]

FIELDS = ("guild", "table", "hand", "seat")

_vars: dict[str, contextvars.ContextVar[int | None]] = {
    name: contextvars.ContextVar(f"pan_log_{name}", default=None) for name in FIELDS
}


def current() -> dict[str, int]:
    """The context fields set in this task (only those that are set)."""
    out: dict[str, int] = {}
    for name, var in _vars.items():
        value = var.get()
        if value is not None:
            out[name] = value
    return out


def bind(**fields: int | None) -> None:
    """Set context fields for the rest of the current task (None leaves a field unchanged)."""
    for name, value in fields.items():
        if name not in _vars:
            raise TypeError(f"unknown log field {name!r}")
        if value is not None:
            _vars[name].set(value)


@contextlib.contextmanager
def context(**fields: int | None) -> Iterator[None]:
    """Set context fields inside the ``with`` block and restore them afterwards."""
    tokens: list[tuple[contextvars.ContextVar[int | None], contextvars.Token[int | None]]] = []
    for name, value in fields.items():
        if name not in _vars:
            raise TypeError(f"unknown log field {name!r}")
        if value is not None:
            tokens.append((_vars[name], _vars[name].set(value)))
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def _text(fields: Mapping[str, object]) -> str:
    return " ".join(f"{k}={v}" for k, v in fields.items())


class ContextFilter(logging.Filter):
    """Adds ``pan_<field>`` attributes and ``pan_ctx`` (``"guild=1 table=2"``) to every record.

    The fields are those captured when the record was created (see :func:`install_record_factory`), else the
    current context, overridden by a :class:`TableLogger`'s own fields.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        captured = getattr(record, "pan_context", None)
        fields = dict(captured) if isinstance(captured, dict) else current()
        extra = getattr(record, "pan_fields", None)  # from TableLogger
        if isinstance(extra, dict):
            fields.update({k: v for k, v in extra.items() if v is not None})
        for name in FIELDS:
            setattr(record, f"pan_{name}", fields.get(name))
        record.pan_ctx = _text({k: fields[k] for k in FIELDS if k in fields})
        return True


_factory_installed = False


def install_record_factory() -> None:
    """Capture the context on every record as it is created (so any handler, even a late one, sees it)."""
    global _factory_installed
    if _factory_installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        record.pan_context = current()
        return record

    logging.setLogRecordFactory(factory)
    _factory_installed = True


class ContextFormatter(logging.Formatter):
    """Wraps another formatter: appends `` [guild=.. table=..]`` or emits one JSON object per line."""

    def __init__(self, inner: logging.Formatter | None = None, *, json_lines: bool = False) -> None:
        super().__init__()
        self.inner = inner or logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s")
        self.json_lines = json_lines

    def format(self, record: logging.LogRecord) -> str:
        ContextFilter().filter(record)
        if self.json_lines:
            payload: dict[str, Any] = {
                "ts": round(record.created, 3),
                "level": record.levelname,
                "logger": record.name,
                "msg": record.getMessage(),
            }
            for name in FIELDS:
                value = getattr(record, f"pan_{name}", None)
                if value is not None:
                    payload[name] = value
            if record.exc_info:
                payload["exc"] = self.formatException(record.exc_info)
            return json.dumps(payload, default=str)
        text = self.inner.format(record)
        ctx = str(getattr(record, "pan_ctx", ""))
        if not ctx:
            return text
        first, sep, rest = text.partition("\n")
        return f"{first} [{ctx}]{sep}{rest}"


def install(*, json_lines: bool = False, logger: logging.Logger | None = None) -> int:
    """Put the context filter and formatter on ``logger``'s handlers (default: root); returns how many.

    Idempotent: handlers already wrapped are left alone.
    """
    install_record_factory()
    target = logger or logging.getLogger()
    count = 0
    for handler in target.handlers:
        if not any(isinstance(f, ContextFilter) for f in handler.filters):
            handler.addFilter(ContextFilter())
        if not isinstance(handler.formatter, ContextFormatter):
            handler.setFormatter(ContextFormatter(handler.formatter, json_lines=json_lines))
            count += 1
    return count


class TableLogger(logging.LoggerAdapter[logging.Logger]):
    """A logger bound to one table (and optionally a guild, hand, seat), whatever the task context."""

    def __init__(self, logger: logging.Logger, **fields: int | None) -> None:
        super().__init__(logger, {"pan_fields": {k: v for k, v in fields.items() if v is not None}})

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, MutableMapping[str, Any]]:
        extra = dict(kwargs.get("extra") or {})
        merged = dict(current())
        base = self.extra.get("pan_fields", {}) if self.extra else {}
        if isinstance(base, dict):
            merged.update(base)
        extra["pan_fields"] = merged
        kwargs["extra"] = extra
        return msg, kwargs
