"""pan-web's pages as a person sees them, in headless Chromium: the season leaderboard after a seeded season, a
player's chart and history, a tournament's lobby, a shared hand stepped through by clicking, and the 404s.
Screenshots of each page go to test-artifacts/web/."""

from __future__ import annotations

import aiohttp

from pancog.services.league import LeagueService
from pancog.services.ledger import ChipLedger
from pancog.services.web_access import WebAccess
from pancog.web.app import NOT_FOUND_BODY
from tests.web.conftest import Browser, Site
from tests.web.seed import GUILD, HOSTILE, NAMES

SHOWN_HOSTILE = HOSTILE[:30]  # names are capped (with an ellipsis) before they are shown


async def test_the_leaderboard_after_a_seeded_season(site: Site, browser: Browser) -> None:
    """The standings table lists the season's players in the league's order, with their net chips; a hostile name is
    shown as the text it is (no script runs, no element is injected)."""
    league = LeagueService(site.writer, ChipLedger(site.writer))
    info = await league.season_info(GUILD)
    await browser.open(site.url())
    assert await browser.text("#title") == "Winter league"
    rows = await browser.all_text("#standings tbody tr")
    assert len(rows) == len(info.standings) == 4
    for row, standing in zip(rows, info.standings, strict=True):
        cells = row.split(" ")
        assert cells[0] == str(standing.place) and f"{standing.net:+,}" in row
        assert row.split(" ", 1)[1].startswith(NAMES[standing.user_id][:4])
    assert any(SHOWN_HOSTILE in row for row in rows)
    assert await browser.js("return document.querySelectorAll('main script, img[src=\"x\"]').length") == 0
    assert await browser.js("return document.title") == "Winter league — standings"
    assert await browser.all_text("#seasons li") == ["Season 1: Autumn"]
    await browser.screenshot("leaderboard")
    await browser.click("#seasons a")
    assert await browser.text("#title") == "Autumn" and "No hands played" in await browser.text("main")
    await browser.screenshot("season-archived")


async def test_a_players_chart_history_and_head_to_head(site: Site, browser: Browser) -> None:
    league = LeagueService(site.writer, ChipLedger(site.writer))
    history = await league.rating_history(GUILD, 101)
    await browser.open(site.url("player/101"))
    assert await browser.text("#title") == "Rosa"
    loaded = await browser.js("const i = document.getElementById('chart'); return [i.complete, i.naturalWidth, i.alt];")
    assert loaded[0] is True and loaded[1] == 720 and "All time: " in loaded[2]
    assert f"after {len(history.all_time)} rated result" in loaded[2]
    rows = await browser.all_text("#history tbody tr")
    assert len(rows) == min(20, len(history.all_time)) > 0
    first = history.recent[0]
    assert f"{first.change / 1000:+.1f} → {first.score / 1000:.1f}" in rows[0]
    versus = await browser.all_text("#versus tbody tr")
    together = await league.versus(GUILD, 101, 103)
    line = next(v for v in versus if v.startswith("Big Eddie"))
    assert f"{together.hands}" in line and f"{together.wins} – {together.other_wins}" in line
    await browser.screenshot("player")


async def test_a_tournament_lobby(site: Site, browser: Browser) -> None:
    await browser.open(site.url(f"tournament/{site.seeded.tournament}"))
    assert await browser.text("#title") == "Friday <b>Night</b> Pan"  # escaped: the markup is text
    assert await browser.text("#status") == "Registration open"
    registered = await browser.all_text("#entries tbody tr")
    assert registered[0] == "Rosa" and registered[1].startswith(SHOWN_HOSTILE[:10]) and len(registered) == 2
    await browser.screenshot("tournament-lobby")


async def test_a_shared_hand_stepped_through_by_clicking(site: Site, browser: Browser) -> None:
    """Next ▶ walks every step with its board image; the end shows each player's chips, which are the league's
    (the digest the settlement recorded, from the same engine events as the ledger's postings)."""
    table, hand = site.seeded.shared
    await browser.open(site.url(f"hand/{table}/{hand}"))
    step = await browser.text("#step")
    total = int(step.split(" of ")[1].split(":")[0])
    assert step.startswith("Step 1 of") and total > 3
    seen = 1
    while await browser.js("return document.getElementById('next') !== null"):
        await browser.click("#next")
        seen += 1
        assert (await browser.text("#step")).startswith(f"Step {seen} of {total}")
        image = await browser.js("const i = document.getElementById('board'); return [i.complete, i.naturalWidth];")
        assert image[0] is True and image[1] > 300
        if seen == 3:
            await browser.screenshot("hand-step-3")
    assert seen == total
    results = await browser.all_text("#result tr")
    league = LeagueService(site.writer, ChipLedger(site.writer))
    nets = {}
    for user in NAMES:
        for row in await league.history(GUILD, user, limit=100):
            if row.result_key == f"hand:{table}:{hand}":
                nets[user] = row.net
    assert len(results) == len(nets) >= 2
    for user, net in nets.items():
        assert any(r.startswith(NAMES[user][:4]) and r.endswith(f"{net:+,}") for r in results), (user, results)
    await browser.screenshot("hand-end")
    await browser.click("#prev")
    assert (await browser.text("#step")).startswith(f"Step {total - 1} of")
    await browser.click("#first")
    assert (await browser.text("#step")).startswith("Step 1 of")


