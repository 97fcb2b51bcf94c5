"""Tournaments in words: announcements, registration answers, table moves, standings, results, the winners'
role and the refusals of /pan tourney."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pancog.adapter.presenters.common import chips, plural
from pancog.adapter.safety import plain, shown
from pancog.services.tournaments.model import TITLE_MAX
from pancog.services.tournaments.service import TournamentInfo
from renderer.standings import StandingRow, StandingsSnapshot

TOURNEY_TABLE_REFUSAL = (
    "This is a tournament table: seats, chips and moves belong to the tournament. Use `/tourney register` or "
    "`/tourney unregister` instead."
)
TOURNEY_NONE_HERE = "There is no tournament taking part in this channel. `/tourney list` shows this server's."
TOURNEY_WHICH = "Several tournaments run here: pick one with the `tournament` option (`/tourney list`)."
TOURNEY_BAD_START = "Give the start as minutes from now (`+30`), a Unix time, or `YYYY-MM-DD HH:MM` in UTC."
TOURNEY_BAD_NUMBERS = "Give a list of whole numbers separated by commas, for example `10,15,20,30`."
TOURNEY_START_PAST = "The start time must be in the future."
TOURNEY_BOTS_NOT_ALLOWED = "This tournament does not allow computer players."
TOURNEY_PAUSED = "⏸ The tournament clock is paused."
TOURNEY_RESUMED = "▶ The tournament clock runs again."
TOURNEY_STARTED = "The tournament has started: tables are opening."
TOURNEY_ROWS = 15  # chip counts and standings shown in one message (the rest summarised)
_STATUS_WORD = {
    "announced": "announced",
    "registering": "registration open",
    "running": "running",
    "finished": "finished",
    "cancelled": "cancelled",
}


def _entries(n: int) -> str:
    return plural(n, "entry", "entries")


def tourney_plain_title(title: str, tournament_id: int) -> str:
    """The title as plain text (control characters dropped): for thread names, images and audit-log reasons, where
    Markdown does not render."""
    return plain(title, limit=TITLE_MAX) or f"Tournament {tournament_id % 10_000:04d}"


def tourney_title(title: str, tournament_id: int) -> str:
    """The title for a message: the host's text with its Markdown and mentions escaped (it renders as typed)."""
    return shown(title, limit=TITLE_MAX) if plain(title) else tourney_plain_title(title, tournament_id)


def _clock(seconds: float) -> str:
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def tourney_announcement(
    title: str,
    format_name: str,
    buy_in: int,
    fee: int,
    seats: int,
    entries: int,
    limit: int,
    start_at: int | None,
    status: str,
    host: str,
) -> str:
    """PUBLIC, the announcement (edited as entries come and go)."""
    kind = "Sit & Go" if format_name == "sng" else "Scheduled tournament"
    when = f" · starts <t:{start_at}:F> (<t:{start_at}:R>)" if start_at else " · starts when the table is full"
    cap = f"/{limit}" if limit else ""
    fee_text = f" (fee {fee})" if fee else ""
    return (
        f"🏆 **{title}** — {kind}, hosted by {host}\n"
        f"Buy-in {chips(buy_in)}{fee_text} · {seats} per table{when}\n"
        f"Entries: **{entries}{cap}** · {_STATUS_WORD.get(status, status)}"
    )


def tourney_board_line(level: int, ante: int, next_at: int | None, on_break: bool, alive: int, chips_total: int) -> str:
    """PUBLIC, under a tournament table's board: the level in force, its ante, when the next level comes (a Discord
    timestamp: it counts down without an edit), the players left and their average stack."""
    when = (
        ""
        if next_at is None
        else (f" · play resumes <t:{next_at}:R>" if on_break else f" · next level <t:{next_at}:R>")
    )
    average = chips_total // alive if alive else 0
    return f"🏆 Level {level} · ante {ante:,}{when} · {plural(alive, 'player')} left, average stack {average:,}"


def tourney_created(title: str) -> str:
    return f"**{title}** is announced in this channel. Players register with the button or `/tourney register`."


def tourney_registered(title: str, buy_in: int, bank: int, running: bool) -> str:
    seat = " You will be seated at the next table with room." if running else ""
    return f"You are registered in **{title}** ({chips(buy_in)} paid; {bank:,} left in your bank).{seat}"


