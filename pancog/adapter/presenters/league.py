"""Chip leagues in words: seasons, standings, the league leaderboard, stats, flags and the winners' roles."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pancog.adapter.presenters.bank import NO_CHIPS_YET, held_text
from pancog.adapter.presenters.common import Names, chips, name_of, plural
from pancog.adapter.safety import TEXT_MAX, shown
from pancog.game.i18n import N_, current, tr, trn
from pancog.services.league import (
    Board,
    BoardLine,
    DecayWarning,
    Flag,
    HistoryRow,
    LeagueSettings,
    PlayerCard,
    RatingHistory,
    SeasonInfo,
    SeasonRow,
    SeriesStandings,
    Versus,
    display,
)
from pancog.services.outbox import OutboxItem
from renderer.chart import ChartSeries, ChartSnapshot


def season_table_closed(returned: Mapping[int, int], names: Names) -> str:
    """PUBLIC, in a bank season's table channel when the season ends: the table closed, stacks to the season banks."""
    lines = [f"{name_of(names, u)}: {chips(n)}" for u, n in returned.items()]
    return (
        tr("The season has ended, so this table is closed. Chips back to the season bank:")
        + "\n"
        + ("\n".join(lines) or tr("none"))
    )


NO_LEAGUE = N_("Leagues are not available on this bot.")
LEAGUE_METRIC_NAMES = {
    "net": N_("net chips won"),
    "chips": N_("chips won"),
    "rating": N_("rating"),
    "wins": N_("hands won"),
}


def _held(board: Board) -> bool:
    """A board of what players have (bank + chips at tables): chips all time, or a bank season's season banks."""
    return board.metric == "chips" and (board.season is None or board.season.mode == "bank")


def _league_value(board: Board, line: BoardLine) -> str:
    if line.bank is not None:
        return held_text(line.value, line.bank, line.at_tables, season=board.season is not None)
    if board.metric == "rating":
        return display(line.value, line.rated, board.established)
    if board.metric == "wins":
        return plural(line.value, "win")
    return plural(line.value, "chip", sign=True)  # net chips won (also "chips" in a net season: chips won in it)


BOARD_PAGE = 20  # lines a leaderboard page shows: 20 names fit a message (2,000 characters) with room to spare


def _events(n: int) -> str:
    return trn("{n} event", "{n} events", n)


def _rated_results(n: int) -> str:
    return trn("{n} rated result", "{n} rated results", n)


def _days(n: int) -> str:
    return trn("{n} day", "{n} days", n)


def league_board(board: Board, names: Names) -> str:
    """The /pan leaderboard (a league ``Board``): one page of it, and the caller's own place when it is not on the
    page (his line is marked when it is). A season board lists the eligible players only and tells an ineligible
    caller why he is not listed."""
    where = (
        tr("season {number} ({name})", number=board.season.number, name=shown(board.season.name, limit=60))
        if board.season is not None
        else tr("all time")
    )
    if _held(board):
        metric = tr("chips (season bank + at tables)") if board.season is not None else tr("chips (bank + at tables)")
    else:
        metric = tr(LEAGUE_METRIC_NAMES[board.metric])
    if board.pages > 1 or board.page > 1:
        head = tr(
            "**Leaderboard — {metric}, {where} — page {page} of {pages}**",
            metric=metric,
            where=where,
            page=board.page,
            pages=board.pages,
        )
    else:
        head = tr("**Leaderboard — {metric}, {where}**", metric=metric, where=where)
    me = board.caller
    lines = [
        f"{line.rank}. {name_of(names, line.user_id)} — {_league_value(board, line)}"
        + (" ← " + tr("you") if me is not None and line.user_id == me.user_id else "")
        for line in board.lines
    ]
    empty = tr("No eligible players yet.") if board.season is not None else tr("Nobody has a figure yet.")
    body = "\n".join(lines) or (tr("Nothing on this page.") if board.page > 1 else empty)
    if board.season is not None:
        body += "\n" + eligibility_rule(board.established, board.active_days)
    if board.pages > board.page:
        body += "\n" + tr("More: {option}", option=f"page:{board.page + 1}")
    if board.ineligible is not None:
        return f"{head}\n{body}\n{not_eligible(board.ineligible, board.established, board.active_days)}"
    if me is None:
        return f"{head}\n{body}\n" + (tr(NO_CHIPS_YET) if _held(board) else tr("You have no figure here yet."))
    if any(line.user_id == me.user_id for line in board.lines):
        return f"{head}\n{body}"
    return f"{head}\n{body}\n" + tr("You: #{rank} — {value}", rank=me.rank, value=_league_value(board, me))


