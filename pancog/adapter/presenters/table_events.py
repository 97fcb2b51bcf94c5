"""The board's event lines: what happened at the table in plain words (public: private events are skipped),
the chip lines of a hand's payments and the end-of-hand sentence. Split from presenters/table.py, which keeps the
board's line, the snapshots and the table commands' answers."""

from collections.abc import Sequence

from pancog.adapter.presenters.common import (
    Names,
    cards_text,
    chips,
    name_of,
    plural,
    seat_name,
    units,
)
from pancog.game.events import (
    AwaySet,
    CardPlucked,
    CashedOut,
    ChipReason,
    ChipsMoved,
    Declared,
    Discarded,
    DrawDeclined,
    Event,
    Forced,
    FoulCalled,
    HandEnded,
    HandFouled,
    HandStarted,
    MakeGoodDemanded,
    MarriedSplitOffered,
    Melded,
    OptionTaken,
    PlayerBusted,
    PlayerQuit,
    PlayStarted,
    PluckVoided,
    SeatLeft,
    SeatTaken,
    SplitDeclined,
    SplitOffered,
    StockReshuffled,
    TimedOut,
    UpcardTurned,
    WentOut,
)
from pancog.game.i18n import tr
from pancog.game.state import EndReason, Pot, TableState


def _cause_text(cause: object) -> str:
    if str(cause) == "invalid_meld":
        return tr("an invalid spread")
    if str(cause) == "abandoned":
        return tr("abandoning the hand")
    return str(cause)


def end_text(state: TableState, names: Names, e: HandEnded) -> str:
    who = seat_name(state, names, e.winner)
    n = e.hand_no
    match e.reason:
        case EndReason.OUT:
            return tr("Hand {n} is over: **{name}** went out.", n=n, name=who)
        case EndReason.LONE:
            return tr("Hand {n} is over: everyone else went on top, **{name}** takes the tops.", n=n, name=who)
        case EndReason.NOBODY:
            return tr("Hand {n} is over: nobody played; the tops carry over.", n=n)
        case EndReason.SPLIT:
            first, second = (seat_name(state, names, s) for s in (*e.splitters, None, None)[:2])
            return tr("Hand {n} is over: {first} and {second} split the tops.", n=n, first=first, second=second)
        case EndReason.SETTLED:
            return tr(
                "Hand {n} is over: **{name}** is the last player in action and is paid as the board lies.",
                n=n,
                name=who,
            )
        case EndReason.VOID:
            return tr("Hand {n} is void: the stock ran out. Pays made stand; the tops carry over.", n=n)
    return tr("Hand {n} is over.", n=n)


def _pot_name(pot: str) -> str:
    return tr("the doubles tops") if pot == Pot.DOUBLES.value else tr("the singles tops")


def _account_name(state: TableState, names: Names, account: int | Pot) -> str:
    return _pot_name(account.value) if isinstance(account, Pot) else seat_name(state, names, account)


def _chip_lines(state: TableState, names: Names, moves: Sequence[ChipsMoved]) -> list[str]:
    """Group chip movements: per payee and reason (antes summarised)."""
    lines: list[str] = []
    groups: dict[tuple[str, ChipReason], list[ChipsMoved]] = {}
    for m in moves:
        payee = m.payee.value if isinstance(m.payee, Pot) else str(m.payee)
        groups.setdefault((payee, m.reason), []).append(m)
    for (payee, reason), items in groups.items():
        total = sum(m.amount for m in items)
        if reason is ChipReason.ANTE:
            lines.append(tr("Antes: {chips} into {tops}.", chips=chips(total), tops=_pot_name(payee)))
            continue
        if reason is ChipReason.RAKE:
            continue
        payee_name = _pot_name(payee) if not payee.isdigit() else seat_name(state, names, int(payee))
        payers = ", ".join(f"{_account_name(state, names, m.payer)} {m.amount}" for m in items)
        what = _reason_words(reason)
        lines.append(
            tr(
                "{payee} receives {chips} — {what} ({payers}).",
                payee=payee_name,
                chips=chips(total),
                what=what,
                payers=payers,
            )
        )
    return lines


def _reason_words(reason: ChipReason) -> str:
    match reason:
        case ChipReason.CONDITION:
            return tr("for conditions")
        case ChipReason.OUTS:
            return tr("for the outs")
        case ChipReason.GOING_OUT:
            return tr("for going out")
        case ChipReason.BUST_OUT:
            return tr("bust-out bonus")
        case ChipReason.TOPS:
            return tr("the tops")
        case ChipReason.SPLIT:
            return tr("a share of the split tops")
        case ChipReason.REFUND:
            return tr("refunds from a foul hand")
        case ChipReason.TOPS_REFUND:
            return tr("tops refunded")
        case ChipReason.FORFEIT:
            return tr("forfeit")
        case ChipReason.FORFEIT_BACK:
            return tr("forfeit returned")
    return reason.value


