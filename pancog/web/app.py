"""pan-web: the league web pages, a read-only aiohttp application with Jinja2 templates.

Every address is ``/g/<token>/…``: the token is a guild's (``/panadmin web on``), looked up on every request (an
indexed read), so turning the page off or rotating the token closes the old address at once. A page is built once
and reused for ``PAN_WEB_CACHE_SECONDS`` (keyed by its whole path, token included): a cached answer costs the token
look-up and a dictionary read.

Anything that is not a page of an open guild — a bad path, a revoked or malformed token, a malformed or unknown id,
a hand nobody shared or not finished — is the same plain 404, with nothing of the reason in it. Names are escaped
by Jinja2's autoescape (HTML) after the presenters' plain cleaning (no control or bidirectional characters).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from aiohttp import web

from pancog.adapter.presenters.common import image_name_of, plain_text
from pancog.adapter.presenters.league import rating_chart, rating_figure, result_word
from pancog.adapter.presenters.replay import board_snapshot, outcome_of, step_line, summary_line
from pancog.services.league import SeasonInfo, display
from pancog.web.export import hand_export, hand_nets
from pancog.web.reader import NotFound, WebReader
from renderer import render_outcome, render_table, table_text, to_png
from renderer.chart import chart_text, render_chart_png
from renderer.standings import StandingRow, StandingsSnapshot, render_standings_png

__all__ = ["NOT_FOUND_BODY", "PageCache", "make_app"]

log = logging.getLogger("pan.web")

TEMPLATES = Path(__file__).resolve().parent / "templates"
NOT_FOUND_BODY = "<!doctype html><title>Not found</title><p>Not found.</p>\n"
ID = r"[0-9]{1,19}"  # a Discord or table id; anything else never reaches a handler
SMALL = r"[0-9]{1,6}"
MAX_ID = 2**63 - 1
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the token is in the address: never hand it on to another site
    "X-Robots-Tag": "noindex, nofollow",
    "Content-Security-Policy": "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'none'",
}


@dataclass(frozen=True, slots=True)
class Built:
    body: bytes
    content_type: str


class PageCache:
    """Built pages by path, each kept ``seconds`` (an LRU of ``size`` pages)."""

    def __init__(self, seconds: float, size: int = 4096, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.size = size
        self._clock = clock
        self._pages: OrderedDict[str, tuple[float, Built]] = OrderedDict()

    def get(self, key: str) -> Built | None:
        found = self._pages.get(key)
        if found is None:
            return None
        if found[0] < self._clock():
            del self._pages[key]
            return None
        self._pages.move_to_end(key)
        return found[1]

    def put(self, key: str, page: Built) -> None:
        if self.seconds <= 0:
            return
        self._pages[key] = (self._clock() + self.seconds, page)
        self._pages.move_to_end(key)
        while len(self._pages) > self.size:
            self._pages.popitem(last=False)


Builder = Callable[[web.Request, int], Awaitable[Built]]


def _int(request: web.Request, name: str) -> int:
    value = int(request.match_info[name])
    if value > MAX_ID:
        raise NotFound
    return value


def _step(request: web.Request, steps: int) -> int:
    """The 1-based step of ``?step=`` (default 1); NotFound for anything else."""
    text = request.query.get("step", "1")
    if not text.isdigit() or len(text) > 6 or not 1 <= int(text) <= steps:
        raise NotFound
    return int(text)


class Pages:
    """The handlers; each builds one kind of page or image from the reader."""

    def __init__(self, reader: WebReader, env: jinja2.Environment, public_url: str | None) -> None:
        self.reader = reader
        self.env = env
        self.public_url = public_url

    def html(self, request: web.Request, template: str, **values: Any) -> Built:
        token = request.match_info["token"]
        base = f"/g/{token}/"
        origin = self.public_url or f"{request.scheme}://{request.host}"
        text = self.env.get_template(template).render(base=base, origin=origin, url=origin + request.path_qs, **values)
        return Built(text.encode(), "text/html; charset=utf-8")

    # ------------------------------------------------------------------ the league

    async def home(self, request: web.Request, guild: int) -> Built:
        names = await self.reader.names(guild)
        running = await self.reader.season(guild, None)
        seasons = [s for s in await self.reader.seasons(guild) if s.status == "ended"]
        tournaments = await self.reader.tournaments(guild)
        shared = await self.reader.shared_hands(guild)
        return self.html(
            request,
            "home.html",
            season=running,
            rows=_standing_rows(running, names) if running is not None else [],
            archived=list(reversed(seasons)),
            tournaments=tournaments[:20],
            shared=[(h, image_name_of(names, h.user_id)) for h in shared],
        )

    async def season(self, request: web.Request, guild: int) -> Built:
        names = await self.reader.names(guild)
        info = await self.reader.season(guild, int(request.match_info["n"]))
        if info is None:  # pragma: no cover - a numbered season is found or NotFound
            raise NotFound
        return self.html(request, "season.html", season=info, rows=_standing_rows(info, names))

    async def standings_png(self, request: web.Request, guild: int) -> Built:
        names = await self.reader.names(guild)
        info = await self.reader.season(guild, None)
        if info is None:
            raise NotFound
        snap = _standings_snapshot(info, names)
        return Built(await asyncio.to_thread(render_standings_png, snap), "image/png")

    async def player(self, request: web.Request, guild: int) -> Built:
        user = _int(request, "user")
        names = await self.reader.names(guild)
        history, versus = await self.reader.player(guild, user)
        name = image_name_of(names, user)
        snap = rating_chart(history, name)
        recent = [
            {
                "when": row.created_at,
                "result": result_word(row),
                "net": row.net if row.kind == "hand" else None,
                "change": f"{row.change / 1000:+.1f}",
                "rating": f"{rating_figure(row.score):.1f}",
                "key": row.result_key,
            }
            for row in history.recent
        ]
        opponents = [
            {
                "id": v.other_id,
                "name": image_name_of(names, v.other_id),
                "hands": v.hands,
                "tourneys": v.tourneys,
                "net": v.net,
                "other_net": v.other_net,
                "wins": v.wins,
                "other_wins": v.other_wins,
            }
            for v, _ in versus
        ]
        rating = history.rating
        return self.html(
            request,
            "player.html",
            user=user,
            name=name,
            rating=display(rating.score, rating.rated, history.established),
            alt=chart_text(snap),
            recent=recent,
            opponents=opponents,
        )

    async def player_chart(self, request: web.Request, guild: int) -> Built:
        user = _int(request, "user")
        names = await self.reader.names(guild)
        history, _ = await self.reader.player(guild, user)
        snap = rating_chart(history, image_name_of(names, user))
        return Built(await asyncio.to_thread(render_chart_png, snap), "image/png")

    # ------------------------------------------------------------------ tournaments

    async def tournament(self, request: web.Request, guild: int) -> Built:
        names = await self.reader.names(guild)
        view = await self.reader.tournament(guild, _int(request, "tid"))
        rows = [
            {
                "name": image_name_of(names, player),
                "status": status,
                "table": table,
                "chips": view.chips.get(player) if status == "alive" else None,
                "place": place,
                "prize": prize,
            }
            for player, status, table, place, prize in view.entries
        ]
        return self.html(request, "tournament.html", t=view, rows=rows)

    # ------------------------------------------------------------------ shared hands

    async def hand(self, request: web.Request, guild: int) -> Built:
        names = await self.reader.names(guild)
        replay, shared = await self.reader.shared_replay(guild, _int(request, "table"), _int(request, "hand"))
        total = len(replay.steps)
        step = _step(request, total)
        current = replay.steps[step - 1]
        board = board_snapshot(replay, step - 1, names)
        nets = hand_nets(replay)
        seats = current.seats_after
        results = [
            (image_name_of(names, s.player_id), nets[i]) for i, s in enumerate(seats) if s is not None and i in nets
        ]
        return self.html(
            request,
            "hand.html",
            replay=replay,
            step=step,
            total=total,
            line=plain_text(step_line(current, names)),
            alt=table_text(board),
            summary=plain_text(summary_line(replay.summary, names)),
            sharer=image_name_of(names, shared.user_id),
            results=results,
            lines=[plain_text(step_line(s, names)) for s in replay.steps],
        )

    async def hand_step_png(self, request: web.Request, guild: int) -> Built:
        names = await self.reader.names(guild)
        replay, _ = await self.reader.shared_replay(guild, _int(request, "table"), _int(request, "hand"))
        index = int(request.match_info["n"]) - 1
        if not 0 <= index < len(replay.steps):
            raise NotFound
        snap = board_snapshot(replay, index, names)
        return Built(await asyncio.to_thread(lambda: to_png(render_table(snap))), "image/png")

    async def hand_outcome_png(self, request: web.Request, guild: int) -> Built:
        """The link preview's image: the end of the hand (its outcome, or its last board)."""
        names = await self.reader.names(guild)
        replay, _ = await self.reader.shared_replay(guild, _int(request, "table"), _int(request, "hand"))
        outcome = outcome_of(replay, names)
        if outcome is not None:
            return Built(await asyncio.to_thread(lambda: to_png(render_outcome(outcome))), "image/png")
        snap = board_snapshot(replay, len(replay.steps) - 1, names)
        return Built(await asyncio.to_thread(lambda: to_png(render_table(snap))), "image/png")

    async def hand_json(self, request: web.Request, guild: int) -> Built:
        names = await self.reader.names(guild)
        replay, shared = await self.reader.shared_replay(guild, _int(request, "table"), _int(request, "hand"))
        document = hand_export(replay, shared, names)
        return Built(json.dumps(document, ensure_ascii=False, indent=1).encode(), "application/json; charset=utf-8")


