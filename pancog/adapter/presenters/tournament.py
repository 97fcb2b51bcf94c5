"""Tournaments in words: announcements, registration answers, table moves, standings, results, the winners'
role and the refusals of /pan tourney."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pancog.adapter.presenters.common import chips, plural
from pancog.adapter.safety import plain, shown
from pancog.game.i18n import N_, current, tr, trn
from pancog.services.tournaments.model import TITLE_MAX
from pancog.services.tournaments.service import TournamentInfo
from renderer.standings import StandingRow, StandingsSnapshot

TOURNEY_TABLE_REFUSAL = N_(
    "This is a tournament table: seats, chips and moves belong to the tournament. Use `/tourney register` or "
    "`/tourney unregister` instead."
)
TOURNEY_NONE_HERE = N_("There is no tournament taking part in this channel. `/tourney list` shows this server's.")
TOURNEY_WHICH = N_("Several tournaments run here: pick one with the `tournament` option (`/tourney list`).")
TOURNEY_BAD_START = N_("Give the start as minutes from now (`+30`), a Unix time, or `YYYY-MM-DD HH:MM` in UTC.")
TOURNEY_BAD_NUMBERS = N_("Give a list of whole numbers separated by commas, for example `10,15,20,30`.")
TOURNEY_START_PAST = N_("The start time must be in the future.")
TOURNEY_BOTS_NOT_ALLOWED = N_("This tournament does not allow computer players.")
TOURNEY_PAUSED = N_("⏸ The tournament clock is paused.")
TOURNEY_RESUMED = N_("▶ The tournament clock runs again.")
TOURNEY_STARTED = N_("The tournament has started: tables are opening.")
TOURNEY_ROWS = 15  # chip counts and standings shown in one message (the rest summarised)
_STATUS_WORD = {
    "announced": N_("announced"),
    "registering": N_("registration open"),
    "running": N_("running"),
    "finished": N_("finished"),
    "cancelled": N_("cancelled"),
}


def _status(status: str) -> str:
    """A tournament's status in the task's language."""
    word = _STATUS_WORD.get(status)
    return tr(word) if word else status


def _entries(n: int) -> str:
    return plural(n, "entry", "entries")


def tourney_plain_title(title: str, tournament_id: int) -> str:
    """The title as plain text (control characters dropped): for thread names, images and audit-log reasons, where
    Markdown does not render."""
    return plain(title, limit=TITLE_MAX) or tr("Tournament {number}", number=f"{tournament_id % 10_000:04d}")


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
    kind = tr("Sit & Go") if format_name == "sng" else tr("Scheduled tournament")
    when = tr(" · starts <t:{at}:F> (<t:{at}:R>)", at=start_at) if start_at else tr(" · starts when the table is full")
    cap = f"/{limit}" if limit else ""
    fee_text = tr(" (fee {fee})", fee=fee) if fee else ""
    return "\n".join(
        [
            tr("🏆 **{title}** — {kind}, hosted by {host}", title=title, kind=kind, host=host),
            tr(
                "Buy-in {chips}{fee} · {seats} per table{when}",
                chips=chips(buy_in),
                fee=fee_text,
                seats=seats,
                when=when,
            ),
            tr("Entries: **{entries}** · {status}", entries=f"{entries}{cap}", status=_status(status)),
        ]
    )


def tourney_board_line(level: int, ante: int, next_at: int | None, on_break: bool, alive: int, chips_total: int) -> str:
    """PUBLIC, under a tournament table's board: the level in force, its ante, when the next level comes (a Discord
    timestamp: it counts down without an edit), the players left and their average stack."""
    when = (
        ""
        if next_at is None
        else (tr(" · play resumes <t:{at}:R>", at=next_at) if on_break else tr(" · next level <t:{at}:R>", at=next_at))
    )
    average = chips_total // alive if alive else 0
    return tr(
        "🏆 Level {level} · ante {ante}{when} · {players} left, average stack {average}",
        level=level,
        ante=f"{ante:,}",
        when=when,
        players=plural(alive, "player"),
        average=f"{average:,}",
    )


def tourney_created(title: str) -> str:
    return tr(
        "**{title}** is announced in this channel. Players register with the button or `/tourney register`.",
        title=title,
    )


def tourney_in_series(series: str) -> str:
    """PRIVATE, to the host: the new tournament is an event of a league series (``series``: escaped)."""
    return tr("Listed as an event of the series {series}: its results count in /pan standings series:.", series=series)


def tourney_registered(title: str, buy_in: int, bank: int, running: bool) -> str:
    text = tr(
        "You are registered in **{title}** ({chips} paid; {bank} left in your bank).",
        title=title,
        chips=chips(buy_in),
        bank=f"{bank:,}",
    )
    return text + " " + tr("You will be seated at the next table with room.") if running else text


def tourney_unregistered(title: str, refund: int) -> str:
    return tr(
        "You are no longer registered in **{title}**; {chips} went back to your bank.", title=title, chips=chips(refund)
    )


def tourney_bots_added(count: int, title: str) -> str:
    return trn(
        "{n} computer player registered in **{title}**.",
        "{n} computer players registered in **{title}**.",
        count,
        title=title,
    )


def tourney_cancelled(title: str, refunds: int) -> str:
    return tr("**{title}** is cancelled; {entries} refunded to the banks.", title=title, entries=_entries(refunds))


def tourney_table_starts(title: str, table_no: int, mentions: Sequence[str], final: bool) -> str:
    """PUBLIC, in the table's thread: the players seated there (mentioned)."""
    who = " ".join(mentions)
    if final:
        return tr("🏆 The final table of **{title}** starts: {players}", title=title, players=who)
    return tr("🏆 Table {number} of **{title}** starts: {players}", number=table_no, title=title, players=who)


