"""Chip leagues in words: seasons, standings, the league leaderboard, stats, flags and the winners' roles."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pancog.adapter.presenters.common import Names, chips, name_of
from pancog.services.league import (
    Board,
    Flag,
    HistoryRow,
    PlayerCard,
    RatingHistory,
    SeasonInfo,
    SeasonRow,
    Versus,
    display,
)
from renderer.chart import ChartSeries, ChartSnapshot


def season_table_closed(returned: Mapping[int, int], names: Names) -> str:
    """PUBLIC, in a bank season's table channel when the season ends: the table closed, stacks to the season banks."""
    lines = [f"{name_of(names, u)}: {chips(n)}" for u, n in returned.items()]
    return "The season has ended, so this table is closed. Chips back to the season bank:\n" + (
        "\n".join(lines) or "none"
    )


NO_LEAGUE = "Leagues are not available on this bot."
LEAGUE_METRIC_NAMES = {"net": "net chips won", "chips": "chips", "rating": "rating", "wins": "hands won"}


def _league_value(metric: str, value: int, rated: int) -> str:
    if metric == "rating":
        return display(value, rated)
    if metric == "wins":
        return f"{value:,} win{'s' if value != 1 else ''}"
    return f"{value:+,} chips" if metric == "net" else chips(value)


def league_board(board: Board, names: Names) -> str:
    """The public /pan leaderboard (a league ``Board``): the top ten and the caller's own rank line."""
    where = f"season {board.season.number} ({board.season.name})" if board.season is not None else "all time"
    head = f"**Leaderboard — {LEAGUE_METRIC_NAMES[board.metric]}, {where}**"
    lines = [
        f"{line.rank}. {name_of(names, line.user_id)} — {_league_value(board.metric, line.value, line.rated)}"
        for line in board.lines
    ]
    body = "\n".join(lines) or "Nobody has a figure yet."
    me = board.caller
    if me is None:
        tail = "You have no figure here yet."
    else:
        tail = f"You: #{me.rank} — {_league_value(board.metric, me.value, me.rated)}"
    return f"{head}\n{body}\n{tail}"


def season_started(season: SeasonRow) -> str:
    ends = f", ends <t:{season.ends_at}:R>" if season.ends_at is not None else ", ended by /panadmin season end"
    if season.mode == "bank":
        how = (
            f"Everyone plays from a season bank of {chips(season.starting_chips)} (tables opened from now on); "
            "the standings rank the season banks, and everyone's own bank is untouched."
        )
    else:
        how = "Standings count net chips won in it (everyone's bank is unchanged)."
    return f"Season {season.number} **{season.name}** has started{ends}. {how} /pan standings shows them."


def season_standings(info: SeasonInfo, names: Names, *, title: str) -> str:
    """Standings of a season (live or archived), with its exclusions and reasons."""
    season = info.season
    state = "running" if season.status == "active" else "ended"
    lines = [f"**{title} — season {season.number} ({season.name}), {state}**"]
    if season.champion_id is not None:
        lines.append(f"Champion: {name_of(names, season.champion_id)}")
    for row in info.standings[:20]:
        if season.mode == "bank":
            figure = f"{chips(row.chips)} in the season bank ({row.net:+,} won)"
        else:
            figure = f"{row.net:+,} chips"
        lines.append(f"{row.place}. {name_of(names, row.user_id)} — {figure}, {row.wins} won")
    if not info.standings:
        lines.append("No hands played in this season yet.")
    for user, moderator, reason, _ in info.exclusions:
        lines.append(f"Excluded: {name_of(names, user)} by {name_of(names, moderator)}: {reason}")
    return "\n".join(lines)


def league_flags(flags: Sequence[Flag], names: Names) -> str:
    """The private /panadmin flags list: each flag, its figures, and the hands behind it."""
    what = {
        "flow": "one-sided chip flow from {a} to {b}",
        "together": "{a} and {b} share a table unusually often",
        "soft": "{a} goes on top unusually often against {b}",
    }
    if not flags:
        return "No flags: nothing here looks like chip dumping or soft play."
    lines = ["**Flags** (for a moderator to look at; they change nothing by themselves)"]
    for flag in flags[:10]:
        sentence = what.get(flag.kind, flag.kind).format(a=name_of(names, flag.first), b=name_of(names, flag.second))
        figures = ", ".join(f"{k} {v:g}" for k, v in flag.figures)
        lines.append(f"• {sentence} — z {flag.score:.1f}; {figures}; hands: {', '.join(flag.hands[:5])}")
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


def excluded_text(who: str) -> str:
    return f"{who} is left out of this season's standings (the reason is recorded)."


def included_text(lifted: bool) -> str:
    return "Exclusion lifted." if lifted else "That player was not excluded."


def winner_role_note(role: str, places: int, *, can_manage: bool) -> str:
    if can_manage:
        return f"The top {places} get the role {role} when the season ends."
    return (
        f"Note: I can't give the role {role} — I need the Manage Roles permission (and my role above it). "
        "Grant it before the season ends."
    )


def winner_roles_failed() -> str:
    return "I could not give the season's role: I need Manage Roles, and my role must be above it."


def winner_roles_given(count: int) -> str:
    return f"Season role given to {count} top finisher{'s' if count != 1 else ''}."


def winner_role_reason(season_no: int) -> str:
    """The audit-log reason of a season role."""
    return f"Pan season {season_no} top finisher"


# ------------------------------------------------------------------ rating history, match history, head-to-head


def rating_figure(score: int) -> float:
    """The shown rating of a stored score (1000 x (mu - 3 sigma))."""
    return score / 1000


def rating_chart(history: RatingHistory, name: str) -> ChartSnapshot:
    """The chart of ``/pan rating`` and the web's player page: this season (when one runs) above all time.
    ``name`` is drawn as it is (the renderer cleans it): pass an image name (``image_name_of``)."""
    rating = history.rating
    subtitle = f"Rating {display(rating.score, rating.rated)}"
    series = []
    if history.season is not None:
        series.append(
            ChartSeries(f"Season {history.season.number}", tuple(rating_figure(p[2]) for p in history.season_points))
        )
        if history.season_rating is not None:
            subtitle += f" · season {display(history.season_rating.score, history.season_rating.rated)}"
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
    lines = [f"**Last {len(rows)} rated result{'s' if len(rows) != 1 else ''} of {who}**"]
    for row in rows:
        chips_part = f", {row.net:+,} chips" if row.kind == "hand" else ""
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