def tourney_unregistered(title: str, refund: int) -> str:
    return f"You are no longer registered in **{title}**; {chips(refund)} went back to your bank."


def tourney_bots_added(count: int, title: str) -> str:
    return f"{plural(count, 'computer player')} registered in **{title}**."


def tourney_cancelled(title: str, refunds: int) -> str:
    return f"**{title}** is cancelled; {plural(refunds, 'entry', 'entries')} refunded to the banks."


def tourney_table_starts(title: str, table_no: int, mentions: Sequence[str], final: bool) -> str:
    """PUBLIC, in the table's thread: the players seated there (mentioned)."""
    which = "The final table" if final else f"Table {table_no}"
    return f"🏆 {which} of **{title}** starts: {' '.join(mentions)}"


def tourney_seated(mention: str, table_no: int, seat: int, final: bool, moved: bool) -> str:
    """PUBLIC, in the table's thread: a late entry, re-entry or moved player told where they sit (pinged)."""
    where = "the final table" if final else f"table {table_no}"
    why = " (balancing)" if moved else ""
    return f"🏆 {mention}, you are at {where}, seat {seat + 1}{why}."


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def tourney_knockout(mention: str, title: str, place: int, prize: int, can_reenter: bool) -> str:
    """PUBLIC, in the table's thread and the tournament's channel: a player is out (only they are pinged)."""
    where = f" in {_ordinal(place)} place" if place else ""
    money = f", winning {chips(prize)}" if prize else ""
    again = " They may re-enter while registration is open." if can_reenter else ""
    return f"🏆 {mention} is out of **{title}**{where}{money}.{again}"


def tourney_final_table(title: str, mentions: Sequence[str]) -> str:
    """PUBLIC, in the tournament's channel: the final table is drawn."""
    return f"🏆 The final table of **{title}** is drawn: {' '.join(mentions)}"


def tourney_thread_name(title: str, table_no: int, final: bool) -> str:
    return f"{title} · {'final table' if final else f'table {table_no}'}"[:100]


def tourney_info_text(
    title: str,
    status: str,
    level: int,
    ante: int,
    on_break: bool,
    paused: bool,
    seconds_left: float,
    entries: int,
    alive: int,
    pool: int,
    prizes: Sequence[int],
    chips: Sequence[tuple[str, int, int | None]],
    tables: Sequence[tuple[int, Sequence[str]]],
    results: Sequence[tuple[str, int | None, int]],
    money: Sequence[str] = (),
) -> str:
    """PRIVATE (or in the results message): the text twin of the standings — places, stacks, level, clock, tables."""
    lines = [f"🏆 **{title}** — {_STATUS_WORD.get(status, status)}"]
    if status == "running":
        clock = "paused" if paused else ("on a break" if on_break else f"next level in {_clock(seconds_left)}")
        lines.append(f"Level {level} · ante {ante} · {clock}")
    lines.append(f"Entries {entries} · still in {alive} · prize pool {pool}")
    if prizes:
        lines.append("Prizes: " + ", ".join(f"{n}. {p}" for n, p in enumerate(prizes, 1)))
    lines += money  # rebuys, bounties, a guarantee's overlay (presenters/tourney_purse.py)
    if chips:
        lines.append("Chip counts:")
        lines += [
            f"{n}. {name} — {stack}" + (f" (table {table})" if table is not None else "")
            for n, (name, stack, table) in enumerate(chips[:TOURNEY_ROWS], 1)
        ]
        if len(chips) > TOURNEY_ROWS:
            lines.append(f"… and {len(chips) - TOURNEY_ROWS} more")
    if tables and len(tables) <= 3:
        lines.append("Tables: " + "; ".join(f"{no}: {', '.join(names)}" for no, names in tables))
    elif tables:
        lines.append(f"{plural(len(tables), 'table')}: " + ", ".join(f"{no} ({len(names)})" for no, names in tables))
    if results:
        lines.append("Standings:")
        shown = [r for n, r in enumerate(results) if n < TOURNEY_ROWS or r[2]]  # every prize winner is listed
        lines += [f"{place}. {name}" + (f" — wins {prize}" if prize else "") for name, place, prize in shown]
        if len(results) > len(shown):
            lines.append(f"… and {len(results) - len(shown)} more")
    return _fit("\n".join(lines))


