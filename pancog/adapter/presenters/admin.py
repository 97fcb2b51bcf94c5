"""What moderators see and are told: /panadmin config and channels, where Pan may be played, the status and
audit answers, and the moderator-only refusals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pancog.game.i18n import N_, tr

NEEDS_MODERATOR = N_("You need the Manage Server permission (or the moderator role) for that.")


def server_config_text(
    preset: str,
    starting_chips: int,
    daily_amount: int,
    moderator_role_id: int | None,
    *,
    four_color: bool = False,
    ping_after: float = 5.0,
) -> str:
    """PRIVATE: /panadmin config — the server's defaults after the change."""
    role = f"<@&{moderator_role_id}>" if moderator_role_id else tr("none")
    board = tr("on") if four_color else tr("off")
    ping = tr("after {seconds} s without a move", seconds=f"{ping_after:g}") if ping_after > 0 else tr("at once")
    return tr(
        "Preset: {preset}. Starting chips: {chips}. Daily: {daily}. Moderator role: {role}. "
        "Four-colour board: {board}. Turn pings: {ping}.",
        preset=preset,
        chips=f"{starting_chips:,}",
        daily=f"{daily_amount:,}",
        role=role,
        board=board,
        ping=ping,
    )


def board_layout_setting(*, layout: str) -> str:
    """PRIVATE: /panadmin config — the public board's layout (follows `server_config_text`)."""
    if layout == "phone":
        return tr("Public board: phone layout (tall, one column; wide screens show it narrow).")
    return tr("Public board: wide layout (players can choose the phone layout for themselves in /pan settings).")


def server_language_setting(*, language: str, own: bool) -> str:
    """PRIVATE: /panadmin config — the language of the server's public posts (follows `board_layout_setting`)."""
    if own:
        return tr("Language: {language} (players may choose their own in /pan settings).", language=language)
    return tr("Language: {language} (from the server's Discord locale).", language=language)


PING_AFTER_RANGE = N_("ping_after is a number of seconds from 0 (ping at once) to 60.")
CHANNEL_NEEDED = N_("Pick the channel to add or remove.")


def channels_text(channel_ids: Sequence[int]) -> str:
    """PRIVATE: /panadmin channels — where Pan may be used now."""
    if not channel_ids:
        return tr("Pan can be used in every channel of this server.")
    return tr("Pan can be used only in: {channels}.", channels=", ".join(f"<#{c}>" for c in channel_ids))


def pan_not_here(channel_ids: Sequence[int]) -> str:
    """PRIVATE refusal: the server allows Pan only in some channels."""
    return tr(
        "Pan isn't played in this channel. Try {channels}.", channels=", ".join(f"<#{c}>" for c in channel_ids[:10])
    )


def board_failed(error: str) -> str:
    """A failed board update, as /pan status lists it."""
    return tr("board update failed: {error}", error=error)


STATUS_FOR_MODERATORS = N_("Only server moderators can see the bot status.")
AUDIT_FOR_MODERATORS = N_("Only server moderators can run the ledger audit.")


def audit_text(summary: str, books: Sequence[str]) -> str:
    return tr("Ledger audit: {summary}", summary=summary) + ("\n" + "\n".join(books) if books else "")


# Why an owed side effect (pancog/adapter/effects.py) could not be delivered: kept on the outbox item and shown to
# moderators (/panadmin season roles, /panadmin status). A clause that follows "still owed: ".
EFFECT_CANNOT_GIVE_ROLE = "the bot lacks Manage Roles, or its own role is below the one to give"
EFFECT_NO_SUCH_ROLE = "the role no longer exists"
EFFECT_NO_SERVER = "the bot is no longer in this server"
EFFECT_NO_EVENTS = "the bot lacks Manage Events: the tournament is not published as a Discord event"
EFFECT_CANNOT_POST = "the bot may not post in <#{channel}>"
EFFECT_NO_SUCH_CHANNEL = "the channel <#{channel}> no longer exists"
EFFECT_CANNOT_DM = "the member does not take direct messages from the bot"


def effect_no_handler(kind: str) -> str:
    return f"this version of the bot cannot deliver {kind!r} (a newer one wrote it)"


def owed_line(counts: Mapping[Any, int]) -> str:
    """/panadmin status: the server's Discord side effects still owed (a season's roles, posts) and refused ones."""
    owed, failed = counts.get("owed", 0), counts.get("failed", 0)
    if not owed and not failed:
        return ""
    parts = []
    if owed:
        parts.append(tr("{n} being delivered (retried by itself)", n=owed))
    if failed:
        parts.append(
            tr(
                "{n} refused by Discord (a season's roles: /panadmin season roles says why and tries again)",
                n=failed,
            )
        )
    return tr("Owed side effects: {parts}.", parts="; ".join(parts))
