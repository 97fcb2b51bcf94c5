"""The practice coach's words and "what you would collect if you went out now". Everything here is PRIVATE to the
player it is about (his My hand panel, or a private note after a practice hand).

One function per sentence or clause, its placeholders as keyword arguments (figures and names already formatted),
so a translation catalog can take them over one by one.
"""

from __future__ import annotations

from collections.abc import Sequence

from pancog.adapter.presenters.common import Names, chips, name_of
from pancog.adapter.presenters.hand import action_label
from pancog.ai.coach import BetterMeld, Miss, MissedForce, OutCardGiven, PlayFacts
from pancog.game.actions import Action, GoOnTop, Pluck
from pancog.game.cards import Card
from pancog.game.i18n import counted as plural
from pancog.game.i18n import tr
from pancog.game.state import TableState
from pancog.services.coach import HandReview, OutNow

# --------------------------------------------------------------------------------------------- going out now


def payment_item(*, name: str, amount: str) -> str:
    """One payer and what he would pay ("🤖 Normal bot 1 3 chips")."""
    return f"{name} {amount}"


def tops_item(*, amount: str) -> str:
    """The tops and what they hold."""
    return tr("the tops {amount}", amount=amount)


def collect_if_out_now(*, total: str, items: str) -> str:
    """PRIVATE: what the player would collect by going out with the board as it lies."""
    return tr("If you went out now: {total} ({items}).", total=total, items=items)


def collect_going_out(*, play: str, total: str, items: str) -> str:
    """PRIVATE: what the player's going-out play collects."""
    return tr("Going out now ({play}) collects {total} ({items}).", play=play, total=total, items=items)


def out_now_text(state: TableState, names: Names, out: OutNow) -> str:
    """PRIVATE: the My hand line "what you would collect if you went out now", payer by payer, then the tops."""
    parts = []
    for seat, amount in out.payments:
        s = state.seat(seat)
        parts.append(payment_item(name=name_of(names, s.player_id if s else None), amount=chips(amount)))
    if out.tops:
        parts.append(tops_item(amount=chips(out.tops)))
    items = ", ".join(parts)
    if out.play is not None:
        return collect_going_out(play=action_label(out.play), total=chips(out.total), items=items)
    return collect_if_out_now(total=chips(out.total), items=items)


# --------------------------------------------------------------------------------------------- the panel's reasons


def coach_heading() -> str:
    """PRIVATE: before the reasons on a practice table's My hand."""
    return tr("**Coach**: why the top plays rank where they do")


def coach_line(*, rank: int, play: str, reasons: str) -> str:
    """One of the top plays and its reasons."""
    return tr("{rank}. {play} — {reasons}.", rank=rank, play=play, reasons=reasons)


def reason_goes_out() -> str:
    return tr("puts you out")


def reason_melds(*, cards: str) -> str:
    return tr("melds {cards}", cards=cards)


def reason_collects(*, amount: str) -> str:
    return tr("collects {amount} now", amount=amount)


def reason_hits_after(*, percent: int) -> str:
    return tr("then {percent}% of the unseen cards would be a hit for you", percent=percent)


def reason_knock(*, percent: int) -> str:
    return tr("about {percent}% of the unseen cards would give you a hit", percent=percent)


def reason_sluff() -> str:
    return tr("you lose only your ante")


def reason_option() -> str:
    return tr("the option card melds at once and counts as your hit")


def reason_pluck() -> str:
    return tr("a fresh card off the stock")


def reason_dead_card() -> str:
    return tr("the card melds with nothing you hold")


def reason_feeds_next() -> str:
    return tr("but it fits the next player's board")


def reason_forced_back() -> str:
    return tr("but it fits your own board, so it can be forced back on you")


def reason_none() -> str:
    return tr("keeps your hand as it is")


def _percent(x: float) -> int:
    return round(100 * min(1.0, max(0.0, x)))


