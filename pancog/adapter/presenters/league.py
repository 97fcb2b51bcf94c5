"""Chip leagues in words: seasons, standings, the league leaderboard, stats, flags and the winners' roles."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pancog.adapter.presenters.bank import NO_CHIPS_YET, YOU, held_text
from pancog.adapter.presenters.common import Names, chips, name_of, plural
from pancog.adapter.safety import TEXT_MAX, shown
from pancog.game.i18n import tr
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
    return "The season has ended, so this table is closed. Chips back to the season bank:\n" + (
        "\n".join(lines) or "none"
    )


NO_LEAGUE = "Leagues are not available on this bot."
LEAGUE_METRIC_NAMES = {"net": "net chips won", "chips": "chips won", "rating": "rating", "wins": "hands won"}


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


def league_board(board: Board, names: Names) -> str:
    """The /pan leaderboard (a league ``Board``): one page of it, and the caller's own place when it is not on the
    page (his line is marked when it is). A season board lists the eligible players only and tells an ineligible
    caller why he is not listed."""
    where = (
        f"season {board.season.number} ({shown(board.season.name, limit=60)})"
        if board.season is not None
        else "all time"
    )
    what = ("season bank" if board.season is not None else "bank") + " + at tables"
    metric = f"chips ({what})" if _held(board) else LEAGUE_METRIC_NAMES[board.metric]
    page = f" — page {board.page} of {board.pages}" if board.pages > 1 or board.page > 1 else ""
    head = f"**Leaderboard — {metric}, {where}{page}**"
    me = board.caller
    lines = [
        f"{line.rank}. {name_of(names, line.user_id)} — {_league_value(board, line)}"
        + (YOU if me is not None and line.user_id == me.user_id else "")
        for line in board.lines
    ]
    empty = "No eligible players yet." if board.season is not None else "Nobody has a figure yet."
    body = "\n".join(lines) or ("Nothing on this page." if board.page > 1 else empty)
    if board.season is not None:
        body += "\n" + eligibility_rule(board.established, board.active_days)
    if board.pages > board.page:
        body += f"\nMore: page:{board.page + 1}"
    if board.ineligible is not None:
        return f"{head}\n{body}\n{not_eligible(board.ineligible, board.established, board.active_days)}"
    if me is None:
        return f"{head}\n{body}\n" + (NO_CHIPS_YET if _held(board) else "You have no figure here yet.")
    if any(line.user_id == me.user_id for line in board.lines):
        return f"{head}\n{body}"
    return f"{head}\n{body}\nYou: #{me.rank} — {_league_value(board, me)}"


SERIES_SHOWN = 25
SERIES_NEEDS_BOTH = "Give both points: and best: to make a series or change its points."


def series_standings_text(table: SeriesStandings, names: Names) -> str:
    """PRIVATE: a series' standings (``/pan standings series:``): best N of M, each player's counted points."""
    series = table.series
    head = (
        f"**Series {shown(series.name, limit=40)} — best {series.best} of {plural(table.events, 'event')}** "
        f"({table.finished} finished)"
    )
    lines = [
        f"{line.place}. {name_of(names, line.user_id)} — {plural(line.total, 'point')}"
        f" ({'+'.join(map(str, line.counted))} from {plural(line.played, 'event')})"
        for line in table.lines[:SERIES_SHOWN]
    ]
    if len(table.lines) > SERIES_SHOWN:
        lines.append(f"… and {plural(len(table.lines) - SERIES_SHOWN, 'more player')}")
    points = ", ".join(map(str, series.points[:10])) + (" …" if len(series.points) > 10 else "")
    return "\n".join([head, *(lines or ["No finished events yet."]), f"-# Points by place: {points}"])


def series_admin_text(table: SeriesStandings, names: Names, *, made: bool, added: bool | None) -> str:
    """PRIVATE, to a moderator: what ``/panadmin series`` did, and the series as it stands."""
    said = []
    if made:
        said.append("Series saved.")
    if added is not None:
        said.append("Tournament listed." if added else "That tournament was already listed.")
    return "\n".join([*said, series_standings_text(table, names)])


def divisions_text(settings: LeagueSettings) -> str:
    """PRIVATE, to a moderator: the guild's divisions, best first (``/panadmin division``)."""
    lines = ["**Divisions** (established players; the first that takes a player is his)"]
    for d in settings.divisions:
        rule = f"the top {d.top}" if d.top is not None else f"rated {(d.floor or 0) / 1000:.1f} or more"
        role = f", role <@&{d.role_id}>" if d.role_id is not None else ""
        lines.append(f"- {shown(d.name, limit=30)}: {rule}{role}")
    if not settings.divisions:
        lines.append("None yet. Add one with /panadmin division name: min_rating: (or top:) role:.")
    return "\n".join(lines)


