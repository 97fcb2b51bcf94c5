"""Engine state and events -> words and renderer snapshots. The only place Discord wording lives.

Nothing here imports discord: functions take engine values and a ``names`` mapping (player id -> display
name) and return plain strings (Discord markdown allowed) or renderer snapshots. Public texts never
include a card that is still in someone's hand; private texts (DMs, ephemeral replies) say so in their
function names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from pancog.adapter.safety import plain, shown
from pancog.game.actions import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    Claim,
    DeclineDraw,
    DeclineSplit,
    Discard,
    Force,
    FoulCall,
    GoOnTop,
    Knock,
    MakeGood,
    NewMeld,
    OfferSplit,
    Pluck,
    SetAway,
    Stand,
    TakeOption,
)
from pancog.game.cards import Card, format_cards
from pancog.game.engine import PlayerView
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
from pancog.game.melds import Meld, meld_value
from pancog.game.rules import Rules
from pancog.game.state import (
    DrawSource,
    EndReason,
    HandState,
    Phase,
    PlayerHand,
    PlayerStatus,
    Pot,
    Seat,
    Step,
    TableState,
)
from pancog.services.league import Board, Flag, PlayerCard, SeasonInfo, SeasonRow, display
from pancog.services.replay import HandReplay, HandSummary, ReplayStep
from pancog.services.tournaments.service import TournamentInfo
from renderer import (
    HandSnapshot,
    InPlayHow,
    MeldSnapshot,
    NetSnapshot,
    OutcomeSnapshot,
    PaymentSnapshot,
    SeatSnapshot,
    SeatStatus,
    TableSnapshot,
    hand_text,
    table_text,
)
from renderer.standings import StandingRow, StandingsSnapshot

SOMETHING_WRONG = "Something went wrong — the table is unchanged."
DONT_DRAW_AGAIN = "Don't draw again"
"""The double draw's second pluck declined (/pass, the My hand button): [S0] "the right to draw twice"."""
DM_CLOSED_NOTICE = (
    "I couldn't DM you your hand (your DMs are closed to this server), so I won't try again. "
    "Use the **My hand** button on the table or `/hand` to see your cards."
)

Names = Mapping[int, str]


def _default_name(player_id: int) -> str:
    if player_id < 0:  # computer players (issue 8): "🤖 Normal bot 1", derived from the id (no Discord member)
        from pancog.services.bots import computer_name

        return computer_name(player_id)
    return f"Player {player_id % 10000}"


def name_of(names: Names, player_id: int | None) -> str:
    """A player's name for Discord text: escaped (Markdown and mentions), capped, never empty (issue 19)."""
    if player_id is None:
        return "the floor"
    default = _default_name(player_id)
    return shown(names.get(player_id) or default, fallback=default)


def image_name_of(names: Names, player_id: int | None) -> str:
    """A player's name for images: no control or bidirectional characters, capped, never empty (no escaping: the
    renderer draws it as it is)."""
    if player_id is None:
        return "the floor"
    default = _default_name(player_id)
    return plain(names.get(player_id) or default) or default


def seat_name(state: TableState, names: Names, seat: int | None) -> str:
    if seat is None:
        return "nobody"
    s = state.seat(seat)
    if s is None:
        return f"seat {seat + 1}"
    return name_of(names, s.player_id)


def cards_text(cards: Sequence[Card]) -> str:
    return format_cards(cards, pretty=True)


def chips(n: int) -> str:
    return f"{n:,} chip{'s' if n != 1 else ''}"


# --------------------------------------------------------------------------------------------- snapshots


def _seat_status(state: TableState, hand: HandState | None, seat: int) -> SeatStatus:
    s = state.seats[seat]
    if hand is None or hand.players[seat] is None:
        return SeatStatus.AWAY if s is not None and s.away else SeatStatus.WAITING
    pl = hand.players[seat]
    if pl is None:
        return SeatStatus.WAITING
    return _status_pill(pl.status, flat=pl.board_count >= 10 and not pl.hand)


def _status_pill(status: PlayerStatus, *, flat: bool) -> SeatStatus:
    """A dealt-in player's pill (``flat``: ten cards on the board, none in hand)."""
    match status:
        case PlayerStatus.IN:
            return SeatStatus.FLAT if flat else SeatStatus.IN
        case PlayerStatus.RETIRED:
            return SeatStatus.ON_TOP
        case PlayerStatus.FOULED | PlayerStatus.QUIT:
            return SeatStatus.FOULED
        case PlayerStatus.BUSTED:
            return SeatStatus.BUSTED
        case _:
            return SeatStatus.WAITING


def meld_snapshots(melds: Sequence[Meld], rules: Rules) -> tuple[MeldSnapshot, ...]:
    return tuple(
        MeldSnapshot(
            index=m.id, cards=m.cards, value=meld_value(m, rules) if m.valid else 0, label="" if m.valid else "?"
        )
        for m in melds
    )


_MARKUP = re.compile(r"\\(.)|\*\*|__|\|\||~~|`")
_COMPUTER_MARK = "🤖 "


def plain_text(line: str) -> str:
    """A board line without its Discord Markdown (``**bold**``, ``||spoiler||``, escapes), for images."""
    return _MARKUP.sub(lambda m: m.group(1) or "", line)


def image_name(names: Names, player_id: int) -> tuple[str, bool]:
    """(name, is a computer player) for an image: the renderer draws a robot mark, not the 🤖 the font lacks."""
    name = image_name_of(names, player_id)
    if player_id < 0:
        return name.removeprefix(_COMPUTER_MARK), True
    return name, False


def _in_play(state: TableState, names: Names) -> tuple[Card | None, str, InPlayHow]:
    """The card lying face up for everyone (just plucked, taken or forced), who holds it, and how it came."""
    hand = state.hand
    t = hand.turn if hand is not None else None
    if t is None or t.drawn is None or t.step not in (Step.DRAWN, Step.MUST_USE):
        return None, "", "plucked"
    s = state.seat(t.seat)
    who = image_name(names, s.player_id)[0] if s is not None else f"seat {t.seat + 1}"
    how: InPlayHow = (
        "taken" if t.source is DrawSource.OPTION else "forced" if t.source is DrawSource.FORCED else "plucked"
    )
    return t.drawn, who, how


def table_snapshot(
    state: TableState, names: Names, *, title: str, notes: Sequence[str] = (), four_color: bool = False
) -> TableSnapshot:
    """The public table (never a hand's cards: only counts). ``notes`` may carry Markdown: the image gets plain text."""
    hand = state.hand
    shown = hand if hand is not None else state.last_hand
    seats: list[SeatSnapshot] = []
    index_of: dict[int, int] = {}
    to_act = _to_act(state)
    for i, s in enumerate(state.seats):
        if s is None:
            continue
        pl = shown.players[i] if shown is not None and i < len(shown.players) else None
        index_of[i] = len(seats)
        name, computer = image_name(names, s.player_id)
        seats.append(
            SeatSnapshot(
                name=name,
                computer=computer,
                chips=s.stack,
                status=_seat_status(state, hand, i),
                doubles=s.doubles,
                is_turn=to_act == i,
                melds=meld_snapshots(pl.melds, state.rules) if pl is not None else (),
                hand_count=len(pl.hand) if pl is not None and hand is not None else 0,
            )
        )
    in_play, by, how = _in_play(state, names)
    return TableSnapshot(
        title=title[:80] or "Pan table",
        hand_no=state.hand_no,
        seats=tuple(seats),
        to_act=index_of.get(to_act) if to_act is not None else None,
        in_hand=hand is not None,
        in_play=in_play,
        in_play_by=by,
        in_play_how=how,
        discard=hand.muck[-1] if hand is not None and hand.muck else None,
        discard_count=len(hand.muck) if hand is not None else 0,
        discard_is_option=hand is not None and hand.option is not None,
        stock_count=len(hand.stock) if hand is not None else 0,
        singles_tops=state.singles_tops,
        doubles_tops=state.doubles_tops,
        notes=tuple(plain_text(n) for n in notes[-3:]),
        four_color=four_color,
    )