SERIES_SHOWN = 25
SERIES_NEEDS_BOTH = N_("Give both points: and best: to make a series or change its points.")


def series_standings_text(table: SeriesStandings, names: Names) -> str:
    """PRIVATE: a series' standings (``/pan standings series:``): best N of M, each player's counted points."""
    series = table.series
    head = tr(
        "**Series {name} — best {best} of {events}** ({finished} finished)",
        name=shown(series.name, limit=40),
        best=series.best,
        events=_events(table.events),
        finished=table.finished,
    )
    lines = [
        tr(
            "{place}. {name} — {points} ({counted} from {events})",
            place=line.place,
            name=name_of(names, line.user_id),
            points=trn("{n} point", "{n} points", line.total),
            counted="+".join(map(str, line.counted)),
            events=_events(line.played),
        )
        for line in table.lines[:SERIES_SHOWN]
    ]
    if len(table.lines) > SERIES_SHOWN:
        lines.append(trn("… and {n} more player", "… and {n} more players", len(table.lines) - SERIES_SHOWN))
    points = ", ".join(map(str, series.points[:10])) + (" …" if len(series.points) > 10 else "")
    return "\n".join(
        [head, *(lines or [tr("No finished events yet.")]), "-# " + tr("Points by place: {points}", points=points)]
    )


def series_admin_text(table: SeriesStandings, names: Names, *, made: bool, added: bool | None) -> str:
    """PRIVATE, to a moderator: what ``/panadmin series`` did, and the series as it stands."""
    said = []
    if made:
        said.append(tr("Series saved."))
    if added is not None:
        said.append(tr("Tournament listed.") if added else tr("That tournament was already listed."))
    return "\n".join([*said, series_standings_text(table, names)])


def divisions_text(settings: LeagueSettings) -> str:
    """PRIVATE, to a moderator: the guild's divisions, best first (``/panadmin division``)."""
    lines = [tr("**Divisions** (established players; the first that takes a player is his)")]
    for d in settings.divisions:
        rule = (
            tr("the top {n}", n=d.top)
            if d.top is not None
            else tr("rated {rating} or more", rating=f"{(d.floor or 0) / 1000:.1f}")
        )
        role = tr(", role {role}", role=f"<@&{d.role_id}>") if d.role_id is not None else ""
        lines.append(f"- {shown(d.name, limit=30)}: {rule}{role}")
    if not settings.divisions:
        lines.append(tr("None yet. Add one with /panadmin division name: min_rating: (or top:) role:."))
    return "\n".join(lines)


def league_settings_text(settings: LeagueSettings) -> str:
    """PRIVATE, to a moderator: the guild's league settings (``/panadmin league``)."""
    return "\n".join(
        [
            tr("**League settings**"),
            tr(
                "A rating is established after {results} (before that it shows with a ?).",
                results=_rated_results(settings.established),
            ),
            tr(
                "The season leaderboard lists established players who played in the last {days}.",
                days=_days(settings.active_days),
            ),
            decay_setting_text(settings),
            tr("Change them with /panadmin league established: active_days: decay: after:."),
        ]
    )


def decay_setting_text(settings: LeagueSettings) -> str:
    if not settings.decay:
        return tr("Rating decay: off.")
    return tr(
        "Rating decay: an established player loses {points} rating points a week after {days} days without a result "
        "(a DM warns him a day before).",
        points=f"{settings.decay / 1000:g}",
        days=settings.decay_after,
    )


