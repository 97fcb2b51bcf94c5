"""discord.py's multipart requests built in one piece (pancog/infra/multipart.py): the same parts as aiohttp's own
body, read back by the standard library's MIME parser from what a real aiohttp server received; anything the lean
path does not know goes through aiohttp unchanged; a file's position is left where discord.py put it."""

from __future__ import annotations

import email.parser
import email.policy
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from pancog.infra.multipart import LeanRequest, install, lean_body

PNG = bytes(range(256)) * 60 + b"\r\n--not-a-boundary\r\n"  # binary, with CR LF and dashes inside


def discord_form(payload: dict[str, object], files: list[tuple[str, io.IOBase]]) -> aiohttp.FormData:
    """A form as discord.py builds one (``discord.http.handle_message_parameters`` and the webhook adapter)."""
    form = aiohttp.FormData(quote_fields=False)
    form.add_field(name="payload_json", value=json.dumps(payload))
    for index, (filename, fp) in enumerate(files):
        form.add_field(name=f"files[{index}]", value=fp, filename=filename, content_type="application/octet-stream")
    return form


Received = list[tuple[str, bytes]]


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, Received]]:
    received: Received = []

    async def keep(request: web.Request) -> web.Response:
        received.append((request.headers["Content-Type"], await request.read()))
        return web.json_response({"id": "1"})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", keep)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/api/v10/webhooks/1/token", received
    finally:
        await runner.cleanup()


def parts(content_type: str, body: bytes) -> list[tuple[str | None, dict[str, str], str | None, bytes]]:
    """(Content-Type, Content-Disposition parameters, the part's content type header, data) of each part, read by
    the standard library's MIME parser (neither aiohttp's nor ours)."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
    )
    assert message.is_multipart()
    out = []
    for part in message.iter_parts():
        disposition = part.get("Content-Disposition")
        params = dict(disposition.params) if disposition is not None else {}
        payload = part.get_payload(decode=True)
        assert isinstance(payload, bytes)
        out.append((part.get_content_type(), params, part.get("Content-Type"), payload))
    return out


async def send(url: str, form: aiohttp.FormData, request_class: type[aiohttp.ClientRequest]) -> None:
    async with aiohttp.ClientSession(request_class=request_class) as session, session.patch(url, data=form) as answer:
        assert answer.status == 200


async def test_the_lean_body_has_aiohttps_parts(server: tuple[str, Received]) -> None:
    url, received = server
    payload = {"content": 'Ana drew \u2660 and "knocked"', "attachments": [{"id": 0}, {"id": 1}]}
    names = ['hand "Ana".png', "board\\ñ.png"]  # a quote, a backslash, a letter beyond ASCII
    await send(url, discord_form(payload, [(n, io.BytesIO(PNG)) for n in names]), aiohttp.ClientRequest)
    assert lean_body(discord_form(payload, [(n, io.BytesIO(PNG)) for n in names])) is not None  # the lean path
    await send(url, discord_form(payload, [(n, io.BytesIO(PNG)) for n in names]), LeanRequest)
    (theirs_type, theirs), (ours_type, ours) = received
    assert ours_type.startswith("multipart/form-data; boundary=")
    assert ours != theirs  # a body of its own (another boundary), not aiohttp's passed through
    assert parts(ours_type, ours) == parts(theirs_type, theirs)
    got = parts(ours_type, ours)
    assert [p[1] for p in got] == [
        {"name": "payload_json"},
        {"name": "files[0]", "filename": names[0]},
        {"name": "files[1]", "filename": names[1]},
    ]
    assert json.loads(got[0][3]) == payload and got[1][3] == PNG and got[2][3] == PNG
    assert [p[0] for p in got] == ["text/plain", "application/octet-stream", "application/octet-stream"]
    assert ours.count(b"\r\nContent-Type: text/plain; charset=utf-8\r\n") == 1  # as aiohttp writes it


async def test_a_file_is_sent_from_its_position_and_left_there(server: tuple[str, Received]) -> None:
    url, received = server
    fp = io.BytesIO(b"skip" + PNG)
    fp.seek(4)  # discord.File remembers where its data starts
    await send(url, discord_form({"content": "x"}, [("hand.png", fp)]), LeanRequest)
    assert fp.tell() == 4  # discord.py rewinds a file before a retry; the lean body does not move it at all
    content_type, body = received[0]
    assert parts(content_type, body)[1][3] == PNG


async def test_what_it_does_not_know_goes_through_aiohttp(server: tuple[str, Received], tmp_path: Path) -> None:
    url, received = server
    on_disk = tmp_path / "hand.png"
    on_disk.write_bytes(PNG)
    quoted = aiohttp.FormData(quote_fields=True)
    quoted.add_field("payload_json", "{}")
    quoted.add_field("files[0]", io.BytesIO(PNG), filename="hand.png", content_type="image/png")
    plain = aiohttp.FormData({"a": "1", "b": "two"})  # url-encoded, not multipart
    with on_disk.open("rb") as fp:
        from_disk = discord_form({"content": "x"}, [("hand.png", fp)])
        untyped = aiohttp.FormData(quote_fields=False)
        untyped.add_field("files[0]", io.BytesIO(PNG), filename="hand.png")  # aiohttp guesses the type
        for form in (quoted, plain, from_disk, untyped):
            assert lean_body(form) is None
        for form in (quoted, plain, from_disk, untyped):
            await send(url, form, LeanRequest)  # the form as it was: aiohttp builds it
    assert received[1] == ("application/x-www-form-urlencoded", b"a=1&b=two")
    for index in (0, 2, 3):
        content_type, body = received[index]
        assert parts(content_type, body)[-1][3] == PNG


async def test_install_sets_the_sessions_request_class_and_keeps_anyone_elses() -> None:
    class Theirs(aiohttp.ClientRequest):
        pass

    async with aiohttp.ClientSession() as session, aiohttp.ClientSession(request_class=Theirs) as other:
        assert install(session) is True
        assert session._request_class is LeanRequest
        assert install(other) is False
        assert other._request_class is Theirs
    assert install(None) is False


async def test_a_form_it_cannot_read_is_left_to_aiohttp(server: tuple[str, Received]) -> None:
    url, received = server
    form = discord_form({"content": "x"}, [("hand.png", io.BytesIO(PNG))])
    form._fields[1][0].popall("name")  # a field without a name: not a shape discord.py sends
    with pytest.raises(KeyError):
        lean_body(form)
    await send(url, form, LeanRequest)  # still sent, by aiohttp's own writer
    content_type, body = received[0]
    assert parts(content_type, body)[1][1] == {"filename": "hand.png"} and parts(content_type, body)[1][3] == PNG