def _to_act(state: TableState) -> int | None:
    from pancog.game import engine

    return engine.to_act(state)


def hand_snapshot(
    state: TableState,
    seat: int,
    *,
    sort: str = "suit",
    four_color: bool = False,
    plays: Sequence[tuple[Action, int]] = (),
) -> HandSnapshot:
    """PRIVATE: one player's hand with the waiting drawn/option card (if it is his turn)."""
    hand = state.hand
    cards: tuple[Card, ...] = ()
    drawn: Card | None = None
    label = "pluck"
    pl = hand.players[seat] if hand is not None else None
    if hand is not None and pl is not None:
        cards = pl.hand
        t = hand.turn
        if t is not None and t.seat == seat and t.step in (Step.DRAWN, Step.MUST_USE):
            drawn = t.drawn
            label = "pluck" if t.step is Step.DRAWN else "option"
    usable = {c for a, _ in plays if isinstance(a, NewMeld | AddToMeld | Borrow) for c in a.cards} if drawn else set()
    return HandSnapshot(
        cards=cards,
        meldable=frozenset(i for i, c in enumerate(cards) if c in usable),
        drawn=drawn,
        drawn_label="option" if label == "option" else "pluck",
        sort="rank" if sort == "rank" else "suit",
        four_color=four_color,
    )


# --------------------------------------------------------------------------------------------- events


def _cause_text(cause: object) -> str:
    return {"invalid_meld": "an invalid spread", "abandoned": "abandoning the hand"}.get(str(cause), str(cause))


def end_text(state: TableState, names: Names, e: HandEnded) -> str:
    who = seat_name(state, names, e.winner)
    match e.reason:
        case EndReason.OUT:
            return f"Hand {e.hand_no} is over: **{who}** went out."
        case EndReason.LONE:
            return f"Hand {e.hand_no} is over: everyone else went on top, **{who}** takes the tops."
        case EndReason.NOBODY:
            return f"Hand {e.hand_no} is over: nobody played; the tops carry over."
        case EndReason.SPLIT:
            pair = " and ".join(seat_name(state, names, s) for s in e.splitters)
            return f"Hand {e.hand_no} is over: {pair} split the tops."
        case EndReason.SETTLED:
            return f"Hand {e.hand_no} is over: **{who}** is the last player in action and is paid as the board lies."
        case EndReason.VOID:
            return f"Hand {e.hand_no} is void: the stock ran out. Pays made stand; the tops carry over."
    return f"Hand {e.hand_no} is over."


def _account_name(state: TableState, names: Names, account: int | Pot) -> str:
    return f"the {account.value} tops" if isinstance(account, Pot) else seat_name(state, names, account)


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
            lines.append(f"Antes: {chips(total)} into the {payee} tops.")
            continue
        if reason is ChipReason.RAKE:
            continue
        payee_name = f"the {payee} tops" if not payee.isdigit() else seat_name(state, names, int(payee))
        payers = ", ".join(f"{_account_name(state, names, m.payer)} {m.amount}" for m in items)
        what = {
            ChipReason.CONDITION: "for conditions",
            ChipReason.OUTS: "for the outs",
            ChipReason.GOING_OUT: "for going out",
            ChipReason.BUST_OUT: "bust-out bonus",
            ChipReason.TOPS: "the tops",
            ChipReason.SPLIT: "a share of the split tops",
            ChipReason.REFUND: "refunds from a foul hand",
            ChipReason.TOPS_REFUND: "tops refunded",
            ChipReason.FORFEIT: "forfeit",
            ChipReason.FORFEIT_BACK: "forfeit returned",
        }.get(reason, reason.value)
        lines.append(f"{payee_name} receives {chips(total)} — {what} ({payers}).")
    return lines


def describe_events(before: TableState, after: TableState, names: Names, events: Sequence[Event]) -> list[str]:
    """PUBLIC lines for the board: what happened, in plain words. Private events are skipped."""
    lines: list[str] = []
    moves: list[ChipsMoved] = []

    def who(seat: int) -> str:
        s = before.seat(seat) or after.seat(seat)
        return name_of(names, s.player_id) if s is not None else f"seat {seat + 1}"

    for e in events:
        if e.private_to is not None:
            continue
        match e:
            case SeatTaken():
                s = after.seat(e.seat)
                lines.append(
                    f"{name_of(names, e.player_id)} sat down"
                    + (f" with {chips(s.stack)}" if s is not None else "")
                    + (", playing doubles" if e.doubles else "")
                    + "."
                )
            case SeatLeft():
                lines.append(f"{name_of(names, e.player_id)} left the table.")
            case CashedOut():
                lines.append(f"{name_of(names, e.player_id)} took {chips(e.amount)} back to the bank.")
            case AwaySet():
                lines.append(f"{who(e.seat)} is {'away' if e.away else 'back'}.")
            case HandStarted():
                lines.append(f"Hand {e.hand_no} dealt to {len(e.dealt)} players; {who(e.first)} is first hand.")
            case UpcardTurned():
                lines.append(f"The upcard is {e.card.pretty}.")
            case Declared():
                verb = "knocked — plays" if e.playing else "went on top"
                lines.append(f"{who(e.seat)} {verb}{' (changed)' if e.changed else ''}.")
            case PlayStarted():
                lines.append(f"Play starts: {who(e.seat)} draws first.")
            case CardPlucked():
                lines.append(f"{who(e.seat)} plucked {e.card.pretty}.")
            case OptionTaken():
                lines.append(f"{who(e.seat)} took the option card {e.card.pretty}.")
            case Melded():
                laid = cards_text([*([e.drawn] if e.drawn else []), *e.cards])
                pays = f", a condition worth {e.units} unit{'s' if e.units != 1 else ''}" if e.units else ""
                kind = {"new": "melded", "add": "added", "split": "added and split", "borrow": "borrowed to meld"}
                lines.append(f"{who(e.seat)} {kind.get(e.kind.value, 'melded')} {laid}{pays}.")
            case Discarded():
                lines.append(f"{who(e.seat)} discarded {e.card.pretty}.")
            case Forced():
                where = "back on" if e.back else "on"
                lines.append(f"{who(e.caller)} forced {e.card.pretty} {where} {who(e.target)}.")
            case PluckVoided():
                lines.append(f"{who(e.seat)}'s pluck {e.card.pretty} is dead.")
            case FoulCalled():
                caller = "The floor" if e.caller is None else who(e.caller)
                cause = f" for {_cause_text(e.cause)}" if e.cause is not None else ""
                lines.append(f"{caller} called {who(e.target)}'s hand foul{cause}.")
            case MakeGoodDemanded():
                lines.append(f"{who(e.seat)} must make meld {e.meld} good.")
            case HandFouled():
                lines.append(f"{who(e.seat)}'s hand is foul: dead for this hand, and still pays.")
            case PlayerQuit():
                lines.append(f"{who(e.seat)} left the hand (still pays to the end of it).")
            case PlayerBusted():
                lines.append(f"{who(e.seat)} is out of chips — busted.")
            case SplitOffered():
                lines.append(f"{who(e.seat)} offers to split the tops.")
            case SplitDeclined():
                lines.append(f"{who(e.seat)} declined to split the tops.")
            case MarriedSplitOffered():
                lines.append(
                    f"{who(e.seat)} and {who(e.partner)} are married splitters and the last two in action: the split "
                    f"is offered automatically. {who(e.partner)} may accept or decline; {who(e.seat)} may withdraw it."
                )
            case DrawDeclined():
                lines.append(f"{who(e.seat)} did not draw again; the first pluck is the next player's option card.")
            case StockReshuffled():
                lines.append(f"The stock ran out: {e.count} cards from the discards were reshuffled.")
            case TimedOut():
                lines.append(f"{who(e.seat)}'s time ran out; the minimal move was played.")
            case WentOut():
                lines.append(f"**{who(e.seat)} went out!**")
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