def decay_warning_text(warning: DecayWarning, server: str) -> str:
    """A DM, to the player: his rating starts to decay tomorrow unless he plays (``server``: escaped)."""
    return tr(
        "Your Pan rating in {server} starts to decay <t:{when}:R>: {points} points a week until your next result "
        "there. Play a hand or a tournament before then to keep it.",
        server=server,
        when=warning.starts_at,
        points=f"{warning.points / 1000:g}",
    )


def eligibility_rule(established: int, active_days: int) -> str:
    return "-# " + tr(
        "Listed: players with {results} or more who played in the last {days}.",
        results=_rated_results(established),
        days=_days(active_days),
    )


def not_eligible(status: tuple[int, int | None, bool], established: int, active_days: int) -> str:
    """The caller's line on a season board that does not list him: what he still needs."""
    rated, last, active = status
    needs = []
    if rated < established:
        needs.append(trn("{n} more rated result", "{n} more rated results", established - rated))
    if last is None:
        needs.append(tr("a result here"))
    elif not active:
        needs.append(tr("a result within {days} (your last: {when})", days=_days(active_days), when=f"<t:{last}:R>"))
    return tr("You are not listed yet: you need {what}.", what=_listed(needs))


def season_started(season: SeasonRow) -> str:
    if season.mode == "bank":
        how = tr(
            "Everyone plays from a season bank of {chips} (tables opened from now on); the standings rank the season "
            "banks, and everyone's own bank is untouched.",
            chips=chips(season.starting_chips),
        )
    else:
        how = tr("Standings count net chips won in it (everyone's bank is unchanged).")
    name = shown(season.name, limit=60)
    if season.ends_at is not None:
        started = tr(
            "Season {number} **{name}** has started, ends {when}.",
            number=season.number,
            name=name,
            when=f"<t:{season.ends_at}:R>",
        )
    else:
        started = tr(
            "Season {number} **{name}** has started, ended by /panadmin season end.", number=season.number, name=name
        )
    return f"{started} {how} " + tr("/pan standings shows them.")


def season_people(info: SeasonInfo) -> list[int]:
    """Everyone :func:`season_standings` names (fetch their names first)."""
    people = [row.user_id for row in info.standings[:STANDINGS_SHOWN]]
    people += [p for user, moderator, _, _ in info.exclusions for p in (user, moderator)]
    return [*people, info.season.champion_id or 0]


STANDINGS_SHOWN = 20
STANDINGS_TITLE = N_("Standings")
FINAL_STANDINGS_TITLE = N_("Final standings")


def season_standings(info: SeasonInfo, names: Names, *, title: str) -> str:
    """Standings of a season (live or archived), with its exclusions and reasons (``title``: a marked constant,
    :data:`STANDINGS_TITLE` or :data:`FINAL_STANDINGS_TITLE`)."""
    season = info.season
    state = tr("running") if season.status == "active" else tr("ended")
    lines = [
        tr(
            "**{title} — season {number} ({name}), {state}**",
            title=tr(title),
            number=season.number,
            name=shown(season.name, limit=60),
            state=state,
        )
    ]
    if season.champion_id is not None:
        lines.append(tr("Champion: {name}", name=name_of(names, season.champion_id)))
    for row in info.standings[:STANDINGS_SHOWN]:
        if season.mode == "bank" and row.at_tables:
            bank = row.chips - row.at_tables
            figure = tr(
                "{held}, {net} won", held=held_text(row.chips, bank, row.at_tables, season=True), net=f"{row.net:+,}"
            )
        elif season.mode == "bank":
            figure = tr("{chips} in the season bank ({net} won)", chips=chips(row.chips), net=f"{row.net:+,}")
        else:
            figure = plural(row.net, "chip", sign=True)
        lines.append(
            tr(
                "{place}. {name} — {figure}, {wins} won",
                place=row.place,
                name=name_of(names, row.user_id),
                figure=figure,
                wins=row.wins,
            )
        )
    if not info.standings:
        lines.append(tr("No hands played in this season yet."))
    for user, moderator, reason, _ in info.exclusions:
        why = shown(reason, limit=TEXT_MAX, fallback=tr("no reason given"))
        lines.append(
            tr(
                "Excluded: {name} by {moderator}: {why}",
                name=name_of(names, user),
                moderator=name_of(names, moderator),
                why=why,
            )
        )
    return "\n".join(lines)


