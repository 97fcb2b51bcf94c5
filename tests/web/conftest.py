"""Fixtures of the web tests: a seeded guild in a SQLite file, pan-web serving it read-only on 127.0.0.1, and a
headless Chromium (Debian's ``chromium`` and ``chromedriver``, driven by Selenium) whose screenshots are kept in
``test-artifacts/web/`` (gitignored) for review."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from pancog.infra.storage import SqliteStorage
from pancog.web.app import make_app
from pancog.web.reader import WebReader
from tests.web.seed import Seeded, seed

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# The switches every launch uses: no sandbox (root in CI), no GPU, nothing that reaches the network by itself.
CHROMIUM_SWITCHES = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1000,1400",
)


class Site:
    """The seeded guild served by pan-web: its base address and the seed's facts."""

    def __init__(self, origin: str, seeded: Seeded, writer: SqliteStorage, path: Path) -> None:
        self.origin = origin
        self.seeded = seeded
        self.writer = writer  # the bot's side (read-write), for tests that change something while pan-web runs
        self.path = path

    def url(self, tail: str = "", *, token: str | None = None) -> str:
        return f"{self.origin}/g/{token or self.seeded.token}/{tail}"


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[Site]:
    path = tmp_path / "pan.sqlite3"
    async with SqliteStorage(path, synchronous="OFF") as writer:
        seeded = await seed(writer)
        async with SqliteStorage(path, read_only=True) as reader:
            app = make_app(WebReader(reader), cache_seconds=5.0, public_url=None)
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            server = web.TCPSite(runner, "127.0.0.1", 0)
            await server.start()
            port = runner.addresses[0][1]
            try:
                yield Site(f"http://127.0.0.1:{port}", seeded, writer, path)
            finally:
                await runner.cleanup()


class Browser:
    """A Selenium-driven headless Chromium; every call runs in a thread (the server shares the test's loop)."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver

    async def run(self, call: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.to_thread(call, *args)

    async def open(self, url: str) -> None:
        await self.run(self.driver.get, url)

    async def text(self, css: str) -> str:
        from selenium.webdriver.common.by import By

        return str(await self.run(lambda: self.driver.find_element(By.CSS_SELECTOR, css).text))

    async def all_text(self, css: str) -> list[str]:
        from selenium.webdriver.common.by import By

        return [str(e.text) for e in await self.run(lambda: self.driver.find_elements(By.CSS_SELECTOR, css))]

    async def click(self, css: str) -> None:
        from selenium.webdriver.common.by import By

        await self.run(lambda: self.driver.find_element(By.CSS_SELECTOR, css).click())

    async def js(self, script: str) -> Any:
        return await self.run(self.driver.execute_script, script)

    async def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        target = ARTIFACTS / f"{name}.png"
        await self.run(self.driver.save_screenshot, str(target))
        print(f"screenshot: {target}")
        return target


def chromium_missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            return f"{path} is missing: scripts/test installs Debian's chromium and chromium-driver (as root)"
    return None


@pytest.fixture
def browser() -> Iterator[Browser]:
    missing = chromium_missing()
    if missing is not None:
        pytest.fail(missing, pytrace=False)  # never skipped: CI installs it
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="pan-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for switch in (*CHROMIUM_SWITCHES, f"--user-data-dir={profile}"):
        options.add_argument(switch)
    # the driver's path is given, so Selenium Manager never runs (it would try to download a driver)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield Browser(driver)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