async def test_the_404s_are_plain_and_the_revoked_address_closes_at_once(site: Site, browser: Browser) -> None:
    table, hand = site.seeded.shared
    live = site.seeded.live
    bad = [
        site.origin + "/",
        site.origin + "/g/",
        site.url("nothing-here"),
        site.url("", token="x" * 31),  # malformed token
        site.url("", token="A" * 32),  # well-formed, nobody's
        site.url("player/12ab"),  # malformed id
        site.url("player/99999999999999999999"),  # too big
        site.url("player/555"),  # nobody
        site.url("season/9"),
        site.url("tournament/1"),
        site.url(f"hand/{table}/{hand}?step=0"),
        site.url(f"hand/{table}/{hand}?step=9999"),
        site.url(f"hand/{table}/{hand}/step/0.png"),
        site.url(f"hand/{site.seeded.unshared[0]}/{site.seeded.unshared[1]}"),  # finished, nobody shared it
        site.url(f"hand/{live.table_id}/{live.hand_no}"),  # shared while unfinished: never served
        site.url(f"hand/{live.table_id}/{live.hand_no}.json"),
        site.url(f"hand/{table}/{hand}", token=site.seeded.other_token),  # another guild's address
    ]
    async with aiohttp.ClientSession() as client:
        for url in bad:
            async with client.get(url) as response:
                assert response.status == 404, url
                assert await response.text() == NOT_FOUND_BODY, url
        async with client.post(site.url()) as response:
            assert response.status == 404
        async with client.get(site.url()) as response:  # the page is served, and cached
            assert response.status == 200
        old = site.seeded.token
        fresh = await WebAccess(site.writer).rotate(GUILD, 1)
        async with client.get(site.url()) as response:  # the cached page is not served for a revoked token
            assert response.status == 404
        async with client.get(site.url(token=fresh)) as response:
            assert response.status == 200 and old not in await response.text()
        await WebAccess(site.writer).turn_off(GUILD)
        async with client.get(site.url(token=fresh)) as response:
            assert response.status == 404
    await browser.open(bad[2])
    assert await browser.text("body") == "Not found."
    await browser.screenshot("not-found")


async def test_a_running_tournament_and_its_results(site: Site, browser: Browser) -> None:
    """Live standings: alive players by the chips the ledger holds on their table; then the results by place."""
    from pancog.infra.storage.base import Account, Posting
    from pancog.services.ledger import post_transaction
    from pancog.services.tournaments.model import Entry, EntryStatus, Status, TournamentConfig, TTable
    from pancog.services.tournaments.repository import TournamentRepository
    from pancog.services.tournaments.service import Tournament

    repo = TournamentRepository()
    t = Tournament(
        tournament_id=90_002,
        guild_id=GUILD,
        channel_id=1,
        host_id=101,
        config=TournamentConfig(title="Sunday cup"),
        status=Status.RUNNING,
        created_ms=1,
        seed=7,
    )
    entries = [
        Entry(entry_id=1, player_id=101, entry_no=1, status=EntryStatus.ALIVE, created_ms=1, table_no=1),
        Entry(entry_id=2, player_id=103, entry_no=1, status=EntryStatus.ALIVE, created_ms=1, table_no=1),
        Entry(entry_id=3, player_id=104, entry_no=1, status=EntryStatus.OUT, created_ms=1, place=3),
    ]
    table = 95_000
    async with site.writer.transaction() as tx:
        await repo.put_tournament(tx, t)
        for e in entries:
            await repo.put_entry(tx, t.tournament_id, e)
        await repo.put_table(tx, t.tournament_id, TTable(table_no=1, table_id=table))
        await post_transaction(  # the stacks at the tournament's table, as the ledger holds them
            tx,
            [
                Posting(Account.issued(GUILD), -3000),
                Posting(Account.stack(table, 101), 1200),
                Posting(Account.stack(table, 103), 1800),
            ],
            key="test:tournament-stacks",
            reason="test",
            actor="system",
            now=1.0,
        )
    await browser.open(site.url(f"tournament/{t.tournament_id}"))
    rows = await browser.all_text("#entries tbody tr")
    assert await browser.text("#status") == "Running"
    assert rows[0].startswith("Big Eddie 1 1,800") and rows[1].startswith("Rosa 1 1,200") and rows[2] == "Lupe 3"
    await browser.screenshot("tournament-running")
    t.status = Status.FINISHED
    done = [
        Entry(entry_id=1, player_id=101, entry_no=1, status=EntryStatus.OUT, created_ms=1, place=2, prize=900),
        Entry(entry_id=2, player_id=103, entry_no=1, status=EntryStatus.OUT, created_ms=1, place=1, prize=2100),
    ]
    async with site.writer.transaction() as tx:
        await repo.put_tournament(tx, t)
        for e in done:
            await repo.put_entry(tx, t.tournament_id, e)
    await browser.open(site.url(f"tournament/{t.tournament_id}?fresh"))  # another address: not the cached page
    assert await browser.text("#status") == "Finished"
    assert await browser.all_text("#entries tbody tr") == ["1 Big Eddie 2,100", "2 Rosa 900", "3 Lupe"]
    await browser.screenshot("tournament-results")