# --------------------------------------------------------------------------------------------- outcome


_PAID_TO_WINNER = {ChipReason.OUTS: "outs", ChipReason.GOING_OUT: "going out", ChipReason.BUST_OUT: "bust-out"}
_NOT_IN_RECEIVED = frozenset(ChipReason) - {ChipReason.CONDITION, ChipReason.ANTE, ChipReason.RAKE}


def hand_nets(after: TableState, events: Sequence[Event]) -> dict[int, int]:
    """Each dealt-in seat's net for the hand that ``events`` (the last action's) ended: chips won minus chips
    lost, antes and rake included. Conditions paid on earlier turns come from the finished hand's ``received``
    (the engine keeps them per collector, net of foul refunds); the last action's other movements from its
    events. Forfeits for going on top (``retire_forfeit_chips``) are not counted."""
    hand = after.last_hand
    if hand is None:
        return {}
    rules = after.rules
    nets = {pl.seat: -(rules.ante * pl.multiplier + rules.rake) for pl in hand.players if pl is not None}
    for pl in hand.players:
        if pl is None:
            continue
        for payer, amount in pl.received:
            nets[pl.seat] = nets.get(pl.seat, 0) + amount
            nets[payer] = nets.get(payer, 0) - amount
    for e in events:
        if isinstance(e, ChipsMoved) and e.reason in _NOT_IN_RECEIVED:
            if isinstance(e.payer, int):
                nets[e.payer] = nets.get(e.payer, 0) - e.amount
            if isinstance(e.payee, int):
                nets[e.payee] = nets.get(e.payee, 0) + e.amount
    return nets


def outcome_snapshot(
    before: TableState,
    after: TableState,
    names: Names,
    events: Sequence[Event],
    *,
    title: str,
    four_color: bool = False,
) -> OutcomeSnapshot | None:
    """The end-of-hand summary image, when a hand just ended with a winner.

    Each payment is everything that player paid the winner this hand: conditions (those paid on the
    going-out turn too), outs, going out and bust-out, itemised in its note; the image's total is their sum
    plus the tops. `hand_nets` gives every player's net for the hand.
    """
    ended = next((e for e in events if isinstance(e, HandEnded)), None)
    if ended is None or ended.winner is None or after.last_hand is None:
        return None
    winner = ended.winner
    pl = after.last_hand.players[winner]
    went = next((e for e in events if isinstance(e, WentOut)), None)
    items: dict[int, dict[str, int]] = {}
    for payer, amount in pl.received if pl is not None else ():
        items.setdefault(payer, {})["conditions"] = amount
    singles = doubles = 0
    for e in events:
        if not isinstance(e, ChipsMoved) or e.payee != winner:
            continue
        if e.payer is Pot.SINGLES:
            singles += e.amount
        elif e.payer is Pot.DOUBLES:
            doubles += e.amount
        elif isinstance(e.payer, int) and e.reason in _PAID_TO_WINNER:
            paid = items.setdefault(e.payer, {})
            paid[_PAID_TO_WINNER[e.reason]] = paid.get(_PAID_TO_WINNER[e.reason], 0) + e.amount

    def who(seat: int) -> tuple[str, bool]:
        s = before.seat(seat) or after.seat(seat)
        return image_name(names, s.player_id) if s is not None else (f"seat {seat + 1}", False)

    payments = tuple(
        PaymentSnapshot(
            payer=who(seat)[0], chips=sum(paid.values()), note=", ".join(f"{k} {v}" for k, v in paid.items() if v)
        )
        for seat, paid in items.items()
        if sum(paid.values())
    )
    nets = sorted(hand_nets(after, events).items(), key=lambda kv: (kv[0] != winner, -kv[1], kv[0]))
    return OutcomeSnapshot(
        title=title[:80] or "Pan table",
        hand_no=ended.hand_no,
        winner=who(winner)[0],
        melds=meld_snapshots(pl.melds, after.rules) if pl is not None else (),
        conditions=went.outs_units if went else 0,
        bust_out=went.bust_out_units if went else 0,
        going_out=after.rules.going_out_units if went else 0,
        singles_tops=singles,
        doubles_tops=doubles,
        payments=payments,
        nets=tuple(NetSnapshot(name=who(seat)[0], chips=n, computer=who(seat)[1]) for seat, n in nets),
        four_color=four_color,
    )


# --------------------------------------------------------------------------------------------- actions


def action_label(action: Action, pays: int = 0) -> str:
    """A short label for a legal play (select options, ≤ 100 characters)."""
    suffix = f" — collects {chips(pays)}" if pays else ""
    match action:
        case NewMeld():
            text = f"Meld {cards_text(action.cards)}" if action.cards else "Meld"
            text += " with the drawn card" if action.cards else ""
        case AddToMeld():
            text = (
                f"Add {cards_text(action.cards)} to meld {action.meld}"
                if action.cards
                else f"Lay off on meld {action.meld}"
            )
            if action.split:
                text += f", split off {cards_text(action.split)}"
        case Borrow():
            taken = ", ".join(f"{c.pretty} from meld {m}" for m, c in action.taken)
            text = f"Meld {cards_text(action.cards)} borrowing {taken}"
        case MakeGood():
            text = f"Make meld {action.meld} good with {cards_text(action.cards)}"
        case Discard():
            text = "Discard the drawn card" if action.card is None else f"Discard {action.card.pretty}"
        case Pluck():
            text = "Draw from the stock"
        case DeclineDraw():
            text = DONT_DRAW_AGAIN + " (end your turn; your first pluck is the next player's option card)"
        case TakeOption():
            text = "Take the option card"
        case Knock():
            text = "Knock (play this hand)"
        case GoOnTop():
            text = "Go on top (sluff)"
        case Force():
            text = "Force" + (f" {action.card.pretty}" if action.card else "")
        case Claim():
            text = "Claim your pays"
        case OfferSplit():
            text = "Offer to split the tops"
        case AcceptSplit():
            text = "Accept splitting the tops"
        case DeclineSplit():
            text = "Decline splitting the tops"
        case FoulCall():
            text = f"Call seat {action.target + 1} foul"
        case Stand():
            text = "Leave the table"
        case SetAway():
            text = "Sit out" if action.away else "Come back"
        case _:
            text = type(action).__name__
    return (text + suffix)[:100]


@dataclass(frozen=True, slots=True)
class PrivateNote:
    """What the acting player is told privately after an action."""

    text: str


