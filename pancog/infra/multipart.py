"""discord.py's multipart requests (a message with images: a hand panel's answer, a board's edit) as one body.

discord.py sends every request that carries a file as an ``aiohttp.FormData`` of a ``payload_json`` text part and
``files[n]`` parts (``BytesIO`` with a content type), one new ``FormData`` for each attempt. aiohttp turns it into a
``MultipartWriter`` of payload objects (header objects, content-disposition quoting, one ``Payload`` per part) and
writes it to the socket part by part, a write for each header and body. Built here in one piece, the same request
with one 15 KB image costs the client about 60 µs of CPU less (~198 against ~258 µs: ``python -m bench.multipart``);
in the bot, with :mod:`pancog.adapter.gateway_events`, the main process −2.5 % per action, the bot −1.5 %
(docs/performance.md, "discord.py's multipart requests in one piece").

:class:`LeanRequest` is the session's request class (aiohttp's own ``request_class`` hook; discord.py makes its
session itself, so :func:`install` sets it on that session after login). For a multipart ``FormData`` of exactly
what discord.py sends — text parts and in-memory files with a content type, fields unquoted — it builds the same
multipart/form-data body as aiohttp (RFC 7578: a part's ``Content-Type`` and ``Content-Disposition``, a random
boundary) as one ``bytes``; anything else (a file on disk, quoted fields, a form aiohttp would url-encode) goes
through aiohttp's own path unchanged. The files' positions are not moved: discord.py rewinds them itself before a
retry. ``tests/infra/test_multipart.py`` checks the body against aiohttp's, part for part, and the end-to-end
tests send every image through it to the fake Discord, which parses it as Discord does.
"""

from __future__ import annotations

import io
import logging
import uuid
from typing import Any

import aiohttp
from aiohttp import hdrs, payload

__all__ = ["LeanRequest", "install", "lean_body"]

log = logging.getLogger(__name__)


def _quoted(value: str) -> str:
    """A Content-Disposition parameter as aiohttp writes it with ``quote_fields=False`` (RFC 7578 §4.2)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lean_body(form: aiohttp.FormData) -> payload.BytesPayload | None:
    """The form's multipart body in one piece, or None where aiohttp's own path must build it.

    Reads aiohttp's ``FormData`` fields (``(disposition parameters, headers, value)``, kept by aiohttp 3.x; the
    version is pinned in requirements.txt) without consuming them, so a None leaves the form as it was.
    """
    fields = getattr(form, "_fields", None)
    if not form.is_multipart or getattr(form, "_quote_fields", True) or getattr(form, "_charset", None):
        return None
    if not isinstance(fields, list) or not fields:
        return None
    boundary = uuid.uuid4().hex
    head = b"--" + boundary.encode("ascii") + b"\r\n"
    pieces: list[bytes | memoryview] = []
    for field in fields:
        try:
            params, headers, value = field
        except (TypeError, ValueError):
            return None
        if set(headers) - {hdrs.CONTENT_TYPE} or set(params) - {"name", "filename"}:
            return None
        content_type = headers.get(hdrs.CONTENT_TYPE)
        data: bytes | memoryview
        if isinstance(value, str):
            if content_type is not None:
                return None
            data = value.encode("utf-8")
            content_type = "text/plain; charset=utf-8"
        elif isinstance(value, io.BytesIO) and content_type is not None:
            data = value.getbuffer()[value.tell() :]
        elif isinstance(value, (bytes, bytearray)) and content_type is not None:
            data = bytes(value)
        else:
            return None
        disposition = "form-data; name=" + _quoted(params["name"])
        if "filename" in params:
            disposition += "; filename=" + _quoted(params["filename"])
        pieces.append(head)
        pieces.append(f"Content-Type: {content_type}\r\nContent-Disposition: {disposition}\r\n\r\n".encode())
        pieces.append(data)
        pieces.append(b"\r\n")
    pieces.append(b"--" + boundary.encode("ascii") + b"--\r\n")
    body = b"".join(pieces)
    return payload.BytesPayload(body, content_type=f"multipart/form-data; boundary={boundary}")


class LeanRequest(aiohttp.ClientRequest):
    """aiohttp's request, with discord.py's multipart forms built by :func:`lean_body`."""

    def update_body_from_data(self, body: Any, _stacklevel: int = 3) -> None:
        if isinstance(body, aiohttp.FormData):
            try:
                lean = lean_body(body)
            except Exception:  # a form of a shape this aiohttp's FormData did not have before: aiohttp builds it
                log.debug("multipart form left to aiohttp", exc_info=True)
                lean = None
            if lean is not None:
                body = lean
        super().update_body_from_data(body, _stacklevel=_stacklevel + 1)


def install(session: aiohttp.ClientSession | None) -> bool:
    """Make ``session`` (discord.py's, after login) build its requests with :class:`LeanRequest`; True if it does.

    A session without aiohttp's request-class attribute (another aiohttp) is left as it is: the bot then pays
    aiohttp's own multipart path, nothing else changes."""
    if session is None or not hasattr(session, "_request_class"):
        log.warning("discord.py's HTTP session has no request class to set: multipart requests go through aiohttp")
        return False
    if session._request_class not in (aiohttp.ClientRequest, LeanRequest):  # someone else's class: keep it
        return False
    session._request_class = LeanRequest
    return True