def tourney_standings(info: TournamentInfo, name: Callable[[int], str], title: str) -> StandingsSnapshot:
    """The standings image's snapshot (``/tourney info``, the results message): level and clock lines, the field,
    chip counts by place while running (equal stacks share a place) or the final places and prizes."""
    status = _STATUS_WORD.get(info.status.value, info.status.value).capitalize()
    clock = ""
    if info.status.value == "running":
        status = f"Level {info.level} · ante {info.ante}"
        if info.paused:
            clock = "Clock paused by the host"
        elif info.on_break:
            clock = f"On a break · play resumes in {_clock(info.seconds_to_next_level)}"
        else:
            clock = f"Next level in {_clock(info.seconds_to_next_level)}"
    field = f"{_entries(info.entries)} · {info.alive} still in · prize pool {info.prize_pool:,}"
    finished = bool(info.results)
    if finished:
        field = f"{_entries(info.entries)} · prize pool {info.prize_pool:,}"
        rows = tuple(StandingRow(place or 0, name(p), prize) for p, place, prize in info.results)
    else:
        places: list[StandingRow] = []
        for n, (p, chips, table) in enumerate(info.chips, 1):
            shared = places[-1].place if places and places[-1].chips == chips else n
            places.append(StandingRow(shared, name(p), chips, table))
        rows = tuple(places)
    tables = tuple((no, len(players)) for no, players in info.tables)
    started = info.status.value not in ("announced", "registering")
    if not started:  # no places or chips yet: the field line and who is registered
        field = f"{_entries(info.entries)} · prize pool {info.prize_pool:,}"
    registered = tuple(name(p) for p in info.registered) if not started else ()
    return StandingsSnapshot(
        title, status, clock, field, finished, rows, tables=tables, started=started, registered=registered
    )


def _fit(text: str, limit: int = 1900) -> str:
    """A message under Discord's 2000 characters (the cut lands at a line end)."""
    if len(text) <= limit:
        return text
    return text[: text.rfind("\n", 0, limit)] + "\n…"


def tourney_results(title: str, winner: str, text: str) -> str:
    """PUBLIC, in the tournament's channel when it ends: the winner mentioned, then the final standings."""
    return f"🏆 **{title}** is over. Congratulations {winner}!\n{text}"


def tourney_winner_role_note(role: str, *, can_manage: bool) -> str:
    """PRIVATE, to the moderator creating a tournament with a winner role: told once, at creation."""
    if can_manage:
        return f"The winner gets the role {role} when the tournament ends."
    return (
        f"Note: I can't give the role {role} — I need the Manage Roles permission (and my role above it). "
        "Grant it before the tournament ends."
    )


def tourney_winner_role_failed(role_id: int) -> str:
    """PUBLIC, a line of the results message when Discord refused the role (told once: the results are posted once)."""
    return f"I could not give the winner the role <@&{role_id}>: I need Manage Roles, and my role must be above it."


def tourney_winner_role_reason(title: str) -> str:
    """The audit-log reason of a tournament winner role."""
    return f"Won the Pan tournament {title}"[:512]


TOURNEY_WINNER_ROLE_MODS = "Only moderators can attach a winner role to a tournament."
TOURNEY_WELCOME_BACK = "Welcome back: your turns are yours again (no more automatic going on top)."


def tourney_list_text(rows: Sequence[tuple[str, str, int, str]]) -> str:
    """PRIVATE: this server's tournaments (title, status, entries, channel mention)."""
    if not rows:
        return "No tournament is announced or running in this server. `/tourney create` starts one."
    return "\n".join(f"🏆 **{t}** — {_STATUS_WORD.get(s, s)}, {_entries(n)}, in {c}" for t, s, n, c in rows)


TOURNEY_FORM_TITLE = "Announce a tournament"
TOURNEY_FORM_FORMAT = "Format"
TOURNEY_FORM_SNG = "Sit & Go (starts when full)"
TOURNEY_FORM_SCHEDULED = "Scheduled (multi-table, at a start time)"
TOURNEY_FORM_BUY_IN = "Buy-in (bank chips per entry)"
TOURNEY_FORM_SEATS = "Players per table"
TOURNEY_FORM_START = "Start (scheduled tournaments)"
TOURNEY_FORM_START_HINT = "+30 (minutes from now), a Unix time, or YYYY-MM-DD HH:MM (UTC)"
TOURNEY_FORM_NAME = "Name (optional)"