def private_result(
    before: TableState, after: TableState, seat: int, events: Sequence[Event], *, to_act: int | None
) -> str:
    """PRIVATE (ephemeral to the actor): the outcome of his own action, with his next step (``to_act``: whose
    turn it is in ``after``, from the engine)."""
    parts: list[str] = []
    for e in events:
        match e:
            case CardPlucked() if e.seat == seat:
                parts.append(f"You plucked {e.card.pretty}.")
            case OptionTaken() if e.seat == seat:
                parts.append(f"You took the option card {e.card.pretty}; meld it now.")
            case Melded() if e.seat == seat:
                parts.append(f"Melded{f' — a condition worth {e.units} unit(s)' if e.units else ''}.")
            case Discarded() if e.seat == seat:
                parts.append(f"You discarded {e.card.pretty}.")
            case Declared() if e.seat == seat:
                parts.append("You knocked: you play this hand." if e.playing else "You went on top for this hand.")
            case WentOut() if e.seat == seat:
                parts.append("You went out!")
            case Forced() if e.caller == seat:
                parts.append(f"You forced {e.card.pretty}.")
            case DrawDeclined() if e.seat == seat:
                parts.append("You did not draw again; your turn is over.")
            case _:
                pass
    parts.append(next_step(after, seat, to_act=to_act))
    return " ".join(p for p in parts if p)


def next_step(state: TableState, seat: int, *, to_act: int | None) -> str:
    """PRIVATE hint: what this player can do now (``to_act``: whose turn it is, from the engine)."""
    hand = state.hand
    if hand is None:
        return "The hand is over." if state.last_hand is not None else ""
    if to_act != seat:
        return ""
    if hand.phase is Phase.DECLARING:
        return "Your turn to declare: /knock to play, /sluff to go on top."
    t = hand.turn
    if t is None:
        return ""
    if hand.make_good is not None:
        return f"Make meld {hand.make_good[1]} good (see My hand)."
    match t.step:
        case Step.DRAW if t.second_pluck:
            return f"Your first pluck is in the discards: /draw again, or /pass ({DONT_DRAW_AGAIN.lower()})."
        case Step.DRAW:
            return "Your turn: /draw" + (" or /take the option card." if hand.option is not None else ".")
        case Step.DRAWN:
            return "Meld the plucked card (/meld, /add, /borrow or My hand) or /discard it."
        case Step.MUST_USE:
            return "You must meld that card now (/meld, /add or My hand)."
        case Step.MELDING:
            return "Meld more, or /discard a card to end your turn."
    return ""


# --------------------------------------------------------------------------------------------- board text


def board_text(
    state: TableState, names: Names, *, title: str, lines: Sequence[str], host_id: int, practice: bool = False
) -> str:
    """PUBLIC: the board's one line (issue #14.4): the table, what happened last, whose turn it is. The rest
    (recent events, seats, melds) is in the image, its alt text and the Text view button."""
    head = f"**{shown(title, limit=80)}** — "
    hand = state.hand
    seated = sum(1 for s in state.seats if s is not None)
    latest = f"{headline(lines)} " if lines else ""
    if hand is None:
        nxt = "hand 1" if state.hand_no == 0 else f"hand {state.hand_no + 1}"
        todo = "Press **Start** to deal it." if practice else "Join, then press **Start**."
        head += f"{latest}{seated} seated, waiting to deal {nxt}. {todo}"
    else:
        from pancog.game import engine

        actor = engine.to_act(state)
        phase = "declaring" if hand.phase is Phase.DECLARING else "playing"
        head += f"hand {hand.hand_no}, {phase}. {latest}"
        if actor is not None:
            head += f"**{seat_name(state, names, actor)}** to act."
        t = hand.turn
        if t is not None and t.drawn is not None and t.step in (Step.DRAWN, Step.MUST_USE):
            head += f" Card up: {t.drawn.pretty}."
    head += f" Tops: {state.singles_tops}" + (f" + {state.doubles_tops} doubles" if state.doubles_tops else "") + "."
    return head[:1900]


def _is_chip_line(line: str) -> bool:
    return line.startswith("Antes:") or " receives " in line


def headline(lines: Sequence[str]) -> str:
    """The one line that says what happened last: the latest line that is not a payment (those follow the move
    that caused them, and are in Text view and the end-of-hand embed)."""
    return next((line for line in reversed(lines) if not _is_chip_line(line)), lines[-1] if lines else "")


def text_view(lines: Sequence[str], twin: str) -> str:
    """PRIVATE (the Text view button): the board in words: the recent events and the image's text twin."""
    recent = "\n".join(f"• {line}" for line in lines[-12:])
    body = f"**Recent**\n{recent}\n" if recent else ""
    return (body + f"```\n{twin[: 1900 - len(body)]}\n```")[:2000]


def nets_text(state: TableState, names: Names, nets: Mapping[int, int]) -> str:
    """PUBLIC (the end-of-hand embed): each player's net for the hand (by seat, from :func:`hand_nets`, the same
    figures as the outcome image), biggest win first."""
    rows = sorted(nets.items(), key=lambda item: (-item[1], item[0]))
    return "\n".join(f"{seat_name(state, names, seat)}: **{n:+,}**" for seat, n in rows) or "No chips changed hands."


def hand_over_title(text: str) -> str:
    """An end-of-hand line as an embed title (embed titles show Markdown literally)."""
    return text.replace("**", "")[:256]


def practice_stranger(host: str) -> str:
    """PRIVATE refusal: someone not seated tried to play at a practice table."""
    return f"This is {host}'s practice table. Start your own with /pan practice."


def seats_text(state: TableState, names: Names) -> str:
    rows = []
    for i, s in enumerate(state.seats):
        if s is None:
            continue
        tags = [chips(s.stack)]
        if s.doubles:
            tags.append("doubles")
        if s.away:
            tags.append("away")
        if s.leaving:
            tags.append("leaving")
        rows.append(f"{i + 1}. {name_of(names, s.player_id)} — {', '.join(tags)}")
    return "\n".join(rows) or "No one is seated."


def turn_ping(user_id: int, what: str, *, declaring: bool) -> str:
    """PUBLIC: the short line that mentions the person to act (issue #14.1). ``what``: the last public line of
    what happened (never a card still in a hand)."""
    todo = "your turn to declare: /knock or /sluff." if declaring else "your turn: /draw, /take or My hand."
    return f"{what} <@{user_id}>, {todo}".strip()[:2000]


def turn_dm(channel: str | None) -> str:
    """PRIVATE (DM, "every turn"): it is the player's turn."""
    return f"Your turn at the Pan table in #{channel}." if channel else "Your turn at your Pan table."


def hand_dm_text(guild: str, channel: str, hand_no: int, text_twin: str) -> str:
    """PRIVATE (DM): the deal."""
    return f"**{shown(guild, limit=100)}** · #{shown(channel, limit=100)} · hand {hand_no}\n{text_twin}"


def outs_text(state: TableState, names: Names, seat: int, chips_now: int) -> str:
    what = "outs + going-out units" if state.rules.going_out_units else "the outs"
    return f"{seat_name(state, names, seat)}'s board would collect {chips(chips_now)} on going out now ({what})."


def rebought(amount: int, stack: int, bank: int, *, season: bool = False) -> str:
    """The private answer to /pan rebuy (``season``: a bank season's table, the chips came from the season bank)."""
    which = "season bank" if season else "bank"
    return f"You added {chips(amount)}. Your stack is {chips(stack)}; {which}: {chips(bank)}."


NEEDS_MODERATOR = "You need the Manage Server permission (or the moderator role) for that."


def leaderboard(rows: Sequence[tuple[int, int]], names: Names) -> str:
    """The public /pan leaderboard message."""
    lines = [f"{i + 1}. {name_of(names, u)} — {chips(n)}" for i, (u, n) in enumerate(rows)]
    return "**Leaderboard**\n" + ("\n".join(lines) or "Nobody has chips yet.")