def reasons(facts: PlayFacts) -> list[str]:
    """The clauses that say why a play ranks where it does, most telling first."""
    out: list[str] = []
    action: Action = facts.action
    if facts.goes_out:
        out.append(reason_goes_out())
    if facts.cards_down:
        out.append(reason_melds(cards=plural(facts.cards_down, "card")))
    if facts.chips:
        out.append(reason_collects(amount=chips(facts.chips)))
    if facts.option_melds:
        out.append(reason_option())
    if facts.knock_hits is not None:
        if isinstance(action, GoOnTop):
            out.append(reason_sluff())
        out.append(reason_knock(percent=_percent(facts.knock_hits)))
    if isinstance(action, Pluck):
        out.append(reason_pluck())
    if facts.dead_card:
        out.append(reason_dead_card())
    if facts.hits_after is not None:
        out.append(reason_hits_after(percent=_percent(facts.hits_after)))
    if facts.feeds_next:
        out.append(reason_feeds_next())
    if facts.forced_back:
        out.append(reason_forced_back())
    return out or [reason_none()]


def coach_text(facts: Sequence[PlayFacts], plays: Sequence[tuple[Action, int]]) -> str:
    """PRIVATE: the coach's lines on a practice table's My hand ('' when there is nothing to explain)."""
    if not facts:
        return ""
    pays = dict(plays)
    lines = [coach_heading()]
    for f in facts:
        label = action_label(f.action, pays.get(f.action, 0))
        lines.append(coach_line(rank=f.rank, play=label, reasons="; ".join(reasons(f))))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------- after the hand


def review_heading(*, hand_no: int) -> str:
    """PRIVATE: the coach's note after a practice hand."""
    return tr("**Coach, hand {hand_no}**", hand_no=hand_no)


def nothing_missed(*, hand_no: int) -> str:
    """PRIVATE: the coach found nothing to say about a practice hand."""
    return tr("**Coach, hand {hand_no}**: nothing missed.", hand_no=hand_no)


def missed_going_out(*, turn: int, better: str, played: str) -> str:
    return tr(
        "Turn {turn}: {better} would have put you out; you played {played}.", turn=turn, better=better, played=played
    )


def missed_better_meld(*, turn: int, better: str, better_amount: str, played: str, played_amount: str) -> str:
    return tr(
        "Turn {turn}: {better} would have collected {better_amount}; you played {played} ({played_amount}).",
        turn=turn,
        better=better,
        better_amount=better_amount,
        played=played,
        played_amount=played_amount,
    )


def missed_force(*, card: str, target: str) -> str:
    return tr(
        "You could have forced {card} on {target}: it paid them nothing and broke up their hand.",
        card=card,
        target=target,
    )


def gave_out_card(*, card: str, taker: str) -> str:
    return tr("Your discard {card} was the card {taker} went out with.", card=card, taker=taker)


def _card(card: Card) -> str:
    return card.pretty


def miss_text(miss: Miss, review: HandReview, names: Names) -> str:
    """One line of the note."""

    def who(seat: int) -> str:
        ids = review.player_ids
        return name_of(names, ids[seat] if 0 <= seat < len(ids) else None)

    match miss:
        case BetterMeld() if miss.better_goes_out:
            return missed_going_out(turn=miss.hand_turn, better=action_label(miss.better), played=action_label(
                miss.played))  # fmt: skip
        case BetterMeld():
            return missed_better_meld(
                turn=miss.hand_turn,
                better=action_label(miss.better),
                better_amount=chips(miss.better_chips),
                played=action_label(miss.played),
                played_amount=chips(miss.played_chips),
            )
        case MissedForce():
            return missed_force(card=_card(miss.card), target=who(miss.target))
        case OutCardGiven():
            return gave_out_card(card=_card(miss.card), taker=who(miss.taker))


def review_text(review: HandReview, names: Names) -> str:
    """PRIVATE: the coach's note on a finished practice hand."""
    if not review.misses:
        return nothing_missed(hand_no=review.hand_no)
    lines = [review_heading(hand_no=review.hand_no)]
    lines.extend("• " + miss_text(m, review, names) for m in review.misses)
    return "\n".join(lines)[:2000]