def flag_people(flags: Sequence[Flag]) -> list[int]:
    """Everyone :func:`league_flags` names (fetch their names first)."""
    return [p for flag in flags for p in (flag.first, flag.second)]


FLAGS_BUDGET = 1900  # characters of the /panadmin flags answer (Discord's 2,000, with room for the last line)
_FLAG_WHAT = {
    "flow": N_("one-sided chip flow from {a} to {b}"),
    "together": N_("{a} and {b} share a table unusually often"),
    "soft": N_("{a} goes on top unusually often against {b}"),
}


def league_flags(flags: Sequence[Flag], names: Names, *, budget: int = FLAGS_BUDGET) -> str:
    """The private /panadmin flags list: each flag, its figures, and the hands behind it, strongest first; as many as
    fit in one message, then how many more there are."""
    if not flags:
        return tr("No flags: nothing here looks like chip dumping or soft play.")
    lines = [tr("**Flags** (for a moderator to look at; they change nothing by themselves)")]
    used = len(lines[0])
    for shown_count, flag in enumerate(flags):
        a, b = name_of(names, flag.first), name_of(names, flag.second)
        sentence = tr(_FLAG_WHAT[flag.kind], a=a, b=b) if flag.kind in _FLAG_WHAT else flag.kind
        figures = ", ".join(f"{k} {v:g}" for k, v in flag.figures)
        line = "• " + tr(
            "{flag} — z {score}; {figures}; hands: {hands}",
            flag=sentence,
            score=f"{flag.score:.1f}",
            figures=figures,
            hands=", ".join(flag.hands[:5]),
        )
        if used + 1 + len(line) > budget:
            rest = len(flags) - shown_count
            lines.append(
                trn(
                    "… and {n} more flag (weaker ones: the list is strongest first).",
                    "… and {n} more flags (weaker ones: the list is strongest first).",
                    rest,
                )
            )
            break
        lines.append(line)
        used += 1 + len(line)
    return "\n".join(lines)


def stats_rows(card: PlayerCard) -> tuple[tuple[str, str], ...]:
    """The rows of the /pan stats card and its text twin."""
    s = card.all_time
    season = card.season_stats
    rows = [
        (tr("Hands dealt"), f"{s.hands_dealt:,}"),
        (tr("Hands played (knocked)"), f"{s.hands_played:,}"),
        (
            tr("Went out"),
            tr("{n} ({rate} of hands played)", n=f"{s.hands_won:,}", rate=f"{card.going_out_rate:.0%}"),
        ),
        (tr("Conditions collected"), f"{s.conditions:,} ({chips(s.condition_chips)})"),
        (tr("Biggest collection"), chips(s.biggest)),
        (tr("Net chips, all time"), f"{s.net:+,}"),
    ]
    if card.season is not None:
        rows.append((tr("Net chips, season {number}", number=card.season.number), f"{season.net if season else 0:+,}"))
    if card.season is not None and card.season_bank is not None:
        rows.append((tr("Season {number} bank", number=card.season.number), chips(card.season_bank)))
    rows.append(
        (tr("Tournaments played / cashed / won"), f"{s.tourneys_played} / {s.tourneys_cashed} / {s.tourneys_won}")
    )
    return tuple(rows)


def stats_subtitle(card: PlayerCard, *, escape: bool = False) -> str:
    """The /pan stats card's second line: the running season (if any) and the rating. ``escape``: for Discord text
    (the season's name escaped); the image draws it as typed."""
    rating = card.rating
    subtitle = tr("rating {rating}", rating=display(rating.score, rating.rated, card.established))
    if card.season is not None:
        season = shown(card.season.name, limit=60) if escape else card.season.name
        subtitle = tr("season {number} ({name})", number=card.season.number, name=season) + " · " + subtitle
    return subtitle


