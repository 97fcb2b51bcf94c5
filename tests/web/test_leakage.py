"""Nothing pan-web serves gives away a hand in progress: with a hand being played at one of the guild's tables (and a
share of it planted), every page, image and JSON answer reachable from the guild's address — and every address of
the live hand itself — is checked against the oracle's knowledge (the deal's seed, every dealt hand, the table)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urljoin, urlparse

import aiohttp
import pytest

from pancog.web import app as web_app
from tests.web.conftest import Site
from tests.web.seed import LiveHand

LINK = re.compile(r'(?:href|src|content)="([^"]+)"')


def secrets_of(live: LiveHand) -> list[str]:
    """What must never appear: the seed, each dealt hand (as notation and as shown on a board), the live table."""
    found = [str(live.seed), f"hand/{live.table_id}/"]
    for cards in live.dealt.values():
        found.append(" ".join(str(c) for c in cards))
        found.append(" ".join(c.pretty for c in cards))
    return found


def leaks(body: bytes, secrets: Iterable[str]) -> list[str]:
    text = body.decode("utf-8", errors="replace")
    return [s for s in secrets if s in text]


async def crawl(site: Site) -> dict[str, tuple[int, bytes]]:
    """Every address reachable from the guild's home page (links, images, previews), fetched once."""
    start = site.url()
    seen: dict[str, tuple[int, bytes]] = {}
    queue = [start]
    prefix = urlparse(start).path
    async with aiohttp.ClientSession() as client:
        while queue:
            url = queue.pop()
            if url in seen:
                continue
            async with client.get(url) as response:
                body = await response.read()
                seen[url] = (response.status, body)
                if response.content_type != "text/html":
                    continue
            for link in LINK.findall(body.decode()):
                target = urljoin(site.origin + "/", link.replace("&amp;", "&"))
                if urlparse(target).path.startswith(prefix) and target not in seen:
                    queue.append(target.replace(urlparse(target).netloc, urlparse(site.origin).netloc))
    return seen


def live_addresses(site: Site) -> list[str]:
    live = site.seeded.live
    base = f"hand/{live.table_id}/{live.hand_no}"
    return [site.url(t) for t in (base, f"{base}.json", f"{base}/end.png", f"{base}/step/1.png", f"{base}?step=1")]


async def test_no_page_or_export_reveals_the_hand_in_progress(site: Site) -> None:
    live = site.seeded.live
    assert live.dealt and live.seed > 10**6  # the oracle knows the hand (a seed long enough to search for)
    secrets = secrets_of(live)
    pages = await crawl(site)
    kinds = {urlparse(u).path.rsplit(".", 1)[-1] if "." in urlparse(u).path else "html" for u in pages}
    assert {"html", "png", "json"} <= kinds and len(pages) >= 60  # pages, images and the export were all fetched
    for url, (status, body) in pages.items():
        assert status == 200, url
        assert not leaks(body, secrets), f"{url} gives away the hand in progress: {leaks(body, secrets)}"
    async with aiohttp.ClientSession() as client:
        for url in live_addresses(site):
            async with client.get(url) as response:
                assert response.status == 404, url
                assert not leaks(await response.read(), secrets)


async def test_the_check_finds_a_planted_leak(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """A page that shows a dealt hand of the live deal (planted in the home page's template values) is caught."""
    live = site.seeded.live
    cards = next(iter(live.dealt.values()))
    original = web_app.Pages.html

    def leaky(self: web_app.Pages, request: object, template: str, **values: object) -> web_app.Built:
        built = original(self, request, template, **values)  # type: ignore[arg-type]
        if template == "home.html":
            planted = " ".join(str(c) for c in cards).encode()
            return web_app.Built(built.body + planted, built.content_type)
        return built

    monkeypatch.setattr(web_app.Pages, "html", leaky)
    pages = await crawl(site)
    caught = [url for url, (_, body) in pages.items() if leaks(body, secrets_of(live))]
    assert caught == [site.url()]