def describe_events(
    before: TableState, after: TableState, names: Names, events: Sequence[Event], *, tournament: bool = False
) -> list[str]:
    """PUBLIC lines for the board: what happened, in plain words. Private events are skipped. At a tournament
    table nobody takes chips to a bank (its chips stay the tournament's; a knock-out is announced on its own)."""
    lines: list[str] = []
    moves: list[ChipsMoved] = []

    def who(seat: int) -> str:
        s = before.seat(seat) or after.seat(seat)
        return name_of(names, s.player_id) if s is not None else tr("seat {number}", number=seat + 1)

    for e in events:
        if e.private_to is not None:
            continue
        match e:
            case SeatTaken():
                s = after.seat(e.seat)
                lines.append(_sat_line(name_of(names, e.player_id), s.stack if s is not None else None, e.doubles))
            case SeatLeft():
                lines.append(tr("{name} left the table.", name=name_of(names, e.player_id)))
            case CashedOut() if not tournament:
                lines.append(
                    tr("{name} took {chips} back to the bank.", name=name_of(names, e.player_id), chips=chips(e.amount))
                )
            case AwaySet():
                lines.append(
                    tr("{name} is away.", name=who(e.seat)) if e.away else tr("{name} is back.", name=who(e.seat))
                )
            case HandStarted():
                lines.append(
                    tr(
                        "Hand {n} dealt to {players}; {name} is first hand.",
                        n=e.hand_no,
                        players=plural(len(e.dealt), "player"),
                        name=who(e.first),
                    )
                )
            case UpcardTurned():
                lines.append(tr("The upcard is {card}.", card=e.card.pretty))
            case Declared():
                if e.playing:
                    line = tr("{name} knocked — plays (changed).") if e.changed else tr("{name} knocked — plays.")
                else:
                    line = tr("{name} went on top (changed).") if e.changed else tr("{name} went on top.")
                lines.append(line.format(name=who(e.seat)))
            case PlayStarted():
                lines.append(tr("Play starts: {name} draws first.", name=who(e.seat)))
            case CardPlucked():
                lines.append(tr("{name} plucked {card}.", name=who(e.seat), card=e.card.pretty))
            case OptionTaken():
                lines.append(tr("{name} took the option card {card}.", name=who(e.seat), card=e.card.pretty))
            case Melded():
                laid = cards_text([*([e.drawn] if e.drawn else []), *e.cards])
                line = _meld_line(e.kind.value).format(name=who(e.seat), cards=laid)
                if e.units:
                    line = tr("{play}, a condition worth {units}.", play=line, units=units(e.units))
                else:
                    line += "."
                lines.append(line)
            case Discarded():
                lines.append(tr("{name} discarded {card}.", name=who(e.seat), card=e.card.pretty))
            case Forced():
                forced = (
                    tr("{name} forced {card} back on {target}.") if e.back else tr("{name} forced {card} on {target}.")
                )
                lines.append(forced.format(name=who(e.caller), card=e.card.pretty, target=who(e.target)))
            case PluckVoided():
                lines.append(tr("{name}'s pluck {card} is dead.", name=who(e.seat), card=e.card.pretty))
            case FoulCalled():
                caller = tr("The floor") if e.caller is None else who(e.caller)
                if e.cause is not None:
                    lines.append(
                        tr(
                            "{caller} called {name}'s hand foul for {cause}.",
                            caller=caller,
                            name=who(e.target),
                            cause=_cause_text(e.cause),
                        )
                    )
                else:
                    lines.append(tr("{caller} called {name}'s hand foul.", caller=caller, name=who(e.target)))
            case MakeGoodDemanded():
                lines.append(tr("{name} must make meld {meld} good.", name=who(e.seat), meld=e.meld))
            case HandFouled():
                lines.append(tr("{name}'s hand is foul: dead for this hand, and still pays.", name=who(e.seat)))
            case PlayerQuit():
                lines.append(tr("{name} left the hand (still pays to the end of it).", name=who(e.seat)))
            case PlayerBusted():
                lines.append(tr("{name} is out of chips — busted.", name=who(e.seat)))
            case SplitOffered():
                lines.append(tr("{name} offers to split the tops.", name=who(e.seat)))
            case SplitDeclined():
                lines.append(tr("{name} declined to split the tops.", name=who(e.seat)))
            case MarriedSplitOffered():
                lines.append(
                    tr(
                        "{name} and {partner} are married splitters and the last two in action: the split is offered "
                        "automatically. {partner} may accept or decline; {name} may withdraw it.",
                        name=who(e.seat),
                        partner=who(e.partner),
                    )
                )
            case DrawDeclined():
                lines.append(
                    tr("{name} did not draw again; the first pluck is the next player's option card.", name=who(e.seat))
                )
            case StockReshuffled():
                lines.append(
                    tr("The stock ran out: {cards} from the discards were reshuffled.", cards=plural(e.count, "card"))
                )
            case TimedOut():
                lines.append(tr("{name}'s time ran out; the minimal move was played.", name=who(e.seat)))
            case WentOut():
                lines.append(tr("**{name} went out!**", name=who(e.seat)))
            case HandEnded():
                lines.extend(_chip_lines(after, names, moves))
                moves = []
                lines.append(end_text(before if before.hand is not None else after, names, e))
            case ChipsMoved():
                moves.append(e)
            case _:
                pass
    lines.extend(_chip_lines(after, names, moves))
    return lines


def _sat_line(name: str, stack: int | None, doubles: bool) -> str:
    if stack is None:
        return tr("{name} sat down, playing doubles.", name=name) if doubles else tr("{name} sat down.", name=name)
    if doubles:
        return tr("{name} sat down with {chips}, playing doubles.", name=name, chips=chips(stack))
    return tr("{name} sat down with {chips}.", name=name, chips=chips(stack))


def _meld_line(kind: str) -> str:
    """A meld's public line without its end: ``{name}`` and ``{cards}`` still to fill."""
    match kind:
        case "add":
            return tr("{name} added {cards}")
        case "split":
            return tr("{name} added and split {cards}")
        case "borrow":
            return tr("{name} borrowed to meld {cards}")
    return tr("{name} melded {cards}")


def item_words(reason: ChipReason) -> str:
    match reason:
        case ChipReason.CONDITION:
            return tr("conditions")
        case ChipReason.OUTS:
            return tr("outs")
        case ChipReason.GOING_OUT:
            return tr("going out")
        case ChipReason.BUST_OUT:
            return tr("bust-out")
        case ChipReason.REFUND:
            return tr("refund")
        case ChipReason.FORFEIT_BACK:
            return tr("forfeit back")
    return reason.value