def granted(amount: int, who: str, bank: int) -> str:
    """The private answer to /pan grant (a negative amount took chips)."""
    verb, prep = ("Granted", "to") if amount > 0 else ("Took", "from")
    return f"{verb} {chips(abs(amount))} {prep} {shown(who)}. Their bank: {chips(bank)}."


# --------------------------------------------------------------------------------------------- command replies
# The private (ephemeral) answers of the /pan commands, and their few public texts. The adapters (cog.py,
# practice_cog.py) only call these.

GUIDE_INTRO = (
    "**The Pan guide.** New? `/pan practice` deals you a hand against computer players; **My hand** shows your "
    "cards and every play. With friends: `/pan open`, **Join**, **Start**. Pick a page below."
)
BOARD_REPOSTED = "The board is posted again below."
AMOUNT_NOT_ZERO = "The amount must not be zero."


CONFIRM_LEAVE = (
    "Leave during this hand? You keep paying to its end (conditions, the outs, going out) and cannot play it. "
    "You stand up when it ends."
)
CONFIRM_CLOSE = "Close the table in the middle of a hand? The hand is abandoned and every stack goes back to its bank."
CONFIRM_BUTTONS = {"leave": ("Leave", "Stay"), "close": ("Close the table", "Keep playing")}
NOTHING_DONE = "Nothing changed."


def could_not_sit(reason: str) -> str:
    """PRIVATE: /pan open opened the table but could not seat its host."""
    return f"You could not sit down: {reason}"


def sat_down(stack: int, *, doubles: bool = False, bank: int | None = None, season: bool = False) -> str:
    """PRIVATE: the answer to /pan join (with the bank left; ``season``: a bank season's table) or the Join button."""
    text = f"You sat down with {chips(stack)}{' (doubles)' if doubles else ''}."
    return text if bank is None else f"{text} {'Season bank' if season else 'Bank'}: {chips(bank)}."


def left_table(gone: bool) -> str:
    """PRIVATE: the answer to /pan leave (``gone``: stood up now; else at the end of the hand)."""
    if gone:
        return "You left; your stack is back in your bank."
    return "You will leave when this hand ends (you still pay until then)."


def hand_dealt(hand_no: int) -> str:
    """PRIVATE: the answer to /pan start."""
    return f"Hand {hand_no} dealt. Your hand comes by DM; **My hand** on the board shows it too."


def table_closed(returned: Mapping[int, int], names: Names) -> str:
    """PUBLIC: /pan close, with what went back to each bank."""
    lines = [f"{name_of(names, u)}: {chips(n)}" for u, n in returned.items()]
    return "Table closed. Chips back to the bank:\n" + ("\n".join(lines) or "none")


def rules_text(preset: str, lines: Sequence[str]) -> str:
    """PRIVATE: /pan rules — the table's house rules, one bullet each (≤ 2000 characters)."""
    text = "\n".join(f"• {line}" for line in lines)
    return f"**{preset} rules**\n{text}"[:2000]


def balance_text(bank: int, on_tables: int) -> str:
    """PRIVATE: /pan balance."""
    extra = f" Plus {chips(on_tables)} on tables." if on_tables else ""
    return f"Bank: {chips(bank)}.{extra}"


def season_table_closed(returned: Mapping[int, int], names: Names) -> str:
    """PUBLIC, in a bank season's table channel when the season ends: the table closed, stacks to the season banks."""
    lines = [f"{name_of(names, u)}: {chips(n)}" for u, n in returned.items()]
    return "The season has ended, so this table is closed. Chips back to the season bank:\n" + (
        "\n".join(lines) or "none"
    )


def season_bank_text(season: SeasonRow, bank: int, on_tables: int) -> str:
    """PRIVATE: /pan balance during a bank season — the season bank beside the all-time one."""
    extra = f" Plus {chips(on_tables)} on season tables." if on_tables else ""
    return f"Season {season.number} ({season.name}) bank: {chips(bank)}.{extra}"


def daily_text(*, claimed: bool, amount: int, bank: int, hours_left: int) -> str:
    """PRIVATE: /pan daily (claimed now, or already claimed with the hours until the next claim)."""
    if claimed:
        return f"You claimed {chips(amount)}. Bank: {chips(bank)}."
    return f"Already claimed today; next claim in about {hours_left} h. Bank: {chips(bank)}."


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
    role = f"<@&{moderator_role_id}>" if moderator_role_id else "none"
    board = "on" if four_color else "off"
    ping = f"after {ping_after:g} s without a move" if ping_after > 0 else "at once"
    return (
        f"Preset: {preset}. Starting chips: {starting_chips:,}. Daily: {daily_amount:,}. Moderator role: {role}. "
        f"Four-colour board: {board}. Turn pings: {ping}."
    )


PING_AFTER_RANGE = "ping_after is a number of seconds from 0 (ping at once) to 60."

CHANNEL_NEEDED = "Pick the channel to add or remove."


def channels_text(channel_ids: Sequence[int]) -> str:
    """PRIVATE: /panadmin channels — where Pan may be used now."""
    if not channel_ids:
        return "Pan can be used in every channel of this server."
    return "Pan can be used only in: " + ", ".join(f"<#{c}>" for c in channel_ids) + "."


def pan_not_here(channel_ids: Sequence[int]) -> str:
    """PRIVATE refusal: the server allows Pan only in some channels."""
    return "Pan isn't played in this channel. Try " + ", ".join(f"<#{c}>" for c in channel_ids[:10]) + "."


def settings_text(*, ping: str, dm_mode: str, dm_closed: bool, sort: str, four_color: bool) -> str:
    """PRIVATE: /pan settings — the player's preferences after the change."""
    closed = " (your DMs are closed: use My hand)" if dm_closed else ""
    pings = "a mention in the channel at your turn" if ping == "turn" else "off"
    return f"Turn pings: {pings}. DMs: {dm_mode}{closed}. Sort: {sort}. Four-colour: {'on' if four_color else 'off'}."


def floor_fouled(who: str) -> str:
    """PRIVATE: a moderator who is not seated made the floor's foul call."""
    return f"The floor called {shown(who)}'s hand foul."


def not_seated_here(who: str) -> str:
    """PRIVATE refusal: the member named in a command has no seat at this table."""
    return f"{shown(who)} is not seated at this table."


def meld_choice(meld: Meld) -> str:
    """An autocomplete choice for one of the player's melds (≤ 100 characters)."""
    return f"{meld.id}: {cards_text(meld.cards)}"[:100]


# --------------------------------------------------------------------------------------------- computer players

HINT_REFUSED = (
    "Hints are only for practice tables (/pan practice) where everyone else is a computer player; "
    "at this table it would be coaching."
)
HINT_NO_HAND = "No hand in progress."
HINT_NOT_YOUR_MOVE = "Nothing to suggest: it is not your move."


def hint_text(sentence: str) -> str:
    """PRIVATE: /hint — the suggestion's one sentence names the play ("Knock: about 30% of the unseen cards ...")."""
    return f"💡 {sentence}"[:2000]


def practice_title(player: str) -> str:
    """The title of a practice table (board and images)."""
    return f"Practice: {player} vs the computer"


def practice_opened(*, opponents: int, level: str, real_chips: bool, next_hand_delay: float | None) -> str:
    """PRIVATE: the answer to /pan practice once everyone is seated and the first hand dealt."""
    chips_used = "chips from your bank" if real_chips else "practice chips (your bank is untouched)"
    after = (
        f"the next hand is dealt {next_hand_delay:g} s after each hand ends"
        if next_hand_delay is not None
        else "press Start"
    )
    return (
        f"Practice table: you against {opponents} {level} computer player{'s' if opponents > 1 else ''}, "
        f"playing {chips_used}. Your hand is in your DMs and under **My hand**; `/hint` suggests a play; {after}. "
        "`/pan close` ends the session."
    )