def tourney_seated(mention: str, table_no: int, seat: int, final: bool, moved: bool) -> str:
    """PUBLIC, in the table's thread: a late entry, re-entry or moved player told where they sit (pinged)."""
    if final and moved:
        return tr("🏆 {mention}, you are at the final table, seat {seat} (balancing).", mention=mention, seat=seat + 1)
    if final:
        return tr("🏆 {mention}, you are at the final table, seat {seat}.", mention=mention, seat=seat + 1)
    if moved:
        return tr(
            "🏆 {mention}, you are at table {number}, seat {seat} (balancing).",
            mention=mention,
            number=table_no,
            seat=seat + 1,
        )
    return tr("🏆 {mention}, you are at table {number}, seat {seat}.", mention=mention, number=table_no, seat=seat + 1)


def _ordinal(n: int) -> str:
    """A place as the task's language writes it (3rd, 3.º, ika-3)."""
    match current():
        case "es":
            return f"{n}.º"
        case "tl":
            return f"ika-{n}"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def tourney_knockout(mention: str, title: str, place: int, prize: int, can_reenter: bool) -> str:
    """PUBLIC, in the table's thread and the tournament's channel: a player is out (only they are pinged)."""
    if place and prize:
        text = tr(
            "🏆 {mention} is out of **{title}** in {place} place, winning {chips}.",
            mention=mention,
            title=title,
            place=_ordinal(place),
            chips=chips(prize),
        )
    elif place:
        text = tr(
            "🏆 {mention} is out of **{title}** in {place} place.", mention=mention, title=title, place=_ordinal(place)
        )
    else:
        text = tr("🏆 {mention} is out of **{title}**.", mention=mention, title=title)
    return text + " " + tr("They may re-enter while registration is open.") if can_reenter else text


def tourney_final_table(title: str, mentions: Sequence[str]) -> str:
    """PUBLIC, in the tournament's channel: the final table is drawn."""
    return tr("🏆 The final table of **{title}** is drawn: {players}", title=title, players=" ".join(mentions))


def tourney_thread_name(title: str, table_no: int, final: bool) -> str:
    which = tr("final table") if final else tr("table {number}", number=table_no)
    return f"{title} · {which}"[:100]


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
    lines = [f"🏆 **{title}** — {_status(status)}"]
    if status == "running":
        if paused:
            clock = tr("paused")
        elif on_break:
            clock = tr("on a break")
        else:
            clock = tr("next level in {clock}", clock=_clock(seconds_left))
        lines.append(tr("Level {level} · ante {ante} · {clock}", level=level, ante=ante, clock=clock))
    lines.append(
        tr("Entries {entries} · still in {alive} · prize pool {pool}", entries=entries, alive=alive, pool=pool)
    )
    if prizes:
        lines.append(tr("Prizes: {prizes}", prizes=", ".join(f"{n}. {p}" for n, p in enumerate(prizes, 1))))
    lines += money  # rebuys, bounties, a guarantee's overlay (presenters/tourney_purse.py)
    if chips:
        lines.append(tr("Chip counts:"))
        lines += [
            f"{n}. {name} — {stack}" + (tr(" (table {number})", number=table) if table is not None else "")
            for n, (name, stack, table) in enumerate(chips[:TOURNEY_ROWS], 1)
        ]
        if len(chips) > TOURNEY_ROWS:
            lines.append(tr("… and {n} more", n=len(chips) - TOURNEY_ROWS))
    if tables and len(tables) <= 3:
        lines.append(tr("Tables: {tables}", tables="; ".join(f"{no}: {', '.join(names)}" for no, names in tables)))
    elif tables:
        lines.append(
            trn("{n} table", "{n} tables", len(tables))
            + ": "
            + ", ".join(f"{no} ({len(names)})" for no, names in tables)
        )
    if results:
        lines.append(tr("Standings:"))
        shown = [r for n, r in enumerate(results) if n < TOURNEY_ROWS or r[2]]  # every prize winner is listed
        lines += [
            f"{place}. {name}" + (" — " + tr("wins {prize}", prize=prize) if prize else "")
            for name, place, prize in shown
        ]
        if len(results) > len(shown):
            lines.append(tr("… and {n} more", n=len(results) - len(shown)))
    return _fit("\n".join(lines))


