"""Chip leagues in words: seasons, standings, the league leaderboard, stats, flags and the winners' roles."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pancog.adapter.presenters.common import Names, chips, name_of, plural
from pancog.services.league import Board, Flag, PlayerCard, SeasonInfo, SeasonRow, display


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
        return plural(value, "win")
    return plural(value, "chip", sign=True) if metric == "net" else chips(value)


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
            figure = plural(row.net, "chip", sign=True)
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
    return f"Season role given to {plural(count, 'top finisher')}."


def winner_role_reason(season_no: int) -> str:
    """The audit-log reason of a season role."""
    return f"Pan season {season_no} top finisher"