def computer_seated(name: str, stack: int) -> str:
    """PRIVATE: the answer to /pan addbot."""
    return f"{name} sat down with {chips(stack)}. It plays through the same commands as everyone, at a human pace."


# --------------------------------------------------------------------------------------------- board, hand panel

DONE = "Done."


def table_title(channel_name: str | None) -> str:
    """A table's title when its host gave none."""
    return f"Pan at #{channel_name}" if channel_name else "Pan table"


def board_failed(error: str) -> str:
    """A failed board update, as /pan status lists it."""
    return f"board update failed: {error}"


SELECT_PLACEHOLDERS = {"play": "Play: meld, draw, declare…", "discard": "Discard a card"}
CHOOSE_A_PLAY = "Choose a play."
MENU_OUT_OF_DATE = "That menu is out of date — open My hand again."


def nothing_to(what: str) -> str:
    return f"There is nothing you can {what} now."


def clock_line(name: str, deadline: int) -> str:
    """The board's countdown line (Discord renders ``<t:..:R>`` live)."""
    return f" ⏱ {name} to play · time runs out <t:{deadline}:R>"


def hand_now(text_twin: str) -> str:
    return "Your hand now: " + text_twin


def not_in_hand(*, dealt: bool) -> str:
    return "You are not in a hand right now." + (
        " Wait for the next deal." if dealt else " Press Start on the board to deal."
    )


def missing_permissions(where: str, error: str) -> str:
    return (
        f"I can't post the Pan table in {where}: Discord says I am missing permissions ({error}). "
        "Please give me View Channel, Send Messages, Attach Files and Embed Links there "
        "(and Send Messages in Threads for a thread). The game is saved; the board comes back "
        "with the next move once I can post."
    )


def _cashouts(returned: Iterable[tuple[int, int]], names: Names) -> str:
    return "\n".join(f"{name_of(names, u)}: {chips(n)}" for u, n in returned) or "none"


def channel_deleted(returned: Mapping[int, int], names: Names) -> str:
    return "Your Pan table's channel was deleted, so the table is closed. Chips back to the bank:\n" + _cashouts(
        returned.items(), names
    )


# --------------------------------------------------------------------------------------------- operations

WELCOME_BACK = "Welcome back: you will be dealt in from the next hand."
STATUS_FOR_MODERATORS = "Only server moderators can see the bot status."
AUDIT_FOR_MODERATORS = "Only server moderators can run the ledger audit."
MARKED_AWAY = (
    "Your time ran out twice in a row at a Pan table, so you are marked **away**: you will not be dealt in, "
    "and you will be stood up (stack back to your bank) when this hand ends. Use `/pan back` there to stay."
)


def time_warning(name: str, seconds_left: float) -> str:
    return f"⏰ {name}: {int(seconds_left)} s left to play."


def idle_closed(cashouts: Iterable[tuple[int, int]], names: Names) -> str:
    return "This table closed after 30 minutes without a hand. Chips back to the bank:\n" + _cashouts(cashouts, names)


def audit_text(summary: str, books: Sequence[str]) -> str:
    return "Ledger audit: " + summary + ("\n" + "\n".join(books) if books else "")


# --------------------------------------------------------------------------------------------- the guide (#14.6)

GUIDE: tuple[tuple[str, str, str], ...] = (
    (
        "start",
        "Start here",
        "**Pan** (Panguingue) is a ten-card rummy played for chips.\n\n"
        "**Try a hand now:** `/pan practice` seats you with computer players and practice chips (your bank is "
        "untouched). Press **My hand** on the board: it shows your cards privately and lists every legal play, "
        "best first, with what it pays. Click a play to make it. `/hint` explains the suggested play there.\n\n"
        "**With friends:** `/pan open` in a channel, friends press **Join**, anyone presses **Start**. "
        "When it is your turn the bot mentions you (`/pan settings ping:off` to stop it).",
    ),
    (
        "hand",
        "How a hand goes",
        "1. **The deal**: ten cards each (by DM, and always under **My hand**). The decks have no 8s, 9s or 10s, "
        "so 7 and J are next to each other.\n"
        "2. **Declare**: each player **knocks** (plays) or **sluffs** (sits the hand out, losing only the ante).\n"
        "3. **Your turn**: **Draw** the top card of the stock, or **Take** the option card if it melds at once; "
        "meld the drawn card (or it becomes your discard); lay more melds if you like; **discard** one card.\n"
        "4. **Going out**: meld all eleven cards. Everyone in the hand pays you your conditions again plus the "
        "going-out pay, and you take the tops.",
    ),
    (
        "melds",
        "Melds and what pays",
        "A **meld** is a **set** (three or more of one rank: all one suit, or three different suits) or a "
        "**rope** (three or more of one suit in sequence, e.g. 6♥ 7♥ J♥).\n\n"
        "Some melds are **conditions**: they pay you at once, from every player in the hand. Three **valle** "
        "cards (3s, 5s or 7s) of one suit pay 2 units, other one-suit sets 1, a rope from the Ace or to the King "
        "1; spades pay double. Adding cards to a paying meld can pay again.",
    ),
    (
        "words",
        "Words",
        "**knock**: play this hand. **sluff** (go on top): sit it out for the ante.\n"
        "**ante**: what each hand costs, paid into the **tops** (the pot the winner takes).\n"
        "**unit**: the table's stake; every pay is a number of units (`/pan open stakes:`).\n"
        "**valle**: the 3s, 5s and 7s, the cards whose sets pay more.\n"
        "**rope**: a run of one suit. **condition**: a meld that pays at once.\n"
        "**option card**: the previous player's unused pluck; you may take it if it melds at once.\n"
        "**outs**: what your melds collect when you go out (`/outs`). **bust-out**: conditions made on the "
        "going-out turn are paid twice.\n"
        "**force**: put a card that fits someone's melds on them; they must use it. **foul**: a dead hand that "
        "still pays. **split**: the last two players share the tops.",
    ),
    (
        "help",
        "Where to get help",
        "**My hand** (or `/hand`): your cards and every legal play, best first, privately.\n"
        "`/hint` (practice tables): the suggested play in one sentence.\n"
        "`/pan rules`: the five rules that matter at this table, and all of them behind a button.\n"
        "**Text view** on the board: the table in words, for screen readers.\n"
        "`/pan settings`: turn pings, DMs, how your hand is sorted, a four-colour deck.",
    ),
)
GUIDE_PLACEHOLDER = "Choose a page of the guide"


def guide_page(key: str) -> tuple[str, str]:
    """PRIVATE: one page of the in-Discord guide (title, text); unknown keys give the first page."""
    for name, title, text in GUIDE:
        if name == key:
            return title, text
    return GUIDE[0][1], GUIDE[0][2]


def rules_top_five(preset: str, rules: Rules, lines: Sequence[str]) -> str:
    """PRIVATE: /pan rules — the five rules that matter most at this table (the rest behind All rules)."""

    def find(prefix: str) -> str:
        return next((line for line in lines if line.startswith(prefix)), "")

    unit = chips(rules.ante_chips)
    five = [
        f"Each hand costs the ante, one unit ({unit}), into the tops; every pay is a number of units.",
        "Knock to play the hand, or sluff (go on top) and lose only the ante.",
        "Your turn: draw (or take the option card if it melds at once), use the drawn card or discard it, "
        "meld, then discard one card.",
        find("Conditions:") or "Some melds (conditions) pay at once.",
        find("Going out") or "Meld all eleven cards to go out.",
    ]
    return f"**{preset} rules: the five that matter most**\n" + "\n".join(f"{i}. {r}" for i, r in enumerate(five, 1))