def stats_message(names: Names, user_id: int, card: PlayerCard, rows: Iterable[tuple[str, str]]) -> str:
    """PRIVATE: /pan stats — the text twin of the stats card (the name and the season's name escaped)."""
    lines = [f"**{name_of(names, user_id)}** — {stats_subtitle(card, escape=True)}"]
    lines += [f"{label}: {value}" for label, value in rows]
    return "\n".join(lines)


def excluded_text(names: Names, user_id: int) -> str:
    return tr("{name} is left out of this season's standings (the reason is recorded).", name=name_of(names, user_id))


def included_text(lifted: bool) -> str:
    return tr("Exclusion lifted.") if lifted else tr("That player was not excluded.")


def winner_role_note(role: str, places: int, *, can_manage: bool) -> str:
    if can_manage:
        return tr("The top {n} get the role {role} when the season ends.", n=places, role=shown(role, limit=100))
    return tr(
        "Note: I can't give the role {role} — I need the Manage Roles permission (and my role above it). Grant it "
        "before the season ends.",
        role=shown(role, limit=100),
    )


def no_season_role(season_no: int) -> str:
    return tr(
        "Season {number} has no winner role (give one with /panadmin season start winner_role:).", number=season_no
    )


def _listed(people: Sequence[str]) -> str:
    if len(people) <= 2:
        return tr(" and ").join(people)
    return ", ".join(people[:-1]) + tr(" and ") + people[-1]


def season_roles_report(role: str | None, items: Sequence[OutboxItem], names: Names) -> str:
    """PRIVATE (moderators): what became of a season's role grants — who has the role, who left the server, and
    what is still owed and why. ``role``: the role's name (None when the bot cannot see it)."""
    role_text = shown(role, limit=100) if role else tr("the season's role")
    if not items:
        return tr("Roles: nobody to give {role} to (no human finished in the top places).", role=role_text)

    def who(item: OutboxItem) -> str:
        return name_of(names, int(item.payload.get("user_id", 0)))

    have = [who(i) for i in items if i.status == "done" and i.result in ("granted", "had it")]
    left = [who(i) for i in items if i.status == "done" and i.result == "left"]
    failed = [i for i in items if i.status == "failed"]
    owed = [i for i in items if i.status == "owed"]
    parts = []
    if have:
        parts.append(
            tr("{people} has {role}", people=_listed(have), role=role_text)
            if len(have) == 1
            else tr("{people} have {role}", people=_listed(have), role=role_text)
        )
    if left:
        parts.append(tr("{people} left the server", people=_listed(left)))
    for reason in dict.fromkeys(i.last_error or "" for i in failed):
        group = [who(i) for i in failed if (i.last_error or "") == reason]
        parts.append(
            tr(
                "{n} still owed ({people}): {reason}",
                n=len(group),
                people=_listed(group),
                reason=reason or tr("refused"),
            )
        )
    if owed:
        error = next((i.last_error for i in owed if i.last_error), None)
        people = _listed([who(i) for i in owed])
        if error:
            parts.append(
                tr(
                    "{n} still being given ({people}), retried by itself; Discord answered {error}",
                    n=len(owed),
                    people=people,
                    error=shown(error, limit=TEXT_MAX),
                )
            )
        else:
            parts.append(tr("{n} still being given ({people}), retried by itself", n=len(owed), people=people))
    text = tr("Roles: {parts}.", parts="; ".join(parts))
    if failed:
        text += " " + tr("Fix that, then /panadmin season roles tries again.")
    return text


# ------------------------------------------------------------------ rating history, match history, head-to-head


def rating_figure(score: int) -> float:
    """The shown rating of a stored score (1000 x (mu - 3 sigma))."""
    return score / 1000


