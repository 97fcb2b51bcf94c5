"""Templates, weekly schedules and their Discord Scheduled Events in words: the answers to ``/tourney template …``,
``/tourney templates`` and ``/tourney schedule …`` (private), and the event's description and the one notice that the
bot may not publish events (public, the server's language)."""

from __future__ import annotations

from collections.abc import Sequence

from pancog.adapter.safety import shown
from pancog.game.i18n import N_, tr
from pancog.services.tournaments.model import TITLE_MAX, TournamentConfig
from pancog.services.tournaments.schedules import Schedule, Template

__all__ = [
    "SCHEDULE_BAD_NUMBER",
    "event_description",
    "events_refused_notice",
    "schedule_list_text",
    "schedule_made",
    "schedule_stopped",
    "template_deleted",
    "template_list_text",
    "template_saved",
]

SCHEDULE_BAD_NUMBER = N_("Name the schedule by its number (see /tourney schedule list).")


def _name(name: str) -> str:
    return shown(name, limit=TITLE_MAX)


def template_saved(name: str, title: str) -> str:
    """PRIVATE: the answer to /tourney template save."""
    return tr(
        "Saved the settings of {title} as the template **{name}** (all but its start and title). "
        "Run it every week with /tourney schedule weekly.",
        title=title,
        name=_name(name),
    )


def template_deleted(name: str) -> str:
    """PRIVATE: the answer to /tourney template delete."""
    return tr("Deleted the template **{name}**. Schedules made from it keep their copy.", name=_name(name))


def _terms(cfg: TournamentConfig) -> str:
    return tr(
        "buy-in {buy_in}, {seats} a table, {minutes}-minute levels",
        buy_in=f"{cfg.buy_in:,}",
        seats=cfg.seats,
        minutes=f"{cfg.minutes_per_level:g}",
    )


def template_list_text(templates: Sequence[tuple[Template, TournamentConfig]]) -> str:
    """PRIVATE: /tourney templates."""
    if not templates:
        return tr("No templates here yet: save one with /tourney template save.")
    lines = [tr("Templates of this server:")]
    lines += [f"- **{_name(t.name)}**: {_terms(cfg)}" for t, cfg in templates]
    return "\n".join(lines)


def _runs(s: Schedule) -> str:
    if s.occurrences:
        return tr("for {n} weeks", n=s.occurrences)
    return tr("until stopped")


def schedule_made(s: Schedule, channel_id: int) -> str:
    """PRIVATE: the answer to /tourney schedule weekly."""
    return tr(
        "Weekly schedule {number} of **{name}** made, {runs}: first start <t:{start}:F>. Each week's tournament is "
        "announced in <#{channel}> {hours} hours before its start and published as a Discord event.",
        number=s.schedule_id,
        name=_name(s.name),
        runs=_runs(s),
        start=s.first_start_ms // 1000,
        channel=channel_id,
        hours=s.announce_ms // 3_600_000,
    )


def schedule_list_text(schedules: Sequence[Schedule]) -> str:
    """PRIVATE: /tourney schedule list."""
    if not schedules:
        return tr("No weekly schedules here.")
    lines = [tr("Weekly schedules of this server:")]
    for s in schedules:
        start = (s.next_start_ms or 0) // 1000
        lines.append(
            tr(
                "- `{number}` **{name}** in <#{channel}>: next start <t:{start}:F> (<t:{start}:R>), {runs}",
                number=s.schedule_id,
                name=_name(s.name),
                channel=s.channel_id,
                start=start,
                runs=_runs(s),
            )
        )
    return "\n".join(lines)


def schedule_stopped(s: Schedule) -> str:
    """PRIVATE: the answer to /tourney schedule stop."""
    return tr(
        "Stopped the schedule of **{name}**: no more weeks. A tournament already announced still runs "
        "(cancel it with /tourney cancel).",
        name=_name(s.name),
    )


def event_description(cfg: TournamentConfig, link: str) -> str:
    """PUBLIC (the Discord event's description, plain text): the buy-in, the format and where to register."""
    return tr(
        "Pan tournament: buy-in {buy_in} chips, {seats} a table, {minutes}-minute levels. Register: {link}",
        buy_in=f"{cfg.buy_in:,}",
        seats=cfg.seats,
        minutes=f"{cfg.minutes_per_level:g}",
        link=link,
    )


def events_refused_notice(host_id: int) -> str:
    """PUBLIC, once per schedule, in its channel: Discord refused the event (the bot lacks Manage Events)."""
    return tr(
        "<@{host}>: I cannot publish this schedule's tournaments as Discord events: I need the Manage Events "
        "permission (see the admin guide). The tournaments themselves go on as announced here.",
        host=host_id,
    )