def _standing_rows(info: SeasonInfo, names: dict[int, str]) -> list[dict[str, Any]]:
    return [
        {
            "place": row.place,
            "id": row.user_id,
            "name": image_name_of(names, row.user_id),
            "net": row.net,
            "chips": row.chips,
            "wins": row.wins,
            "rating": f"{row.score / 1000:.1f}",
        }
        for row in info.standings
    ]


def _standings_snapshot(info: SeasonInfo, names: dict[int, str]) -> StandingsSnapshot:
    season = info.season
    rows = tuple(
        StandingRow(row.place, image_name_of(names, row.user_id), row.chips if season.mode == "bank" else row.net)
        for row in info.standings
    )
    return StandingsSnapshot(
        season.name, f"Season {season.number}", "", f"{len(info.standings)} players", season.status == "ended", rows
    )


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,  # every value is HTML-escaped unless a template says otherwise (none does)
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["signed"] = lambda n: f"{n:+,}"
    env.filters["number"] = lambda n: f"{n:,}"
    env.filters["date"] = lambda t: time.strftime("%Y-%m-%d", time.gmtime(int(t)))
    return env


@web.middleware
async def _plain_errors(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Any:
    """Every refusal is the same plain 404 (never a traceback, a reason or a different status to probe with)."""
    try:
        response = await handler(request)
    except NotFound:
        return _not_found()
    except web.HTTPException as exc:
        if exc.status >= 400:
            return _not_found()
        raise
    except Exception:
        log.exception("pan-web: %s failed", request.path.split("/g/")[0] or "a page")
        return web.Response(status=500, text="Something went wrong.", content_type="text/plain")
    return response


def _not_found() -> web.Response:
    return web.Response(status=404, text=NOT_FOUND_BODY, content_type="text/html", headers=HEADERS)


def make_app(reader: WebReader, *, cache_seconds: float = 5.0, public_url: str | None = None) -> web.Application:
    """The application (``reader`` on a read-only storage; the caller opens and closes it)."""
    pages = Pages(reader, _environment(), public_url.rstrip("/") if public_url else None)
    cache = PageCache(cache_seconds)

    def route(build: Builder) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handle(request: web.Request) -> web.Response:
            if request.method not in ("GET", "HEAD"):
                raise NotFound
            guild = await reader.guild_of(request.match_info["token"])  # every time: a revoked token 404s at once
            key = request.path_qs
            page = cache.get(key)
            if page is None:
                page = await build(request, guild)
                cache.put(key, page)
            headers = dict(HEADERS, **{"Cache-Control": f"private, max-age={int(cache_seconds)}"})
            return web.Response(body=page.body, headers=headers, content_type=page.content_type.split(";")[0])

        return handle

    app = web.Application(middlewares=[_plain_errors])
    token = "{token:[A-Za-z0-9_-]{32}}"  # noqa: S105 - the route's pattern, not a secret
    hand = f"/g/{token}/hand/{{table:{ID}}}/{{hand:{SMALL}}}"
    app.router.add_get(f"/g/{token}/", route(pages.home))
    app.router.add_get(f"/g/{token}/standings.png", route(pages.standings_png))
    app.router.add_get(f"/g/{token}/season/{{n:{SMALL}}}", route(pages.season))
    app.router.add_get(f"/g/{token}/player/{{user:{ID}}}", route(pages.player))
    app.router.add_get(f"/g/{token}/player/{{user:{ID}}}/chart.png", route(pages.player_chart))
    app.router.add_get(f"/g/{token}/tournament/{{tid:{ID}}}", route(pages.tournament))
    app.router.add_get(f"{hand}", route(pages.hand))
    app.router.add_get(f"{hand}.json", route(pages.hand_json))
    app.router.add_get(f"{hand}/end.png", route(pages.hand_outcome_png))
    app.router.add_get(
        f"/g/{token}/hand/{{table:{ID}}}/{{hand:{SMALL}}}/step/{{n:{SMALL}}}.png", route(pages.hand_step_png)
    )
    return app