def rating_chart(history: RatingHistory, name: str) -> ChartSnapshot:
    """The chart of ``/pan rating`` and the web's player page: this season (when one runs) above all time.
    ``name`` is drawn as it is (the renderer cleans it): pass an image name (``image_name_of``)."""
    rating = history.rating
    subtitle = tr("Rating {rating}", rating=display(rating.score, rating.rated, history.established))
    series = []
    if history.season is not None:
        series.append(
            ChartSeries(
                tr("Season {number}", number=history.season.number),
                tuple(rating_figure(p[2]) for p in history.season_points),
            )
        )
        if history.season_rating is not None:
            season_rating = history.season_rating
            subtitle += " · " + tr(
                "season {rating}", rating=display(season_rating.score, season_rating.rated, history.established)
            )
    series.append(ChartSeries(tr("All time"), tuple(rating_figure(p[2]) for p in history.all_time)))
    return ChartSnapshot(name, subtitle, tuple(series), lang=current())


def result_word(row: HistoryRow) -> str:
    """A result in one word or two: went out / lost / on top, or a tournament's place."""
    if row.kind == "tourney":
        return tr("tournament, place {place}", place=row.place)
    if row.place == 1:
        return tr("went out")
    return tr("lost") if row.place == 2 else tr("on top")


def _change(delta: int) -> str:
    return f"{delta / 1000:+.1f}"


def match_history_text(rows: tuple[HistoryRow, ...] | list[HistoryRow], who: str) -> str:
    """The last rated results of ``/pan rating``, newest first: result, chips, rating change. ``who`` is an escaped
    name (``name_of``)."""
    if not rows:
        return tr("{name} has no rated hands yet.", name=who)
    lines = [trn("**Last {n} rated result of {name}**", "**Last {n} rated results of {name}**", len(rows), name=who)]
    for row in rows:
        chips_part = f", {plural(row.net, 'chip', sign=True)}" if row.kind == "hand" else ""
        lines.append(
            f"<t:{row.created_at}:d> {result_word(row)}{chips_part} — "
            + tr("rating {change} to {rating}", change=_change(row.change), rating=f"{rating_figure(row.score):.1f}")
        )
    return "\n".join(lines)


def versus_text(versus: Versus, names: Names) -> str:
    """``/pan versus``: hands dealt together, each player's chips over them, wins each."""
    me, other = name_of(names, versus.user_id), name_of(names, versus.other_id)
    if not versus.rows:
        return tr("{me} and {other} have not played a league hand together yet.", me=me, other=other)
    together = tr("Hands together: {n}", n=f"{versus.hands:,}")
    if versus.tourneys:
        together += " · " + tr("tournaments together: {n}", n=f"{versus.tourneys:,}")
    lines = [
        tr("**{me} vs {other}**", me=me, other=other),
        together,
        tr(
            "Chips over those hands: {me} {net}, {other} {other_net}",
            me=me,
            net=f"{versus.net:+,}",
            other=other,
            other_net=f"{versus.other_net:+,}",
        ),
        tr(
            "Wins: {me} {wins}, {other} {other_wins}",
            me=me,
            wins=f"{versus.wins:,}",
            other=other,
            other_wins=f"{versus.other_wins:,}",
        ),
    ]
    return "\n".join(lines)


# ------------------------------------------------------------------ the league web page


def web_on_text(address: str) -> str:
    """PRIVATE to the moderator: the guild's web address (anyone with it can read the league pages)."""
    return (
        tr("The league web page is on: {address}", address=address)
        + "\n"
        + tr(
            "Anyone with this address can see the standings, player pages and the hands players shared. "
            "`/panadmin web rotate` gives a new address (the old one stops working); `/panadmin web off` turns it off."
        )
    )


def web_off_text(was_on: bool) -> str:
    return (
        tr("The league web page is off; its address no longer works.") if was_on else tr("The league web page was off.")
    )


WEB_NOT_RUNNING = N_(
    "The league web pages are not running on this bot (the host sets PAN_WEB_PORT to start them). Nothing was changed."
)