def tourney_standings(info: TournamentInfo, name: Callable[[int], str], title: str) -> StandingsSnapshot:
    """The standings image's snapshot (``/tourney info``, the results message): level and clock lines, the field,
    chip counts by place while running (equal stacks share a place) or the final places and prizes."""
    status = _status(info.status.value).capitalize()
    clock = ""
    if info.status.value == "running":
        status = tr("Level {level} · ante {ante}", level=info.level, ante=info.ante)
        if info.paused:
            clock = tr("Clock paused by the host")
        elif info.on_break:
            clock = tr("On a break · play resumes in {clock}", clock=_clock(info.seconds_to_next_level))
        else:
            clock = tr("Next level in {clock}", clock=_clock(info.seconds_to_next_level))
    field = tr(
        "{entries} · {alive} still in · prize pool {pool}",
        entries=_entries(info.entries),
        alive=info.alive,
        pool=f"{info.prize_pool:,}",
    )
    finished = bool(info.results)
    if finished:
        field = tr("{entries} · prize pool {pool}", entries=_entries(info.entries), pool=f"{info.prize_pool:,}")
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
        field = tr("{entries} · prize pool {pool}", entries=_entries(info.entries), pool=f"{info.prize_pool:,}")
    registered = tuple(name(p) for p in info.registered) if not started else ()
    return StandingsSnapshot(
        title,
        status,
        clock,
        field,
        finished,
        rows,
        tables=tables,
        started=started,
        registered=registered,
        lang=current(),
    )


def _fit(text: str, limit: int = 1900) -> str:
    """A message under Discord's 2000 characters (the cut lands at a line end)."""
    if len(text) <= limit:
        return text
    return text[: text.rfind("\n", 0, limit)] + "\n…"


def tourney_results(title: str, winner: str, text: str) -> str:
    """PUBLIC, in the tournament's channel when it ends: the winner mentioned, then the final standings."""
    return tr("🏆 **{title}** is over. Congratulations {winner}!", title=title, winner=winner) + "\n" + text


def tourney_winner_role_note(role: str, *, can_manage: bool) -> str:
    """PRIVATE, to the moderator creating a tournament with a winner role: told once, at creation."""
    if can_manage:
        return tr("The winner gets the role {role} when the tournament ends.", role=role)
    return tr(
        "Note: I can't give the role {role} — I need the Manage Roles permission (and my role above it). "
        "Grant it before the tournament ends.",
        role=role,
    )


def tourney_winner_role_failed(role_id: int) -> str:
    """PUBLIC, a line of the results message when Discord refused the role (told once: the results are posted once)."""
    return tr(
        "I could not give the winner the role {role}: I need Manage Roles, and my role must be above it.",
        role=f"<@&{role_id}>",
    )


def tourney_winner_role_reason(title: str) -> str:
    """The audit-log reason of a tournament winner role (moderators read it in the audit log: English)."""
    return f"Won the Pan tournament {title}"[:512]


TOURNEY_WINNER_ROLE_MODS = N_("Only moderators can attach a winner role to a tournament.")
TOURNEY_SERIES_MODS = N_("Only moderators can list a tournament in a series.")
TOURNEY_WELCOME_BACK = N_("Welcome back: your turns are yours again (no more automatic going on top).")


def tourney_list_text(rows: Sequence[tuple[str, str, int, str]]) -> str:
    """PRIVATE: this server's tournaments (title, status, entries, channel mention)."""
    if not rows:
        return tr("No tournament is announced or running in this server. `/tourney create` starts one.")
    return "\n".join(
        tr(
            "🏆 **{title}** — {status}, {entries}, in {channel}",
            title=t,
            status=_status(s),
            entries=_entries(n),
            channel=c,
        )
        for t, s, n, c in rows
    )


TOURNEY_FORM_TITLE = N_("Announce a tournament")
TOURNEY_FORM_FORMAT = N_("Format")
TOURNEY_FORM_SNG = N_("Sit & Go (starts when full)")
TOURNEY_FORM_SCHEDULED = N_("Scheduled (multi-table, at a start time)")
TOURNEY_FORM_BUY_IN = N_("Buy-in (bank chips per entry)")
TOURNEY_FORM_SEATS = N_("Players per table")
TOURNEY_FORM_START = N_("Start (scheduled tournaments)")
TOURNEY_FORM_START_HINT = N_("+30 (minutes from now), a Unix time, or YYYY-MM-DD HH:MM (UTC)")
TOURNEY_FORM_NAME = N_("Name (optional)")
TOURNEY_REGISTER_BUTTON = N_("Register")
TOURNEY_UNREGISTER_BUTTON = N_("Unregister")
