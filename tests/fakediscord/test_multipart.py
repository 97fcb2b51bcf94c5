"""The fake Discord's multipart reader (tests/fakediscord/server.py): what discord.py sends parses, byte for byte;
a body Discord could not read is refused with 400, never half-read."""

from __future__ import annotations

import json

import aiohttp
import pytest

from .server import BadBody, parse_multipart


async def _encoded(form: aiohttp.FormData) -> tuple[bytes, str]:
    """The bytes and Content-Type aiohttp (discord.py's HTTP client) puts on the wire for ``form``."""
    writer = form()

    class Sink:
        def __init__(self) -> None:
            self.data = bytearray()

        async def write(self, chunk: bytes) -> None:
            self.data += chunk

    sink = Sink()
    await writer.write(sink)
    return bytes(sink.data), writer.content_type


async def test_a_discord_py_style_upload_parses_byte_for_byte() -> None:
    png = bytes(range(256)) * 300 + b"\r\n--not-the-boundary\r\n"  # binary, with CRLFs and dashes inside
    form = aiohttp.FormData(quote_fields=False)
    form.add_field("payload_json", json.dumps({"content": "hi", "attachments": [{"id": 0}]}))
    form.add_field("files[0]", png, filename="hand.png", content_type="image/png")
    form.add_field("files[1]", b"", filename="empty.png", content_type="image/png")
    body, content_type = await _encoded(form)
    parts = parse_multipart(body, content_type)
    assert [p["name"] for p, _ in parts] == ["payload_json", "files[0]", "files[1]"]
    assert json.loads(parts[0][1]) == {"content": "hi", "attachments": [{"id": 0}]}
    assert parts[1] == ({"name": "files[0]", "filename": "hand.png"}, png)
    assert parts[2] == ({"name": "files[1]", "filename": "empty.png"}, b"")


PART = b'Content-Disposition: form-data; name="a"\r\n\r\nx'
MP = "multipart/form-data; boundary=b"


@pytest.mark.parametrize(
    ("body", "content_type", "why"),
    [
        (b"--b\r\n" + PART + b"\r\n--b--\r\n", "multipart/form-data", "boundary"),
        (b"junk--b\r\n" + PART + b"\r\n--b--\r\n", MP, "start"),
        (b"--b\r\n" + PART, MP, "closing"),
        (b'--b\r\nContent-Disposition: form-data; name="a"\r\nx\r\n--b--\r\n', MP, "blank line"),
        (b"--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n", MP, "name"),
        (b'--b\r\nContent-Disposition: attachment; name="a"\r\n\r\nx\r\n--b--\r\n', MP, "name"),
        (b"--b\r\n" + PART + b"\r\n--bX" + PART + b"\r\n--b--\r\n", MP, "line break"),
    ],
)
def test_a_body_discord_could_not_read_is_refused(body: bytes, content_type: str, why: str) -> None:
    with pytest.raises(BadBody, match=why):
        parse_multipart(body, content_type)


def test_a_quoted_boundary_and_two_parts() -> None:
    body = (
        b'--"x"\r\n'.replace(b'"', b"")
        + b'Content-Disposition: form-data; name="payload_json"\r\nContent-Type: application/json\r\n\r\n{}\r\n'
        + b'--x\r\ncontent-disposition: form-data; name="files[0]"; filename="a b.png"\r\n\r\nPNG\r\n--x--\r\n'
    )
    parts = parse_multipart(body, 'multipart/form-data; boundary="x"')
    assert parts == [({"name": "payload_json"}, b"{}"), ({"name": "files[0]", "filename": "a b.png"}, b"PNG")]