def league_settings_text(settings: LeagueSettings) -> str:
    """PRIVATE, to a moderator: the guild's league settings (``/panadmin league``)."""
    return (
        f"**League settings**\nA rating is established after {plural(settings.established, 'rated result')} "
        f"(before that it shows with a ?).\nThe season leaderboard lists established players who played in the last "
        f"{plural(settings.active_days, 'day')}.\n{decay_setting_text(settings)}\n"
        "Change them with /panadmin league established: active_days: decay: after:."
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
    return (
        f"-# Listed: players with {plural(established, 'rated result')} or more who played "
        f"in the last {plural(active_days, 'day')}."
    )


def not_eligible(status: tuple[int, int | None, bool], established: int, active_days: int) -> str:
    """The caller's line on a season board that does not list him: what he still needs."""
    rated, last, active = status
    needs = []
    if rated < established:
        needs.append(f"{plural(established - rated, 'more rated result')}")
    if last is None:
        needs.append("a result here")
    elif not active:
        needs.append(f"a result within {plural(active_days, 'day')} (your last: <t:{last}:R>)")
    return "You are not listed yet: you need " + " and ".join(needs) + "."


def season_started(season: SeasonRow) -> str:
    ends = f", ends <t:{season.ends_at}:R>" if season.ends_at is not None else ", ended by /panadmin season end"
    if season.mode == "bank":
        how = (
            f"Everyone plays from a season bank of {chips(season.starting_chips)} (tables opened from now on); "
            "the standings rank the season banks, and everyone's own bank is untouched."
        )
    else:
        how = "Standings count net chips won in it (everyone's bank is unchanged)."
    return (
        f"Season {season.number} **{shown(season.name, limit=60)}** has started{ends}. {how} /pan standings shows them."
    )


def season_people(info: SeasonInfo) -> list[int]:
    """Everyone :func:`season_standings` names (fetch their names first)."""
    people = [row.user_id for row in info.standings[:STANDINGS_SHOWN]]
    people += [p for user, moderator, _, _ in info.exclusions for p in (user, moderator)]
    return [*people, info.season.champion_id or 0]


STANDINGS_SHOWN = 20


def season_standings(info: SeasonInfo, names: Names, *, title: str) -> str:
    """Standings of a season (live or archived), with its exclusions and reasons."""
    season = info.season
    state = "running" if season.status == "active" else "ended"
    lines = [f"**{title} — season {season.number} ({shown(season.name, limit=60)}), {state}**"]
    if season.champion_id is not None:
        lines.append(f"Champion: {name_of(names, season.champion_id)}")
    for row in info.standings[:STANDINGS_SHOWN]:
        if season.mode == "bank" and row.at_tables:
            bank = row.chips - row.at_tables
            figure = f"{held_text(row.chips, bank, row.at_tables, season=True)}, {row.net:+,} won"
        elif season.mode == "bank":
            figure = f"{chips(row.chips)} in the season bank ({row.net:+,} won)"
        else:
            figure = plural(row.net, "chip", sign=True)
        lines.append(f"{row.place}. {name_of(names, row.user_id)} — {figure}, {row.wins} won")
    if not info.standings:
        lines.append("No hands played in this season yet.")
    for user, moderator, reason, _ in info.exclusions:
        why = shown(reason, limit=TEXT_MAX, fallback="no reason given")
        lines.append(f"Excluded: {name_of(names, user)} by {name_of(names, moderator)}: {why}")
    return "\n".join(lines)


def flag_people(flags: Sequence[Flag]) -> list[int]:
    """Everyone :func:`league_flags` names (fetch their names first)."""
    return [p for flag in flags for p in (flag.first, flag.second)]


FLAGS_BUDGET = 1900  # characters of the /panadmin flags answer (Discord's 2,000, with room for the last line)


def league_flags(flags: Sequence[Flag], names: Names, *, budget: int = FLAGS_BUDGET) -> str:
    """The private /panadmin flags list: each flag, its figures, and the hands behind it, strongest first; as many as
    fit in one message, then how many more there are."""
    what = {
        "flow": "one-sided chip flow from {a} to {b}",
        "together": "{a} and {b} share a table unusually often",
        "soft": "{a} goes on top unusually often against {b}",
    }
    if not flags:
        return "No flags: nothing here looks like chip dumping or soft play."
    lines = ["**Flags** (for a moderator to look at; they change nothing by themselves)"]
    used = len(lines[0])
    for shown_count, flag in enumerate(flags):
        sentence = what.get(flag.kind, flag.kind).format(a=name_of(names, flag.first), b=name_of(names, flag.second))
        figures = ", ".join(f"{k} {v:g}" for k, v in flag.figures)
        line = f"• {sentence} — z {flag.score:.1f}; {figures}; hands: {', '.join(flag.hands[:5])}"
        if used + 1 + len(line) > budget:
            rest = len(flags) - shown_count
            lines.append(
                f"… and {rest} more flag{'s' if rest != 1 else ''} (weaker ones: the list is strongest first)."
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
        ("Hands dealt", f"{s.hands_dealt:,}"),
        ("Hands played (knocked)", f"{s.hands_played:,}"),
        ("Went out", f"{s.hands_won:,} ({card.going_out_rate:.0%} of hands played)"),
        ("Conditions collected", f"{s.conditions:,} ({chips(s.condition_chips)})"),
        ("Biggest collection", chips(s.biggest)),
        ("Net chips, all time", f"{s.net:+,}"),
    ]
    if card.season is not None:
        rows.append((f"Net chips, season {card.season.number}", f"{season.net if season else 0:+,}"))
    if card.season is not None and card.season_bank is not None:
        rows.append((f"Season {card.season.number} bank", chips(card.season_bank)))
    rows.append(("Tournaments played / cashed / won", f"{s.tourneys_played} / {s.tourneys_cashed} / {s.tourneys_won}"))
    return tuple(rows)


def stats_subtitle(card: PlayerCard, *, escape: bool = False) -> str:
    """The /pan stats card's second line: the running season (if any) and the rating. ``escape``: for Discord text
    (the season's name escaped); the image draws it as typed."""
    rating = card.rating
    subtitle = f"rating {display(rating.score, rating.rated, card.established)}"
    if card.season is not None:
        season = shown(card.season.name, limit=60) if escape else card.season.name
        subtitle = f"season {card.season.number} ({season}) · " + subtitle
    return subtitle


def stats_message(names: Names, user_id: int, card: PlayerCard, rows: Iterable[tuple[str, str]]) -> str:
    """PRIVATE: /pan stats — the text twin of the stats card (the name and the season's name escaped)."""
    lines = [f"**{name_of(names, user_id)}** — {stats_subtitle(card, escape=True)}"]
    lines += [f"{label}: {value}" for label, value in rows]
    return "\n".join(lines)


def excluded_text(names: Names, user_id: int) -> str:
    return f"{name_of(names, user_id)} is left out of this season's standings (the reason is recorded)."


def included_text(lifted: bool) -> str:
    return "Exclusion lifted." if lifted else "That player was not excluded."


def winner_role_note(role: str, places: int, *, can_manage: bool) -> str:
    if can_manage:
        return f"The top {places} get the role {shown(role, limit=100)} when the season ends."
    return (
        f"Note: I can't give the role {shown(role, limit=100)} — I need the Manage Roles permission (and my role above "
        "it). Grant it before the season ends."
    )


def no_season_role(season_no: int) -> str:
    return f"Season {season_no} has no winner role (give one with /panadmin season start winner_role:)."


def _listed(people: Sequence[str]) -> str:
    if len(people) <= 2:
        return " and ".join(people)
    return ", ".join(people[:-1]) + " and " + people[-1]


def season_roles_report(role: str | None, items: Sequence[OutboxItem], names: Names) -> str:
    """PRIVATE (moderators): what became of a season's role grants — who has the role, who left the server, and
    what is still owed and why. ``role``: the role's name (None when the bot cannot see it)."""
    role_text = shown(role, limit=100) if role else "the season's role"
    if not items:
        return f"Roles: nobody to give {role_text} to (no human finished in the top places)."

    def who(item: OutboxItem) -> str:
        return name_of(names, int(item.payload.get("user_id", 0)))

    have = [who(i) for i in items if i.status == "done" and i.result in ("granted", "had it")]
    left = [who(i) for i in items if i.status == "done" and i.result == "left"]
    failed = [i for i in items if i.status == "failed"]
    owed = [i for i in items if i.status == "owed"]
    parts = []
    if have:
        parts.append(f"{_listed(have)} {'has' if len(have) == 1 else 'have'} {role_text}")
    if left:
        parts.append(f"{_listed(left)} left the server")
    for reason in dict.fromkeys(i.last_error or "" for i in failed):
        group = [who(i) for i in failed if (i.last_error or "") == reason]
        parts.append(f"{len(group)} still owed ({_listed(group)}): {reason or 'refused'}")
    if owed:
        error = next((i.last_error for i in owed if i.last_error), None)
        why = f"; Discord answered {shown(error, limit=TEXT_MAX)}" if error else ""
        parts.append(f"{len(owed)} still being given ({_listed([who(i) for i in owed])}), retried by itself{why}")
    text = "Roles: " + "; ".join(parts) + "."
    if failed:
        text += " Fix that, then /panadmin season roles tries again."
    return text


# ------------------------------------------------------------------ rating history, match history, head-to-head


def rating_figure(score: int) -> float:
    """The shown rating of a stored score (1000 x (mu - 3 sigma))."""
    return score / 1000


def rating_chart(history: RatingHistory, name: str) -> ChartSnapshot:
    """The chart of ``/pan rating`` and the web's player page: this season (when one runs) above all time.
    ``name`` is drawn as it is (the renderer cleans it): pass an image name (``image_name_of``)."""
    rating = history.rating
    subtitle = f"Rating {display(rating.score, rating.rated, history.established)}"
    series = []
    if history.season is not None:
        series.append(
            ChartSeries(f"Season {history.season.number}", tuple(rating_figure(p[2]) for p in history.season_points))
        )
        if history.season_rating is not None:
            season_rating = history.season_rating
            subtitle += f" · season {display(season_rating.score, season_rating.rated, history.established)}"
    series.append(ChartSeries("All time", tuple(rating_figure(p[2]) for p in history.all_time)))
    return ChartSnapshot(name, subtitle, tuple(series))


def result_word(row: HistoryRow) -> str:
    """A result in one word or two: went out / lost / on top, or a tournament's place."""
    if row.kind == "tourney":
        return f"tournament, place {row.place}"
    return {1: "went out", 2: "lost"}.get(row.place, "on top")


def _change(delta: int) -> str:
    return f"{delta / 1000:+.1f}"


def match_history_text(rows: tuple[HistoryRow, ...] | list[HistoryRow], who: str) -> str:
    """The last rated results of ``/pan rating``, newest first: result, chips, rating change. ``who`` is an escaped
    name (``name_of``)."""
    if not rows:
        return f"{who} has no rated hands yet."
    lines = [f"**Last {plural(len(rows), 'rated result')} of {who}**"]
    for row in rows:
        chips_part = f", {plural(row.net, 'chip', sign=True)}" if row.kind == "hand" else ""
        lines.append(
            f"<t:{row.created_at}:d> {result_word(row)}{chips_part} — rating {_change(row.change)} "
            f"to {rating_figure(row.score):.1f}"
        )
    return "\n".join(lines)


def versus_text(versus: Versus, names: Names) -> str:
    """``/pan versus``: hands dealt together, each player's chips over them, wins each."""
    me, other = name_of(names, versus.user_id), name_of(names, versus.other_id)
    if not versus.rows:
        return f"{me} and {other} have not played a league hand together yet."
    lines = [
        f"**{me} vs {other}**",
        f"Hands together: {versus.hands:,}"
        + (f" · tournaments together: {versus.tourneys:,}" if versus.tourneys else ""),
        f"Chips over those hands: {me} {versus.net:+,}, {other} {versus.other_net:+,}",
        f"Wins: {me} {versus.wins:,}, {other} {versus.other_wins:,}",
    ]
    return "\n".join(lines)


# ------------------------------------------------------------------ the league web page


def web_on_text(address: str) -> str:
    """PRIVATE to the moderator: the guild's web address (anyone with it can read the league pages)."""
    return (
        f"The league web page is on: {address}\n"
        "Anyone with this address can see the standings, player pages and the hands players shared. "
        "`/panadmin web rotate` gives a new address (the old one stops working); `/panadmin web off` turns it off."
    )


def web_off_text(was_on: bool) -> str:
    return "The league web page is off; its address no longer works." if was_on else "The league web page was off."


WEB_NOT_RUNNING = (
    "The league web pages are not running on this bot (the host sets PAN_WEB_PORT to start them). Nothing was changed."
)