# --------------------------------------------------------------------------------------------- replays (issue 20)
# The replay's words and snapshots work from a pancog.services.replay.HandReplay, whose steps hold only what the viewer
# may see (the public board and the viewer's own cards): nothing here can show another player's hidden cards. Functions
# whose output holds the viewer's own cards say PRIVATE.

MAX_JUMPS = 25  # a select offers at most 25 options
SHARED = "The replay is posted in the channel."
JUMP_PLACEHOLDER = "Jump to a turn"
JUMP_NOT_OFFERED = "Pick a turn from the list."
SHARE_NOT_OVER = "A hand can be shared once it is over."
WATCH_BUTTON = "👁 See the shared hand"
WATCH_STOPPED_PRIVATE = "You no longer share your cards."


def replay_button_label(verb: str, hand_no: int) -> str:
    """The Share button of a step-through, or a hand's Replay button under /pan history."""
    return "Share" if verb == "share" else f"Replay hand {hand_no}"


def _seat_at(step: ReplayStep, index: int) -> Seat | None:
    """A seat after the step, or before it when the player cashed out as the hand ended (still on the board)."""
    after = step.seats_after[index] if index < len(step.seats_after) else None
    if after is not None:
        return after
    return step.seats_before[index] if index < len(step.seats_before) else None


def _public_states(step: ReplayStep) -> tuple[TableState, TableState]:
    """Before/after table states holding only public facts (seats, tops; the boards' melds after a hand ended), for
    the shared presenters that name seats and read a finished hand's melds."""
    rules = step.board.rules
    seats = tuple(_seat_at(step, i) for i in range(len(step.seats_after)))
    before = TableState(rules=rules, seats=step.seats_before, hand_no=step.board.hand_no)
    last = None
    if step.ended is not None:
        players: list[PlayerHand | None] = [None] * len(seats)
        for view in step.board.players:
            players[view.seat] = PlayerHand(seat=view.seat, status=view.status, melds=view.melds)
        last = HandState(hand_no=step.board.hand_no, seed=None, first=0, order=(), players=tuple(players))
    after = TableState(
        rules=rules,
        seats=seats,
        singles_tops=step.board.singles_tops,
        doubles_tops=step.board.doubles_tops,
        hand_no=step.board.hand_no,
        last_hand=last,
    )
    return before, after


# --------------------------------------------------------------------------------------------- words


def step_line(step: ReplayStep, names: Names) -> str:
    """What happened at this step, in one line (public: the viewer's own deal is not described)."""
    before, after = _public_states(step)
    lines = describe_events(before, after, names, step.events)
    if lines:
        return " ".join(lines)
    seat = _seat_at(step, step.actor) if step.actor is not None else None
    who = name_of(names, seat.player_id) if seat is not None else "The table"
    return f"{who} made a move that shows nothing on the board."


def step_title(replay: HandReplay, index: int) -> str:
    return f"Hand {replay.hand_no} · step {index + 1} of {len(replay.steps)}"


def summary_line(summary: HandSummary, names: Names) -> str:
    """One hand in the history: its number, its result and its length."""
    head = f"Hand {summary.hand_no}"
    ended = summary.ended
    if ended is None:
        result = "in progress"
    elif summary.splitter_ids:
        result = " and ".join(name_of(names, p) for p in summary.splitter_ids) + " split the tops"
    elif ended.reason.value == "nobody":
        result = "nobody played"
    elif ended.reason.value == "void":
        result = "void (the stock ran out)"
    elif summary.winner_id is not None:
        verb = "went out" if ended.reason.value == "out" else "won"
        result = f"{name_of(names, summary.winner_id)} {verb}"
        if summary.winner_chips:
            result += f" (+{chips(summary.winner_chips)})"
    else:
        result = "over"
    return f"{head} — {result} · {len(summary.dealt)} players, {summary.actions} actions"


def replay_history_text(summaries: Sequence[HandSummary], names: Names) -> str:
    """PRIVATE reply to /pan history: recent hands, newest first, each with a Replay button below."""
    if not summaries:
        return "No hand has been dealt at this table yet."
    lines = ["**Recent hands at this table** (press Replay to step through one)"]
    lines += [f"• {summary_line(s, names)}" for s in reversed(summaries)]
    return "\n".join(lines)[:2000]


