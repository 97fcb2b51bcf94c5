"""A request with an image as discord.py sends it, through aiohttp's multipart path and through the bot's one-piece
body (pancog/infra/multipart.py): the client's CPU per request.

    .venv/bin/python -m bench.multipart [--requests 3000] [--image-kb 15] [--rounds 2]

A local aiohttp server in a child process answers each PATCH as Discord answers a webhook edit (JSON); the client,
on uvloop as the bot is, sends the same form (``payload_json`` of 1.5 KB and one ``files[0]`` image) with
``aiohttp.ClientRequest`` and with ``LeanRequest`` in turn, ``--rounds`` times, and prints the CPU time of its own
process per request for each (``time.process_time``: user + system, so the socket writes are counted). The server's
CPU is not counted. Recorded in docs/performance.md ("discord.py's multipart requests in one piece").
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import multiprocessing
import multiprocessing.connection
import os
import statistics
import time
from collections.abc import Sequence

import aiohttp
from aiohttp import web

from pancog.infra.multipart import LeanRequest

VARIANTS: dict[str, type[aiohttp.ClientRequest]] = {"aiohttp FormData": aiohttp.ClientRequest, "one piece": LeanRequest}


def _serve(port_out: multiprocessing.connection.Connection) -> None:  # the child process
    async def answer(request: web.Request) -> web.Response:
        await request.read()
        return web.json_response({"id": "1", "attachments": [{"id": "2", "filename": "table.png"}]})

    async def main() -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", answer)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port_out.send(runner.addresses[0][1])
        await asyncio.Event().wait()

    asyncio.run(main())


def form(payload_json: str, image: bytes) -> aiohttp.FormData:
    """The form discord.py builds for an edit with one file (its webhook adapter's multipart)."""
    data = aiohttp.FormData(quote_fields=False)
    data.add_field(name="payload_json", value=payload_json)
    data.add_field(
        name="files[0]", value=io.BytesIO(image), filename="table.png", content_type="application/octet-stream"
    )
    return data


async def cpu_per_request(url: str, request_class: type[aiohttp.ClientRequest], count: int, image: bytes) -> float:
    """Microseconds of this process's CPU per request, after a warming tenth."""
    payload_json = json.dumps({"content": "x" * 1500, "attachments": [{"id": 0, "filename": "table.png"}]})
    async with aiohttp.ClientSession(request_class=request_class) as session:
        spent = 0.0
        for phase_count, counted in ((max(count // 10, 1), False), (count, True)):
            start = time.process_time()
            for _ in range(phase_count):
                async with session.patch(url, data=form(payload_json, image)) as response:
                    await response.read()
                    assert response.status == 200
            if counted:
                spent = time.process_time() - start
    return spent / count * 1e6


async def run(args: argparse.Namespace, port: int) -> dict[str, list[float]]:
    url = f"http://127.0.0.1:{port}/api/v10/webhooks/1/token/messages/2"
    image = os.urandom(args.image_kb * 1024)  # incompressible, as a PNG's bytes are
    results: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(args.rounds):
        for name, request_class in VARIANTS.items():
            results[name].append(await cpu_per_request(url, request_class, args.requests, image))
    return results


def main(argv: Sequence[str] | None = None) -> dict[str, list[float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--image-kb", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    here, there = multiprocessing.Pipe()
    server = multiprocessing.get_context("spawn").Process(target=_serve, args=(there,), daemon=True)
    server.start()
    try:
        port = here.recv()
        try:
            import uvloop

            results = uvloop.run(run(args, port))
        except ImportError:  # the bot's loop when it is installed (requirements.txt), else asyncio's
            results = asyncio.run(run(args, port))
    finally:
        server.terminate()
        server.join()
    for name, values in results.items():
        shown = ", ".join(f"{v:.0f}" for v in values)
        print(f"{name}: {statistics.median(values):.0f} µs of client CPU per request (runs: {shown})")
    base, lean = (statistics.median(v) for v in results.values())
    print(f"saved: {base - lean:.0f} µs per request ({(base - lean) / base:.0%})")
    return results


if __name__ == "__main__":
    main()
