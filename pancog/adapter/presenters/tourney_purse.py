"""Tournament money in words: rebuys and the add-on, bounties, a guaranteed pool's overlay and satellite seats (the
announcement's terms, /tourney info's lines, the knock-out's bounty, the answers to /tourney rebuy and addon)."""

from __future__ import annotations

from collections.abc import Callable

from pancog.adapter.presenters.common import chips
from pancog.game.i18n import N_, tr
from pancog.services.tournaments.model import TournamentConfig
from pancog.services.tournaments.service import TournamentInfo

__all__ = [
    "TOURNEY_BAD_BOUNTY",
    "TOURNEY_GUARANTEE_MODS",
    "TOURNEY_NO_TARGET",
    "tourney_bought",
    "tourney_bounty_line",
    "tourney_purse_lines",
    "tourney_terms",
]

TOURNEY_BAD_BOUNTY = N_("Give the bounty in chips, e.g. 25, or 25p for a progressive bounty.")
TOURNEY_GUARANTEE_MODS = N_("Only moderators can guarantee a prize pool: the house pays the overlay.")
TOURNEY_NO_TARGET = N_(
    "Name the satellite's target by its exact title or its number: one tournament of this server that has not started."
)


def tourney_terms(cfg: TournamentConfig, target: str | None = None) -> str:
    """PUBLIC, under the announcement: the rebuys, add-on, bounty, guarantee and satellite terms ("" if none)."""
    parts: list[str] = []
    if cfg.rebuy_levels:
        limit = cfg.rebuy_stack or cfg.starting_stack
        parts.append(
            tr(
                "Rebuys during levels 1–{levels} at {limit} chips or less",
                levels=cfg.rebuy_levels,
                limit=f"{limit:,}",
            )
            + (" " + tr("(at most {n} each)", n=cfg.max_rebuys) if cfg.max_rebuys else "")
        )
    if cfg.addon:
        parts.append(tr("one add-on at the end of the rebuys"))
    if cfg.bounty:
        if cfg.progressive:
            parts.append(tr("progressive bounty {bounty}", bounty=chips(cfg.bounty)))
        else:
            parts.append(tr("bounty {bounty} a head", bounty=chips(cfg.bounty)))
    if cfg.guarantee:
        parts.append(tr("{pool} guaranteed", pool=chips(cfg.guarantee)))
    if target is not None:
        parts.append(tr("prizes are seats in {target}", target=target))
    return " · ".join(parts)


def tourney_purse_lines(info: TournamentInfo, name: Callable[[int], str], target: str | None = None) -> list[str]:
    """PRIVATE (/tourney info) and PUBLIC (the results): the overlay, rebuys and add-ons bought, the bounties."""
    lines: list[str] = []
    if info.guarantee:
        if info.overlay:
            lines.append(
                tr(
                    "Guaranteed {guarantee}: the house adds an overlay of {overlay}.",
                    guarantee=chips(info.guarantee),
                    overlay=chips(info.overlay),
                )
            )
        else:
            lines.append(tr("Guaranteed {guarantee}: met, no overlay.", guarantee=chips(info.guarantee)))
    if info.rebuys or info.addons or info.rebuy_open or info.addon_open:
        now = []
        if info.rebuy_open:
            now.append(tr("rebuys are open"))
        if info.addon_open:
            now.append(tr("the add-on is open"))
        line = tr("Rebuys {rebuys} · add-ons {addons}", rebuys=info.rebuys, addons=info.addons)
        lines.append(line + (" · " + ", ".join(now) if now else ""))
    if info.bounty:
        if info.progressive:
            lines.append(tr("Progressive bounty: {bounty} a head to start.", bounty=chips(info.bounty)))
        else:
            lines.append(tr("Bounty: {bounty} a head.", bounty=chips(info.bounty)))
        top = [(p, h, w) for p, h, w in info.bounties if w][:5]
        if top:
            lines.append(tr("Bounties won: {list}", list=", ".join(f"{name(p)} {chips(w)}" for p, _h, w in top)))
    if target is not None:
        lines.append(tr("Satellite: the prizes are {n} seats in {target}.", n=info.satellite_seats, target=target))
        winners = [name(p) for p, place, _prize in info.results if place is not None and place <= info.satellite_seats]
        if winners:
            lines.append(tr("Seats in {target}: {names}", target=target, names=", ".join(winners)))
    return lines


def tourney_bounty_line(eliminator: str, amount: int) -> str:
    """PUBLIC, after the knock-out line (the eliminator is named, not pinged)."""
    return tr("🎯 {name} collects a bounty of {amount}.", name=eliminator, amount=chips(amount))


def tourney_bought(title: str, addon: bool, price: int, stack: int, bank: int) -> str:
    """PRIVATE: the answer to /tourney rebuy or /tourney addon."""
    fields = {"title": title, "stack": f"{stack:,}", "price": chips(price), "bank": chips(bank)}
    if addon:
        text = tr("Add-on in **{title}**: {stack} tournament chips for {price} (bank {bank}).", **fields)
    else:
        text = tr("Rebuy in **{title}**: {stack} tournament chips for {price} (bank {bank}).", **fields)
    return text + " " + tr("They join your stack before your next hand.")