def jump_options(replay: HandReplay, names: Names) -> list[tuple[str, str]]:
    """The "jump to turn" choices, (value, label): the deal, every turn's draw, the end — at most ``MAX_JUMPS``,
    evenly spread when a hand has more turns. Values are step indexes; only these are honoured."""
    last = len(replay.steps) - 1
    turns = [s.index for s in replay.steps if any(isinstance(e, CardPlucked | OptionTaken) for e in s.events)]
    picks = sorted({0, *turns, last}) if last >= 0 else []
    if len(picks) > MAX_JUMPS:
        inner = picks[1:-1]
        keep = MAX_JUMPS - 2
        picks = [0, *(inner[k * len(inner) // keep] for k in range(keep)), last]
    options: list[tuple[str, str]] = []
    for index in picks:
        if index == 0:
            label = "The deal"
        elif index == last and replay.summary.finished:
            label = "The end: " + summary_line(replay.summary, names)
        else:
            turn = turns.index(index) + 1 if index in turns else index
            label = f"Turn {turn}: " + plain_text(step_line(replay.steps[index], names))
        options.append((str(index), label[:100]))
    return options


def step_text(replay: HandReplay, index: int, names: Names) -> str:
    """PRIVATE (the requester's step-through): the step's line, the board's text twin and the requester's cards."""
    step = replay.steps[index]
    parts = [f"**{step_title(replay, index)}**", step_line(step, names)]
    if step.board.drawn is not None and step.board.phase is Phase.PLAYING:
        parts.append(f"Card up: {step.board.drawn.pretty}.")
    hand = own_hand_snapshot(replay, index)
    if hand is not None:
        parts.append(hand_text(hand))  # "Your hand, 10 cards by suit: …" as in My hand (the e2e privacy check reads it)
    parts.append(table_text(board_snapshot(replay, index, names)))
    return "\n".join(parts)[:2000]


def share_caption(replay: HandReplay, names: Names, sharer: int) -> str:
    """PUBLIC: the message carrying the shared animation."""
    return f"{name_of(names, sharer)} shared a replay: {summary_line(replay.summary, names)}."


# --------------------------------------------------------------------------------------------- snapshots


def _status(view: PlayerView | None, seat: Seat) -> SeatStatus:
    if view is None:
        return SeatStatus.AWAY if seat.away else SeatStatus.WAITING
    return _status_pill(view.status, flat=sum(len(m.cards) for m in view.melds) >= 10 and view.hand_count == 0)


def step_board(
    step: ReplayStep, names: Names, *, title: str, notes: Sequence[str] = (), four_color: bool = False
) -> TableSnapshot:
    """The public board after ``step`` (melds, counts, the face-up card, stacks, tops; never a hidden card)."""
    board = step.board
    views = {v.seat: v for v in board.players}
    over = board.phase in (None, Phase.OVER) or step.ended is not None
    seats: list[SeatSnapshot] = []
    index_of: dict[int, int] = {}
    for i in range(len(step.seats_after)):
        seat = _seat_at(step, i)
        if seat is None:
            continue
        view = views.get(i)
        index_of[i] = len(seats)
        seats.append(
            SeatSnapshot(
                name=image_name(names, seat.player_id)[0],
                computer=seat.player_id < 0,
                chips=seat.stack,
                status=_status(view, seat),
                doubles=seat.doubles,
                is_turn=not over and board.to_act == i,
                melds=meld_snapshots(view.melds, board.rules) if view is not None else (),
                hand_count=view.hand_count if view is not None else 0,
            )
        )
    to_act = None if over or board.to_act is None else index_of.get(board.to_act)
    in_hand = not over  # between hands (and at the step that ends one) the live board shows no piles
    in_play = board.drawn if in_hand and board.step in (Step.DRAWN, Step.MUST_USE) else None
    source = step.in_play_source
    how: InPlayHow = "taken" if source is DrawSource.OPTION else "forced" if source is DrawSource.FORCED else "plucked"
    by = ""
    if in_play is not None and board.turn_seat is not None:
        holder = _seat_at(step, board.turn_seat)
        by = image_name(names, holder.player_id)[0] if holder is not None else f"seat {board.turn_seat + 1}"
    discard = board.muck_top if in_hand else None  # as the live board: the top of the pile, the option or not
    return TableSnapshot(
        title=title[:80] or "Pan table",
        hand_no=board.hand_no,
        seats=tuple(seats),
        to_act=to_act,
        in_hand=in_hand,
        in_play=in_play,
        in_play_by=by,
        in_play_how=how,
        discard=discard,
        discard_count=step.muck_count if in_hand else 0,
        discard_is_option=board.option is not None,
        stock_count=board.stock_count,
        singles_tops=board.singles_tops,
        doubles_tops=board.doubles_tops,
        notes=tuple(plain_text(n) for n in notes[-3:]),
        four_color=four_color,
    )


def board_snapshot(replay: HandReplay, index: int, names: Names, *, four_color: bool = False) -> TableSnapshot:
    """The public board of one step, its line as the note."""
    step = replay.steps[index]
    return step_board(step, names, title=replay_title(replay), notes=(step_line(step, names),), four_color=four_color)


def own_hand_snapshot(
    replay: HandReplay, index: int, *, sort: str = "suit", four_color: bool = False
) -> HandSnapshot | None:
    """PRIVATE: the requester's own cards at this step (None when the requester was not dealt into the hand)."""
    if replay.viewer_seat is None:
        return None
    return HandSnapshot(cards=replay.steps[index].own, sort="rank" if sort == "rank" else "suit", four_color=four_color)


def outcome_of(replay: HandReplay, names: Names, *, four_color: bool = False) -> OutcomeSnapshot | None:
    """The end-of-hand summary (the winner's board and pays), when the hand ended with a winner."""
    last = replay.steps[-1] if replay.steps else None
    if last is None or last.ended is None:
        return None
    before, after = _public_states(last)
    return outcome_snapshot(before, after, names, last.events, title=replay_title(replay), four_color=four_color)


def replay_title(replay: HandReplay) -> str:
    return f"Replay · {replay.title}" if replay.title else "Replay"


# --------------------------------------------------------------------------------------------- watching with consent


def watch_announcement(player: str, watcher: str) -> str:
    """PUBLIC, at the table: a player lets one member see their cards (no card is named)."""
    return (
        f"👁 **{player}** lets {watcher} see their cards for this hand. While it lasts {watcher} cannot sit at this "
        f"table; it ends when the hand ends or {player} stops sharing."
    )


def watch_stopped(player: str, watcher: str) -> str:
    """PUBLIC, at the table: the player stopped sharing."""
    return f"👁 {player} no longer shares their cards with {watcher}."


def watch_granted(watcher: str) -> str:
    """PRIVATE to the player: the answer to /pan settings share_hand."""
    return f"{watcher} can see your cards until this hand ends. `/pan settings stop_sharing:True` ends it sooner."


def watched_hand_text(player: str, snapshot: HandSnapshot) -> str:
    """PRIVATE to the watcher: the shared hand, read-only ("Ana's hand, 10 cards by suit: …")."""
    text = hand_text(snapshot)
    if text.startswith("Your hand"):
        text = f"{player}'s hand" + text[len("Your hand") :]
    return f"{text}\nShared with you by {player} for this hand (read-only)."


# ------------------------------------------------------------------ chip leagues (issue 16)

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


# --------------------------------------------------------------------------------------------- tournaments (issue 15)

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


def tourney_title(title: str, tournament_id: int) -> str:
    return title or f"Tournament {tournament_id % 10_000:04d}"


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
        f"Buy-in {buy_in} chips{fee_text} · {seats} per table{when}\n"
        f"Entries: **{entries}{cap}** · {_STATUS_WORD.get(status, status)}"
    )


def tourney_created(title: str) -> str:
    return f"**{title}** is announced in this channel. Players register with the button or `/tourney register`."


def tourney_registered(title: str, buy_in: int, bank: int, running: bool) -> str:
    seat = " You will be seated at the next table with room." if running else ""
    return f"You are registered in **{title}** ({buy_in} chips paid; {bank} left in your bank).{seat}"


def tourney_unregistered(title: str, refund: int) -> str:
    return f"You are no longer registered in **{title}**; {refund} chips went back to your bank."


def tourney_bots_added(count: int, title: str) -> str:
    return f"{count} computer player{'s' if count != 1 else ''} registered in **{title}**."


def tourney_cancelled(title: str, refunds: int) -> str:
    return f"**{title}** is cancelled; {refunds} entr{'ies' if refunds != 1 else 'y'} refunded to the banks."


def tourney_table_starts(title: str, table_no: int, mentions: Sequence[str], final: bool) -> str:
    """PUBLIC, in the table's thread: the players seated there (mentioned)."""
    which = "The final table" if final else f"Table {table_no}"
    return f"🏆 {which} of **{title}** starts: {' '.join(mentions)}"


def tourney_moved(mention: str, from_table: int | None, to_table: int) -> str:
    origin = f" from table {from_table}" if from_table is not None else ""
    return f"🏆 {mention}, you move here{origin} to table {to_table} (balancing)."


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
) -> str:
    """PRIVATE (or in the results message): the text twin of the standings — places, stacks, level, clock, tables."""
    lines = [f"🏆 **{title}** — {_STATUS_WORD.get(status, status)}"]
    if status == "running":
        clock = "paused" if paused else ("on a break" if on_break else f"next level in {_clock(seconds_left)}")
        lines.append(f"Level {level} · ante {ante} · {clock}")
    lines.append(f"Entries {entries} · still in {alive} · prize pool {pool}")
    if prizes:
        lines.append("Prizes: " + ", ".join(f"{n}. {p}" for n, p in enumerate(prizes, 1)))
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
        lines.append(f"{len(tables)} tables: " + ", ".join(f"{no} ({len(names)})" for no, names in tables))
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
    field = f"{info.entries} entries · {info.alive} still in · prize pool {info.prize_pool:,}"
    finished = bool(info.results)
    if finished:
        field = f"{info.entries} entries · prize pool {info.prize_pool:,}"
        rows = tuple(StandingRow(place or 0, name(p), prize) for p, place, prize in info.results)
    else:
        places: list[StandingRow] = []
        for n, (p, chips, table) in enumerate(info.chips, 1):
            shared = places[-1].place if places and places[-1].chips == chips else n
            places.append(StandingRow(shared, name(p), chips, table))
        rows = tuple(places)
    tables = tuple((no, len(players)) for no, players in info.tables)
    return StandingsSnapshot(title, status, clock, field, finished, rows, tables=tables)


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
    return "\n".join(f"🏆 **{t}** — {_STATUS_WORD.get(s, s)}, {n} entries, in {c}" for t, s, n, c in rows)
